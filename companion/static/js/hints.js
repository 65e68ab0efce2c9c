/* The advisor's hints on the sheet page: a switch per player on this phone (off until turned
 * on, then remembered); the server gives hints only for the player's own seat. */
import { T, el } from "./dom.js";
import { answerText, fieldOf } from "./draw.js";

const answers = new Map();      // "seq:seat" -> the advice asked for
const key = (code, seat) => "hint:" + code + ":" + seat;
const on = (code, seat) => localStorage.getItem(key(code, seat)) === "1";

/* the switch; `changed()` after it is turned */
export function hintSwitch(code, seat, changed) {
  const box = el("input", { type: "checkbox", id: "hint-switch" });
  box.checked = on(code, seat);
  box.addEventListener("change", () => {
    localStorage.setItem(key(code, seat), box.checked ? "1" : "0"); changed();
  });
  return el("label", { class: "hint-switch" }, box, " " + T.hint_switch);
}

/* Shade the legal fields drawn in `box` by the most points a placement writing there is
 * expected to make, mark the best placement's fields, and name it below the sheet.
 * `still(asked)`: whether the page still shows what was asked ("seq:seat") once it is here. */
export async function showHints(code, seq, seat, opt, box, view, still) {
  if (!on(code, seat) || !opt.legal.length) return;
  const asked = seq + ":" + seat;
  // one request per roll and seat, shared by the renders that ask while it is on its way
  if (!answers.has(asked)) {
    answers.set(asked, fetch("/api/tables/" + code + "/advice?seat=" + seat)
      .then(r => r.ok ? r.json() : null).catch(() => null));
  }
  const advice = await answers.get(asked);
  if (!advice) { answers.delete(asked); return; }
  if (!still(asked) || !box.isConnected || !advice.options.length) return;
  const best = new Map();     // field -> the most expected points of a placement writing there
  for (const o of advice.options) {
    for (const m of o.parts.marks) {
      const k = fieldOf(m);
      if (!best.has(k) || best.get(k) < o.expected) best.set(k, o.expected);
    }
  }
  const values = [...best.values()];
  const hi = Math.max(...values), lo = Math.min(...values);
  box.querySelectorAll(".cell.legal").forEach(c => {
    const v = best.get(c.dataset.key); if (v === undefined) return;
    const level = hi > lo ? (v - lo) / (hi - lo) : 1;
    c.classList.add(level > 0.66 ? "hint-high" : level > 0.33 ? "hint-mid" : "hint-low");
    c.title = T.hint_expected + ": " + v.toFixed(1);
  });
  const top = advice.options[0];
  for (const m of top.parts.marks) {
    const c = box.querySelector(`.cell[data-key="${fieldOf(m)}"]`);
    if (c) c.classList.add("hint-best");
  }
  // a render that came back later than another for the same roll names the best once
  box.querySelector("#advice")?.remove();
  box.append(el("p", { id: "advice", class: "note" }, T.hint_best + ": " +
    answerText(top.parts, view) + " (" + top.expected.toFixed(1) + "): " + top.reason));
}
