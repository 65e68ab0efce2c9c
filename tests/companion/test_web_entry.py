"""What players type in, refused with a reason at the place it is about: names at the table's
creation, a field of check my paper."""
import pytest


def test_a_game_for_exactly_two_says_two_players(client):
    r = client.post("/api/tables", json={"game": "kuh_vadis", "players": ["Ann"]})
    assert r.status_code == 400
    assert r.json["error"] == "Kuh Vadis is played by 2 players, not 1"
    assert r.json["code"] == "app.players_exactly"
    de = client.post("/api/tables?lang=de", json={"game": "kuh_vadis", "players": ["Ann"]})
    assert de.json["error"] == "Kuh Vadis wird von 2 Spielern gespielt, nicht von 1"
    r = client.post("/api/tables?lang=en", json={"game": "the_choice", "players": ["Ann"]})
    assert r.json["error"] == "The Choice is played by 2-4 players, not 1"


def test_a_name_of_only_spaces_is_refused(client):
    r = client.post("/api/tables", json={"game": "kuh_vadis", "players": ["Ann", "   "]})
    assert r.status_code == 400
    assert r.json["error"] == "a player's name needs a letter, digit or sign one can see"


@pytest.mark.parametrize("game, cells, field", [
    ("knister", {"A@0": "4", "C@2": "x"}, "C@2"),
    ("kuh_vadis", {"A@0": "x", "B@1": "q"}, "B@1"),
    ("the_choice", {"R@0": "x", "R@1": "3"}, "R@1"),
    ("qwinto", {"O@2": "5", "Y@4": "1.5"}, "Y@4"),
])
def test_check_my_paper_names_the_field_it_cannot_read(client, game, cells, field):
    extras = {"to_move": "O"} if game == "kuh_vadis" else {}
    r = client.post("/api/check", json={"game": game, "cells": cells, "extras": extras})
    assert r.status_code == 400 and r.json["field"] == field, r.json
