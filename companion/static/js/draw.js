/* A sheet drawn from the grid the engine declares (`view`), a score, and placements in words.
 * Placements and marks come from the server as data (`parts`: text, kind, ordered, marks of
 * {text, row, col, value, dice}); nothing here reads a mark's text. */
import { T, el } from "./dom.js";
import { colourMark, faceText } from "./dice.js";
import { placementWords } from "./choice.js";

/* the field a mark is written in, as the drawn cells name it ("O@2") */
export const fieldOf = mark => mark.row + "@" + mark.col;

export function specialLabel(kind) { return T[kind] || kind; }

const word = v => T[v] || v;      // a colour, face or symbol in the page's words

/* An answer as players say it: "orange 7, A 6", "Pass" rather than the engine's notation
 * "O7@2 A6@0", "pass"; `view` names a row by its colour where the sheet has one. A sheet
 * whose marks use dice (The Choice: `view.mark_rows`) says each mark with the dice of `roll`
 * it uses: "cross a blue space with the blue 2", not "R blue". */
export function answerText(placement, view, roll) {
  if (placement.kind !== "enter") return specialLabel(placement.kind);
  if (view && view.mark_rows && roll) return placementWords(placement, roll, view.mark_rows);
  const rowOf = m => view && view.rows && view.rows.find(r => r.label === m.row);
  // a die's colour per field (twenty one): "row E: white 2, black 2, red 1"
  const cellOf = m => ((rowOf(m) || {}).cells || []).find(c => c && c.col === m.col);
  const coloured = placement.marks.map(m => cellOf(m)).filter(c => c && c.colour);
  if (view && view.value === "die-of-colour" && coloured.length === placement.marks.length) {
    return T.row_of.replace("{r}", placement.marks[0].row) + ": " + placement.marks.map(
      (m, i) => word(coloured[i].colour) + " " + word(m.value)).join(", ");
  }
  return placement.marks.map(m => {
    const row = rowOf(m);
    // a pad whose marks take a square's printed symbol (Kuh Vadis): "3 on D3"
    if (view && view.value === "printed") {
      return T.value_on.replace("{v}", word(m.value)).replace("{sq}", m.row + m.col);
    }
    // a sheet whose words name its columns (Knister): "7 in row C, column 2"
    if (view && view.numbered && !(row && row.colour)) {
      return T.value_at.replace("{v}", word(m.value)).replace("{r}", m.row)
        .replace("{c}", m.col);
    }
    const name = row && row.colour ? word(row.colour) : m.row;
    return name + " " + word(m.value);
  }).join(", ");
}

const empty = v => v === null || v === undefined;

/* One cell of a view. opts.legal: Map field -> [mark texts]; opts.chosen: Set of mark texts;
 * opts.focus: a field; opts.onCell(cell, field); opts.edit: the cell is an input (check my
 * paper) calling opts.onInput. `marked`: its colour is written in its corner too (a field
 * whose row is not labelled by that colour: twenty one's, The Choice's ring). */
function cellNode(cell, opts, style, where, marked) {
  const key = cell.row + "@" + cell.col;
  const cls = ["cell"];
  if (cell.colour) cls.push("c-" + cell.colour);
  if (cell.shape === "pentagon") cls.push("pentagon");
  if (cell.span) cls.push("wide");
  if (cell.start) cls.push("start");
  if (cell.value === "X" || cell.value === "O") cls.push("own-" + cell.value);
  const legal = opts.legal && opts.legal.get(key);
  if (legal) cls.push("legal");
  if (opts.chosen && legal && legal.some(m => opts.chosen.has(m))) cls.push("chosen");
  if (opts.focus === key) cls.push("chosen");
  if (cell.value === "x") cls.push("crossed");
  else if (!empty(cell.value)) cls.push("filled");
  const shown = empty(cell.value) ? "" : (cell.value === "x" ? "✗" : faceText(cell.value));
  const kids = [];
  if (cell.printed && !(cell.start && cell.value)) {
    const big = !opts.edit && empty(cell.value) ? " big" : "";
    kids.push(el("span", { class: "printed" + big }, faceText(cell.printed)));
  }
  if (cell.order) kids.push(el("span", { class: "order" }, cell.order));
  if (marked) kids.push(colourMark(cell.colour));
  // twenty one's exact hit, marked with a small x as on paper
  if (cell.hit) kids.push(el("span", { class: "hit", "aria-hidden": "true" }, "x"));
  // read aloud: "row C, column 2, yellow: 7" ("…: empty"), in the page's words; `where`: the
  // field named as the page shows it (a row's label, a ring's space)
  where = where || T.field_label.replace("{r}", cell.row).replace("{c}", cell.col);
  if (opts.edit) {
    kids.push(el("input", { value: cell.value === null ? "" : cell.value,
      "data-key": key, "aria-label": where, inputmode: "numeric", autocomplete: "off",
      oninput: opts.onInput }));
  } else kids.push(shown);
  // and whether it may be written now: a highlight a screen reader cannot see
  const name = where + (cell.colour ? ", " + word(cell.colour) : "") +
    (cell.printed && !cell.start ? ", " + word(cell.printed) : "") + ": " +
    (empty(cell.value) ? T.field_empty : cell.value === "x" ? T.field_crossed :
      word(cell.value)) + (cell.hit ? ", " + T.exact_hit : "") +
    (legal ? ", " + T.field_legal : "");
  return el(opts.onCell ? "button" : "div", {
    class: cls.join(" "), "data-key": key, type: opts.onCell ? "button" : null, style,
    "aria-label": name, role: opts.onCell ? null : "img",
    onclick: opts.onCell ? () => opts.onCell(cell, key) : null }, kids);
}

/* `numbers`: the column numbers to write above the grid (a sheet drawn in two halves) */
function gridOf(rows, columns, opts, labels, numbers) {
  const grid = el("div", { class: "sheet" + (labels ? "" : " inner"), style: "--cols:" + columns,
    role: "group" });
  const first = labels ? 2 : 1;
  const top = numbers ? 1 : 0;
  (numbers || []).forEach((n, i) => grid.append(
    el("div", { class: "lbl colno", style: "grid-row:1;grid-column:" + (i + first) }, n)));
  rows.forEach((row, r) => {
    const line = "grid-row:" + (r + 1 + top);
    // a row of one colour is labelled by its colour's initial in the page's words (Qwinto's
    // "G" for gelb on a German page), else by its letter
    const label = row.colour && T[row.colour] ? T[row.colour][0].toUpperCase() : row.label;
    if (labels) grid.append(el("div", { class: "lbl", style: line + ";grid-column:1",
      title: row.colour ? word(row.colour) : null }, label));
    row.cells.forEach((cell, i) => {
      const col = (cell && cell.x) ? cell.x + first - 1 : i + first;
      const at = line + ";grid-column:" + col + (cell && cell.span ? " / span " + cell.span : "");
      if (!cell) {
        grid.append(el("div", { class: "cell gap", style: at, "aria-hidden": "true" }));
        return;
      }
      grid.append(cellNode(cell, opts, at, label !== row.label && labels ?
        T.field_label.replace("{r}", label).replace("{c}", cell.col) : null, !row.colour));
    });
  });
  return grid;
}

/* A view with `ring` (The Choice) draws its first row as a ring of spaces, clockwise from the
 * top, around the other rows, as on the paper sheet. */
function ringOf(view, opts) {
  const spaces = view.rows[0].cells;
  const n = spaces.length;
  const size = 12.5;                       // a space's side, % of the ring's width
  const radius = 50 - size / 2 - 0.5;      // centres of the spaces, % from the middle
  const box = el("div", { class: "ring-sheet", role: "group" });
  spaces.forEach((cell, i) => {
    const a = 2 * Math.PI * i / n - Math.PI / 2;     // clockwise from the top
    const x = 50 + radius * Math.cos(a) - size / 2, y = 50 + radius * Math.sin(a) - size / 2;
    box.append(cellNode(cell, opts, "left:" + x.toFixed(2) + "%;top:" + y.toFixed(2) +
      "%;width:" + size + "%;height:" + size + "%", T.ring_label.replace("{n}", cell.col), true));
  });
  box.append(el("div", { class: "ring-middle" },
    gridOf(view.rows.slice(1), view.columns, opts, false)));
  return box;
}

/* A sheet to tap or type on whose fields would be under 38 px (Qwinto's 12 columns on a
 * phone: 25 px) is drawn in two halves, one above the other, each with its column numbers.
 * Not at a finger's full 44 px: halves cost the grid its shape, and Kuh Vadis' paths run
 * across it (its 7 columns on a 320-px phone are 40 px, kept whole). */
const TAP = 38;
function halves(view, opts) {
  if (view.ring || !(opts.onCell || opts.edit)) return null;
  if (view.rows.some(r => r.cells.some(c => c && c.x))) return null;
  const room = Math.min(window.innerWidth, document.documentElement.clientWidth) - 40;
  if (room / view.columns >= TAP) return null;
  const half = Math.ceil(view.columns / 2);
  return [[0, half], [half, view.columns]].map(([a, b]) => gridOf(
    view.rows.map(r => Object.assign({}, r, { cells: r.cells.slice(a, b) })), b - a, opts, true,
    // numbered as the engine's sentences number them
    Array.from({ length: b - a }, (_, i) => a + i)));
}

function extraNode(ex, opts) {
  const label = T[ex.key] || ex.label;
  if (opts.edit) {
    return el("label", { class: "extras" }, label, ex.options ?
      // one of a few (Kuh Vadis: whose move it is)
      el("select", { "data-extra": ex.key, onchange: opts.onInput },
        ex.options.map(o => el("option", { value: o, selected: o === ex.value },
          T[ex.key + "_" + o] || o))) :
      el("input", { type: "number", min: 0, max: ex.max, value: ex.value,
        "data-extra": ex.key, style: "width:5rem", oninput: opts.onInput }));
  }
  if (ex.options) return null;       // a chosen one is the caption
  const boxes = [];
  for (let i = 0; i < ex.max; i++) {
    const on = i < ex.value;
    boxes.push(el("span", { class: "box" + (on ? " on" : "") },
      on ? (ex.points === "" ? "✗" : ex.points) : ""));
  }
  // read aloud as a count ("failed attempts: 1 of 4"), not as empty boxes
  return el("div", { class: "extras", role: "img",
    "aria-label": label + ": " + T.count_of.replace("{k}", ex.value).replace("{n}", ex.max) },
  label + ":", boxes);
}

/* Draw a view {columns, rows: [{label, colour, cells: [cell|null]}], extras, caption}. */
export function drawSheet(view, opts) {
  opts = opts || {};
  const split = halves(view, opts);
  // `numbered`: the sheet's words name its columns (Knister's "column 0"): their numbers above
  const numbers = view.numbered ? Array.from({ length: view.columns }, (_, i) => i) : undefined;
  const grid = view.ring ? ringOf(view, opts) : split ? el("div", { class: "halves" }, split) :
    gridOf(view.rows, view.columns, opts, true, numbers);
  const wrap = el("div", {}, grid);
  if (view.caption) wrap.append(el("p", { class: "note caption" }, view.caption));
  for (const ex of view.extras || []) {
    const node = extraNode(ex, opts);
    if (node) wrap.append(node);
  }
  return wrap;
}

export function scoreTable(score) {
  return el("table", { class: "score" },
    score.lines.map(l => el("tr", {},
      el("td", {}, l.label, l.detail ? el("div", { class: "note" }, l.detail) : null),
      el("td", { class: "pts" }, l.points))),
    el("tr", { class: "total" }, el("td", {}, T.total), el("td", { class: "pts" }, score.total)));
}
