"""The table as players use it on their phones (Chromium at 390x844 and 360x640): a lost phone,
the host standing in, the camera's demo pictures, The Choice's drawn sheet, and the smaller
things a group notices in its first game. Helpers and fixtures are test_web_browser's.
Screenshots go to out/screenshots/ (git-ignored)."""
import contextlib

import pytest

from engine.registry import load_game
from test_web_browser import (ARGS, CHROMIUM, SHORTER_SIDE, SHOTS, at_once,  # noqa: F401
                              base_url, browser, box_of, create_table, join, join_link,
                              playwright, shot, state_of, wait_seq)

PHONES = {"390x844": (390, 844), "360x640": (360, 640), "320x568": (320, 568)}


@contextlib.contextmanager
def phones(browser, *sizes, desktop=False):
    """One page per size, each its own device (its own cookies); `desktop`: a 1280-px one
    more. Fails the test on any script error in a page."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    contexts, pages, errors = [], [], []
    for size in sizes:
        w, h = PHONES[size]
        contexts.append(browser.new_context(bypass_csp=True, viewport={"width": w, "height": h},
                                            is_mobile=True, has_touch=True,
                                            device_scale_factor=1))
    if desktop:
        contexts.append(browser.new_context(bypass_csp=True,
                                            viewport={"width": 1280, "height": 860}))
    for context in contexts:
        page = context.new_page()
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.set_default_timeout(15000)
        pages.append(page)
    try:
        yield pages
    finally:
        for context in contexts:
            context.close()
    assert not errors, errors


def test_the_code_lets_a_stranger_watch_and_the_hosts_link_seats_them(base_url, browser):
    """A stranger's start page lists no table; the code typed there opens the table to watch,
    with no seat to take and the word why; the join link the host shares seats them, and then
    their start page lists the table."""
    with phones(browser, "390x844", "360x640") as (ann, bob):
        code = create_table(ann, base_url, "qwinto")
        bob.goto(base_url + "/")
        assert bob.locator(".recent").count() == 0
        bob.fill("#code", code.lower())
        bob.click('form[action="/join"] button')
        bob.wait_for_selector("#needs-link")
        assert "join link" in bob.inner_text("#needs-link")
        assert bob.locator("#seats button[data-seat]").count() == 0
        shot(bob, "seat-needs-link-360")
        join(bob, ann, code)
        bob.goto(base_url + "/")
        assert code in bob.inner_text(".recent")


def test_a_lost_phone_gets_its_seat_back_and_the_host_answers_for_an_absent_player(
        base_url, browser):
    """Bob joins on phone A, then opens the table on phone B: B is told it only watches and how
    to get the seat back; the host shows Bob's rejoin code, B takes the seat with it, and A is
    told it has no seat any more. Later the host answers for Bob after confirming."""
    with phones(browser, "390x844", "360x640", "360x640",
                desktop=True) as (ann, bob_a, bob_b, host):
        code = create_table(ann, base_url, "qwinto")
        join(bob_a, ann, code)
        # phone B: a full table, explained; no dead "Sit down as ..." link
        bob_b.goto(f"{base_url}/t/{code}/sheet")
        bob_b.wait_for_selector("#watch-only")
        assert "only watches" in bob_b.inner_text("#watch-only")
        assert bob_b.locator('[data-rejoin="1"]').count() == 1
        shot(bob_b, "seat-lost-phone-b-360")
        # the host (Ann's laptop shares her cookie: here Ann's own phone) shows Bob's code
        ann.goto(f"{base_url}/t/{code}")
        ann.click('[data-show-rejoin="1"]')
        ann.wait_for_selector(".rejoin-key")
        key = ann.inner_text(".rejoin-key")
        link = ann.get_attribute(".rejoin figcaption a", "href")
        assert link.endswith(f"/t/{code}?rejoin=1.{key}")
        shot(ann, "seat-rejoin-code-390")
        # phone B opens the link (the QR): the code is filled in, one tap takes the seat
        bob_b.goto(link)
        bob_b.wait_for_selector("#rejoin-form")
        assert bob_b.input_value("#rejoin-key") == key
        shot(bob_b, "seat-rejoin-link-360")
        bob_b.click("#rejoin-send")
        bob_b.wait_for_url("**/sheet")
        bob_b.wait_for_function("document.querySelector('#who').textContent.includes('Bob')")
        # phone A learns it has no seat any more, with a way to get it back
        bob_a.reload()
        bob_a.wait_for_selector("#watch-only")
        assert bob_a.inner_text("#hint") == "This device has no seat at this table."
        # a wrong code is refused at the form, nothing changes; the table's news while Bob
        # types (Ann rolls) leaves the form and what he typed as they are
        bob_a.click('[data-rejoin="1"]')
        bob_a.fill("#rejoin-key", "AAAAAA")
        seq = int(bob_a.get_attribute("body", "data-seq"))
        ann.goto(f"{base_url}/t/{code}/sheet")
        ann.click('#roll-entry .pad [data-die="orange:3"]')
        ann.click("#send-roll")
        ann.wait_for_selector("#sheet .cell.legal")
        bob_a.wait_for_function(f"+document.body.dataset.seq > {seq}")
        assert bob_a.input_value("#rejoin-key") == "AAAAAA"
        bob_a.click("#rejoin-send")
        bob_a.wait_for_selector("#rejoin-form + .error:has-text(\"not Bob's rejoin code\")")
        # Ann answers; Bob is away: the host answers for him after confirming
        ann.click('#sheet .cell[data-key="O@2"]')
        ann.wait_for_selector("#undo")
        ann.goto(f"{base_url}/t/{code}")
        ann.click('[data-answer-for="1"]')
        ann.wait_for_selector("#stand-in-ask")
        assert ann.locator("#sheet .cell").count() == 0      # nothing to tap before confirming
        shot(ann, "seat-stand-in-confirm-390")
        ann.click("#stand-in-yes")
        ann.wait_for_selector("#stand-in-note")
        ann.wait_for_selector('#sheet .cell.legal[data-key="O@2"]')
        ann.click('#sheet .cell[data-key="O@2"]')
        ann.wait_for_function("document.querySelector('#hint').textContent.includes('orange 3')")
        state = state_of(ann, code)
        assert state["turn_complete"] and state["players"][1]["answered"]
        wait_seq([bob_b], state["seq"])
        # standing in is for that answer: a way back is shown, and once the next roll is made
        # Ann's page is her own sheet again
        assert ann.is_visible("#stand-in-back")
        ann.evaluate("code => fetch('/api/tables/' + code + '/actions', {method: 'POST', "
                     "headers: {'Content-Type': 'application/json'}, "
                     "body: JSON.stringify({type: 'roll', roll: 'yellow:4'})})", code)
        ann.wait_for_function("document.querySelector('#who').textContent.includes('Ann')")
        assert ann.locator("#stand-in-note").count() == 0


@contextlib.contextmanager
def served(tmp_path, **config):
    """Its own server (`companion.server.ServerThread`) with `config`: its base URL."""
    from companion.app import create_app
    from companion.server import ServerThread
    app = create_app({"DATABASE": str(tmp_path / "own.sqlite"), **config})
    server = ServerThread(app, threads=8)
    try:
        yield server.url
    finally:
        server.stop()


def at_once_boxes(page, selector):
    """The boxes ({left, right}) of what `selector` matches, read in one script turn."""
    return page.evaluate("s => [...document.querySelectorAll(s)].map(e => {"
                         "const r = e.getBoundingClientRect(); "
                         "return {left: r.left, right: r.right}; })", selector)


def held_back(page, held, why, seconds=10.0):
    """Let ``page`` run until its route handler has held a request back (appended to
    ``held``); fail with ``why`` after ``seconds`` (3 s were too few on CI's two busy cores,
    once in two clean-clone runs). Route handlers run while the page is waited on, so this
    waits in the page's small steps."""
    for _ in range(int(seconds * 50)):
        if held:
            return
        page.wait_for_timeout(20)
    assert held, why


def use_table_camera(page):
    """Read the table camera until a roll settles, and use the reading for the roll entry."""
    with page.expect_response(lambda r: r.url.endswith("/camera")) as first:
        page.click("#read-server-camera")
    if first.value.status == 503:
        pytest.skip("no face-reader model: camera reading unavailable")
    page.wait_for_selector("#use-reading:not(.hidden)", timeout=30000)
    page.click("#use-reading")


def test_start_camera_on_a_plain_http_page_leads_to_the_https_address(browser, tmp_path):
    """A phone on the HTTP address has no camera API (not a secure origin): "Start camera" says
    where the camera works, links to this table at the HTTPS address and explains the browser's
    certificate warning, in the player's language; no empty picture box."""
    with served(tmp_path, HTTPS_URL="https://192.168.1.5:8001") as url, \
            phones(browser, "360x640") as (ann,):
        # what a phone's browser does on http://192.168.1.5:8000: no navigator.mediaDevices
        ann.add_init_script("Object.defineProperty(navigator, 'mediaDevices', {value: undefined})")
        code = create_table(ann, url, "qwinto")
        ann.goto(f"{url}/t/{code}?lang=de")
        ann.click("#start-camera")
        ann.wait_for_selector("#secure-link")
        assert ann.get_attribute("#secure-link", "href") == f"https://192.168.1.5:8001/t/{code}?lang=de"
        status = ann.inner_text("#camera-status")
        assert "sichere Adresse" in status and "Zertifikat" in status and "--https" not in status
        assert ann.locator("#camera-box video").is_hidden()
        shot(ann, "camera-http-phone-de-360")


def test_the_demo_camera_shows_the_tables_game_and_holds_each_picture(browser, tmp_path):
    """The quick start's table camera on a Qwinto table: the caption says which of the game's
    sample pictures is shown; read, the picture stays while the reading is used (it changed every
    4 s), and the next one comes when asked for."""
    samples = __import__("pathlib").Path(__file__).resolve().parents[2] / "sample_images"
    from companion.frames import DirectorySource
    with served(tmp_path, FRAME_SOURCE=DirectorySource(samples)) as url, \
            phones(browser, "390x844", "360x640") as (ann, bob):
        code = create_table(ann, url, "qwinto")
        ann.goto(f"{url}/t/{code}")
        ann.wait_for_selector("#camera-source")
        assert ann.inner_text("#camera-source") == "Demo: sample picture 1 of 2 of this game"
        assert ann.inner_text("#read-server-camera") == "Table camera"
        use_table_camera(ann)
        # while it reads, the button says how to stop it; the reading used, the roll's card
        # (where its dice are now) is on the screen
        assert ann.inner_text("#read-server-camera") == "Stop the table camera"
        assert "Use this reading" in ann.inner_text("#camera-status")
        top = ann.evaluate("document.getElementById('roll-entry').getBoundingClientRect().top")
        assert -1 <= top < ann.viewport_size["height"] / 2, top
        picked = ann.eval_on_selector_all("#picked .die", "ds => ds.map(d => d.dataset.die)")
        assert picked
        ann.wait_for_timeout(5000)      # longer than the old slideshow's 4 s
        assert ann.inner_text("#camera-source") == "Demo: sample picture 1 of 2 of this game"
        assert ann.eval_on_selector_all("#picked .die", "ds => ds.map(d => d.dataset.die)") \
            == picked
        shot(ann, "camera-demo-qwinto-390")
        ann.click("#next-picture")
        ann.wait_for_function("document.querySelector('#camera-source')"
                              ".textContent.includes('2 of 2')")
        # the old reading is not offered for the new picture
        assert ann.locator("#use-reading").is_hidden()
        # a Knister table on another phone, in German: Knister's one picture, no "next"
        knister = create_table(bob, url, "knister")
        bob.goto(f"{url}/t/{knister}?lang=de")
        bob.wait_for_selector("#camera-source")
        assert bob.inner_text("#camera-source") == "Demo: Beispielbild 1 von 1 zu diesem Spiel"
        assert bob.locator("#next-picture").count() == 0
        shot(bob, "camera-demo-knister-de-360")


def test_a_reading_of_the_last_picture_answered_late_is_not_shown_on_the_next(browser,
                                                                              tmp_path):
    """The table camera's reading of picture 1 answers only after "Next picture": it is not
    drawn over picture 2 nor offered for its roll. And a slow reading is not asked again
    before it answers (one question at a time)."""
    samples = __import__("pathlib").Path(__file__).resolve().parents[2] / "sample_images"
    from companion.frames import DirectorySource
    with served(tmp_path, FRAME_SOURCE=DirectorySource(samples)) as url, \
            phones(browser, "390x844") as (ann,):
        code = create_table(ann, url, "qwinto")
        ann.goto(f"{url}/t/{code}")
        ann.wait_for_selector("#camera-source")
        with ann.expect_response(lambda r: r.url.endswith("/camera")) as first:
            ann.click("#read-server-camera")
        if first.value.status == 503:
            pytest.skip("no face-reader model: camera reading unavailable")
        ann.wait_for_selector("#use-reading:not(.hidden)", timeout=30000)
        held, asked = [], []

        def hold_the_next_reading(route):
            asked.append(route)
            if not held:
                held.append((route, route.fetch()))     # read now, answered after "next"
            # later readings are never answered: nothing else may draw

        ann.route(f"**/api/tables/{code}/camera", hold_the_next_reading)
        held_back(ann, held, "the table camera was not read again")
        ann.click("#next-picture")
        ann.wait_for_function("document.querySelector('#camera-source')"
                              ".textContent.includes('2 of 2')")
        ann.wait_for_timeout(1200)
        assert len(asked) == 1          # no second question while the first is unanswered
        route, late = held[0]
        route.fulfill(response=late)
        ann.wait_for_timeout(200)
        drawn = ann.evaluate("() => { const c = document.querySelector('canvas.overlay'); "
                             "return c.getContext('2d').getImageData(0, 0, c.width, c.height)"
                             ".data.some(v => v > 0); }")
        assert not drawn and ann.locator("#use-reading").is_hidden()


def test_the_choice_is_a_picture_to_tap_with_any_face_on_the_pad(base_url, browser):
    """The Choice on a phone: the roll's faces may be any number on any colour (the sheet's
    description of the dice is a reconstruction: faces it does not list are pale, not missing);
    an answer is built on the drawn sheet, a space and then the dice it uses, in words, never
    the notation; every space is at least 44 px; the page is no longer 3,275 px of buttons."""
    with phones(browser, "360x640", "390x844") as (ann, bob):
        code = create_table(ann, base_url, "the_choice")
        join(bob, ann, code)
        pad = ann.locator("#roll-entry .pad")
        assert pad.locator(".die").count() == 36                       # 6 colours x 6 numbers
        assert pad.locator(".die.unusual").count() == 18               # not in the description
        assert ann.is_visible("#unusual-faces")
        assert "null" not in ann.inner_text("#roll-entry")
        for die in ("red:2", "grey:2", "blue:6"):     # red 2 is not a face the description gives
            ann.click(f'#roll-entry .pad [data-die="{die}"]')
        ann.click("#send-roll")
        ann.wait_for_selector("#sheet .cell.legal")
        assert {"colour": "red", "face": 2} in state_of(ann, code)["roll"]
        sizes = at_once(ann, "#sheet .cell:not(.gap)", f"els => els.map({SHORTER_SIDE})")
        assert len(sizes) == 29 and min(sizes) >= 44, sorted(sizes)[:4]
        assert ann.evaluate("document.documentElement.scrollWidth") <= 360
        assert ann.locator("#actions .placements button").count() == 0    # no list of codes
        # a number space first: the dice that make it are asked for in words
        key = ann.locator('#sheet .cell.legal[data-key^="N@"]').first.get_attribute("data-key")
        ann.click(f'#sheet .cell[data-key="{key}"]')
        ann.wait_for_selector("#built-so-far, #built [data-mark]")
        if ann.locator("#built [data-mark]").count():
            ann.locator("#built [data-mark]").first.click()
        assert "@" not in ann.inner_text("#built")
        while not ann.locator("#write-built").count():
            ann.locator("#sheet .cell.legal:not(.chosen)").first.click()
            if ann.locator("#built [data-mark]").count():
                ann.locator("#built [data-mark]").first.click()
        placement = ann.get_attribute("#write-built", "data-placement")
        words = ann.inner_text("#write-built")
        assert words.startswith("Write: ") and "@" not in words and "with the" in words
        shot(ann, "the_choice-built-360")
        assert ann.evaluate("document.documentElement.scrollHeight") < 2400
        ann.click("#write-built")
        ann.wait_for_function("document.querySelector('#hint').textContent.includes('answered')")
        state = state_of(ann, code)
        assert state["players"][0]["answer"] == placement


def test_an_answer_is_built_on_the_rows_the_grid_declares(base_url, browser):
    """The sheet page builds an answer with the rows a game's grid declares (`mark_rows`), not
    with The Choice's labels: with the line on row "L", the ring on "Q" and the counted marks
    on "C", the line's order narrows the answers, a counted mark is not a space to tap, and it
    is said as a misthrow, last. The Choice's grid declares its own rows."""
    context = browser.new_context(bypass_csp=True)
    page = context.new_page()
    page.goto(base_url + "/")
    out = page.evaluate("""async () => {
      const c = await import('/static/js/choice.js');
      const rows = {line: 'L', ring: 'Q', count: 'C'};
      const mk = (row, col, value) => ({row, col, value, dice: [1],
                                        text: row + value + '@' + col});
      const first = [mk('L', 0, 3), mk('L', 1, 5)], turned = [mk('L', 1, 5), mk('L', 0, 3)];
      const counted = mk('C', 0, 'x'), ring = mk('Q', 2, 'green');
      const opt = {parts: [{kind: 'enter', marks: [...first, counted]},
                           {kind: 'enter', marks: turned}, {kind: 'enter', marks: [ring]}]};
      const roll = [{colour: 'red', face: 3}];
      return {narrowed: c.candidates(opt, [first[0]], rows).length,
              done: (c.completed(opt, first, rows) || {}).marks.length,
              fields: [...c.builtLegal(opt, [first[0]], rows).keys()],
              words: c.placementWords({marks: [counted, ...first]}, roll, rows),
              ring: c.markWords(ring, roll, rows)};
    }""")
    context.close()
    assert out["narrowed"] == 1 and out["done"] == 3
    assert out["fields"] == ["L@0", "L@1"]
    assert out["words"] == ("mark the 3 with the red 3, mark the 5 with the red 3 "
                            "and a misthrow (too few dice used)"), out
    assert out["ring"] == "cross a green space with the red 3", out
    choice = load_game("the_choice")
    grid = choice.grid(choice.sheet_to_json(choice.new_sheet()))
    assert grid["mark_rows"] == {"line": "N", "ring": "R", "count": "M"}


def test_who_begins_is_drawn_as_the_game_declares(base_url, browser, monkeypatch):
    """The new-table page words the drawn first player as the game declares it
    (`Game.first_drawn`, in the page's language): a registered game that spins a bottle says
    so, Kuh Vadis a coin toss, the others "drawn at random"."""
    from companion.reasons import CATALOGUE
    from engine import registry
    from engine.reasons import TEMPLATES, Reason
    from tests.companion.test_toy_game import LAYOUT, Tally
    monkeypatch.setitem(TEMPLATES, "toy.bottle", "spin the bottle")
    monkeypatch.setitem(CATALOGUE, "toy.bottle", "Flaschendrehen")

    class Bottle(Tally):
        name, title = "bottle", "Bottle"
        first_drawn = Reason("toy.bottle")

    registry.register(Bottle, {"four": LAYOUT})
    try:
        with phones(browser, "390x844") as (ann,):
            seen = {}
            for lang in ("en", "de"):
                ann.goto(f"{base_url}/?lang={lang}")
                for game in ("bottle", "kuh_vadis", "qwinto"):
                    ann.select_option("#game", game)
                    seen[lang, game] = ann.locator("#first option").first.text_content()
    finally:
        registry.unregister("bottle")
    assert seen == {("en", "bottle"): "spin the bottle", ("en", "kuh_vadis"): "coin toss",
                    ("en", "qwinto"): "drawn at random", ("de", "bottle"): "Flaschendrehen",
                    ("de", "kuh_vadis"): "Münzwurf", ("de", "qwinto"): "ausgelost"}, seen


def test_check_my_paper_shows_one_state_and_the_message_at_the_field(base_url, browser):
    """A Knister sheet with "x" in a field: the message stands under that field (outlined), and
    the result says the sheet was not checked, instead of a red line outside the card while a
    green "No rule problems", score 0, stayed."""
    with phones(browser, "360x640") as (ann,):
        ann.goto(base_url + "/check")
        ann.select_option("#game", "knister")
        ann.wait_for_selector('#sheet input[data-key="C@2"]')
        ann.fill('#sheet input[data-key="A@0"]', "4")
        ann.wait_for_selector("#result .ok")
        ann.fill('#sheet input[data-key="C@2"]', "x")
        ann.wait_for_selector("#check-error.at-field")
        assert "write a number" in ann.inner_text("#check-error")
        assert ann.locator('#sheet .cell.bad').evaluate_all("cs => cs.map(c => c.dataset.key)") \
            == ["C@2"]
        assert ann.locator("#result .ok").count() == 0 and ann.is_visible("#not-checked")
        cell = box_of(ann.locator('#sheet .cell[data-key="C@2"]'))
        bubble = box_of(ann.locator("#check-error"))
        assert 0 <= bubble["y"] - (cell["y"] + cell["height"]) < 12     # right under the field
        assert bubble["x"] >= 0 and bubble["x"] + bubble["width"] <= 360
        shot(ann, "check-error-at-field-360")
        ann.fill('#sheet input[data-key="C@2"]', "5")
        ann.wait_for_selector("#result .ok, #result .problems")
        assert ann.locator("#sheet .cell.bad").count() == 0 and ann.inner_text("#check-error") == ""


def test_check_my_paper_says_bad_json_in_the_pages_words(base_url, browser):
    """JSON typed with a slip gets the page's own sentence (the browser's parser speaks its
    own language, English on a German page), and the result points at it, not at a field."""
    with phones(browser, "360x640") as (ann,):
        ann.goto(base_url + "/check?lang=de")
        ann.select_option("#game", "knister")
        ann.wait_for_selector('#sheet input[data-key="C@2"]')
        ann.evaluate("document.querySelector('#json-box').open = true")
        ann.fill("#json", '{"grid": [[1, 2]')
        ann.click("#check-json")
        ann.wait_for_selector("#not-checked")
        assert ann.text_content("#check-error") == (
            "Kein gültiges JSON: Klammern, Kommas und Anführungszeichen prüfen.")
        assert ann.text_content("#not-checked") == "Nicht geprüft: warum, steht oben."


def test_a_late_answer_to_an_earlier_check_does_not_replace_the_last(base_url, browser):
    """On a slow connection the check of "4" answers after the check of "4" and "x": the page
    keeps the answer to what the sheet holds now (the message at the field), not the late
    "No rule problems" of a keystroke ago."""
    import json
    with phones(browser, "360x640") as (ann,):
        ann.goto(base_url + "/check")
        ann.select_option("#game", "knister")
        ann.wait_for_selector('#sheet input[data-key="C@2"]')
        held = []

        def hold_the_check_of_four_alone(route):
            cells = json.loads(route.request.post_data or "{}").get("cells") or {}
            if cells == {"A@0": "4"}:
                held.append(route)      # answered below, after the later check
            else:
                route.continue_()

        ann.route("**/api/check", hold_the_check_of_four_alone)
        ann.fill('#sheet input[data-key="A@0"]', "4")
        held_back(ann, held, "the check of the 4 was not asked")
        ann.fill('#sheet input[data-key="C@2"]', "x")
        ann.wait_for_selector("#check-error.at-field")
        with ann.expect_response("**/api/check"):
            held[0].continue_()
        ann.wait_for_timeout(100)
        assert ann.is_visible("#check-error.at-field")
        assert "write a number" in ann.inner_text("#check-error")
        assert ann.locator("#result .ok").count() == 0 and ann.is_visible("#not-checked")


def test_a_slow_answer_never_takes_back_what_a_player_just_wrote(base_url, browser):
    """Ann writes her number; Bob's page asks for the table and its answer is slow, and Bob
    writes his meanwhile. The late answer (the table before Bob wrote) is dropped: his number
    stays on his page, which stays at the table's version (an action sent from an older one
    would be refused as overtaken)."""
    with phones(browser, "390x844", "360x640") as (ann, bob):
        ann.goto(base_url + "/")
        code = ann.evaluate("fetch('/api/tables', {method: 'POST', headers: {'Content-Type': "
                            "'application/json'}, body: JSON.stringify({game: 'qwinto', players: "
                            "['Ann', 'Bob'], claim: 0})}).then(r => r.json())")["code"]
        join(bob, ann, code)
        act = ("([code, body]) => fetch('/api/tables/' + code + '/actions', {method: 'POST', "
               "headers: {'Content-Type': 'application/json'}, body: JSON.stringify(body)})"
               ".then(r => r.json())")
        rolled = ann.evaluate(act, [code, {"type": "roll", "roll": "orange:3 yellow:4"}])
        kept = ann.evaluate(act, [code, {"type": "keep"}])     # the others may write now
        wait_seq([bob], kept["seq"])
        bob.wait_for_selector("#sheet .cell.legal")
        held = []

        def answer_late(route):
            if route.request.method == "GET" and not held:
                held.append((route, route.fetch()))    # answered by the server now, given later
            else:
                route.continue_()

        bob.route(f"**/api/tables/{code}", answer_late)
        ann_writes = rolled["me"]["seats"]["0"]["legal"][0]
        ann.evaluate(act, [code, {"type": "place", "seat": 0, "placement": ann_writes}])
        held_back(bob, held, "Bob's page did not ask for the table after Ann wrote")
        seq = state_of(ann, code)["seq"]
        bob.click("#sheet .cell.legal")
        wait_seq([bob], seq + 1)
        written = state_of(bob, code)
        assert written["players"][1]["answered"]
        route, late = held[0]
        route.fulfill(response=late)
        bob.wait_for_timeout(300)
        assert int(bob.evaluate("document.body.dataset.seq")) == written["seq"]
        assert bob.locator("#sheet .cell.legal").count() == 0
        assert bob.is_visible("#undo")


def test_a_name_of_only_spaces_is_refused_at_its_field(base_url, browser):
    """Two names typed, one of them only spaces: the table is not made (Kuh Vadis then said
    "played by 2-2 players, not 1"); the field says why."""
    with phones(browser, "390x844") as (ann,):
        ann.goto(base_url + "/")
        ann.select_option("#game", "kuh_vadis")
        ann.fill("#players li:nth-child(1) input", "Ann")
        ann.fill("#players li:nth-child(2) input", "   ")
        posted = []
        ann.on("request", lambda r: posted.append(r.url) if r.method == "POST" else None)
        ann.click("#create-button")
        ann.wait_for_selector("#players li:nth-child(2) .field-error")
        assert "needs a letter" in ann.inner_text("#players li:nth-child(2) .field-error")
        assert ann.evaluate("document.querySelector('#players li:nth-child(2) input')"
                            ".validity.valid") is False
        assert not posted and "/t/" not in ann.url
        shot(ann, "create-blank-name-390")
        ann.fill("#players li:nth-child(2) input", "Bob")
        ann.click("#create-button")
        ann.wait_for_url("**/sheet")


@pytest.mark.parametrize("size", ["360x640", "390x844"])
def test_every_field_to_tap_is_a_fingers_width(base_url, browser, size):
    """At 360 and 390 px every field of every game's sheet that a player taps is at least 44 px
    (Qwinto's 12 columns were 25 px: the sheet is drawn in two halves with column numbers), the
    tap pad's dice too, and nothing scrolls sideways."""
    with phones(browser, size) as (ann,):
        width = PHONES[size][0]
        for game in ("qwinto", "knister", "twenty_one", "kuh_vadis", "the_choice"):
            code = create_table(ann, base_url, game)
            ann.goto(f"{base_url}/t/{code}/sheet")
            ann.wait_for_selector("#sheet .cell:not(.gap)")
            ann.wait_for_selector("#roll-entry .pad .die")
            ann.wait_for_function("document.body.dataset.seq !== undefined")
            # the targets shown, measured in one script turn (hidden ones are skipped)
            sizes = at_once(ann, "#sheet .cell:not(.gap), #roll-entry .pad .die",
                            f"els => els.filter(e => e.offsetParent !== null).map({SHORTER_SIDE})")
            assert len(sizes) > 20 and min(sizes) >= 44, (game, sorted(sizes)[:3])
            assert ann.evaluate("document.documentElement.scrollWidth") <= width, game
            if game == "qwinto":
                assert ann.locator("#sheet .halves .sheet").count() == 2
                # numbered as the rules' sentences number them ("already stands in column 4")
                assert ann.locator("#sheet .lbl.colno").all_text_contents() \
                    == [str(i) for i in range(12)]
                shot(ann, f"qwinto-halves-{size}")


def test_a_small_phone_keeps_the_kuh_vadis_grid_whole(base_url, browser):
    """At 320 px Kuh Vadis' 7 columns are 40 px: the grid is drawn whole, its paths running
    across it as on the paper, not cut in two halves; Qwinto's 12 columns still are."""
    with phones(browser, "320x568") as (ann,):
        for game, halves in (("kuh_vadis", 0), ("qwinto", 2)):
            code = create_table(ann, base_url, game)
            ann.goto(f"{base_url}/t/{code}/sheet")
            ann.wait_for_selector("#sheet .cell:not(.gap)")
            assert ann.locator("#sheet .halves .sheet").count() == halves, game
            sizes = at_once(ann, "#sheet .cell:not(.gap)",
                            f"els => els.filter(e => e.offsetParent !== null).map({SHORTER_SIDE})")
            assert min(sizes) >= 38, (game, sorted(sizes)[:3])
            assert ann.evaluate("document.documentElement.scrollWidth") <= 320, game
        shot(ann, "qwinto-halves-320x568")


def test_a_failed_attempt_asks_for_a_second_tap(base_url, browser):
    """Qwinto's red "Failed attempt" (-5) stands apart from the fields and is written only after
    a second tap; a single tap changes nothing."""
    with phones(browser, "360x640") as (ann,):
        code = create_table(ann, base_url, "qwinto")
        ann.click('#roll-entry .pad [data-die="orange:3"]')
        ann.click("#send-roll")
        ann.wait_for_selector("#actions [data-special='fail']")
        seq = state_of(ann, code)["seq"]
        ann.click("#actions [data-special='fail']")
        assert ann.inner_text("#actions [data-special='fail']").startswith("Tap again to confirm")
        ann.wait_for_timeout(300)
        assert state_of(ann, code)["seq"] == seq                     # nothing written yet
        fail = box_of(ann.locator("#actions [data-special='fail']"))
        cell = box_of(ann.locator("#sheet .cell.legal").last)
        assert fail["y"] - (cell["y"] + cell["height"]) >= 16          # not right beside the fields
        ann.click("#actions [data-special='fail'][data-armed]")
        wait_seq([ann], seq + 1)
        assert state_of(ann, code)["players"][0]["answer"] == "fail"
        ann.wait_for_selector("#undo")                                  # and it can be taken back


def test_kuh_vadis_offers_the_next_attempt_before_passing(base_url, browser):
    """Kuh Vadis, attempt 1 of 3, a roll no field takes: the page offers to roll again first."""
    game = load_game("kuh_vadis")
    sheet = game.new_sheet()
    roll = next(r for r in (game.parse_roll(t) for t in ("2 5 5 2 3", "1 1 1 1 1", "cow cow 2 2 3"))
                if [str(p) for p in game.legal(sheet, r, "roller")] == ["pass"])
    with phones(browser, "390x844") as (ann,):
        create_table(ann, base_url, "kuh_vadis")
        for die in roll:
            ann.click(f'#roll-entry .pad [data-die=":{die.face}"]')
        ann.click("#send-roll")
        ann.wait_for_selector("#roll-again")
        assert ann.inner_text("#hint").startswith("No field can take this roll: roll again "
                                                  "(attempt 2 of 3), or pass.")
        assert "secondary" in ann.get_attribute("#actions [data-special='pass']", "class")
        shot(ann, "kuh_vadis-roll-again-390")
        ann.click("#roll-again")
        ann.wait_for_function("document.activeElement.closest('#roll-entry .pad') !== null")


def test_a_reading_with_more_dice_than_the_game_rolls_asks_which(browser, tmp_path):
    """A Knister table whose camera sees ten dice: "Use this reading" fills no roll of ten (Roll
    greyed with no word why); it says Knister rolls 2 dice, 10 are seen, and the player taps the
    two; each confidence stays with its die."""
    import shutil

    from companion.frames import DirectorySource
    samples = __import__("pathlib").Path(__file__).resolve().parents[2] / "sample_images"
    shutil.copy(samples / "mixed_10.jpg", tmp_path / "knister_10.jpg")
    with served(tmp_path, FRAME_SOURCE=DirectorySource(tmp_path)) as url, \
            phones(browser, "360x640") as (ann,):
        code = create_table(ann, url, "knister")
        ann.goto(f"{url}/t/{code}")
        ann.wait_for_selector("#read-server-camera")
        use_table_camera(ann)
        ann.wait_for_selector("#seen-box .hint")
        seen = ann.locator("#seen-box .seen").count()
        assert seen > 2
        assert ann.inner_text("#seen-box .hint") == (f"Knister rolls 2 dice; {seen} are seen: tap "
                                                     "the 2 that were rolled.")
        assert ann.locator("#picked .die").count() == 0 and ann.is_disabled("#send-roll")
        # each die with its confidence in one piece
        assert ann.eval_on_selector_all("#seen-box .seen", "s => s.every(x => "
                                        "x.querySelector('.die') && x.querySelector('.conf'))")
        # numbered as the picture's labels are, to tell which die is which
        numbers = ann.eval_on_selector_all("#seen-box .seen-no .no",
                                           "s => s.map(x => x.textContent)")
        assert numbers == [f"{i}." for i in range(1, seen + 1)]
        ann.locator("#seen-box .seen .die").nth(0).click()
        assert ann.inner_text("#roll-why") == "Knister rolls 2 dice: 1 chosen"
        ann.locator("#seen-box .seen .die").nth(1).click()
        assert ann.locator("#picked .die").count() == 2 and not ann.is_disabled("#send-roll")
        assert ann.inner_text("#roll-why") == ""
        shot(ann, "camera-ten-dice-knister-360")


def filled_by_camera(ann, base_url, dice_js: str) -> str:
    """A new Qwinto table's page whose roll entry the camera filled with `dice_js` (a JavaScript
    array of read dice, as `window.fillRoll` takes them); the table's code."""
    code = create_table(ann, base_url, "qwinto")
    ann.goto(f"{base_url}/t/{code}")
    ann.wait_for_selector("#send-roll")
    ann.evaluate(f"window.fillRoll({dice_js})")
    return code


def test_a_die_read_without_a_sure_colour_is_given_one_with_a_tap(base_url, browser):
    """The camera gives a die without a colour it was sure of: the roll entry shows it as "?",
    says why Roll waits, and a tap on the pad names it."""
    with phones(browser, "390x844") as (ann,):
        code = filled_by_camera(ann, base_url, "[{colour: null, face: 5, confidence: 0.93}, "
                                "{colour: 'orange', face: 3, confidence: 0.99}]")
        assert ann.locator("#picked .die.unsure").count() == 1
        assert "?" in ann.inner_text("#picked") and ann.is_disabled("#send-roll")
        assert ann.inner_text("#roll-why").startswith("A die marked ? was read without a sure "
                                                      "colour")
        ann.click('#roll-entry .pad [data-die="yellow:5"]')
        assert ann.eval_on_selector_all("#picked .die", "ds => ds.map(d => d.dataset.die)") \
            == ["yellow:5", "orange:3"]
        assert not ann.is_disabled("#send-roll") and ann.inner_text("#roll-why") == ""
        ann.click("#send-roll")
        wait_seq([ann], 1)
        assert sorted((d["colour"], d["face"]) for d in state_of(ann, code)["roll"]) \
            == [("orange", 3), ("yellow", 5)]


def test_a_die_whose_face_the_reader_was_unsure_of_is_marked_to_check(base_url, browser):
    """The camera gives a die whose face it was unsure of (`check`): the roll entry marks it
    "check" and says why, the roll may be sent as it is, and a tap on the pad puts the right
    face in its place."""
    with phones(browser, "360x640") as (ann,):
        code = filled_by_camera(ann, base_url, "[{colour: 'yellow', face: 5, confidence: 0.55, "
                                "check: true}, {colour: 'orange', face: 3, confidence: 0.99, "
                                "check: false}]")
        assert ann.eval_on_selector_all("#picked .die.check", "ds => ds.map(d => d.dataset.die)") \
            == ["yellow:5"]
        # "check" on a line of its own under the share, no wider than the dice beside it
        assert ann.inner_text("#picked .conf.check").split() == ["55%", "check"]
        (word,) = at_once_boxes(ann, "#picked .conf.check")
        (die,) = at_once_boxes(ann, "#picked .die.check")
        assert word["right"] - word["left"] <= die["right"] - die["left"], (word, die)
        assert ann.inner_text("#roll-why").startswith("The reader was unsure of the dice marked "
                                                      "check")
        assert not ann.is_disabled("#send-roll")
        shot(ann, "camera-check-die-360")
        ann.click('#roll-entry .pad [data-die="yellow:6"]')    # the die showed a 6
        assert ann.eval_on_selector_all("#picked .die", "ds => ds.map(d => d.dataset.die)") \
            == ["yellow:6", "orange:3"]
        assert ann.locator("#picked .die.check").count() == 0
        assert ann.inner_text("#roll-why") == ""
        ann.click("#send-roll")
        wait_seq([ann], 1)
        assert sorted((d["colour"], d["face"]) for d in state_of(ann, code)["roll"]) \
            == [("orange", 3), ("yellow", 6)]


def test_smaller_things_of_a_first_game(base_url, browser):
    """Equal scores share a rank ("1. Ann, 1. Bob", not "1., 2."); Knister's sheet numbers its
    columns as its score lines name them ("column 0"); German pages show the layouts' notes in
    German (no "SHEETS.md"); the roller's phone shows no dice pad while the others write, only a
    way to correct the roll."""
    with phones(browser, "390x844") as (ann,):
        code = create_table(ann, base_url, "knister")
        api = ("(args) => fetch('/api/tables/' + args[0] + '/actions', {method: 'POST', "
               "headers: {'Content-Type': 'application/json'}, body: JSON.stringify(args[1])})"
               ".then(r => r.json())")
        ann.goto(f"{base_url}/t/{code}/sheet")
        ann.wait_for_selector("#sheet .lbl.colno")
        assert ann.locator("#sheet .lbl.colno").all_text_contents() == ["0", "1", "2", "3", "4"]
        # both write the same sum in the same field every turn: equal sheets, equal scores
        for i in range(25):
            ann.evaluate(api, [code, {"type": "roll", "roll": "3 4"}])
            if i == 0:
                ann.reload()        # the roller waits for the others: no pad, a way to correct
                ann.wait_for_selector("#roll-waiting")
                assert ann.locator("#roll-entry .pad").count() == 0
                assert ann.is_visible("#open-correction")
            for seat in (0, 1):
                state = ann.evaluate(api, [code, {"type": "place", "seat": seat,
                                                  "placement": f"{'ABCDE'[i // 5]}7@{i % 5}"}])
        assert state["is_over"], state
        ann.goto(f"{base_url}/t/{code}")
        ann.wait_for_selector("#ranking li")
        assert ann.eval_on_selector_all("#ranking li", "ls => ls.map(l => l.value)") == [1, 1]
        shot(ann, "knister-tie-390")
        ann.goto(f"{base_url}/?lang=de")
        ann.select_option("#game", "kuh_vadis")
        note = ann.inner_text("#layout-note")
        assert note.startswith("Rekonstruierter Block:")
        assert "SHEETS.md" not in note and "RECON" not in note
        ann.goto(f"{base_url}/?lang=en")      # in English, too, in a player's words
        ann.select_option("#game", "twenty_one")
        note = ann.inner_text("#layout-note")
        assert note == "Reconstructed sheet: compare it with your own pad."
        assert "RECON" not in note and "RECON" not in ann.inner_text("#layout")
        ann.select_option("#game", "the_choice")     # said once, by the layout's own note
        assert ann.inner_text("#layout-note").count("Reconstructed sheet") == 1


def test_the_table_view_shows_which_players_have_their_page_open(base_url, browser):
    """A remote player joins by the table's link on their own phone: the host's table view
    marks them connected at once, and "page closed" when their phone's page goes away; the
    host's typed roll reaches the remote page live."""
    with phones(browser, "390x844", "360x640", desktop=True) as (ann, bob, host):
        code = create_table(ann, base_url, "qwinto")
        host.context.add_cookies(ann.context.cookies())       # the host's laptop: Ann's cookie
        host.goto(f"{base_url}/t/{code}")
        host.wait_for_selector('[data-player="1"] .badge >> text="not joined"')
        join(bob, ann, code)                                 # by the link, from elsewhere
        host.wait_for_selector('[data-connected="1"]')
        assert host.locator('[data-connected="0"]').count() == 1     # Ann's phone is open too
        shot(host, "table-connected-1280")
        status = ann.evaluate(
            "code => fetch('/api/tables/' + code + '/actions', {method: 'POST', headers: "
            "{'Content-Type': 'application/json'}, body: JSON.stringify({type: 'roll', roll: "
            "'orange:3 yellow:5'})}).then(r => r.status)", code)
        assert status == 200
        wait_seq([bob], 1)                                   # the roll reached Bob live
        bob.close()         # the server notices at its next keep-alive write (SSE_HEARTBEAT)
        host.wait_for_selector('[data-away="1"]', timeout=40000)
        assert host.locator('[data-connected="0"]').count() == 1


def test_a_reason_stays_until_the_table_changes(base_url, browser):
    """Bob taps a field before anything is rolled: the reason stays under his sheet while his
    page refreshes the same table version (Cid sits down meanwhile), and goes once the table
    changes (Ann rolls)."""
    with phones(browser, "390x844", "360x640", "360x640") as (ann, bob, cid):
        ann.goto(base_url + "/")
        code = ann.evaluate("fetch('/api/tables', {method: 'POST', headers: {'Content-Type': "
                            "'application/json'}, body: JSON.stringify({game: 'qwinto', players: "
                            "['Ann', 'Bob', 'Cid'], claim: 0})}).then(r => r.json())")["code"]
        join(bob, ann, code)
        bob.click('#sheet .cell[data-key="O@2"]')
        assert bob.text_content("#reason") == "Nothing rolled yet."
        with bob.expect_response(lambda r: r.url.endswith(f"/api/tables/{code}")
                                 and r.request.method == "GET"):
            cid.goto(join_link(ann, code))
            cid.click('#seats button[data-seat="2"]')
        bob.wait_for_timeout(100)       # the refreshed state drawn
        assert bob.text_content("#reason") == "Nothing rolled yet."
        ann.evaluate("code => fetch('/api/tables/' + code + '/actions', {method: 'POST', headers: "
                     "{'Content-Type': 'application/json'}, body: JSON.stringify({type: 'roll', "
                     "roll: 'orange:3 yellow:4'})})", code)
        bob.wait_for_function("document.querySelector('#reason').textContent === ''")


def test_a_screen_reader_names_each_field_in_words(base_url, browser):
    """A field of a drawn sheet is read aloud as a player names it, in the page's language:
    its row and column, its colour and printed number where it has them, and what is written
    ("empty" if nothing), not the notation the placements use (C@2)."""
    with phones(browser, "390x844") as (ann,):
        code = create_table(ann, base_url, "knister")
        act = ("(args) => fetch('/api/tables/' + args[0] + '/actions', {method: 'POST', "
               "headers: {'Content-Type': 'application/json'}, body: JSON.stringify(args[1])})")
        ann.evaluate(act, [code, {"type": "roll", "roll": "3 4"}])
        ann.evaluate(act, [code, {"type": "place", "seat": 0, "placement": "C7@2"}])
        ann.goto(f"{base_url}/t/{code}/sheet")
        ann.wait_for_selector('#sheet .cell[data-key="C@2"].filled')
        label = 'document.querySelector(\'#sheet .cell[data-key="{}"]\').getAttribute("aria-label")'
        assert ann.evaluate(label.format("C@2")) == "row C, column 2: 7"
        assert ann.evaluate(label.format("A@0")) == "row A, column 0: empty"
        ann.goto(f"{base_url}/t/{code}/sheet?lang=de")
        ann.wait_for_selector('#sheet .cell[data-key="C@2"].filled')
        assert ann.evaluate(label.format("C@2")) == "Reihe C, Spalte 2: 7"
        code = create_table(ann, base_url, "twenty_one")
        ann.goto(f"{base_url}/t/{code}/sheet?lang=de")
        ann.wait_for_selector('#sheet .cell[data-key="A@0"]')
        assert ann.evaluate(label.format("A@0")).startswith("Reihe A, Spalte 0, ")
        assert ann.evaluate(label.format("A@0")).endswith(", 6: leer")


def test_what_was_written_is_said_in_words(base_url, browser):
    """Once written, a sheet says what was written as the player would say it: twenty one's
    row and each die by its colour, a Kuh Vadis symbol and the square it went on."""
    with phones(browser, "390x844") as (ann,):
        act = ("(args) => fetch('/api/tables/' + args[0] + '/actions', {method: 'POST', "
               "headers: {'Content-Type': 'application/json'}, body: JSON.stringify(args[1])})")
        code = create_table(ann, base_url, "twenty_one")
        ann.evaluate(act, [code, {"type": "roll",
                                  "roll": "white:1 black:2 red:3 blue:1 yellow:6 green:4"}])
        ann.evaluate(act, [code, {"type": "keep"}])
        ann.evaluate(act, [code, {"type": "place", "seat": 0, "placement": "A6@0 A1@4"}])
        ann.goto(f"{base_url}/t/{code}/sheet")
        ann.wait_for_function("document.querySelector('#hint').textContent.includes('row A')")
        assert ann.text_content("#hint") == "answered: row A: yellow 6, white 1"
        code = create_table(ann, base_url, "kuh_vadis")
        ann.evaluate(act, [code, {"type": "roll", "roll": "3 3 3 1 2"}])
        ann.evaluate(act, [code, {"type": "roll", "roll": "3 3 3 1 2"}])
        ann.evaluate(act, [code, {"type": "roll", "roll": "3 3 3 1 2"}])
        roller = state_of(ann, code)["roller"]
        ann.evaluate(act, [code, {"type": "place", "seat": roller, "placement": "B3@1"}])
        ann.goto(f"{base_url}/t/{code}")
        ann.wait_for_function("document.body.textContent.includes('3 on B1')")


def test_qwinto_rows_are_labelled_by_their_colours_initials(base_url, browser):
    """Qwinto's rows are named by their colours, so their labels are the colours' initials in
    the page's language (orange, gelb, lila: O, G, L), not the English letters of the
    placements' notation."""
    with phones(browser, "390x844") as (ann,):
        code = create_table(ann, base_url, "qwinto")
        for lang, initials in (("en", ["O", "Y", "P"]), ("de", ["O", "G", "L"])):
            ann.goto(f"{base_url}/t/{code}/sheet?lang={lang}")
            ann.wait_for_selector("#sheet .cell")
            labels = [t.strip() for t in
                      ann.locator("#sheet .lbl:not(.colno)").all_text_contents() if t.strip()]
            # each half of the drawn sheet labels its rows
            assert labels and labels == initials * (len(labels) // 3), labels
            # and a field is read aloud by the row's label the page shows
            spoken = ann.get_attribute('#sheet .cell[data-key="Y@1"]', "aria-label")
            assert spoken == {"en": "row Y, column 1, yellow: empty",
                              "de": "Reihe G, Spalte 1, gelb: leer"}[lang], spoken


def test_a_refused_roll_stays_said_and_no_answer_is_said_in_words(base_url, browser):
    """A roll the server refuses because the table changed meanwhile (another phone's roll
    came first) keeps its reason on the pad after the pad is drawn again with the new table,
    and the dice tapped for the old table are cleared. An action that gets no answer at all
    (the server is down) is said in the page's words, not the browser's "Failed to fetch"."""
    import json
    with phones(browser, "390x844") as (ann,):
        code = create_table(ann, base_url, "knister")
        ann.goto(f"{base_url}/t/{code}/sheet")
        ann.wait_for_selector("#roll-entry .pad")
        changed = "the table changed meanwhile: look again and retry"
        # as the server answers an overtaken action: 409 with the table as it is now
        now = state_of(ann, code)
        ann.route("**/actions", lambda route: route.fulfill(
            status=409, content_type="application/json",
            body=json.dumps({"error": changed, "code": "app.changed", "state": now})))
        ann.click('#roll-entry .pad [data-die=":3"]')
        ann.click('#roll-entry .pad [data-die=":4"]')
        ann.click("#send-roll")
        ann.wait_for_selector(f'#roll-entry .error:has-text("{changed}")')
        ann.wait_for_timeout(500)          # the page has asked for the table and drawn it
        assert ann.text_content("#roll-entry .error") == changed
        assert ann.locator("#picked .die").count() == 0
        ann.unroute("**/actions")
        ann.route("**/actions", lambda route: route.abort())
        ann.click('#roll-entry .pad [data-die=":3"]')
        ann.click('#roll-entry .pad [data-die=":4"]')
        ann.click("#send-roll")
        ann.wait_for_selector('#roll-entry .error:has-text("No connection to the table")')


def test_the_kuh_vadis_player_who_does_not_roll_is_told_who_marks(base_url, browser):
    """In Kuh Vadis only the roller marks the pad: the other player's page says who rolls and
    marks, instead of a bare "Nothing to write now"."""
    with phones(browser, "390x844") as (ann,):
        code = create_table(ann, base_url, "kuh_vadis")
        state = state_of(ann, code)
        other = 1 - state["next_roller"]
        roller = ["Ann", "Bob"][state["next_roller"]]
        ann.goto(f"{base_url}/t/{code}/sheet?seat={other}")
        ann.wait_for_function("document.querySelector('#hint').textContent.includes('marks')")
        assert ann.text_content("#hint") == (
            f"{roller} rolls and marks the pad: nothing for you to write now.")


def test_a_double_tap_is_not_asked_to_be_retried(base_url, browser):
    """Two fields tapped one after the other before the first answer came back: one answer is
    written, and the other tap, refused because the table changed meanwhile, says so rather
    than asking the player to look again and retry."""
    with phones(browser, "390x844") as (ann,):
        code = create_table(ann, base_url, "knister")
        ann.evaluate("code => fetch('/api/tables/' + code + '/actions', {method: 'POST', "
                     "headers: {'Content-Type': 'application/json'}, "
                     "body: JSON.stringify({type: 'roll', roll: '3 4'})})", code)
        ann.goto(f"{base_url}/t/{code}/sheet")
        ann.wait_for_selector('#sheet .cell.legal[data-key="A@0"]')
        held = []

        def hold_the_first(route):
            if not held:
                held.append(route)
            else:
                route.continue_()

        ann.route("**/actions", hold_the_first)
        ann.click('#sheet .cell[data-key="A@0"]')
        held_back(ann, held, "the first tap's answer was not asked")
        ann.click('#sheet .cell[data-key="B@1"]')
        ann.wait_for_function("document.querySelector('#hint').textContent.includes('answered')")
        with ann.expect_response("**/actions"):
            held[0].continue_()
        ann.wait_for_selector('#reason:has-text("Your answer to this roll is written")')


def test_the_one_kuh_vadis_pad_is_drawn_once_on_the_table_page(base_url, browser):
    """Both Kuh Vadis players mark one pad: the table page draws it once, under the first
    player, and says so under the second; games with a sheet each draw every sheet."""
    with phones(browser, "390x844") as (ann,):
        code = create_table(ann, base_url, "kuh_vadis")
        ann.goto(f"{base_url}/t/{code}")
        ann.wait_for_selector('[data-player="0"] .cell')
        assert ann.locator('[data-player="1"] .cell').count() == 0
        assert ann.text_content('[data-player="1"] .shared-sheet') == (
            "Plays on the same pad as Ann.")
        code = create_table(ann, base_url, "knister")
        ann.goto(f"{base_url}/t/{code}")
        ann.wait_for_selector('[data-player="1"] .cell')


SAMPLES = __import__("pathlib").Path(__file__).resolve().parents[2] / "sample_images"


def photo_dice(page, count=3):
    """The dice a photo put into the roll entry (as "colour:face", sorted), once `count` are
    in or an error is shown; skips the test where the server has no face-reader model."""
    page.wait_for_function(f"document.querySelectorAll('#picked .die').length === {count} || "
                           "document.querySelector('#roll-entry .error').textContent")
    if "unavailable" in page.inner_text("#roll-entry .error"):
        pytest.skip("no face-reader model (models/dice_face.onnx)")
    return sorted(page.eval_on_selector_all("#picked .die", "ds => ds.map(d => d.dataset.die)"))


def test_a_photo_of_the_dice_fills_the_roll_entry(base_url, browser):
    """Ann photographs the roll with "Photo of the dice" (the phone's file input: no camera
    stream, no HTTPS): the dice read from it fill the roll entry, she is told to compare them
    with the table, and the roll is sent as usual."""
    with phones(browser, "390x844", "390x844") as (ann, bob):
        code = create_table(ann, base_url, "qwinto")
        ann.wait_for_selector("#photo-dice")
        # Bob sits down while the photo is read: the page is drawn again meanwhile, and what
        # the photo gave must reach the pad drawn now
        held = []
        ann.route("**/photo", lambda route: held.append(route))
        ann.set_input_files("#photo-input", str(SAMPLES / "qwinto_1.jpg"))
        ann.wait_for_function("document.querySelector('#roll-why').textContent"
                              ".startsWith('Reading the photo')")
        join(bob, ann, code)
        ann.wait_for_selector("#invite.hidden", state="attached")    # redrawn: Bob sits
        seq = state_of(ann, code)["seq"]
        while not held:
            ann.wait_for_timeout(50)
        held[0].continue_()
        assert photo_dice(ann) == ["orange:3", "purple:4", "yellow:1"]
        assert ann.inner_text("#roll-why").startswith("Read from your photo")
        shot(ann, "photo-of-the-dice-390")
        assert state_of(ann, code)["seq"] == seq    # read, not written
        ann.click("#send-roll")
        wait_seq([ann], seq + 1)
        assert sorted((d["colour"], d["face"]) for d in state_of(ann, code)["roll"]) == \
            [("orange", 3), ("purple", 4), ("yellow", 1)]


def test_a_small_webp_from_the_gallery_is_sent_as_a_jpeg(base_url, browser, tmp_path):
    """A photo picked from the gallery in a format the server does not read (a WebP, small
    enough to go unshrunk) is turned into a JPEG by the page, and its dice are read."""
    import cv2
    webp = tmp_path / "qwinto_1.webp"
    ok, data = cv2.imencode(".webp", cv2.imread(str(SAMPLES / "qwinto_1.jpg")),
                            [cv2.IMWRITE_WEBP_QUALITY, 95])
    assert ok
    webp.write_bytes(data.tobytes())
    with phones(browser, "390x844") as (ann,):
        create_table(ann, base_url, "qwinto")
        ann.set_input_files("#photo-input", str(webp))
        assert photo_dice(ann) == ["orange:3", "purple:4", "yellow:1"]


def test_a_black_and_white_photo_asks_for_each_dies_colour(base_url, browser, tmp_path):
    """A photo taken with a mono filter: its dice come in marked "?", the page says the photo
    shows no colours, and the roll is sent once each die has its colour."""
    import cv2
    grey = tmp_path / "qwinto_1_grey.jpg"
    img = cv2.cvtColor(cv2.imread(str(SAMPLES / "qwinto_1.jpg")), cv2.COLOR_BGR2GRAY)
    cv2.imwrite(str(grey), img)
    with phones(browser, "390x844") as (ann,):
        code = create_table(ann, base_url, "qwinto")
        ann.set_input_files("#photo-input", str(grey))
        assert len(photo_dice(ann)) == 3
        assert ann.inner_text("#roll-why").startswith("This photo shows no colours")
        assert ann.locator("#picked .die.unsure").count() == 3
        assert ann.is_disabled("#send-roll")
        for die in ("orange:3", "yellow:1", "purple:4"):
            ann.click(f'#roll-entry .pad [data-die="{die}"]')
        ann.click("#send-roll")
        wait_seq([ann], 1)
        assert sorted((d["colour"], d["face"]) for d in state_of(ann, code)["roll"]) == \
            [("orange", 3), ("purple", 4), ("yellow", 1)]
        # Knister's dice have no colours: nothing is said of them
        create_table(ann, base_url, "knister")
        cv2.imwrite(str(grey), cv2.cvtColor(cv2.imread(str(SAMPLES / "knister_1.jpg")),
                                            cv2.COLOR_BGR2GRAY))
        ann.set_input_files("#photo-input", str(grey))
        ann.wait_for_function("document.querySelectorAll('#picked .die').length > 0")
        assert ann.inner_text("#roll-why").startswith("Read from your photo")


def test_a_wrong_die_is_tapped_then_its_face_and_no_right_die_is_dropped(base_url, browser):
    """Knister's two dice are in (read by the camera) and one is wrong: a tap on the pad alone
    changes nothing and says what to do; a tap on the wrong die, then on its face, replaces it
    in place; a die tapped twice is taken out."""
    with phones(browser, "390x844") as (ann,):
        create_table(ann, base_url, "knister")
        ann.wait_for_selector("#send-roll")
        ann.evaluate("window.fillRoll([{colour: null, face: 6, confidence: 0.99}, "
                     "{colour: null, face: 4, confidence: 0.97}])")
        dice = lambda: ann.eval_on_selector_all("#picked .die",  # noqa: E731
                                                "ds => ds.map(d => d.dataset.die)")
        ann.click('#roll-entry .pad [data-die=":5"]')
        assert dice() == [":6", ":4"]
        assert ann.inner_text("#roll-why") == ("All 2 dice are in: tap the wrong die first, "
                                               "then its right face.")
        ann.locator("#picked .die").nth(1).click()
        assert ann.inner_text("#roll-why").startswith("Tap the die's right face in the pad")
        assert ann.locator("#picked .seen.selected .die").get_attribute("aria-pressed") == "true"
        shot(ann, "die-selected-to-replace-390")
        ann.click('#roll-entry .pad [data-die=":5"]')
        assert dice() == [":6", ":5"] and ann.inner_text("#roll-why") == ""
        ann.locator("#picked .die").nth(0).click()
        ann.locator("#picked .die").nth(0).click()
        assert dice() == [":5"] and ann.is_disabled("#send-roll")


def test_a_roll_the_rules_refuse_keeps_its_dice(base_url, browser):
    """twenty one's camera read two dice of one colour: Roll is refused with the rule's reason,
    and the six dice stay in the entry for Ann to correct (only a roll overtaken by another
    player's clears them)."""
    with phones(browser, "390x844") as (ann,):
        code = create_table(ann, base_url, "twenty_one")
        ann.wait_for_selector("#send-roll")
        ann.evaluate("window.fillRoll(['yellow', 'yellow', 'red', 'green', 'black', 'black']"
                     ".map((colour, i) => ({colour, face: i + 1, confidence: 0.99})))")
        before = ann.eval_on_selector_all("#picked .die", "ds => ds.map(d => d.dataset.die)")
        seq = state_of(ann, code)["seq"]
        ann.click("#send-roll")
        ann.wait_for_function("document.querySelector('#roll-entry .error').textContent")
        assert "one of each colour" in ann.inner_text("#roll-entry .error")
        assert ann.eval_on_selector_all("#picked .die", "ds => ds.map(d => d.dataset.die)") \
            == before
        assert state_of(ann, code)["seq"] == seq


def test_the_host_finds_the_join_link_on_the_sheet_page_until_all_sit(base_url, browser):
    """After "Create table" the host lands on their sheet: it shows the join link and its QR
    while seats are free, naming who is still to sit down; once everyone sits it is gone.
    Players never see it."""
    with phones(browser, "390x844", "390x844") as (ann, bob):
        code = create_table(ann, base_url, "qwinto")
        ann.wait_for_selector("#invite:not(.hidden)")
        # Ann rolls first: a way from the top of her sheet to the roll's pad, far below
        assert ann.inner_text("#to-roll-entry") == "Enter the roll ↓"
        ann.click("#to-roll-entry")
        top = ann.evaluate("document.getElementById('roll-entry').getBoundingClientRect().top")
        assert -1 <= top < ann.viewport_size["height"] / 2, top   # in view (the page ends below)
        assert ann.inner_text("#invite-open").startswith("Still to sit down: Bob.")
        link = ann.get_attribute("#invite-link", "href")
        assert "?join=" in link and link == join_link(ann, code)
        assert ann.locator("#invite img").get_attribute("src") == f"/t/{code}/qr.svg"
        shot(ann, "invite-on-the-sheet-390")
        join(bob, ann, code)
        ann.wait_for_selector("#invite.hidden", state="attached")
        assert bob.locator("#invite").count() == 0 or not bob.is_visible("#invite")


def test_kuh_vadis_says_why_a_roll_marks_nothing_and_how_to_enter_the_next(base_url, browser):
    """Ann's Kuh Vadis roll has two 3s and one cow: her page says no field takes it, and why
    by the rule; the next attempt's entry says to tap all five dice, the kept ones too."""
    with phones(browser, "390x844") as (ann,):
        code = create_table(ann, base_url, "kuh_vadis")
        ann.wait_for_selector("#roll-entry .pad")
        for face in ("1", "3", "3", "5", "cow"):
            ann.click(f'#roll-entry .pad [data-die=":{face}"]')
        seq = state_of(ann, code)["seq"]
        ann.click("#send-roll")
        wait_seq([ann], seq + 1)
        ann.wait_for_function("document.querySelector('#hint').textContent.includes('result')")
        assert ann.inner_text("#hint") == (
            "No field can take this roll: roll again (attempt 2 of 3), or pass. The dice 1 3 3 "
            "5 cow give no result: two cows, exactly three of a number or four of a kind are "
            "needed to mark a square.")
        assert ann.inner_text("#reroll-any") == ("Throw again the dice you choose, then tap all "
                                                 "5 as they lie, the ones you kept too.")
        assert ann.locator("#roll-sum").count() == 0   # Kuh Vadis writes no sum
        # which of the pad's marks are hers
        assert ann.inner_text("#who") == "Sheet of Ann · crosses (X) (roller)"
        # the pad's columns numbered as its sentences name squares ("A5")
        assert ann.locator("#sheet .lbl.colno").all_text_contents() == list("0123456")
        shot(ann, "kuh-vadis-no-result-390")


def test_the_choice_ends_a_side_only_on_a_second_tap(base_url, browser):
    """The Choice: after her answer Ann may end her first side, which gives up its open spaces
    for good; the first tap says so, the second ends it."""
    with phones(browser, "390x844") as (ann,):
        code = create_table(ann, base_url, "the_choice")
        ann.wait_for_selector("#roll-entry .pad")
        ann.evaluate("window.fillRoll([{colour: 'green', face: 6}, {colour: 'green', face: 1}, "
                     "{colour: 'yellow', face: 2}])")
        seq = state_of(ann, code)["seq"]
        ann.click("#send-roll")
        wait_seq([ann], seq + 1)
        ann.click("#actions [data-special='misthrow']")
        ann.click("#actions [data-special='misthrow'][data-armed]")
        ann.wait_for_selector("#end-side")
        assert state_of(ann, code)["players"][0]["sheet"]["playing"] == "front"
        # the ring's spaces are read aloud by their position, as its placements name them
        assert ann.get_attribute('#sheet .cell[data-key="R@0"]', "aria-label") == \
            "colour space 0, green: empty"
        ann.click("#end-side")
        ann.wait_for_selector('#end-side[data-armed="1"]')
        assert ann.text_content("#end-side") == ("Tap again to end this side: its open spaces "
                                                 "stay empty, and you go on on the other side")
        assert state_of(ann, code)["players"][0]["sheet"]["playing"] == "front"
        shot(ann, "the-choice-end-side-armed-390")
        ann.click("#end-side")
        ann.wait_for_function("code => fetch('/api/tables/' + code).then(r => r.json())"
                              ".then(s => s.players[0].sheet.playing === 'back')", arg=code)


def test_a_turn_by_keyboard_alone_keeps_the_focus_and_says_what_is_legal(base_url, browser):
    """A player without a mouse or touch: fields say whether they may be written now; the
    keyboard stays on the die or field it was on when the page is drawn again (it fell back to
    the page's top); what changed is said once in a live region."""
    with phones(browser, "390x844") as (ann,):
        code = create_table(ann, base_url, "knister")
        ann.wait_for_selector("#roll-entry .pad")
        focused = 'document.activeElement.getAttribute("data-die")'
        for face in ("3", "4"):
            ann.focus(f'#roll-entry .pad [data-die=":{face}"]')
            ann.keyboard.press("Enter")
        assert ann.evaluate(focused) == ":4"                # still on the pad's 4
        ann.focus("#picked .die >> nth=0")
        ann.keyboard.press("Enter")                         # selects the 3 to replace
        assert ann.evaluate("document.activeElement.closest('#picked') !== null")
        assert ann.evaluate(focused) == ":3"
        ann.keyboard.press("Enter")                         # a second press takes it out
        ann.focus('#roll-entry .pad [data-die=":3"]')
        ann.keyboard.press("Enter")
        seq = state_of(ann, code)["seq"]
        ann.focus("#send-roll")
        ann.keyboard.press("Enter")
        wait_seq([ann], seq + 1)
        ann.wait_for_selector("#sheet .cell.legal")
        label = ann.get_attribute('#sheet .cell.legal[data-key="C@2"]', "aria-label")
        assert label == "row C, column 2: empty, may be written now", label
        assert ann.text_content("#announce").startswith("Turn of: Ann")
        ann.focus('#sheet .cell[data-key="C@2"]')
        ann.keyboard.press("Enter")
        # the keyboard stays on the field just written, which now reads its number, and the
        # live region says what was written
        ann.wait_for_function("document.activeElement.getAttribute('aria-label') === "
                              "'row C, column 2: 7'")
        assert "answered: 7 in row C, column 2" in ann.text_content("#announce")
