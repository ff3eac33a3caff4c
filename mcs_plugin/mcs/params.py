"""Action parameter rules: types and ranges checked before an action changes anything (one place for all callers).

`check_params` is run by the controller before a step and by the scene schema on every `goal.action_list`
entry; the `*_param` readers are what the simulator uses to read a value once it passed.
"""

from __future__ import annotations

import math
from typing import Any, Mapping

from mcs_plugin.mcs.action import Action
from mcs_plugin.mcs.limits import MAX_ANGLE, MAX_COORDINATE, MAX_DIRECTION, MIN_DIRECTION

# Actions that act on one object, named by `<prefix>Id`, `<prefix>ImageCoordsX/Y` or `<prefix>DirectionX/Y/Z`.
TARGET_PREFIX: dict[str, str] = {
    Action.PICKUP_OBJECT.value: "object",
    Action.PUSH_OBJECT.value: "object",
    Action.PULL_OBJECT.value: "object",
    Action.TORQUE_OBJECT.value: "object",
    Action.ROTATE_OBJECT.value: "object",
    Action.MOVE_OBJECT.value: "object",
    Action.OPEN_OBJECT.value: "object",
    Action.CLOSE_OBJECT.value: "object",
    Action.INTERACT_WITH_AGENT.value: "object",
    Action.PUT_OBJECT.value: "receptacleObject",
}
TARGET_PREFIXES = ("object", "receptacleObject")
_SCALAR = (str, bool, int, float)
# EndHabituation's teleport: (key, bound) of the performer's new x, z and yaw.
_TELEPORT_KEYS = (("xPosition", MAX_COORDINATE), ("zPosition", MAX_COORDINATE), ("yRotation", MAX_ANGLE))


def number_param(params: Mapping[str, Any], key: str, default: float, low: float, high: float) -> float:
    """A numeric parameter in [low, high] (finite), or ValueError naming it."""
    value = params.get(key, default)
    try:
        number = float(value)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"parameter {key}={value!r} must be a number in [{low}, {high}]") from None
    if isinstance(value, bool) or not math.isfinite(number):
        raise ValueError(f"parameter {key}={value!r} must be a finite number") from None
    if not low <= number <= high:
        raise ValueError(f"parameter {key}={value!r} is out of range [{low}, {high}]")
    return number


def choice_param(params: Mapping[str, Any], key: str, default: int) -> int:
    """A -1 / 0 / 1 parameter (MoveObject's lateral and straight)."""
    value = number_param(params, key, default, -1, 1)
    if value not in (-1.0, 0.0, 1.0):
        raise ValueError(f"parameter {key}={params[key]!r} must be -1, 0 or 1")
    return int(value)


def bool_param(params: Mapping[str, Any], key: str, default: bool) -> bool:
    """A true/false parameter (bool or the strings 'true'/'false')."""
    value = params.get(key, default)
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in ("true", "false"):
        return value.lower() == "true"
    raise ValueError(f"parameter {key}={value!r} must be true or false")


def _has_target(params: Mapping[str, Any], prefix: str) -> bool:
    keys = (f"{prefix}Id", f"{prefix}ImageCoordsX", f"{prefix}ImageCoordsY", *direction_keys(prefix))
    return any(params.get(key) is not None for key in keys)


def direction_keys(prefix: str) -> tuple[str, str, str]:
    """The camera-frame direction keys of a target prefix: <prefix>DirectionX, Y and Z."""
    return f"{prefix}DirectionX", f"{prefix}DirectionY", f"{prefix}DirectionZ"


def _check_target(params: Mapping[str, Any], prefix: str, image_size: tuple[int, int] | None) -> None:
    """Image coordinates inside the image, directions finite and not zero (an id is any scalar)."""
    for axis, index in (("X", 0), ("Y", 1)):
        key = f"{prefix}ImageCoords{axis}"
        if key in params:
            limit = image_size[index] if image_size is not None else math.inf
            value = number_param(params, key, 0, -math.inf, math.inf)
            if not 0 <= int(value) < limit:
                raise ValueError(f"parameter {key}={params[key]!r} is outside the image (0..{limit - 1})")
    keys = direction_keys(prefix)
    if any(key in params for key in keys):
        vector = [number_param(params, key, 0.0, -MAX_DIRECTION, MAX_DIRECTION) for key in keys]
        if math.hypot(*vector) < MIN_DIRECTION:
            raise ValueError(f"parameters {', '.join(keys)} must not be the zero vector")


def check_params(action: str, params: Mapping[str, Any], image_size: tuple[int, int] | None = None) -> None:
    """Raise ValueError naming the parameter for any value this action cannot run with; change nothing.

    `image_size` (width, height) bounds image coordinates; without it (scene files) only their sign is checked.
    Angle parameters of the seed API (rotation, horizon, rotationX/Y/Z) are left out: invalid ones become 0 with
    SUCCESSFUL_WITH_INVALID_PARAMETERS, as MCS does.
    """
    for key, value in params.items():
        if not isinstance(value, _SCALAR):
            raise ValueError(f"parameter {key}={value!r} must be a number, a string or a boolean")
    if "amount" in params:
        number_param(params, "amount", 1.0, 0.0, 1.0)
    if "force" in params:
        number_param(params, "force", 0.5, -1.0 if action == Action.TORQUE_OBJECT.value else 0.0, 1.0)
    for key in ("lateral", "straight"):
        if key in params:
            choice_param(params, key, 0)
    if "clockwise" in params:
        bool_param(params, "clockwise", True)
    for key, bound in _TELEPORT_KEYS:
        if key in params:
            number_param(params, key, 0.0, -bound, bound)
    for prefix in TARGET_PREFIXES:
        _check_target(params, prefix, image_size)
    prefix = TARGET_PREFIX.get(action)
    if prefix is not None and not _has_target(params, prefix):
        raise ValueError(f"{action} needs {prefix}Id, {prefix}ImageCoordsX/Y or {prefix}DirectionX/Y/Z")
