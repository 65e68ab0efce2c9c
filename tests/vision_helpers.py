"""Helpers shared by the vision tests."""
from __future__ import annotations


class CountingEmbedder:
    """A face embedder (``vision.embedding.FaceEmbedder``) that counts the crops it embeds
    (``embedded``), for the tests of what a reader embeds and what it spares."""

    def __init__(self, embedder):
        self.inner, self.embedded = embedder, 0

    def __getattr__(self, name):
        return getattr(self.inner, name)

    def __call__(self, crops):
        self.embedded += len(crops)
        return self.inner(crops)
