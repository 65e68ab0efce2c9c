/* An answer built on the drawn sheet (The Choice), a space at a time, then the dice it uses.
 * `built`: the marks tapped so far (mark data, `draw.js`), in order (numbers in the order the
 * line is drawn). Only legal placements are ever offered: a tap narrows them to those
 * holding the marks tapped. `rows`: what the marks of each row are, as the game's grid
 * declares them (`view.mark_rows`): `line` numbers joined on a line, `ring` colour spaces,
 * `count` marks counted beside the sheet (a misthrow), not drawn. */
import { T, fill } from "./dom.js";
import { fieldOf } from "./draw.js";

/* the marks of the line among `marks`, in their order */
const lineMarks = (marks, rows) => marks.filter(m => m.row === rows.line);
const written = (marks, rows) => marks.filter(m => m.row !== rows.count);

/* the legal placements that hold every mark built so far, its numbers in the same order */
export function candidates(opt, built, rows) {
  const nums = lineMarks(built, rows);
  return opt.parts.filter(p => p.kind === "enter").filter(p => {
    const texts = p.marks.map(m => m.text), theirs = lineMarks(p.marks, rows);
    return built.every(m => texts.includes(m.text)) &&
      nums.every((m, i) => theirs[i] !== undefined && theirs[i].text === m.text);
  });
}

/* the legal placement that is what was built (with a misthrow mark when too few dice are
 * used), or null */
export function completed(opt, built, rows) {
  return candidates(opt, built, rows)
    .find(p => written(p.marks, rows).length === built.length) || null;
}

/* the spaces a tap may take next, and those taken: field -> [mark texts] */
export function builtLegal(opt, built, rows) {
  const out = new Map();
  for (const p of candidates(opt, built, rows)) {
    for (const m of written(p.marks, rows)) {
      const k = fieldOf(m);
      if (!out.has(k)) out.set(k, []);
      if (!out.get(k).includes(m.text)) out.get(k).push(m.text);
    }
  }
  return out;
}

/* the marks a tap on `field` may write, each once */
export function marksAt(opt, built, field, rows) {
  const out = [];
  for (const p of candidates(opt, built, rows)) {
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
export function markWords(m, roll, rows) {
  if (m.row === rows.count) return T.choice_misthrow;
  const using = m.dice.map(i => dieWords(roll, i)).join(" + ");
  const what = m.row === rows.ring ? fill(T.choice_ring, T[m.value] || m.value) :
    fill(T.choice_number, m.value);
  return what.replace("{with}", fill(T.choice_with, using));
}

/* a placement in words, the misthrow (when too few dice are used) last, after "and" */
export function placementWords(p, roll, rows) {
  const miss = m => m.row === rows.count;
  return [p.marks.filter(m => !miss(m)).map(m => markWords(m, roll, rows)).join(", "),
    ...p.marks.filter(miss).map(m => markWords(m, roll, rows))].filter(Boolean).join(" ");
}
