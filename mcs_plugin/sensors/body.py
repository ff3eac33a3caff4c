"""Body sensors: the performer's pose and haptic feedback (oracle-tier metadata)."""

from __future__ import annotations

import math
from typing import Any

import gym
import numpy as np
from allenact.base_abstractions.sensor import Sensor


class PoseSensor(Sensor):
    """float32 (6,): x, z (m), sin(yaw), cos(yaw), head tilt / 90, camera height (m); zeros without positions."""

    def __init__(self, uuid: str = "pose", **kwargs: Any):
        space = gym.spaces.Box(low=-np.inf, high=np.inf, shape=(6,), dtype=np.float32)
        super().__init__(uuid=uuid, observation_space=space, **kwargs)

    def get_observation(self, env: Any, task: Any, *args: Any, **kwargs: Any) -> np.ndarray:
        """The performer's pose from the latest StepMetadata."""
        output = env.last_output
        if output.position is None or output.rotation is None:
            return np.zeros(6, np.float32)
        yaw = math.radians(output.rotation)
        return np.array([output.position["x"], output.position["z"], math.sin(yaw), math.cos(yaw),
                         output.head_tilt / 90.0, output.camera_height], dtype=np.float32)


class HapticSensor(Sensor):
    """float32 (2,): standing on lava (0/1) and the number of steps taken on lava."""

    def __init__(self, uuid: str = "haptic", **kwargs: Any):
        space = gym.spaces.Box(low=0.0, high=np.inf, shape=(2,), dtype=np.float32)
        super().__init__(uuid=uuid, observation_space=space, **kwargs)

    def get_observation(self, env: Any, task: Any, *args: Any, **kwargs: Any) -> np.ndarray:
        """on_lava and steps_on_lava from the latest StepMetadata."""
        output = env.last_output
        on_lava = bool((output.haptic_feedback or {}).get("on_lava", False))
        return np.array([float(on_lava), float(output.steps_on_lava or 0)], dtype=np.float32)
