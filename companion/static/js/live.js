/* Live updates: the table's event stream (server-sent events). */
import { T, $ } from "./dom.js";

/* onChange(): the table changed (called once for a burst of events); onPresence(seats): the
 * seats with a page open now (on any server process), from the stream's hello and each
 * "presence" event; onReading(reading): a camera reading another page sent. */
export function listen(code, onChange, onPresence, onReading) {
  const live = $("#live");
  let timer = null;
  const es = new EventSource("/api/tables/" + code + "/events");
  const kick = () => { clearTimeout(timer); timer = setTimeout(onChange, 30); };
  const presence = ev => { if (onPresence) onPresence(JSON.parse(ev.data).connected || []); };
  es.addEventListener("hello", ev => {
    if (live) { live.classList.add("on"); live.textContent = T.live; }
    presence(ev); kick();
  });
  es.addEventListener("presence", presence);
  es.addEventListener("action", kick);
  es.addEventListener("joined", kick);
  es.addEventListener("reading", ev => { if (onReading) onReading(JSON.parse(ev.data)); });
  es.onerror = () => { if (live) { live.classList.remove("on"); live.textContent = T.offline; } };
  return es;
}
