"""What counts as a clean outcome: a clean error, or a normal run with finite outputs and nothing below the floor."""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np

from mcs_plugin.mcs.scene import MAX_DEPTH_BELOW_FLOOR
from mcs_plugin.sim.build import HOLE_DEPTH
from mcs_plugin.sim.world import PHYSICS_WARNINGS

IMAGE_FIELDS = ("image_list", "object_mask_list")


def is_clean_error(error: BaseException) -> bool:
    """The project's errors for bad input: a ValueError (SceneError included) with a message, never a
    UnicodeError (a ValueError too, but one that names neither the file nor the field)."""
    return isinstance(error, ValueError) and not isinstance(error, UnicodeError) and bool(str(error).strip())


def _nonfinite(value: Any, path: str) -> str | None:
    """The path of the first non-finite number inside an output value, else None."""
    if isinstance(value, float):
        return None if math.isfinite(value) else path
    if isinstance(value, np.ndarray):
        return None if value.dtype.kind not in "fc" or np.isfinite(value).all() else path
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            if f.name not in IMAGE_FIELDS:
                found = _nonfinite(getattr(value, f.name), f"{path}.{f.name}")
                if found:
                    return found
    elif isinstance(value, dict):
        for key, item in value.items():
            found = _nonfinite(item, f"{path}.{key}")
            if found:
                return found
    elif isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            found = _nonfinite(item, f"{path}[{index}]")
            if found:
                return found
    return None


def bad_state(controller: Any, output: Any) -> str | None:
    """Why a run's state is bad (non-finite output, an object below the floor, a physics warning), else None."""
    found = _nonfinite(output, "output")
    if found:
        return f"non-finite {found}"
    performer = controller.performer
    if not all(math.isfinite(v) for v in (performer.x, performer.z, performer.yaw, performer.tilt,
                                          performer.camera_height)):
        return "non-finite performer pose"
    world, scene = controller.world, controller.scene
    floor = -(HOLE_DEPTH + MAX_DEPTH_BELOW_FLOOR) if scene.holes else -MAX_DEPTH_BELOW_FLOOR
    for obj in world.objects:
        if not (obj.dynamic and obj.present) or obj.held:
            continue
        height = float(world.body_pos(obj)[2])  # MuJoCo z is up; the floor's top is at 0
        if not math.isfinite(height) or height < floor:
            return f"object {obj.id} ({obj.type_name}) at height {height} is below the floor"
    for warning in PHYSICS_WARNINGS:  # the simulator must have raised PhysicsError for these
        if world.data.warning[int(warning)].number:
            return f"MuJoCo warning {warning.name}"
    return None
