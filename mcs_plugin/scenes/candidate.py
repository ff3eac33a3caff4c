"""A generated scene before its checks: the scene dict, what the checks must verify, and its manifest parameters."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


class PlacementFailed(Exception):
    """A required object found no free spot: the candidate is rejected with reason 'placement_failed'."""


@dataclass
class Snapshot:
    """A static scene in which `object_id` must (or must not) be visible from the start (checked in the simulator)."""

    scene: dict[str, Any]
    object_id: str
    visible: bool
    reason: str  # rejection reason when the expectation fails


@dataclass
class Candidate:
    """A scene before checking, plus what the checks must verify and the manifest parameters."""

    scene: dict[str, Any]
    params: dict[str, Any]
    visible_target: str | None = None  # id whose visibility at the start is measured
    require_visible: bool | None = None  # True: must be visible at the start, False: must not be, None: either
    image_targets: dict[str, str] = field(default_factory=dict)  # goal metadata key -> object id needing an image
    snapshots: list[Snapshot] = field(default_factory=list)
