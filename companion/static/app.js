/* Dice companion pages: small vanilla JS, no framework, no CDN.
 * Every page fetches its state from /api and listens to /api/tables/CODE/events
 * (server-sent events) for changes; legality always comes from the server. */
"use strict";
(function () {
  const T = JSON.parse((document.getElementById("i18n") || {}).textContent || "{}");
  const $ = (sel, root) => (root || document).querySelector(sel);
  const page = document.body.dataset.page;

  function el(tag, attrs, ...kids) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "class") node.className = v;
      else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
      else if (k === "text") node.textContent = v;
      else if (k === "style") node.style.cssText = v;   // the CSP refuses style attributes
      else node.setAttribute(k, v === true ? "" : v);
    }
    for (const kid of kids.flat()) {
      if (kid === null || kid === undefined || kid === false) continue;
      node.append(kid instanceof Node ? kid : document.createTextNode(String(kid)));
    }
    return node;
  }

  // a new table and every action carry an idempotency key (a retry is done once by the server)
  // and an action the log position the page showed (overtaken since: 409 and the current state)
  function newKey() {
    return Array.from(crypto.getRandomValues(new Uint8Array(16)), b => b.toString(16).padStart(2, "0")).join("");
  }

  async function api(method, path, body) {
    const opts = { method, headers: {}, credentials: "same-origin" };
    if (method === "POST" && /^\/api\/tables(\/[^/]+\/actions)?$/.test(path)) {
      body = Object.assign({ key: newKey() }, body);
      if (path.endsWith("/actions") && body.seq === undefined && document.body.dataset.seq !== undefined)
        body.seq = +document.body.dataset.seq;
    }
    if (body !== undefined) {
      opts.headers["Content-Type"] = "application/json";
      opts.body = JSON.stringify(body);
    }
    let resp;
    try { resp = await fetch(path, opts); }
    catch (e) { if (!body || !body.key) throw e; resp = await fetch(path, opts); }  // answer lost: once more, same key
    let data = null;
    try { data = await resp.json(); } catch (e) { data = { error: resp.statusText }; }
    if (!resp.ok) {
      const err = new Error((data && data.error) || resp.statusText);
      err.status = resp.status; err.data = data;
      throw err;
    }
    return data;
  }

  // ---- dice --------------------------------------------------------------------------
  function faceText(v) {
    if (typeof v === "string" && /^[a-z]{2,}$/.test(v)) return el("span", { class: "word" }, T[v] || v);
    return v;
  }

  function dieNode(d, opts) {
    opts = opts || {};
    const face = faceText(d.face);
    const cls = "die" + (d.colour ? " c-" + d.colour : "") + (opts.small ? " small" : "") +
      (opts.picked ? " picked" : "") + (opts.unusual ? " unusual" : "");
    const label = (d.colour ? d.colour + " " : "") + d.face;
    const node = el(opts.onclick ? "button" : "span",
      { class: cls, title: label, "aria-label": label, onclick: opts.onclick,
        type: opts.onclick ? "button" : null, "data-die": (d.colour || "") + ":" + d.face },
      face);
    return node;
  }

  function diceRow(dice, small) {
    return el("div", { class: "dice" }, (dice || []).map(d => dieNode(d, { small })));
  }

  // ---- the sheet ------------------------------------------------------------------------
  function parseMark(text) {
    const m = /^([A-Z]+|[A-Za-z]+?)(\d+|[a-z]+)@(\d+)(?:\/([1-9]+))?$/.exec(text);
    return m ? { row: m[1].toUpperCase(), value: m[2], col: +m[3], text } : null;
  }

  /* An answer as players say it: "orange 7", "A 6, A 4", "Pass" rather than the engine's
   * notation "O7@2 A6@0", "pass"; `view` names a row by its colour where the sheet has one. */
  function answerText(answer, view) {
    return String(answer).split(/\s+/).filter(Boolean).map(tok => {
      if (T[tok] && !parseMark(tok)) return T[tok];
      const m = parseMark(tok);
      if (!m) return tok;
      const row = view && view.rows && view.rows.find(r => r.label === m.row);
      const name = row && row.colour ? (T[row.colour] || row.colour) : m.row;
      return name + " " + (T[m.value] || m.value);
    }).join(", ");
  }

  /* Draw a view {columns, rows:[{label, colour, cells:[cell|null]}], extras}.
   * opts.legal: Map "ROW@COL" -> [mark texts]; opts.chosen: Set of mark texts;
   * opts.onCell(cell, key); opts.edit: cells become inputs (check my paper).
   * A view with `ring` (The Choice) draws its first row as a ring of spaces, clockwise from
   * the top, around the other rows, as on the paper sheet. */
  function cellNode(cell, opts, style) {
    const key = cell.row + "@" + cell.col;
    const cls = ["cell"];
    if (cell.colour) cls.push("c-" + cell.colour);
    if (cell.shape === "pentagon") cls.push("pentagon");
    if (cell.span) cls.push("wide");
    if (cell.start) cls.push("start");
    if (cell.value === "X" || cell.value === "O") cls.push("own-" + cell.value);
    const legal = opts.legal && opts.legal.get(key);
    if (legal) cls.push("legal");
    if (opts.chosen && legal && legal.some(m => opts.chosen.has(m))) cls.push("chosen");
    if (opts.focus === key) cls.push("chosen");
    if (cell.value === "x") cls.push("crossed");
    const shown = cell.value === null || cell.value === undefined ? "" :
      (cell.value === "x" ? "✗" : faceText(cell.value));
    const kids = [];
    if (cell.printed && !(cell.start && cell.value)) kids.push(el("span", { class: "printed" + (!opts.edit && (cell.value === null || cell.value === undefined) ? " big" : "") }, faceText(cell.printed)));
    if (cell.order) kids.push(el("span", { class: "order" }, cell.order));
    if (opts.edit) {
      kids.push(el("input", { value: cell.value === null ? "" : cell.value,
        "data-key": key, "aria-label": key, inputmode: "numeric", autocomplete: "off",
        oninput: opts.onInput }));
    } else kids.push(shown);
    const name = key + (cell.colour ? " " + (T[cell.colour] || cell.colour) : "");
    return el(opts.onCell ? "button" : "div", {
      class: cls.join(" "), "data-key": key, type: opts.onCell ? "button" : null, style,
      "aria-label": name + (shown !== "" ? " = " + cell.value : ""),
      onclick: opts.onCell ? () => opts.onCell(cell, key) : null }, kids);
  }

  /* `numbers`: the column numbers to write above the grid (a sheet drawn in two halves) */
  function gridOf(rows, columns, opts, labels, numbers) {
    const grid = el("div", { class: "sheet" + (labels ? "" : " inner"), style: "--cols:" + columns, role: "grid" });
    const first = labels ? 2 : 1;
    const top = numbers ? 1 : 0;
    (numbers || []).forEach((n, i) => grid.append(el("div", { class: "lbl colno", style: "grid-row:1;grid-column:" + (i + first) }, n)));
    rows.forEach((row, r) => {
      if (labels) grid.append(el("div", { class: "lbl", style: "grid-row:" + (r + 1 + top) + ";grid-column:1" }, row.label));
      row.cells.forEach((cell, i) => {
        const at = "grid-row:" + (r + 1 + top) + ";grid-column:" + ((cell && cell.x) ? cell.x + first - 1 : i + first) +
          (cell && cell.span ? " / span " + cell.span : "");
        if (!cell) { grid.append(el("div", { class: "cell gap", style: at, "aria-hidden": "true" })); return; }
        grid.append(cellNode(cell, opts, at));
      });
    });
    return grid;
  }

  function ringOf(view, opts) {
    const spaces = view.rows[0].cells;
    const n = spaces.length;
    const size = 12.5;                       // a space's side, % of the ring's width
    const radius = 50 - size / 2 - 0.5;      // centres of the spaces, % from the middle
    const box = el("div", { class: "ring-sheet", role: "group" });
    spaces.forEach((cell, i) => {
      const a = 2 * Math.PI * i / n - Math.PI / 2;     // clockwise from the top
      const x = 50 + radius * Math.cos(a) - size / 2, y = 50 + radius * Math.sin(a) - size / 2;
      box.append(cellNode(cell, opts, "left:" + x.toFixed(2) + "%;top:" + y.toFixed(2) +
        "%;width:" + size + "%;height:" + size + "%"));
    });
    box.append(el("div", { class: "ring-middle" }, gridOf(view.rows.slice(1), view.columns, opts, false)));
    return box;
  }

  /* A sheet to tap or type on whose fields would be under a finger's 44 px (Qwinto's 12 columns
   * on a phone: 25 px) is drawn in two halves, one above the other, each with its column numbers. */
  const TAP = 44;
  function halves(view, opts) {
    if (view.ring || !(opts.onCell || opts.edit) || view.rows.some(r => r.cells.some(c => c && c.x))) return null;
    const room = Math.min(window.innerWidth, document.documentElement.clientWidth) - 40;
    if (room / view.columns >= TAP) return null;
    const half = Math.ceil(view.columns / 2);
    return [[0, half], [half, view.columns]].map(([a, b]) => gridOf(
      view.rows.map(r => Object.assign({}, r, { cells: r.cells.slice(a, b) })), b - a, opts, true,
      Array.from({ length: b - a }, (_, i) => a + i)));     // numbered as the engine's sentences number them
  }
  function drawSheet(view, opts) {
    opts = opts || {};
    const split = halves(view, opts);
    // `numbered`: the sheet's words name its columns (Knister's "column 0"): their numbers above
    const numbers = view.numbered ? Array.from({ length: view.columns }, (_, i) => i) : undefined;
    const grid = view.ring ? ringOf(view, opts) : split ? el("div", { class: "halves" }, split) : gridOf(view.rows, view.columns, opts, true, numbers);
    const wrap = el("div", {}, grid);
    if (view.caption) wrap.append(el("p", { class: "note caption" }, view.caption));
    for (const ex of view.extras || []) {
      const label = T[ex.key] || ex.label;
      if (opts.edit) {
        wrap.append(el("label", { class: "extras" }, label, ex.options ?
          // one of a few (Kuh Vadis: whose move it is)
          el("select", { "data-extra": ex.key, onchange: opts.onInput },
            ex.options.map(o => el("option", { value: o, selected: o === ex.value }, T[ex.key + "_" + o] || o))) :
          el("input", { type: "number", min: 0, max: ex.max, value: ex.value,
            "data-extra": ex.key, style: "width:5rem", oninput: opts.onInput })));
      } else if (!ex.options) {       // a chosen one is the caption
        const boxes = [];
        for (let i = 0; i < ex.max; i++) boxes.push(el("span", { class: "box" + (i < ex.value ? " on" : "") }, i < ex.value ? (ex.points === "" ? "✗" : ex.points) : ""));
        wrap.append(el("div", { class: "extras" }, label + ":", boxes));
      }
    }
    return wrap;
  }

  function scoreTable(score) {
    return el("table", { class: "score" },
      score.lines.map(l => el("tr", {}, el("td", {}, l.label, l.detail ? el("div", { class: "note" }, l.detail) : null),
        el("td", { class: "pts" }, l.points))),
      el("tr", { class: "total" }, el("td", {}, T.total), el("td", { class: "pts" }, score.total)));
  }

  function specialLabel(kind) { return T[kind] || kind; }

  // ---- live updates ----------------------------------------------------------------------
  // onPresence(seats): the seats with a page open now (on any server process), from the
  // stream's hello and each "presence" event
  function listen(code, onChange, onPresence) {
    const live = $("#live");
    let timer = null;
    const es = new EventSource("/api/tables/" + code + "/events");
    const kick = () => { clearTimeout(timer); timer = setTimeout(onChange, 30); };
    const presence = ev => { if (onPresence) onPresence(JSON.parse(ev.data).connected || []); };
    es.addEventListener("hello", ev => { if (live) { live.classList.add("on"); live.textContent = T.live; } presence(ev); kick(); });
    es.addEventListener("presence", presence);
    es.addEventListener("action", kick);
    es.addEventListener("joined", kick);
    es.addEventListener("reading", ev => { if (window.onReading) window.onReading(JSON.parse(ev.data)); });
    es.onerror = () => { if (live) { live.classList.remove("on"); live.textContent = T.offline; } };
    return es;
  }

  // ---- roll entry (tap the dice; the camera fills it too) --------------------------------
  function rollEntry(box, state, code, refresh) {
    const spec = state.game.dice;
    const me = state.me;
    box.classList.toggle("hidden", !me.can_roll || state.is_over);
    if (!me.can_roll || state.is_over) return;
    box.innerHTML = "";
    const picked = window.__picked || (window.__picked = []);
    const chosen = el("div", { class: "dice", id: "picked" });
    const msg = el("p", { class: "error", role: "alert" });
    const coloured = spec.colours.some(c => c.colour);
    // a die read with its confidence, kept together (they were split when the row wrapped); a die
    // whose colour the reader was not sure of shows "?" and is given its colour with a pad tap
    function seenDie(d, opts) {
      const unsure = coloured && !d.colour;
      const node = dieNode(unsure ? { colour: null, face: d.face } : d, opts);
      if (unsure) { node.classList.add("unsure"); node.prepend(el("span", { class: "q" }, "?")); }
      return el("span", { class: "seen" }, node,
        d.confidence !== undefined ? el("span", { class: "conf" }, Math.round(d.confidence * 100) + "%") : null);
    }
    const seen = el("div", { id: "seen-box" });
    const why = el("p", { class: "note", id: "roll-why", role: "status" });
    const count = spec.min_dice === spec.max_dice ? String(spec.max_dice) : spec.min_dice + "-" + spec.max_dice;
    const rolls = T.game_rolls.replace("{game}", state.game.title).replace("{n}", count);
    function redraw() {
      chosen.innerHTML = "";
      picked.forEach((d, i) => chosen.append(seenDie(d, { picked: true, onclick: () => { picked.splice(i, 1); redraw(); } })));
      // more dice seen than the game rolls: the player taps the ones that were rolled
      seen.replaceChildren(...(reading ? [el("p", { class: "hint" }, rolls + "; " +
        T.seen_too_many.replace("{seen}", reading.length).replace("{n}", count)),
        el("div", { class: "dice" }, reading.map(d => seenDie(d, { picked: picked.includes(d), onclick: () => {
          const i = picked.indexOf(d);
          if (i >= 0) picked.splice(i, 1); else if (picked.length < spec.max_dice) picked.push(d);
          redraw();
        } })))] : []));
      const unsure = picked.filter(d => coloured && !d.colour).length;
      const wrongCount = picked.length < spec.min_dice || picked.length > spec.max_dice;
      sendBtn.disabled = sending || wrongCount || unsure > 0;
      correctBtn.disabled = sendBtn.disabled;
      // why the roll cannot be sent yet, in words
      why.textContent = unsure ? T.unsure_colour : wrongCount && picked.length ? rolls + ": " +
        T.chosen_count.replace("{k}", picked.length) : "";
    }
    let reading = null;   // the dice of a camera reading with more dice than the game rolls
    const pad = el("div", { class: "pad" });
    for (const c of spec.colours) {
      pad.append(el("div", { class: "padrow" },
        el("span", { class: "lbl" }, c.colour ? (T[c.colour] || c.colour) : ""),
        c.faces.map(f => dieNode({ colour: c.colour, face: f }, {
          unusual: c.usual && !c.usual.includes(f),
          onclick: () => {
            const i = picked.findIndex(d => d.colour === c.colour);
            // a die read without a sure colour takes the colour tapped (the one with this face first)
            const unsure = coloured ? picked.filter(d => !d.colour) : [];
            const open = unsure.find(d => d.face === f) || unsure[0];
            if (open && i < 0) picked[picked.indexOf(open)] = { colour: c.colour, face: f };
            else if (!spec.repeat_colours && i >= 0) picked[i] = { colour: c.colour, face: f };
            else if (picked.length < spec.max_dice) picked.push({ colour: c.colour, face: f });
            else { picked.shift(); picked.push({ colour: c.colour, face: f }); }
            redraw();
          } }))));
    }
    // one roll at a time: a double tap must not send the roll twice (it would spend the next attempt)
    let sending = false;
    async function send(type) {
      if (sending) return;
      sending = true; redraw();
      msg.textContent = "";
      try {
        await api("POST", "/api/tables/" + code + "/actions",
          { type, roll: picked.map(d => ({ colour: d.colour, face: d.face })) });
        picked.length = 0;
        refresh();
      } catch (e) { msg.textContent = e.message; }
      finally { sending = false; redraw(); }
    }
    const again = state.may_reroll;
    const sendBtn = el("button", { type: "button", id: "send-roll", onclick: () => send("roll") },
      again ? T.second_attempt : T.send_roll);
    const correctBtn = el("button", { type: "button", class: "secondary", id: "correct-roll",
      onclick: () => send("correct") }, T.correct_roll);
    // the roller has finished rolling: the others' answers open (writing on the roll keeps it too)
    const keeps = state.still_rolling && state.game.others_answer;
    const keepBtn = el("button", { type: "button", id: "keep-roll", onclick: async () => {
      msg.textContent = "";
      try { await api("POST", "/api/tables/" + code + "/actions", { type: "keep" }); refresh(); }
      catch (e) { msg.textContent = e.message; }
    } }, T.keep_roll);
    const canCorrect = state.roll && !state.turn_complete && !state.players.some(p => p.answered);
    // a second attempt rolls the dice of the first again: say which
    const rerolled = again && state.roll ? state.roll.filter(d => d.colour).map(d => T[d.colour] || d.colour) : [];
    // no new roll now (the others answer the roll): the pad only for a correction, when asked for
    const waiting = state.roll && !state.turn_complete && !again;
    if (waiting && !canCorrect) { box.classList.add("hidden"); return; }
    if (waiting && box.dataset.correcting !== String(state.seq)) {
      box.append(el("h2", {}, T.enter_roll), el("p", { class: "note", id: "roll-waiting" }, T.roll_waiting),
        el("div", { class: "actions" }, el("button", { type: "button", class: "secondary", id: "open-correction",
          onclick: () => { box.dataset.correcting = String(state.seq); rollEntry(box, state, code, refresh); } }, T.correct_roll + " …")));
      window.fillRoll = dice => { box.dataset.correcting = String(state.seq); rollEntry(box, state, code, refresh); window.fillRoll(dice); };
      return;
    }
    // Element.append writes a null as the text "null": every optional part goes through el()
    const unusual = spec.colours.some(c => c.usual && c.faces.some(f => !c.usual.includes(f)));
    box.append(el("h2", {}, T.enter_roll), el("p", { class: "note" }, T.tap_dice),
      el("p", { class: "note", id: "unusual-faces", hidden: !unusual }, T.unusual_faces),
      el("p", { class: "note", id: "reroll-hint", hidden: !rerolled.length }, T.reroll_same + ": " + rerolled.join(", ")),
      el("div", {}, keeps ? [el("p", { class: "note", id: "keep-hint" }, T.keep_hint),
        el("div", { class: "actions" }, keepBtn)] : null),
      seen, pad, chosen, why,
      // the roll's attempts are spent (or answers are written): only a correction, no new roll
      el("div", { class: "actions" }, state.roll && !state.turn_complete && !again ? null : sendBtn, canCorrect ? correctBtn : null,
        el("button", { type: "button", class: "secondary", onclick: () => { picked.length = 0; reading = null; redraw(); } }, T.clear)),
      msg);
    redraw();
    window.fillRoll = dice => {
      picked.length = 0;
      reading = dice.length > spec.max_dice ? dice : null;
      if (!reading) dice.forEach(d => picked.push(d));
      redraw();
    };
  }

  function statusBlock(state) {
    const turn = $("#turn"), roll = $("#roll");
    if ($("#title")) $("#title").textContent = state.game.title;
    const roller = state.players[state.roller].name;
    const next = state.players[state.next_roller].name;
    turn.innerHTML = "";
    if (state.is_over) turn.append(el("strong", {}, T.game_over));
    else if (!state.roll || state.turn_complete) turn.append(el("span", {}, next + " " + T.to_roll));
    else turn.append(el("span", {}, T.turn_of + ": " + roller + " · " + T.attempt + " " +
      state.attempts.length + "/" + state.game.max_attempts));
    roll.innerHTML = "";
    if (!state.roll) roll.append(el("p", { class: "note" }, T.no_roll));
    else if (state.still_rolling && state.game.others_answer) {
      // the roller may still roll again: the dice are shown, nobody else writes yet
      roll.append(el("div", { class: "rolling" }, diceRow(state.roll)),
        el("p", { class: "note", id: "still-rolling" }, roller + " " + T.still_rolling));
    } else {
      roll.append(diceRow(state.roll));
      if (state.pending.length && !state.is_over)
        roll.append(el("p", { class: "note", id: "pending" }, T.waiting_for + ": " +
          state.pending.map(s => state.players[s].name).join(", ")));
    }
  }

  // ---- a seat for this device: sit down, or take a joined seat back with the host's code -------
  const fill = (text, name) => text.split("{name}").join(name);
  /* `box` gets the free seats to sit down at, and the joined ones to take back with the rejoin
   * code the host shows (a lost phone, a private tab): a device without a seat is never left
   * with nothing to do and no word why. A link `?rejoin=SEAT.CODE` (the host's QR) fills it in. */
  function seatChooser(box, state, code, after) {
    box.innerHTML = "";
    const free = state.players.filter(p => !p.claimed), taken = state.players.filter(p => p.claimed);
    const msg = el("p", { class: "error", role: "alert" });
    const link = /^(\d+)\.([A-Za-z0-9]+)$/.exec(new URLSearchParams(location.search).get("rejoin") || "");
    let form = null;
    function askCode(p, key) {
      if (form) form.remove();
      const input = el("input", { id: "rejoin-key", value: key || "", autocomplete: "off", autocapitalize: "characters",
        maxlength: 8, "aria-label": T.rejoin_code + " " + p.name, placeholder: T.rejoin_code });
      form = el("form", { class: "row", id: "rejoin-form", "data-seat": p.seat, onsubmit: async e => {
        e.preventDefault();
        msg.textContent = "";
        try { await api("POST", "/api/tables/" + code + "/rejoin", { seat: p.seat, key: input.value.trim() }); after(); }
        catch (err) { msg.textContent = err.message; }
      } }, el("label", {}, T.rejoin_code + " · " + p.name, input), el("button", { type: "submit", id: "rejoin-send" }, T.rejoin_take));
      box.append(form, msg);
      if (!key) input.focus();
    }
    if (free.length) box.append(el("h2", {}, T.sit_as),
      el("div", { class: "actions" }, free.map(p => el("button", { type: "button", "data-seat": p.seat,
        onclick: async () => {
          try { await api("POST", "/api/tables/" + code + "/join", { seat: p.seat }); after(); }
          catch (e) { msg.textContent = e.message; box.append(msg); }
        } }, p.name))));
    else box.append(el("p", { class: "hint", id: "watch-only" }, T.watch_only));
    if (taken.length) box.append(el("p", { class: "note" }, T.rejoin_hint),
      el("div", { class: "actions" }, taken.map(p => el("button", { type: "button", class: "secondary", "data-rejoin": p.seat,
        onclick: () => askCode(p) }, p.name + " (" + T.joined + ")"))));
    const linked = link && state.players[+link[1]];
    if (linked && linked.claimed) askCode(linked, link[2]);
  }

  // ---- my sheet -------------------------------------------------------------------------
  function sheetPage() {
    const code = document.body.dataset.code;
    const wanted = document.body.dataset.seat;
    let state = null;
    const chosen = new Set();
    let lastSeq = -1;
    let focus = null;
    let built = [];

    async function refresh() {
      try { state = await api("GET", "/api/tables/" + code + (standIn !== null ? "?stand_in=" + standIn : "")); }
      catch (e) { $("#hint").textContent = e.message; return; }
      if (state.seq !== lastSeq) {
        // another player's action: the fields this player has chosen stay chosen while still legal
        const seat = seatShown(), opt = seat === null ? null : state.me.seats[String(seat)];
        const still = new Set(opt ? opt.marks : []);
        for (const m of [...chosen]) if (!still.has(m)) chosen.delete(m);
        focus = null;
        // an answer being built stays while its marks are still legal
        built = built.filter(m => still.has(m));
        asking = null;
      }
      lastSeq = state.seq;
      render();
    }

    // the host answers for a player who joined on their own device only after confirming it here
    let standIn = null;
    function askStandIn() {
      const me = state.me;
      if (!me.creator || wanted === "" || me.writes_for.includes(+wanted) || !state.players[+wanted] || standIn !== null) return false;
      const name = state.players[+wanted].name;
      $("#hint").innerHTML = "";
      $("#hint").append(el("span", { id: "stand-in-ask" }, fill(T.stand_in_confirm, name)),
        el("span", { class: "actions" },
          el("button", { type: "button", id: "stand-in-yes", onclick: () => { standIn = +wanted; refresh(); } }, T.answer_for + " " + name),
          el("a", { class: "button secondary", href: "/t/" + code + "/sheet" }, T.back_to_mine)));
      return true;
    }

    // the advisor's hints: a switch per player on this phone (off until turned on, then
    // remembered); the server gives hints only for the player's own seat
    const hintCache = new Map();
    const hintKey = seat => "hint:" + code + ":" + seat;
    function hintSwitch(seat) {
      const box = el("input", { type: "checkbox", id: "hint-switch" });
      box.checked = localStorage.getItem(hintKey(seat)) === "1";
      box.addEventListener("change", () => { localStorage.setItem(hintKey(seat), box.checked ? "1" : "0"); render(); });
      return el("label", { class: "hint-switch" }, box, " " + T.hint_switch);
    }
    async function showHints(seat, opt, box) {
      if (localStorage.getItem(hintKey(seat)) !== "1" || !opt.legal.length) return;
      const key = state.seq + ":" + seat;
      let advice = hintCache.get(key);
      if (!advice) {
        const r = await fetch("/api/tables/" + code + "/advice?seat=" + seat);
        if (!r.ok) return;
        advice = await r.json();
        hintCache.set(key, advice);
      }
      if (seatShown() !== seat || state.seq + ":" + seat !== key || !box.isConnected || !advice.options.length) return;
      const best = new Map();     // field -> the most expected points of a placement writing there
      for (const o of advice.options) for (const m of o.marks) {
        const p = parseMark(m); if (!p) continue;
        const k = p.row + "@" + p.col;
        if (!best.has(k) || best.get(k) < o.expected) best.set(k, o.expected);
      }
      const values = [...best.values()];
      const hi = Math.max(...values), lo = Math.min(...values);
      box.querySelectorAll(".cell.legal").forEach(c => {
        const v = best.get(c.dataset.key); if (v === undefined) return;
        const level = hi > lo ? (v - lo) / (hi - lo) : 1;
        c.classList.add(level > 0.66 ? "hint-high" : level > 0.33 ? "hint-mid" : "hint-low");
        c.title = T.hint_expected + ": " + v.toFixed(1);
      });
      const top = advice.options[0];
      for (const m of top.marks) {
        const p = parseMark(m); if (!p) continue;
        const c = box.querySelector(`.cell[data-key="${p.row}@${p.col}"]`);
        if (c) c.classList.add("hint-best");
      }
      box.append(el("p", { id: "advice", class: "note" }, T.hint_best + ": " +
        answerText(top.placement, state.players[seat].view) + " (" + top.expected.toFixed(1) + "): " + top.reason));
    }

    function seatShown() {
      const w = state.me.writes_for;
      if (standIn !== null && state.me.stand_in === standIn) return standIn;
      if (wanted !== "" && w.includes(+wanted)) return +wanted;
      if (state.me.seat !== null && state.me.seat !== undefined) return state.me.seat;
      return w.length ? w[0] : null;
    }

    function render() {
      statusBlock(state);
      document.body.dataset.seq = state.seq;
      document.body.dataset.over = state.is_over;
      const seat = seatShown();
      const who = $("#who");
      const clear = () => { $("#sheet").innerHTML = ""; $("#actions").innerHTML = ""; $("#score").innerHTML = ""; $("#seat-switch").innerHTML = ""; };
      if (askStandIn()) { who.textContent = T.my_sheet; clear(); return; }
      if (seat === null) {
        who.textContent = T.my_sheet;
        $("#hint").textContent = T.no_seat_here;
        clear();
        if (!$("#sheet").contains(document.activeElement)) seatChooser($("#sheet"), state, code, () => location.reload());
        return;
      }
      const player = state.players[seat];
      const opt = state.me.seats[String(seat)];
      who.textContent = T.sheet_of + " " + player.name + (player.role === "roller" && state.roll && !state.turn_complete ? " (" + T.roller + ")" : "");
      const sw = $("#seat-switch"); sw.innerHTML = "";
      if (seat === standIn) sw.append(el("p", { class: "note recon", id: "stand-in-note" }, fill(T.stand_in_active, player.name)));
      else if (state.me.writes_for.length > 1) {
        sw.append(el("div", { class: "actions" }, T.written_for_you + ":",
          state.me.writes_for.map(s => el("a", { href: "?seat=" + s, class: "badge" + (s === seat ? " turn" : "") }, state.players[s].name))));
      }
      const legal = new Map();
      for (const m of opt.marks) {
        const p = parseMark(m); if (!p) continue;
        const key = p.row + "@" + p.col;
        if (!legal.has(key)) legal.set(key, []);
        legal.get(key).push(m);
      }
      const reason = $("#reason");
      reason.textContent = "";
      const waiting = waitsForRoller(seat);
      $("#hint").textContent = legal.size ? T.legal_hint : opt.legal.length ? T.no_field_hint :
        (state.roll && player.answered ? T.answered + ": " + answerText(player.answer, player.view) :
          waiting ? waiting : T.not_your_turn);
      // The Choice: an answer is built on the drawn sheet, a space at a time, then the dice it uses
      const building = !!player.view && player.view.value === "marks-only" && opt.legal.length > 0;
      const listMode = !building && (!player.view || player.view.value === "marks-only" ||
        opt.legal.some(p => p.includes(">")) || [...legal.values()].some(ms => ms.length > 1) ||
        opt.marks.some(m => !parseMark(m)));
      const shownLegal = building ? builtLegal(opt) : legal;
      if (building && legal.size) $("#hint").textContent = T.choice_hint;
      const box = $("#sheet"); box.innerHTML = "";
      if (player.view) {
        box.append(drawSheet(player.view, { legal: shownLegal, chosen: building ? new Set(built) : chosen, focus,
          onCell: (cell, key) => building ? tapBuilt(seat, opt, cell, key) : tapCell(seat, opt, legal, cell, key, listMode) }));
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
      sw.append(hintSwitch(seat));
      showHints(seat, opt, box);
      const actions = $("#actions"); actions.innerHTML = "";
      if (building) actions.append(builtAnswer(seat, opt));
      if (listMode) {
        const shown = opt.legal.filter(p => !opt.specials.includes(p)).filter(p => !focus ||
          p.split(/[ >]+/).some(m => { const q = parseMark(m); return q && q.row + "@" + q.col === focus; }));
        actions.append(el("div", { class: "placements" }, shown.map(p =>
          el("button", { type: "button", class: "secondary", "data-placement": p, onclick: () => place(seat, p) }, answerText(p, player.view))),
          focus ? el("button", { type: "button", class: "secondary", id: "all-placements", onclick: () => { focus = null; render(); } }, "…") : null));
      }
      if (opt.multi && chosen.size) {
        const text = canonical([...chosen]);
        const ok = opt.legal.includes(text);
        actions.append(el("button", { type: "button", id: "enter-marks", disabled: !ok, onclick: () => place(seat, text) },
          T.enter_marks + " (" + chosen.size + ")"));
      }
      // no field takes the roll but the roller may roll again: that first (Kuh Vadis' 3 attempts)
      const rollAgain = !legal.size && !building && state.may_reroll && seat === state.roller && state.me.can_roll;
      if (rollAgain) {
        $("#hint").textContent = T.no_field_roll_again.replace("{i}", state.attempts.length + 1).replace("{n}", state.game.max_attempts);
        actions.append(el("button", { type: "button", id: "roll-again", onclick: () => {
          const entry = $("#roll-entry"); entry.scrollIntoView({ block: "start" });
          const first = entry.querySelector(".pad button"); if (first) first.focus();
        } }, T.roll_again));
      }
      // a special answer costs points or a turn (a failed attempt, a misthrow): away from the fields,
      // and a second tap confirms it; "Pass" costs nothing
      const specials = el("div", { class: "actions specials" });
      for (const kind of opt.specials) {
        const costly = kind !== "pass";
        const btn = el("button", { type: "button", class: costly && !rollAgain ? "danger" : "secondary", "data-special": kind,
          onclick: () => {
            if (!costly || btn.dataset.armed) { place(seat, kind); return; }
            btn.dataset.armed = "1"; btn.textContent = T.confirm_special + ": " + specialLabel(kind);
            setTimeout(() => { if (btn.isConnected) { delete btn.dataset.armed; btn.textContent = specialLabel(kind); } }, 5000);
          } }, specialLabel(kind));
        specials.append(btn);
      }
      if (opt.specials.length) actions.append(specials);
      if (opt.can_undo) actions.append(el("button", { type: "button", class: "secondary", id: "undo", onclick: () => act({ type: "undo", seat }) }, T.undo));
      if (opt.can_end_side) actions.append(el("button", { type: "button", class: "secondary", onclick: () => act({ type: "end_side", seat }) }, T.end_side));
      // The Choice: the side to start on, chosen before the first mark
      if (opt.sides && opt.sides.length) actions.append(el("div", { class: "actions", id: "start-side" }, T.start_on + ":",
        opt.sides.map(side => el("button", { type: "button", class: side === player.sheet.playing ? null : "secondary",
          "data-side": side, "aria-pressed": String(side === player.sheet.playing),
          onclick: () => act({ type: "side", seat, side }) }, T["side_" + side] || side))));
      const sc = $("#score"); sc.innerHTML = "";
      sc.append(el("h2", {}, T.score + ": " + player.score.total), scoreTable(player.score),
        el("p", { class: "note" + (player.layout.recon ? " recon" : "") }, T.layout + ": " + player.layout.name +
          (player.layout.recon ? " · " + T.recon : "")));
      rollEntry($("#roll-entry"), state, code, refresh);
    }

    // ---- an answer built on the drawn sheet (The Choice): tap a space, then the dice it uses ----
    // `built`: the marks tapped so far, in order (numbers in the order the line is drawn). Only
    // legal placements are ever offered: a tap narrows them to those holding the marks tapped.
    const marksOf = p => p.split(/[ >]+/).filter(Boolean);
    const keyOf = m => { const q = parseMark(m); return q ? q.row + "@" + q.col : m; };
    const numbersOf = ms => ms.filter(m => m[0] === "N");
    function candidates(opt) {
      const nums = numbersOf(built);
      return opt.legal.filter(p => !opt.specials.includes(p)).filter(p => {
        const ms = marksOf(p);
        return built.every(m => ms.includes(m)) && nums.every((m, i) => numbersOf(ms)[i] === m);
      });
    }
    // the legal placement that is what was tapped (with a misthrow mark when too few dice are used)
    const completed = opt => candidates(opt).find(p => marksOf(p).filter(m => m[0] !== "M").length === built.length) || null;
    function builtLegal(opt) {      // the spaces a tap may take next, and those taken
      const out = new Map();
      for (const p of candidates(opt)) for (const m of marksOf(p)) {
        if (m[0] === "M") continue;
        const k = keyOf(m);
        if (!out.has(k)) out.set(k, []);
        if (!out.get(k).includes(m)) out.get(k).push(m);
      }
      return out;
    }
    function dieWords(i) { const d = state.roll[i - 1]; return d ? (T[d.colour] || d.colour) + " " + d.face : String(i); }
    function markWords(m) {
      const q = parseMark(m);
      if (!q) return m;
      if (q.row === "M") return T.choice_misthrow;
      const using = (m.split("/")[1] || "").split("").map(Number).map(dieWords).join(" + ");
      return (q.row === "R" ? fill(T.choice_ring, T[q.value] || q.value) : fill(T.choice_number, q.value)) + " " + fill(T.choice_with, using);
    }
    // in words, the misthrow (when too few dice are used) last
    const placementWords = p => marksOf(p).sort((a, b) => (a[0] === "M") - (b[0] === "M")).map(markWords).join(", ");
    function tapBuilt(seat, opt, cell, key) {
      $("#reason").textContent = "";
      const at = built.findIndex(m => keyOf(m) === key);
      if (at >= 0) {            // tapped again: taken back (a number with the line drawn after it)
        const m = built[at];
        built = built.filter((x, i) => i < at || (x !== m && !(m[0] === "N" && x[0] === "N")));
        asking = null; render(); return;
      }
      const options = [...new Set(candidates(opt).flatMap(marksOf).filter(m => keyOf(m) === key))];
      if (!options.length) { tapCell(seat, opt, new Map(), cell, key, false); return; }
      if (options.length === 1) { built.push(options[0]); asking = null; }
      else asking = { key, options };        // which dice: asked below the sheet, in words
      render();
    }
    let asking = null;
    function builtAnswer(seat, opt) {
      const box = el("div", { class: "built", id: "built" });
      if (asking) box.append(el("p", { class: "hint" }, T.choice_which),
        el("div", { class: "actions" }, asking.options.map(m => el("button", { type: "button", class: "secondary", "data-mark": m,
          onclick: () => { built.push(m); asking = null; render(); } }, markWords(m)))));
      if (built.length) box.append(el("p", { id: "built-so-far" }, T.choice_chosen + ": " + built.map(markWords).join(", ")));
      const done = completed(opt);
      box.append(el("div", { class: "actions" },
        done ? el("button", { type: "button", id: "write-built", "data-placement": done, onclick: () => place(seat, done) },
          T.choice_write + ": " + placementWords(done)) : null,
        built.length || asking ? el("button", { type: "button", class: "secondary", id: "clear-built",
          onclick: () => { built = []; asking = null; render(); } }, T.clear) : null));
      return box;
    }

    // another player's dice still rolling: what this seat waits for, else null
    function waitsForRoller(seat) {
      if (!state.still_rolling || !state.game.others_answer || seat === state.roller) return null;
      return state.players[state.roller].name + " " + T.still_rolling + ": " + T.write_when_kept;
    }

    function canonical(marks) {
      const parsed = marks.map(parseMark);
      parsed.sort((a, b) => a.row < b.row ? -1 : a.row > b.row ? 1 : a.col - b.col);
      return parsed.map(p => p.text).join(" ");
    }

    function tapCell(seat, opt, legal, cell, key, listMode) {
      const reason = $("#reason");
      const marks = legal.get(key);
      if (!marks) {
        reason.textContent = cell.value !== null && cell.value !== undefined ? T.filled :
          (opt.reasons[key] || waitsForRoller(seat) || (state.roll ? T.not_your_turn : T.no_roll));
        // Qwinto: a number found wrong later is erased, its field crossed out (a second tap)
        if ((opt.erasable || []).includes(key))
          reason.append(" ", el("button", { type: "button", class: "danger", id: "erase",
            onclick: () => act({ type: "erase", seat, field: key }) }, T.erase + " " + cell.value));
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
      try { state = await api("POST", "/api/tables/" + code + "/actions", body); chosen.clear(); built = []; asking = null; lastSeq = state.seq; render(); }
      catch (e) { $("#reason").textContent = e.message; }
    }

    refresh();
    listen(code, refresh);
  }

  // ---- table view ------------------------------------------------------------------------
  function tablePage() {
    const code = document.body.dataset.code;
    let state = null;
    let connected = [];     // seats with a page open (listen's onPresence)
    async function refresh() {
      try { state = await api("GET", "/api/tables/" + code); } catch (e) { $("#turn").textContent = e.message; return; }
      await Promise.all(Object.keys(rejoinShown).map(showRejoin));
      render();
    }
    function render() {
      statusBlock(state);
      document.body.dataset.seq = state.seq;
      document.body.dataset.over = state.is_over;
      const link = $("#my-sheet-link");
      link.classList.toggle("hidden", !state.me.writes_for.length);
      const seats = $("#seats");
      // the creator without a seat at a full table (a laptop running it) needs no chooser, unless by a link
      const chooser = state.me.seat === null && (!state.me.creator || state.players.some(p => !p.claimed) ||
        /[?&]rejoin=/.test(location.search));
      seats.classList.toggle("hidden", !chooser);
      if (chooser && !seats.contains(document.activeElement)) seatChooser(seats, state, code, () => { location.href = "/t/" + code + "/sheet"; });
      const rank = $("#ranking"); rank.innerHTML = "";
      rank.classList.toggle("hidden", !state.is_over);
      // equal scores share a rank ("1. Anna 43, 1. Ben 43"): each line's number is its rank
      if (state.is_over) rank.append(el("h2", {}, T.ranking), el("ol", {}, state.standings.map(s => el("li", { value: s.rank }, s.player + " · " + s.total +
        (s.rating ? " · " + s.rating : "")))));     // a solo game: the rule book's rating
      const box = $("#sheets"); box.innerHTML = "";
      for (const p of state.players) {
        box.append(el("section", { class: "card", "data-player": p.seat },
          el("h2", {}, p.name, el("span", { class: "badge" }, p.score.total),
            p.seat === state.roller && state.roll && !state.turn_complete ? el("span", { class: "badge turn" }, T.roller) : null,
            p.answered ? el("span", { class: "badge ok" }, T.answered + ": " + answerText(p.answer, p.view)) : null,
            !p.claimed ? el("span", { class: "badge" }, T.not_joined) :
              connected.includes(p.seat) ? el("span", { class: "badge ok", "data-connected": p.seat }, T.connected) :
              el("span", { class: "badge", "data-away": p.seat }, T.away),
            state.me.seat === p.seat ? el("span", { class: "badge turn" }, T.you) : null),
          hostTools(p),
          p.view ? drawSheet(p.view, {}) : el("pre", { class: "json" }, JSON.stringify(p.sheet)),
          p.layout.recon ? el("p", { class: "note recon" }, p.layout.name + " · " + T.recon) : null));
      }
      rollEntry($("#roll-entry"), state, code, refresh);
      camera($("#camera-box"), state, code);
    }
    // the host's help for a joined player: a code to take the seat back on another device, and
    // answering for them (the sheet page asks to confirm) when they are away
    const rejoinShown = {};     // seat -> the code shown, asked again on each change (a used one is spent)
    async function showRejoin(seat) {
      try { rejoinShown[seat] = await api("GET", "/api/tables/" + code + "/seats/" + seat + "/rejoin"); }
      catch (e) { rejoinShown[seat] = { error: e.message }; }
    }
    function hostTools(p) {
      if (!state.me.creator || !p.claimed || p.seat === state.me.seat) return null;
      const out = el("div", { class: "host-tools" });
      const r = rejoinShown[p.seat];
      out.append(el("div", { class: "actions" },
        el("button", { type: "button", class: "secondary", "data-show-rejoin": p.seat, "aria-expanded": String(!!r), onclick: async () => {
          if (rejoinShown[p.seat]) delete rejoinShown[p.seat]; else await showRejoin(p.seat);
          render();
        } }, T.rejoin_for + " " + p.name),
        state.pending.includes(p.seat) ? el("a", { class: "button secondary", "data-answer-for": p.seat,
          href: "/t/" + code + "/sheet?seat=" + p.seat }, T.answer_for + " " + p.name) : null));
      if (r && r.error) out.append(el("p", { class: "error" }, r.error));
      else if (r) {
        const url = location.origin + r.url;
        out.append(el("figure", { class: "qr rejoin" },
          el("img", { src: "/t/" + code + "/qr.svg?rejoin=" + p.seat + "." + r.key, alt: "QR " + url, width: 160, height: 160 }),
          el("figcaption", {}, fill(T.rejoin_shown, p.name), el("br"), el("strong", { class: "code rejoin-key" }, r.key),
            el("br"), el("a", { href: url }, url))));
      }
      return out;
    }
    refresh();
    listen(code, refresh, seats => { connected = seats; if (state) render(); });
  }

  // ---- camera: phone rear camera posting JPEG frames ------------------------------------
  let cam = null;
  function camera(box, state, code) {
    if (!state.me.can_roll || state.is_over) { box.classList.add("hidden"); return; }
    box.classList.remove("hidden");
    if (box.dataset.ready) return;
    box.dataset.ready = "1";
    // no empty video box before the camera starts (an unstarted video is 150 px of nothing)
    const video = el("video", { playsinline: true, muted: true, autoplay: true, class: "hidden" });
    const canvas = el("canvas", { class: "overlay" });
    const status = el("p", { class: "note", id: "camera-status" });
    const startBtn = el("button", { type: "button", id: "start-camera" }, T.start_camera);
    const useBtn = el("button", { type: "button", class: "secondary hidden", id: "use-reading" }, T.use_reading);
    let lastReading = null, restingOn = false;
    box.append(el("h2", {}, T.camera), el("div", { class: "camera" }, video, canvas), status,
      el("div", { class: "actions" }, startBtn, useBtn));
    useBtn.onclick = () => { if (lastReading && window.fillRoll) window.fillRoll(lastReading.dice.map(d => ({ colour: d.colour, face: d.face, confidence: d.confidence }))); };
    // one picture at a time under the overlay: the phone's camera or the table camera's
    let serverImg = null, stopServerCam = () => {};
    startBtn.onclick = async () => {
      if (cam) { stop(); return; }
      stopServerCam();
      if (serverImg) serverImg.classList.add("hidden");
      video.classList.remove("hidden");
      if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) {
        // a plain HTTP page: the camera works at the server's HTTPS address (the same page there)
        const secure = document.body.dataset.secureUrl;
        video.classList.add("hidden");
        if (serverImg) serverImg.classList.remove("hidden");
        status.replaceChildren(...(secure ? [T.https_note + " ", el("a", { href: secure, id: "secure-link" }, secure), " ", T.cert_note] : [T.https_off]));
        return;
      }
      try {
        const stream = await navigator.mediaDevices.getUserMedia({ video: { facingMode: { ideal: "environment" }, width: { ideal: 640 }, height: { ideal: 480 } }, audio: false });
        video.srcObject = stream;
        cam = { stream, timer: setInterval(send, 400), busy: false };
        startBtn.textContent = T.stop_camera;
      } catch (e) { status.textContent = e.message; }
    };
    function stop() {
      clearInterval(cam.timer); cam.stream.getTracks().forEach(t => t.stop()); cam = null;
      startBtn.textContent = T.start_camera;
      canvas.getContext("2d").clearRect(0, 0, canvas.width, canvas.height);
      restingOn = false;
      video.classList.add("hidden");
      if (serverImg) serverImg.classList.remove("hidden");
    }
    const grab = document.createElement("canvas");
    async function send() {
      if (!cam || cam.busy || !video.videoWidth) return;
      cam.busy = true;
      grab.width = video.videoWidth; grab.height = video.videoHeight;
      grab.getContext("2d").drawImage(video, 0, 0);
      const blob = await new Promise(r => grab.toBlob(r, "image/jpeg", 0.8));
      try {
        const resp = await fetch("/api/tables/" + code + "/frame", { method: "POST", body: blob, headers: { "Content-Type": "image/jpeg" } });
        const data = await resp.json();
        if (resp.status === 503) { status.textContent = T.camera_unavailable; stop(); }
        else if (!resp.ok) status.textContent = data.error;
        else show(data);
      } catch (e) { status.textContent = e.message; }
      if (cam) cam.busy = false;
    }
    // the frame's dice lie where the settled reading's lay (a frame with no dice read says nothing)
    function sameDice(dice, reading) {
      if (!reading || !dice.length) return true;
      if (dice.length !== reading.dice.length) return false;
      const centre = b => [(b[0] + b[2]) / 2, (b[1] + b[3]) / 2, b[2] - b[0]];
      return dice.every(d => reading.dice.some(r => {
        const [x, y, w] = centre(d.box), [u, v] = centre(r.box);
        return Math.hypot(x - u, y - v) < w / 2;
      }));
    }
    function show(data) {
      // a settled roll stays shown, labelled, until something moves again: the frames after it
      // are the same dice lying still, not a new roll
      if (data.settled) { restingOn = true; lastReading = data; useBtn.classList.remove("hidden"); }
      else if (data.state === "moving" || data.state === "covered" || !sameDice(data.dice, lastReading)) restingOn = false;
      // still again where the settled roll lay: the tracker takes it for that roll (not a new one)
      else if (data.state === "reading" && data.dice.length && lastReading) restingOn = true;
      const drawn = restingOn && lastReading ? lastReading : data;
      canvas.width = data.width; canvas.height = data.height;
      const g = canvas.getContext("2d");
      g.clearRect(0, 0, canvas.width, canvas.height);
      g.lineWidth = 3; g.font = "bold 20px sans-serif";
      for (const d of drawn.dice) {
        const [x0, y0, x1, y1] = d.box;
        g.strokeStyle = restingOn ? "#1a7f37" : "#d4a106";
        g.strokeRect(x0, y0, x1 - x0, y1 - y0);
        // values are shown only once the dice have settled
        // a colour the reader was not sure of is not named: "?"
        const name = d.colour ? (T[d.colour] || d.colour) : state.game.dice.colours.some(c => c.colour) ? "?" : "";
        if (restingOn) { g.fillStyle = "#fff"; g.fillText(name + " " + d.face + " " + Math.round(d.confidence * 100) + "%", x0, Math.max(18, y0 - 4)); }
      }
      status.textContent = restingOn ? T.settled : data.state === "moving" ? T.camera_moving : data.state === "covered" ? T.camera_covered : T.settling;
    }
    window.onReading = data => { if (!cam && !serverCam) show(data); };
    // the server's own camera (or the demo: pictures of this table's game, each kept until the
    // next is asked for), read by the server at 2 frames/s
    let serverCam = null;
    const describe = info => info.pictures ? T.demo_picture.replace("{i}", info.picture).replace("{n}", info.pictures) : info.source;
    api("GET", "/api/camera?table=" + code).then(info => {
      if (!info.source) return;
      const img = el("img", { src: "/api/camera.mjpg?table=" + code, alt: describe(info), id: "server-camera" });
      serverImg = img;
      stopServerCam = () => { if (serverCam) { clearInterval(serverCam); serverCam = null; btn.classList.add("secondary"); } };
      const btn = el("button", { type: "button", class: "secondary", id: "read-server-camera" }, T.server_camera);
      box.querySelector(".camera").prepend(img);
      const caption = el("p", { class: "note", id: "camera-source" }, describe(info));
      box.querySelector(".camera").after(caption);
      video.classList.add("hidden");
      box.querySelector(".actions").append(btn);
      if (info.pictures > 1) box.querySelector(".actions").append(el("button", { type: "button", class: "secondary", id: "next-picture",
        onclick: async () => {
          try {
            const next = await api("POST", "/api/tables/" + code + "/camera/next");
            lastReading = null; restingOn = false; useBtn.classList.add("hidden");
            canvas.getContext("2d").clearRect(0, 0, canvas.width, canvas.height);
            img.alt = caption.textContent = describe(next);
            status.textContent = "";
          } catch (e) { status.textContent = e.message; }
        } }, T.next_picture));
      btn.onclick = () => {
        if (serverCam) { stopServerCam(); return; }
        if (cam) stop();
        btn.classList.remove("secondary");
        serverCam = setInterval(async () => {
          try { show(await api("POST", "/api/tables/" + code + "/camera")); }
          catch (e) { status.textContent = e.status === 503 ? T.camera_unavailable : e.message; if (e.status === 503) { clearInterval(serverCam); serverCam = null; } }
        }, 500);
      };
    }).catch(() => {});
  }

  // ---- start page --------------------------------------------------------------------------
  function indexPage() {
    const games = JSON.parse(document.body.dataset.games);
    const gameSel = $("#game"), layoutSel = $("#layout"), list = $("#players");
    let uploaded = null;
    function info() { return games.find(g => g.name === gameSel.value); }
    function addPlayer(name) {
      const n = list.children.length + 1;
      list.append(el("li", {}, el("div", { class: "row" },
        el("input", { name: "player", value: name || "", placeholder: T.player_n + " " + n, "aria-label": T.player_n + " " + n, required: true, maxlength: 40,
          oninput: e => blankName(e.target), oninvalid: e => blankName(e.target) }),
        el("button", { type: "button", class: "secondary", "aria-label": T.remove, onclick: e => { if (list.children.length > 1) e.target.closest("li").remove(); } }, "×"))));
    }
    // a name of only spaces is refused at its field (it was dropped, and the table had a player less)
    function blankName(input) {
      const blank = input.value !== "" && input.value.trim() === "";
      input.setCustomValidity(blank ? T.name_blank : "");
      const li = input.closest("li"), shown = li.querySelector(".field-error");
      if (blank && !shown) li.append(el("p", { class: "error field-error", role: "alert" }, T.name_blank));
      if (!blank && shown) shown.remove();
    }
    function layouts() {
      const g = info();
      layoutSel.innerHTML = "";
      if (g.seat_layouts) layoutSel.append(el("option", { value: "" }, T.layout_per_seat));
      for (const l of g.layouts) layoutSel.append(el("option", { value: l.name, selected: !g.seat_layouts && l.name === g.default_layout }, l.name + (l.recon ? " (RECON)" : "")));
      if (uploaded) layoutSel.append(el("option", { value: "uploaded", selected: true }, uploaded.name + " (" + T.uploaded + ")"));
      note();
    }
    function note() {
      const g = info();
      const l = g.layouts.find(x => x.name === layoutSel.value);
      const n = $("#layout-note");
      const recon = l ? l.recon : (layoutSel.value === "" && g.layouts.some(x => x.recon));
      n.textContent = (recon ? T.recon + ". " : "") + (l ? l.note : "");
      n.className = "note" + (recon ? " recon" : "");
    }
    gameSel.onchange = () => { uploaded = null; $("#layout-file").value = ""; layouts(); firstOptions(); };
    layoutSel.onchange = note;
    $("#layout-file").onchange = async e => {
      const f = e.target.files[0];
      $("#upload-error").textContent = "";
      if (!f) return;
      try { uploaded = JSON.parse(await f.text()); layouts(); }
      catch (err) { $("#upload-error").textContent = err.message; uploaded = null; }
    };
    $("#add-player").onclick = () => addPlayer("");
    // who begins: drawn (Kuh Vadis: the coin toss) or one of the players named above
    const firstSel = $("#first");
    const names = () => [...list.querySelectorAll("input")].map(i => i.value.trim()).filter(Boolean);
    function firstOptions() {
      const was = firstSel.value || "0";
      firstSel.replaceChildren(el("option", { value: "random" }, gameSel.value === "kuh_vadis" ? T.coin_toss : T.first_random),
        ...names().map((p, i) => el("option", { value: String(i) }, p)));
      firstSel.value = [...firstSel.options].some(o => o.value === was) ? was : "0";
    }
    list.addEventListener("input", firstOptions);
    list.addEventListener("click", () => setTimeout(firstOptions));
    $("#add-player").addEventListener("click", firstOptions);
    let creating = false;
    $("#create").onsubmit = async e => {
      e.preventDefault();
      if (creating) return;  // a double tap makes one table
      creating = true; $("#create-button").disabled = true;
      const players = [...list.querySelectorAll("input")].map(i => i.value.trim());
      const body = { game: gameSel.value, players, claim: $("#claim").checked ? 0 : null,
        first: firstSel.value === "random" ? "random" : +firstSel.value };
      if (layoutSel.value) body.layout = layoutSel.value;
      if (uploaded) body.uploaded = uploaded;
      $("#create-error").textContent = "";
      try {
        const r = await api("POST", "/api/tables", body);
        location.href = "/t/" + r.code + (body.claim === 0 ? "/sheet" : "");
      } catch (err) { $("#create-error").textContent = err.message; creating = false; $("#create-button").disabled = false; }
    };
    addPlayer(""); addPlayer("");
    layouts(); firstOptions();
  }

  // ---- check my paper ------------------------------------------------------------------------
  function checkPage() {
    const games = JSON.parse(document.body.dataset.games);
    const gameSel = $("#game"), layoutSel = $("#layout");
    let timer = null, view = null;
    function layouts() {
      const g = games.find(x => x.name === gameSel.value);
      layoutSel.innerHTML = "";
      for (const l of g.layouts) layoutSel.append(el("option", { value: l.name, selected: l.name === g.default_layout }, l.name + (l.recon ? " (RECON)" : "")));
      start();
    }
    async function start() {
      const g = games.find(x => x.name === gameSel.value);
      const l = g.layouts.find(x => x.name === layoutSel.value);
      $("#layout-note").textContent = l && l.recon ? T.recon : "";
      $("#layout-note").className = "note" + (l && l.recon ? " recon" : "");
      try {
        const r = await api("POST", "/api/check", { game: gameSel.value, layout: layoutSel.value, cells: {} });
        view = r.view; draw(); show(r);
      } catch (e) {
        view = null; $("#sheet").innerHTML = ""; $("#json-box").open = true;
        try {
          const r = await api("POST", "/api/check", { game: gameSel.value, layout: layoutSel.value, sheet: null });
          show(r);
        } catch (e2) { $("#result").textContent = e.message; }
      }
    }
    function draw() {
      const box = $("#sheet"); box.innerHTML = "";
      box.append(drawSheet(view, { edit: true, onInput: () => { clearTimeout(timer); timer = setTimeout(check, 250); } }));
    }
    async function check() {
      const cells = {}, extras = {};
      document.querySelectorAll("#sheet input[data-key]").forEach(i => { if (i.value.trim()) cells[i.dataset.key] = i.value.trim(); });
      document.querySelectorAll("#sheet [data-extra]").forEach(i => { extras[i.dataset.extra] = i.tagName === "SELECT" ? i.value : +i.value || 0; });
      try { show(await api("POST", "/api/check", { game: gameSel.value, layout: layoutSel.value, cells, extras })); }
      catch (e) { showError(e.message, e.data && e.data.field); }
    }
    // one state at a time: a refused sheet (a letter in a number cell) is not checked, and says
    // why at the field it is about; the result card says so instead of the last good result
    function errorBox() {
      let e = $("#check-error");
      if (!e) { e = el("p", { class: "error", id: "check-error", role: "alert" }); $("#sheet").append(e); }
      return e;
    }
    function markField(field) {
      document.querySelectorAll("#sheet .cell.bad").forEach(c => { c.classList.remove("bad"); c.querySelector("input").removeAttribute("aria-invalid"); });
      const cell = field && $('#sheet .cell[data-key="' + field + '"]');
      if (!cell) return null;
      cell.classList.add("bad");
      cell.querySelector("input").setAttribute("aria-invalid", "true");
      return cell;
    }
    function showError(message, field) {
      const cell = markField(field);
      const e = errorBox();
      e.textContent = message;
      e.classList.toggle("at-field", !!cell);
      if (cell) {   // the message right under the field, not under the whole sheet
        const box = $("#sheet").getBoundingClientRect(), c = cell.getBoundingClientRect();
        e.style.top = (c.bottom - box.top + 4) + "px";
        e.style.left = Math.max(0, Math.min(c.left - box.left, box.width - 240)) + "px";
      }
      $("#result").replaceChildren(el("h2", {}, T.problems), el("p", { class: "error", id: "not-checked" }, T.not_checked));
    }
    function show(r) {
      errorBox().textContent = "";
      errorBox().classList.remove("at-field");
      markField(null);
      const box = $("#result"); box.innerHTML = "";
      box.append(el("h2", {}, T.problems),
        r.problems.length ? el("ul", { class: "problems" }, r.problems.map(p => el("li", {}, p))) : el("p", { class: "ok" }, T.no_problems),
        el("h2", {}, T.score + ": " + r.score.total), scoreTable(r.score));
      $("#json").value = JSON.stringify(r.sheet);
    }
    $("#check-json").onclick = async () => {
      let sheet;
      try { sheet = JSON.parse($("#json").value); } catch (e) { showError(e.message); return; }
      try { const r = await api("POST", "/api/check", { game: gameSel.value, layout: layoutSel.value, sheet }); show(r); if (r.view) { view = r.view; draw(); } }
      catch (e) { showError(e.message); }
    };
    gameSel.onchange = layouts;
    layoutSel.onchange = start;
    layouts();
  }


  // ---- teach your dice: a photo per die, a tap for its face ---------------------------------
  function teachPage() {
    const code = document.body.dataset.code;
    const status = $("#teach-status");
    const say = (text, ok) => { status.textContent = text; status.classList.toggle("ok", !!ok); };
    let face = null, colour = null, state = null;
    function pickers(box, values, counts, need, current, pick, isColour) {
      box.replaceChildren(...values.map(v => {
        const n = counts[String(v)] || 0;
        const label = isColour ? (T[v] || v) : faceText(v);
        return el("button", { type: "button", role: "radio", "aria-checked": String(String(v) === String(current)),
          class: "teach-pick" + (isColour ? " c-" + v : "") + (String(v) === String(current) ? " picked" : "") + (n >= need ? " done" : ""),
          "data-value": String(v), onclick: () => pick(v) }, label, el("small", {}, " " + n + "/" + need));
      }));
    }
    function draw() {
      pickers($("#teach-faces"), state.faces, state.counts, state.per_face, face, v => { face = v; draw(); }, false);
      if (state.colours) {
        $("#teach-colour-box").classList.remove("hidden");
        pickers($("#teach-colours"), state.colours, state.colour_counts, state.per_colour, colour, v => { colour = v; draw(); }, true);
      }
      // what is missing, from the counts (the server's sentence is English)
      const short = (counts, need, label) => Object.entries(counts || {}).filter(([, n]) => n < need)
        .map(([v, n]) => (need - n) + "× " + label(v));
      $("#teach-progress").textContent = state.ready ? T.teach_ready : T.teach_missing + ": " +
        short(state.counts, state.per_face, v => T[v] || v)
          .concat(short(state.colour_counts, state.per_colour, v => T[v] || v)).join(", ");
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
        el("img", { src: src || "/api/tables/" + code + "/teach/" + e.seq + ".jpg", alt: String(e.face), width: 72, height: 72 }),
        el("figcaption", {}, (e.colour ? (T[e.colour] || e.colour) + " " : ""), faceText(e.face),
          el("button", { type: "button", class: "secondary take-back", "aria-label": T.undo_photo,
            onclick: () => withdraw(e.seq) }, "×")));
    }
    async function withdraw(seq) {
      try {
        state = await api("POST", "/api/tables/" + code + "/teach/withdraw", seq === undefined ? {} : { seq });
        const fig = $('#taught [data-seq="' + state.withdrawn + '"]');
        if (fig) fig.remove();
        say(""); draw();
      } catch (e) { say(e.message); }
    }
    // a phone photo is several MB (12 MP and more): the die fills the middle of it, and the reader
    // works on 640 px, so it is sent at 1600 px at most (under the server's 2 MiB upload limit)
    async function shrink(file) {
      try {
        const bmp = await createImageBitmap(file, { imageOrientation: "from-image" });
        const f = Math.min(1, 1600 / Math.max(bmp.width, bmp.height));
        if (f === 1 && file.size < 1500000) return file;
        const c = document.createElement("canvas");
        c.width = Math.round(bmp.width * f); c.height = Math.round(bmp.height * f);
        c.getContext("2d").drawImage(bmp, 0, 0, c.width, c.height);
        return await new Promise(r => c.toBlob(r, "image/jpeg", 0.9));
      } catch (e) { return file; }   // not decodable here: the server says why
    }
    async function load() {
      state = await api("GET", "/api/tables/" + code + "/teach");
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
      const resp = await fetch("/api/tables/" + code + "/teach", { method: "POST", body: form, credentials: "same-origin" });
      const data = await resp.json().catch(() => ({ error: resp.statusText }));
      if (!resp.ok) { say(data.error); return; }
      state = data;
      const t = data.taught;
      say(T.teach_saved, true);
      $("#taught").prepend(figure(t, t.thumbnail));
      draw();
    };
    $("#undo-photo").onclick = () => withdraw();
    // ---- the body colours (Qwinto, twenty one): one photo of all dice, a colour per die ----
    const colourStatus = $("#colour-status");
    const sayColour = (text, ok, hint) => {
      colourStatus.textContent = text; colourStatus.classList.toggle("ok", !!ok); colourStatus.classList.toggle("hint", !!hint);
    };
    function drawColours() {
      $("#colour-card").classList.toggle("hidden", !state.body_colours);
      if (!state.body_colours) return;
      const photo = state.colour_photo;
      $("#colour-dice").replaceChildren(...(photo ? photo.dice : []).map((d, i) => {
        const pick = el("select", { class: "colour-of", "data-die": String(i), "aria-label": T.teach_colour },
          ...state.body_colours.map(c => el("option", { value: c }, T[c] || c)), el("option", { value: "" }, T.not_a_die));
        pick.value = d.colour || "";
        pick.onchange = () => { $("#use-colours").classList.remove("hidden"); sayColour(T.colours_check, false, true); };
        return el("figure", { class: "colour-die" },
          el("img", { src: "/api/tables/" + code + "/teach/" + photo.seq + "/" + i + ".jpg", alt: d.colour || "", width: 72, height: 72 }),
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
      const resp = await fetch("/api/tables/" + code + "/teach/colours", { method: "POST", body: form, credentials: "same-origin" });
      const data = await resp.json().catch(() => ({ error: resp.statusText }));
      if (!resp.ok) { sayColour(data.error); return; }
      state = data; sayColour(T.colours_check, false, true); drawColours();
    };
    async function useColours(photo) {
      try {
        sayColour("…");
        const names = photo === null ? undefined : [...document.querySelectorAll("#colour-dice .colour-of")].map(s => s.value || null);
        state = await api("POST", "/api/tables/" + code + "/teach/colours/use", { photo, names });
        sayColour(state.colours_in_use ? T.colours_in_use : "", true); drawColours();
      } catch (e) { sayColour(e.message); }
    }
    $("#use-colours").onclick = () => useColours(state.colour_photo.seq);
    $("#stop-colours").onclick = () => useColours(null);
    $("#use-taught").onclick = async () => {
      try {
        say("…");
        state = await api("POST", "/api/tables/" + code + "/teach/use", { use: !state.in_use });
        say(state.in_use ? T.taught_in_use : "", true); draw();
      } catch (e) { say(e.message); }
    };
    load().catch(e => { say(e.message); });
  }

  const pages = { index: indexPage, table: tablePage, sheet: sheetPage, check: checkPage, teach: teachPage };
  if (pages[page]) pages[page]();
  window.DC = { api, drawSheet, parseMark };
})();
