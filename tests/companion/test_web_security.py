"""What a page of another site can make a player's browser do here (nothing), and the
headers every response carries."""
import re

import pytest


def actions(client, code):
    return client.get(f"/api/tables/{code}/log").json["actions"]


class TestJsonIsJson:
    def test_a_new_table_sent_as_text_is_415_and_makes_none(self, client):
        body = '{"game": "qwinto", "players": ["Ann"]}'
        for content_type in ("text/plain", "application/x-www-form-urlencoded",
                             "multipart/form-data; boundary=x", None):
            kwargs = {"content_type": content_type} if content_type else {}
            r = client.post("/api/tables", data=body, **kwargs)
            assert r.status_code == 415, content_type
            assert r.json["error"] == "send the body as JSON (Content-Type: application/json)"
        assert client.post("/api/tables", data=body,
                           content_type="application/json; charset=utf-8").status_code == 201

    def test_an_action_sent_as_text_is_415_and_changes_nothing(self, client, make_table):
        code = make_table(client)
        r = client.post(f"/api/tables/{code}/actions", content_type="text/plain",
                        data='{"type": "roll", "roll": "orange:3"}')
        assert r.status_code == 415 and actions(client, code) == []


class TestOtherSites:
    @pytest.mark.parametrize("headers", [{"Origin": "http://evil.example"},
                                         {"Origin": "http://localhost.evil.example"},
                                         {"Origin": "null"},
                                         {"Sec-Fetch-Site": "cross-site"}],
                             ids=["other site", "look-alike", "null", "fetch metadata"])
    def test_a_page_of_another_site_changes_nothing(self, client, make_table, headers):
        code = make_table(client)
        r = client.post(f"/api/tables/{code}/actions", headers=headers,
                        json={"type": "roll", "roll": "orange:3"})
        assert r.status_code == 403 and "another site" in r.json["error"]
        r = client.post("/api/tables", headers=headers, json={"game": "qwinto",
                                                              "players": ["Eve"]})
        assert r.status_code == 403
        r = client.post(f"/api/tables/{code}/frame", headers=headers, data=b"\xff\xd8\xff",
                        content_type="image/jpeg")
        assert r.status_code == 403
        r = client.post("/join", headers=headers, data={"code": code})
        assert r.status_code == 403 and b"another site" in r.data
        assert actions(client, code) == []

    def test_this_sites_own_pages_may(self, client, make_table):
        code = make_table(client)
        for headers in ({"Origin": "http://localhost"}, {"Sec-Fetch-Site": "same-origin"}, {}):
            r = client.post(f"/api/tables/{code}/why", headers=headers,
                            json={"seat": 0, "placement": "pass"})
            assert r.status_code == 200, headers
        # a form of this site's own pages (the start page's table code): with the pages'
        # Referrer-Policy no-referrer, Chromium sends `Origin: null` and says same-origin
        r = client.post("/join", data={"code": code},
                        headers={"Origin": "null", "Sec-Fetch-Site": "same-origin"})
        assert r.status_code == 302
        for other in ({"Origin": "null"}, {"Origin": "null", "Sec-Fetch-Site": "cross-site"},
                      {"Origin": "null", "Sec-Fetch-Site": "same-site"}):
            assert client.post("/join", data={"code": code}, headers=other).status_code == 403
        # reading is never refused, whoever links to it
        r = client.get(f"/api/tables/{code}", headers={"Origin": "http://evil.example"})
        assert r.status_code == 200


class TestHeaders:
    @pytest.mark.parametrize("path", ["/", "/check", "/api/games", "/static/app.js",
                                      "/api/tables/ZZZZZ", "/t/ZZZZZ"])
    def test_every_response_carries_them(self, client, path):
        r = client.get(path)
        csp = r.headers["Content-Security-Policy"]
        assert "script-src 'self'" in csp and "frame-ancestors 'none'" in csp
        assert "unsafe-inline" not in csp
        assert r.headers["X-Content-Type-Options"] == "nosniff"
        assert r.headers["X-Frame-Options"] == "DENY"
        assert r.headers["Referrer-Policy"] == "no-referrer"

    def test_the_pages_have_no_inline_script(self, client, make_table):
        code = make_table(client)
        for path in ["/", "/check", f"/t/{code}", f"/t/{code}/sheet", f"/t/{code}/teach",
                     "/?lang=de"]:
            html = client.get(path).get_data(as_text=True)
            for tag in re.findall(r"<script[^>]*>", html):
                assert "src=" in tag or 'type="application/json"' in tag, (path, tag)
            assert not re.search(r"\son[a-z]+=", html), path     # no inline handlers

    def test_no_text_can_end_the_catalogue_block(self, client):
        html = client.get("/").get_data(as_text=True)
        block = re.search(r'<script type="application/json" id="i18n">(.*?)</script>', html,
                          re.S).group(1)
        assert "<" not in block


class TestEventLimits:
    @pytest.mark.parametrize("limit", ["nan", "abc", "inf", "-1", "1e999", "99999"])
    def test_a_limit_that_is_no_number_of_seconds_is_400(self, client, make_table, limit):
        code = make_table(client)
        r = client.get(f"/api/tables/{code}/events?limit={limit}")
        assert r.status_code == 400 and "'limit'" in r.json["error"]
