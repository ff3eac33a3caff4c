"""ObjectMetadata: what the performer is told about one object, plus JSON conversion of output values."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from enum import Enum
from typing import Any

import numpy as np


def to_jsonable(value: Any) -> Any:
    """Recursively convert output values to JSON types (tuples and arrays to lists, numpy scalars to Python).

    Objects with a `to_dict()` method (ObjectMetadata, GoalMetadata, ...) are converted through it.
    """
    if hasattr(value, "to_dict"):
        return to_jsonable(value.to_dict())
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, dict):
        return {str(key): to_jsonable(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_jsonable(item) for item in value]
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    return value


@dataclass
class ObjectMetadata:
    """Metadata of one scene object in a step output (MCS ObjectMetadata; defaults as in MCS)."""

    uuid: str = ""
    color: dict[str, int] | None = None
    dimensions: list[dict[str, float]] = field(default_factory=list)
    direction: dict[str, float] = field(default_factory=dict)
    distance: float = -1.0
    distance_in_steps: float = -1.0
    distance_in_world: float = -1.0
    held: bool = False
    mass: float = 0.0
    material_list: list[str] = field(default_factory=list)
    position: dict[str, float] = field(default_factory=dict)
    rotation: dict[str, float] = field(default_factory=dict)
    shape: str = ""
    state_list: list[str] = field(default_factory=list)
    texture_color_list: list[str] = field(default_factory=list)
    visible: bool = False
    is_open: bool = False
    openable: bool = False
    locked: bool = False
    associated_with_agent: str = ""
    simulation_agent_held_object: str = ""
    simulation_agent_is_holding_held_object: bool = False

    @property
    def segment_color(self) -> dict[str, int] | None:
        """The instance-mask colour {r, g, b}; MCS 0.7.4 name of `color`."""
        return self.color

    @segment_color.setter
    def segment_color(self, value: dict[str, int] | None) -> None:
        self.color = value

    def to_dict(self) -> dict[str, Any]:
        """JSON-serialisable dict of every field; the mask colour appears as both `color` and `segment_color`."""
        data = {f.name: to_jsonable(getattr(self, f.name)) for f in fields(self)}
        data["segment_color"] = data["color"]
        return data
