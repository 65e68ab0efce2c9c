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

/* A figure of the advice in words (`figure`: what the server says its figures are):
 * "expected final score 58.0", "wins 40 times in 100", or nothing where only the order means
 * something (twenty one at a table, whose figures are points less a cost for each turn). */
function figureText(figure, v) {
  if (figure === "chance") return T.hint_wins.replace("{v}", Math.round(100 * v));
  if (figure === "relative") return "";
  // one decimal, written as the page's language writes it (a decimal comma in German)
  const lang = document.documentElement.lang || "en";
  return T.hint_final.replace("{v}", v.toLocaleString(lang, {
    minimumFractionDigits: 1, maximumFractionDigits: 1, useGrouping: false }));
}

/* The dice a roll-again choice throws, as the roll shows them ("red 2, 5") */
function diceWords(choice, roll) {
  return choice.dice.map(i => roll && roll[i - 1]).filter(Boolean).map(d =>
    (d.colour ? (T[d.colour] || d.colour) + " " : "") + (T[d.face] || d.face)).join(", ");
}

/* Mark the legal fields drawn in `box` by the most a placement writing there is expected to
 * bring (a ring inside the field, so the field keeps its own colour, which the rules are
 * about), ring the best placement's fields, and name the best below the sheet: rolling again
 * first where the roller may and that beats writing this roll (the advice's dice choices).
 * Before the roll the server gives the player who rolls next the dice to choose where the game
 * has them chosen (Qwinto's colours), and the best is named; else there is nothing to show.
 * `roll`: the dice rolled, in the order the advice numbers them.
 * `still(asked)`: whether the page still shows what was asked ("seq:seat") once it is here. */
export async function showHints(code, seq, seat, box, view, roll, still) {
  if (!on(code, seat)) return;
  const asked = seq + ":" + seat;
  // one request per roll and seat, shared by the renders that ask while it is on its way
  if (!answers.has(asked)) {
    answers.set(asked, fetch("/api/tables/" + code + "/advice?seat=" + seat)
      .then(r => r.ok ? r.json() : null).catch(() => null));
  }
  const advice = await answers.get(asked);
  if (!advice) { answers.delete(asked); return; }
  if (!still(asked) || !box.isConnected) return;
  const figure = advice.figure || "points";
  // ": why (figure in words)"
  const tail = (why, v) => {
    const words = figureText(figure, v);
    return ": " + why + (words ? " (" + words + ")" : "");
  };
  // the best, named once below the sheet (a render that came back later than another for the
  // same roll replaces it)
  const name = (...kids) => {
    box.querySelector("#advice")?.remove();
    box.append(el("p", { id: "advice", class: "note" }, ...kids));
  };
  const first = advice.dice && advice.dice[0];
  if (!advice.options.length) {
    if (first && first.action === "roll") {
      name(el("strong", {}, T.hint_best + ": " + T.hint_roll + " " +
        first.dice.map(c => T[c] || c).join(", ")), tail(first.reason, first.expected));
    }
    return;
  }
  const best = new Map();     // field -> the most expected points of a placement writing there
  for (const o of advice.options) {
    for (const m of o.parts.marks) {
      const k = fieldOf(m);
      if (!best.has(k) || best.get(k) < o.expected) best.set(k, o.expected);
    }
  }
  // the fields' levels by rank, best first (equal figures share one): a few poor fields far
  // below the rest would otherwise leave all the others in one band
  const ranked = [...new Set(best.values())].sort((a, b) => b - a);
  box.querySelectorAll(".cell.legal").forEach(c => {
    const v = best.get(c.dataset.key); if (v === undefined) return;
    const level = ranked.length > 1 ? 1 - ranked.indexOf(v) / (ranked.length - 1) : 1;
    c.classList.add(level > 0.66 ? "hint-high" : level > 0.33 ? "hint-mid" : "hint-low");
    const words = figureText(figure, v);
    if (words) c.title = words;
  });
  const top = advice.options[0];
  for (const m of top.parts.marks) {
    const c = box.querySelector(`.cell[data-key="${fieldOf(m)}"]`);
    if (c) c.classList.add("hint-best");
  }
  const write = answerText(top.parts, view, roll) + tail(top.reason, top.expected);
  // what the rings mean, under the best
  const key = el("span", { class: "hint-key", id: "hint-key" }, T.hint_key);
  if (first && first.action === "reroll") {
    name(el("strong", {}, T.hint_best + ": " + T.hint_roll_again + " " + diceWords(first, roll)),
      ": " + first.reason, el("br"), T.hint_if_written + ": " + write, el("br"), key);
  } else name(el("strong", {}, T.hint_best + ": "), write, el("br"), key);
}
