"""The advisor's hints on the phone page: a switch per player, off until turned on and
then remembered on that phone; with it on the legal fields are shaded by expected points
and the best is ringed; a player never sees another player's hints. Helpers and fixtures
are test_web_browser's."""
from engine.dice import Roll
from test_web_browser import (ARGS, CHROMIUM, at_once, base_url, browser,  # noqa: F401
                              create_table, players, playwright, qwinto_table_with_a_roll,
                              shot, state_of, table_by_api, tap_roll)


def advice_of(page, code, seat):
    return page.evaluate(
        "([code, seat]) => fetch(`/api/tables/${code}/advice?seat=${seat}`)"
        ".then(r => r.json().then(body => ({status: r.status, body})))", [code, seat])


def test_hints_are_a_players_own_switch(base_url, players):
    ann, bob = players
    code = qwinto_table_with_a_roll(ann, bob, base_url)      # Ann rolled orange 3, yellow 4
    ann.wait_for_selector("#sheet .cell.legal")
    assert not ann.is_checked("#hint-switch")              # off by default
    # a finger's target: the whole label, and a box that can be seen
    assert ann.locator("label.hint-switch").bounding_box()["height"] >= 44
    assert ann.locator("#hint-switch").bounding_box()["height"] >= 20
    assert ann.locator("#sheet .cell.hint-best").count() == 0
    ann.check("#hint-switch")
    ann.wait_for_selector("#sheet .cell.hint-best")
    best = advice_of(ann, code, 0)["body"]["options"][0]
    row, col = best["placement"].split("7@")
    assert ann.get_attribute("#sheet .cell.hint-best", "data-key") == f"{row}@{col}"
    shaded = ann.locator("#sheet .cell.legal.hint-high, #sheet .cell.legal.hint-mid, "
                         "#sheet .cell.legal.hint-low")
    assert shaded.count() == ann.locator("#sheet .cell.legal").count()
    # a legal pentagon's edge runs along its five sides (a box's edge is clipped away)
    edges = at_once(ann, "#sheet .cell.pentagon.legal",
                    "cs => cs.map(c => getComputedStyle(c).backgroundImage)")
    assert edges and all("polygon" in e for e in edges), edges
    assert "Best" in ann.text_content("#advice") and best["reason"] in ann.text_content("#advice")
    # what the rings mean is said under the best
    assert ann.text_content("#hint-key").startswith("The fields: a wide dark green border")
    shot(ann, "qwinto-ann-phone-hints")
    ann.reload()                                           # remembered on this phone
    ann.wait_for_selector("#sheet .cell.hint-best")
    assert ann.is_checked("#hint-switch")
    # Bob never sees Ann's hints: his page has none, and the server refuses them to him
    bob.wait_for_selector("#hint-switch")
    assert not bob.is_checked("#hint-switch")
    assert bob.locator("#sheet .hint-best, #sheet .hint-high, #advice").count() == 0
    assert advice_of(bob, code, 0)["status"] == 403
    # once Ann keeps the roll Bob may turn his own hints on, for his own sheet
    ann.click("#keep-roll")
    bob.wait_for_selector("#sheet .cell.legal")
    bob.check("#hint-switch")
    bob.wait_for_selector("#sheet .cell.hint-best")
    mine = advice_of(bob, code, 1)["body"]["best"]
    row, col = mine.split("7@")
    assert bob.get_attribute("#sheet .cell.hint-best", "data-key") == f"{row}@{col}"
    assert state_of(bob, code)["me"]["seat"] == 1


def test_a_roller_better_off_rolling_again_is_told_so_first(base_url, players):
    """Kuh Vadis, an empty sheet, 1 1 2 3 5 on the first of three attempts: no square is worth
    it now (pass), but rolling again keeping the 2 wins about 64 times in 100 against 40. The
    hint leads with rolling again, names the dice to throw as the roll shows them, and gives
    the best way to write this roll after it; the figures are chances to win, in words."""
    ann, _ = players
    code = create_table(ann, base_url, "kuh_vadis")
    tap_roll(ann, Roll.parse("1 1 2 3 5"))
    ann.wait_for_selector("#hint-switch")
    ann.check("#hint-switch")
    ann.wait_for_selector("#advice")
    advice = advice_of(ann, code, 0)["body"]
    assert advice["figure"] == "chance"
    again = advice["dice"][0]
    assert again["action"] == "reroll" and again["expected"] > advice["options"][0]["expected"]
    text = ann.text_content("#advice")
    roll = state_of(ann, code)["roll"]
    thrown = ", ".join(str(roll[i - 1]["face"]) for i in again["dice"])
    assert text.startswith(f"Best: roll again {thrown}: {again['reason']}")
    assert "To write this roll: Pass: " in text
    assert f"(wins {round(100 * advice['options'][0]['expected'])} times in 100)" in text
    shot(ann, "kuh_vadis-ann-phone-hint-roll-again")


def test_hints_keep_the_fields_colours(base_url, players):
    """twenty one: a field's colour is what its rule is about, so the hints mark the legal
    fields with a band inside their edge and leave each field's own colour as it was."""
    ann, _ = players
    code = table_by_api(ann, base_url, "twenty_one", ["Ann"], "await act({type: 'roll', "
                        "roll: 'yellow:6 red:4 green:2 blue:3 white:1 black:1'});")
    ann.goto(f"{base_url}/t/{code}/sheet")
    ann.wait_for_selector("#sheet .cell.legal")
    colours = ("cs => cs.map(c => c.dataset.key + ' ' + getComputedStyle(c).backgroundColor + "
               "' ' + getComputedStyle(c).backgroundImage)")     # a tint laid over counts too
    before = at_once(ann, "#sheet .cell.legal", colours)
    assert len(set(c.split(" ", 1)[1] for c in before)) > 1       # the row's own colours
    ann.check("#hint-switch")
    ann.wait_for_selector("#sheet .cell.hint-best")
    assert at_once(ann, "#sheet .cell.legal", colours) == before
    assert at_once(ann, "#sheet .cell.legal", "cs => cs.every(c => "
                   "/hint-(high|mid|low)/.test(c.className))")
    shot(ann, "twenty_one-ann-phone-hints-colours")


def test_why_a_field_is_refused_is_shown_where_the_player_looks(base_url, players):
    """Qwinto on a phone: the sheet is drawn in two halves, taller than the screen. A tap on a
    field the roll cannot go in says why, and the sentence is on the screen, not below it."""
    ann, bob = players
    qwinto_table_with_a_roll(ann, bob, base_url)          # Ann rolled orange 3, yellow 4
    ann.wait_for_selector("#sheet .cell.legal")
    cell = ann.locator('#sheet .cell[data-key="P@9"]')     # the sheet's last row
    cell.evaluate("c => c.scrollIntoView({block: 'end'})")  # at the foot of the screen
    cell.click()
    ann.wait_for_function("document.querySelector('#reason').textContent.includes('purple')")
    box = ann.locator("#reason").bounding_box()
    height = ann.viewport_size["height"]
    assert box["y"] >= 0 and box["y"] + box["height"] <= height, (box, height)
    shot(ann, "qwinto-ann-phone-refused-in-view")


def test_the_best_answer_in_the_choice_is_said_in_words(base_url, players):
    """The Choice: the best answer is said as the page says a built answer, each space with
    the dice it uses ("cross a blue space with the blue 2"), not in the engine's row letters
    ("R blue")."""
    ann, _ = players
    code = table_by_api(ann, base_url, "the_choice", ["Ann", "Bob"],
                        "await act({type: 'roll', roll: 'red:4 blue:2 yellow:6'});")
    ann.goto(f"{base_url}/t/{code}/sheet")
    ann.wait_for_selector("#hint-switch")
    ann.check("#hint-switch")
    ann.wait_for_selector("#advice")
    text = ann.text_content("#advice")
    assert text.startswith("Best: ") and " with the " in text, text
    best = advice_of(ann, code, 0)["body"]["options"][0]["parts"]
    for mark in best["marks"]:
        assert f"{mark['row']} {mark['value']}" not in text, text
    shot(ann, "the_choice-ann-phone-hint-words")


def test_a_number_on_the_line_of_the_choice_is_drawn_marked(base_url, players):
    """The Choice: a number space written on the line is drawn ringed and filled, as the paper's
    line passes through it, not only in bold."""
    ann, _ = players
    code = table_by_api(ann, base_url, "the_choice", ["Ann", "Bob"], """
        await act({type: 'roll', roll: 'red:4 blue:2 yellow:6'});
        const state = await fetch('/api/tables/' + code).then(r => r.json());
        const legal = state.me.seats['0'].legal.find(p => p.startsWith('N'));
        await act({type: 'place', seat: 0, placement: legal});""")
    ann.goto(f"{base_url}/t/{code}/sheet")
    ann.wait_for_selector(".ring-middle .cell.filled")
    looks = at_once(ann, ".ring-middle .cell", "cs => cs.map(c => [c.classList.contains('filled'), "
                    "getComputedStyle(c).backgroundColor, getComputedStyle(c).borderTopWidth])")
    marked = {tuple(x[1:]) for x in looks if x[0]}
    plain = {tuple(x[1:]) for x in looks if not x[0]}
    assert marked and plain and not marked & plain, looks
    shot(ann, "the_choice-ann-phone-number-marked")


def test_the_qwinto_roller_sees_which_colours_to_roll(base_url, players):
    """Qwinto, before the roll: with hints on, the player who rolls next is told which colours
    to roll, as the advice ranks them; once rolled, the hint turns to the fields."""
    ann, _ = players
    code = table_by_api(ann, base_url, "qwinto", ["Ann", "Bob"], "")
    ann.goto(f"{base_url}/t/{code}/sheet")
    ann.wait_for_selector("#hint-switch")
    ann.check("#hint-switch")
    ann.wait_for_selector("#advice")
    pick = advice_of(ann, code, 0)["body"]["dice"][0]
    text = ann.text_content("#advice")
    assert text.startswith("Best: roll " + ", ".join(pick["dice"]) + ": " + pick["reason"]), text
    assert "(expected final score " in text
    tap_roll(ann, Roll.parse("orange:3 yellow:4"))
    ann.wait_for_selector("#sheet .cell.hint-best")
    # now about this roll (rolling it again, or the field to write it in), once
    ann.wait_for_timeout(500)
    assert ann.locator("#advice").count() == 1 and ann.text_content("#advice") != text


def test_a_german_player_reads_the_hint_in_german(base_url, players):
    """A German page gives the advisor's reason in German and its figure with a decimal
    comma, as the rest of the page writes numbers."""
    ann, _ = players
    code = table_by_api(ann, base_url, "knister", ["Ann"],
                        "await act({type: 'roll', roll: '3 4'});")
    ann.goto(f"{base_url}/t/{code}/sheet?lang=de")
    ann.wait_for_selector("#hint-switch")
    ann.check("#hint-switch")
    ann.wait_for_selector("#advice")
    text = ann.text_content("#advice").replace(ann.text_content("#hint-key"), "")
    assert text.startswith("Am besten: 7 in Reihe "), text
    assert " hat 7: " in text and " holds " not in text, text
    figure = text.rsplit("(erwartete Endpunktzahl ", 1)[1]
    assert figure[:-1].replace(",", "", 1).isdigit() and "," in figure, text
    assert ann.text_content("#hint-key").startswith("Breiter dunkelgrüner Rahmen: bestes Drittel")
    shot(ann, "knister-ann-phone-hints-de")
