/* The table view: every sheet, the roll, who is connected, the host's tools, the camera. */
import { T, $, el, fill, layoutName, keepingFocus } from "../dom.js";
import { api } from "../api.js";
import { answerText, drawSheet } from "../draw.js";
import { listen } from "../live.js";
import { rollEntry, standings, statusBlock } from "../roll.js";
import { seatChooser } from "../seats.js";
import { camera, onReading } from "../camera.js";

export function start() {
  const code = document.body.dataset.code;
  let state = null;
  let connected = [];     // seats with a page open (listen's onPresence)
  // seat -> the rejoin code shown, asked again on each change (a used one is spent)
  const rejoinShown = {};

  // an answer older than the table shown, come late, is dropped (as on the sheet page)
  async function refresh() {
    let got;
    try { got = await api("GET", "/api/tables/" + code); } catch (e) {
      $("#turn").textContent = e.message; return;
    }
    if (state && got.seq < state.seq) return;
    state = got;
    await Promise.all(Object.keys(rejoinShown).map(showRejoin));
    render();
  }

  function badges(p) {
    const rolling = p.seat === state.roller && state.roll && !state.turn_complete;
    return [el("span", { class: "badge", title: T.score, "aria-label": T.score + " " +
      p.score.total }, p.score.total),
      rolling ? el("span", { class: "badge turn" }, T.roller) : null,
      p.answered ? el("span", { class: "badge ok" },
        T.answered + ": " + answerText(p.answer_parts, p.view, state.roll)) : null,
      !p.claimed ? el("span", { class: "badge" }, T.not_joined) :
        connected.includes(p.seat) ?
          el("span", { class: "badge ok", "data-connected": p.seat }, T.connected) :
          el("span", { class: "badge", "data-away": p.seat }, T.away),
      state.me.seat === p.seat ? el("span", { class: "badge turn" }, T.you) : null];
  }

  function render() { keepingFocus(draw); }

  function draw() {
    statusBlock(state);
    document.body.dataset.seq = state.seq;
    document.body.dataset.over = state.is_over;
    $("#my-sheet-link").classList.toggle("hidden", !state.me.writes_for.length);
    const seats = $("#seats");
    // the creator without a seat at a full table (a laptop running it) needs no chooser,
    // unless by a link
    // a finished game has no seat left to take
    const chooser = !state.is_over && state.me.seat === null && (!state.me.creator ||
      state.players.some(p => !p.claimed) || /[?&]rejoin=/.test(location.search));
    seats.classList.toggle("hidden", !chooser);
    if (chooser && !seats.contains(document.activeElement)) {
      seatChooser(seats, state, code, () => { location.href = "/t/" + code + "/sheet"; });
    }
    const rank = $("#ranking"); rank.innerHTML = "";
    rank.classList.toggle("hidden", !state.is_over);
    if (state.is_over) rank.append(el("h2", {}, T.ranking), standings(state));
    const box = $("#sheets"); box.innerHTML = "";
    for (const p of state.players) {
      // players who mark one sheet (Kuh Vadis' pad) see it drawn once, under the first
      const drawnFor = state.game.shared_sheet && p.seat > 0 ? state.players[0].name : null;
      box.append(el("section", { class: "card", "data-player": p.seat },
        el("h2", {}, p.name, p.mark ? el("span", { class: "badge", "data-mark": p.seat },
          p.mark) : null, badges(p)),
        hostTools(p),
        drawnFor ? el("p", { class: "note shared-sheet" }, fill(T.same_sheet, drawnFor)) :
          p.view ? drawSheet(p.view, {}) : el("pre", { class: "json" }, JSON.stringify(p.sheet)),
        p.layout.recon && !drawnFor ?
          el("p", { class: "note recon" }, layoutName(p.layout.name) + " · " + T.recon) : null));
    }
    rollEntry($("#roll-entry"), state, code, refresh);
    camera($("#camera-box"), state, code);
  }

  // the host's help for a joined player: a code to take the seat back on another device, and
  // answering for them (the sheet page asks to confirm) when they are away
  async function showRejoin(seat) {
    try {
      rejoinShown[seat] = await api("GET", "/api/tables/" + code + "/seats/" + seat + "/rejoin");
    } catch (e) { rejoinShown[seat] = { error: e.message }; }
  }
  function hostTools(p) {
    if (!state.me.creator || !p.claimed || p.seat === state.me.seat) return null;
    const out = el("div", { class: "host-tools" });
    const r = rejoinShown[p.seat];
    const toggle = async () => {
      if (rejoinShown[p.seat]) delete rejoinShown[p.seat]; else await showRejoin(p.seat);
      render();
    };
    out.append(el("div", { class: "actions" },
      el("button", { type: "button", class: "secondary", "data-show-rejoin": p.seat,
        "aria-expanded": String(!!r), onclick: toggle }, T.rejoin_for + " " + p.name),
      state.pending.includes(p.seat) ? el("a", { class: "button secondary",
        "data-answer-for": p.seat, href: "/t/" + code + "/sheet?seat=" + p.seat },
      T.answer_for + " " + p.name) : null));
    if (r && r.error) out.append(el("p", { class: "error" }, r.error));
    else if (r) {
      const url = location.origin + r.url;
      out.append(el("figure", { class: "qr rejoin" },
        el("img", { src: "/t/" + code + "/qr.svg?rejoin=" + p.seat + "." + r.key, alt: "QR " + url,
          width: 160, height: 160 }),
        el("figcaption", {}, fill(T.rejoin_shown, p.name), el("br"),
          el("strong", { class: "code rejoin-key" }, r.key), el("br"),
          el("a", { href: url }, url))));
    }
    return out;
  }

  refresh();
  listen(code, refresh, seats => { connected = seats; if (state) render(); }, onReading);
}
