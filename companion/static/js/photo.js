/* A photo a player takes (the dice of a roll, a die to teach) as the server takes it. */
import { T } from "./dom.js";

/* The photo at most 1600 px a side, as a JPEG turned as it is seen: a phone's photo is 12
 * megapixels and several MB, over the server's 2 MB upload limit, while the readers need far
 * less. A small JPEG or PNG goes as it is; a small photo of another kind the browser decodes
 * (a WebP, GIF or BMP from the gallery) goes as a JPEG, as the server reads only those two;
 * one this browser cannot decode goes as it is (the server says what is wrong with it). */
export async function shrink(file) {
  try {
    const bmp = await createImageBitmap(file, { imageOrientation: "from-image" });
    const f = Math.min(1, 1600 / Math.max(bmp.width, bmp.height));
    if (f === 1 && file.size < 1500000 && /^image\/(jpeg|png)$/.test(file.type)) return file;
    const c = document.createElement("canvas");
    c.width = Math.round(bmp.width * f); c.height = Math.round(bmp.height * f);
    c.getContext("2d").drawImage(bmp, 0, 0, c.width, c.height);
    return await new Promise(r => c.toBlob(r, "image/jpeg", 0.9));
  } catch (e) { return file; }
}

/* A multipart POST (a photo and its fields): [whether it worked, the answer's JSON, the
 * status]; no answer at all (the server or the network is down) is said in the page's words,
 * as `api` says it. */
export async function upload(path, form) {
  let resp;
  try {
    resp = await fetch(path, { method: "POST", body: form, credentials: "same-origin" });
  } catch (e) { return [false, { error: T.no_connection }, 0]; }
  return [resp.ok, await resp.json().catch(() => ({ error: resp.statusText })), resp.status];
}
