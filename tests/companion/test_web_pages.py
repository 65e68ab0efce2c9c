"""The server-rendered pages, the QR codes, the static assets and the language switch."""
import posixpath
import re

import pytest


def _page_modules(client) -> dict[str, str]:
    """Every script module the pages load (app.js and what it imports, statically or on
    demand), by path: each served from here with a JavaScript type."""
    found, todo = {}, ["/static/app.js"]
    while todo:
        path = todo.pop()
        if path in found:
            continue
        r = client.get(path)
        assert r.status_code == 200 and "javascript" in r.content_type, path
        found[path] = r.get_data(as_text=True)
        for name in re.findall(r"""(?:from|import\()\s*["']([^"']+)["']""", found[path]):
            assert name.startswith("."), (path, name)      # local, relative: no CDN
            todo.append(posixpath.normpath(posixpath.join(posixpath.dirname(path), name)))
    return found


class TestPages:
    def test_start_page_lists_games_and_layouts(self, client):
        r = client.get("/")
        assert r.status_code == 200
        html = r.get_data(as_text=True)
        assert 'data-page="index"' in html and "Qwinto" in html and "twenty one" in html
        assert "https://" not in html.split("<main>")[0]  # no CDN, no external asset
        assert 'src="/static/app.js"' in html and 'href="/static/app.css"' in html

    @pytest.mark.parametrize("lang, word", [("en", "New table"), ("de", "Neuer Tisch")])
    def test_language_by_query_and_cookie(self, client, lang, word):
        r = client.get(f"/?lang={lang}")
        assert word in r.get_data(as_text=True)
        assert f"lang={lang}" in r.headers["Set-Cookie"]
        assert word in client.get("/").get_data(as_text=True)   # remembered

    def test_language_from_accept_language(self, client):
        r = client.get("/", headers={"Accept-Language": "de-DE,de;q=0.9"})
        assert '<html lang="de">' in r.get_data(as_text=True)

    @pytest.mark.both_stores      # the tables looked up on SQLite, then on PostgreSQL
    def test_recent_tables_say_the_games_title_and_who_plays(self, client, make_table):
        code = make_table(client, game="twenty_one", players=("Ann", "Bob", "Cem"))
        html = client.get("/").get_data(as_text=True)
        recent = html.split('class="recent"')[1]
        assert code in recent and "twenty one" in recent and "twenty_one" not in recent
        assert "Ann, Bob, Cem" in recent and "0 entries" in recent

    @pytest.mark.both_stores      # the tables looked up on SQLite, then on PostgreSQL
    def test_table_and_sheet_pages(self, client, make_table):
        code = make_table(client)
        for path in (f"/t/{code}", f"/t/{code}/sheet", f"/t/{code.lower()}/sheet?seat=1"):
            r = client.get(path)
            assert r.status_code == 200 and f'data-code="{code}"' in r.get_data(as_text=True)

    @pytest.mark.both_stores      # the tables looked up on SQLite, then on PostgreSQL
    def test_unknown_table_page_is_404(self, client):
        r = client.get("/t/QQQQQ")
        assert r.status_code == 404 and "no table" in r.get_data(as_text=True)
        assert client.get("/t/QQQQQ/sheet").status_code == 404
        assert client.get("/t/QQQQQ/qr.svg").status_code == 404

    @pytest.mark.both_stores      # the tables looked up on SQLite, then on PostgreSQL
    def test_the_qr_says_sit_down_only_while_a_seat_is_free(self, client, make_table):
        import re

        def caption(code):
            html = client.get(f"/t/{code}").get_data(as_text=True)
            return re.search(r"<figcaption>(.*?)<br>", html, re.S).group(1).strip()
        two = make_table(client, players=("Ann", "Bob"))
        assert caption(two).startswith("Scan to sit down at this table")
        alone = make_table(client, players=("Ann",))     # Ann, the creator, sits: none free
        assert caption(alone) == "Scan to watch this table"

    def test_the_code_form_says_the_code_lets_one_watch(self, client):
        page = client.get("/").get_data(as_text=True)
        assert "Open a table by its code" in page
        assert "The code lets you watch. To sit down, scan the host's QR code" in page

    def test_join_by_code_redirects(self, client, make_table):
        code = make_table(client)
        r = client.post("/join", data={"code": code.lower()})
        assert r.status_code == 302 and r.headers["Location"].endswith(f"/t/{code}")
        assert client.post("/join", data={"code": "nope"}).status_code == 404

    def test_qr_codes_are_svg(self, client, make_table):
        code = make_table(client)
        r = client.get(f"/t/{code}/qr.svg")
        assert r.status_code == 200 and r.mimetype == "image/svg+xml"
        assert r.get_data(as_text=True).lstrip().startswith("<svg")
        assert f"/t/{code}" in r.get_data(as_text=True)   # the title names the URL
        assert client.get("/qr.svg").status_code == 200

    def test_check_page(self, client):
        r = client.get("/check")
        assert r.status_code == 200 and 'data-page="check"' in r.get_data(as_text=True)

    def test_static_assets_are_local(self, client):
        modules = _page_modules(client)
        assert {"/static/app.js", "/static/js/pages/sheet.js", "/static/js/live.js"} <= \
            set(modules)
        text = "\n".join(modules.values())
        assert "EventSource" in text
        assert "setInterval(refresh" not in text   # no polling loop
        assert client.get("/static/app.css").status_code == 200
        assert client.get("/static/icon.svg").status_code == 200

    def test_the_scripts_are_modules_of_short_lines_that_parse_no_mark(self, client):
        """The pages' script: ES modules served as they are, one per page and the parts they
        share, lines within 100 columns; placements come as data, so no module reads a mark's
        text (ROW VALUE @ COLUMN)."""
        for path, text in _page_modules(client).items():
            long = [i for i, line in enumerate(text.splitlines(), 1) if len(line) > 100]
            assert not long, (path, long)
            assert "@(\\d+)" not in text and "parseMark" not in text, path

    def test_phone_viewport(self, client):
        assert 'name="viewport" content="width=device-width' in client.get("/").get_data(
            as_text=True)


class TestSecureAddress:
    """`serve` runs HTTPS beside HTTP by default (HTTPS_URL): phones need it for the camera."""

    @pytest.fixture
    def secure_app(self, tmp_path):
        from companion.app import create_app
        return create_app({"TESTING": True, "DATABASE": str(tmp_path / "s.sqlite"),
                           "PUBLIC_URL": "https://192.168.1.5:8001",
                           "HTTPS_URL": "https://192.168.1.5:8001"})

    def test_a_plain_http_page_links_to_itself_at_the_https_address(self, secure_app):
        client = secure_app.test_client()
        html = client.get("/?lang=de").get_data(as_text=True)
        assert 'href="https://192.168.1.5:8001/?lang=de"' in html
        assert "Zertifikat" in html and "Fortfahren" in html   # the warning, explained once
        assert 'data-secure-url="https://192.168.1.5:8001/?lang=de"' in html
        assert "--https" not in html                            # no server flag for players

    def test_the_table_qr_and_join_link_are_the_https_address(self, secure_app, make_table):
        client = secure_app.test_client()
        code = make_table(client)
        html = client.get(f"/t/{code}").get_data(as_text=True)
        assert f'href="https://192.168.1.5:8001/t/{code}?join=' in html and "cert-note" in html
        assert f"https://192.168.1.5:8001/t/{code}?join=" in client.get(
            f"/t/{code}/qr.svg").get_data(as_text=True)

    def test_on_the_https_page_no_link_elsewhere(self, secure_app):
        html = secure_app.test_client().get("/", base_url="https://192.168.1.5:8001").get_data(
            as_text=True)
        assert "data-secure-url" not in html and 'id="https-note"' not in html

    def test_a_server_without_https_says_so(self, client):
        html = client.get("/").get_data(as_text=True)
        assert "--no-https" in html and "cert-note" not in html


class TestSchema:
    def test_app_creates_and_migrates_schema(self, app):
        import sqlite3
        from companion.store import SCHEMA_VERSION
        db = sqlite3.connect(app.config["DATABASE"])
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        cols = [r[1] for r in db.execute("PRAGMA table_info(actions)")]
        assert "by_seat" in cols

    def test_migrates_a_version_1_database(self, tmp_path):
        from companion.store import MIGRATIONS, SCHEMA_VERSION, _statements, connect, migrate
        path = str(tmp_path / "old.sqlite")
        db = connect(path)
        for s in _statements(MIGRATIONS[0]):
            db.execute(s)
        db.execute("PRAGMA user_version=1")
        for code in ("AAAAA", "BBBBB"):
            db.execute("INSERT INTO tables (code, game, layouts, creator_token, created) "
                       "VALUES (?, 'qwinto', '[]', 't', 0)", (code,))
        assert migrate(db) == 1
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert db.execute("SELECT code FROM tables").fetchone()[0] == "AAAAA"
        # the tables made before the join secret get one each
        keys = [r[0] for r in db.execute("SELECT join_key FROM tables")]
        assert len(set(keys)) == 2 and all(len(k) == 24 for k in keys)
        assert migrate(db) == SCHEMA_VERSION   # idempotent

    def test_refuses_a_newer_database(self, tmp_path):
        from companion.store import connect, migrate
        db = connect(str(tmp_path / "new.sqlite"))
        db.execute("PRAGMA user_version=99")
        with pytest.raises(RuntimeError, match="newer"):
            migrate(db)

    def test_init_db_command(self, runner):
        result = runner.invoke(args=["init-db"])
        assert "database ready" in result.output
