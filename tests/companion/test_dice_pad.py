"""The dice a player taps in: every face the game takes, with the faces the sheet's description
of the dice lists marked as usual; a table's own (uploaded) description is its pad's."""
from companion import games as G


def test_the_choice_pad_offers_every_number_on_every_colour():
    spec = G.dice_spec("the_choice")
    assert len(spec["colours"]) == 6
    assert all(c["faces"] == [1, 2, 3, 4, 5, 6] for c in spec["colours"])
    # the shipped description (a reconstruction) puts each colour on three faces of the dice
    assert all(len(c["usual"]) == 3 for c in spec["colours"])


def test_games_with_plain_dice_keep_their_faces():
    assert G.dice_spec("qwinto")["colours"][0] == {"colour": "orange", "faces": [1, 2, 3, 4, 5, 6],
                                                    "usual": [1, 2, 3, 4, 5, 6]}
    kuh = G.dice_spec("kuh_vadis")["colours"]
    assert kuh == [{"colour": None, "faces": [1, 2, 3, 4, 5, "cow"],
                    "usual": [1, 2, 3, 4, 5, "cow"]}]


def test_a_tables_own_dice_description_is_its_pads(client):
    """The dice description is part of the layout (its "dice"): an uploaded layout with other
    dice gives that table's pad other usual faces."""
    from engine.layouts import builtin_layout_data
    mine = builtin_layout_data("the_choice", G.game_info("the_choice")["default_layout"])
    mine = dict(mine, name="our dice",
                dice=[{str(n): "red" if n < 4 else "blue" for n in range(1, 7)}] * 3)
    r = client.post("/api/tables", json={"game": "the_choice", "players": ["Ann", "Bob"],
                                         "layout": "uploaded", "uploaded": mine})
    assert r.status_code == 201, r.json
    dice = {c["colour"]: c for c in r.json["state"]["game"]["dice"]["colours"]}
    assert len(dice) == 6                      # every colour of the game, usual or not
    assert dice["red"]["usual"] == [1, 2, 3] and dice["red"]["faces"] == [1, 2, 3, 4, 5, 6]
    assert dice["green"]["usual"] == [] and dice["green"]["faces"] == [1, 2, 3, 4, 5, 6]
    # any face of any colour is still a roll: a green 4, not in this description, is taken
    code = r.json["code"]
    roll = client.post(f"/api/tables/{code}/actions",
                       json={"type": "roll", "roll": "green:4 red:6 blue:1"})
    assert roll.status_code == 200
