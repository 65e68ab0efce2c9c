/* Teach your dice: a photo per die and a tap for its face (and colour); for body colours, one
 * photo of all dice and a colour per die. */
import { T, $, el } from "../dom.js";
import { api } from "../api.js";
import { faceText } from "../dice.js";
import { shrink, upload } from "../photo.js";

/* one button per face or colour, with how many are taught of the `need` */
function pickers(box, values, counts, need, current, pick, isColour) {
  box.replaceChildren(...values.map(v => {
    const n = counts[String(v)] || 0;
    const label = isColour ? (T[v] || v) : faceText(v);
    const on = String(v) === String(current);
    return el("button", { type: "button", role: "radio", "aria-checked": String(on),
      class: "teach-pick" + (isColour ? " c-" + v : "") + (on ? " picked" : "") +
        (n >= need ? " done" : ""),
      "data-value": String(v), onclick: () => pick(v) },
    label, el("small", {}, " " + n + "/" + need));
  }));
}

export function start() {
  const code = document.body.dataset.code;
  const base = "/api/tables/" + code + "/teach";
  const status = $("#teach-status");
  const say = (text, ok) => { status.textContent = text; status.classList.toggle("ok", !!ok); };
  let face = null, colour = null, state = null;

  function draw() {
    pickers($("#teach-faces"), state.faces, state.counts, state.per_face, face,
      v => { face = v; draw(); }, false);
    if (state.colours) {
      $("#teach-colour-box").classList.remove("hidden");
      pickers($("#teach-colours"), state.colours, state.colour_counts, state.per_colour, colour,
        v => { colour = v; draw(); }, true);
      $("#teach-pairs").textContent = T.teach_every_face
        .replace("{n}", state.per_face * state.faces.length).replace("{k}", state.per_face) +
        " " + T.faces_taught + ": " + state.faces_taught + ".";
    }
    // what is missing, from the counts (the server's sentence is English)
    const short = (counts, need) => Object.entries(counts || {}).filter(([, n]) => n < need)
      .map(([v, n]) => (need - n) + "× " + (T[v] || v));
    $("#teach-progress").textContent = state.ready ? T.teach_ready : T.teach_missing + ": " +
      short(state.counts, state.per_face).concat(short(state.colour_counts, state.per_colour))
        .join(", ");
    const use = $("#use-taught");
    use.disabled = !state.ready && !state.in_use;
    use.textContent = state.in_use ? T.use_shipped : T.use_taught;
    use.classList.toggle("secondary", state.in_use);
    $("#download-dice-set").classList.toggle("hidden", !state.ready);
    $("#undo-photo").disabled = !state.examples.length;
    if (state.in_use && !status.textContent) say(T.taught_in_use, true);
  }
  function figure(e, src) {
    return el("figure", { class: "taught-one", "data-seq": e.seq },
      el("img", { src: src || base + "/" + e.seq + ".jpg", alt: String(e.face),
        width: 72, height: 72 }),
      el("figcaption", {}, (e.colour ? (T[e.colour] || e.colour) + " " : ""), faceText(e.face),
        el("button", { type: "button", class: "secondary take-back", "aria-label": T.undo_photo,
          onclick: () => withdraw(e.seq) }, "×")));
  }
  async function withdraw(seq) {
    try {
      state = await api("POST", base + "/withdraw", seq === undefined ? {} : { seq });
      const fig = $('#taught [data-seq="' + state.withdrawn + '"]');
      if (fig) fig.remove();
      say(""); draw();
    } catch (e) { say(e.message); }
  }
  async function load() {
    state = await api("GET", base);
    $("#taught").replaceChildren(...state.examples.slice().reverse().map(e => figure(e)));
    draw(); drawColours();
    if (!state.may_teach) {  // a visitor: say so before any photo is taken
      $("#take-photo").disabled = true;
      $("#take-photo-label").classList.add("disabled");
      status.replaceChildren(T.teach_join + " ", el("a", { href: "/t/" + code }, T.table_view));
    }
  }
  $("#take-photo").onclick = e => {
    if (face === null) { e.preventDefault(); say(T.teach_pick_face); }
    else if (state.colours && colour === null) { e.preventDefault(); say(T.teach_pick_colour); }
  };
  $("#take-photo").onchange = async e => {
    const file = e.target.files[0];
    e.target.value = "";
    if (!file) return;
    if (face === null) { say(T.teach_pick_face); return; }
    if (state.colours && colour === null) { say(T.teach_pick_colour); return; }
    const form = new FormData();
    say("…");
    form.append("photo", await shrink(file), "die.jpg"); form.append("face", String(face));
    if (state.colours) form.append("colour", colour);
    await send(form);
  };
  /* A photo the photos taught so far read as another face is refused with a question: the
   * player who chose the face right keeps it (the same photo sent again with keep=1). */
  async function send(form) {
    const [ok, data] = await upload(base, form);
    if (!ok) {
      say(data.error);
      if (data.keep) {
        // the reason ends before the button: "…take the photo again. [It shows this face…]"
        status.append(". ", el("button", { type: "button", class: "secondary", id: "keep-photo",
          onclick: () => { form.set("keep", "1"); say("…"); send(form); } }, T.teach_keep));
      }
      return;
    }
    state = data;
    const t = data.taught;
    say(T.teach_saved, true);
    $("#taught").prepend(figure(t, t.thumbnail));
    draw();
  }
  $("#undo-photo").onclick = () => withdraw();

  // ---- the body colours (Qwinto, twenty one): one photo of all dice, a colour per die ----
  const colourStatus = $("#colour-status");
  const sayColour = (text, ok, hint) => {
    colourStatus.textContent = text; colourStatus.classList.toggle("ok", !!ok);
    colourStatus.classList.toggle("hint", !!hint);
  };
  function drawColours() {
    $("#colour-card").classList.toggle("hidden", !state.body_colours);
    if (!state.body_colours) return;
    const photo = state.colour_photo;
    $("#colour-dice").replaceChildren(...(photo ? photo.dice : []).map((d, i) => {
      const pick = el("select", { class: "colour-of", "data-die": String(i),
        "aria-label": T.teach_colour },
      ...state.body_colours.map(c => el("option", { value: c }, T[c] || c)),
      el("option", { value: "" }, T.not_a_die));
      pick.value = d.colour || "";
      pick.onchange = () => {
        $("#use-colours").classList.remove("hidden"); sayColour(T.colours_check, false, true);
      };
      return el("figure", { class: "colour-die" },
        el("img", { src: base + "/" + photo.seq + "/" + i + ".jpg", alt: d.colour || "",
          width: 72, height: 72 }),
        el("figcaption", {}, pick));
    }));
    $("#use-colours").classList.toggle("hidden", !photo || photo.in_use);
    $("#stop-colours").classList.toggle("hidden", !state.colours_in_use);
    if (state.colours_in_use && !colourStatus.textContent) sayColour(T.colours_in_use, true);
  }
  $("#colour-photo").onchange = async e => {
    const file = e.target.files[0];
    e.target.value = "";
    if (!file) return;
    const form = new FormData();
    sayColour("…");
    form.append("photo", await shrink(file), "dice.jpg");
    const [ok, data] = await upload(base + "/colours", form);
    if (!ok) { sayColour(data.error); return; }
    state = data; sayColour(T.colours_check, false, true); drawColours();
  };
  async function useColours(photo) {
    try {
      sayColour("…");
      const names = photo === null ? undefined :
        [...document.querySelectorAll("#colour-dice .colour-of")].map(s => s.value || null);
      state = await api("POST", base + "/colours/use", { photo, names });
      sayColour(state.colours_in_use ? T.colours_in_use : "", true); drawColours();
    } catch (e) { sayColour(e.message); }
  }
  $("#use-colours").onclick = () => useColours(state.colour_photo.seq);
  $("#stop-colours").onclick = () => useColours(null);
  $("#use-taught").onclick = async () => {
    try {
      say("…");
      state = await api("POST", base + "/use", { use: !state.in_use });
      say(state.in_use ? T.taught_in_use : "", true); draw();
    } catch (e) { say(e.message); }
  };
  load().catch(e => { say(e.message); });
}
