"""Base class of the MCS name enums (actions, statuses, goal categories, materials)."""

from __future__ import annotations

from enum import Enum


class MCSName(str, Enum):
    """A string enum whose str() is the name MCS uses, e.g. str(Action.PASS) == 'Pass'."""

    def __str__(self) -> str:
        return self.value
