/* The page's words and the one way the pages make elements.
 * `T`: the catalogue of the page's words, a JSON data block the server writes into the page
 * (the Content-Security-Policy allows no inline script). */
export const T = JSON.parse((document.getElementById("i18n") || {}).textContent || "{}");

export const $ = (sel, root) => (root || document).querySelector(sel);

/* "{name}" in a sentence of the catalogue, filled in */
export const fill = (text, name) => text.split("{name}").join(name);

/* An element with attributes and children. `on...` attributes are listeners, `text` the text,
 * `style` is set through the CSSOM (the CSP refuses style attributes); a null, undefined or
 * false attribute or child is left out (Element.append would write "null"). */
export function el(tag, attrs, ...kids) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") node.className = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else if (k === "text") node.textContent = v;
    else if (k === "style") node.style.cssText = v;
    else node.setAttribute(k, v === true ? "" : v);
  }
  for (const kid of kids.flat()) {
    if (kid === null || kid === undefined || kid === false) continue;
    node.append(kid instanceof Node ? kid : document.createTextNode(String(kid)));
  }
  return node;
}

/* a layout's name as the page shows it: the shipped ones' names in the page's words */
export const layoutName = name => T["layout_" + name] || name;

const FOCUS_KEYS = ["id", "data-key", "data-special", "data-die", "data-side", "data-placement"];

/* Run `draw`, which replaces part of the page, and give the keyboard back the element it was
 * on: the one with the same id (or data-key, data-special, ... inside the same container)
 * after the redraw. Without this the focus fell back to the page's top after every roll,
 * entry and undo. */
export function keepingFocus(draw, fallback) {
  const was = document.activeElement;
  let sel = null;
  if (was && was !== document.body) {
    const attr = FOCUS_KEYS.find(a => was.hasAttribute(a));
    if (attr === "id") sel = "#" + CSS.escape(was.id);
    else if (attr) {
      const box = was.parentElement && was.parentElement.closest("[id]");
      sel = (box ? "#" + CSS.escape(box.id) + " " : "") +
        "[" + attr + '="' + CSS.escape(was.getAttribute(attr)) + '"]';
    }
  }
  draw();
  if (sel && document.activeElement !== was && !document.contains(was)) {
    // gone (a field just written is no button any more): `fallback`, the page's sentence on
    // what happened, where there is one
    const now = document.querySelector(sel) || (fallback && document.querySelector(fallback));
    if (now) now.focus({ preventScroll: true });
  }
}
