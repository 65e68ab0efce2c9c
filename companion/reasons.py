"""The engine's sentences in the pages' languages, translated by code.

The engine is language-free: a refusal, a rule problem or a score line is an
`engine.reasons.Reason`, a code with parameters whose text is the English sentence
(`Reason("game.sum", total=7, v=9)` reads "the dice add up to 7, not 9"). This module is the
companion's message catalogue: `CATALOGUE` maps every code to its German template, and
`translate(reason, lang)` fills that template with the reason's parameters, translating those
that are words (colours, the Kuh Vadis players, a sheet's side, Knister's combinations) or
sentences themselves (a parameter that is a `Reason`). No sentence is parsed.

The companion's own sentences (`COMPANION`, codes `app.*`) are declared as reasons too. Those
still made as plain text (in the store, the teaching checks and the API) are recognised by
their template (`explain`), and a shipped layout's note by its exact text; any other plain
text (a layout's own note, an error from a library) is shown as it is: never an error.
`tests/companion/test_reasons.py` checks that every code the engine declares has an entry, and
plays random games of every game to check that every reason the pages would show is one.

Placeholders are `{name}`; the name's prefix says how its value is translated:
`c` a colour, `cs` a list of colours ("orange, yellow"), `cor` colours joined by " or " (or
a die's symbols, 'cow': kept, with " oder " between them), `pl` Kuh Vadis players (crosses /
circles), `pd` the same in the dative, `pm` one of them (cross / circle), `sym` a Kuh Vadis
symbol ("a cow", "a 3"; `symk` negated: "keine Kuh"), `res` Kuh Vadis results, `kf` Kuh
Vadis faces ("2 cow 5"), `side` a The Choice side, `combo` a Knister combination, `x` a
figure with decimals (a decimal comma in German), `s` a sentence (translated again); anything
else is kept as it is (numbers, names, fields, dice, and what a player typed: a malformed
roll's text, an uploaded layout's JSON keys and values).
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from engine.reasons import TEMPLATES, Reason, declare

# -- words ------------------------------------------------------------------------------------
WORDS: dict[str, dict[str, dict[str, str]]] = {
    "de": {
        "c": {"orange": "Orange", "yellow": "Gelb", "purple": "Lila", "white": "Weiß",
              "black": "Schwarz", "red": "Rot", "blue": "Blau", "green": "Grün",
              "grey": "Grau"},
        "pl": {"crosses": "Kreuze", "circles": "Kreise"},
        "pd": {"crosses": "Kreuzen", "circles": "Kreisen"},
        "pm": {"cross": "Kreuz", "circle": "Kreis"},
        "side": {"front": "Vorderseite", "back": "Rückseite"},
        "combo": {"pair": "Paar", "two pairs": "zwei Paare", "three of a kind": "Drilling",
                  "full house": "Full House", "four of a kind": "Vierling",
                  "five of a kind": "Fünfling", "straight with 7": "Straße mit 7",
                  "straight without 7": "Straße ohne 7"},
    },
}

# The companion's own sentences (code -> English): its refusals and the shipped layouts' notes.
# Declared as reasons like the engine's, so a page may make `Reason("app.no_table", code=...)`.
COMPANION: dict[str, str] = {
    "layout.note.qwinto":
        "The printed Qwinto sheet, as three independent public sources give it.",
    "layout.note.knister":
        "The 5x5 grid with the combination table printed beside it, as the rule text gives it.",
    "layout.note.twenty_one":
        "Colour arrangement reconstructed (not published): each colour once per row, the order "
        "rotated by sheet and row; printed numbers 6-5-4-3-2-1 (the first row's as published, the "
        "others inferred). Replace it with the arrangement printed on your own sheet.",
    "layout.note.kuh_vadis":
        "Reconstructed pad: it matches the reported square counts, but the printed pads are not "
        "published. Rows top to bottom (A-G), columns left to right (0-6); C = cow, X/O = printed "
        "starting crosses/circles. Replace it with the pad you play on.",
    "layout.note.the_choice":
        "Reconstructed sheet: ring colours, number grid and the number points (except lines of 1, "
        "10, 11 and 13 spaces) are not published. The front is a reconstruction that fits Tim's "
        "path 8-12-7-3-1-9-4 and his ring crosses. The back is a second reconstruction made to "
        "fit the rule text's four-player example, which the front cannot (Tim's three touching "
        "colour spaces green, green, yellow and Maria's line 6-2-1). Replace it with the sheet "
        "you play on.",
    "app.answered_you": "you have already answered this roll",
    "app.changed": "the table changed meanwhile: look again and retry",
    "app.only_roll": "only the table's creator or {name}, whose turn it is, may roll",
    "app.only_correct":
        "only the table's creator or {name}, whose turn it is, may correct the roll",
    "app.only_keep": "only the table's creator or {name}, whose turn it is, may keep the roll",
    "app.not_your_sheet": "this is {name}'s sheet: only {name} may write on it",
    "app.no_seat": "there is no seat {seat} at this table",
    "app.sitting": "you already sit at this table as {name}",
    "app.seat_taken": "{name} has already joined this table",
    "app.no_table": "there is no table '{code}'",
    "app.teach_no_die":
        "no die in the middle of the photo: hold the phone close over one die, with the die in "
        "the middle",
    "app.teach_small": "the die is {n} px in the photo: come closer (at least {m} px)",
    "app.teach_blurred": "the photo is blurred: hold the phone still and let it focus on the die",
    "app.teach_looks_like":
        "this photo looks like {seen}, not {label}, next to the photos taught so far: check the "
        "face you chose, or take the photo again",
    "app.teach_looks_like_builtin":
        "this photo looks like {seen}, not {label}: check the face you chose, or take the photo "
        "again",
    "app.teach_builtin_better":
        "the built-in reader reads your photos better than the taught dice do ({right} of "
        "{judged} readings against {taught}, each photo as taken and as small as the table's "
        "camera sees a die, read by the others): the table keeps the built-in reader; photos "
        "taken at the table, in its light, teach better",
    "app.players_exactly": "{game} is played by {a} players, not {n}",
    "app.rejoin_host": "only the table's creator can show a rejoin code",
    "app.rejoin_free":
        "nobody has joined as {name} yet: {name} sits down with the table's join link",
    "app.join_link": "taking a seat needs the table's join link: scan the host's QR code or "
                     "open the link the host shares",
    "app.rejoin_wrong": "that is not {name}'s rejoin code: ask the host for the code shown now",
    "app.rejoin_changed": "{name}'s seat changed meanwhile: ask the host for the code shown now",
    "app.stand_in":
        "{name} has joined on their own device: answer for {name} only after confirming",
    "app.too_large": "the upload is too large",
    "app.same_name": "two players have the same name",
    "app.to_move_ask": "whose move is it? say it with 'to_move': X (crosses) or O (circles)",
    "app.to_move": "'to_move' is X (crosses) or O (circles), not '{v}'",
    "app.only_begin": "only the table's creator says who begins",
    "app.seat_layouts":
        "in {game} every player gets a different sheet ({names}): sheet {sheet} is given to "
        "{n} players; name one per player, or leave the sheets out to deal them in turn",
    "app.frame_empty": "the frame is empty",
    "app.frame_type": "the frame is not a JPEG or PNG image",
    "app.frame_corrupt": "the frame is corrupt: it could not be decoded",
    "app.photo_empty": "the photo is empty",
    "app.photo_type": "the photo is not a JPEG or PNG image",
    "app.photo_corrupt": "the photo is corrupt: it could not be decoded",
    "app.photo_heif": "the photo is a {brand} image, which cannot be read here: send it as JPEG "
                      "or PNG (an iPhone takes JPEG with Settings > Camera > Formats > Most "
                      "Compatible)",
    "app.frame_heif": "the frame is a {brand} image, which cannot be read here: send it as JPEG "
                      "or PNG (an iPhone takes JPEG with Settings > Camera > Formats > Most "
                      "Compatible)",
    "app.photo_avif": "the photo is an AVIF image, which cannot be read here: send it as JPEG "
                      "or PNG (a gallery app's share or export gives one)",
    "app.frame_avif": "the frame is an AVIF image, which cannot be read here: send it as JPEG "
                      "or PNG (a gallery app's share or export gives one)",
    "app.no_next_picture": "the table camera shows what it sees: there is no next picture",
    "app.no_camera": "the server has no camera and no demo pictures",
    # request bodies (companion.bodies, api_base.body_json) and other sites (companion.security)
    "app.json_malformed": "malformed JSON: {s}",
    "app.json_huge": "the number {v} is too large",
    "app.json_huge_int": "the number {v} is too large (at most {max})",
    "app.json_constant": "{v} is not a JSON number",
    "app.json_utf8": "not UTF-8 text ({why} at byte {n})",
    "app.json_deep": "nested more than {n} deep",
    "app.json_surrogate":
        "the text holds a lone surrogate (\\ud800-\\udfff), which is not a character",
    "app.json_nul": "the text holds a NUL character (\\u0000)",
    "app.json_type": "send the body as JSON (Content-Type: application/json)",
    "app.json_object": "send a JSON object",
    "app.cross_site": "refused: this request comes from a page of another site",
    "app.no_route": "there is no such address",
    "app.no_method": "this address does not take that method",
    "app.limit": "'limit' must be a number of seconds 0-{max}",
    # frames and photos (companion.reader.decode_frame); reading them
    "app.frame_no_size": "the frame is corrupt: its header gives no size",
    "app.photo_no_size": "the photo is corrupt: its header gives no size",
    "app.frame_side": "the frame is {w}x{h}: at most {max} pixels a side",
    "app.photo_side": "the photo is {w}x{h}: at most {max} pixels a side",
    "app.no_reader": "camera reading unavailable: {why}",
    "app.frames_join": "join the table to send it camera frames",
    # tables, seats and actions (companion.api, companion.store, companion.games)
    "app.players_list": "'players' must be a list of names",
    "app.name_long": "a player's name is at most {n} characters: '{name}' has {k}",
    "app.name_blank": "a player's name needs a letter, digit or sign one can see",
    "app.layouts_each": "'layouts' needs one entry per player",
    "app.uploaded_object": "'uploaded' must be a layout object",
    "app.layouts_list": "layouts must be a list of layout objects",
    "app.no_upload": "no layout file was uploaded",
    "app.layout_kind": "a layout is a shipped layout's name or a layout object",
    "app.claim": "'claim' must be a seat 0-{n}",
    "app.first": "'first' must be \"random\" or a seat 0-{n}",
    "app.key": "'key' must be 16-64 letters, digits, '-' or '_'",
    "app.send_seat": "send 'seat': a number",
    "app.send_rejoin": "send 'seat': a number, and 'key': the rejoin code",
    "app.no_seat_of": "there is no seat {seat} at this table of {n}",
    "app.action_type": "an action must be a JSON object with a 'type'",
    "app.seq": "'seq' must be the log position the action was made against",
    "app.seq_past": "'seq' {v} is past the end of the log ({n})",
    "app.send_check": "send 'seat' and 'placement'",
    "app.seat_number": "'seat' must be a seat number",
    "app.cells": "'cells' must map fields to values",
    "app.extras": "'extras' must map the sheet's extras to values",
    "app.final": "'final' is true or false",
    "app.no_grid": "{game} has no grid entry yet: type the sheet as JSON",
    "app.no_fields": "no such field(s): {fields}",
    "app.field_written": "field {f}: '{text}' is not something written on a sheet",
    "app.field_value": "field {f}: '{text}' is not a number or a mark",
    "app.roll_list": "a roll is a list of dice",
    "app.die_face": "each die needs a 'face'",
    "app.hint_seat": "name a seat 0-{n}: ?seat=N",
    "app.hints_own": "hints are shown only to the player whose sheet it is",
    # teaching a table its dice (companion.teach_api, companion.teaching)
    "app.teach_join": "join the table to teach its dice",
    "app.teach_no_example": "there is no taught example {text}",
    "app.teach_none": "nothing has been taught yet",
    "app.teach_no_withdraw": "there is no taught example {text} to withdraw",
    "app.teach_use": "send 'use': true or false",
    "app.teach_first": "teach every face first",
    "app.teach_first_missing": "teach every face first: {missing}",
    "app.teach_no_body": "the dice of this game do not differ by body colour: there are no "
                         "colours to calibrate",
    "app.teach_no_dice":
        "no dice found in the photo: put the dice on the table and take the photo from above",
    "app.teach_no_die_in": "there is no die {die} in a colour photo {n}",
    "app.teach_send_names": "send 'photo': its number and 'names': a list, or 'photo': null",
    "app.teach_no_photo": "there is no colour photo {text}",
    "app.teach_bad_colours": "these colours cannot be used: {s}",
    "app.teach_no_reader": "the taught reader cannot be built: {why}",
    "app.teach_photo_first": "take a photo of your dice first",
    "app.teach_names_each": "send one colour (or null) for each of the {n} dice found",
    "app.teach_not_colour": "{text} is not a colour of these dice (colours: {list})",
    "app.teach_name_one": "name the colour of at least one die",
    "app.teach_twice": "{cs}: named on two dice, but the game has one die of each colour",
    "app.teach_say_face": "say which face the die shows (the field 'face')",
    "app.teach_not_face": "'{text}' is not a face of these dice (faces: {list})",
    "app.teach_face_only": "these dice take their colour from the body: teach the face only",
    "app.teach_say_colour": "say which colour the face shows (the field 'colour')",
}
declare(COMPANION)

# code -> German template, for every code the engine declares and the companion's own.
CATALOGUE: dict[str, str] = {
    "table.over": "das Spiel ist vorbei",
    "table.no_further_attempt": "{name} hat fertig gewürfelt: kein weiterer Versuch",
    "table.still_rolling": "{name} würfelt noch: eintragen, sobald {name} den Wurf behält",
    "table.kept_already":
        "{name} hat schon fertig gewürfelt: alle dürfen auf diesen Wurf eintragen",
    "table.nothing_to_keep": "es gibt keinen offenen Wurf zum Behalten",
    "table.attempts_one": "{game} erlaubt 1 Wurf pro Zug",
    "table.attempts": "{game} erlaubt {n} Würfe pro Zug",
    "table.nothing_to_correct": "es gibt keinen offenen Wurf zum Korrigieren",
    "table.written_no_correct":
        "auf diesen Wurf wurde schon eingetragen: erst müssen die Einträge zurückgenommen "
        "werden, dann kann er korrigiert werden",
    "table.not_rolled": "es wurde noch nicht gewürfelt",
    "table.answered": "{name} hat auf diesen Wurf schon eingetragen",
    "table.roller_only": "bei {game} trägt nur, wer würfelt, auf den Wurf ein: {name} ist am Zug",
    "table.end_side_after":
        "{name} darf eine Seite erst beenden, nachdem er oder sie auf einen Wurf eingetragen "
        "hat",
    "table.nothing_to_undo": "{name} hat bei diesem Wurf nichts zurückzunehmen",
    "table.no_seat_of": "an diesem Tisch mit {n} Plätzen gibt es keinen Platz {seat}",
    "table.players": "{game} wird von {a}-{b} Spielern gespielt, nicht von {n}",
    "table.begin_first": "wer beginnt, wird vor dem ersten Wurf festgelegt",
    "table.side_answered":
        "{name} hat auf diesen Wurf schon eingetragen: die Startseite wird vor dem ersten "
        "Eintrag gewählt",
    "table.seat": "'seat' muss eine Platznummer sein (0, 1, ...), nicht {v}",
    "game.no_sides": "{game} hat keine Zettelseiten zur Wahl",
    "the_choice.ended_full": "die zweite Seite ist voll",
    "the_choice.ended_misthrows": "{n} Fehlwürfe auf der zweiten Seite",
    "the_choice.side_unknown": "keine Seite '{side}': die Seiten sind {sides}",
    "the_choice.side_marked":
        "die Startseite wird vor dem ersten Eintrag gewählt: auf diesem Zettel steht schon "
        "etwas",
    "game.no_erase":
        "{game} kennt kein Ausradieren: stattdessen den Eintrag zu diesem Wurf zurücknehmen",
    "table.erase_answer":
        "{f} ist der Eintrag von {name} zu diesem Wurf: ihn stattdessen zurücknehmen",
    "table.not_field": "'{f}' ist kein Feld: REIHE@SPALTE schreiben, z. B. O@4",
    "knister.good": "gut: 50 bis 79 Punkte",
    "knister.very_good": "sehr gut: 80 bis 99 Punkte",
    "knister.amazing": "fantastisch: 100 Punkte oder mehr",
    "game.no_side": "{game} hat keine Zettelseite, die man beenden könnte",
    "game.face": "'{die}' zeigt keine Augenzahl 1-6",
    "game.one_field": "die Summe wird in genau ein Feld eingetragen",
    "game.sum": "die Würfel ergeben zusammen {total}, nicht {v}",
    "game.first_random": "ausgelost",
    "layout.note.qwinto":
        "Der gedruckte Qwinto-Zettel, wie ihn drei unabhängige öffentliche Quellen wiedergeben.",
    "layout.note.knister":
        "Das 5x5-Raster mit der daneben gedruckten Kombinationstabelle, wie die Spielregel es "
        "beschreibt.",
    "layout.note.twenty_one":
        "Farbanordnung rekonstruiert (nicht veröffentlicht): jede Farbe einmal pro Reihe, die "
        "Reihenfolge je Zettel und Reihe verschoben; gedruckte Zahlen 6-5-4-3-2-1 (die erste "
        "Reihe wie veröffentlicht, die anderen erschlossen). Ersetze sie durch die Anordnung "
        "auf deinem eigenen Zettel.",
    "layout.note.kuh_vadis":
        "Rekonstruierter Block: Er passt zu den berichteten Feldzahlen, die gedruckten Blöcke "
        "sind aber nicht veröffentlicht. Reihen von oben nach unten (A-G), Spalten von links "
        "nach rechts (0-6); C = Kuh, X/O = gedruckte Start-Kreuze/-Kreise. Ersetze ihn durch "
        "den Block, auf dem ihr spielt.",
    "layout.note.the_choice":
        "Rekonstruierter Zettel: Ringfarben, Zahlenraster und Zahlenpunkte (außer für Linien "
        "aus 1, 10, 11 und 13 Feldern) sind nicht veröffentlicht. Die Vorderseite ist eine "
        "Rekonstruktion, die zu Tims Weg 8-12-7-3-1-9-4 und seinen Ringkreuzen passt. Die "
        "Rückseite ist eine zweite Rekonstruktion, passend zum Beispiel mit vier Spielern aus "
        "der Spielregel, das die Vorderseite nicht erlaubt (Tims drei aneinanderliegende "
        "Farbfelder grün, grün, gelb und Marias Linie 6-2-1). Ersetze ihn "
        "durch den Zettel, auf dem ihr spielt.",
    "app.answered_you": "du hast auf diesen Wurf schon eingetragen",
    "app.changed":
        "der Tisch hat sich inzwischen geändert: noch einmal ansehen und erneut versuchen",
    "app.only_roll": "würfeln darf nur, wer den Tisch angelegt hat, oder {name} (am Zug)",
    "app.only_correct":
        "den Wurf korrigieren darf nur, wer den Tisch angelegt hat, oder {name} (am Zug)",
    "app.only_keep":
        "den Wurf behalten darf nur, wer den Tisch angelegt hat, oder {name} (am Zug)",
    "app.not_your_sheet": "das ist der Zettel von {name}: nur {name} darf darauf schreiben",
    "app.no_seat": "an diesem Tisch gibt es keinen Platz {seat}",
    "app.sitting": "du sitzt an diesem Tisch schon als {name}",
    "app.seat_taken": "{name} sitzt schon an diesem Tisch",
    "app.no_table": "es gibt keinen Tisch '{code}'",
    "app.teach_no_die":
        "kein Würfel in der Bildmitte: das Handy nah über einen Würfel halten, den Würfel in "
        "der Mitte",
    "app.teach_small":
        "der Würfel ist {n} px groß im Foto: näher herangehen (mindestens {m} px)",
    "app.teach_blurred":
        "das Foto ist unscharf: das Handy ruhig halten und auf den Würfel scharf stellen "
        "lassen",
    "app.teach_looks_like":
        "neben den bisher gezeigten Fotos sieht dieses Foto nach {seen} aus, nicht nach {label}: "
        "die gewählte Seite prüfen oder das Foto neu aufnehmen",
    "app.teach_looks_like_builtin":
        "dieses Foto sieht nach {seen} aus, nicht nach {label}: die gewählte Seite prüfen oder "
        "das Foto neu aufnehmen",
    "app.teach_builtin_better":
        "der eingebaute Leser liest deine Fotos besser als die gelernten Würfel ({right} von "
        "{judged} Lesungen gegen {taught}, jedes Foto wie aufgenommen und so klein, wie die "
        "Kamera am Tisch einen Würfel sieht, von den anderen gelesen): der Tisch behält den "
        "eingebauten Leser; Fotos am Tisch, in seinem Licht, lehren besser",
    "app.players_exactly": "{game} wird von {a} Spielern gespielt, nicht von {n}",
    "app.rejoin_host": "nur wer den Tisch angelegt hat, kann einen Code zum Wiederhinsetzen zeigen",
    "app.rejoin_free":
        "als {name} hat sich noch niemand hingesetzt: {name} setzt sich mit dem Einladungslink "
        "des Tisches hin",
    "app.join_link": "zum Hinsetzen braucht es den Einladungslink des Tisches: den QR-Code des "
                     "Gastgebers scannen oder den Link öffnen, den der Gastgeber teilt",
    "app.rejoin_wrong":
        "das ist nicht der Code von {name}: den Gastgeber nach dem jetzt gezeigten Code fragen",
    "app.rejoin_changed":
        "der Platz von {name} hat sich inzwischen geändert: den Gastgeber nach dem jetzt "
        "gezeigten Code fragen",
    "app.stand_in":
        "{name} sitzt mit einem eigenen Gerät am Tisch: nur nach Bestätigung für {name} "
        "eintragen",
    "app.too_large": "die hochgeladene Datei ist zu groß",
    "app.same_name": "zwei Spieler haben denselben Namen",
    "app.to_move_ask": "wer ist am Zug? mit 'to_move' angeben: X (Kreuze) oder O (Kreise)",
    "app.to_move": "'to_move' ist X (Kreuze) oder O (Kreise), nicht '{v}'",
    "app.only_begin": "nur wer den Tisch angelegt hat, legt fest, wer beginnt",
    "app.seat_layouts":
        "bei {game} bekommt jeder Spieler einen anderen Zettel ({names}): Zettel {sheet} haben "
        "{n} Spieler; für jeden Spieler einen nennen oder die Zettel weglassen, dann werden "
        "sie der Reihe nach verteilt",
    "app.frame_empty": "das Bild ist leer",
    "app.frame_type": "das Bild ist kein JPEG- oder PNG-Bild",
    "app.frame_corrupt": "das Bild ist beschädigt: es ließ sich nicht lesen",
    "app.photo_empty": "das Foto ist leer",
    "app.photo_type": "das Foto ist kein JPEG- oder PNG-Bild",
    "app.photo_corrupt": "das Foto ist beschädigt: es ließ sich nicht lesen",
    "app.photo_heif": "das Foto ist ein {brand}-Bild, das hier nicht gelesen werden kann: "
                      "schicke es als JPEG oder PNG (ein iPhone macht JPEG mit Einstellungen > "
                      "Kamera > Formate > Maximale Kompatibilität)",
    "app.frame_heif": "das Kamerabild ist ein {brand}-Bild, das hier nicht gelesen werden kann: "
                      "schicke es als JPEG oder PNG",
    "app.photo_avif": "das Foto ist ein AVIF-Bild, das hier nicht gelesen werden kann: schicke "
                      "es als JPEG oder PNG (Teilen oder Exportieren in der Galerie-App gibt eins)",
    "app.frame_avif": "das Kamerabild ist ein AVIF-Bild, das hier nicht gelesen werden kann: "
                      "schicke es als JPEG oder PNG (Teilen oder Exportieren in der Galerie-App "
                      "gibt eins)",
    "app.no_next_picture": "die Tischkamera zeigt, was sie sieht: es gibt kein nächstes Bild",
    "app.no_camera": "der Server hat keine Kamera und keine Demo-Bilder",
    "app.json_malformed": "fehlerhaftes JSON: {s}",
    "app.json_huge": "die Zahl {v} ist zu groß",
    "app.json_huge_int": "die Zahl {v} ist zu groß (höchstens {max})",
    "app.json_constant": "{v} ist keine JSON-Zahl",
    "app.json_utf8": "kein UTF-8-Text ({why} bei Byte {n})",
    "app.json_deep": "mehr als {n} Ebenen tief verschachtelt",
    "app.json_surrogate":
        "der Text enthält ein einzelnes Ersatzzeichen (\\ud800-\\udfff), das kein Zeichen ist",
    "app.json_nul": "der Text enthält ein NUL-Zeichen (\\u0000)",
    "app.json_type": "den Inhalt als JSON senden (Content-Type: application/json)",
    "app.json_object": "ein JSON-Objekt senden",
    "app.cross_site": "abgelehnt: diese Anfrage kommt von einer Seite einer anderen Website",
    "app.no_route": "diese Adresse gibt es nicht",
    "app.no_method": "diese Adresse nimmt diese Methode nicht an",
    "app.limit": "'limit' muss eine Zahl von Sekunden zwischen 0 und {max} sein",
    "app.frame_no_size": "das Bild ist beschädigt: sein Kopf nennt keine Größe",
    "app.photo_no_size": "das Foto ist beschädigt: sein Kopf nennt keine Größe",
    "app.frame_side": "das Bild ist {w}x{h} groß: höchstens {max} Pixel pro Seite",
    "app.photo_side": "das Foto ist {w}x{h} groß: höchstens {max} Pixel pro Seite",
    "app.no_reader": "Kamera-Lesen nicht verfügbar: {why}",
    "app.frames_join": "erst an den Tisch setzen, dann Kamerabilder senden",
    "app.players_list": "'players' muss eine Liste von Namen sein",
    "app.name_long": "ein Spielername hat höchstens {n} Zeichen: '{name}' hat {k}",
    "app.name_blank": "ein Spielername braucht einen Buchstaben, eine Ziffer oder ein sichtbares "
                      "Zeichen",
    "app.layouts_each": "'layouts' braucht einen Eintrag pro Spieler",
    "app.uploaded_object": "'uploaded' muss ein Zettel-Objekt sein",
    "app.layouts_list": "die Zettel müssen eine Liste von Zettel-Objekten sein",
    "app.no_upload": "es wurde keine Zettel-Datei hochgeladen",
    "app.layout_kind":
        "ein Zettel ist der Name eines mitgelieferten Zettels oder ein Zettel-Objekt",
    "app.claim": "'claim' muss ein Platz von 0 bis {n} sein",
    "app.first": "'first' muss \"random\" oder ein Platz von 0 bis {n} sein",
    "app.key": "'key' muss aus 16-64 Buchstaben, Ziffern, '-' oder '_' bestehen",
    "app.send_seat": "'seat' als Zahl senden",
    "app.send_rejoin": "'seat' als Zahl und 'key' mit dem Code zum Wiederhinsetzen senden",
    "app.no_seat_of": "an diesem Tisch mit {n} Plätzen gibt es keinen Platz {seat}",
    "app.action_type": "eine Aktion muss ein JSON-Objekt mit einem 'type' sein",
    "app.seq": "'seq' muss die Stelle im Protokoll sein, auf die sich die Aktion bezieht",
    "app.seq_past": "'seq' {v} liegt hinter dem Ende des Protokolls ({n})",
    "app.send_check": "'seat' und 'placement' senden",
    "app.seat_number": "'seat' muss eine Platznummer sein",
    "app.cells": "'cells' muss Feldern Werte zuordnen",
    "app.extras": "'extras' muss den Extras des Zettels Werte zuordnen",
    "app.final": "'final' ist true oder false",
    "app.no_grid": "für {game} gibt es noch keine Eingabe im Raster: den Zettel als JSON eingeben",
    "app.no_fields": "diese Felder gibt es nicht: {fields}",
    "app.field_written": "Feld {f}: '{text}' ist nichts, was auf einem Zettel steht",
    "app.field_value": "Feld {f}: '{text}' ist weder eine Zahl noch ein Zeichen",
    "app.roll_list": "ein Wurf ist eine Liste von Würfeln",
    "app.die_face": "jeder Würfel braucht ein 'face'",
    "app.hint_seat": "einen Platz von 0 bis {n} nennen: ?seat=N",
    "app.hints_own": "Tipps sieht nur, wem der Zettel gehört",
    "app.teach_join": "erst an den Tisch setzen, dann seine Würfel beibringen",
    "app.teach_no_example": "es gibt kein beigebrachtes Beispiel {text}",
    "app.teach_none": "es wurde noch nichts beigebracht",
    "app.teach_no_withdraw": "es gibt kein beigebrachtes Beispiel {text} zum Zurücknehmen",
    "app.teach_use": "'use' als true oder false senden",
    "app.teach_first": "erst jede Seite beibringen",
    "app.teach_first_missing": "erst jede Seite beibringen: {missing}",
    "app.teach_no_body":
        "die Würfel dieses Spiels unterscheiden sich nicht durch ihre Farbe: es gibt keine "
        "Farben einzustellen",
    "app.teach_no_dice":
        "keine Würfel im Foto gefunden: die Würfel auf den Tisch legen und von oben "
        "fotografieren",
    "app.teach_no_die_in": "im Farbfoto {n} gibt es keinen Würfel {die}",
    "app.teach_send_names":
        "'photo' mit seiner Nummer und 'names' als Liste senden, oder 'photo' als null",
    "app.teach_no_photo": "es gibt kein Farbfoto {text}",
    "app.teach_bad_colours": "diese Farben lassen sich nicht verwenden: {s}",
    "app.teach_no_reader": "der beigebrachte Leser lässt sich nicht bauen: {why}",
    "app.teach_photo_first": "erst ein Foto der Würfel machen",
    "app.teach_names_each": "für jeden der {n} gefundenen Würfel eine Farbe (oder null) senden",
    "app.teach_not_colour": "{text} ist keine Farbe dieser Würfel (Farben: {list})",
    "app.teach_name_one": "die Farbe mindestens eines Würfels nennen",
    "app.teach_twice": "{cs}: auf zwei Würfeln genannt, aber das Spiel hat nur einen Würfel "
                       "jeder Farbe",
    "app.teach_say_face": "sagen, welche Seite der Würfel zeigt (das Feld 'face')",
    "app.teach_not_face": "'{text}' ist keine Seite dieser Würfel (Seiten: {list})",
    "app.teach_face_only":
        "diese Würfel haben ihre Farbe vom Körper: nur die Seite beibringen",
    "app.teach_say_colour": "sagen, welche Farbe die Seite zeigt (das Feld 'colour')",
    "qwinto.ended_rows": "{n} Reihen sind voll",
    "qwinto.ended_fails": "{n} Fehlwürfe",
    "qwinto.greater": "{v} muss größer sein als die {w} links davon in der Reihe {c}",
    "qwinto.smaller": "{v} muss kleiner sein als die {w} rechts davon in der Reihe {c}",
    "qwinto.column": "{v} steht schon in Spalte {p} (Reihe {c})",
    "qwinto.fail_roller":
        "nur wer würfelt, trägt einen Fehlwurf ein; die anderen können einfach passen",
    "qwinto.roller_must": "wer würfelt, muss die Summe eintragen oder einen Fehlwurf ankreuzen",
    "qwinto.no_kind": "Qwinto kennt kein '{kind}': Summe eintragen, passen oder Fehlwurf",
    "qwinto.no_row": "es gibt keine Reihe '{r}': die Reihen sind {rows}",
    "qwinto.not_field": "Spalte {p} der Reihe {c} ist kein Feld zum Eintragen",
    "qwinto.not_rolled":
        "der Würfel {c} wurde nicht geworfen: {total} darf nur in die Reihe {cor}",
    "qwinto.holds": "in Spalte {p} der Reihe {c} steht schon {v}",
    "qwinto.not_number":
        "in der Reihe {c} steht '{v}': eine Zahl eintragen, x für eine ausradierte, oder das "
        "Feld leer lassen",
    "qwinto.crossed": "Spalte {p} der Reihe {c} ist durchgestrichen: ihre Zahl wurde ausradiert",
    "qwinto.crossed_already": "Spalte {p} der Reihe {c} ist schon durchgestrichen",
    "qwinto.nothing_to_erase": "in Spalte {p} der Reihe {c} steht keine Zahl zum Ausradieren",
    "qwinto.dice_count": "Qwinto wird mit 1, 2 oder 3 Würfeln gewürfelt, nicht mit {n}",
    "qwinto.not_die": "'{die}' ist kein Qwinto-Würfel: die Würfel sind {cs}",
    "qwinto.one_each": "es gibt nur einen Würfel jeder Farbe",
    "qwinto.reroll": "der zweite Wurf muss alle Würfel des ersten werfen ({cs}) und keine anderen",
    "qwinto.p_sum": "{v} in Spalte {p} der Reihe {c} ist keine Summe von 1-3 Würfeln (1-{max})",
    "qwinto.p_greater":
        "{v} in Spalte {p} muss größer sein als die {w} links davon in der Reihe {c}",
    "qwinto.p_twice": "{v} steht zweimal in Spalte {p} (Reihen {c} und {c2})",
    "qwinto.p_fails": "{n} Fehlwürfe: das Spiel endet beim {m}.",
    "qwinto.l_row": "Reihe {c}",
    "qwinto.d_full": "voll: die Zahl ganz rechts",
    "qwinto.d_none": "noch keine Zahl",
    "qwinto.d_one": "1 Zahl, je 1 Punkt",
    "qwinto.d_numbers": "{n} Zahlen, je 1 Punkt",
    "qwinto.l_bonus": "Bonus Spalte {p}",
    "qwinto.d_pentagon": "die Zahl im Fünfeck ({c})",
    "qwinto.l_fails": "Fehlwürfe",
    "qwinto.d_fails": "{n} x {m}",
    "knister.ended": "das Raster ist nach 25 Runden voll",
    "knister.must_write": "bei Knister muss jeder die Summe in ein freies Feld schreiben",
    "knister.no_field": "es gibt kein Feld {f}: Reihen A-E, Spalten 0-4",
    "knister.holds": "in Reihe {r}, Spalte {p} steht schon {v}",
    "knister.not_number": "in Reihe {r} steht '{v}': eine Zahl eintragen oder das Feld leer lassen",
    "knister.dice_count": "Knister wird mit zwei Würfeln gewürfelt, nicht mit {n}",
    "knister.no_reroll": "bei Knister gibt es einen Wurf pro Zug: keinen zweiten",
    "knister.p_sum": "{v} in Reihe {r}, Spalte {p} ist keine Summe zweier Würfel (2-12)",
    "knister.l_column": "Spalte {p}",
    "knister.l_diag_down": "Diagonale \\",
    "knister.l_diag_up": "Diagonale /",
    "knister.d_none": "keine Kombination",
    "knister.d_combo_x": "{combo} x{m}",
    "twenty_one.dice_plain":
        "twenty one wird mit sechs Würfeln gewürfelt, einem jeder Farbe: {cs}; es fehlen: "
        "{cs2} (jeden Würfel als Farbe:Zahl schreiben, z. B. red:4)",
    "twenty_one.dice_missing":
        "twenty one wird mit sechs Würfeln gewürfelt, einem jeder Farbe: {cs}; es fehlen: "
        "{cs2}",
    "twenty_one.dice": "twenty one wird mit sechs Würfeln gewürfelt, einer je Farbe: {cs}",
    "twenty_one.dice_plain_only":
        "twenty one wird mit sechs Würfeln gewürfelt, einem jeder Farbe: {cs} (jeden Würfel "
        "als Farbe:Zahl schreiben, z. B. red:4)",
    "twenty_one.ones_stay":
        "Würfel mit einer 1 bleiben für den zweiten Wurf liegen: der Würfel {cs} zeigte 1",
    "twenty_one.finished": "alle fünf Reihen sind voll: der Zettel ist fertig",
    "twenty_one.must":
        "jeder muss mindestens eine Zahl eintragen oder das linke freie Feld der aktuellen "
        "Reihe durchstreichen",
    "twenty_one.row":
        "du bist in Reihe {r}: Zahlen kommen nur in die aktuelle Reihe, die Reihen werden von "
        "oben nach unten gefüllt",
    "twenty_one.no_column": "es gibt keine Spalte {p}: Spalten 0-5",
    "twenty_one.one_number": "das Feld {c} nimmt nur eine Zahl auf",
    "twenty_one.used": "das Feld {c} der Reihe {r} ist schon belegt",
    "twenty_one.die": "ins Feld {c} kommt der Würfel {c}, und der zeigt {f}, nicht {v}",
    "twenty_one.higher": "die {v} ({c}) ist höher als die {n} im Feld {c}",
    "twenty_one.p_higher": "{v} im Feld {c} der Reihe {r} ist höher als die gedruckte {n}",
    "twenty_one.p_below": "{v} im Feld {c} der Reihe {r} ist kleiner als die gedruckte {n}",
    "twenty_one.p_order":
        "Reihe {r} hat Einträge, obwohl Reihe {r2} darüber nicht voll ist: die Reihen werden "
        "von oben nach unten gefüllt",
    "twenty_one.p_cross":
        "Reihe {r}: ein Feld wurde durchgestrichen, obwohl links davon ein freies Feld war "
        "(nur das linke freie darf durchgestrichen werden)",
    "twenty_one.d_partial": "angefangene Reihe, bei Spielende gewertet, {s}",
    "twenty_one.d_no_hit": "{n}, kein genauer Treffer",
    "twenty_one.ended": "die letzte Reihe ist gefüllt",
    "twenty_one.d_hit": "{n} + {b} Bonus für 1 genauen Treffer",
    "twenty_one.d_hits": "{n} + {b} Bonus für {h} genaue Treffer",
    "row.label": "Reihe {r}",
    "kuh_vadis.coin_toss": "Münzwurf",
    "kuh_vadis.roller": "bei Kuh Vadis markiert nur, wer am Zug ist, den Block",
    "kuh_vadis.over": "das Spiel ist vorbei: {s}",
    "kuh_vadis.no_kind": "Kuh Vadis kennt kein '{kind}': ein Feld markieren oder passen",
    "kuh_vadis.one_square": "ein Ergebnis markiert genau ein Feld",
    "kuh_vadis.no_square": "es gibt kein Feld {sq}: Reihen A-G, Spalten 0-6",
    "kuh_vadis.p_start":
        "auf {la} ist ein Start-{pm} gedruckt: dort kann nichts eingetragen werden",
    "kuh_vadis.start": "auf {sq} ist ein Start-{pm} gedruckt",
    "kuh_vadis.shows": "{sq} zeigt {sym}, {symk}",
    "kuh_vadis.marked": "{sq} ist schon markiert, von den {pd}",
    "kuh_vadis.no_result":
        "die Würfel {kf} ergeben nichts: um ein Feld zu markieren, braucht es zwei Kühe, "
        "genau drei gleiche Zahlen oder vier gleiche Würfel",
    "kuh_vadis.gives": "die Würfel ergeben {res}: {sq} zeigt {sym}",
    "kuh_vadis.chain":
        "nach dem Vierling auf {sq} muss das nächste Feld {sq} berühren; {sq2} tut das nicht",
    "kuh_vadis.p_both":
        "beide Spieler haben ihre Startfelder verbunden, aber das Spiel endet schon, sobald "
        "der erste es tut",
    "kuh_vadis.p_chain": "die Vierlingskette geht von {sq} weiter, das ein Feld der {pl} sein muss",
    "kuh_vadis.dice_count": "Kuh Vadis wird mit {n} Würfeln gewürfelt, nicht mit {m}",
    "kuh_vadis.colour":
        "'{die}' nennt eine Farbe: Kuh-Vadis-Würfel haben keine, nur die Seiten schreiben (1-5 "
        "oder cow)",
    "kuh_vadis.face": "'{die}' ist keine Kuh-Vadis-Seite: die Würfel zeigen 1-5 und eine Kuh",
    "kuh_vadis.connected": "{pl} haben {starts} verbunden",
    "kuh_vadis.ended_cut": "beide sind abgeschnitten",
    "kuh_vadis.cut": "{pl} sind abgeschnitten: kein freier Weg verbindet {la} mit {lb}",
    "kuh_vadis.open":
        "{pl} sind noch offen: ein Weg aus eigenen oder freien Feldern verbindet {starts}",
    "kuh_vadis.win": "{pl} gewinnen",
    "kuh_vadis.tie": "beide sind abgeschnitten: das Spiel endet unentschieden",
    "kuh_vadis.beaten": "{pl} haben ihre Starts nicht verbunden: die anderen waren zuerst",
    "kuh_vadis.to_move_chain": "{pl} sind am Zug und setzen eine Vierlingskette von {sq} fort",
    "kuh_vadis.to_move": "{pl} sind am Zug",
    "kuh_vadis.seat_mark": "{pl} ({m})",
    "kuh_vadis.caption": "{pl} ({who}) sind am Zug",
    "kuh_vadis.l_player": "{pl}",
    "the_choice.finished": "beide Seiten dieses Zettels sind fertig",
    "the_choice.no_kind":
        "The Choice kennt kein '{kind}': Würfel für Farbfelder (R) oder Zahlenfelder (N) "
        "nutzen oder 'misthrow' schreiben",
    "the_choice.no_row":
        "'{m}': es gibt keine Reihe '{r}': R (Farbring), N (Zahlenfelder), M (Fehlwurf)",
    "the_choice.no_die": "'{m}': es gibt keinen Würfel {d}: die Würfel sind 1-{n}",
    "the_choice.no_space": "es gibt kein Farbfeld {p}: der Ring hat 0-{n}",
    "the_choice.space_colour": "Farbfeld {p} ist {c}, nicht {c2}",
    "the_choice.crossed": "Farbfeld {p} ({c}) ist schon angekreuzt",
    "the_choice.once": "ein Farbfeld kann nur einmal angekreuzt werden",
    "the_choice.no_number": "es gibt kein Zahlenfeld {p}: das Raster hat 0-{n}",
    "the_choice.number_shows": "Zahlenfeld {p} zeigt {n}, nicht {v}",
    "the_choice.at_most": "{n} Würfel ergeben höchstens {m} Kreuze",
    "the_choice.one_miss": "ein Wurf ergibt höchstens einen Fehlwurf",
    "the_choice.next_miss":
        "das nächste Fehlwurf-Kästchen auf der {side} ist {n}: Mx@{m} schreiben",
    "the_choice.at_least": "mindestens ein Feld ankreuzen oder nur 'misthrow' schreiben",
    "the_choice.connected":
        "die Farbkreuze müssen zusammenhängen: nach dem ersten muss jedes Kreuz ein schon "
        "gemachtes berühren (die Kreuze dieses Wurfs mitgezählt)",
    "the_choice.on_line": "die Zahl {v} (Feld {p}) ist schon auf der Linie",
    "the_choice.touch":
        "{v} (Feld {p}) berührt nicht {w} (Feld {q}), das Ende der Linie: jede Zahl muss neben "
        "der zuletzt angekreuzten liegen",
    "the_choice.order":
        "diese Zahlen lassen sich in mehr als einer Reihenfolge ziehen: die Zahlen in der "
        "gezogenen Reihenfolge schreiben, getrennt durch '>' (z. B. {ex})",
    "the_choice.no_miss": "diese Kreuze nutzen {n} Würfel: {s}, also gibt es keinen Fehlwurf",
    "the_choice.too_few_one":
        "diese Kreuze nutzen 1 Würfel: {s}, oder einen Fehlwurf ankreuzen (Mx@{m} dazu)",
    "the_choice.too_few":
        "diese Kreuze nutzen {n} Würfel: {s}, oder einen Fehlwurf ankreuzen (Mx@{m} dazu)",
    "the_choice.roller_three": "wer würfelt, muss alle drei Würfel nutzen",
    "the_choice.others_two": "alle außer dem Würfelnden müssen mindestens zwei Würfel nutzen",
    "the_choice.ring_one_die": "'{m}': ein Farbfeld wird mit genau einem Würfel angekreuzt",
    "the_choice.die_colour": "'{m}': Würfel {d} ({die}) ist nicht {c}",
    "the_choice.dice_sum": "'{m}': die Würfel {ds} ergeben {t}, nicht {v}",
    "the_choice.die_once":
        "jeder Würfel darf nur einmal genutzt werden, für seine Farbe oder seine Zahl",
    "the_choice.no_colour_die": "kein Würfel dieses Wurfs ist {c}",
    "the_choice.no_sum": "kein Würfel dieses Wurfs zeigt {v}, und keine seiner Würfel ergeben "
                         "zusammen {v}",
    "the_choice.cannot":
        "die Würfel {roll} ergeben diese Kreuze nicht: jeder Würfel zählt einmal, für seine "
        "Farbe oder seine Zahl (Zahlen mehrerer Würfel dürfen addiert werden)",
    "the_choice.end_first":
        "nur die erste Seite darf freiwillig beendet werden: die zweite endet mit dem dritten "
        "Fehlwurf (oder wenn sie voll ist)",
    "the_choice.dice_count": "The Choice wird mit {n} Würfeln gewürfelt, nicht mit {m}",
    "the_choice.no_colour":
        "'{die}' hat keine Farbe von The Choice: jede Seite zeigt eine Farbe ({cs}) und eine "
        "Zahl, z. B. green:6",
    "the_choice.number": "'{die}' zeigt keine Zahl 1-6",
    "the_choice.p_other":
        "auf der {side} stehen Kreuze, aber gespielt wird noch die {side2} (die erste Seite)",
    "the_choice.p_ring":
        "die Farbkreuze auf der {side} hängen nicht zusammen: jedes Kreuz nach dem ersten muss "
        "ein schon gemachtes berühren",
    "the_choice.p_twice": "die Zahlenlinie auf der {side} geht zweimal durch dasselbe Feld",
    "the_choice.p_touch":
        "auf der {side} berührt {b} nicht die {a} davor: die Linie muss durchgehend sein",
    "the_choice.p_misses": "{n} Fehlwürfe auf der {side}: eine Seite endet beim {m}.",
    "the_choice.p_misses_end":
        "{n} Fehlwürfe beenden die {side}: gespielt werden muss die andere Seite",
    "the_choice.l_colours": "Farben {side}",
    "the_choice.l_numbers": "Zahlen {side}",
    "the_choice.d_no_space": "noch kein Farbfeld angekreuzt",
    "the_choice.d_space": "1 Farbfeld angekreuzt",
    "the_choice.d_spaces": "{n} Farbfelder angekreuzt",
    "the_choice.d_line_one": "eine Linie aus 1 Zahlenfeld",
    "the_choice.d_line": "eine Linie aus {n} Zahlenfeldern",
    "the_choice.d_no_line": "noch keine Linie",
    "the_choice.caption": "{side}",
    "knister.d_combo": "{combo}",
    # the advisor's reasons (engine/advice)
    "advice.and": "{s} und {s2}",
    "advice.list": "{s}, {s2}",
    "advice.then": "{s}; {s2}",
    "advice.gain": "bringt im Mittel {x} Punkte gegenüber diesem Wurf",
    "advice.loss": "kostet im Mittel {x} Punkte gegenüber diesem Wurf",
    "advice.answer_now": "diesen Wurf jetzt eintragen",
    "advice.not_looked_at": "in der Bedenkzeit nicht angesehen",
    "advice.qwinto.fail": "ein Fehlwurf: 5 Punkte Abzug",
    "advice.qwinto.pass": "diesmal nichts eintragen",
    "advice.qwinto.pentagon": "macht Spalte {p} für ihr Fünfeck voll, {n} Punkte",
    "advice.qwinto.pentagon_1": "macht Spalte {p} für ihr Fünfeck voll, 1 Punkt",
    "advice.qwinto.row_full": "macht die Reihe {c} voll, die ihre letzte Zahl zählt",
    "advice.qwinto.open": "lässt links davon {a} freie Felder und rechts {b}",
    "advice.qwinto.open_1": "lässt links davon 1 freies Feld und rechts {b}",
    "advice.qwinto.sums": "Summen {a}-{b}, im Mittel {x}",
    "advice.twenty_one.cross": "das Feld {c} durchstreichen (hier lohnt sich keine Zahl)",
    "advice.twenty_one.hit": "ein genauer Treffer",
    "advice.twenty_one.hits": "{n} genaue Treffer",
    "advice.twenty_one.then": "{s}: {s2}",
    "advice.twenty_one.completes": "macht Reihe {r} für {n} Punkte voll",
    "advice.twenty_one.worth":
        "Reihe {r} ist dann {x} wert (ihre Punkte weniger {x2} für jeden Zug, den sie noch "
        "braucht)",
    "advice.twenty_one.averages": "Reihe {r} bringt dann im Mittel {x} Punkte",
    "advice.kuh_vadis.win": "verbindet deine drei Starts: du gewinnst",
    "advice.kuh_vadis.need": "dir fehlen dann noch {n} Felder",
    "advice.kuh_vadis.need_1": "dir fehlt dann noch 1 Feld",
    "advice.kuh_vadis.cut_off": "du bist abgeschnitten",
    "advice.kuh_vadis.them": "die {pl} {n}",
    "advice.kuh_vadis.them_cut_off": "die {pl} sind abgeschnitten",
    "advice.kuh_vadis.pass": "kein Feld hilft: passen ({s}, {s2})",
    "advice.kuh_vadis.square": "{s}, {s2}",
    "advice.kuh_vadis.block": "{s}, {s2}, und es blockiert sie",
    "advice.kuh_vadis.keep": "{kf} behalten: gewinnt {a}-mal von 100 (mit diesem Wurf: {b})",
    "advice.kuh_vadis.roll_all":
        "alle fünf noch einmal würfeln: gewinnt {a}-mal von 100 (mit diesem Wurf: {b})",
    "advice.the_choice.misthrow": "keine Würfel nutzen: Fehlwurf {n} von {m}",
    "advice.the_choice.ring": "{n} Farbfelder ({t} angekreuzt)",
    "advice.the_choice.ring_1": "1 Farbfeld ({t} angekreuzt)",
    "advice.the_choice.line": "die Linie wächst auf {n} ({a} weitere erreichbar)",
    "advice.the_choice.line_end": "die Linie wächst auf {n} (sie kann nicht weiter)",
    "advice.the_choice.with_misthrow": "{s}, mit Fehlwurf {n} von {m}",
    "advice.the_choice.only_misthrow": "Fehlwurf {n} von {m}",
    "advice.knister.two": "zweimal {v}",
    "advice.knister.three": "dreimal {v}",
    "advice.knister.four": "viermal {v}",
    "advice.knister.straight_open": "eine Straße ist noch möglich",
    "advice.knister.nothing_yet": "noch keine Kombination",
    "advice.knister.completes": "macht {s} voll: {combo}, {n} Punkte",
    "advice.knister.completes_1": "macht {s} voll: {combo}, 1 Punkt",
    "advice.knister.completes_none": "macht {s} voll: keine Kombination, {n} Punkte",
    "advice.knister.holds": "{s} hat {vs}: {s2}",
    # input errors: a malformed roll, placement or action, an unknown game, an uploaded
    # layout's checks and a sheet typed as JSON (what was typed is kept as it is)
    "dice.not_face": "'{text}' ist keine Würfelseite (eine Zahl)",
    "dice.not_face_or": "'{text}' ist keine Würfelseite (eine Zahl oder {cor})",
    "dice.face_range": "eine Würfelseite muss 1-6 sein, nicht {face}",
    "dice.empty_die": "leerer Würfel",
    "dice.not_colour": "'{name}' ist kein Farbname (im Würfel '{text}')",
    "dice.no_dice": "der Wurf hat keine Würfel",
    "placement.not_mark": "'{text}' ist kein Eintrag: REIHE WERT @ SPALTE schreiben, z. B. Y7@4",
    "placement.no_marks": "ein Eintrag muss mindestens ein Feld beschreiben",
    "placement.special_marks": "'{kind}' schreibt nichts in ein Feld",
    "placement.empty": "leerer Eintrag",
    "placement.no_order": "'{text}': '{kind}' hat keine Einträge, deren Reihenfolge zählt",
    "registry.unknown_game": "unbekanntes Spiel '{name}': wähle eines von {games}",
    "table.side_name": "'side' muss eine Seite des Zettels nennen, z. B. \"back\"",
    "table.malformed": "fehlerhafte Aktion '{kind}': {why}",
    "table.unknown_action":
        "unbekannte Aktion '{kind}': roll, correct, keep, place, undo, end_side, begin, side "
        "oder erase",
    "table.layout_each": "jeder Spieler braucht ein Zettel-Layout",
    "table.same_game": "alle Spieler müssen dasselbe Spiel spielen",
    "table.sheet_each": "jeder Spieler braucht einen Zettel",
    "game.list": "{what} muss eine Liste sein",
    "game.sheet_keys": "'{key}' gehört nicht zu einem {game}-Zettel (seine Teile: {known})",
    "game.entries": "{what} muss {n} Einträge haben, nicht {m}",
    "game.whole": "{what}: eine ganze Zahl eintragen",
    "layout.object": "ein Zettel muss ein JSON-Objekt sein",
    "layout.for_game": "dieser Zettel ist für '{got}', nicht für '{game}'",
    "layout.name": "ein Zettel braucht einen nicht leeren 'name'",
    "layout.long_name": "der 'name' eines Zettels hat höchstens {max} Zeichen",
    "layout.confidence": "'confidence' muss eines von {list} sein",
    "layout.bad_note": "'note' muss Text sein",
    "layout.long_note": "Zettel '{name}': 'note' hat höchstens {max} Zeichen",
    "layout.whole": "{what} muss eine ganze Zahl sein, nicht {v}",
    "layout.range": "{what} muss {low} bis {high} sein, nicht {v}",
    "layout.key": "{where}: '{key}'",
    "layout.missing": "{where}: fehlender oder falscher Eintrag {field}",
    "layout.no_builtin":
        "es gibt keinen mitgelieferten Zettel '{name}' für {game} (mitgeliefert: {names})",
    "layout.no_builtin_none":
        "es gibt keinen mitgelieferten Zettel '{name}' für {game} (mitgeliefert: keiner)",
    "qwinto.layout": "Qwinto-Zettel '{name}'",
    "qwinto.a_field": "{where}: ein Feld",
    "qwinto.a_pentagon": "{where}: ein Fünfeck",
    "qwinto.layout_rows": "{where}: braucht genau 3 Reihen (Orange, Gelb, Lila)",
    "qwinto.layout_colours": "{where}: die Reihen müssen die Farben {cs} haben",
    "qwinto.layout_labels": "{where}: die Reihen brauchen drei verschiedene Buchstaben",
    "qwinto.layout_distinct":
        "{where}: die Felder der Reihe {c} müssen verschieden sein, von links nach rechts",
    "qwinto.layout_outside": "{where}: Felder der Reihe {c} liegen außerhalb von 0..{n}",
    "qwinto.layout_pentagon": "{where}: ein Fünfeck der Reihe {c} liegt auf keinem Feld",
    "qwinto.layout_one_pentagon":
        "{where}: die Spalte {p} mit 3 Feldern braucht genau ein Fünfeck",
    "qwinto.layout_pentagon_column": "{where}: Spalte {p} hat ein Fünfeck, aber keine 3 Felder",
    "qwinto.sheet_object": "ein Qwinto-Zettel muss ein JSON-Objekt sein",
    "qwinto.sheet_rows": "'rows' muss jeder Farbe ihre Felder zuordnen, z. B. {example}",
    "qwinto.unknown_rows": "unbekannte Reihe(n) {rows}: verwende {keys}",
    "qwinto.the_row": "die Reihe {c}",
    "qwinto.sheet_fails": "'failed_attempts' muss eine ganze Zahl sein, 0 oder mehr",
    "knister.layout": "Knister-Zettel '{name}'",
    "knister.points_of": "{where}: die Punktzahl für {key}",
    "knister.layout_5x5": "{where}: das Raster ist 5x5, nicht {n}x{n}",
    "knister.sheet_object": "ein Knister-Zettel muss ein JSON-Objekt mit einem 'grid' sein",
    "knister.grid_row": "Reihe {r} des Rasters",
    "twenty_one.layout": "twenty-one-Zettel '{name}'",
    "twenty_one.layout_rows": "{where}: braucht 5 Reihen, nicht {n}",
    "twenty_one.layout_colours": "{where}: Reihe {r} muss jede der Farben {cs} einmal enthalten",
    "twenty_one.layout_numbers": "{where}: Reihe {r} braucht sechs gedruckte Zahlen 1-6",
    "twenty_one.layout_labels": "{where}: die Reihen brauchen verschiedene Namen",
    "twenty_one.layout_bonus": "{where}: 'exact_hit_bonus' braucht 7 Einträge (0-6 Treffer)",
    "twenty_one.sheet_object": "ein twenty-one-Zettel muss ein JSON-Objekt mit 'rows' sein",
    "twenty_one.sheet_value": "in Reihe {r} steht '{v}': Zahlen, \"x\" oder null schreiben",
    "kuh_vadis.layout": "Kuh-Vadis-Block '{name}'",
    "kuh_vadis.layout_rows": "{where}: 'rows' muss eine Liste von {n} Reihen sein",
    "kuh_vadis.layout_row":
        "{where}: Reihe {r} muss {n} Felder enthalten (1-5, C für eine Kuh, X oder O), z. B. "
        "\"O 4 C X 5 3 O\"",
    "kuh_vadis.layout_square":
        "{where}: auf Feld {sq} steht '{tok}': 1-5, C (Kuh), X oder O verwenden",
    "kuh_vadis.layout_starts": "{where}: braucht genau 3 Start-{pl} ({p}), nicht {n}",
    "kuh_vadis.sheet_object": "ein Kuh-Vadis-Block muss ein JSON-Objekt mit 'pad' sein",
    "kuh_vadis.pad_text": "Reihe {r} des Blocks muss Text wie \". x . X . o .\" sein",
    "kuh_vadis.pad_length":
        "Reihe {r} des Blocks muss {n} Felder haben ('.', 'x' oder 'o'), nicht {m}",
    "kuh_vadis.pad_square":
        "auf Feld {sq} steht '{ch}': '.' (frei), 'x' (Kreuze) oder 'o' (Kreise) schreiben",
    "kuh_vadis.sheet_to_move": "'to_move' muss \"X\" (Kreuze) oder \"O\" (Kreise) sein",
    "kuh_vadis.sheet_chain":
        "'chain' muss ein Feld wie \"C2\" nennen (Reihe A-G, Spalte 0-6), nicht '{v}'",
    "kuh_vadis.grid_square": "Feld {sq}: x (Kreuze) oder o (Kreise) schreiben",
    "the_choice.layout": "The-Choice-Zettel '{name}'",
    "the_choice.layout_side": "{where}, Seite '{name}'",
    "the_choice.layout_side_object": "{where}: jede Seite muss ein JSON-Objekt sein",
    "the_choice.layout_side_name": "{where}: jede Seite braucht einen 'name' (z. B. \"front\")",
    "the_choice.layout_ring":
        "{where}: 'ring' muss die {n} Farbfelder im Uhrzeigersinn aufzählen",
    "the_choice.layout_colour": "{where}: '{v}' ist keine Farbe der Würfel ({list})",
    "the_choice.layout_numbers": "{where}: 'numbers' muss eine Liste von Zahlenreihen sein",
    "the_choice.layout_numbers_rows": "{where}: 'numbers' hat {n} Reihen für {m} Zahlenfelder",
    "the_choice.layout_offsets":
        "{where}: 'offsets' braucht eine 0 oder 1 pro Zahlenreihe (1 = die Reihe ist um ein "
        "halbes Feld nach rechts verschoben)",
    "the_choice.layout_number":
        "{where}: '{v}' in Zahlenreihe {r} ist keine Zahl 1-{max} (eine Summe von bis zu drei "
        "Würfeln)",
    "the_choice.layout_spaces": "{where}: braucht {n} Zahlenfelder, nicht {m}",
    "the_choice.layout_different": "{where}: jedes Zahlenfeld muss eine andere Zahl zeigen",
    "the_choice.layout_sides": "{where}: 'sides' muss die zwei Seiten des Zettels aufzählen",
    "the_choice.layout_side_names": "{where}: die zwei Seiten brauchen verschiedene Namen",
    "the_choice.layout_colour_points":
        "{where}: 'colour_points' muss aus Paaren [angekreuzt, Punkte] mit steigender Anzahl "
        "1-{n} bestehen",
    "the_choice.layout_number_points":
        "{where}: 'number_points' braucht {n} Einträge (Linien aus 1-{n} Feldern)",
    "the_choice.layout_number_points_fall":
        "{where}: 'number_points' darf nicht kleiner werden, wenn die Linie wächst",
    "the_choice.layout_dice":
        "{where}: 'dice' muss den Seiten 1-6 jedes der {n} Würfel eine Farbe zuordnen",
    "the_choice.sheet_object": "ein The-Choice-Zettel muss ein JSON-Objekt sein",
    "the_choice.sheet_one_of": "'{key}' muss eines von {names} sein, nicht '{v}'",
    "the_choice.sheet_side":
        "'{key}' muss ein JSON-Objekt mit 'colours', 'numbers' und 'misthrows' sein",
    "the_choice.sheet_colours": "'{key}.colours' muss angekreuzte Ringpositionen 0-{n} aufzählen",
    "the_choice.sheet_colours_twice": "'{key}.colours' nennt eine Ringposition zweimal",
    "the_choice.sheet_numbers":
        "'{key}.numbers' muss die Zahlen der Linie in der gezogenen Reihenfolge aufzählen",
    "the_choice.sheet_no_number": "die {side} hat kein Zahlenfeld {v} (ihre Zahlen: {list})",
    "the_choice.sheet_misthrows": "'{key}.misthrows' muss eine ganze Zahl sein, 0 oder mehr",
    "the_choice.l_misthrows": "Fehlwürfe",
    "the_choice.grid_ring": "Farbfeld {p}: x schreiben, um es anzukreuzen",
    "the_choice.grid_number":
        "Zahlenfeld {n}: seine Stelle auf der Linie schreiben (1 für den Start, 2, 3, ...)",
    "the_choice.grid_same_place": "zwei Zahlenfelder haben dieselbe Stelle auf der Linie",
}

# Kuh Vadis results ("four or five 3s (a quad: mark and roll again) or exactly three 2s"):
# phrase by phrase, then the " or " between them.
_RESULTS_DE = (
    (re.compile(r"four or five cows"), "vier oder fünf Kühe"),
    (re.compile(r"two or more cows"), "zwei oder mehr Kühe"),
    (re.compile(r"four or five (\d)s"), r"vier oder fünf \1er"),
    (re.compile(r"exactly three (\d)s"), r"genau drei \1er"),
    (re.compile(re.escape(" (a quad: mark and roll again)")),
     " (ein Vierling: markieren und noch einmal würfeln)"),
    (re.compile(r"\)? or (?=[a-z])"), lambda m: m.group(0).replace(" or ", " oder ")),
)

_FIELD = re.compile(r"\{([a-z_]+[0-9]*)\}")
# placeholders whose value is one word (a number, a field, a die): they never match a space,
# so a short template cannot swallow a longer sentence that merely begins like it
SHORT = {"r", "p", "q", "n", "m", "v", "w", "f", "t", "d", "b", "h", "a", "seat", "total",
         "max", "sq", "kind", "die", "code", "who", "ds", "c", "pl", "pd", "pm", "side"}


def _kind(name: str) -> str:
    return re.sub(r"[0-9]+$", "", name)


def _compile(template: str) -> re.Pattern:
    out, seen, pos = [], set(), 0
    for m in _FIELD.finditer(template):
        out.append(re.escape(template[pos:m.start()]))
        name = m.group(1)
        if name in seen:
            out.append(f"(?P={name})")
        else:
            body = r"[^\s]+?" if _kind(name) in SHORT else r".+?"
            out.append(f"(?P<{name}>{body})")
        seen.add(name)
        pos = m.end()
    out.append(re.escape(template[pos:]))
    return re.compile("".join(out) + r"\Z", re.S)


# the companion's own sentences still made as plain text, recognised by their template; a
# shipped layout's note by its exact text
_PLAIN = tuple((code, _compile(en)) for code, en in COMPANION.items()
               if not code.startswith("layout."))
_NOTES = {en: code for code, en in COMPANION.items() if code.startswith("layout.")}


@lru_cache(maxsize=4096)
def _explain_plain(text: str) -> tuple[str, dict[str, str]] | None:
    if text in _NOTES:
        return _NOTES[text], {}
    for code, pattern in _PLAIN:
        m = pattern.match(text)
        if m:
            return code, m.groupdict()
    return None


def explain(text: Any) -> tuple[str, dict[str, Any]] | None:
    """(code, parameters) of a reason whose code the catalogue knows, or of one of the
    companion's own sentences made as plain text; None for anything else."""
    if isinstance(text, Reason):
        return (text.code, text.params) if text.code in CATALOGUE else None
    if not isinstance(text, str) or not text:
        return None
    return _explain_plain(text)


def _word(kind: str, value: Any, lang: str) -> str:
    if isinstance(value, Reason) or kind == "s":
        return translate(value, lang)
    value = str(value)
    if kind in ("cs", "cor"):
        sep = ", " if kind == "cs" else " or "
        joined = (", " if kind == "cs" else " oder ")
        return joined.join(_word("c", v, lang) for v in value.split(sep))
    if kind == "x":                 # a figure with decimals: "+1.5" -> "+1,5"
        return value.replace(".", ",") if lang == "de" else value
    if kind == "kf":                # Kuh Vadis faces: "2 cow 5" -> "2 Kuh 5"
        return " ".join("Kuh" if f == "cow" else f for f in value.split())
    if kind == "res":
        out = value
        for pattern, repl in _RESULTS_DE:
            out = pattern.sub(repl, out)
        return out
    if kind in ("sym", "symk"):      # "a cow" -> "eine Kuh"; symk: "keine Kuh"
        article = "eine " if kind == "sym" else "keine "
        if value == "a cow":
            return article + "Kuh"
        if value.startswith("a "):
            return article + value[2:]
        return value
    table = WORDS.get(lang, {}).get(kind)
    return table.get(value, value) if table else value


def render(code: str, params: dict[str, Any], lang: str) -> str | None:
    """The sentence of `code` in `lang` with `params`; None for an unknown code, or when the
    template needs a parameter that is missing."""
    if code not in CATALOGUE or code not in TEMPLATES:
        return None
    if lang != "de":
        template, values = TEMPLATES[code], {k: str(v) for k, v in params.items()}
    else:
        template = CATALOGUE[code]
        values = {k: _word(_kind(k), v, lang) for k, v in params.items()}
    try:
        return _FIELD.sub(lambda m: values[m.group(1)], template)
    except KeyError:
        return None


def translate(text: Any, lang: str) -> Any:
    """A reason (or one of the companion's plain sentences) in `lang`; anything the
    catalogue does not know is returned as it is."""
    if lang == "en" or not isinstance(text, str):
        return text
    found = explain(text)
    if found is None:
        return text
    out = render(found[0], found[1], lang)
    return text if out is None else out


def translate_score(score: dict, lang: str) -> dict:
    """A `Score.to_json()` with its line labels and details in `lang` (a new dict)."""
    if lang == "en":
        return score
    return dict(score, lines=[dict(line, label=translate(line["label"], lang),
                                   detail=translate(line["detail"], lang) if line["detail"] else "")
                              for line in score["lines"]])
