"""Server-rendered pages (placeholder until the page blueprint lands)."""
from flask import Blueprint

bp = Blueprint("pages", __name__)


def error_page(status, message):
    return message, status
