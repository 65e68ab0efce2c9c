/* The roll: who rolls now and what was rolled (`statusBlock`), and the pad the roller taps the
 * dice on (`rollEntry`; the camera fills it too, through `window.fillRoll`). */
import { T, $, el, keepingFocus } from "./dom.js";
import { api } from "./api.js";
import { dieNode, diceRow } from "./dice.js";
import { shrink, upload } from "./photo.js";

const picked = [];      // the dice tapped so far; kept while the pad is drawn again
let selected = null;    // the picked die a pad tap replaces (tapped once; a second tap removes)
// what a pad tap could not do, or what a photo gave, until the next tap: kept, as the dice are,
// while the pad is drawn again (the table's news often arrives while a photo is read)
let notice = "";
let redrawEntry = () => {};   // the pad drawn now: a photo's answer goes to it
// twenty one's 1s the entry put in for a second attempt: {seq: the roll's, dice}, or null
let onesEntered = null;
// the last roll the server refused, and when: the pad is drawn again as the table's news
// arrives (often the very change that caused the refusal), and the reason must outlive that
let refused = null;
const REFUSAL_SHOWN_MS = 15000;

/* A die read with its confidence, kept together; a die whose colour the reader was not sure of
 * shows "?" and is given its colour with a pad tap; a die whose face it was not sure of
 * (`check`) is marked for the player to look at, and may be sent as it is. */
function seenDie(d, opts, coloured) {
  const unsure = coloured && !d.colour;
  const node = dieNode(unsure ? { colour: null, face: d.face } : d, opts);
  if (unsure) { node.classList.add("unsure"); node.prepend(el("span", { class: "q" }, "?")); }
  if (d.check) node.classList.add("check");
  return el("span", { class: "seen" }, node, d.confidence !== undefined ?
    // "check" under the share: as narrow as the die, so that the words of dice side by side
    // do not run together
    el("span", { class: d.check ? "conf check" : "conf" }, Math.round(d.confidence * 100) + "%",
      d.check ? [el("br"), T.check_die] : null) : null);
}

export function rollEntry(box, state, code, refresh) {
  const spec = state.game.dice;
  const me = state.me;
  box.classList.toggle("hidden", !me.can_roll || state.is_over);
  if (!me.can_roll || state.is_over) return;
  box.innerHTML = "";
  const chosen = el("div", { class: "dice", id: "picked" });
  const msg = el("p", { class: "error", role: "alert" },
    refused && Date.now() - refused.at < REFUSAL_SHOWN_MS ? refused.text : "");
  const coloured = spec.colours.some(c => c.colour);
  const seen = el("div", { id: "seen-box" });
  const why = el("p", { class: "note", id: "roll-why", role: "status" });
  const count = spec.min_dice === spec.max_dice ? String(spec.max_dice) :
    spec.min_dice + "-" + spec.max_dice;
  const rolls = T.game_rolls.replace("{game}", state.game.title).replace("{n}", count);
  let reading = null;   // the dice of a camera reading with more dice than the game rolls
  function tapSeen(d) {
    const i = picked.indexOf(d);
    if (i >= 0) picked.splice(i, 1); else if (picked.length < spec.max_dice) picked.push(d);
    redraw();
  }
  function redraw() { keepingFocus(redrawNow); }
  function redrawNow() {
    chosen.innerHTML = "";
    if (!picked.includes(selected)) selected = null;
    // a tap selects a die for the pad to replace; a second tap takes it out
    picked.forEach((d, i) => {
      const node = seenDie(d, { picked: true, onclick: () => {
        if (selected === d) { picked.splice(i, 1); selected = null; } else selected = d;
        notice = ""; redraw();
      } }, coloured);
      if (d === selected) node.classList.add("selected");
      node.firstChild.setAttribute("aria-pressed", String(d === selected));
      chosen.append(node);
    });
    // more dice seen than the game rolls: the player taps the ones that were rolled
    seen.replaceChildren(...(reading ? [el("p", { class: "hint" }, rolls + "; " +
      T.seen_too_many.replace("{seen}", reading.length).replace("{n}", count)),
      // numbered as the camera's picture numbers them
      el("div", { class: "dice" }, reading.map((d, i) => el("span", { class: "seen-no" },
        el("span", { class: "no" }, (i + 1) + "."), seenDie(d,
          { picked: picked.includes(d), onclick: () => tapSeen(d) }, coloured))))] : []));
    const unsure = picked.filter(d => coloured && !d.colour).length;
    const wrongCount = picked.length < spec.min_dice || picked.length > spec.max_dice;
    sendBtn.disabled = sending || wrongCount || unsure > 0;
    correctBtn.disabled = sendBtn.disabled;
    // why the roll cannot be sent yet, in words
    why.textContent = notice ? notice : selected ? T.replace_die :
      unsure ? T.unsure_colour : wrongCount && picked.length ? rolls + ": " +
      T.chosen_count.replace("{k}", picked.length) :
      picked.some(d => d.check) ? T.check_faces : "";
  }
  function tapPad(colour, f) {
    const die = { colour, face: f };
    notice = "";
    const i = picked.findIndex(d => d.colour === colour);
    // a die read without a sure colour takes the colour tapped (the one with this face first)
    const unsure = coloured ? picked.filter(d => !d.colour) : [];
    const open = unsure.find(d => d.face === f) || unsure[0];
    // the one die the reader asked to check, where dice are not told apart by colour
    const checked = picked.filter(d => d.check);
    if (selected) picked[picked.indexOf(selected)] = die;
    else if (open && i < 0) picked[picked.indexOf(open)] = die;
    else if (!spec.repeat_colours && i >= 0) picked[i] = die;
    else if (picked.length < spec.max_dice) picked.push(die);
    else if (checked.length === 1) picked[picked.indexOf(checked[0])] = die;
    // every die is in: which one is wrong is the player's to say, never guessed
    else notice = T.pad_full.replace("{n}", picked.length);
    selected = null;
    redraw();
  }
  const pad = el("div", { class: "pad" });
  for (const c of spec.colours) {
    // a row is labelled by its colour; dice without colours (Knister, Kuh Vadis) need none
    pad.append(el("div", { class: "padrow" },
      c.colour ? el("span", { class: "lbl" }, T[c.colour] || c.colour) : null,
      c.faces.map(f => dieNode({ colour: c.colour, face: f }, {
        unusual: c.usual && !c.usual.includes(f), onclick: () => tapPad(c.colour, f) }))));
  }
  // one roll at a time: a double tap must not send the roll twice (it would spend the next
  // attempt)
  let sending = false;
  async function send(type) {
    if (sending) return;
    sending = true; redraw();
    msg.textContent = ""; refused = null;
    try {
      await api("POST", "/api/tables/" + code + "/actions",
        { type, roll: picked.map(d => ({ colour: d.colour, face: d.face })) });
      picked.length = 0; notice = "";
      refresh();
    } catch (e) {
      msg.textContent = e.message;
      refused = { text: e.message, at: Date.now() };
      // overtaken (someone else's roll or undo came first, answered with the table's `state`):
      // the dice tapped were for a table that is no more; the page shows the new one. A roll
      // the rules refuse keeps its dice, for the player to correct
      if (e.status === 409 && e.data && e.data.state) {
        picked.length = 0; notice = ""; refresh();
      }
    }
    finally { sending = false; redraw(); }
  }
  const again = state.may_reroll;
  const sendBtn = el("button", { type: "button", id: "send-roll", onclick: () => send("roll") },
    again ? T.next_attempt.replace("{i}", state.attempts.length + 1)
      .replace("{n}", state.game.max_attempts) : T.send_roll);
  const correctBtn = el("button", { type: "button", class: "secondary", id: "correct-roll",
    onclick: () => send("correct") }, T.correct_roll);
  // the roller has finished rolling: the others' answers open (writing on the roll keeps it too)
  const keeps = state.still_rolling && state.game.others_answer;
  // the host may act for the roller: then the words name the roller, not "you"
  const mine = me.seat === state.roller;
  const rollerName = state.players[state.roller].name;
  const keepBtn = el("button", { type: "button", id: "keep-roll", onclick: async () => {
    msg.textContent = "";
    try { await api("POST", "/api/tables/" + code + "/actions", { type: "keep" }); refresh(); }
    catch (e) { msg.textContent = e.message; }
  } }, mine ? T.keep_roll : T.keep_roll_of.replace("{name}", rollerName));
  const canCorrect = state.roll && !state.turn_complete && !state.players.some(p => p.answered);
  // a second attempt throws the dice of the first again (twenty one: all but its 1s): say which;
  // where any dice may be thrown again (The Choice, Kuh Vadis) there is nothing to say
  const rule = state.game.rerolls;
  const rerolled = again && state.roll && rule !== "any" ? state.roll
    .filter(d => d.colour && (rule !== "not_ones" || d.face !== 1))
    .map(d => T[d.colour] || d.colour) : [];
  // twenty one's second attempt: the 1s stay where they lie, so they are entered already
  // (once a roll: a player who clears them takes them out)
  const ones = again && state.roll && rule === "not_ones" ?
    state.roll.filter(d => d.face === 1) : [];
  if (ones.length && !picked.length && !(onesEntered && onesEntered.seq === state.seq)) {
    onesEntered = { seq: state.seq, dice: ones.map(d => ({ colour: d.colour, face: d.face })) };
    picked.push(...onesEntered.dice);
  }
  // no second attempt now (the roll was kept, or written on): the 1s put in for it go, or a
  // host entering the next player's roll found them there
  if (!ones.length && onesEntered) {
    for (const d of onesEntered.dice) if (picked.includes(d)) picked.splice(picked.indexOf(d), 1);
    onesEntered = null;
  }
  // no new roll now (the others answer the roll): the pad only for a correction, when asked for
  const waiting = state.roll && !state.turn_complete && !again;
  if (waiting && !canCorrect) { box.classList.add("hidden"); return; }
  if (waiting && box.dataset.correcting !== String(state.seq)) {
    // the correction starts from the roll as it stands: one wrong die is one tap to change
    const correct = () => {
      box.dataset.correcting = String(state.seq);
      picked.length = 0;
      for (const d of state.roll) picked.push({ colour: d.colour, face: d.face });
      rollEntry(box, state, code, refresh);
    };
    box.append(el("h2", {}, T.enter_roll),
      el("p", { class: "note", id: "roll-waiting" }, state.game.others_answer ? T.roll_waiting :
        T.roll_waiting_roller.replace("{name}", state.players[state.roller].name)),
      el("div", { class: "actions" }, el("button", { type: "button", class: "secondary",
        id: "open-correction", onclick: correct }, T.correct_roll + " …")));
    window.fillRoll = dice => { correct(); window.fillRoll(dice); };
    return;
  }
  // a photo of the dice: the phone's camera through a file input, which needs neither a
  // camera stream nor HTTPS; read at once by the server's settled-roll reader
  const photoInput = el("input", { type: "file", accept: "image/*", capture: "environment",
    class: "hidden", id: "photo-input" });
  photoInput.onchange = async () => {
    const file = photoInput.files[0];
    photoInput.value = "";
    if (!file) return;
    msg.textContent = ""; notice = T.photo_reading; redrawEntry();
    const form = new FormData();
    form.append("photo", await shrink(file), "dice.jpg");
    const [ok, data, status] = await upload("/api/tables/" + code + "/photo", form);
    if (!ok || !data.dice.length) {
      notice = ok ? T.photo_no_dice : status === 503 ? T.camera_unavailable : data.error;
      redrawEntry();
      return;
    }
    // what the rules say of the dice read (two dice of one colour...), else that a photo in
    // black and white shows no colours, else how to check them (a die without a sure colour:
    // the pad's own words ask for it)
    notice = data.problem || (coloured && data.colourless ? T.photo_no_colour :
      coloured && data.dice.some(d => !d.colour) ? "" : T.photo_read);
    window.fillRoll(data.dice.map(d =>
      ({ colour: d.colour, face: d.face, confidence: d.confidence, check: d.check })));
  };
  const photoBtn = el("button", { type: "button", class: "secondary", id: "photo-dice",
    onclick: () => photoInput.click() }, T.photo_dice);
  const unusual = spec.colours.some(c => c.usual && c.faces.some(f => !c.usual.includes(f)));
  const clear = () => { picked.length = 0; reading = null; notice = ""; redraw(); };
  // the host may enter another player's roll: the heading names whose it is
  const rolling = again ? state.roller : state.next_roller;
  box.append(el("h2", {}, rolling === me.seat ? T.enter_roll :
    T.enter_roll_of.replace("{name}", state.players[rolling].name)),
    el("p", { class: "note" }, T.tap_dice),
    el("div", { class: "actions" }, photoBtn, photoInput),
    el("p", { class: "note", id: "unusual-faces", hidden: !unusual }, T.unusual_faces),
    el("p", { class: "note", id: "reroll-hint", hidden: !rerolled.length },
      (rule === "not_ones" ? T.reroll_not_ones : T.reroll_same) + ": " + rerolled.join(", ") +
      (ones.length ? ". " + T.ones_entered : "")),
    // any dice may be thrown again (Kuh Vadis, The Choice): the entry still takes every die
    el("p", { class: "note", id: "reroll-any", hidden: !(again && state.roll && rule === "any") },
      T.reroll_any.replace("{n}", spec.max_dice)),
    el("div", {}, keeps ? [el("p", { class: "note", id: "keep-hint" },
      mine ? T.keep_hint : T.keep_hint_for.replace(/\{name\}/g, rollerName)),
      el("div", { class: "actions" }, keepBtn)] : null),
    seen, pad, chosen, why,
    // the roll's attempts are spent (or answers are written): only a correction, no new roll
    el("div", { class: "actions" }, waiting ? null : sendBtn, canCorrect ? correctBtn : null,
      el("button", { type: "button", class: "secondary", onclick: clear }, T.clear)),
    msg);
  redraw();
  redrawEntry = redraw;
  // the camera's reading (and a test's dice) into the pad
  window.fillRoll = dice => {
    picked.length = 0;
    reading = dice.length > spec.max_dice ? dice : null;
    if (!reading) dice.forEach(d => picked.push(d));
    redraw();
  };
}

/* The ranking of a finished game: equal scores share a rank ("1. Anna 43, 1. Ben 43"), each
 * line's number its rank; a solo game with the rule book's rating */
export function standings(state) {
  return el("ol", { class: "standings" }, state.standings.map(s =>
    el("li", { value: s.rank },
      s.player + " · " + s.total + (s.rating ? " · " + s.rating : ""))));
}

/* the dice of a roll, and for a game that writes their sum (Qwinto, Knister) "= 8" after them */
function rollRow(state, roll) {
  const row = diceRow(roll);
  if (state.game.writes_sum && roll && roll.length) {
    row.append(el("span", { class: "sum", id: "roll-sum" },
      "= " + roll.reduce((t, d) => t + d.face, 0)));
  }
  return row;
}

export function statusBlock(state) {
  const turn = $("#turn"), roll = $("#roll");
  if ($("#title")) $("#title").textContent = state.game.title;
  const roller = state.players[state.roller].name;
  const next = state.players[state.next_roller].name;
  turn.innerHTML = "";
  if (state.is_over) {
    // and why: "Game over: 4 failed attempts (Bob)." (each reason once, with whose sheets
    // ended the game; without names when every sheet did)
    const why = new Map();
    for (const e of state.ended_by || []) {
      if (!why.has(e.why)) why.set(e.why, []);
      if (e.player) why.get(e.why).push(e.player);
    }
    const said = [...why].map(([text, names]) => text +
      (names.length && names.length < state.players.length ? " (" + names.join(", ") + ")" : ""));
    turn.append(el("strong", {}, T.game_over), said.length ?
      el("span", { id: "ended-by" }, ": " + said.join("; ") + ".") : null);
  }
  else if (!state.roll || state.turn_complete) {
    turn.append(el("span", {}, next + " " + T.to_roll));
    // the roller's pad lies below the sheet on a phone: a way to it from the top
    if (state.me.seat === state.next_roller && $("#roll-entry")) {
      turn.append(". ", el("a", { href: "#roll-entry", id: "to-roll-entry" },
        T.enter_roll + " ↓"));
    }
  }
  else {
    // a game of one throw a turn (Knister) has no attempts to count
    turn.append(el("span", {}, T.turn_of + ": " + roller + (state.game.max_attempts > 1 ?
      " · " + T.attempt + " " + state.attempts.length + "/" + state.game.max_attempts : "")));
  }
  roll.innerHTML = "";
  if (!state.roll) roll.append(el("p", { class: "note" }, T.no_roll));
  else if (state.still_rolling && state.game.others_answer) {
    // the roller may still roll again: the dice are shown, nobody else writes yet
    const row = rollRow(state, state.roll);
    if (state.game.rerolls === "not_ones") {   // twenty one's 1s stay: drawn as kept
      row.querySelectorAll(".die").forEach((node, i) =>
        node.classList.toggle("stays", state.roll[i].face === 1));
    }
    roll.append(el("div", { class: "rolling" }, row),
      el("p", { class: "note", id: "still-rolling" }, state.me.seat === state.roller ?
        T.you_still_rolling : roller + " " + T.still_rolling));
  } else {
    // a finished turn's roll stays shown until the next: said to be the last one
    const done = state.turn_complete || state.is_over;
    if (done) roll.append(el("p", { class: "note", id: "last-roll" }, T.last_roll));
    roll.append(rollRow(state, state.roll));
    if (state.pending.length && !state.is_over) {
      roll.append(el("p", { class: "note", id: "pending" }, T.waiting_for + ": " +
        state.pending.map(s => state.players[s].name).join(", ")));
    }
  }
}
