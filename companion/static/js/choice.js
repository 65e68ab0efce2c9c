/* The Choice: an answer built on the drawn sheet, a space at a time, then the dice it uses.
 * `built`: the marks tapped so far (mark data, `draw.js`), in order (numbers in the order the
 * line is drawn). Only legal placements are ever offered: a tap narrows them to those
 * holding the marks tapped. Rows: N the number line, R the ring, M the misthrow marks. */
import { T, fill } from "./dom.js";
import { fieldOf } from "./draw.js";

const numbersOf = marks => marks.filter(m => m.row === "N");
const written = marks => marks.filter(m => m.row !== "M");

/* the legal placements that hold every mark built so far, its numbers in the same order */
export function candidates(opt, built) {
  const nums = numbersOf(built);
  return opt.parts.filter(p => p.kind === "enter").filter(p => {
    const texts = p.marks.map(m => m.text), theirs = numbersOf(p.marks);
    return built.every(m => texts.includes(m.text)) &&
      nums.every((m, i) => theirs[i] !== undefined && theirs[i].text === m.text);
  });
}

/* the legal placement that is what was built (with a misthrow mark when too few dice are
 * used), or null */
export function completed(opt, built) {
  return candidates(opt, built).find(p => written(p.marks).length === built.length) || null;
}

/* the spaces a tap may take next, and those taken: field -> [mark texts] */
export function builtLegal(opt, built) {
  const out = new Map();
  for (const p of candidates(opt, built)) {
    for (const m of written(p.marks)) {
      const k = fieldOf(m);
      if (!out.has(k)) out.set(k, []);
      if (!out.get(k).includes(m.text)) out.get(k).push(m.text);
    }
  }
  return out;
}

/* the marks a tap on `field` may write, each once */
export function marksAt(opt, built, field) {
  const out = [];
  for (const p of candidates(opt, built)) {
    for (const m of p.marks) {
      if (fieldOf(m) === field && !out.some(o => o.text === m.text)) out.push(m);
    }
  }
  return out;
}

function dieWords(roll, i) {
  const d = roll[i - 1];
  return d ? (T[d.colour] || d.colour) + " " + d.face : String(i);
}

/* a mark in words: "ring green with red 3 + blue 5" */
export function markWords(m, roll) {
  if (m.row === "M") return T.choice_misthrow;
  const using = m.dice.map(i => dieWords(roll, i)).join(" + ");
  const what = m.row === "R" ? fill(T.choice_ring, T[m.value] || m.value) :
    fill(T.choice_number, m.value);
  return what + " " + fill(T.choice_with, using);
}

/* a placement in words, the misthrow (when too few dice are used) last */
export function placementWords(p, roll) {
  return [...p.marks].sort((a, b) => (a.row === "M") - (b.row === "M"))
    .map(m => markWords(m, roll)).join(", ");
}
