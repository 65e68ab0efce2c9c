/* The camera box of the table view: the phone's rear camera posting JPEG frames, or the
 * server's own camera (or demo pictures), with the dice read drawn over the picture. */
import { T, el } from "./dom.js";
import { api } from "./api.js";

let cam = null;             // the phone camera while it runs: {stream, timer, busy}
let readingShown = null;    // shows a reading another page sent (`onReading`)
let readingSent = null;     // says the reading shown is spent: the table's roll has changed

/* a reading from the table's event stream (another page's camera) */
export function onReading(data) { if (readingShown) readingShown(data); }

/* the frame's dice lie where the settled reading's lay (a frame with no dice read says
 * nothing) */
function sameDice(dice, reading) {
  if (!reading || !dice.length) return true;
  if (dice.length !== reading.dice.length) return false;
  const centre = b => [(b[0] + b[2]) / 2, (b[1] + b[3]) / 2, b[2] - b[0]];
  return dice.every(d => reading.dice.some(r => {
    const [x, y, w] = centre(d.box), [u, v] = centre(r.box);
    return Math.hypot(x - u, y - v) < w / 2;
  }));
}

export function camera(box, state, code) {
  if (!state.me.can_roll || state.is_over) { box.classList.add("hidden"); return; }
  box.classList.remove("hidden");
  // a roll sent (from this reading or typed anywhere): the reading shown is not offered again
  const rollKey = state.turns + ":" + state.attempts.length;
  if (box.dataset.rollKey !== undefined && box.dataset.rollKey !== rollKey && readingSent) {
    readingSent();
  }
  box.dataset.rollKey = rollKey;
  if (box.dataset.ready) return;
  box.dataset.ready = "1";
  // no empty video box before the camera starts (an unstarted video is 150 px of nothing)
  const video = el("video", { playsinline: true, muted: true, autoplay: true, class: "hidden" });
  const canvas = el("canvas", { class: "overlay" });
  const status = el("p", { class: "note", id: "camera-status" });
  const startBtn = el("button", { type: "button", id: "start-camera" }, T.start_camera);
  // the next step once the dice are read: the main button
  const useBtn = el("button", { type: "button", class: "hidden", id: "use-reading" },
    T.use_reading);
  let lastReading = null, restingOn = false, spent = false;
  readingSent = () => {
    if (useBtn.classList.contains("hidden")) return;
    useBtn.classList.add("hidden");
    spent = true;       // until the next roll settles
    status.textContent = T.reading_sent;
  };
  box.append(el("h2", {}, T.camera), el("div", { class: "camera" }, video, canvas), status,
    el("div", { class: "actions" }, startBtn, useBtn));
  useBtn.onclick = () => {
    if (!lastReading || !window.fillRoll) return;
    window.fillRoll(lastReading.dice.map(d =>
      ({ colour: d.colour, face: d.face, confidence: d.confidence, check: d.check })));
    // the roll's card, where the dice now are to be checked and sent
    const entry = document.getElementById("roll-entry");
    if (entry) entry.scrollIntoView({ block: "start" });
  };
  // one picture at a time under the overlay: the phone's camera or the table camera's
  let serverImg = null, stopServerCam = () => {};
  startBtn.onclick = async () => {
    if (cam) { stop(); return; }
    stopServerCam();
    if (serverImg) serverImg.classList.add("hidden");
    video.classList.remove("hidden");
    demoCaption(false);
    if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) {
      // a plain HTTP page: the camera works at the server's HTTPS address (the same page there)
      const secure = document.body.dataset.secureUrl;
      video.classList.add("hidden");
      if (serverImg) serverImg.classList.remove("hidden");
      demoCaption(true);
      status.replaceChildren(...(secure ? [T.https_note + " ",
        el("a", { href: secure, id: "secure-link" }, secure), " ", T.cert_note] :
        [T.camera_needs_https]));
      return;
    }
    try {
      const stream = await navigator.mediaDevices.getUserMedia({ audio: false, video: {
        facingMode: { ideal: "environment" }, width: { ideal: 640 }, height: { ideal: 480 } } });
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
    demoCaption(true);
  }
  // the demo picture's caption goes with the table camera's picture, not the phone's
  function demoCaption(shown) {
    const caption = document.getElementById("camera-source");
    if (caption) caption.classList.toggle("hidden", !shown);
  }
  const grab = document.createElement("canvas");
  async function send() {
    if (!cam || cam.busy || !video.videoWidth) return;
    cam.busy = true;
    grab.width = video.videoWidth; grab.height = video.videoHeight;
    grab.getContext("2d").drawImage(video, 0, 0);
    const blob = await new Promise(r => grab.toBlob(r, "image/jpeg", 0.8));
    try {
      const resp = await fetch("/api/tables/" + code + "/frame",
        { method: "POST", body: blob, headers: { "Content-Type": "image/jpeg" } });
      const data = await resp.json();
      if (resp.status === 503) { status.textContent = T.camera_unavailable; stop(); }
      else if (!resp.ok) status.textContent = data.error;
      else show(data);
    } catch (e) { status.textContent = e.message; }
    if (cam) cam.busy = false;
  }
  function show(data) {
    // a frame not read because a newer one came meanwhile says nothing: what is shown stays
    if (data.superseded) return;
    // a settled roll stays shown, labelled, until something moves again: the frames after it
    // are the same dice lying still, not a new roll
    if (data.settled) {
      restingOn = true; spent = false; lastReading = data; useBtn.classList.remove("hidden");
    }
    else if (data.state === "moving" || data.state === "covered" ||
             !sameDice(data.dice, lastReading)) restingOn = false;
    // still again where the settled roll lay: the tracker takes it for that roll (not a new one)
    else if (data.state === "reading" && data.dice.length && lastReading) restingOn = true;
    const drawn = restingOn && lastReading ? lastReading : data;
    canvas.width = data.width; canvas.height = data.height;
    const g = canvas.getContext("2d");
    g.clearRect(0, 0, canvas.width, canvas.height);
    g.lineWidth = 3; g.font = "bold 20px sans-serif";
    const coloured = state.game.dice.colours.some(c => c.colour);
    // more dice seen than the game rolls: numbered, as the roll entry lists them to choose from
    const many = drawn.dice.length > state.game.dice.max_dice;
    for (const [i, d] of drawn.dice.entries()) {
      const [x0, y0, x1, y1] = d.box;
      // a settled die whose face the reader was not sure of: orange, its face with "?"
      g.strokeStyle = restingOn ? (d.check ? "#e8590c" : "#1a7f37") : "#d4a106";
      g.strokeRect(x0, y0, x1 - x0, y1 - y0);
      // values are shown only once the dice have settled; a colour the reader was not sure of
      // is not named: "?"
      const name = d.colour ? (T[d.colour] || d.colour) : coloured ? "?" : "";
      if (restingOn) {
        // white on a dark plate: readable over a light table or die as over a dark one
        const text = (many ? (i + 1) + ". " : "") + (name ? name + " " : "") +
          (T[d.face] || d.face) + (d.check ? "?" : "") + " " + Math.round(d.confidence * 100) + "%";
        const y = Math.max(20, y0 - 4), w = g.measureText(text).width;
        // inside the picture: a die at its right edge keeps its whole label
        const x = Math.max(2, Math.min(x0, canvas.width - w - 4));
        g.fillStyle = "rgba(17, 24, 39, .72)";
        g.fillRect(x - 2, y - 18, w + 4, 22);
        g.fillStyle = "#fff";
        g.fillText(text, x, y);
      }
    }
    status.textContent = restingOn ? (spent ? T.reading_sent : T.settled) :
      data.state === "moving" ? T.camera_moving :
      data.state === "covered" ? T.camera_covered : !data.dice.length ? T.camera_no_dice :
      T.settling;
  }
  readingShown = data => { if (!cam && !serverCam) show(data); };
  // the server's own camera (or the demo: pictures of this table's game, each kept until the
  // next is asked for), read by the server at 2 frames/s
  let serverCam = null;
  const describe = info => info.pictures ?
    T.demo_picture.replace("{i}", info.picture).replace("{n}", info.pictures) : info.source;
  api("GET", "/api/camera?table=" + code).then(info => {
    if (!info.source) return;
    const img = el("img", { src: "/api/camera.mjpg?table=" + code, alt: describe(info),
      id: "server-camera" });
    serverImg = img;
    const btn = el("button", { type: "button", class: "secondary", id: "read-server-camera" },
      T.server_camera);
    // the table camera is asked one reading at a time, every 500 ms after the last answer (a
    // slow reading does not pile questions up); an answer asked for before the picture changed
    // or the reading stopped is another picture's, and is dropped
    let chain = 0, picture = 0;
    stopServerCam = () => {
      if (serverCam) {
        clearTimeout(serverCam); serverCam = null; chain++; btn.classList.add("secondary");
        btn.textContent = T.server_camera;
      }
    };
    const poll = async mine => {
      const asked = picture;
      try {
        const data = await api("POST", "/api/tables/" + code + "/camera");
        if (mine === chain && asked === picture) show(data);
      } catch (e) {
        if (mine === chain) {
          status.textContent = e.status === 503 ? T.camera_unavailable : e.message;
          if (e.status === 503) { stopServerCam(); return; }
        }
      }
      if (mine === chain) serverCam = setTimeout(() => poll(mine), 500);
    };
    box.querySelector(".camera").prepend(img);
    const caption = el("p", { class: "note", id: "camera-source" }, describe(info));
    box.querySelector(".camera").after(caption);
    video.classList.add("hidden");
    const actions = box.querySelector(".actions");
    actions.append(btn);
    const next = async () => {
      picture++;   // and again once changed: a reading asked meanwhile may be of either picture
      try {
        const shown = await api("POST", "/api/tables/" + code + "/camera/next");
        picture++;
        lastReading = null; restingOn = false; useBtn.classList.add("hidden");
        canvas.getContext("2d").clearRect(0, 0, canvas.width, canvas.height);
        img.alt = caption.textContent = describe(shown);
        status.textContent = "";
      } catch (e) { status.textContent = e.message; }
    };
    if (info.pictures > 1) {
      actions.append(el("button", { type: "button", class: "secondary", id: "next-picture",
        onclick: next }, T.next_picture));
    }
    btn.onclick = () => {
      if (serverCam) { stopServerCam(); return; }
      if (cam) stop();
      btn.classList.remove("secondary");
      btn.textContent = T.server_camera_stop;
      const mine = ++chain;
      serverCam = setTimeout(() => poll(mine), 500);
    };
  }).catch(() => {});
}
