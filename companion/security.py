"""What every response carries, and what a request that changes something must show.

- Cross-site request forgery: a request other than GET/HEAD/OPTIONS whose `Origin` header
  names another site than the one it is sent to is refused (403), and so is one without
  `Origin` that the browser marks `Sec-Fetch-Site: cross-site`. `Origin: null` (a sandboxed
  or local page) is refused unless the browser says `Sec-Fetch-Site: same-origin`: a form of
  these pages (the start page's table code) is posted with `Origin: null` by Chromium,
  because the pages' referrer policy is no-referrer. Browsers send `Origin` with
  every POST made by a page (fetch and forms alike); clients that are not browsers (scripts,
  tests) send neither and hold no victim's cookies. JSON bodies must also be sent as
  `application/json` (`api_base.body_json`), which a page of another site cannot send without
  the server's permission (a CORS preflight, which this server never grants).
- Headers on every response: a Content-Security-Policy that allows only this server's own
  scripts, styles, images and connections (the pages have no inline script: the catalogue
  travels as a JSON data block), and no framing by any page; `X-Content-Type-Options:
  nosniff`; `X-Frame-Options: DENY` for browsers without frame-ancestors; `Referrer-Policy:
  no-referrer` (a table's address carries its code and may carry a rejoin code).
"""
from __future__ import annotations

from urllib.parse import urlsplit

from flask import Flask, Response, jsonify, request

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})

CONTENT_SECURITY_POLICY = "; ".join([
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data: blob:",
    "media-src 'self' blob:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
])

HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
}


def cross_site(origin: str | None, fetch_site: str | None, host: str) -> bool:
    """Whether a request comes from a page of another site: its `Origin` names another host,
    or is "null" (a sandboxed or local page) without the browser saying `Sec-Fetch-Site:
    same-origin` (a form of this site's own pages, whose referrer policy makes it "null"), or
    without `Origin` the browser says `Sec-Fetch-Site: cross-site`. Pages cannot set
    `Sec-Fetch-Site`: browsers do."""
    if origin == "null":
        return fetch_site != "same-origin"
    if origin is not None:
        return urlsplit(origin).netloc.lower() != host.lower()
    return fetch_site == "cross-site"


def init_app(app: Flask) -> None:
    @app.before_request
    def _same_site_only():
        if request.method in SAFE_METHODS:
            return None
        if cross_site(request.headers.get("Origin"), request.headers.get("Sec-Fetch-Site"),
                      request.host):
            message = "refused: this request comes from a page of another site"
            from .pages import set_language
            set_language()          # this runs before the pages' own step that sets it
            if request.path.startswith("/api/"):
                from .api_base import error_body
                return jsonify(error_body(message)), 403
            from .pages import error_page
            return error_page(403, message)
        return None

    @app.after_request
    def _headers(resp: Response) -> Response:
        for name, value in HEADERS.items():
            resp.headers.setdefault(name, value)
        return resp
