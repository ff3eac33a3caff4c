"""Where the task's current target is, from oracle-tier object metadata (a PointGoal-style sensor)."""

from __future__ import annotations

import math
from typing import Any

import gym
import numpy as np
from allenact.base_abstractions.sensor import Sensor

MAX_DISTANCE = 10.0  # metres: farther targets read as this far


class TargetPointSensor(Sensor):
    """float32 (7,): the current target relative to the camera, from oracle metadata.

    [distance / MAX_DISTANCE (x-z, camera to the target's box centre, clipped to 1), sin and cos of its bearing
    (right of the heading is positive), sin and cos of its elevation below the view axis (head tilt included),
    visible (0/1), held (0/1)]; zeros when the environment gives no positions (below the oracle tier).
    """

    def __init__(self, uuid: str = "target_point", **kwargs: Any):
        space = gym.spaces.Box(low=-1.0, high=1.0, shape=(7,), dtype=np.float32)
        super().__init__(uuid=uuid, observation_space=space, **kwargs)

    def get_observation(self, env: Any, task: Any, *args: Any, **kwargs: Any) -> np.ndarray:
        """The task's current target (`task.target_id`) as seen from the latest StepMetadata's camera."""
        output = env.last_output
        target_id = task.target_id(output)
        target = next((o for o in output.object_list if o.uuid == target_id), None)
        if target is None or output.position is None or output.rotation is None:
            return np.zeros(7, np.float32)
        corners = target.dimensions or [target.position]
        cx = sum(c["x"] for c in corners) / len(corners)
        cy = sum(c["y"] for c in corners) / len(corners)
        cz = sum(c["z"] for c in corners) / len(corners)
        dx, dy, dz = cx - output.position["x"], cy - output.position["y"], cz - output.position["z"]
        flat = math.hypot(dx, dz)
        bearing = math.atan2(dx, dz) - math.radians(output.rotation)  # Unity yaw: 0 faces +z, clockwise
        elevation = math.atan2(-dy, flat) - math.radians(output.head_tilt or 0.0)  # positive = below the view
        return np.array([min(flat / MAX_DISTANCE, 1.0), math.sin(bearing), math.cos(bearing), math.sin(elevation),
                         math.cos(elevation), float(target.visible), float(target.held)], dtype=np.float32)
