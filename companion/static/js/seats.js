/* A seat for this device: sit down, or take a joined seat back with the host's code. */
import { T, el } from "./dom.js";
import { api } from "./api.js";

/* `box` gets the free seats to sit down at, and the joined ones to take back with the rejoin
 * code the host shows (a lost phone, a private tab): a device without a seat is never left
 * with nothing to do and no word why. A link `?rejoin=SEAT.CODE` (the host's QR) fills it in.
 * A free seat is taken with the table's join link (`?join=SECRET`, the host's QR code; the
 * creator's state has the secret as `me.join`); a device that came by the code alone is told
 * to ask for the link and watches meanwhile.
 * `after()`: called once this device has its seat. */
export function seatChooser(box, state, code, after) {
  box.innerHTML = "";
  const free = state.players.filter(p => !p.claimed);
  const taken = state.players.filter(p => p.claimed);
  const msg = el("p", { class: "error", role: "alert" });
  const asked = new URLSearchParams(location.search).get("rejoin") || "";
  const link = /^(\d+)\.([A-Za-z0-9]+)$/.exec(asked);
  const secret = new URLSearchParams(location.search).get("join") || state.me.join;
  let form = null;
  function askCode(p, key) {
    if (form) form.remove();
    const input = el("input", { id: "rejoin-key", value: key || "", autocomplete: "off",
      autocapitalize: "characters", maxlength: 8, "aria-label": T.rejoin_code + " " + p.name,
      placeholder: T.rejoin_code });
    const submit = async e => {
      e.preventDefault();
      msg.textContent = "";
      try {
        await api("POST", "/api/tables/" + code + "/rejoin",
          { seat: p.seat, key: input.value.trim() });
        after();
      } catch (err) { msg.textContent = err.message; }
    };
    form = el("form", { class: "row", id: "rejoin-form", "data-seat": p.seat, onsubmit: submit },
      el("label", {}, T.rejoin_code + " · " + p.name, input),
      el("button", { type: "submit", id: "rejoin-send" }, T.rejoin_take));
    box.append(form, msg);
    if (!key) input.focus();
  }
  const sit = async p => {
    try {
      await api("POST", "/api/tables/" + code + "/join", { seat: p.seat, join: secret });
      after();
    } catch (e) { msg.textContent = e.message; box.append(msg); }
  };
  if (free.length && (secret || state.me.creator)) {
    box.append(el("h2", {}, T.sit_as), el("div", { class: "actions" }, free.map(p =>
      el("button", { type: "button", "data-seat": p.seat, onclick: () => sit(p) }, p.name))));
  } else if (free.length) {
    box.append(el("p", { class: "hint", id: "needs-link" }, T.join_needs_link));
  } else box.append(el("p", { class: "hint", id: "watch-only" }, T.watch_only));
  if (taken.length) {
    box.append(el("p", { class: "note" }, T.rejoin_hint),
      el("div", { class: "actions" }, taken.map(p => el("button", { type: "button",
        class: "secondary", "data-rejoin": p.seat, onclick: () => askCode(p) },
        p.name + " (" + T.joined + ")"))));
  }
  const linked = link && state.players[+link[1]];
  if (linked && linked.claimed) askCode(linked, link[2]);
}
