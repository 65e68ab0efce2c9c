"""The pages' words in English and German.

The language is `?lang=en|de` (remembered in a cookie), else the browser's
Accept-Language. The rule engine's reasons (why a field is illegal, what is wrong on a
typed-in sheet) come from the engine in English and are translated by `reasons`.
"""
from __future__ import annotations

LANGUAGES = ("en", "de")

STRINGS: dict[str, dict[str, str]] = {
    "app_title": {"en": "Dice companion", "de": "Würfel-Begleiter"},
    "tagline": {"en": "Reads the dice, knows the rules, keeps every sheet.",
                "de": "Liest die Würfel, kennt die Regeln, führt jeden Zettel."},
    "new_table": {"en": "New table", "de": "Neuer Tisch"},
    "game": {"en": "Game", "de": "Spiel"},
    "layout": {"en": "Sheet layout", "de": "Zettel-Vorlage"},
    "layout_per_seat": {"en": "each player gets a different sheet",
                        "de": "jeder Spieler bekommt einen anderen Zettel"},
    "recon": {"en": "Reconstructed sheet: compare it with your own pad",
              "de": "Rekonstruierte Vorlage: bitte mit deinem eigenen Zettel vergleichen"},
    # the shipped layouts' names as a page shows them (a layout of the user's keeps its name)
    "recon_short": {"en": "reconstructed", "de": "rekonstruiert"},     # after a layout's name
    "layout_standard": {"en": "standard", "de": "Standard"},
    "layout_default": {"en": "default", "de": "Standard"},
    "upload_layout": {"en": "or upload your own layout (JSON)",
                      "de": "oder eigene Vorlage hochladen (JSON)"},
    "uploaded": {"en": "uploaded", "de": "hochgeladen"},
    "players": {"en": "Players", "de": "Spieler"},
    "player_n": {"en": "Player", "de": "Spieler"},
    "add_player": {"en": "+ player", "de": "+ Spieler"},
    "remove": {"en": "remove", "de": "entfernen"},
    "i_am_first": {"en": "I play as the first player", "de": "Ich bin Spieler 1"},
    "create": {"en": "Create table", "de": "Tisch anlegen"},
    "join_table": {"en": "Open a table by its code", "de": "Tisch mit Code öffnen"},
    "code_watches": {"en": "The code lets you watch. To sit down, scan the host's QR code or open "
                           "the join link the host shares.",
                     "de": "Mit dem Code schaust du nur zu. Zum Mitspielen scanne den QR-Code des "
                           "Gastgebers oder öffne den Link, den er dir schickt."},
    "code": {"en": "Table code", "de": "Tisch-Code"},
    "join": {"en": "Open", "de": "Öffnen"},
    "open": {"en": "Open", "de": "Öffnen"},
    "check_paper": {"en": "Check my paper", "de": "Meinen Zettel prüfen"},
    "check_intro": {"en": "Type in what is on your paper sheet: every rule problem and the "
                          "score appear below.",
                    "de": "Tippe ab, was auf deinem Papierzettel steht: alle Regelverstöße "
                          "und die Punkte erscheinen darunter."},
    # the tables this browser's cookies open (its own seats, the tables it created)
    "recent": {"en": "Your tables", "de": "Deine Tische"},
    # a recent table's count of rolls and answers
    "entries": {"en": "entries", "de": "Einträge"},
    "entry": {"en": "entry", "de": "Eintrag"},
    "https_note": {"en": "Phones need the secure address for their camera:",
                   "de": "Handys brauchen für die Kamera die sichere Adresse:"},
    "cert_note": {"en": "The first time, the phone's browser warns that the connection is not "
                        "private: the certificate is this computer's own, not a public one. "
                        "Choose \u201cAdvanced\u201d (or \u201cShow details\u201d), then "
                        "\u201cProceed\u201d (or \u201cVisit this website\u201d). "
                        "It asks only once.",
                  "de": "Beim ersten Mal warnt der Browser des Handys, die Verbindung sei nicht "
                        "privat: Das Zertifikat ist das eigene dieses Computers, kein "
                        "öffentliches. \u201eErweitert\u201c (oder \u201eDetails anzeigen\u201c) "
                        "wählen, dann \u201eFortfahren\u201c (oder \u201eWebsite besuchen\u201c). "
                        "Er fragt nur einmal."},
    "https_off": {"en": "This server runs without HTTPS (--no-https): phones cannot use their "
                        "live camera here; players take a photo of the dice or tap them in.",
                  "de": "Dieser Server läuft ohne HTTPS (--no-https): Handys können hier ihre "
                        "Live-Kamera nicht nutzen; Spieler fotografieren die Würfel oder tippen "
                        "sie an."},
    "camera_needs_https": {"en": "This page is not served over HTTPS, so the browser keeps the "
                                 "live camera from it: use “Photo of the dice” in the roll entry, "
                                 "or tap the dice in.",
                           "de": "Diese Seite kommt nicht über HTTPS, daher gibt ihr der Browser "
                                 "keine Live-Kamera: nimm „Foto der Würfel“ in der "
                                 "Würfeleingabe, oder tippe die Würfel an."},
    "scan_to_join": {"en": "Scan to sit down at this table: whoever has this link may take a "
                           "free seat",
                     "de": "Scannen, um sich an den Tisch zu setzen: wer diesen Link hat, kann "
                           "einen freien Platz nehmen"},
    "invite_title": {"en": "Invite the players", "de": "Spieler einladen"},
    "qr_of": {"en": "QR code of", "de": "QR-Code für"},
    "invite_open": {"en": "Still to sit down: {names}. Let them scan this code with their phone, "
                          "or send them the link.",
                    "de": "Noch nicht am Tisch: {names}. Lass diesen Code mit dem Handy scannen "
                          "oder schick den Link."},
    "scan_to_watch": {"en": "Scan to watch this table",
                      "de": "Scannen, um dem Tisch zuzuschauen"},
    "join_needs_link": {"en": "To sit down, scan the host's QR code or open the join link the "
                              "host shares; until then this device watches.",
                        "de": "Zum Hinsetzen den QR-Code des Gastgebers scannen oder den "
                              "Einladungslink öffnen, den der Gastgeber teilt; bis dahin schaut "
                              "dieses Gerät nur zu."},
    "table": {"en": "Table", "de": "Tisch"},
    "my_sheet": {"en": "My sheet", "de": "Mein Zettel"},
    "sheet_of": {"en": "Sheet of", "de": "Zettel von"},
    "table_view": {"en": "Table view", "de": "Tischansicht"},
    "sit_as": {"en": "Sit down as", "de": "Hinsetzen als"},
    "you": {"en": "you", "de": "du"},  # the badge on the player's own sheet
    "watch_only": {"en": "Every seat is taken, so this device only watches the table.",
                   "de": "Alle Plätze sind besetzt; dieses Gerät schaut nur zu."},
    "no_seat_here": {"en": "This device has no seat at this table.",
                     "de": "Dieses Gerät hat keinen Platz an diesem Tisch."},
    "rejoin_hint": {"en": "Sat down before on another phone or browser? Tap your name and type "
                          "the rejoin code the host shows you.",
                    "de": "Schon auf einem anderen Handy oder Browser hingesetzt? Tippe deinen "
                          "Namen an und gib den Code ein, den der Gastgeber dir zeigt."},
    "rejoin_code": {"en": "Rejoin code", "de": "Code zum Wiederhinsetzen"},
    "rejoin_take": {"en": "Take my seat back on this device",
                    "de": "Meinen Platz auf diesem Gerät zurückholen"},
    "rejoin_for": {"en": "Rejoin code for", "de": "Code zum Wiederhinsetzen für"},
    "rejoin_shown": {"en": "{name} scans this on the new device, or taps their name there and "
                           "types the code:",
                     "de": "{name} scannt das auf dem neuen Gerät oder tippt dort den eigenen "
                           "Namen an und gibt den Code ein:"},
    "answer_for": {"en": "Answer for", "de": "Eintragen für"},
    "stand_in_confirm": {"en": "{name} has joined on their own device. Answer for {name} only "
                               "when {name} cannot (a lost phone, away from the table).",
                         "de": "{name} sitzt mit einem eigenen Gerät am Tisch. Trag nur für "
                               "{name} ein, wenn {name} es nicht kann (Handy weg, nicht am "
                               "Tisch)."},
    "stand_in_active": {"en": "You answer for {name}.", "de": "Du trägst für {name} ein."},
    "back_to_mine": {"en": "Back to my sheet", "de": "Zurück zu meinem Zettel"},
    "joined": {"en": "joined", "de": "sitzt"},
    "creator": {"en": "table creator", "de": "Tisch-Ersteller"},
    "turn_of": {"en": "Turn of", "de": "Am Zug"},
    "to_roll": {"en": "rolls next", "de": "würfelt als Nächstes"},
    "attempt": {"en": "Attempt", "de": "Wurf"},
    "roll": {"en": "Roll", "de": "Wurf"},
    "no_roll": {"en": "Nothing rolled yet.", "de": "Noch nicht gewürfelt."},
    "same_sheet": {"en": "Plays on the same pad as {name}.",
                   "de": "Spielt auf demselben Block wie {name}."},
    "answered_already": {"en": "Your answer to this roll is written (above): nothing to retry.",
                         "de": "Deine Antwort auf diesen Wurf ist eingetragen (oben): nichts zu "
                               "wiederholen."},
    "last_roll": {"en": "The last roll:", "de": "Der letzte Wurf:"},
    "waiting_for": {"en": "Waiting for", "de": "Warten auf"},
    "enter_roll": {"en": "Enter the roll", "de": "Wurf eingeben"},
    "enter_roll_of": {"en": "Enter {name}'s roll", "de": "Wurf von {name} eingeben"},
    "tap_dice": {"en": "Tap the dice as they lie, or take a photo of them.",
                 "de": "Tippe die Würfel an, wie sie liegen, oder fotografiere sie."},
    "photo_dice": {"en": "Photo of the dice", "de": "Foto der Würfel"},
    "photo_reading": {"en": "Reading the photo…", "de": "Das Foto wird gelesen…"},
    "photo_read": {"en": "Read from your photo: compare each die with the table; where one is "
                         "wrong, tap it, then its right face.",
                   "de": "Aus deinem Foto gelesen. Vergleiche jeden Würfel mit den Würfeln auf "
                         "dem Tisch; ist einer falsch, tippe ihn an und dann oben, was er zeigt."},
    "photo_no_colour": {"en": "This photo shows no colours (black and white, or a filter): "
                              "tap each die marked ? on its colour and number in the pad.",
                        "de": "Dieses Foto zeigt keine Farben (schwarz-weiß oder ein Filter): "
                              "tippe bei jedem Würfel mit ? seine Farbe und Zahl im Würfelfeld "
                              "oben an."},
    "photo_no_dice": {"en": "No dice found in the photo: take it again from above and closer, "
                            "or tap the dice in.",
                      "de": "Keine Würfel im Foto gefunden: fotografiere noch einmal, von oben "
                            "und näher, oder tippe die Würfel an."},
    "unusual_faces": {"en": "Pale faces are not in this sheet's description of the dice: tap them "
                            "if your dice show them.",
                      "de": "Blasse Seiten stehen nicht in der Würfelbeschreibung dieses "
                            "Zettels: antippen, wenn deine Würfel sie zeigen."},
    "send_roll": {"en": "Roll", "de": "Wurf senden"},
    # the roll button once the roller may roll again: "Roll attempt 2 of 3"
    "next_attempt": {"en": "Roll attempt {i} of {n}", "de": "{i}. Wurf senden (von {n})"},
    "correct_roll": {"en": "Correct the roll", "de": "Wurf korrigieren"},
    # the roller has finished rolling; who writes the roll now (everyone, or in Kuh Vadis the
    # roller alone)
    "roll_waiting": {"en": "Everyone writes this roll now. A die read or tapped wrong?",
                     "de": "Jetzt tragen alle diesen Wurf ein. Ein Würfel falsch erkannt oder "
                           "getippt?"},
    "roll_waiting_roller": {"en": "{name} marks this roll now. A die read or tapped wrong?",
                            "de": "Jetzt markiert {name} diesen Wurf. Ein Würfel falsch erkannt "
                                  "oder getippt?"},
    "clear": {"en": "Clear", "de": "Leeren"},
    "camera": {"en": "Camera", "de": "Kamera"},
    "start_camera": {"en": "Start camera", "de": "Kamera starten"},
    "stop_camera": {"en": "Stop camera", "de": "Kamera stoppen"},
    "camera_unavailable": {"en": "Camera reading unavailable: tap the dice in.",
                           "de": "Kamera-Erkennung nicht verfügbar: Würfel antippen."},
    "settling": {"en": "Waiting for the dice to settle…", "de": "Warte, bis die Würfel liegen…"},
    "camera_no_dice": {"en": "No dice seen: roll them where the camera sees them, from above.",
                       "de": "Keine Würfel zu sehen: würfle dort, wo die Kamera sie sieht, von "
                             "oben."},
    "camera_moving": {"en": "Something is moving: waiting for the dice to lie still…",
                      "de": "Etwas bewegt sich: warte, bis die Würfel still liegen…"},
    "camera_covered": {"en": "Something covers the table, or the camera moved. Hold the camera "
                             "still: after 4 s its new view is taken as the table.",
                       "de": "Etwas verdeckt den Tisch, oder die Kamera wurde bewegt. Halte die "
                             "Kamera still: nach 4 s gilt das neue Bild als Tisch."},
    "settled": {"en": "Read. “Use this reading” puts these dice into the roll entry, where a "
                      "wrong die is tapped, then its right face; then send it with the roll "
                      "button.",
                "de": "Erkannt. „Diese Erkennung übernehmen“ übernimmt die Würfel in die "
                      "Eingabe; dort einen falschen Würfel antippen, dann seine richtige Seite, "
                      "und mit dem Würfeln-Knopf senden."},
    "use_reading": {"en": "Use this reading", "de": "Diese Erkennung übernehmen"},
    "reading_sent": {"en": "The roll has been sent. The next roll is read once its dice lie "
                           "still.",
                     "de": "Der Wurf ist gesendet. Der nächste Wurf wird erkannt, sobald seine "
                           "Würfel still liegen."},
    "game_rolls": {"en": "{game} rolls {n} dice", "de": "{game} wird mit {n} Würfeln gespielt"},
    "seen_too_many": {"en": "{seen} are seen: tap the {n} that were rolled.",
                      "de": "{seen} sind zu sehen: tippe die {n} an, die geworfen wurden."},
    "chosen_count": {"en": "{k} chosen", "de": "{k} gewählt"},
    "unsure_colour": {"en": "A die marked ? was read without a sure colour: tap its colour and "
                            "number in the pad.",
                      "de": "Ein Würfel mit ? wurde ohne sichere Farbe erkannt: tippe seine Farbe "
                            "und Zahl im Würfelfeld oben an."},
    "check_die": {"en": "check", "de": "prüfen"},
    "replace_die": {"en": "Tap the die's right face in the pad, or tap the die again to take it "
                          "out.",
                    "de": "Tippe oben an, was dieser Würfel richtig zeigt, oder tippe den Würfel "
                          "noch einmal an, um ihn zu entfernen."},
    "pad_full": {"en": "All {n} dice are in: tap the wrong die first, then its right face.",
                 "de": "Alle {n} Würfel sind drin: tippe zuerst den falschen Würfel an, dann "
                       "seine richtige Seite."},
    "check_faces": {"en": "The reader was unsure of the dice marked check: compare them with the "
                          "table; where one is wrong, tap it, then its right face in the pad.",
                    "de": "Bei den Würfeln mit „prüfen“ war die Erkennung unsicher: vergleiche "
                          "sie mit dem Tisch; ist einer falsch, tippe ihn an, dann im Feld seine "
                          "richtige Seite."},
    "server_camera": {"en": "Table camera", "de": "Tischkamera"},
    "server_camera_stop": {"en": "Stop the table camera", "de": "Tischkamera stoppen"},
    "demo_picture": {"en": "Demo: sample picture {i} of {n} of this game",
                     "de": "Demo: Beispielbild {i} von {n} zu diesem Spiel"},
    "next_picture": {"en": "Next picture", "de": "Nächstes Bild"},
    "teach_join": {"en": "Join the table to teach its dice:",
                   "de": "Setz dich an den Tisch, um ihm seine Würfel beizubringen:"},
    "keep_roll": {"en": "Keep this roll", "de": "Diesen Wurf behalten"},
    "start_on": {"en": "Start on", "de": "Beginnen auf"},
    "erase": {"en": "Wrong? Erase the {v} and cross the field out",
              "de": "Falsch? Die {v} ausradieren und das Feld durchstreichen"},
    "to_move": {"en": "To move", "de": "Am Zug"},
    "to_move_X": {"en": "crosses (X)", "de": "Kreuze (X)"},
    "to_move_O": {"en": "circles (O)", "de": "Kreise (O)"},
    "again_hint": {"en": "Dashed fields are a quad: mark one, then roll again.",
                   "de": "Gestrichelte Felder sind ein Vierling: eines markieren, dann noch einmal "
                         "würfeln."},
    "side_front": {"en": "front", "de": "Vorderseite"},
    "side_back": {"en": "back", "de": "Rückseite"},
    "who_begins": {"en": "Who begins", "de": "Wer beginnt?"},
    "keep_hint": {"en": "The others write on this roll once you keep it (or write on it "
                        "yourself); roll again instead if you like.",
                  "de": "Die anderen können eintragen, sobald du diesen Wurf behältst (oder "
                        "selbst einträgst). Oder würfle noch einmal."},
    "keep_hint_for": {"en": "The others write on {name}'s roll once it is kept; {name} may roll "
                            "again instead.",
                      "de": "Die anderen tragen auf den Wurf von {name} ein, sobald er behalten "
                            "wird; {name} kann stattdessen noch einmal würfeln."},
    "keep_roll_of": {"en": "Keep {name}'s roll", "de": "Wurf von {name} behalten"},
    "you_still_rolling": {"en": "You are still rolling.",
                          "de": "Du würfelst noch."},
    "still_rolling": {"en": "is still rolling", "de": "würfelt noch"},
    "write_when_kept": {"en": "write once the roll is kept.",
                        "de": "eintragen, sobald der Wurf behalten wird."},
    "reroll_any": {"en": "Throw again the dice you choose, then tap all {n} as they lie, the "
                         "ones you kept too.",
                   "de": "Wirf beliebige Würfel noch einmal und tippe dann alle {n} an, wie sie "
                         "jetzt liegen, auch die liegen gebliebenen."},
    "reroll_same": {"en": "The second attempt throws the same dice again",
                    "de": "Beim zweiten Wurf werden dieselben Würfel noch einmal geworfen"},
    "reroll_not_ones": {"en": "The second attempt throws again every die not showing 1",
                        "de": "Beim zweiten Wurf werden alle Würfel ohne 1 noch einmal geworfen"},
    "ones_entered": {"en": "The 1s stay and are entered already: tap the others as they lie.",
                     "de": "Die Einsen bleiben liegen und sind schon eingetragen: tippe die "
                           "anderen an, wie sie liegen."},
    "no_field_hint": {"en": "No field can take this roll: choose below.",
                      "de": "Kein Feld passt zu diesem Wurf: unten wählen."},
    "no_field_roll_again": {"en": "No field can take this roll: roll again (attempt {i} of {n}), "
                                  "or pass.",
                            "de": "Kein Feld passt zu diesem Wurf: noch einmal würfeln (Wurf {i} "
                                  "von {n}) oder passen."},
    "roll_again": {"en": "Roll again", "de": "Noch einmal würfeln"},
    "hint_switch": {"en": "Hints", "de": "Tipps"},
    "hint_best": {"en": "Best", "de": "Am besten"},
    "hint_key": {"en": "The fields: a wide dark green border for the best third, a thin light "
                       "one for the middle, none for the rest; ★ the best answer.",
                 "de": "Breiter dunkelgrüner Rahmen: bestes Drittel der Felder; schmaler "
                       "hellgrüner Rahmen: mittleres Drittel; kein Rahmen: der Rest; ★ = bester "
                       "Zug."},
    "hint_final": {"en": "expected final score {v}", "de": "erwartete Endpunktzahl {v}"},
    # a field of a drawn sheet read aloud (its aria-label): "row C, column 2, yellow: 7"
    "field_label": {"en": "row {r}, column {c}", "de": "Reihe {r}, Spalte {c}"},
    # The Choice's ring, by the position its placements name (Rred@3/1)
    "ring_label": {"en": "colour space {n}", "de": "Farbfeld {n}"},
    "field_empty": {"en": "empty", "de": "leer"},
    "field_legal": {"en": "may be written now", "de": "jetzt beschreibbar"},
    "count_of": {"en": "{k} of {n}", "de": "{k} von {n}"},
    "field_crossed": {"en": "crossed out", "de": "durchgestrichen"},
    "row_of": {"en": "row {r}", "de": "Reihe {r}"},
    "value_on": {"en": "{v} on {sq}", "de": "{v} auf {sq}"},
    "value_at": {"en": "{v} in row {r}, column {c}", "de": "{v} in Reihe {r}, Spalte {c}"},
    "hint_wins": {"en": "wins {v} times in 100", "de": "gewinnt {v}-mal von 100"},
    "hint_roll_again": {"en": "roll again", "de": "noch einmal würfeln"},
    "hint_roll": {"en": "roll", "de": "würfle"},
    "hint_if_written": {"en": "To write this roll", "de": "Wenn du diesen Wurf einträgst"},
    "confirm_special": {"en": "Tap again to confirm", "de": "Zum Bestätigen noch einmal tippen"},
    "confirm_undo_end": {"en": "The game is over: tap again to take your answer back and reopen "
                               "it",
                         "de": "Das Spiel ist vorbei: zum Zurücknehmen und Wiederöffnen noch "
                               "einmal tippen"},
    "legal_hint": {"en": "Highlighted fields are legal for this roll. Tap one to write.",
                   "de": "Hervorgehobene Felder sind für diesen Wurf erlaubt. Antippen zum "
                         "Eintragen."},
    "legal_hint_multi": {"en": "Highlighted fields are legal for this roll. Tap the ones to "
                               "write, then “Write the chosen fields”.",
                         "de": "Hervorgehobene Felder sind für diesen Wurf erlaubt. Tippe die an, "
                               "die du eintragen willst, dann „Gewählte Felder eintragen“."},
    "enter_marks": {"en": "Write the chosen fields", "de": "Gewählte Felder eintragen"},
    "choice_hint": {"en": "Tap a highlighted space, then the dice it uses; numbers in the order "
                          "you draw the line.",
                    "de": "Tippe ein hervorgehobenes Feld an, dann die Würfel dafür; Zahlen in "
                          "der Reihenfolge, in der du die Linie ziehst."},
    "choice_which": {"en": "With which dice?", "de": "Mit welchen Würfeln?"},
    # a mark in words, {with} the dice it uses ("with the red 3 + blue 2"): the verb where
    # each language puts it
    "choice_ring": {"en": "cross a {name} space {with}", "de": "ein Farbfeld {name} {with} "
                                                              "ankreuzen"},
    "choice_number": {"en": "mark the {name} {with}", "de": "die {name} {with} markieren"},
    "choice_with": {"en": "with the {name}", "de": "mit {name}"},
    "choice_misthrow": {"en": "and a misthrow (too few dice used)",
                        "de": "und einen Fehlwurf ankreuzen (zu wenige Würfel genutzt)"},
    "choice_chosen": {"en": "Chosen", "de": "Gewählt"},
    "choice_write": {"en": "Write", "de": "Eintragen"},
    "undo": {"en": "Undo my entry", "de": "Meinen Eintrag zurücknehmen"},
    "confirm_undo_turn": {"en": "Everyone has written: tap again to take your entry back and "
                                "reopen this turn for the table",
                          "de": "Alle haben schon eingetragen. Tippe noch einmal, um deinen "
                                "Eintrag zurückzunehmen; der Zug ist dann für alle wieder offen."},
    "confirm_end_side": {"en": "Tap again to end this side: its open spaces stay empty, and you "
                               "go on on the other side",
                         "de": "Zum Beenden dieser Zettelseite noch einmal tippen: ihre offenen "
                               "Felder bleiben leer, und du spielst auf der anderen Seite weiter"},
    "end_side": {"en": "End this side", "de": "Diese Seite beenden"},
    "pass": {"en": "Pass", "de": "Passen"},
    "fail": {"en": "Failed attempt", "de": "Fehlwurf"},
    "cross": {"en": "Cross out", "de": "Durchstreichen"},
    "misthrow": {"en": "Misthrow", "de": "Fehlwurf"},
    "answered": {"en": "answered", "de": "eingetragen"},
    "not_joined": {"en": "not joined", "de": "nicht da"},
    # a joined player's page is open / joined, but no page open now (not "connected": Kuh
    # Vadis' players connect their starting squares, and its end says so)
    "connected": {"en": "page open", "de": "Seite offen"},
    "away": {"en": "page closed", "de": "Seite zu"},
    "score": {"en": "Score", "de": "Punkte"},
    "total": {"en": "Total", "de": "Summe"},
    "ranking": {"en": "Ranking", "de": "Rangliste"},
    "game_over": {"en": "Game over", "de": "Spielende"},
    "problems": {"en": "Problems", "de": "Probleme"},
    "no_problems": {"en": "No rule problems.", "de": "Keine Regelverstöße."},
    "not_checked": {"en": "Not checked: one field cannot be read (marked on the sheet).",
                    "de": "Nicht geprüft: ein Feld ist nicht lesbar (auf dem Zettel markiert)."},
    "not_checked_above": {"en": "Not checked: why is said above.",
                          "de": "Nicht geprüft: warum, steht oben."},
    "json_bad": {"en": "Not valid JSON: look at its brackets, commas and quotes.",
                 "de": "Kein gültiges JSON: Klammern, Kommas und Anführungszeichen prüfen."},
    "name_blank": {"en": "A name needs a letter: type one, or remove this player.",
                   "de": "Ein Name braucht einen Buchstaben: einen eintippen oder diesen "
                         "Spieler entfernen."},
    "sheet_json": {"en": "Sheet as JSON", "de": "Zettel als JSON"},
    "check": {"en": "Check", "de": "Prüfen"},
    "failed_attempts": {"en": "failed attempts", "de": "Fehlwürfe"},
    "live": {"en": "live", "de": "live"},
    "offline": {"en": "reconnecting…", "de": "verbinde neu…"},
    "no_connection": {"en": "No connection to the table: this may not have been saved. Once the "
                            "page says live again, look whether it was, and try again if not.",
                      "de": "Keine Verbindung zum Tisch: das wurde vielleicht nicht gespeichert. "
                            "Sobald die Seite wieder live ist, nachsehen und sonst noch einmal "
                            "versuchen."},
    "language": {"en": "Deutsch", "de": "English"},
    "not_found": {"en": "Not found", "de": "Nicht gefunden"},
    "back": {"en": "Back to the start", "de": "Zurück zum Start"},
    "filled": {"en": "This field is already written.", "de": "Dieses Feld ist schon beschrieben."},
    "not_your_turn": {"en": "Nothing to write now.", "de": "Gerade nichts einzutragen."},
    # a game where only the roller writes (Kuh Vadis), to the other player
    "roller_only_writes": {"en": "{name} rolls and marks the pad: nothing for you to write now.",
                           "de": "{name} würfelt und trägt ein: für dich gibt es gerade nichts "
                                 "einzutragen."},
    "roller": {"en": "roller", "de": "am Zug"},
    "written_for_you": {"en": "You write for", "de": "Du schreibst für"},
    "confidence": {"en": "confidence", "de": "Sicherheit"},
    "cow": {"en": "cow", "de": "Kuh"},
    "teach_dice": {"en": "Teach your dice", "de": "Würfel beibringen"},
    "teach_intro": {"en": "Photograph one die at a time, close up and in the middle of the "
                          "picture. Tap the face it shows first, then take the photo: 3 photos of "
                          "every face, on your table and in its light.",
                    "de": "Fotografiere einen Würfel nach dem anderen, nah und in der Bildmitte. "
                          "Tippe zuerst die Seite an, die er zeigt, dann mach das Foto: 3 Fotos "
                          "von jeder Seite, auf eurem Tisch und bei eurem Licht."},
    "teach_face": {"en": "The face it shows", "de": "Die Seite, die er zeigt"},
    "teach_colour": {"en": "Its colour", "de": "Farbe der Seite"},
    "teach_every_face": {"en": "The colours are on the faces, and each die has its own: "
                               "photograph each face of each die once ({n} photos), which gives "
                               "every number its {k}. The reader expects the faces you taught; "
                               "another is read only when it is clearly seen.",
                         "de": "Bei diesen Würfeln hat jede Seite ihre eigene Farbe. "
                               "Fotografiere jede Seite jedes Würfels einmal ({n} Fotos); so hat "
                               "jede Zahl {k} Fotos. Die Erkennung rechnet mit den "
                               "beigebrachten Seiten; andere Seiten erkennt sie nur, wenn sie "
                               "deutlich zu sehen sind."},
    "faces_taught": {"en": "Faces taught (number and colour)",
                     "de": "Beigebrachte Seiten (Zahl und Farbe)"},
    "take_photo": {"en": "Take photo", "de": "Foto machen"},
    "undo_photo": {"en": "Take back the last photo", "de": "Letztes Foto zurücknehmen"},
    "teach_ready": {"en": "Every face is taught.", "de": "Alle Seiten sind beigebracht."},
    "teach_missing": {"en": "Still to teach", "de": "Noch beizubringen"},
    "teach_pick_face": {"en": "Tap the face first.", "de": "Tippe zuerst die Seite an."},
    "teach_pick_colour": {"en": "Tap its colour first.", "de": "Tippe zuerst die Farbe an."},
    "teach_keep": {"en": "It shows this face: keep it", "de": "Es zeigt diese Seite: behalten"},
    "teach_saved": {"en": "Taught: this is what the reader saw",
                    "de": "Beigebracht: das hat die Erkennung gesehen"},
    "use_taught": {"en": "Read this table with these dice",
                   "de": "Diesen Tisch mit diesen Würfeln lesen"},
    "use_shipped": {"en": "Back to the built-in reader", "de": "Zurück zur eingebauten Erkennung"},
    "taught_in_use": {"en": "The camera reads this table with the taught dice.",
                      "de": "Die Kamera liest diesen Tisch mit den beigebrachten Würfeln."},
    "download_dice_set": {"en": "Download the dice-set file",
                          "de": "Würfelsatz-Datei herunterladen"},
    "teach_body_colours": {"en": "Your dice's colours", "de": "Die Farben deiner Würfel"},
    "teach_body_intro": {"en": "Put all your dice on the table, in the light you play in, and take "
                               "one photo from above. Check the colour under each die (change a "
                               "wrong one), then use them: the camera then tells your dice apart "
                               "by how they look here, such as orange from yellow "
                               "under a warm lamp. This is apart from teaching the faces below "
                               "(for dice whose faces it misreads): do either, or both.",
                         "de": "Leg alle deine Würfel auf den Tisch, im Licht, in dem ihr spielt, "
                               "und mach ein Foto von oben. Prüfe die Farbe unter jedem Würfel "
                               "(ändere eine falsche), dann übernimm sie: Die Kamera unterscheidet "
                               "deine Würfel dann danach, wie sie hier aussehen, etwa Orange von "
                               "Gelb unter einer warmen Lampe. Das ist unabhängig vom Beibringen "
                               "der Seiten unten (für Würfel, deren Seiten sie falsch liest): mach "
                               "eins davon oder beides."},
    "take_colour_photo": {"en": "Photo of all dice", "de": "Foto aller Würfel"},
    "not_a_die": {"en": "not a die", "de": "kein Würfel"},
    "use_colours": {"en": "Name the colours by these dice",
                    "de": "Farben nach diesen Würfeln benennen"},
    "stop_colours": {"en": "Back to the standard colours", "de": "Zurück zu den Standardfarben"},
    "colours_in_use": {"en": "The camera names the colours by your dice.",
                       "de": "Die Kamera benennt die Farben nach deinen Würfeln."},
    "colours_check": {"en": "Check each die's colour, then use them.",
                      "de": "Prüfe die Farbe jedes Würfels, dann übernimm sie."},
    "orange": {"en": "orange", "de": "orange"}, "yellow": {"en": "yellow", "de": "gelb"},
    "purple": {"en": "purple", "de": "lila"}, "white": {"en": "white", "de": "weiß"},
    "black": {"en": "black", "de": "schwarz"}, "red": {"en": "red", "de": "rot"},
    "blue": {"en": "blue", "de": "blau"}, "green": {"en": "green", "de": "grün"},
    "grey": {"en": "grey", "de": "grau"},
    # each colour's mark, written in the corner of a coloured field or die for players who tell
    # some colours apart badly (red from green, green from grey): unique among each game's dice
    # (twenty one: W Bk R Bl Y Gn / W S R B Ge Gn; The Choice: Bl Gn Gy P R Y / B Gn Gr L R Ge)
    "mark_orange": {"en": "O", "de": "O"}, "mark_yellow": {"en": "Y", "de": "Ge"},
    "mark_purple": {"en": "P", "de": "L"}, "mark_white": {"en": "W", "de": "W"},
    "mark_black": {"en": "Bk", "de": "S"}, "mark_red": {"en": "R", "de": "R"},
    "mark_blue": {"en": "Bl", "de": "B"}, "mark_green": {"en": "Gn", "de": "Gn"},
    "mark_grey": {"en": "Gy", "de": "Gr"},
    "misthrows": {"en": "misthrows", "de": "Fehlwürfe"},
    "exact_hit": {"en": "exact hit", "de": "genauer Treffer"},
}


def pick_language(arg: str | None, cookie: str | None, accept) -> str:
    for lang in (arg, cookie):
        if lang in LANGUAGES:
            return lang
    best = accept.best_match(LANGUAGES) if accept else None
    return best or "en"


def strings(lang: str) -> dict[str, str]:
    return {k: v.get(lang) or v["en"] for k, v in STRINGS.items()}
