/* The start page: a new table (game, sheet, players, who begins). */
import { T, $, el, layoutName } from "../dom.js";
import { api } from "../api.js";

export function start() {
  const games = JSON.parse(document.body.dataset.games);
  const gameSel = $("#game"), layoutSel = $("#layout"), list = $("#players");
  const firstSel = $("#first");
  let uploaded = null;
  const info = () => games.find(g => g.name === gameSel.value);

  function addPlayer(name) {
    const n = list.children.length + 1;
    const remove = e => { if (list.children.length > 1) e.target.closest("li").remove(); };
    list.append(el("li", {}, el("div", { class: "row" },
      el("input", { name: "player", value: name || "", placeholder: T.player_n + " " + n,
        "aria-label": T.player_n + " " + n, required: true, maxlength: 40,
        oninput: e => blankName(e.target), oninvalid: e => blankName(e.target) }),
      el("button", { type: "button", class: "secondary", "aria-label": T.remove,
        onclick: remove }, "×"))));
  }
  // a name of only spaces is refused at its field, so that the table gets every player named
  function blankName(input) {
    const blank = input.value !== "" && input.value.trim() === "";
    input.setCustomValidity(blank ? T.name_blank : "");
    const li = input.closest("li"), shown = li.querySelector(".field-error");
    if (blank && !shown) {
      li.append(el("p", { class: "error field-error", role: "alert" }, T.name_blank));
    }
    if (!blank && shown) shown.remove();
  }
  function layouts() {
    const g = info();
    layoutSel.innerHTML = "";
    if (g.seat_layouts) layoutSel.append(el("option", { value: "" }, T.layout_per_seat));
    for (const l of g.layouts) {
      layoutSel.append(el("option", { value: l.name,
        selected: !g.seat_layouts && l.name === g.default_layout },
      layoutName(l.name) + (l.recon ? " (" + T.recon_short + ")" : "")));
    }
    if (uploaded) {
      layoutSel.append(el("option", { value: "uploaded", selected: true },
        uploaded.name + " (" + T.uploaded + ")"));
    }
    note();
  }
  function note() {
    const g = info();
    const l = g.layouts.find(x => x.name === layoutSel.value);
    const n = $("#layout-note");
    const recon = l ? l.recon : (layoutSel.value === "" && g.layouts.some(x => x.recon));
    // a shipped reconstruction's own note says what it is; the label stands for one without
    n.textContent = l && l.note ? l.note : recon ? T.recon + "." : "";
    n.className = "note" + (recon ? " recon" : "");
  }
  gameSel.onchange = () => {
    uploaded = null; $("#layout-file").value = ""; layouts(); firstOptions();
  };
  layoutSel.onchange = note;
  $("#layout-file").onchange = async e => {
    const f = e.target.files[0];
    $("#upload-error").textContent = "";
    if (!f) return;
    try { uploaded = JSON.parse(await f.text()); layouts(); }
    catch (err) { $("#upload-error").textContent = err.message; uploaded = null; }
  };
  $("#add-player").onclick = () => addPlayer("");
  // who begins: drawn as the game says (`first_drawn`: Kuh Vadis' coin toss) or one of the
  // players named above
  const names = () => [...list.querySelectorAll("input")].map(i => i.value.trim())
    .filter(Boolean);
  // the host's own choice, once made; until then the first player named
  firstSel.addEventListener("change", () => { firstSel.dataset.chosen = firstSel.value; });
  function firstOptions() {
    const was = firstSel.dataset.chosen || "0";
    firstSel.replaceChildren(el("option", { value: "random" },
      info().first_drawn),
    ...names().map((p, i) => el("option", { value: String(i) }, p)));
    // the choice kept where it still is one; else the first player, or the draw while no player
    // is named yet (never a blank choice)
    const has = v => [...firstSel.options].some(o => o.value === v);
    firstSel.value = has(was) ? was : has("0") ? "0" : "random";
  }
  list.addEventListener("input", firstOptions);
  list.addEventListener("click", () => setTimeout(firstOptions));
  $("#add-player").addEventListener("click", firstOptions);
  let creating = false;
  $("#create").onsubmit = async e => {
    e.preventDefault();
    if (creating) return;  // a double tap makes one table
    creating = true; $("#create-button").disabled = true;
    const players = [...list.querySelectorAll("input")].map(i => i.value.trim());
    const body = { game: gameSel.value, players, claim: $("#claim").checked ? 0 : null,
      first: firstSel.value === "random" ? "random" : +firstSel.value };
    if (layoutSel.value) body.layout = layoutSel.value;
    if (uploaded) body.uploaded = uploaded;
    $("#create-error").textContent = "";
    try {
      const r = await api("POST", "/api/tables", body);
      location.href = "/t/" + r.code + (body.claim === 0 ? "/sheet" : "");
    } catch (err) {
      $("#create-error").textContent = err.message;
      creating = false; $("#create-button").disabled = false;
    }
  };
  addPlayer(""); addPlayer("");
  layouts(); firstOptions();
}
