"""Tests only: a tiny in-process stand-in for the MCS Unity app at the ai2thor boundary.

`create_controller(config)` builds machine_common_sense's *real* `Controller` (all of its config, tiers,
reward, action lists, last_step, EndScene and watchdog logic) with its Unity connection replaced by
`FakeUnity`, whose `reset`/`step` return real `ai2thor.server.Event` objects. Runs where
machine_common_sense and ai2thor import (e.g. the Python 3.10 venv from scripts/setup_unity_backend.sh):

    MCSEnvironment("unity", config, python_executable=".venv-mcs/bin/python",
                   controller_factory="tests/fake_ai2thor.py:create_controller")

The world is deliberately crude: an empty floor, the scene's objects as points, 0.1 m moves, 10 degree turns,
PickupObject by objectId within 1 m; frames are deterministic patterns of the performer's pose.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from mcs_plugin.constants import (
    CAMERA_FIELD_OF_VIEW, CLIPPING_PLANES, MAX_TILT, MOVE_DIRECTIONS, MOVE_DISTANCE, PERFORMER_RADIUS, PERFORMER_REACH,
    ROTATE_DEGREES,
)
from mcs_plugin.constants import STANDING_CAMERA_HEIGHT as CAMERA_Y


class FakeUnity:
    """What machine_common_sense's Controller needs from ai2thor's Controller: reset(), step(), stop()."""

    def __init__(self, width: int = 600, height: int = 400) -> None:
        self.width, self.height = width, height
        self.initialization_parameters: dict[str, Any] = {}
        self.x = self.z = self.yaw = self.horizon = 0.0
        self.objects: dict[str, dict[str, Any]] = {}
        self.held: str | None = None
        self.room = {"x": 10.0, "y": 3.0, "z": 10.0}
        self.stopped = False

    # -- ai2thor surface ------------------------------------------------------------------------------------
    def reset(self, scene: str = "MCS") -> Any:
        """Load the sceneConfig that machine_common_sense put in initialization_parameters."""
        config = self.initialization_parameters.get("sceneConfig") or {}
        start = config.get("performerStart") or {}
        position, rotation = start.get("position") or {}, start.get("rotation") or {}
        self.x, self.z = float(position.get("x", 0.0)), float(position.get("z", 0.0))
        self.yaw, self.horizon = float(rotation.get("y", 0.0)), float(rotation.get("x", 0.0))
        self.room = {k: float(v) for k, v in (config.get("roomDimensions") or self.room).items()}
        self.held = None
        self.objects = {}
        for obj in config.get("objects") or []:
            shows = obj.get("shows") or [{}]
            pos = dict(shows[0].get("position") or {"x": 0.0, "y": 0.0, "z": 0.0})
            self.objects[obj["id"]] = {"id": obj["id"], "type": obj.get("type", ""), "position": pos,
                                       "pickupable": bool(obj.get("pickupable")), "mass": float(obj.get("mass", 1)),
                                       "structure": bool(obj.get("structure")), "picked": False}
        return self._event("SUCCESSFUL")

    def step(self, action: Any = None, **kwargs: Any) -> Any:
        """Apply one wrapped MCS step dict and return its Event."""
        data = dict(action) if isinstance(action, dict) else {"action": action}
        data.update(kwargs)
        return self._event(self._apply(data))

    def stop(self) -> None:
        """Nothing to stop: there is no Unity process."""
        self.stopped = True

    # -- the crude world ----------------------------------------------------------------------------------------
    def _apply(self, data: dict[str, Any]) -> str:
        name = data.get("action")
        if name in MOVE_DIRECTIONS:
            straight, lateral = MOVE_DIRECTIONS[name]
            step = float(data.get("moveMagnitude") or MOVE_DISTANCE)
            yaw = math.radians(self.yaw)
            x = self.x + step * (straight * math.sin(yaw) + lateral * math.cos(yaw))
            z = self.z + step * (straight * math.cos(yaw) - lateral * math.sin(yaw))
            if abs(x) > self.room["x"] / 2 - PERFORMER_RADIUS or abs(z) > self.room["z"] / 2 - PERFORMER_RADIUS:
                return "OBSTRUCTED"
            self.x, self.z = round(x, 6), round(z, 6)
            return "SUCCESSFUL"
        if name in ("RotateLeft", "RotateRight"):
            self.yaw = (self.yaw + (ROTATE_DEGREES if name == "RotateRight" else -ROTATE_DEGREES)) % 360.0
            return "SUCCESSFUL"
        if name in ("LookUp", "LookDown"):
            horizon = self.horizon + (ROTATE_DEGREES if name == "LookDown" else -ROTATE_DEGREES)
            if abs(horizon) > MAX_TILT:
                return "CANNOT_ROTATE"
            self.horizon = horizon
            return "SUCCESSFUL"
        if name == "PickupObject":
            target = self.objects.get(data.get("objectId") or "")
            if target is None:
                return "NOT_OBJECT"
            if not target["pickupable"]:
                return "NOT_PICKUPABLE"
            if self._distance(target) > PERFORMER_REACH:
                return "OUT_OF_REACH"
            target["picked"] = True
            self.held = target["id"]
            return "SUCCESSFUL"
        if name == "DropHandObject":
            if self.held is None:
                return "NOT_HELD"
            self.objects[self.held]["position"].update(x=self.x, z=self.z)
            self.held = None
            return "SUCCESSFUL"
        if name in ("Pass", "Initialize", "EndHabituation"):
            return "SUCCESSFUL"
        return "FAILED"

    def _distance(self, obj: dict[str, Any]) -> float:
        return math.hypot(obj["position"]["x"] - self.x, obj["position"]["z"] - self.z)

    def _object_metadata(self, obj: dict[str, Any]) -> dict[str, Any]:
        pos = obj["position"] if obj["id"] != self.held else {"x": self.x, "y": CAMERA_Y, "z": self.z}
        dx, dz = pos["x"] - self.x, pos["z"] - self.z
        dy = pos.get("y", 0.0) - CAMERA_Y
        distance_xz = math.hypot(dx, dz)
        distance = math.sqrt(distance_xz ** 2 + dy ** 2)
        norm = distance or 1.0
        corners = [{"x": pos["x"] + sx * 0.1, "y": pos.get("y", 0.0) + sy * 0.1, "z": pos["z"] + sz * 0.1}
                   for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)]
        held = obj["id"] == self.held
        return {"objectId": obj["id"], "objectType": obj["type"], "salientMaterials": ["PLASTIC"],
                "objectBounds": {"objectBoundsCorners": corners},
                "direction": {"x": dx / norm, "y": dy / norm, "z": dz / norm}, "distance": distance,
                "distanceXZ": distance_xz, "isPickedUp": held, "wasPickedUp": obj["picked"], "mass": obj["mass"],
                "position": dict(pos), "rotation": {"x": 0.0, "y": 0.0, "z": 0.0}, "shape": obj["type"],
                "colorsFromMaterials": ["blue"], "visibleInCamera": distance_xz < 5.0, "visible": distance_xz < 5.0,
                "isOpen": False, "openable": False, "locked": False, "associatedWithAgent": "",
                "simulationAgentHeldObject": "", "simulationAgentIsHoldingHeldObject": False}

    def _event(self, status: str) -> Any:
        from ai2thor.server import Event

        objects = [self._object_metadata(o) for o in self.objects.values() if not o["structure"]]
        structural = [self._object_metadata(o) for o in self.objects.values() if o["structure"]]
        colors = [{"name": o["id"], "color": [(37 * i + 50) % 256, (91 * i + 20) % 256, (53 * i + 90) % 256]}
                  for i, o in enumerate(self.objects.values())]
        metadata = {
            "screenWidth": self.width, "screenHeight": self.height,
            "agent": {"position": {"x": self.x, "y": CAMERA_Y, "z": self.z}, "rotation": {"x": 0.0, "y": self.yaw,
                                                                                        "z": 0.0},
                      "cameraHorizon": self.horizon},
            "cameraPosition": {"x": self.x, "y": CAMERA_Y, "z": self.z}, "fov": CAMERA_FIELD_OF_VIEW,
            "clippingPlaneNear": CLIPPING_PLANES[0], "clippingPlaneFar": CLIPPING_PLANES[1], "lastActionStatus": status, "lastActionSuccess": status == "SUCCESSFUL",
            "objects": objects, "structuralObjects": structural, "colors": colors, "performerReach": PERFORMER_REACH,
            "performerRadius": PERFORMER_RADIUS, "physicsFramesPerSecond": 20, "roomDimensions": dict(self.room),
            "hapticFeedback": {"on_lava": False}, "stepsOnLava": 0, "resolvedObject": "", "resolvedReceptacle": "",
            "triggeredBySequenceIncorrect": False, "targetIsVisibleAtStart": False,
        }
        event = Event(metadata)
        rows = np.arange(self.height, dtype=np.float32)[:, None]
        cols = np.arange(self.width, dtype=np.float32)[None, :]
        frame = np.empty((self.height, self.width, 3), np.uint8)
        frame[..., 0] = (cols + self.yaw * 2.0) % 256
        frame[..., 1] = (rows + self.horizon * 2.0 + 128) % 256
        frame[..., 2] = int((self.x * 50 + self.z * 30) % 256)
        event.frame = frame
        event.depth_frame = np.full((self.height, self.width), 0.02 + 0.001 * (self.z + 5.0), np.float32)
        event.instance_segmentation_frame = np.zeros((self.height, self.width, 3), np.uint8)
        return event


def create_controller(config: Any = None, unity_app_file_path: str | None = None) -> Any:
    """machine_common_sense's real Controller over FakeUnity (its Unity connection replaced at the ai2thor boundary)."""
    import machine_common_sense as mcs
    from machine_common_sense.subscriber import add_subscribers

    manager = mcs.ConfigManager(config if config is not None else {})
    controller = object.__new__(mcs.Controller)
    controller._controller = FakeUnity(manager.get_screen_width(), manager.get_screen_height())
    controller._on_init()
    controller._set_config(manager)
    add_subscribers(controller, manager)
    return controller
