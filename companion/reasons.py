"""The engine's sentences in the pages' languages.

The engine is language-free: it explains a refusal, a rule problem or a score line in one
English sentence made from a fixed template and a few values ("the dice add up to 7, not
9"). This module is the companion's message catalogue for those sentences, in the manner of
gettext where the English text is the message id: every entry has a stable code, the
engine's English template and the German one. `explain(text)` finds the entry whose template
matches the sentence and returns (code, parameters); `translate(text, lang)` fills the
German template with the parameters, translating those that are words (colours, the Kuh
Vadis players, a sheet's side, Knister's combinations) or whole sentences themselves.

A sentence no entry matches (an engine change, a game added later) is shown as the engine
wrote it: never an error. `tests/companion/test_reasons.py` plays random games of every
game and checks that every reason and score line the pages would show has an entry, so a
changed engine sentence is caught by a test instead of turning up in English.

Placeholders are `{name}`; the name's prefix says how its value is translated:
`c` a colour, `cs` a list of colours ("orange, yellow"), `cor` colours joined by " or ",
`pl` Kuh Vadis players (crosses / circles), `pd` the same in the dative, `pm` one of them
(cross / circle), `sym` a Kuh Vadis symbol ("a cow", "a 3"; `symk` negated: "keine Kuh"), `res` Kuh Vadis results,
`side` a The Choice side, `combo` a Knister combination, `s` a sentence (translated
again); anything else is kept as it is (numbers, names, fields, dice).
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

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

# (code, English template, German template). More specific templates come first where two
# could match the same sentence.
CATALOGUE: tuple[tuple[str, str, str], ...] = (
    # -- the table (engine/table.py) and the base game ------------------------------------------
    ("table.over", "the game is over", "das Spiel ist vorbei"),
    ("table.no_further_attempt", "{name} has finished rolling: no further attempt on this roll",
     "{name} hat fertig gewürfelt: kein weiterer Versuch"),
    ("table.still_rolling", "{name} is still rolling: answer once {name} keeps the roll",
     "{name} würfelt noch: eintragen, sobald {name} den Wurf behält"),
    ("table.kept_already",
     "{name} has already finished rolling: every player may answer this roll",
     "{name} hat schon fertig gewürfelt: alle dürfen auf diesen Wurf eintragen"),
    ("table.nothing_to_keep", "there is no open roll to keep",
     "es gibt keinen offenen Wurf zum Behalten"),
    ("table.attempts_one", "{game} allows 1 attempt per turn",
     "{game} erlaubt 1 Wurf pro Zug"),
    ("table.attempts", "{game} allows {n} attempts per turn",
     "{game} erlaubt {n} Würfe pro Zug"),
    ("table.nothing_to_correct", "there is no open roll to correct",
     "es gibt keinen offenen Wurf zum Korrigieren"),
    ("table.written_no_correct",
     "players have already written on this roll: they must undo their entries before it can "
     "be corrected",
     "auf diesen Wurf wurde schon eingetragen: erst müssen die Einträge zurückgenommen werden, "
     "dann kann er korrigiert werden"),
    ("table.not_rolled", "nothing has been rolled yet", "es wurde noch nicht gewürfelt"),
    ("table.answered", "{name} has already answered this roll",
     "{name} hat auf diesen Wurf schon eingetragen"),
    ("table.roller_only", "in {game} only the roller answers the roll: it is {name}'s turn",
     "bei {game} trägt nur, wer würfelt, auf den Wurf ein: {name} ist am Zug"),
    ("table.end_side_after", "{name} may end a side only after answering a roll (after a dice "
     "action)",
     "{name} darf eine Seite erst beenden, nachdem er oder sie auf einen Wurf eingetragen hat"),
    ("table.nothing_to_undo", "{name} has nothing to undo on this roll",
     "{name} hat bei diesem Wurf nichts zurückzunehmen"),
    ("table.no_seat_of", "there is no seat {seat} at this table of {n}",
     "an diesem Tisch mit {n} Plätzen gibt es keinen Platz {seat}"),
    ("table.players", "{game} is played by {a}-{b} players, not {n}",
     "{game} wird von {a}-{b} Spielern gespielt, nicht von {n}"),
    ("table.begin_first", "who begins is settled before the first roll",
     "wer beginnt, wird vor dem ersten Wurf festgelegt"),
    ("table.side_answered", "{name} has answered this roll: the side to start on is chosen "
     "before the first mark",
     "{name} hat auf diesen Wurf schon eingetragen: die Startseite wird vor dem ersten Eintrag "
     "gewählt"),
    ("table.seat", "'seat' must be a seat number (0, 1, ...), not {v}",
     "'seat' muss eine Platznummer sein (0, 1, ...), nicht {v}"),
    ("game.no_sides", "{game} has no sheet sides to choose",
     "{game} hat keine Zettelseiten zur Wahl"),
    ("the_choice.side_unknown", "no side '{side}': the sides are {sides}",
     "keine Seite '{side}': die Seiten sind {sides}"),
    ("the_choice.side_marked", "the side to start on is chosen before the first mark: this "
     "sheet already has marks",
     "die Startseite wird vor dem ersten Eintrag gewählt: auf diesem Zettel steht schon etwas"),
    ("game.no_erase", "{game} has no erasing: undo your entry to this roll instead",
     "{game} kennt kein Ausradieren: stattdessen den Eintrag zu diesem Wurf zurücknehmen"),
    ("table.erase_answer", "{f} is {name}'s answer to this roll: undo it instead",
     "{f} ist der Eintrag von {name} zu diesem Wurf: ihn stattdessen zurücknehmen"),
    ("table.not_field", "'{f}' is not a field: write ROW@COLUMN, e.g. O@4",
     "'{f}' ist kein Feld: REIHE@SPALTE schreiben, z. B. O@4"),
    ("knister.good", "good: 50 to 79 points", "gut: 50 bis 79 Punkte"),
    ("knister.very_good", "very good: 80 to 99 points", "sehr gut: 80 bis 99 Punkte"),
    ("knister.amazing", "amazing: 100 points or more", "fantastisch: 100 Punkte oder mehr"),
    ("game.no_side", "{game} has no sheet side to end",
     "{game} hat keine Zettelseite, die man beenden könnte"),
    ("game.face", "'{die}' does not show a face 1-6", "'{die}' zeigt keine Augenzahl 1-6"),
    ("game.one_field", "the sum is written into exactly one field",
     "die Summe wird in genau ein Feld eingetragen"),
    ("game.sum", "the dice add up to {total}, not {v}",
     "die Würfel ergeben zusammen {total}, nicht {v}"),

    # -- the shipped layouts' notes (shown where a layout is chosen; data of engine/layouts) ------
    ("layout.note.qwinto",
     "The printed Qwinto sheet; three independent public implementations agree (SHEETS.md).",
     "Der gedruckte Qwinto-Zettel; drei unabhängige öffentliche Umsetzungen stimmen überein."),
    ("layout.note.knister",
     "The 5x5 grid with its printed combination table (rule text and SHEETS.md).",
     "Das 5x5-Raster mit seiner gedruckten Kombinationstabelle (nach der Spielregel)."),
    ("layout.note.twenty_one",
     "Colour arrangement reconstructed (not published): each colour once per row, the order "
     "rotated by sheet and row; printed numbers 6-5-4-3-2-1 (row 1 H, rows 2-5 M). Replace it "
     "with the arrangement printed on your own sheet.",
     "Farbanordnung rekonstruiert (nicht veröffentlicht): jede Farbe einmal pro Reihe, die "
     "Reihenfolge je Zettel und Reihe verschoben; gedruckte Zahlen 6-5-4-3-2-1 (Reihe 1 H, Reihen "
     "2-5 M). Ersetze sie durch die Anordnung auf deinem eigenen Zettel."),
    ("layout.note.kuh_vadis",
     "Reconstructed pad (SHEETS.md): it matches the reported square counts, but the printed pads "
     "are not published. Rows top to bottom (A-G), columns left to right (0-6); C = cow, X/O = "
     "printed starting crosses/circles. Replace it with the pad you play on.",
     "Rekonstruierter Block: Er passt zu den berichteten Feldzahlen, die gedruckten Blöcke sind "
     "aber nicht veröffentlicht. Reihen von oben nach unten (A-G), Spalten von links nach rechts "
     "(0-6); C = Kuh, X/O = gedruckte Start-Kreuze/-Kreise. Ersetze ihn durch den Block, auf dem "
     "ihr spielt."),
    ("layout.note.the_choice",
     "Reconstructed sheet: ring colours, number grid and the number points (except lines of 1, "
     "10, 11 and 13 spaces) are not published. The front is the default side of SHEETS.md (it "
     "fits Tim's path 8-12-7-3-1-9-4 and his ring crosses). The back is a second reconstruction "
     "made to fit the rule text's four-player example, which the front cannot (Tim's three "
     "touching colour spaces green, green, yellow and Maria's line 6-2-1). Replace it with the "
     "sheet you play on.",
     "Rekonstruierter Zettel: Ringfarben, Zahlenraster und Zahlenpunkte (außer für Linien aus 1, "
     "10, 11 und 13 Feldern) sind nicht veröffentlicht. Die Vorderseite ist die rekonstruierte "
     "Standardseite (sie passt zu Tims Weg 8-12-7-3-1-9-4 und seinen Ringkreuzen). Die Rückseite "
     "ist eine zweite Rekonstruktion, passend zum Beispiel mit vier Spielern aus der Spielregel, "
     "das die Vorderseite nicht erlaubt (Tims drei aneinanderliegende Farbfelder grün, grün, gelb "
     "und Marias Linie 6-2-1). Ersetze ihn durch den Zettel, auf dem ihr spielt."),

    # -- the companion's own refusals -------------------------------------------------------------
    ("app.answered_you", "you have already answered this roll",
     "du hast auf diesen Wurf schon eingetragen"),
    ("app.changed", "the table changed meanwhile: look again and retry",
     "der Tisch hat sich inzwischen geändert: noch einmal ansehen und erneut versuchen"),
    ("app.only_roll", "only the table's creator or {name}, whose turn it is, may roll",
     "nur wer den Tisch angelegt hat oder {name}, wer am Zug ist, darf würfeln"),
    ("app.only_correct",
     "only the table's creator or {name}, whose turn it is, may correct the roll",
     "nur wer den Tisch angelegt hat oder {name}, wer am Zug ist, darf den Wurf korrigieren"),
    ("app.only_keep",
     "only the table's creator or {name}, whose turn it is, may keep the roll",
     "nur wer den Tisch angelegt hat oder {name}, wer am Zug ist, darf den Wurf behalten"),
    ("app.not_your_sheet", "this is {name}'s sheet: only {name} may write on it",
     "das ist der Zettel von {name}: nur {name} darf darauf schreiben"),
    ("app.no_seat", "there is no seat {seat} at this table",
     "an diesem Tisch gibt es keinen Platz {seat}"),
    ("app.sitting", "you already sit at this table as {name}",
     "du sitzt an diesem Tisch schon als {name}"),
    ("app.seat_taken", "{name} has already joined this table",
     "{name} sitzt schon an diesem Tisch"),
    ("app.no_table", "there is no table '{code}'", "es gibt keinen Tisch '{code}'"),
    ("app.teach_no_die", "no die in the middle of the photo: hold the phone close over one die, "
                         "with the die in the middle",
     "kein Würfel in der Bildmitte: das Handy nah über einen Würfel halten, den Würfel in der Mitte"),
    ("app.teach_small", "the die is {n} px in the photo: come closer (at least {m} px)",
     "der Würfel ist {n} px groß im Foto: näher herangehen (mindestens {m} px)"),
    ("app.teach_blurred", "the photo is blurred: hold the phone still and let it focus on the die",
     "das Foto ist unscharf: das Handy ruhig halten und auf den Würfel scharf stellen lassen"),
    ("app.players_exactly", "{game} is played by {a} players, not {n}",
     "{game} wird von {a} Spielern gespielt, nicht von {n}"),
    ("app.rejoin_host", "only the table's creator can show a rejoin code",
     "nur wer den Tisch angelegt hat, kann einen Code zum Wiederhinsetzen zeigen"),
    ("app.rejoin_free", "nobody has joined as {name} yet: {name} can sit down without a code",
     "als {name} hat sich noch niemand hingesetzt: {name} kann sich ohne Code hinsetzen"),
    ("app.rejoin_wrong", "that is not {name}'s rejoin code: ask the host for the code shown now",
     "das ist nicht der Code von {name}: den Gastgeber nach dem jetzt gezeigten Code fragen"),
    ("app.rejoin_changed", "{name}'s seat changed meanwhile: ask the host for the code shown now",
     "der Platz von {name} hat sich inzwischen geändert: den Gastgeber nach dem jetzt "
     "gezeigten Code fragen"),
    ("app.stand_in", "{name} has joined on their own device: answer for {name} only after "
                     "confirming",
     "{name} sitzt mit einem eigenen Gerät am Tisch: nur nach Bestätigung für {name} eintragen"),
    ("app.too_large", "the upload is too large", "die hochgeladene Datei ist zu groß"),
    ("app.same_name", "two players have the same name", "zwei Spieler haben denselben Namen"),
    ("app.to_move_ask", "whose move is it? say it with 'to_move': X (crosses) or O (circles)",
     "wer ist am Zug? mit 'to_move' angeben: X (Kreuze) oder O (Kreise)"),
    ("app.to_move", "'to_move' is X (crosses) or O (circles), not '{v}'",
     "'to_move' ist X (Kreuze) oder O (Kreise), nicht '{v}'"),
    ("app.only_begin", "only the table's creator says who begins",
     "nur wer den Tisch angelegt hat, legt fest, wer beginnt"),
    ("app.seat_layouts", "in {game} every player gets a different sheet ({names}): sheet {sheet} "
     "is given to {n} players; name one per player, or leave the sheets out to deal them in turn",
     "bei {game} bekommt jeder Spieler einen anderen Zettel ({names}): Zettel {sheet} haben "
     "{n} Spieler; für jeden Spieler einen nennen oder die Zettel weglassen, dann werden sie der "
     "Reihe nach verteilt"),
    ("app.frame_empty", "the frame is empty", "das Bild ist leer"),
    ("app.frame_type", "the frame is not a JPEG or PNG image",
     "das Bild ist kein JPEG- oder PNG-Bild"),
    ("app.frame_corrupt", "the frame is corrupt: it could not be decoded",
     "das Bild ist beschädigt: es ließ sich nicht lesen"),
    ("app.photo_empty", "the photo is empty", "das Foto ist leer"),
    ("app.photo_type", "the photo is not a JPEG or PNG image",
     "das Foto ist kein JPEG- oder PNG-Bild"),
    ("app.photo_corrupt", "the photo is corrupt: it could not be decoded",
     "das Foto ist beschädigt: es ließ sich nicht lesen"),
    ("app.no_next_picture", "the table camera shows what it sees: there is no next picture",
     "die Tischkamera zeigt, was sie sieht: es gibt kein nächstes Bild"),
    ("app.no_camera", "the server has no camera and no demo pictures",
     "der Server hat keine Kamera und keine Demo-Bilder"),

    # -- Qwinto ------------------------------------------------------------------------------------
    ("qwinto.greater", "{v} must be greater than the {w} to its left in the {c} row",
     "{v} muss größer sein als die {w} links davon in der Reihe {c}"),
    ("qwinto.smaller", "{v} must be smaller than the {w} to its right in the {c} row",
     "{v} muss kleiner sein als die {w} rechts davon in der Reihe {c}"),
    ("qwinto.column", "{v} already stands in column {p} (the {c} row)",
     "{v} steht schon in Spalte {p} (Reihe {c})"),
    ("qwinto.fail_roller", "only the roller records a failed attempt; the others may simply pass",
     "nur wer würfelt, trägt einen Fehlwurf ein; die anderen können einfach passen"),
    ("qwinto.roller_must", "the roller must enter the sum or record a failed attempt",
     "wer würfelt, muss die Summe eintragen oder einen Fehlwurf ankreuzen"),
    ("qwinto.no_kind", "Qwinto has no '{kind}': enter the sum, pass or fail",
     "Qwinto kennt kein '{kind}': Summe eintragen, passen oder Fehlwurf"),
    ("qwinto.no_row", "there is no row '{r}': the rows are {rows}",
     "es gibt keine Reihe '{r}': die Reihen sind {rows}"),
    ("qwinto.not_field", "column {p} of the {c} row is not a field to write in",
     "Spalte {p} der Reihe {c} ist kein Feld zum Eintragen"),
    ("qwinto.not_rolled", "the {c} die was not rolled: {total} may only go into the {cor} row",
     "der Würfel {c} wurde nicht geworfen: {total} darf nur in die Reihe {cor}"),
    ("qwinto.holds", "column {p} of the {c} row already holds {v}",
     "in Spalte {p} der Reihe {c} steht schon {v}"),
    ("qwinto.not_number", "the {c} row holds '{v}': write a number, x for an erased one, or "
     "leave the field empty",
     "in der Reihe {c} steht '{v}': eine Zahl eintragen, x für eine ausradierte, oder das Feld "
     "leer lassen"),
    ("qwinto.crossed", "column {p} of the {c} row is crossed out: its number was erased",
     "Spalte {p} der Reihe {c} ist durchgestrichen: ihre Zahl wurde ausradiert"),
    ("qwinto.crossed_already", "column {p} of the {c} row is already crossed out",
     "Spalte {p} der Reihe {c} ist schon durchgestrichen"),
    ("qwinto.nothing_to_erase", "column {p} of the {c} row holds no number to erase",
     "in Spalte {p} der Reihe {c} steht keine Zahl zum Ausradieren"),
    ("qwinto.dice_count", "Qwinto is rolled with 1, 2 or 3 dice, not {n}",
     "Qwinto wird mit 1, 2 oder 3 Würfeln gewürfelt, nicht mit {n}"),
    ("qwinto.not_die", "'{die}' is not a Qwinto die: the dice are {cs}",
     "'{die}' ist kein Qwinto-Würfel: die Würfel sind {cs}"),
    ("qwinto.one_each", "there is only one die of each colour",
     "es gibt nur einen Würfel jeder Farbe"),
    ("qwinto.reroll", "the second attempt must roll all the dice of the first ({cs}) and no "
     "others",
     "der zweite Wurf muss alle Würfel des ersten werfen ({cs}) und keine anderen"),
    ("qwinto.p_sum", "{v} at column {p} of the {c} row is not a sum of 1-3 dice (1-{max})",
     "{v} in Spalte {p} der Reihe {c} ist keine Summe von 1-3 Würfeln (1-{max})"),
    ("qwinto.p_greater", "{v} at column {p} must be greater than the {w} to its left in the "
     "{c} row",
     "{v} in Spalte {p} muss größer sein als die {w} links davon in der Reihe {c}"),
    ("qwinto.p_twice", "{v} stands twice in column {p} (the {c} and {c2} rows)",
     "{v} steht zweimal in Spalte {p} (Reihen {c} und {c2})"),
    ("qwinto.p_fails", "{n} failed attempts: the game ends at the {m}th",
     "{n} Fehlwürfe: das Spiel endet beim {m}."),
    ("qwinto.l_row", "{c} row", "Reihe {c}"),
    ("qwinto.d_full", "full: the number on the far right", "voll: die Zahl ganz rechts"),
    ("qwinto.d_one", "1 number, 1 point each", "1 Zahl, je 1 Punkt"),
    ("qwinto.d_numbers", "{n} numbers, 1 point each", "{n} Zahlen, je 1 Punkt"),
    ("qwinto.l_bonus", "column {p} bonus", "Bonus Spalte {p}"),
    ("qwinto.d_pentagon", "the number in the {c} pentagon", "die Zahl im Fünfeck ({c})"),
    ("qwinto.l_fails", "failed attempts", "Fehlwürfe"),
    ("qwinto.d_fails", "{n} x {m}", "{n} x {m}"),

    # -- Knister -----------------------------------------------------------------------------------
    ("knister.must_write", "in Knister every player must write the sum into a free field",
     "bei Knister muss jeder die Summe in ein freies Feld schreiben"),
    ("knister.no_field", "there is no field {f}: rows A-E, columns 0-4",
     "es gibt kein Feld {f}: Reihen A-E, Spalten 0-4"),
    ("knister.holds", "row {r}, column {p} already holds {v}",
     "in Reihe {r}, Spalte {p} steht schon {v}"),
    ("knister.not_number", "row {r} holds '{v}': write a number or leave the field empty",
     "in Reihe {r} steht '{v}': eine Zahl eintragen oder das Feld leer lassen"),
    ("knister.dice_count", "Knister is rolled with two dice, not {n}",
     "Knister wird mit zwei Würfeln gewürfelt, nicht mit {n}"),
    ("knister.no_reroll", "Knister has a single roll per turn: no second attempt",
     "bei Knister gibt es einen Wurf pro Zug: keinen zweiten"),
    ("knister.p_sum", "{v} in row {r}, column {p} is not a sum of two dice (2-12)",
     "{v} in Reihe {r}, Spalte {p} ist keine Summe zweier Würfel (2-12)"),
    ("knister.l_column", "column {p}", "Spalte {p}"),
    ("knister.l_diag_down", "diagonal \\", "Diagonale \\"),
    ("knister.l_diag_up", "diagonal /", "Diagonale /"),
    ("knister.d_none", "no combination", "keine Kombination"),
    ("knister.d_combo_x", "{combo} x{m}", "{combo} x{m}"),

    # -- twenty one --------------------------------------------------------------------------------
    ("twenty_one.dice_plain", "twenty one is rolled with six dice, one of each colour: {cs}; "
     "missing: {cs2} (write each die as colour:face, e.g. red:4)",
     "twenty one wird mit sechs Würfeln gewürfelt, einem jeder Farbe: {cs}; es fehlen: {cs2} "
     "(jeden Würfel als Farbe:Zahl schreiben, z. B. red:4)"),
    ("twenty_one.dice_missing", "twenty one is rolled with six dice, one of each colour: {cs}; "
     "missing: {cs2}",
     "twenty one wird mit sechs Würfeln gewürfelt, einem jeder Farbe: {cs}; es fehlen: {cs2}"),
    ("twenty_one.dice", "twenty one is rolled with six dice, one of each colour: {cs}",
     "twenty one wird mit sechs Würfeln gewürfelt, einer je Farbe: {cs}"),
    ("twenty_one.ones_stay", "dice that rolled a 1 must stay for the second attempt: the {cs} "
     "die showed 1",
     "Würfel mit einer 1 bleiben für den zweiten Wurf liegen: der Würfel {cs} zeigte 1"),
    ("twenty_one.finished", "all five rows are full: the sheet is finished",
     "alle fünf Reihen sind voll: der Zettel ist fertig"),
    ("twenty_one.must", "every player must record at least one number or cross out the "
     "leftmost empty field of the current row",
     "jeder muss mindestens eine Zahl eintragen oder das linke freie Feld der aktuellen "
     "Reihe durchstreichen"),
    ("twenty_one.row", "you are on row {r}: numbers go only into the current row, rows are "
     "filled from top to bottom",
     "du bist in Reihe {r}: Zahlen kommen nur in die aktuelle Reihe, die Reihen werden von "
     "oben nach unten gefüllt"),
    ("twenty_one.no_column", "there is no column {p}: columns 0-5",
     "es gibt keine Spalte {p}: Spalten 0-5"),
    ("twenty_one.one_number", "the {c} field can take only one number",
     "das Feld {c} nimmt nur eine Zahl auf"),
    ("twenty_one.used", "the {c} field of row {r} is already used",
     "das Feld {c} der Reihe {r} ist schon belegt"),
    ("twenty_one.die", "the {c} field takes the {c} die, which shows {f}, not {v}",
     "ins Feld {c} kommt der Würfel {c}, und der zeigt {f}, nicht {v}"),
    ("twenty_one.higher", "the {c} {v} is higher than the {n} in the {c} field",
     "die {v} ({c}) ist höher als die {n} im Feld {c}"),
    ("twenty_one.p_higher", "{v} in the {c} field of row {r} is higher than the printed {n}",
     "{v} im Feld {c} der Reihe {r} ist höher als die gedruckte {n}"),
    ("twenty_one.p_below", "{v} in the {c} field of row {r} is below the printed {n}",
     "{v} im Feld {c} der Reihe {r} ist kleiner als die gedruckte {n}"),
    ("twenty_one.p_order", "row {r} has entries while row {r2} above it is not full: rows are "
     "filled from top to bottom",
     "Reihe {r} hat Einträge, obwohl Reihe {r2} darüber nicht voll ist: die Reihen werden von "
     "oben nach unten gefüllt"),
    ("twenty_one.p_cross", "row {r}: a field was crossed out while an empty field lay to its "
     "left (only the leftmost may be crossed)",
     "Reihe {r}: ein Feld wurde durchgestrichen, obwohl links davon ein freies Feld war (nur "
     "das linke freie darf durchgestrichen werden)"),
    ("twenty_one.d_partial", "partial row scored at game end, {s}",
     "angefangene Reihe, bei Spielende gewertet, {s}"),
    ("twenty_one.d_hit", "{n} + {b} bonus for 1 exact hit",
     "{n} + {b} Bonus für 1 genauen Treffer"),
    ("twenty_one.d_hits", "{n} + {b} bonus for {h} exact hits",
     "{n} + {b} Bonus für {h} genaue Treffer"),
    ("row.label", "row {r}", "Reihe {r}"),

    # -- Kuh Vadis ---------------------------------------------------------------------------------
    ("kuh_vadis.roller", "in Kuh Vadis only the player whose turn it is marks the pad",
     "bei Kuh Vadis markiert nur, wer am Zug ist, den Block"),
    ("kuh_vadis.over", "the game is over: {s}", "das Spiel ist vorbei: {s}"),
    ("kuh_vadis.no_kind", "Kuh Vadis has no '{kind}': mark one square or pass",
     "Kuh Vadis kennt kein '{kind}': ein Feld markieren oder passen"),
    ("kuh_vadis.one_square", "a result marks exactly one square",
     "ein Ergebnis markiert genau ein Feld"),
    ("kuh_vadis.no_square", "there is no square {sq}: rows A-G, columns 0-6",
     "es gibt kein Feld {sq}: Reihen A-G, Spalten 0-6"),
    ("kuh_vadis.p_start", "{la} is a printed starting {pm}: nothing can be written there",
     "auf {la} ist ein Start-{pm} gedruckt: dort kann nichts eingetragen werden"),
    ("kuh_vadis.start", "{sq} is a printed starting {pm}", "auf {sq} ist ein Start-{pm} gedruckt"),
    ("kuh_vadis.shows", "{sq} shows {sym}, not {symk}", "{sq} zeigt {sym}, {symk}"),
    ("kuh_vadis.marked", "{sq} is already marked by the {pd}",
     "{sq} ist schon markiert, von den {pd}"),
    ("kuh_vadis.no_result", "the dice {roll} give no result: two cows, exactly three of a "
     "number or four of a kind are needed to mark a square",
     "die Würfel {roll} ergeben nichts: um ein Feld zu markieren, braucht es zwei Kühe, genau "
     "drei gleiche Zahlen oder vier gleiche"),
    ("kuh_vadis.gives", "the dice give {res}: {sq} shows {sym}",
     "die Würfel ergeben {res}: {sq} zeigt {sym}"),
    ("kuh_vadis.chain", "after the quad on {sq} the next square must touch {sq}; {sq2} does not",
     "nach dem Vierling auf {sq} muss das nächste Feld {sq} berühren; {sq2} tut das nicht"),
    ("kuh_vadis.p_both", "both players have connected their starts, but the game ends as soon "
     "as the first one does",
     "beide Spieler haben ihre Startfelder verbunden, aber das Spiel endet schon, sobald der "
     "erste es tut"),
    ("kuh_vadis.p_chain", "the quad chain continues from {sq}, which must be a square the {pl} "
     "marked",
     "die Vierlingskette geht von {sq} weiter, das ein Feld der {pl} sein muss"),
    ("kuh_vadis.dice_count", "Kuh Vadis is rolled with {n} dice, not {m}",
     "Kuh Vadis wird mit {n} Würfeln gewürfelt, nicht mit {m}"),
    ("kuh_vadis.colour", "'{die}' names a colour: Kuh Vadis dice have none, write the faces "
     "alone (1-5 or cow)",
     "'{die}' nennt eine Farbe: Kuh-Vadis-Würfel haben keine, nur die Seiten schreiben "
     "(1-5 oder cow)"),
    ("kuh_vadis.face", "'{die}' is not a Kuh Vadis face: the dice show 1-5 and a cow",
     "'{die}' ist keine Kuh-Vadis-Seite: die Würfel zeigen 1-5 und eine Kuh"),
    ("kuh_vadis.connected", "{pl} have connected {starts}", "{pl} haben {starts} verbunden"),
    ("kuh_vadis.cut", "{pl} are cut off: no free path joins {la} to {lb}",
     "{pl} sind abgeschnitten: kein freier Weg verbindet {la} mit {lb}"),
    ("kuh_vadis.open", "{pl} are still open: a path of own or free squares joins {starts}",
     "{pl} sind noch offen: ein Weg aus eigenen oder freien Feldern verbindet {starts}"),
    ("kuh_vadis.win", "{pl} win", "{pl} gewinnen"),
    ("kuh_vadis.tie", "both are cut off: the game ends in a tie",
     "beide sind abgeschnitten: das Spiel endet unentschieden"),
    ("kuh_vadis.to_move_chain", "{pl} to move, continuing a quad chain from {sq}",
     "{pl} sind am Zug und setzen eine Vierlingskette von {sq} fort"),
    ("kuh_vadis.to_move", "{pl} to move", "{pl} sind am Zug"),
    ("kuh_vadis.caption", "{who} to move", "{who} ist am Zug"),
    ("kuh_vadis.l_player", "{pl}", "{pl}"),

    # -- The Choice --------------------------------------------------------------------------------
    ("the_choice.finished", "both sides of this sheet are finished",
     "beide Seiten dieses Zettels sind fertig"),
    ("the_choice.no_kind", "The Choice has no '{kind}': use dice for colour (R) or number (N) "
     "spaces, or write 'misthrow'",
     "The Choice kennt kein '{kind}': Würfel für Farbfelder (R) oder Zahlenfelder (N) nutzen "
     "oder 'misthrow' schreiben"),
    ("the_choice.no_row", "'{m}': there is no row '{r}': R (colour ring), N (number spaces), M "
     "(misthrow)",
     "'{m}': es gibt keine Reihe '{r}': R (Farbring), N (Zahlenfelder), M (Fehlwurf)"),
    ("the_choice.no_die", "'{m}': there is no die {d}: the dice are 1-{n}",
     "'{m}': es gibt keinen Würfel {d}: die Würfel sind 1-{n}"),
    ("the_choice.no_space", "there is no colour space {p}: the ring has 0-{n}",
     "es gibt kein Farbfeld {p}: der Ring hat 0-{n}"),
    ("the_choice.space_colour", "colour space {p} is {c}, not {c2}",
     "Farbfeld {p} ist {c}, nicht {c2}"),
    ("the_choice.crossed", "colour space {p} ({c}) is already crossed",
     "Farbfeld {p} ({c}) ist schon angekreuzt"),
    ("the_choice.once", "a colour space can be crossed only once",
     "ein Farbfeld kann nur einmal angekreuzt werden"),
    ("the_choice.no_number", "there is no number space {p}: the grid has 0-{n}",
     "es gibt kein Zahlenfeld {p}: das Raster hat 0-{n}"),
    ("the_choice.number_shows", "number space {p} shows {n}, not {v}",
     "Zahlenfeld {p} zeigt {n}, nicht {v}"),
    ("the_choice.at_most", "{n} dice make at most {m} marks",
     "{n} Würfel ergeben höchstens {m} Kreuze"),
    ("the_choice.one_miss", "one roll marks at most one misthrow",
     "ein Wurf ergibt höchstens einen Fehlwurf"),
    ("the_choice.next_miss", "the next misthrow box on the {side} is {n}: write Mx@{m}",
     "das nächste Fehlwurf-Kästchen auf der {side} ist {n}: Mx@{m} schreiben"),
    ("the_choice.at_least", "mark at least one space, or write 'misthrow' alone",
     "mindestens ein Feld ankreuzen oder nur 'misthrow' schreiben"),
    ("the_choice.connected", "the colour crosses must be connected: after the first cross every "
     "cross must touch one already made (this roll's crosses included)",
     "die Farbkreuze müssen zusammenhängen: nach dem ersten muss jedes Kreuz ein schon "
     "gemachtes berühren (die Kreuze dieses Wurfs mitgezählt)"),
    ("the_choice.on_line", "the number {v} (space {p}) is already on the line",
     "die Zahl {v} (Feld {p}) ist schon auf der Linie"),
    ("the_choice.touch", "{v} (space {p}) does not touch {w} (space {q}), the end of the line: "
     "each number must be next to the one marked just before",
     "{v} (Feld {p}) berührt nicht {w} (Feld {q}), das Ende der Linie: jede Zahl muss neben "
     "der zuletzt angekreuzten liegen"),
    ("the_choice.order", "these numbers can be drawn in more than one order: write the number "
     "marks in the order drawn, separated by '>' (e.g. {ex})",
     "diese Zahlen lassen sich in mehr als einer Reihenfolge ziehen: die Zahlen in der "
     "gezogenen Reihenfolge schreiben, getrennt durch '>' (z. B. {ex})"),
    ("the_choice.no_miss", "these marks use {n} dice: {s}, so there is no misthrow",
     "diese Kreuze nutzen {n} Würfel: {s}, also gibt es keinen Fehlwurf"),
    ("the_choice.too_few_one", "these marks use 1 die: {s}, or mark a misthrow (add Mx@{m})",
     "diese Kreuze nutzen 1 Würfel: {s}, oder einen Fehlwurf ankreuzen (Mx@{m} dazu)"),
    ("the_choice.too_few", "these marks use {n} dice: {s}, or mark a misthrow (add Mx@{m})",
     "diese Kreuze nutzen {n} Würfel: {s}, oder einen Fehlwurf ankreuzen (Mx@{m} dazu)"),
    ("the_choice.roller_three", "the roller must use all three dice",
     "wer würfelt, muss alle drei Würfel nutzen"),
    ("the_choice.others_two", "every player but the roller must use at least two dice",
     "alle außer dem Würfelnden müssen mindestens zwei Würfel nutzen"),
    ("the_choice.ring_one_die", "'{m}': a colour space is crossed with exactly one die",
     "'{m}': ein Farbfeld wird mit genau einem Würfel angekreuzt"),
    ("the_choice.die_colour", "'{m}': die {d} ({die}) is not {c}",
     "'{m}': Würfel {d} ({die}) ist nicht {c}"),
    ("the_choice.dice_sum", "'{m}': dice {ds} add up to {t}, not {v}",
     "'{m}': die Würfel {ds} ergeben {t}, nicht {v}"),
    ("the_choice.die_once", "each die may be used only once, for its colour or its number",
     "jeder Würfel darf nur einmal genutzt werden, für seine Farbe oder seine Zahl"),
    ("the_choice.cannot", "the dice {roll} cannot make these marks: each die is used once, for "
     "its colour or its number (numbers of several dice may be added)",
     "die Würfel {roll} ergeben diese Kreuze nicht: jeder Würfel zählt einmal, für seine "
     "Farbe oder seine Zahl (Zahlen mehrerer Würfel dürfen addiert werden)"),
    ("the_choice.end_first", "only the first side may be ended voluntarily: the second ends "
     "with the third misthrow (or when it is full)",
     "nur die erste Seite darf freiwillig beendet werden: die zweite endet mit dem dritten "
     "Fehlwurf (oder wenn sie voll ist)"),
    ("the_choice.dice_count", "The Choice is rolled with {n} dice, not {m}",
     "The Choice wird mit {n} Würfeln gewürfelt, nicht mit {m}"),
    ("the_choice.no_colour", "'{die}' has no colour of The Choice: every face shows a colour "
     "({cs}) and a number, e.g. green:6",
     "'{die}' hat keine Farbe von The Choice: jede Seite zeigt eine Farbe ({cs}) und eine "
     "Zahl, z. B. green:6"),
    ("the_choice.number", "'{die}' does not show a number 1-6", "'{die}' zeigt keine Zahl 1-6"),
    ("the_choice.p_other", "the {side} has marks, but the player is still on the {side2} (the "
     "first side)",
     "auf der {side} stehen Kreuze, aber gespielt wird noch die {side2} (die erste Seite)"),
    ("the_choice.p_ring", "the colour crosses on the {side} are not connected: every cross "
     "after the first must touch one already made",
     "die Farbkreuze auf der {side} hängen nicht zusammen: jedes Kreuz nach dem ersten muss "
     "ein schon gemachtes berühren"),
    ("the_choice.p_twice", "the number line on the {side} enters a space twice",
     "die Zahlenlinie auf der {side} geht zweimal durch dasselbe Feld"),
    ("the_choice.p_touch", "on the {side}, {b} does not touch {a} before it: the line must be "
     "continuous",
     "auf der {side} berührt {b} nicht die {a} davor: die Linie muss durchgehend sein"),
    ("the_choice.p_misses", "{n} misthrows on the {side}: a side ends at the {m}rd",
     "{n} Fehlwürfe auf der {side}: eine Seite endet beim {m}."),
    ("the_choice.p_misses_end", "{n} misthrows end the {side}: the player must be on the "
     "other side",
     "{n} Fehlwürfe beenden die {side}: gespielt werden muss die andere Seite"),
    ("the_choice.l_colours", "{side} colours", "Farben {side}"),
    ("the_choice.l_numbers", "{side} numbers", "Zahlen {side}"),
    ("the_choice.d_space", "1 colour space crossed", "1 Farbfeld angekreuzt"),
    ("the_choice.d_spaces", "{n} colour spaces crossed", "{n} Farbfelder angekreuzt"),
    ("the_choice.d_line_one", "a line of 1 number space", "eine Linie aus 1 Zahlenfeld"),
    ("the_choice.d_line", "a line of {n} number spaces", "eine Linie aus {n} Zahlenfeldern"),
    ("the_choice.caption", "{side} side", "{side}"),
    ("knister.d_combo", "{combo}", "{combo}"),
)

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


_ENTRIES = tuple((code, _compile(en), en, de) for code, en, de in CATALOGUE)
CODES = {code: (en, de) for code, en, de in CATALOGUE}
assert len(CODES) == len(CATALOGUE), "two catalogue entries share a code"


def _params_ok(name: str, value: str) -> bool:
    """Whether a matched value is plausible for its placeholder (keeps `{c}` from eating
    half a sentence when a template is loose)."""
    kind = _kind(name)
    if kind == "c":
        return value in WORDS["de"]["c"]
    if kind in ("pl", "pd", "pm", "combo"):
        return value in WORDS["de"][kind]
    return True


@lru_cache(maxsize=8192)
def explain(text: str) -> tuple[str, dict[str, str]] | None:
    """(code, parameters) of an engine sentence, or None if no entry matches it."""
    if not isinstance(text, str) or not text:
        return None
    for code, pattern, _, _ in _ENTRIES:
        m = pattern.match(text)
        if m and all(_params_ok(k, v) for k, v in m.groupdict().items()):
            return code, m.groupdict()
    return None


def _word(kind: str, value: str, lang: str) -> str:
    if kind == "s":
        return translate(value, lang)
    if kind in ("cs", "cor"):
        sep = ", " if kind == "cs" else " or "
        joined = (", " if kind == "cs" else " oder ")
        return joined.join(_word("c", v, lang) for v in value.split(sep))
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
    if kind == "side":
        return WORDS[lang]["side"].get(value, value)
    table = WORDS.get(lang, {}).get(kind)
    return table.get(value, value) if table else value


def render(code: str, params: dict[str, Any], lang: str) -> str | None:
    """The sentence of `code` in `lang` with `params`; None for an unknown code, or when the
    template needs a parameter that is missing."""
    entry = CODES.get(code)
    if entry is None:
        return None
    en, de = entry
    if lang != "de":
        template, values = en, {k: str(v) for k, v in params.items()}
    else:
        template = de
        values = {k: _word(_kind(k), str(v), lang) for k, v in params.items()}
    try:
        return _FIELD.sub(lambda m: values[m.group(1)], template)
    except KeyError:
        return None


@lru_cache(maxsize=8192)
def translate(text: str, lang: str) -> str:
    """An engine sentence in `lang`; the engine's English when no entry matches."""
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
    return dict(score, lines=[dict(l, label=translate(l["label"], lang),
                                   detail=translate(l["detail"], lang) if l["detail"] else "")
                              for l in score["lines"]])
