"""MCS performer actions and the `Action,key=value` string form used by scenes and the controller."""

from __future__ import annotations

import math
from typing import Any, Mapping

from mcs_plugin.mcs.names import MCSName


class Action(MCSName):
    """Every action name of MCS 0.7.4 plus the older ones (poses, RotateLook, ThrowObject, ...)."""

    # MCS 0.7.4
    CLOSE_OBJECT = "CloseObject"
    DROP_OBJECT = "DropObject"
    MOVE_AHEAD = "MoveAhead"
    MOVE_BACK = "MoveBack"
    MOVE_LEFT = "MoveLeft"
    MOVE_RIGHT = "MoveRight"
    OPEN_OBJECT = "OpenObject"
    PICKUP_OBJECT = "PickupObject"
    PULL_OBJECT = "PullObject"
    PUSH_OBJECT = "PushObject"
    PUT_OBJECT = "PutObject"
    TORQUE_OBJECT = "TorqueObject"
    ROTATE_OBJECT = "RotateObject"
    MOVE_OBJECT = "MoveObject"
    ROTATE_LEFT = "RotateLeft"
    ROTATE_RIGHT = "RotateRight"
    LOOK_UP = "LookUp"
    LOOK_DOWN = "LookDown"
    INTERACT_WITH_AGENT = "InteractWithAgent"
    PASS = "Pass"
    END_SCENE = "EndScene"
    END_HABITUATION = "EndHabituation"
    INITIALIZE = "Initialize"
    # Older API versions (poses and free rotation were removed in MCS 0.5)
    ROTATE_LOOK = "RotateLook"
    THROW_OBJECT = "ThrowObject"
    ROTATE_OBJECT_IN_HAND = "RotateObjectInHand"
    CRAWL = "Crawl"
    LIE_DOWN = "LieDown"
    STAND = "Stand"



# Actions a performer may choose when the scene restricts nothing (MCS GoalMetadata.DEFAULT_ACTIONS):
# EndHabituation only exists where a scene scripts it, Initialize is internal to start_scene.
DEFAULT_ACTIONS: list[str] = [a.value for a in Action if a not in (Action.END_HABITUATION, Action.INITIALIZE)]


def parse_param_value(text: str) -> float | bool | str:
    """One `key=value` value: a finite number becomes float, true/false become bool, anything else stays str."""
    lowered = text.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    try:
        number = float(text)
    except ValueError:
        return text
    return number if math.isfinite(number) else text


def parse_action_string(text: str) -> tuple[str, dict[str, Any]]:
    """Split 'RotateLook,rotation=180,horizon=-10' into ('RotateLook', {'rotation': 180.0, 'horizon': -10.0}).

    Object ids (keys ending in 'Id') stay strings even when they look like numbers.
    """
    items = [item.strip() for item in text.strip().lstrip("\ufeff").split(",")]
    action, param_items = items[0], items[1:]
    if not action:
        raise ValueError(f"malformed action string {text!r}: missing action name")
    params: dict[str, Any] = {}
    for item in param_items:
        key, sep, value = (part.strip() for part in item.partition("="))
        if not sep or not key or not value:
            raise ValueError(f"malformed action string {text!r}: expected key=value, got {item!r}")
        params[key] = value if key.endswith("Id") else parse_param_value(value)
    return action, params


def _format_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def format_action(action: Action | str, params: Mapping[str, Any] | None = None) -> str:
    """Inverse of `parse_action_string`: ('RotateLook', {'rotation': 180.0}) -> 'RotateLook,rotation=180'."""
    parts = [str(action)] + [f"{key}={_format_value(value)}" for key, value in (params or {}).items()]
    return ",".join(parts)
