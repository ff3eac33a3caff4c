"""The bad values and the random draws the fuzz cases are made of."""

from __future__ import annotations

import math
import random
from typing import Any

BAD_VALUES: tuple[Any, ...] = (
    math.nan, math.inf, -math.inf, 1e308, -1e308, 1e30, -1e30, 1e9, -1e9, 1e6, 0, -1, -0.0, 1e-300, 2**70,
    "abc", "", "\x00", "\u00fc\u2603", "1e999", "NaN", None, [], {}, [1], {"x": 1}, True, False,
)
FACTORS: tuple[float, ...] = (1e3, 1e6, -1.0, 1e-9, 1e30, 0.0)


def bad_value(rng: random.Random) -> Any:
    """One value from BAD_VALUES."""
    return rng.choice(BAD_VALUES)


def leaves(data: Any, path: tuple = ()) -> list[tuple]:
    """Paths (tuples of keys and indices) of every value inside a JSON-like structure, containers included."""
    found = [path] if path else []
    if isinstance(data, dict):
        for key, value in data.items():
            found += leaves(value, path + (key,))
    elif isinstance(data, list):
        for index, value in enumerate(data):
            found += leaves(value, path + (index,))
    return found


def get_at(data: Any, path: tuple) -> Any:
    """The value at a path."""
    for part in path:
        data = data[part]
    return data


def set_at(data: Any, path: tuple, value: Any) -> None:
    """Replace the value at a path."""
    get_at(data, path[:-1])[path[-1]] = value
