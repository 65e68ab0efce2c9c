/* My sheet: the sheet of the seat this device writes for, its legal fields lit for the roll,
 * a tap to write, the reason a field is not legal, the roll entry for the roller. */
import { T, $, el, fill, layoutName, keepingFocus } from "../dom.js";
import { api } from "../api.js";
import { answerText, drawSheet, fieldOf, scoreTable, specialLabel } from "../draw.js";
import { listen } from "../live.js";
import { rollEntry, standings, statusBlock } from "../roll.js";
import { seatChooser } from "../seats.js";
import { hintSwitch, showHints } from "../hints.js";
import { builtLegal, completed, markWords, marksAt, placementWords } from "../choice.js";

export function start() {
  const code = document.body.dataset.code;
  const wanted = document.body.dataset.seat;
  let state = null;
  const chosen = new Set();     // mark texts chosen for a placement of several marks
  let lastSeq = -1;
  let focus = null;             // the field whose placements are listed
  let built = [];               // The Choice: the marks of an answer being built (`choice.js`)
  let asking = null;            // The Choice: {key, options}: which dice, asked in words
  // the host answers for a player who joined on their own device only after confirming here
  let standIn = null;
  // the roll the host answered for that player: once another is rolled, the host's page goes
  // back to the host's own sheet (standing in is for one answer, not for the game)
  let stoodInRoll = null;
  // the table version a reason under the sheet was given at: it stays until the table changes
  // or the player taps again (a refresh of the same version, such as the stream's hello, keeps
  // it)
  let reasonSeq = null;
  // a costly special tapped once, waiting for the confirming tap: {seat, kind, seq}. Held here,
  // not on the button, so a redraw between the two taps (the stream's echo of one's own roll,
  // another player's action) keeps it; a new table version or 5 s without the second tap drop it
  let armed = null;
  let armedTimer = null;

  // the table as last asked for: an answer overtaken by a later question, or older than the
  // table shown (an action's own answer, come first), is dropped, so that a slow answer never
  // takes back what this player just wrote
  let asked = 0;
  async function refresh() {
    const query = standIn !== null ? "?stand_in=" + standIn : "";
    const mine = ++asked;
    let got;
    try { got = await api("GET", "/api/tables/" + code + query); } catch (e) {
      if (mine === asked) $("#hint").textContent = e.message;
      return;
    }
    if (mine !== asked || (state && got.seq < state.seq)) return;
    state = got;
    if (stoodInRoll !== null && JSON.stringify(state.attempts) !== stoodInRoll) {
      location.replace("/t/" + code + "/sheet"); return;
    }
    if (state.seq !== lastSeq) {
      // another player's action: the fields this player has chosen stay chosen while still legal
      const seat = seatShown(), opt = seat === null ? null : state.me.seats[String(seat)];
      const still = new Set(opt ? opt.marks : []);
      for (const m of [...chosen]) if (!still.has(m)) chosen.delete(m);
      focus = null;
      // an answer being built stays while its marks are still legal
      built = built.filter(m => still.has(m.text));
      asking = null;
    }
    lastSeq = state.seq;
    render();
  }

  function askStandIn() {
    const me = state.me;
    if (!me.creator || wanted === "" || me.writes_for.includes(+wanted) ||
        !state.players[+wanted] || standIn !== null) return false;
    const name = state.players[+wanted].name;
    $("#hint").innerHTML = "";
    $("#hint").append(el("span", { id: "stand-in-ask" }, fill(T.stand_in_confirm, name)),
      el("span", { class: "actions" },
        el("button", { type: "button", id: "stand-in-yes",
          onclick: () => { standIn = +wanted; refresh(); } }, T.answer_for + " " + name),
        el("a", { class: "button secondary", href: "/t/" + code + "/sheet" }, T.back_to_mine)));
    return true;
  }

  function seatShown() {
    const w = state.me.writes_for;
    if (standIn !== null && state.me.stand_in === standIn) return standIn;
    if (wanted !== "" && w.includes(+wanted)) return +wanted;
    if (state.me.seat !== null && state.me.seat !== undefined) return state.me.seat;
    return w.length ? w[0] : null;
  }

  // a game where only the roller writes (Kuh Vadis), to the other player: who rolls and marks
  function rollerWrites(seat) {
    if (state.game.others_answer || state.is_over) return null;
    const who = !state.roll || state.turn_complete ? state.next_roller : state.roller;
    return who === seat ? null : fill(T.roller_only_writes, state.players[who].name);
  }

  // another player's dice still rolling: what this seat waits for, else null
  function waitsForRoller(seat) {
    if (!state.still_rolling || !state.game.others_answer || seat === state.roller) return null;
    return state.players[state.roller].name + " " + T.still_rolling + ": " + T.write_when_kept;
  }

  /* the host's way to bring the players in, while seats are free: the join link and its QR
   * (the table view has them too, at its foot) */
  function invite() {
    const box = $("#invite");
    if (!box) return;
    const open = state.players.filter(p => !p.claimed).map(p => p.name);
    const shown = state.me.creator && open.length > 0 && !state.is_over;
    box.classList.toggle("hidden", !shown);
    if (shown) $("#invite-open").textContent = T.invite_open.replace("{names}", open.join(", "));
  }

  function clear() {
    for (const id of ["#sheet", "#actions", "#score", "#seat-switch"]) $(id).innerHTML = "";
  }

  // a redraw gives the keyboard back the element it was on (dom.keepingFocus)
  function render() { keepingFocus(draw, "#hint"); announce(); }

  // what changed, said to a screen reader once (a live region written only when its words
  // change: the turn and the hint are drawn again on every event, alike or not)
  let announced = "";
  function announce() {
    const box = $("#announce");
    const words = [$("#turn"), $("#hint")].map(n => n ? n.textContent.trim() : "")
      .filter(Boolean).join(". ");
    if (box && words !== announced) { announced = words; box.textContent = words; }
  }

  function draw() {
    statusBlock(state);
    // a finished game's ranking (and a solo game's rating) here too, where the players look
    if (state.is_over) $("#turn").append(standings(state));
    document.body.dataset.seq = state.seq;
    document.body.dataset.over = state.is_over;
    // first: the pad goes with what this device may do now, also when it has lost its seat
    rollEntry($("#roll-entry"), state, code, refresh);
    invite();
    const seat = seatShown();
    const who = $("#who");
    if (askStandIn()) { who.textContent = T.my_sheet; clear(); return; }
    if (seat === null) {
      who.textContent = T.my_sheet;
      $("#hint").textContent = T.no_seat_here;
      // a rejoin code being typed stays, with what was typed, whatever the table does meanwhile
      const typing = document.activeElement && document.activeElement.closest("#rejoin-form");
      for (const id of ["#actions", "#score", "#seat-switch"]) $(id).innerHTML = "";
      if (!typing) seatChooser($("#sheet"), state, code, () => location.reload());
      return;
    }
    const player = state.players[seat];
    const opt = state.me.seats[String(seat)];
    const rolling = player.role === "roller" && state.roll && !state.turn_complete;
    // Kuh Vadis: which of the pad's marks are this player's
    who.textContent = T.sheet_of + " " + player.name + (player.mark ? " · " + player.mark : "") +
      (rolling ? " (" + T.roller + ")" : "");
    const sw = $("#seat-switch"); sw.innerHTML = "";
    if (seat === standIn) {
      sw.append(el("p", { class: "note recon", id: "stand-in-note" },
        fill(T.stand_in_active, player.name) + " ",
        el("a", { href: "/t/" + code + "/sheet", id: "stand-in-back" }, T.back_to_mine)));
    } else if (state.me.writes_for.length > 1) {
      sw.append(el("div", { class: "actions" }, T.written_for_you + ":",
        state.me.writes_for.map(s => el("a", { href: "?seat=" + s,
          class: "badge" + (s === seat ? " turn" : "") }, state.players[s].name))));
    }
    // field -> the texts of the legal marks written there
    const legal = new Map();
    for (const p of opt.parts) {
      for (const m of p.marks) {
        const key = fieldOf(m);
        if (!legal.has(key)) legal.set(key, []);
        if (!legal.get(key).includes(m.text)) legal.get(key).push(m.text);
      }
    }
    if (state.seq !== reasonSeq) $("#reason").textContent = "";
    const waiting = waitsForRoller(seat);
    // why a roll lets no field be written, by the rule (Kuh Vadis' dice without a result)
    const nothing = opt.nothing ? " " + opt.nothing[0].toUpperCase() + opt.nothing.slice(1) +
      "." : "";
    $("#hint").textContent = legal.size ? (opt.multi ? T.legal_hint_multi : T.legal_hint) :
      opt.legal.length ? T.no_field_hint + nothing :
      (state.roll && player.answered ? T.answered + ": " +
        answerText(player.answer_parts, player.view, state.roll) :
        waiting ? waiting : rollerWrites(seat) || T.not_your_turn);
    // an answer built on the drawn sheet, a space at a time, then the dice (The Choice): for a
    // grid that says what the marks of its rows are (`mark_rows`)
    const rows = player.view ? player.view.mark_rows : null;
    const building = !!rows && opt.legal.length > 0;
    const listMode = !building && (!player.view || player.view.value === "marks-only" ||
      opt.parts.some(p => p.ordered) || [...legal.values()].some(ms => ms.length > 1));
    const shownLegal = building ? builtLegal(opt, built, rows) : legal;
    if (building && legal.size) $("#hint").textContent = T.choice_hint;
    const box = $("#sheet"); box.innerHTML = "";
    if (player.view) {
      const onCell = (cell, key) => building ? tapBuilt(seat, opt, cell, key, rows) :
        tapCell(seat, opt, legal, cell, key, listMode);
      box.append(drawSheet(player.view, { legal: shownLegal, focus, onCell,
        chosen: building ? new Set(built.map(m => m.text)) : chosen }));
    } else {
      box.append(el("pre", { class: "json" }, JSON.stringify(player.sheet, null, 1)));
    }
    // Kuh Vadis: a square marked with a quad gives the roller another turn
    const again = new Set(opt.another_turn || []);
    if (again.size) {
      box.querySelectorAll(".cell.legal").forEach(c => {
        if ((legal.get(c.dataset.key) || []).some(m => again.has(m))) c.classList.add("again");
      });
      $("#hint").textContent = T.legal_hint + " " + T.again_hint;
    }
    sw.append(hintSwitch(code, seat, render));
    showHints(code, state.seq, seat, box, player.view, state.roll,
      asked => seatShown() === seat && state.seq + ":" + seat === asked);
    const actions = $("#actions"); actions.innerHTML = "";
    if (building) actions.append(builtAnswer(seat, opt, rows));
    if (listMode) actions.append(placementList(seat, opt, player.view));
    if (opt.multi && chosen.size) {
      const match = opt.parts.find(p => p.marks.length === chosen.size &&
        p.marks.every(m => chosen.has(m.text)));
      actions.append(el("button", { type: "button", id: "enter-marks", disabled: !match,
        onclick: () => place(seat, match.text) }, T.enter_marks + " (" + chosen.size + ")"));
    }
    // no field takes the roll but the roller may roll again: that first (Kuh Vadis' 3 attempts)
    const rollAgain = !legal.size && !building && state.may_reroll && seat === state.roller &&
      state.me.can_roll;
    if (rollAgain) {
      $("#hint").textContent = T.no_field_roll_again.replace("{i}", state.attempts.length + 1)
        .replace("{n}", state.game.max_attempts) + nothing;
      actions.append(el("button", { type: "button", id: "roll-again", onclick: () => {
        const entry = $("#roll-entry"); entry.scrollIntoView({ block: "start" });
        const first = entry.querySelector(".pad button"); if (first) first.focus();
      } }, T.roll_again));
    }
    if (opt.specials.length) actions.append(specials(seat, opt, rollAgain));
    if (opt.can_undo) {
      // once everyone has written (or the game is over), taking an answer back reopens the turn
      // for the whole table: a second tap confirms that, as it does a costly special
      const reopens = state.is_over || state.turn_complete;
      const tap = twoTaps(seat, "undo", reopens, () => act({ type: "undo", seat }));
      actions.append(el("button", { type: "button", class: "secondary", id: "undo",
        "data-armed": tap.armed ? "1" : null, onclick: tap.onclick },
        tap.armed ? (state.is_over ? T.confirm_undo_end : T.confirm_undo_turn) : T.undo));
    }
    if (opt.can_end_side) {
      // ending a side gives up its open spaces for good: a second tap, saying so
      const tap = twoTaps(seat, "end_side", true, () => act({ type: "end_side", seat }));
      actions.append(el("button", { type: "button", id: "end-side",
        class: tap.armed ? "danger" : "secondary", "data-armed": tap.armed ? "1" : null,
        onclick: tap.onclick }, tap.armed ? T.confirm_end_side : T.end_side));
    }
    // The Choice: the side to start on, chosen before the first mark
    if (opt.sides && opt.sides.length) {
      actions.append(el("div", { class: "actions", id: "start-side" }, T.start_on + ":",
        opt.sides.map(side => el("button", { type: "button",
          class: side === player.sheet.playing ? null : "secondary", "data-side": side,
          "aria-pressed": String(side === player.sheet.playing),
          onclick: () => act({ type: "side", seat, side }) }, T["side_" + side] || side))));
    }
    const sc = $("#score"); sc.innerHTML = "";
    const recon = player.layout.recon;
    sc.append(el("h2", {}, T.score + ": " + player.score.total), scoreTable(player.score),
      el("p", { class: "note" + (recon ? " recon" : "") },
        T.layout + ": " + layoutName(player.layout.name) + (recon ? " · " + T.recon : "")));
  }

  // the legal placements as buttons (a tapped field narrows them to the ones writing there)
  function placementList(seat, opt, view) {
    const shown = opt.parts.filter(p => p.kind === "enter")
      .filter(p => !focus || p.marks.some(m => fieldOf(m) === focus));
    return el("div", { class: "placements" }, shown.map(p =>
      el("button", { type: "button", class: "secondary", "data-placement": p.text,
        onclick: () => place(seat, p.text) }, answerText(p, view, state.roll))),
    focus ? el("button", { type: "button", class: "secondary", id: "all-placements",
      onclick: () => { focus = null; render(); } }, "…") : null);
  }

  // a special answer costs points or a turn (a failed attempt, a misthrow): away from the
  // fields, and a second tap confirms it; "Pass" costs nothing
  function specials(seat, opt, rollAgain) {
    const out = el("div", { class: "actions specials" });
    for (const kind of opt.specials) {
      const costly = kind !== "pass";
      const tap = twoTaps(seat, kind, costly, () => place(seat, kind));
      out.append(el("button", { type: "button", "data-special": kind,
        "data-armed": tap.armed ? "1" : null,
        class: costly && !rollAgain ? "danger" : "secondary", onclick: tap.onclick },
        tap.armed ? T.confirm_special + ": " + specialLabel(kind) : specialLabel(kind)));
    }
    return out;
  }

  // a button whose action a second tap confirms when `confirming` (a costly special, an undo
  // that reopens the turn, ending a side): the first tap arms it; `armed`: whether it is armed
  function twoTaps(seat, kind, confirming, run) {
    const isArmed = confirming && armed !== null && armed.seat === seat &&
      armed.kind === kind && armed.seq === state.seq;
    return { armed: isArmed, onclick: () => {
      if (!confirming || isArmed) { disarm(); run(); return; }
      armed = { seat, kind, seq: state.seq };
      clearTimeout(armedTimer);
      armedTimer = setTimeout(() => { armed = null; render(); }, 5000);
      render();
    } };
  }

  function disarm() { armed = null; clearTimeout(armedTimer); }

  // ---- an answer built on the drawn sheet (The Choice): tap a space, then the dice it uses ----
  function tapBuilt(seat, opt, cell, key, rows) {
    $("#reason").textContent = "";
    const at = built.findIndex(m => fieldOf(m) === key);
    if (at >= 0) {            // tapped again: taken back (a number with the line drawn after it)
      const m = built[at];
      built = built.filter((x, i) => i < at || (x.text !== m.text &&
        !(m.row === rows.line && x.row === rows.line)));
      asking = null; render(); return;
    }
    const options = marksAt(opt, built, key, rows);
    if (!options.length) { tapCell(seat, opt, new Map(), cell, key, false); return; }
    if (options.length === 1) { built.push(options[0]); asking = null; }
    else asking = { key, options };        // which dice: asked below the sheet, in words
    render();
  }

  function builtAnswer(seat, opt, rows) {
    const box = el("div", { class: "built", id: "built" });
    const words = m => markWords(m, state.roll, rows);
    if (asking) {
      box.append(el("p", { class: "hint" }, T.choice_which),
        el("div", { class: "actions" }, asking.options.map(m => el("button", { type: "button",
          class: "secondary", "data-mark": m.text,
          onclick: () => { built.push(m); asking = null; render(); } }, words(m)))));
    }
    if (built.length) {
      box.append(el("p", { id: "built-so-far" },
        T.choice_chosen + ": " + built.map(words).join(", ")));
    }
    const done = completed(opt, built, rows);
    box.append(el("div", { class: "actions" },
      done ? el("button", { type: "button", id: "write-built", "data-placement": done.text,
        onclick: () => place(seat, done.text) },
      T.choice_write + ": " + placementWords(done, state.roll, rows)) : null,
      built.length || asking ? el("button", { type: "button", class: "secondary",
        id: "clear-built", onclick: () => { built = []; asking = null; render(); } }, T.clear) :
        null));
    return box;
  }

  function say(text) {
    $("#reason").textContent = text;
    reasonSeq = state.seq;
    return $("#reason");
  }

  function tapCell(seat, opt, legal, cell, key, listMode) {
    const marks = legal.get(key);
    $("#reason").textContent = "";
    if (!marks) {
      const reason = say(cell.value !== null && cell.value !== undefined ? T.filled :
        (opt.reasons[key] || waitsForRoller(seat) || (state.roll ? T.not_your_turn : T.no_roll)));
      // Qwinto: a number found wrong later is erased, its field crossed out (a second tap)
      if ((opt.erasable || []).includes(key)) {
        reason.append(" ", el("button", { type: "button", class: "danger", id: "erase",
          onclick: () => act({ type: "erase", seat, field: key }) },
          T.erase.replace("{v}", cell.value)));
      }
      return;
    }
    if (listMode) { focus = focus === key ? null : key; render(); return; }
    if (!opt.multi) { place(seat, marks[0]); return; }
    const m = marks[0];
    if (chosen.has(m)) chosen.delete(m); else chosen.add(m);
    render();
  }

  async function place(seat, placement) { await act({ type: "place", seat, placement }); }

  async function act(body) {
    if (body.seat === standIn) body = Object.assign({ stand_in: true }, body);
    try {
      const got = await api("POST", "/api/tables/" + code + "/actions", body);
      if (body.stand_in && body.type === "place") stoodInRoll = JSON.stringify(got.attempts);
      if (!state || got.seq >= state.seq) state = got;
      chosen.clear(); built = []; asking = null; lastSeq = state.seq; render();
    } catch (e) {
      // a second tap sent before the first one's answer came (a double tap): the table changed
      // by this player's own answer, which is no reason to retry
      if (e.status === 409 && e.data && e.data.code === "app.changed" && body.type === "place") {
        await refresh();
        const p = state.players[body.seat];
        if (p && p.answered) { say(T.answered_already); return; }
      }
      say(e.message);
    }
  }

  refresh();
  listen(code, refresh);
}
