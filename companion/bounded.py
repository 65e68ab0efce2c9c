"""`Bounded`: the one kind of cache the server keeps between requests.

Every cache filled by what clients send (a table's replayed state, its frame reader, a
layout's game object) is a `Bounded`: at most `size` entries, the least recently used
dropped first, so memory stays within a fixed bound however many tables, layouts or
readers requests bring. A dropped entry is made again from the store when next asked for.
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any, Callable, Generic, Hashable, TypeVar

V = TypeVar("V")


class Bounded(Generic[V]):
    """A thread-safe mapping of at most `size` entries (least recently used dropped)."""

    def __init__(self, size: int) -> None:
        if size < 1:
            raise ValueError("a cache holds at least one entry")
        self.size = size
        self._items: OrderedDict[Hashable, V] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._items)

    def __contains__(self, key: Hashable) -> bool:
        return key in self._items

    def get(self, key: Hashable, default: Any = None) -> V | Any:
        with self._lock:
            if key not in self._items:
                return default
            self._items.move_to_end(key)
            return self._items[key]

    def __getitem__(self, key: Hashable) -> V:
        with self._lock:
            self._items.move_to_end(key)   # KeyError when missing, as a dict
            return self._items[key]

    def __setitem__(self, key: Hashable, value: V) -> None:
        with self._lock:
            self._put(key, value)

    def setdefault(self, key: Hashable, value: V) -> V:
        """The entry of `key`, set to `value` first when there is none (as a dict's)."""
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return self._items[key]
            self._put(key, value)
            return value

    def get_or_make(self, key: Hashable, make: Callable[[], V]) -> V:
        """The entry of `key`, made by `make()` (outside the lock) when there is none; when two
        threads make it at once, the first one stored is kept and returned to both."""
        hit = self.get(key, _MISSING)
        if hit is not _MISSING:
            return hit
        return self.setdefault(key, make())

    def pop(self, key: Hashable, default: Any = None) -> V | Any:
        with self._lock:
            return self._items.pop(key, default)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()

    def _put(self, key: Hashable, value: V) -> None:
        self._items[key] = value
        self._items.move_to_end(key)
        while len(self._items) > self.size:
            self._items.popitem(last=False)


_MISSING = object()
