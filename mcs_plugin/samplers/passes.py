"""Passes over a sampler's share: shuffled (seeded) and endless when training, one ordered pass otherwise."""

from __future__ import annotations

import random
from typing import Generic, Optional, Sequence, TypeVar

T = TypeVar("T")


class Passes(Generic[T]):
    """Hands out items pass after pass; `loop=True` reshuffles and starts a new pass at the end of each."""

    def __init__(self, items: Sequence[T], loop: bool, seed: Optional[int] = None):
        self.items = list(items)
        self.loop = loop
        self._rng = random.Random(seed)
        self._order: list[T] = []
        self._position = 0
        self.reset()

    @property
    def remaining(self) -> float:
        """Items left in this pass (infinite when looping)."""
        return float("inf") if self.loop else len(self._order) - self._position

    def reset(self) -> None:
        """Start a pass from the beginning (reshuffled when looping)."""
        self._order = list(self.items)
        if self.loop:
            self._rng.shuffle(self._order)
        self._position = 0

    def set_seed(self, seed: int) -> None:
        """Reseed the shuffling (takes effect at the next pass)."""
        self._rng = random.Random(seed)

    def next(self) -> Optional[T]:
        """The next item, or None at the end of a pass that does not loop."""
        if self._position >= len(self._order):
            if not self.loop or not self._order:
                return None
            self.reset()
        item = self._order[self._position]
        self._position += 1
        return item
