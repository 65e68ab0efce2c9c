/* Dice as the pages draw them: a face (a number, or a word for a symbol face such as "cow")
 * on a body of the die's colour. */
import { T, el } from "./dom.js";

export function faceText(v) {
  if (typeof v === "string" && /^[a-z]{2,}$/.test(v)) {
    return el("span", { class: "word" }, T[v] || v);
  }
  return v;
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
