/* Check my paper: type a paper sheet's numbers into the drawn grid (or paste its JSON); the
 * server lists every problem and scores it. */
import { T, $, el, layoutName } from "../dom.js";
import { api } from "../api.js";
import { drawSheet, scoreTable } from "../draw.js";

export function start() {
  const games = JSON.parse(document.body.dataset.games);
  const gameSel = $("#game"), layoutSel = $("#layout");
  let timer = null, view = null;
  const ask = body => api("POST", "/api/check",
    Object.assign({ game: gameSel.value, layout: layoutSel.value }, body));

  function layouts() {
    const g = games.find(x => x.name === gameSel.value);
    layoutSel.innerHTML = "";
    for (const l of g.layouts) {
      layoutSel.append(el("option", { value: l.name, selected: l.name === g.default_layout },
        layoutName(l.name) + (l.recon ? " (" + T.recon_short + ")" : "")));
    }
    begin();
  }
  // the empty sheet of the game and layout chosen; an answer to an earlier question (another
  // game, the sheet as it was a keystroke ago), come late, is dropped: the page shows the
  // answer to the last thing asked
  let latest = 0;
  let drawnFor = null;    // the game and layout of the sheet drawn
  async function begin() {
    // the sheet of this game and layout is drawn already (the game chosen again): it stays,
    // with what was typed on it
    if (view && drawnFor === gameSel.value + "|" + layoutSel.value) return;
    const g = games.find(x => x.name === gameSel.value);
    const l = g.layouts.find(x => x.name === layoutSel.value);
    $("#layout-note").textContent = l && l.recon ? T.recon : "";
    $("#layout-note").className = "note" + (l && l.recon ? " recon" : "");
    const mine = ++latest;
    try {
      const r = await ask({ cells: {} });
      if (mine !== latest) return;
      view = r.view; draw(); show(r);
    } catch (e) {
      if (mine !== latest) return;
      view = null; $("#sheet").innerHTML = ""; $("#json-box").open = true;
      try {
        const r = await ask({ sheet: null });
        if (mine === latest) show(r);
      } catch (e2) { if (mine === latest) $("#result").textContent = e.message; }
    }
  }
  function draw() {
    drawnFor = gameSel.value + "|" + layoutSel.value;
    const box = $("#sheet"); box.innerHTML = "";
    box.append(drawSheet(view, { edit: true, onInput: () => {
      clearTimeout(timer); timer = setTimeout(check, 250);
    } }));
  }
  async function check() {
    const cells = {}, extras = {};
    document.querySelectorAll("#sheet input[data-key]").forEach(i => {
      if (i.value.trim()) cells[i.dataset.key] = i.value.trim();
    });
    document.querySelectorAll("#sheet [data-extra]").forEach(i => {
      extras[i.dataset.extra] = i.tagName === "SELECT" ? i.value : +i.value || 0;
    });
    const mine = ++latest;
    try {
      const r = await ask({ cells, extras });
      if (mine === latest) show(r);
    } catch (e) { if (mine === latest) showError(e.message, e.data && e.data.field); }
  }
  // one state at a time: a refused sheet (a letter in a number cell) is not checked, and says
  // why at the field it is about; the result card says so instead of the last good result
  function errorBox() {
    let e = $("#check-error");
    if (!e) {
      e = el("p", { class: "error", id: "check-error", role: "alert" });
      $("#sheet").append(e);
    }
    return e;
  }
  function markField(field) {
    document.querySelectorAll("#sheet .cell.bad").forEach(c => {
      c.classList.remove("bad"); c.querySelector("input").removeAttribute("aria-invalid");
    });
    const cell = field && $('#sheet .cell[data-key="' + field + '"]');
    if (!cell) return null;
    cell.classList.add("bad");
    cell.querySelector("input").setAttribute("aria-invalid", "true");
    return cell;
  }
  function showError(message, field) {
    const cell = markField(field);
    const e = errorBox();
    e.textContent = message;
    e.classList.toggle("at-field", !!cell);
    if (cell) {   // the message right under the field, not under the whole sheet
      const box = $("#sheet").getBoundingClientRect(), c = cell.getBoundingClientRect();
      e.style.top = (c.bottom - box.top + 4) + "px";
      e.style.left = Math.max(0, Math.min(c.left - box.left, box.width - 240)) + "px";
    }
    $("#result").replaceChildren(el("h2", {}, T.problems),
      el("p", { class: "error", id: "not-checked" }, cell ? T.not_checked : T.not_checked_above));
  }
  function show(r) {
    errorBox().textContent = "";
    errorBox().classList.remove("at-field");
    markField(null);
    const box = $("#result"); box.innerHTML = "";
    box.append(el("h2", {}, T.problems),
      r.problems.length ? el("ul", { class: "problems" }, r.problems.map(p => el("li", {}, p))) :
        el("p", { class: "ok" }, T.no_problems),
      el("h2", {}, T.score + ": " + r.score.total), scoreTable(r.score));
    $("#json").value = JSON.stringify(r.sheet);
    markHits(r.view);
  }
  // twenty one's exact hits, marked as typed (the fields are not drawn again while typing)
  function markHits(checked) {
    if (!checked) return;
    for (const row of checked.rows) {
      for (const c of row.cells) {
        const cell = c && $('#sheet .cell[data-key="' + c.row + "@" + c.col + '"]');
        if (!cell) continue;
        const had = cell.querySelector(".hit");
        if (c.hit && !had) cell.append(el("span", { class: "hit", "aria-hidden": "true" }, "x"));
        if (!c.hit && had) had.remove();
      }
    }
  }
  $("#check-json").onclick = async () => {
    let sheet;
    const mine = ++latest;
    // the browser's own words on bad JSON are in its language, not the page's
    try { sheet = JSON.parse($("#json").value); } catch (e) { showError(T.json_bad); return; }
    try {
      const r = await ask({ sheet });
      if (mine !== latest) return;
      show(r);
      if (r.view) { view = r.view; draw(); }
    } catch (e) { if (mine === latest) showError(e.message); }
  };
  gameSel.onchange = layouts;
  layoutSel.onchange = begin;
  layouts();
}
