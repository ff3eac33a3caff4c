"""Where the task's current target is, from oracle-tier object metadata (a PointGoal-style sensor)."""

from __future__ import annotations

import math
from typing import Any

import gym
import numpy as np
from allenact.base_abstractions.sensor import Sensor

from mcs_plugin.tasks.measures import target_view

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
        view = target_view(env.last_output, task.target_id(env.last_output))
        if view is None:
            return np.zeros(7, np.float32)
        return np.array([min(view.distance / MAX_DISTANCE, 1.0), math.sin(view.bearing), math.cos(view.bearing),
                         math.sin(view.elevation), math.cos(view.elevation), float(view.target.visible),
                         float(view.target.held)], dtype=np.float32)
