"""End to end in a real browser: Playwright driving Debian's chromium (never a downloaded
browser). Two browser contexts are two players: Ann on a phone (360 px), Bob on a desktop.
They create and join a table through the pages, enter rolls by tapping dice and placements
by tapping fields/buttons, and play a whole game of every game to its end. Screenshots at
phone and desktop size go to out/screenshots/ (git-ignored).

Skips with the reason when the `playwright` package or /usr/bin/chromium is missing.
"""
import contextlib
import os
import random
from pathlib import Path

import pytest

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run",
        "--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream"]
SHOTS = Path(__file__).resolve().parents[2] / "out" / "screenshots"
# the shorter side of an element, in CSS pixels
SHORTER_SIDE = "e => { const r = e.getBoundingClientRect(); return Math.min(r.width, r.height); }"

sync_api = pytest.importorskip("playwright.sync_api",
                               reason="the Python package 'playwright' is not installed")
if not (os.path.exists(CHROMIUM) and os.access(CHROMIUM, os.X_OK)):
    pytest.skip(f"no chromium at {CHROMIUM} (apt-get install -y chromium)",
                allow_module_level=True)

from engine.registry import load_game  # noqa: E402
from engine_helpers import roll  # noqa: E402


@pytest.fixture(scope="module")
def base_url(tmp_path_factory):
    from companion.app import create_app
    from companion.server import ServerThread
    db = tmp_path_factory.mktemp("e2e") / "e2e.sqlite"
    app = create_app({"DATABASE": str(db)})
    server = ServerThread(app, threads=24)
    yield server.url
    server.stop()


@pytest.fixture(scope="module")
def playwright():
    with sync_api.sync_playwright() as p:
        yield p


@pytest.fixture(scope="module")
def browser(playwright):
    b = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
    yield b
    b.close()


@pytest.fixture
def players(browser):
    SHOTS.mkdir(parents=True, exist_ok=True)
    phone = browser.new_context(bypass_csp=True, viewport={"width": 360, "height": 740},
                                is_mobile=True, has_touch=True, device_scale_factor=1)
    desk = browser.new_context(bypass_csp=True, viewport={"width": 1280, "height": 860})
    ann, bob = phone.new_page(), desk.new_page()
    errors = []
    for page in (ann, bob):
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.set_default_timeout(15000)
    yield ann, bob
    phone.close()
    desk.close()
    assert not errors, errors


def shot(page, name):
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)
    width = page.viewport_size["width"]
    scroll = page.evaluate("document.documentElement.scrollWidth")
    assert scroll <= width, f"{name}: the page is {scroll} px wide on a {width} px screen"


def box_of(locator, seconds=5.0):
    """The element's box once it is laid out: the page may redraw the sheet (a live update)
    between finding an element and measuring it, and a detached element has no box."""
    import time
    end = time.monotonic() + seconds
    while True:
        box = locator.bounding_box()
        if box is not None or time.monotonic() > end:
            return box
        time.sleep(0.05)


def at_once(page, selector, function):
    """`function` (JavaScript, of an array of elements) applied to what `selector` matches, found
    and read in one script turn. Playwright's eval_on_selector_all finds the elements in one call
    and runs the function in another: a live update between the two redraws the sheet, and the
    elements it was given are detached (no box, no offsetParent), about one run in ten."""
    return page.evaluate(f"s => ({function})([...document.querySelectorAll(s)])", selector)


def create_table(ann, base_url, game):
    ann.goto(base_url + "/")
    ann.select_option("#game", game)
    ann.fill("#players li:nth-child(1) input", "Ann")
    ann.fill("#players li:nth-child(2) input", "Bob")
    ann.click("#create-button")
    ann.wait_for_url("**/sheet")
    ann.wait_for_function("document.body.dataset.seq !== undefined")
    return ann.url.split("/t/")[1].split("/")[0]


def join_link(host, code):
    """The join link the host's table view shows (what its QR code opens)."""
    return host.evaluate(
        "code => fetch('/t/' + code).then(r => r.text()).then(html => new DOMParser()"
        ".parseFromString(html, 'text/html').querySelector('#join-link').getAttribute('href'))",
        code)


def join(bob, host, code):
    """Bob opens the join link the host shares and sits down at seat 1."""
    link = join_link(host, code)
    assert "?join=" in link
    bob.goto(link)
    bob.click('#seats button[data-seat="1"]')
    bob.wait_for_url("**/sheet")
    bob.wait_for_function("document.body.dataset.seq !== undefined")


def state_of(page, code):
    return page.evaluate("code => fetch('/api/tables/' + code).then(r => r.json())", code)


def wait_seq(pages, seq):
    for page in pages:
        page.wait_for_function(f"+document.body.dataset.seq >= {seq}")


def tap_roll(page, roll):
    page.wait_for_selector("#send-roll")
    page.click("#roll-entry button.secondary:has-text('Clear')") if page.locator(
        "#picked .die").count() else None
    for die in roll:
        page.click(f'#roll-entry .pad [data-die="{die.colour or ""}:{die.face}"]')
    page.click("#send-roll")


def tap_answer(page, rng):
    """Tap one legal choice as a player would: a highlighted field most of the time, else
    a special (pass / fail / cross) or one of the listed placements."""
    cells = page.locator("#sheet .cell.legal")
    listed = page.locator("#actions .placements button:not(#all-placements)")
    specials = page.locator("#actions [data-special]")
    n_cells, n_listed, n_special = cells.count(), listed.count(), specials.count()
    options = (["cell"] * 4 if n_cells else []) + (["listed"] * 4 if n_listed else []) + \
        (["special"] if n_special else [])
    assert options, "no legal choice offered"
    pick = rng.choice(options)
    if pick == "cell":
        cells.nth(rng.randrange(n_cells)).click()
        narrowed = page.locator("#actions .placements button:not(#all-placements)")
        if page.locator("#enter-marks").count():      # several fields at once: confirm
            page.click("#enter-marks")
        elif narrowed.count():      # placements listed: the tap narrowed them to this field
            narrowed.nth(rng.randrange(narrowed.count())).click()
        elif page.locator("#built").count():     # The Choice: the answer is built on the sheet
            build_answer(page, rng)
    elif pick == "listed":
        listed.nth(rng.randrange(n_listed)).click()
    else:
        special = specials.nth(rng.randrange(n_special))
        kind = special.get_attribute("data-special")
        special.click()
        if kind != "pass":      # one that costs points asks for a second tap
            page.click(f"#actions [data-special='{kind}'][data-armed]")


def build_answer(page, rng):
    """The Choice: after a first tap on the sheet, tap the dice asked for, more spaces, and
    write once the spaces tapped are a whole answer (every tap narrows the legal answers)."""
    for _ in range(12):
        which = page.locator("#built [data-mark]")
        write = page.locator("#write-built")
        cells = page.locator("#sheet .cell.legal:not(.chosen)")
        if which.count():
            which.nth(rng.randrange(which.count())).click()
        elif write.count() and (not cells.count() or rng.random() < 0.5):
            write.click()
            return
        else:
            cells.nth(rng.randrange(cells.count())).click()
    raise AssertionError("no whole answer after 12 taps")


GAMES = ["qwinto", "knister", "twenty_one", "kuh_vadis", "the_choice"]


@pytest.mark.parametrize("game", GAMES)
def test_a_whole_game_by_tapping(base_url, players, game):
    if game not in {g for g in __import__("engine.registry", fromlist=["GAMES"]).GAMES}:
        pytest.skip(f"{game} is not in the engine yet")
    ann, bob = players
    rng = random.Random(f"e2e-{game}")
    code = create_table(ann, base_url, game)
    join(bob, ann, code)
    pages = {0: ann, 1: bob}
    state = state_of(ann, code)
    layouts = [load_game(game, p["layout"]["name"]) for p in state["players"]]
    engine_game = layouts[0]
    turns = 0
    shot_mid = False
    while not state["is_over"]:
        turns += 1
        assert turns <= 400, "the game did not end"
        roller = state["next_roller"]
        tap_roll(pages[roller], engine_game.random_roll(rng))
        seq = state["seq"] + 1
        wait_seq(pages.values(), seq)
        state = state_of(ann, code)
        assert state["roll"] is not None
        if not shot_mid and turns >= 3:
            shot(ann, f"{game}-ann-phone-turn"), shot(bob, f"{game}-bob-desktop-turn")
            for page in (ann, bob):  # no optional part of the page shows up as the text "null"
                assert "null" not in page.inner_text("body")
            shot_mid = True
        if state["still_rolling"] and state["game"]["others_answer"] and rng.random() < 0.5:
            pages[roller].click("#keep-roll")
            seq += 1
            wait_seq(pages.values(), seq)
            state = state_of(ann, code)
        while state["pending"]:     # the roller's answer keeps the roll: the others then answer
            tap_answer(pages[state["pending"][0]], rng)
            seq += 1
            wait_seq(pages.values(), seq)
            state = state_of(ann, code)
    shot(ann, f"{game}-ann-phone-end")
    shot(bob, f"{game}-bob-desktop-end")
    bob.goto(f"{base_url}/t/{code}")
    bob.wait_for_selector("#ranking li")
    shot(bob, f"{game}-table-desktop-end")
    ranking = bob.locator("#ranking li").all_text_contents()
    assert len(ranking) == 2
    # the server's log replays to the same result
    log = ann.evaluate("code => fetch('/api/tables/' + code + '/log').then(r => r.json())", code)
    from engine.table import Table, action_from_json
    table = Table.new(layouts, ["Ann", "Bob"])
    table = table.replay([action_from_json(a, table.symbols) for a in log["actions"]])
    assert table.is_over
    assert [s.score.total for s in table.standings()] == [s["total"] for s in
                                                            state["standings"]]


def test_illegal_tap_says_why_and_live_update(base_url, players):
    ann, bob = players
    code = qwinto_table_with_a_roll(ann, bob, base_url)
    ann.click("#keep-roll")
    # Bob's page learns of the kept roll through the event stream, without reloading
    bob.wait_for_selector("#sheet .cell.legal")
    bob.click('#sheet .cell[data-key="P@0"]')
    assert bob.text_content("#reason") == ("the purple die was not rolled: 7 may only go "
                                           "into the orange or yellow row")
    bob.click('#sheet .cell[data-key="Y@1"]')
    # his answer in words, not the engine's notation "Y7@1"
    bob.wait_for_function("document.querySelector('#hint').textContent.includes('yellow 7')")
    # Ann's page hears of Bob's entry through the event stream
    ann.wait_for_function("document.querySelector('#pending').textContent.indexOf('Bob') < 0")
    assert "Ann" in ann.text_content("#pending")
    ann.click('#sheet .cell[data-key="O@2"]')
    ann.wait_for_selector("#undo")
    shot(ann, "qwinto-ann-phone-after-entry")
    # everyone has written: taking her entry back reopens the turn for the table, so a second
    # tap confirms it
    ann.click("#undo")
    ann.wait_for_selector('#undo[data-armed="1"]')
    assert ann.text_content("#undo").startswith("Everyone has written: tap again")
    ann.click("#undo")
    ann.wait_for_selector("#sheet .cell.legal")
    assert ann.text_content('#sheet .cell[data-key="O@2"]') == ""
    bob.goto(f"{base_url}/t/{code}?lang=de")
    bob.wait_for_selector("[data-player='1'] .badge.ok")
    assert "gelb 7" in bob.text_content("[data-player='1'] .badge.ok")
    assert "Tischansicht" not in bob.text_content("header")  # on the table view itself
    shot(bob, "qwinto-table-desktop-de")


def tap_until(page, target, shown, tries=5):
    """Tap `target` until `shown` appears: a live update that redraws the sheet just after a
    tap clears what the tap showed (the reason line), as a player would simply tap again."""
    for _ in range(tries - 1):
        page.click(target)
        try:
            page.wait_for_selector(shown, timeout=2000)
            return
        except sync_api.TimeoutError:
            continue
    page.click(target)
    page.wait_for_selector(shown, timeout=2000)


def qwinto_table_with_a_roll(ann, bob, base_url):
    """Ann's Qwinto table, Bob joined, Ann's first attempt orange 3 and yellow 4 sent: the code."""
    code = create_table(ann, base_url, "qwinto")
    join(bob, ann, code)
    for die in ("orange:3", "yellow:4"):
        ann.click(f'#roll-entry .pad [data-die="{die}"]')
    ann.click("#send-roll")
    return code


def test_others_write_once_the_roller_keeps_the_roll(base_url, players):
    """Qwinto: Ann rolls her first attempt. Bob's page shows her dice as "still rolling" and
    offers no field (answering would take her second attempt away); Ann may roll again. Once
    she keeps the roll, Bob's fields open and Ann's page offers no further attempt."""
    ann, bob = players
    code = qwinto_table_with_a_roll(ann, bob, base_url)
    bob.wait_for_selector("#still-rolling")
    assert bob.text_content("#still-rolling") == "Ann is still rolling"
    assert bob.locator("#roll .rolling .die").count() == 2
    assert bob.text_content("#roll-sum") == "= 7"     # what Qwinto writes: the dice's sum
    assert bob.locator("#sheet .cell.legal").count() == 0
    assert bob.locator("#actions [data-special]").count() == 0    # no "Pass" either
    assert "Ann is still rolling" in bob.text_content("#hint")
    bob.click('#sheet .cell[data-key="O@2"]')
    assert "Ann is still rolling" in bob.text_content("#reason")
    shot(bob, "qwinto-bob-desktop-still-rolling")
    # Ann sees her own fields (writing keeps the roll), a second attempt and "Keep this roll"
    ann.wait_for_selector("#keep-roll")
    assert ann.locator("#sheet .cell.legal").count() > 0
    assert ann.text_content("#send-roll") == "Roll attempt 2 of 2"
    assert ann.text_content("#still-rolling") == "You are still rolling."
    shot(ann, "qwinto-ann-phone-may-keep")
    ann.click("#keep-roll")
    bob.wait_for_selector("#sheet .cell.legal")
    assert bob.locator("#still-rolling").count() == 0 and "Bob" in bob.text_content("#pending")
    ann.wait_for_selector("#keep-roll", state="detached")
    assert ann.locator("#send-roll").count() == 0       # the kept roll takes no second attempt
    bob.click('#sheet .cell[data-key="Y@1"]')
    bob.wait_for_function("document.querySelector('#hint').textContent.includes('yellow 7')")
    # the next turn: Bob rolls twice; his second attempt is final, Ann writes without a keep
    ann.click('#sheet .cell[data-key="O@2"]')
    bob.wait_for_selector("#send-roll")
    for attempt in ("yellow:2", "yellow:5"):
        seq = state_of(bob, code)["seq"]
        bob.click(f'#roll-entry .pad [data-die="{attempt}"]')
        bob.click("#send-roll")
        wait_seq([ann, bob], seq + 1)
        if attempt == "yellow:2":
            # Ann, the host, may keep Bob's roll for him: the words name Bob, not "you"
            ann.wait_for_selector("#keep-roll")
            assert ann.text_content("#keep-roll") == "Keep Bob's roll"
            assert ann.text_content("#keep-hint") == ("The others write on Bob's roll once it "
                                                      "is kept; Bob may roll again instead.")
    ann.wait_for_selector("#sheet .cell.legal")
    assert ann.locator("#still-rolling").count() == 0 and bob.locator("#keep-roll").count() == 0


def test_who_begins_and_the_side_to_start_on(base_url, players):
    """At table creation the host picks who begins (a player, or drawn; Kuh Vadis calls it a
    coin toss). In The Choice each player picks the side of their sheet to start on, on their
    sheet page, until their first mark."""
    ann, bob = players
    ann.goto(base_url + "/")
    # before any name is typed the choice shown is the draw, not a blank
    assert ann.eval_on_selector("#first", "s => s.options[s.selectedIndex].text") == \
        "drawn at random"
    ann.select_option("#game", "kuh_vadis")
    assert ann.locator("#first option").first.text_content() == "coin toss"
    assert ann.eval_on_selector("#first", "s => s.selectedIndex") == 0
    ann.select_option("#game", "the_choice")
    ann.fill("#players li:nth-child(1) input", "Ann")
    ann.fill("#players li:nth-child(2) input", "Bob")
    assert ann.locator("#first option").all_text_contents() == ["drawn at random", "Ann", "Bob"]
    assert ann.eval_on_selector("#first", "s => s.value") == "0"     # the first player named
    ann.select_option("#first", label="Bob")
    ann.click("#create-button")
    ann.wait_for_url("**/sheet")
    ann.wait_for_function("document.body.dataset.seq !== undefined")
    code = ann.url.split("/t/")[1].split("/")[0]
    assert state_of(ann, code)["next_roller"] == 1
    assert ann.text_content("#turn") == "Bob rolls next"
    join(bob, ann, code)
    bob.wait_for_selector("#start-side")
    assert bob.locator("#start-side button").all_text_contents() == ["front", "back"]
    assert bob.get_attribute('#start-side [data-side="front"]', "aria-pressed") == "true"
    bob.click('#start-side [data-side="back"]')
    bob.wait_for_selector('#start-side [data-side="back"][aria-pressed="true"]')
    assert bob.text_content("#sheet .caption") == "back side"
    shot(bob, "the_choice-bob-desktop-start-side")
    for die in ("red:4", "purple:3", "purple:5"):
        bob.click(f'#roll-entry .pad [data-die="{die}"]')
    bob.click("#send-roll")
    bob.wait_for_selector("#actions [data-special='misthrow']")
    bob.click("#actions [data-special='misthrow']")
    bob.click("#actions [data-special='misthrow'][data-armed]")       # confirmed
    bob.wait_for_selector("#start-side", state="detached")   # a mark is made: the side stays
    assert state_of(bob, code)["players"][1]["sheet"]["playing"] == "back"
    ann.wait_for_selector("#start-side")                      # Ann may still choose hers


def test_a_special_tapped_once_stays_armed_while_the_page_redraws(base_url, players):
    """A misthrow costs the turn, so it takes a second tap. The page redraws whenever the table
    tells it something (here Bob sits down on his own phone, which changes what Ann's page
    writes for): the first tap must survive that, so Ann's second tap confirms it."""
    ann, bob = players
    ann.goto(base_url + "/")
    ann.select_option("#game", "the_choice")
    ann.fill("#players li:nth-child(1) input", "Ann")
    ann.fill("#players li:nth-child(2) input", "Bob")
    ann.select_option("#first", label="Ann")
    ann.click("#create-button")
    ann.wait_for_url("**/sheet")
    ann.wait_for_function("document.body.dataset.seq !== undefined")
    code = ann.url.split("/t/")[1].split("/")[0]
    assert ann.locator("#seat-switch a").count() == 2          # Ann writes for Bob too
    for die in ("red:4", "purple:3", "purple:5"):
        ann.click(f'#roll-entry .pad [data-die="{die}"]')
    ann.click("#send-roll")
    ann.wait_for_selector("#actions [data-special='misthrow']")
    seq = state_of(ann, code)["seq"]
    ann.click("#actions [data-special='misthrow']")
    ann.wait_for_selector("#actions [data-special='misthrow'][data-armed]")
    join(bob, ann, code)
    ann.wait_for_function("!document.querySelector('#seat-switch a')")     # redrawn
    assert state_of(ann, code)["seq"] == seq
    ann.click("#actions [data-special='misthrow'][data-armed]", timeout=2000)
    ann.wait_for_function(f"+document.body.dataset.seq > {seq}")
    assert state_of(ann, code)["seq"] == seq + 1


def test_kuh_vadis_quads_are_shown(base_url, players):
    """Four 4s: the squares a quad marks are drawn dashed and the hint says the roller rolls
    again; three 4s mark no quad."""
    ann, _ = players
    code = create_table(ann, base_url, "kuh_vadis")
    # a cow is drawn as a cow's head, as on the die and the paper sheet, large enough to see on a
    # phone's 7-column sheet, and still named in words for screen readers
    cow = ann.locator('#roll-entry .pad [data-die=":cow"]')
    assert cow.get_attribute("aria-label") == "cow" and cow.locator("svg").count() == 1
    printed = ann.locator("#sheet .cell .printed .sym")
    assert printed.count() > 0 and printed.first.inner_text() == "cow"
    assert printed.first.locator("svg").evaluate(SHORTER_SIDE) >= 12
    for face in ("4", "4", "4", "4", "cow"):
        ann.click(f'#roll-entry .pad [data-die=":{face}"]')
    ann.click("#send-roll")
    ann.wait_for_selector("#sheet .cell.legal.again")
    assert ann.locator("#sheet .cell.legal.again").count() == \
        ann.locator("#sheet .cell.legal").count() == 5
    assert "quad: mark one, then roll again" in ann.text_content("#hint")
    shot(ann, "kuh_vadis-ann-phone-quad")
    ann.click('#sheet .cell[data-key="C@5"]')
    ann.wait_for_function("+document.body.dataset.seq >= 2")
    assert state_of(ann, code)["next_roller"] == 0              # the quad: Ann again
    for face in ("4", "4", "4", "1", "cow"):
        ann.click(f'#roll-entry .pad [data-die=":{face}"]')
    ann.click("#send-roll")
    ann.wait_for_function("+document.body.dataset.seq >= 3")
    ann.wait_for_function("document.querySelector('#hint').textContent !== '' && "
                          "!document.querySelector('#hint').textContent.includes('quad')")
    assert ann.locator("#sheet .cell.again").count() == 0


@pytest.mark.parametrize("game, lang", [("twenty_one", "en"), ("the_choice", "de")])
def test_a_fields_colour_is_written_in_its_corner_for_colour_blind_players(base_url, players,
                                                                          game, lang):
    """A player who tells red from green (or green from grey) badly reads the colour of twenty
    one's fields, The Choice's ring spaces and the dice from a letter in their corner, one
    letter per colour of the game, in the page's words; Qwinto's rows, labelled by their
    colour, and the pad's rows, labelled by name, carry none."""
    from companion.i18n import strings
    ann, bob = players
    words = strings(lang)
    code = create_table(ann, base_url, game)
    join(bob, ann, code)
    ann.goto(f"{base_url}/t/{code}/sheet?lang={lang}")
    ann.wait_for_selector("#sheet .cell")
    fields = at_once(ann, "#sheet .cell[class*='c-']", """cells => cells.map(c => [
        [...c.classList].find(k => k.startsWith('c-')).slice(2),
        (c.querySelector('.cmark') || {}).textContent || null])""")
    assert fields and all(mark == words["mark_" + colour] for colour, mark in fields), fields
    marks = {colour: mark for colour, mark in fields}
    assert len(set(marks.values())) == len(marks) >= 6, marks
    die = {"twenty_one": "red:4", "the_choice": "green:2"}[game]
    assert ann.locator(f'#roll-entry .pad [data-die="{die}"] .cmark').is_hidden()
    ann.click(f'#roll-entry .pad [data-die="{die}"]')
    picked = ann.locator(f'#picked [data-die="{die}"] .cmark')
    assert picked.is_visible() and picked.text_content() == words["mark_" + die.split(":")[0]]
    shot(ann, f"{game}-colour-marks-360-{lang}")
    bob.goto(f"{base_url}/t/{create_table(bob, base_url, 'qwinto')}/sheet")
    bob.wait_for_selector("#sheet .cell.c-orange")
    assert bob.locator("#sheet .cell .cmark").count() == 0


def test_an_exact_hit_in_twenty_one_is_marked_with_a_small_x(base_url, players):
    """Ann writes the black 1 on the black field printed 1 (sheet A, row A): the field shows
    the small x the paper's rule asks for, and is read aloud as an exact hit."""
    ann, bob = players
    code = create_table(ann, base_url, "twenty_one")
    join(bob, ann, code)
    tap_roll(ann, roll("black:1 blue:3 yellow:4 red:1 green:2 white:4"))
    ann.click("#keep-roll")
    assert state_of(ann, code)["players"][0]["layout"]["name"] == "A"
    ann.click('#sheet .cell.legal[data-key="A@5"]')
    ann.wait_for_selector('#enter-marks, #sheet .cell[data-key="A@5"] .hit')
    if ann.locator("#enter-marks").count():
        ann.click("#enter-marks")
    ann.wait_for_selector('#sheet .cell[data-key="A@5"] .hit')
    assert ann.text_content('#sheet .cell[data-key="A@5"] .hit') == "x"
    assert "exact hit" in ann.get_attribute('#sheet .cell[data-key="A@5"]', "aria-label")
    assert ann.locator("#sheet .cell .hit").count() == 1
    shot(ann, "twenty-one-exact-hit-360")


def test_twenty_one_is_always_answered_by_choosing_then_writing(base_url, players):
    """A roll that fits one field only is answered as every other: the tap chooses the field,
    "Write" writes it (a tap that wrote at once on such a roll surprised players used to
    choosing first)."""
    ann, bob = players
    code = create_table(ann, base_url, "twenty_one")
    join(bob, ann, code)
    assert state_of(ann, code)["players"][0]["layout"]["name"] == "A"
    tap_roll(ann, roll("white:6 black:6 red:6 blue:6 green:6 yellow:6"))  # only yellow fits
    ann.click("#keep-roll")
    ann.wait_for_selector("#sheet .cell.legal")
    assert ann.locator("#sheet .cell.legal").count() == 1
    ann.click('#sheet .cell.legal[data-key="A@0"]')
    ann.wait_for_selector("#enter-marks")
    assert state_of(ann, code)["players"][0]["answered"] is False
    ann.click("#enter-marks")
    ann.wait_for_function("document.querySelector('#sheet .cell[data-key=\"A@0\"]')"
                          ".textContent.includes('6')")
    assert state_of(ann, code)["players"][0]["sheet"]["rows"][0][0] == 6


def test_the_choice_ring_in_german(base_url, players):
    """The Choice's colour spaces are drawn as a ring (clockwise from the top, around the
    number area) on the sheet and table pages, at 360 px and on a desktop; a ring space is
    tapped to narrow the placements to it; a tap on an illegal field gives the rule's
    reason in German on a German page."""
    ann, bob = players
    code = create_table(ann, base_url, "the_choice")
    join(bob, ann, code)
    for page in (ann, bob):
        page.goto(f"{base_url}/t/{code}/sheet?lang=de")
        page.wait_for_selector(".ring-sheet > .cell")
        ring = box_of(page.locator(".ring-sheet"))
        assert ring["width"] <= page.viewport_size["width"]
        boxes = [box_of(page.locator(f'.ring-sheet > .cell[data-key="R@{i}"]')) for i in range(16)]
        cx, cy = ring["x"] + ring["width"] / 2, ring["y"] + ring["height"] / 2
        centres = [(b["x"] + b["width"] / 2 - cx, b["y"] + b["height"] / 2 - cy) for b in boxes]
        radii = [(x * x + y * y) ** 0.5 for x, y in centres]
        assert max(radii) - min(radii) < 0.05 * ring["width"], radii     # on a circle
        assert centres[0][1] < 0 and abs(centres[0][0]) < 2                # space 0 on top
        assert centres[4][0] > 0 and abs(centres[4][1]) < 2                # clockwise
        assert min(b["width"] for b in boxes) >= 36                        # a finger's tap
        # the number area lies inside the ring
        for i in range(13):
            b = page.locator(f'.ring-middle .cell[data-key="N@{i}"]').bounding_box()
            x, y = b["x"] + b["width"] / 2 - cx, b["y"] + b["height"] / 2 - cy
            assert (x * x + y * y) ** 0.5 < min(radii) - b["height"] / 2
    # red 4, purple 3, purple 5: the red and purple spaces are legal for Ann, who rolls
    for die in ("red:4", "purple:3", "purple:5"):
        ann.click(f'#roll-entry .pad [data-die="{die}"]')
    ann.click("#send-roll")
    ann.click("#keep-roll")
    ann.wait_for_selector(".ring-sheet > .cell.legal")
    bob.wait_for_selector(".ring-sheet > .cell.legal")
    shot(ann, "the_choice-ring-phone-de"), shot(bob, "the_choice-ring-desktop-de")
    legal_key = ann.locator(".ring-sheet > .cell.legal").first.get_attribute("data-key")
    ann.click(f'.ring-sheet > .cell[data-key="{legal_key}"]')
    # the tap takes the space, or asks with which die, in words (no "Rred@3/1" notation)
    ann.wait_for_selector("#built-so-far, #built [data-mark]")
    words = ann.inner_text("#built")
    assert "ankreuzen" in words and "@" not in words, words
    illegal = ann.locator(".ring-sheet > .cell:not(.legal)").first
    illegal.click()
    reason = ann.text_content("#reason")
    assert reason and any(w in reason for w in ("Würfel", "Farb", "Kreuz")), reason
    assert "the dice" not in reason and "must" not in reason
    bob.goto(f"{base_url}/t/{code}?lang=de")
    bob.wait_for_selector(".sheets .ring-sheet > .cell")
    assert bob.locator(".sheets .ring-sheet").count() == 2
    shot(bob, "the_choice-table-desktop-de")
    ann.goto(f"{base_url}/t/{code}?lang=de")
    ann.wait_for_selector(".sheets .ring-sheet > .cell")
    shot(ann, "the_choice-table-phone-de")


def test_check_my_paper(base_url, players):
    ann, _ = players
    ann.goto(base_url + "/check")
    ann.select_option("#game", "qwinto")
    ann.wait_for_selector('#sheet input[data-key="O@2"]')
    ann.fill('#sheet input[data-key="O@2"]', "5")
    ann.fill('#sheet input[data-key="O@3"]', "4")
    ann.wait_for_selector(".problems li")
    assert "must be greater than the 5" in ann.text_content(".problems")
    shot(ann, "check-phone")
    # a letter is refused with the reason at its field; the sheet is not checked meanwhile
    ann.fill('#sheet input[data-key="Y@4"]', "a")
    ann.wait_for_selector("#check-error.at-field:has-text('write a number')")
    assert ann.locator(".problems").count() == 0 and ann.is_visible("#not-checked")
    ann.fill('#sheet input[data-key="Y@4"]', "")
    ann.wait_for_function("document.querySelector('#check-error').textContent === ''")
    assert "must be greater than the 5" in ann.text_content(".problems")


def test_game_over_says_whose_sheet_ended_it(base_url, players):
    """Ann's fourth failed attempt ends a Qwinto game for two: "Game over: 4 failed attempts
    (Ann)." on both pages."""
    ann, _ = players
    code = table_by_api(ann, base_url, "qwinto", ["Ann", "Bob"], """
        const bob = ['O1@2', 'O2@3', 'O3@4'];
        for (let turn = 0; turn < 7; turn++) {
            await act({type: 'roll', roll: 'orange:' + (1 + Math.floor(turn / 2))});
            if (turn % 2 === 0) {       // Ann's turn: a failed attempt; Bob passes
                await act({type: 'place', seat: 0, placement: 'fail'});
                await act({type: 'place', seat: 1, placement: 'pass'});
            } else {                    // Bob's: he writes; Ann passes
                await act({type: 'place', seat: 1, placement: bob[(turn - 1) / 2]});
                await act({type: 'place', seat: 0, placement: 'pass'});
            }
        }""")
    assert state_of(ann, code)["is_over"]
    for path in (f"/t/{code}", f"/t/{code}/sheet"):
        ann.goto(base_url + path)
        ann.wait_for_selector("#ended-by")
        assert ann.text_content("#turn").startswith("Game over: 4 failed attempts (Ann).")


def test_check_my_paper_marks_twenty_ones_exact_hits_as_typed(base_url, players):
    """Checking a twenty one sheet, a number typed equal to its field's printed number is
    marked as an exact hit at once, and unmarked when it is changed."""
    ann, _ = players
    ann.goto(base_url + "/check")
    ann.select_option("#game", "twenty_one")
    ann.wait_for_selector('#sheet input[data-key="A@5"]')
    printed = ann.text_content('#sheet .cell[data-key="A@5"] .printed')
    ann.fill('#sheet input[data-key="A@5"]', printed)
    ann.wait_for_selector('#sheet .cell[data-key="A@5"] .hit')
    assert ann.locator("#sheet .cell .hit").count() == 1
    ann.fill('#sheet input[data-key="A@5"]', "x")
    ann.wait_for_selector('#sheet .cell[data-key="A@5"] .hit', state="detached")


def test_qwinto_erase_a_number_found_wrong_later(base_url, players):
    """Ann's 3 turns out wrong a round later: she taps it, taps "Erase", and the field is
    crossed out (no number, never written again)."""
    ann, _ = players
    code = create_table(ann, base_url, "qwinto")
    ann.click('#roll-entry .pad [data-die="orange:3"]')
    ann.click("#send-roll")
    ann.click('#sheet .cell[data-key="O@2"]')
    ann.wait_for_function("+document.body.dataset.seq >= 2")
    # written: this roll's answer, no erase
    tap_until(ann, '#sheet .cell[data-key="O@2"]',
              "#reason:has-text('This field is already written.')")
    assert ann.locator("#erase").count() == 0
    ann.evaluate("code => fetch('/api/tables/' + code + '/actions', {method: 'POST', headers: "
                 "{'Content-Type': 'application/json'}, body: JSON.stringify({type: 'place', "
                 "seat: 1, placement: 'pass'})})", code)      # Bob passes; then Bob's roll
    wait_seq([ann], 3)
    ann.click('#roll-entry .pad [data-die="yellow:4"]')
    ann.click("#send-roll")
    wait_seq([ann], 4)
    tap_until(ann, '#sheet .cell[data-key="O@2"]', "#erase")
    assert ann.text_content("#erase") == "Wrong? Erase the 3 and cross the field out"
    shot(ann, "qwinto-ann-phone-erase")
    ann.click("#erase")
    ann.wait_for_selector('#sheet .cell.crossed[data-key="O@2"]')
    assert ann.text_content('#sheet .cell[data-key="O@2"]') == "✗"
    assert state_of(ann, code)["players"][0]["sheet"]["rows"]["orange"][0] == "x"


def table_by_api(page, base_url, game, players, actions):
    """The code of a table of `game` that `page` creates through the API and sits at (seat 0),
    after `actions` (JavaScript, with `act(action)` posting one action to the table and `code`
    the table's code) have been sent."""
    page.goto(base_url + "/")
    return page.evaluate("""async ([game, players]) => {
        const post = (path, body) => fetch(path, {method: 'POST', body: JSON.stringify(body),
            headers: {'Content-Type': 'application/json'}}).then(r => r.json());
        const t = await post('/api/tables', {game, players, claim: 0});
        const code = t.code;
        const act = action => post('/api/tables/' + code + '/actions', action);
        %s
        return code; }""" % actions, [game, list(players)])


def solo_knister_table(page, base_url, actions):
    """The code of a one-player Knister table `page` creates and sits at, after `actions`
    (as `table_by_api`'s) have been sent."""
    return table_by_api(page, base_url, "knister", ["Ann"], actions)


def test_a_solo_knister_game_shows_the_rule_books_rating(base_url, players):
    ann, _ = players
    code = solo_knister_table(ann, base_url, """
        const dice = ['1 1', '1 2', '2 2', '2 3', '3 3'];     // five of a kind in every row
        for (let r = 0; r < 5; r++) for (let c = 0; c < 5; c++) {
            await act({type: 'roll', roll: dice[r]});
            const total = dice[r].split(' ').map(Number).reduce((a, b) => a + b);
            await act({type: 'place', seat: 0, placement: 'ABCDE'[r] + total + '@' + c});
        }""")
    ann.goto(f"{base_url}/t/{code}")
    ann.wait_for_selector("#ranking li")
    assert ann.text_content("#ranking li") == "Ann · 158 · amazing: 100 points or more"
    assert ann.text_content("#last-roll") == "The last roll:"     # above the dice shown
    ann.goto(f"{base_url}/t/{code}?lang=de")
    ann.wait_for_selector("#ranking li")
    assert ann.text_content("#ranking li").endswith("fantastisch: 100 Punkte oder mehr")
    # and why the game ended, in the page's words
    assert ann.text_content("#ended-by") == ": das Raster ist nach 25 Runden voll."
    # the player's own sheet page says it too, where the solo player looks
    ann.goto(f"{base_url}/t/{code}/sheet?lang=en")
    ann.wait_for_selector("#turn .standings li")
    assert ann.text_content("#turn .standings li") == "Ann · 158 · amazing: 100 points or more"
    assert ann.text_content("#ended-by") == ": the grid is full after 25 rounds."
    # taking the last answer back would reopen the finished game: it asks a second tap
    ann.click("#undo")
    ann.wait_for_selector('#undo[data-armed="1"]')
    assert state_of(ann, code)["is_over"]
    ann.click("#undo")
    ann.wait_for_function("document.body.dataset.over === 'false'")
    assert not state_of(ann, code)["is_over"]


def expected_bands(advice):
    """field -> "high", "mid" or "low": the best figure of a placement writing there, ranked
    among the distinct figures (docs/companion.md, "Hints")."""
    best = {}
    for o in advice["options"]:
        for m in o["parts"]["marks"]:
            key = f"{m['row']}@{m['col']}"
            best[key] = max(best.get(key, o["expected"]), o["expected"])
    ranked = sorted(set(best.values()), reverse=True)
    level = {v: 1 - i / (len(ranked) - 1) if len(ranked) > 1 else 1 for i, v in enumerate(ranked)}
    return {k: "high" if level[v] > 0.66 else "mid" if level[v] > 0.33 else "low"
            for k, v in best.items()}


def test_hints_shade_the_legal_fields_and_name_the_best_once(base_url, players):
    """A player turns hints on on their own sheet: every legal field is shaded, the best is
    ringed and named once below the sheet, and the switch stays on after a reload."""
    ann, _ = players
    code = solo_knister_table(ann, base_url, "await act({type: 'roll', roll: '3 4'});")
    ann.goto(f"{base_url}/t/{code}/sheet")
    ann.wait_for_selector("#hint-switch")
    assert not ann.is_checked("#hint-switch")            # off until turned on
    assert ann.locator(".cell.hint-best").count() == 0
    given = []
    ann.on("response", lambda r: given.append(r) if "/advice" in r.url else None)
    ann.click("#hint-switch")
    for reload in (False, True):
        if reload:
            ann.reload()
            ann.wait_for_selector("#hint-switch")
            assert ann.is_checked("#hint-switch")        # remembered on this phone
        ann.wait_for_selector("#advice")
        ann.wait_for_timeout(1000)       # renders still under way have landed
        assert ann.locator("#advice").count() == 1
        assert ann.text_content("#advice").startswith("Best: ")
        advice = ann.text_content("#advice")
        assert "Best: 7 in row " in advice and "(expected final score " in advice
        assert at_once(ann, ".cell.legal", "cs => cs.length") == 25
        shaded = at_once(ann, ".cell.legal", "cs => cs.filter(c => "
                         "/hint-(high|mid|low)/.test(c.className)).length")
        assert shaded == 25
        # each field's band by the rank of its best figure among the distinct figures
        # (the advice the page was given: another call's figures may differ with its budget)
        shown = dict(at_once(ann, ".cell.legal", "cs => cs.map(c => [c.dataset.key, "
                             "c.className.match(/hint-(high|mid|low)/)[1]])"))
        assert shown == expected_bands(given[-1].json())
        assert ann.locator(".cell.hint-best").count() == 1
    shot(ann, "knister_hints")


def test_check_my_paper_asks_whose_move_it_is_in_kuh_vadis(base_url, players):
    """A typed-in Kuh Vadis pad: whose move it is is asked (after a quad the crosses may move
    again with more marks on the pad), not guessed from the counts of marks."""
    ann, _ = players
    ann.goto(base_url + "/check")
    ann.select_option("#game", "kuh_vadis")
    ann.wait_for_selector('#sheet select[data-extra="to_move"]')
    assert ann.locator('#sheet select[data-extra="to_move"] option').all_text_contents() == \
        ["crosses (X)", "circles (O)"]
    ann.fill('#sheet input[data-key="B@1"]', "x")
    ann.wait_for_function("document.querySelector('#json').value.includes('. x .')")
    assert '"to_move":"X"' in ann.input_value("#json")
    ann.select_option('#sheet select[data-extra="to_move"]', "O")
    ann.wait_for_function("document.querySelector('#json').value.includes('\"to_move\":\"O\"')")
    shot(ann, "check-kuh_vadis-phone")


def test_camera_posts_frames_from_a_fake_device(base_url, players):
    """Chromium's fake camera feeds getUserMedia; the page posts JPEG frames to the server,
    which reads them (or says that camera reading is unavailable without a model)."""
    ann, bob = players
    code = create_table(ann, base_url, "qwinto")
    ann.goto(f"{base_url}/t/{code}")
    ann.wait_for_selector("#start-camera")
    video = ann.locator("#camera-box video")
    assert video.is_hidden()  # no empty picture box before the camera starts
    with ann.expect_response(lambda r: r.url.endswith("/frame")) as resp:
        ann.click("#start-camera")
    assert resp.value.status in (200, 503)
    if resp.value.status == 503:
        ann.wait_for_selector("#camera-status:has-text('unavailable')")
    else:
        ann.wait_for_selector("#camera-status:not(:empty)")
        assert video.is_visible()
    shot(ann, "camera-phone")
    if resp.value.status == 200:  # stopped, the picture box goes away again
        ann.click("#start-camera")
        ann.wait_for_selector("#camera-box video", state="hidden")


def test_a_superseded_frame_changes_nothing_on_the_page(base_url, players):
    """A frame the server did not read because a newer frame of the table came meanwhile is
    answered 200 with `superseded`: the page keeps what the last read frame showed (here "something
    is moving"), it does not take the answer for a frame without dice."""
    import json
    ann, bob = players
    code = create_table(ann, base_url, "qwinto")
    answers = []

    def answer(route):
        read = {"dice": [], "settled": False, "state": "moving", "width": 640, "height": 480}
        body = read if not answers else {"superseded": True, "dice": [], "settled": False,
                                         "state": "superseded", "width": 640, "height": 480}
        answers.append(body)
        route.fulfill(status=200, content_type="application/json", body=json.dumps(body))

    ann.route("**/api/tables/*/frame", answer)
    ann.goto(f"{base_url}/t/{code}")
    ann.wait_for_selector("#start-camera")
    ann.click("#start-camera")
    ann.wait_for_selector("#camera-status:has-text('moving')")
    for _ in range(3):          # superseded answers come and go: the status stays
        with ann.expect_response(lambda r: r.url.endswith("/frame")):
            pass
    assert len(answers) >= 4
    assert "moving" in ann.inner_text("#camera-status")
    ann.click("#start-camera")


def write_y4m(path: Path, seed: int = 5) -> None:
    """A fake camera film for Chromium: Qwinto dice rendered by vision rolling in and
    coming to rest (vision.training.synth_video), as a Y4M file (4:2:0)."""
    import numpy as np
    from vision.training.synth_video import pip_die_look, render_video
    rng = np.random.default_rng(seed)
    colours = iter(("orange", "yellow", "purple"))       # one die of each Qwinto colour
    video = render_video(rng, n_dice=3, size=(480, 640), fps=10, reroll=0, hand_pass=False,
                         hand_rest=False, new_look=lambda r: pip_die_look(r, [next(colours)]))
    frames = list(video.frames) + [video.frames[-1]] * 30     # rest a while before looping
    frames_y4m(path, frames)


def frames_y4m(path: Path, frames) -> None:
    """640x480 BGR frames as a Y4M file (4:2:0, 10 fps): Chromium's fake camera."""
    import cv2
    with open(path, "wb") as out:
        out.write(b"YUV4MPEG2 W640 H480 F10:1 Ip A1:1 C420jpeg\n")
        for frame in frames:
            out.write(b"FRAME\n")
            out.write(cv2.cvtColor(frame, cv2.COLOR_BGR2YUV_I420).tobytes())


@contextlib.contextmanager
def phone_filming(playwright, tmp_path, base_url):
    """A phone page (360 px) whose camera is Chromium's fake device fed a rendered film of three
    Qwinto dice (write_y4m), on a new Qwinto table: (page, code)."""
    pytest.importorskip("vision.training.synth_video", reason="vision has no rendered films")
    film = tmp_path / "dice.y4m"
    try:
        write_y4m(film)
    except TypeError as exc:    # vision's renderer changed its arguments
        pytest.skip(f"cannot render the film: {exc}")
    with filming(playwright, film, base_url) as (page, code):
        yield page, code


@contextlib.contextmanager
def filming(playwright, film: Path, base_url):
    """A phone page (360 px) on a new Qwinto table's view, whose camera is Chromium's fake
    device fed the Y4M `film`: (page, code)."""
    b = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS + [
        f"--use-file-for-fake-video-capture={film}"])
    try:
        page = b.new_context(bypass_csp=True, viewport={"width": 360, "height": 740}).new_page()
        page.set_default_timeout(20000)
        code = create_table(page, base_url, "qwinto")
        page.goto(f"{base_url}/t/{code}")
        yield page, code
    finally:
        b.close()


@pytest.mark.parametrize("picture", ["qwinto_1.jpg", None])
def test_a_camera_held_still_reads_at_once_or_says_it_sees_no_dice(base_url, playwright,
                                                                     tmp_path, picture):
    """The phone's camera held still over the table from the start: the dice are read once
    they have lain still for three frames, never after "Something covers the table" (the
    camera's first frame is not taken as the table). Over an empty table the page says that
    it sees no dice."""
    import cv2
    import numpy as np
    image = (cv2.imread(str(Path(__file__).resolve().parents[2] / "sample_images" / picture))
             if picture else np.full((480, 640, 3), (60, 110, 40), np.uint8))
    film = tmp_path / "still.y4m"
    frames_y4m(film, [cv2.resize(image, (640, 480))] * 30)     # one picture held still
    with filming(playwright, film, base_url) as (page, code):
        page.click("#start-camera")
        statuses = set()
        for _ in range(100):        # 10 s at most
            statuses.add(page.inner_text("#camera-status"))
            if "unavailable" in " ".join(statuses):
                pytest.skip("no face-reader model (models/dice_face.onnx)")
            if picture and page.is_visible("#use-reading") or \
                    not picture and any(s.startswith("No dice seen") for s in statuses):
                break
            page.wait_for_timeout(100)
        assert not any("covers the table" in s for s in statuses), statuses
        if picture:
            assert page.is_visible("#use-reading"), statuses
        else:
            assert "No dice seen: roll them where the camera sees them, from above." in statuses


def test_phone_camera_reads_rendered_dice(base_url, playwright, tmp_path):
    """The camera fed by a film of rendered dice (--use-file-for-fake-video-capture): the page
    posts JPEG frames; once the dice settle their reading is offered for the roll entry, where
    any die can be corrected by tapping before the roll is sent."""
    with phone_filming(playwright, tmp_path, base_url) as (page, code):
        with page.expect_response(lambda r: r.url.endswith("/frame")) as resp:
            page.click("#start-camera")
        page.wait_for_function("document.querySelector('video').videoWidth === 640")
        if resp.value.status == 503:
            page.wait_for_selector("#camera-status:has-text('unavailable')")
            pytest.skip("no face-reader model yet (models/dice_face.onnx): the page "
                        "reports camera reading unavailable")
        page.wait_for_selector("#use-reading:not(.hidden)", timeout=30000)
        shot(page, "camera-settled-phone")
        page.click("#use-reading")
        picked = page.locator("#picked .die")
        assert sorted(d.split(":")[0] for d in (picked.nth(i).get_attribute("data-die")
                                                for i in range(picked.count()))) == \
            ["orange", "purple", "yellow"]
        # correct one die with a tap: a new face for the orange die replaces its reading
        page.click('#roll-entry .pad [data-die="orange:6"]')
        page.click("#send-roll")
        page.wait_for_function("+document.body.dataset.seq >= 1")
        state = state_of(page, code)
        assert {"colour": "orange", "face": 6} in state["roll"]
        assert sorted(d["colour"] for d in state["roll"]) == ["orange", "purple", "yellow"]
        # the reading is spent: not offered again for the next roll
        page.wait_for_selector("#use-reading.hidden", state="attached")
        page.wait_for_timeout(1200)     # three more frames of the same dice lying still
        assert page.locator("#use-reading").is_hidden()
        assert page.inner_text("#camera-status").startswith("The roll has been sent.")


def test_teach_the_choice_dice_on_the_phone(base_url, players, photo, tmp_path):
    """Ann opens "Teach your dice" from the table, taps a face and its colour, takes a photo
    (the phone's file picker), sees what the reader took, takes it back."""
    from vision.training.special_dice import SEEN_DESIGNS
    ann, _ = players
    code = create_table(ann, base_url, "the_choice")
    ann.goto(f"{base_url}/t/{code}")
    ann.click("#teach-link")
    ann.wait_for_url("**/teach")
    ann.wait_for_selector('#teach-faces button[data-value="3"]')
    picture = tmp_path / "die.jpg"
    picture.write_bytes(photo(SEEN_DESIGNS[4], 3, seed=5, colour="green"))
    ann.set_input_files("#take-photo", str(picture))        # no face tapped yet: refused
    ann.wait_for_function("document.querySelector('#teach-status').textContent.includes('face')")
    assert ann.locator(".taught-one").count() == 0
    ann.click('#teach-faces button[data-value="3"]')
    ann.click('#teach-colours button[data-value="green"]')
    ann.set_input_files("#take-photo", str(picture))
    ann.wait_for_selector(".taught-one img")
    assert "1/3" in ann.inner_text('#teach-faces button[data-value="3"]')
    assert "1/2" in ann.inner_text('#teach-colours button[data-value="green"]')
    assert ann.is_disabled("#use-taught")
    shot(ann, "teach-phone")
    ann.click('#teach-faces button[data-value="5"]')
    ann.click('#teach-colours button[data-value="red"]')
    # a full-size phone photo (4000 x 3000, over the 2 MiB upload limit) is shrunk by the page
    import cv2
    import numpy as np
    big = cv2.resize(cv2.imdecode(np.frombuffer(picture.read_bytes(), np.uint8), cv2.IMREAD_COLOR),
                     (4000, 3000))
    big = np.clip(big + np.random.default_rng(0).normal(0, 6, big.shape), 0, 255).astype(np.uint8)
    large = tmp_path / "large.jpg"
    large.write_bytes(cv2.imencode(".jpg", big, [cv2.IMWRITE_JPEG_QUALITY, 95])[1].tobytes())
    assert large.stat().st_size > 2 * 1024 * 1024
    ann.set_input_files("#take-photo", str(large))         # tapped 5 red for a green 3: a mistake
    ann.wait_for_function("document.querySelectorAll('.taught-one').length === 2")
    ann.reload()                                            # the taught photos are still there
    ann.wait_for_function("document.querySelectorAll('.taught-one img').length === 2 && "
                          "[...document.querySelectorAll('.taught-one img')]"
                          ".every(i => i.naturalWidth === 96)")
    ann.click('.taught-one:has-text("5") .take-back')       # take back the mistaken one
    ann.wait_for_function("document.querySelectorAll('.taught-one').length === 1")
    assert "0/3" in ann.inner_text('#teach-faces button[data-value="5"]')
    assert "1/3" in ann.inner_text('#teach-faces button[data-value="3"]')
    ann.click("#undo-photo")
    ann.wait_for_function("document.querySelectorAll('.taught-one').length === 0")
    assert "0/3" in ann.inner_text('#teach-faces button[data-value="3"]')


def test_qwinto_dice_colours_on_the_phone(base_url, players, tmp_path):
    """Ann photographs the table's three Qwinto dice under a warm lamp on the teaching page, sees
    each die with the colour read under it, and names the table's colours by them; a reload
    keeps it, and she can go back to the standard colours."""
    import cv2
    import numpy as np

    from vision.training.synth import draw_dice_set, render_scene
    ann, _ = players
    code = create_table(ann, base_url, "qwinto")
    ann.goto(f"{base_url}/t/{code}")
    ann.click("#teach-link")
    ann.wait_for_selector("#colour-card:not(.hidden)")
    own = draw_dice_set(np.random.default_rng(2), ["orange", "yellow", "purple"])
    scene = render_scene(np.random.default_rng(3), size=(1200, 1600),
                         colours=["orange", "yellow", "purple"], n_dice=3, distinct=True,
                         light=((0.55, 0.85, 1.3), 1.0), dice_set=own, side_range=(150, 220))
    picture = tmp_path / "dice.jpg"
    picture.write_bytes(cv2.imencode(".jpg", scene.image,
                                     [cv2.IMWRITE_JPEG_QUALITY, 90])[1].tobytes())
    ann.set_input_files("#colour-photo", str(picture))
    ann.wait_for_function("document.querySelectorAll('#colour-dice select').length === 3 && "
                          "[...document.querySelectorAll('#colour-dice img')]"
                          ".every(i => i.naturalWidth === 96)")
    read = ann.eval_on_selector_all("#colour-dice select", "s => s.map(x => x.value)")
    assert sorted(read) == ["orange", "purple", "yellow"]
    options = ann.eval_on_selector_all("#colour-dice select:first-of-type option",
                                       "o => o.map(x => x.value)")
    assert "" in options   # "not a die"
    assert ann.is_visible("#use-colours") and not ann.is_visible("#stop-colours")
    shot(ann, "teach-colours-phone")
    ann.click("#use-colours")
    ann.wait_for_selector("#stop-colours:not(.hidden)")
    assert ann.evaluate("document.documentElement.scrollWidth") <= 360
    ann.reload()
    ann.wait_for_function("document.querySelector('#colour-status').textContent.length > 0")
    assert not ann.is_visible("#use-colours") and ann.is_visible("#stop-colours")
    teach = "code => fetch('/api/tables/' + code + '/teach').then(r => r.json())"
    assert ann.evaluate(teach, code)["colours_in_use"]
    ann.click("#stop-colours")
    ann.wait_for_selector("#stop-colours.hidden", state="attached")
    assert ann.is_visible("#use-colours") and not ann.evaluate(teach, code)["colours_in_use"]


def test_phone_camera_beside_the_table_camera(playwright, tmp_path):
    """A server with a table camera (here its demo pictures, as the README's quick start runs it):
    starting the phone's camera shows the phone's picture alone, with the boxes drawn over it
    (they were drawn over both pictures), and the table camera comes back when the phone's stops.
    The status says what the reader waits for, and a settled roll stays "read" while the dice lie
    still."""
    pytest.importorskip("vision.training.synth_video", reason="vision has no rendered films")
    from companion.app import create_app
    from companion.frames import DirectorySource
    from companion.server import ServerThread
    app = create_app({"DATABASE": str(tmp_path / "cam.sqlite"),
                      "FRAME_SOURCE": DirectorySource(Path(__file__).resolve().parents[2]
                                                      / "sample_images")})
    server = ServerThread(app, threads=8)
    base_url = server.url
    try:
        with phone_filming(playwright, tmp_path, base_url) as (page, code):
            page.wait_for_selector("#server-camera")
            assert page.locator(".camera video").is_hidden()
            statuses = []
            page.on("response", lambda r: statuses.append(r.json().get("state"))
                    if r.url.endswith("/frame") else None)
            page.click("#start-camera")
            page.wait_for_function("document.querySelector('video').videoWidth === 640")
            assert page.locator("#server-camera").is_hidden()
            page.wait_for_selector("#use-reading:not(.hidden)", timeout=30000)
            video = box_of(page.locator(".camera video"))
            overlay = box_of(page.locator(".camera canvas.overlay"))
            assert abs(video["y"] - overlay["y"]) < 2
            assert abs(video["height"] - overlay["height"]) < 2
            page.wait_for_timeout(1000)  # the dice lie still: the settled reading stays shown
            assert page.inner_text("#camera-status").startswith("Read")
            shot(page, "camera-phone-beside-table-camera")
            assert "reading" in statuses and set(statuses) <= {"moving", "covered", "reading"}
            page.click("#start-camera")  # stop: the table camera's picture again
            page.wait_for_selector("#server-camera:visible")
            assert page.locator(".camera video").is_hidden()
    finally:
        server.stop()


def test_double_taps_and_fields_chosen_while_others_write(base_url, players):
    """What a hurried player does: a double tap on "Create table" makes one table, a double tap
    on "Roll" sends one roll (a second one would spend the next attempt), the picked dice show no
    stray text; and in twenty one the fields a player has chosen stay chosen when another player
    writes meanwhile."""
    ann, bob = players
    posted = []
    ann.on("request",
           lambda r: posted.append(r.url.split("/api/")[-1]) if r.method == "POST" else None)
    ann.goto(base_url + "/")
    ann.select_option("#game", "twenty_one")
    ann.fill("#players li:nth-child(1) input", "Ann")
    ann.fill("#players li:nth-child(2) input", "Bob")
    ann.dblclick("#create-button")
    ann.wait_for_url("**/sheet")
    assert posted.count("tables") == 1, posted
    code = ann.url.split("/t/")[1].split("/")[0]
    join(bob, ann, code)
    ann.wait_for_selector("#send-roll")
    for die in ("black:3", "red:6", "white:2", "blue:4", "green:4", "yellow:5"):
        ann.click(f'#roll-entry .pad [data-die="{die}"]')
    assert "null" not in ann.text_content("#picked")
    seq = state_of(ann, code)["seq"]
    ann.dblclick("#send-roll")
    wait_seq([ann, bob], seq + 1)
    ann.wait_for_timeout(500)
    state = state_of(ann, code)
    assert [a for a in posted if a.endswith("/actions")] == [f"tables/{code}/actions"], posted
    assert len(state["attempts"]) == 1 and state["seq"] == seq + 1
    ann.click("#keep-roll")
    wait_seq([ann, bob], seq + 2)
    seq += 1
    # Ann chooses two fields of her sheet, then Bob writes on his
    ann.wait_for_selector("#sheet .cell.legal")
    # a tap chooses a field; the button writes them (the hint says so)
    assert ann.text_content("#hint").endswith("then “Write the chosen fields”.")
    cells = ann.locator("#sheet .cell.legal")
    cells.nth(0).click()
    ann.wait_for_selector("#enter-marks")
    cells.nth(1).click()
    assert ann.text_content("#enter-marks").endswith("(2)")
    bob.wait_for_selector("#sheet .cell.legal")
    tap_answer(bob, random.Random(3))
    wait_seq([ann, bob], seq + 2)
    ann.wait_for_timeout(300)
    assert ann.text_content("#enter-marks").endswith("(2)")
    assert ann.locator("#sheet .cell.chosen").count() == 2
    shot(ann, "twenty-one-chosen-while-bob-writes")


def test_qwinto_cells_are_tappable_on_a_360_px_phone(base_url, players):
    """Qwinto's sheet has 12 columns; on a 360-px phone every cell is still at least 24 px
    square (WCAG 2.2's minimum target size), and nothing scrolls sideways."""
    ann, _ = players
    code = create_table(ann, base_url, "qwinto")
    ann.goto(f"{base_url}/t/{code}")
    selector = '[data-player="0"] .cell:not(.gap)'
    ann.locator(selector).first.wait_for()
    # measured in one script turn: the sheet is redrawn when the table's events arrive
    sizes = at_once(ann, selector, "els => els.map(e => { const r = e.getBoundingClientRect();"
                                   " return {width: r.width, height: r.height}; })")
    assert len(sizes) == 27  # three rows of nine fields
    assert min(min(b["width"], b["height"]) for b in sizes) >= 24, sizes[:3]
    assert ann.evaluate("document.documentElement.scrollWidth") <= 360


def test_no_roll_button_once_the_attempts_are_spent(base_url, players):
    """Qwinto allows two attempts: after the second the entry offers a correction, not a third
    roll (the server would refuse it)."""
    ann, bob = players
    code = create_table(ann, base_url, "qwinto")
    for attempt in range(2):
        seq = state_of(ann, code)["seq"]
        if attempt:  # which dice the second attempt rolls
            assert ann.text_content("#reroll-hint").endswith(": yellow")
        else:  # a first roll names no dice to roll again, and shows no stray "null"
            assert ann.locator("#reroll-hint").is_hidden()
            assert "null" not in ann.inner_text("#roll-entry")
        ann.click('#roll-entry .pad [data-die="yellow:2"]')
        ann.click("#send-roll")
        wait_seq([ann], seq + 1)
    ann.wait_for_selector("#open-correction")       # the pad only for a correction, when asked
    assert ann.text_content("#roll-waiting").startswith("Everyone writes this roll now.")
    assert ann.locator("#roll-entry .pad").count() == 0
    ann.click("#open-correction")
    ann.wait_for_selector("#correct-roll")
    # the correction starts from the roll as it stands, and the roll is shown as the last one
    # once the turn is over
    assert ann.locator("#picked .die").evaluate_all("ds => ds.map(d => d.dataset.die)") == \
        ["yellow:2"]
    assert state_of(ann, code)["attempts"] and not state_of(ann, code)["may_reroll"]
    assert ann.locator("#send-roll").count() == 0
    assert "(roller)" in ann.text_content("#who")  # the turn is still Ann's: nobody has written yet


def test_the_roll_entry_says_what_the_next_attempt_throws(base_url, players):
    """The roll button counts the attempts (Kuh Vadis has three); the note on a further
    attempt names the dice it throws again as the game's rule has it: twenty one's 1s stay,
    The Choice's and Kuh Vadis' dice are any the roller picks (no note). Once Kuh Vadis' roller
    has rolled for the last time, the page says that the roller marks the roll: the others
    do not write in Kuh Vadis."""
    ann, _ = players
    code = table_by_api(ann, base_url, "kuh_vadis", ["Ann", "Bob"], "")
    roller = state_of(ann, code)["roller"]
    name = ["Ann", "Bob"][roller]
    for attempt, label in enumerate(["Roll", "Roll attempt 2 of 3", "Roll attempt 3 of 3"]):
        ann.goto(f"{base_url}/t/{code}")
        ann.wait_for_selector("#send-roll")
        assert ann.text_content("#send-roll") == label
        assert ann.locator("#reroll-hint").is_hidden()
        ann.evaluate("code => fetch('/api/tables/' + code + '/actions', {method: 'POST', "
                     "headers: {'Content-Type': 'application/json'}, body: JSON.stringify("
                     "{type: 'roll', roll: '1 1 2 3 5'})})", code)
    ann.goto(f"{base_url}/t/{code}")
    ann.wait_for_selector("#roll-waiting")
    assert ann.text_content("#roll-waiting").startswith(f"{name} marks this roll now.")
    code = table_by_api(ann, base_url, "twenty_one", ["Ann"], """
        await act({type: 'roll', roll: 'white:1 black:2 red:3 blue:1 yellow:6 green:4'});""")
    ann.goto(f"{base_url}/t/{code}")
    ann.wait_for_selector("#reroll-hint")
    assert ann.text_content("#reroll-hint") == (
        "The second attempt throws again every die not showing 1: black, red, yellow, green. "
        "The 1s stay and are entered already: tap the others as they lie.")
    code = table_by_api(ann, base_url, "the_choice", ["Ann", "Bob"], """
        await act({type: 'roll', roll: 'purple:2 red:5 red:1'});""")
    ann.goto(f"{base_url}/t/{code}")
    ann.wait_for_selector("#send-roll")
    assert ann.text_content("#send-roll") == "Roll attempt 2 of 2"
    assert ann.locator("#reroll-hint").is_hidden()


def test_twenty_ones_ones_stay_entered_and_drawn_kept_for_the_second_attempt(base_url,
                                                                            players):
    """"Dice that show a 1 must stay": after a first attempt with two 1s, the roller's entry
    holds them already (only the four thrown again are tapped), and among the dashed dice
    still to be thrown the 1s are drawn solid, kept."""
    ann, _ = players
    code = table_by_api(ann, base_url, "twenty_one", ["Ann"], """
        await act({type: 'roll', roll: 'white:1 black:2 red:3 blue:1 yellow:6 green:4'});""")
    ann.goto(f"{base_url}/t/{code}")
    ann.wait_for_selector("#reroll-hint")
    assert sorted(ann.eval_on_selector_all("#picked .die", "ds => ds.map(d => d.dataset.die)")) \
        == ["blue:1", "white:1"]
    assert ann.text_content("#reroll-hint").endswith(
        "The 1s stay and are entered already: tap the others as they lie.")
    borders = at_once(ann, "#roll .rolling .die", """dice => dice.map(d =>
        [d.dataset.die, getComputedStyle(d).borderTopStyle])""")
    assert {die: style for die, style in borders} == {
        "white:1": "solid", "black:2": "dashed", "red:3": "dashed", "blue:1": "solid",
        "yellow:6": "dashed", "green:4": "dashed"}
    for die in ("black:5", "red:2", "yellow:3", "green:6"):
        ann.click(f'#roll-entry .pad [data-die="{die}"]')
    ann.click("#send-roll")
    ann.wait_for_function("+document.body.dataset.seq >= 2")
    assert sorted((d["colour"], d["face"]) for d in state_of(ann, code)["roll"]) == [
        ("black", 5), ("blue", 1), ("green", 6), ("red", 2), ("white", 1), ("yellow", 3)]


def test_the_ones_entered_for_a_second_attempt_go_once_the_roll_is_written_on(base_url,
                                                                                players):
    """Ann writes on her first attempt instead of throwing again: the 1s the entry held for
    that second attempt are gone from her next turn's entry (a host found them in the next
    player's roll)."""
    ann, _ = players
    code = table_by_api(ann, base_url, "twenty_one", ["Ann"], """
        await act({type: 'roll', roll: 'white:1 black:2 red:3 blue:1 yellow:6 green:4'});""")
    ann.goto(f"{base_url}/t/{code}/sheet")
    ann.wait_for_selector("#reroll-hint")
    assert ann.locator("#picked .die").count() == 2
    ann.evaluate("code => fetch('/api/tables/' + code + '/actions', {method: 'POST', "
                 "headers: {'Content-Type': 'application/json'}, body: JSON.stringify("
                 "{type: 'place', seat: 0, placement: 'cross'})})", code)
    ann.wait_for_function("document.querySelector('#send-roll') && "
                          "document.querySelector('#send-roll').textContent === 'Roll'")
    assert ann.locator("#picked .die").count() == 0


def test_the_host_entering_anothers_roll_is_told_whose_it_is(base_url, players):
    """The host may roll for anyone; on Bob's turn the host's entry says it is Bob's roll, and
    a game of one throw a turn (Knister) counts no attempts."""
    ann, _ = players
    code = table_by_api(ann, base_url, "knister", ["Ann", "Bob"], """
        await act({type: 'roll', roll: '3 4'});
        await act({type: 'place', seat: 0, placement: 'A7@0'});
        await act({type: 'place', seat: 1, placement: 'A7@0'});""")
    ann.goto(f"{base_url}/t/{code}/sheet")
    ann.wait_for_selector("#roll-entry h2")
    assert ann.text_content("#roll-entry h2") == "Enter Bob's roll"
    ann.click('#roll-entry .pad [data-die=":2"]')
    ann.click('#roll-entry .pad [data-die=":5"]')
    ann.click("#send-roll")
    ann.wait_for_function("document.querySelector('#turn').textContent.startsWith('Turn of')")
    assert ann.text_content("#turn") == "Turn of: Bob"


def test_the_pages_run_under_their_content_security_policy(base_url, browser):
    """Every page works under the server's CSP (no inline script, no style attributes): nothing
    is refused in the console, and the pages' words come from the catalogue's data block. (The
    other tests' contexts bypass the CSP: Playwright evaluates their string predicates with
    eval, which the CSP forbids.)"""
    context = browser.new_context(viewport={"width": 360, "height": 740})
    page = context.new_page()
    refused, errors = [], []
    page.on("console", lambda msg: refused.append(msg.text)
            if "Content Security Policy" in msg.text else None)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(base_url + "/")
    code = page.evaluate("""() => fetch('/api/tables', {method: 'POST', headers: {'Content-Type':
        'application/json'}, body: JSON.stringify({game: 'qwinto', players: ['Ann', 'Bob'],
        claim: 0})}).then(r => r.json()).then(d => d.code)""")
    for path in ["/?lang=de", "/check", f"/t/{code}", f"/t/{code}/teach"]:
        resp = page.goto(base_url + path)
        assert "script-src 'self'" in resp.headers["content-security-policy"]
        page.wait_for_load_state("networkidle")
    page.goto(f"{base_url}/t/{code}/sheet?lang=de")
    page.wait_for_selector(".sheet .cell")       # drawn by app.js (its grid set by style)
    assert page.evaluate("getComputedStyle(document.querySelector('.sheet'))"
                         ".getPropertyValue('--cols')").strip() != ""
    assert page.evaluate("JSON.parse(document.getElementById('i18n').textContent).language") \
        == "English"
    context.close()
    assert not refused and not errors, (refused, errors)


def test_a_photo_refused_as_another_face_can_be_kept_on_the_phone(base_url, players, photo,
                                                                  tmp_path):
    """Ann teaches Kuh Vadis dice; a photo the photos taught so far read as another face is
    refused with the face it seems to show and a "keep it" button: Ann, sure of her tap, keeps
    it, and it is taught with the face she chose (its × still takes it back)."""
    import base64

    from vision.training.special_dice import SEEN_DESIGNS
    kv = SEEN_DESIGNS[0]
    ann, _ = players
    code = create_table(ann, base_url, "kuh_vadis")
    for k, face in enumerate((1, 2, 3, 4, 5, "cow") * 2):   # two photos of each face, as sent
        data = base64.b64encode(photo(kv, face, seed=100 + 10 * (k // 6) + k % 6)).decode()
        status = ann.evaluate(
            """([code, face, data]) => { const form = new FormData();
                 const bytes = Uint8Array.from(atob(data), c => c.charCodeAt(0));
                 form.append('face', face);
                 form.append('photo', new Blob([bytes], {type: 'image/jpeg'}), 'd.jpg');
                 return fetch('/api/tables/' + code + '/teach', {method: 'POST', body: form})
                   .then(r => r.status); }""", [code, str(face), data])
        assert status == 201
    ann.goto(f"{base_url}/t/{code}/teach")
    ann.wait_for_selector('#teach-faces button[data-value="3"]')
    ann.click('#teach-faces button[data-value="3"]')
    picture = tmp_path / "cow.jpg"
    picture.write_bytes(photo(kv, "cow", seed=177))
    ann.set_input_files("#take-photo", str(picture))       # a cow, tapped as a 3
    ann.wait_for_selector("#keep-photo")
    assert "looks like cow, not 3" in ann.inner_text("#teach-status")
    assert "2/3" in ann.inner_text('#teach-faces button[data-value="3"]')
    shot(ann, "teach-keep-phone")
    ann.click("#keep-photo")
    ann.wait_for_function("document.querySelectorAll('.taught-one').length === 13")
    assert "3/3" in ann.inner_text('#teach-faces button[data-value="3"]')
    ann.click("#undo-photo")
    ann.wait_for_function("document.querySelectorAll('.taught-one').length === 12")
