"""The advisor's hints on the phone page: a switch per player, off until turned on and
then remembered on that phone; with it on the legal fields are shaded by expected points
and the best is ringed; a player never sees another player's hints. Helpers and fixtures
are test_web_browser's."""
from test_web_browser import (ARGS, CHROMIUM, base_url, browser, players,  # noqa: F401
                              playwright, qwinto_table_with_a_roll, shot, state_of)


def advice_of(page, code, seat):
    return page.evaluate(
        "([code, seat]) => fetch(`/api/tables/${code}/advice?seat=${seat}`)"
        ".then(r => r.json().then(body => ({status: r.status, body})))", [code, seat])


def test_hints_are_a_players_own_switch(base_url, players):
    ann, bob = players
    code = qwinto_table_with_a_roll(ann, bob, base_url)      # Ann rolled orange 3, yellow 4
    ann.wait_for_selector("#sheet .cell.legal")
    assert not ann.is_checked("#hint-switch")              # off by default
    assert ann.locator("#sheet .cell.hint-best").count() == 0
    ann.check("#hint-switch")
    ann.wait_for_selector("#sheet .cell.hint-best")
    best = advice_of(ann, code, 0)["body"]["options"][0]
    row, col = best["placement"].split("7@")
    assert ann.get_attribute("#sheet .cell.hint-best", "data-key") == f"{row}@{col}"
    shaded = ann.locator("#sheet .cell.legal.hint-high, #sheet .cell.legal.hint-mid, "
                         "#sheet .cell.legal.hint-low")
    assert shaded.count() == ann.locator("#sheet .cell.legal").count()
    assert "Best" in ann.text_content("#advice") and best["reason"] in ann.text_content("#advice")
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
