"""`companion.bounded.Bounded`: the server's caches keep at most their size."""
import threading

import pytest

from companion.bounded import Bounded


class TestBounded:
    def test_the_least_recently_used_entry_goes_first(self):
        cache = Bounded(2)
        cache["a"], cache["b"] = 1, 2
        assert cache.get("a") == 1          # a is used: b is now the oldest
        cache["c"] = 3
        assert "b" not in cache and cache.get("a") == 1 and cache["c"] == 3 and len(cache) == 2

    def test_setdefault_keeps_the_first_value(self):
        cache = Bounded(4)
        assert cache.setdefault("k", 1) == 1 and cache.setdefault("k", 2) == 1

    def test_get_or_make_makes_once_per_missing_key(self):
        cache, made = Bounded(4), []
        for _ in range(3):
            assert cache.get_or_make("k", lambda: made.append(1) or "v") == "v"
        assert made == [1]

    def test_missing_keys(self):
        cache = Bounded(1)
        assert cache.get("x") is None and cache.pop("x", 0) == 0
        with pytest.raises(KeyError):
            cache["x"]
        with pytest.raises(ValueError):
            Bounded(0)

    def test_many_threads_keep_the_bound(self):
        cache = Bounded(8)

        def fill(base):
            for i in range(500):
                cache[(base, i)] = i
                cache.get((base, i - 3))
        threads = [threading.Thread(target=fill, args=(b,)) for b in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert len(cache) == 8
