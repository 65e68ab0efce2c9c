import { T } from "./dom.js";

/* Requests to the server's JSON API. A new table and every action carry an idempotency key
 * (a retry is done once by the server), and an action the log position the page showed
 * (overtaken since: 409 and the current state). */

function newKey() {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)),
    b => b.toString(16).padStart(2, "0")).join("");
}

/* The answer's JSON; an error status throws an Error with the server's message, `status`
 * and `data`. A request whose answer was lost is sent once more with the same key. */
export async function api(method, path, body) {
  const opts = { method, headers: {}, credentials: "same-origin" };
  if (method === "POST" && /^\/api\/tables(\/[^/]+\/actions)?$/.test(path)) {
    body = Object.assign({ key: newKey() }, body);
    const seq = document.body.dataset.seq;
    if (path.endsWith("/actions") && body.seq === undefined && seq !== undefined) body.seq = +seq;
  }
  if (body !== undefined) {
    opts.headers["Content-Type"] = "application/json";
    opts.body = JSON.stringify(body);
  }
  let resp;
  try {
    try { resp = await fetch(path, opts); } catch (e) {
      if (!body || !body.key) throw e;
      resp = await fetch(path, opts);
    }
  } catch (e) {
    // no answer at all (the server or the network is down): said in the page's words, not the
    // browser's ("Failed to fetch")
    const err = new Error(T.no_connection || e.message);
    err.status = 0;
    throw err;
  }
  let data = null;
  try { data = await resp.json(); } catch (e) { data = { error: resp.statusText }; }
  if (!resp.ok) {
    const err = new Error((data && data.error) || resp.statusText);
    err.status = resp.status; err.data = data;
    throw err;
  }
  return data;
}
