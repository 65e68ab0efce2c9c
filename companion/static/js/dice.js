/* Dice as the pages draw them: a face (a number, or a word for a symbol face such as "cow")
 * on a body of the die's colour. */
import { T, el } from "./dom.js";

export function faceText(v) {
  if (typeof v === "string" && /^[a-z]{2,}$/.test(v)) {
    const word = T[v] || v;
    if (SYMBOLS[v]) {       // drawn as die and sheet print it; the word for readers and copying
      return el("span", { class: "sym" }, symbolNode(SYMBOLS[v]),
        el("span", { class: "sr-only" }, word));
    }
    return el("span", { class: "word" }, word);
  }
  return v;
}

/* Symbol faces drawn as pictures. A Kuh Vadis cow as its die and sheet show it, a cow's head:
 * the word, fitted into a field of a 360-px phone's 7-column sheet, was capitals of about 6 px.
 * Shapes on a 24-unit square in the text's colour (horns, ears, head, eyes, muzzle, nostrils). */
const SVG = "http://www.w3.org/2000/svg";
const SYMBOLS = {
  cow: [
    ["path", { d: "M6.5 7.5C4.5 7 3.2 5.4 3 3.2M17.5 7.5c2-.5 3.3-2.1 3.5-4.3", fill: "none",
      stroke: "currentColor", "stroke-width": "1.7", "stroke-linecap": "round" }],
    ["path", { d: "M6.5 9.2L2.2 8.4c-.6 1.6.6 3.2 2.4 3.3l2.3-.2zM17.5 9.2l4.3-.8c.6 1.6-.6 " +
      "3.2-2.4 3.3l-2.3-.2z", fill: "currentColor" }],
    ["path", { d: "M6.3 6.8h11.4l-.7 8.2H7z", fill: "none", stroke: "currentColor",
      "stroke-width": "1.7", "stroke-linejoin": "round" }],
    ["circle", { cx: "9.6", cy: "10.4", r: "1.15", fill: "currentColor" }],
    ["circle", { cx: "14.4", cy: "10.4", r: "1.15", fill: "currentColor" }],
    ["rect", { x: "5.6", y: "14.2", width: "12.8", height: "7.6", rx: "3.6",
      fill: "currentColor" }],
    ["circle", { cx: "9.4", cy: "18", r: "1.1", fill: "#fff" }],
    ["circle", { cx: "14.6", cy: "18", r: "1.1", fill: "#fff" }],
  ],
};

function symbolNode(shapes) {
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("aria-hidden", "true");
  for (const [tag, attrs] of shapes) {
    const shape = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs)) shape.setAttribute(k, v);
    svg.append(shape);
  }
  return svg;
}

/* opts: small, picked, unusual (a face the layout's dice do not usually show), onclick (the
 * die is a button) */
export function dieNode(d, opts) {
  opts = opts || {};
  const cls = "die" + (d.colour ? " c-" + d.colour : "") + (opts.small ? " small" : "") +
    (opts.picked ? " picked" : "") + (opts.unusual ? " unusual" : "");
  // in the page's words ("gelb 4", "Kuh"): read aloud and shown on a long press
  const label = (d.colour ? (T[d.colour] || d.colour) + " " : "") + (T[d.face] || d.face);
  return el(opts.onclick ? "button" : "span",
    { class: cls, title: label, "aria-label": label, onclick: opts.onclick,
      // a die shown, not tapped: an image, so that its label (its colour) is read
      role: opts.onclick ? null : "img",
      type: opts.onclick ? "button" : null, "data-die": (d.colour || "") + ":" + d.face },
    faceText(d.face), colourMark(d.colour));
}

/* A colour's mark ("R", "Gn") in the corner of a die or field of that colour: the colour told
 * by a letter too, for players who tell red from green, or green from grey, badly. Hidden from
 * screen readers, whose label names the colour. */
export function colourMark(colour) {
  const mark = colour && T["mark_" + colour];
  return mark ? el("span", { class: "cmark", "aria-hidden": "true" }, mark) : null;
}

export function diceRow(dice, small) {
  return el("div", { class: "dice" }, (dice || []).map(d => dieNode(d, { small })));
}
