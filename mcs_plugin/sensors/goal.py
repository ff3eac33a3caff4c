"""Goal sensors: the target's image, the goal category and the target's colours."""

from __future__ import annotations

from typing import Any, Optional

import gym
import numpy as np
from allenact.base_abstractions.sensor import Sensor
from PIL import Image

from mcs_plugin.mcs import GoalCategory

COLOR_WORDS = ("black", "blue", "brown", "green", "grey", "orange", "purple", "red", "white", "yellow")
CATEGORIES = tuple(c.value for c in GoalCategory)


def _target_object(task: Any) -> Optional[dict]:
    """The scene object (JSON dict) of the goal's (first) target."""
    entry = _goal_entry(task) or {}
    return next((o for o in task.task_info.get("objects", []) if o.get("id") == entry.get("id")), None)


def _goal_entry(task: Any) -> Optional[dict]:
    """The goal metadata entry of the (first) target: `target`, `target_1` or `targets[0]`."""
    metadata = (task.task_info.get("goal_metadata") or {})
    for key in ("target", "target_1"):
        if isinstance(metadata.get(key), dict):
            return metadata[key]
    targets = metadata.get("targets") or []
    return targets[0] if targets and isinstance(targets[0], dict) else None


class GoalImageSensor(Sensor):
    """An image of the target: float32 (H, W, 3) in [0, 1]; the scene's `target.image`, else the target rendered alone."""

    def __init__(self, height: int = 64, width: int = 64, uuid: str = "goal_image", **kwargs: Any):
        self.height, self.width = height, width
        space = gym.spaces.Box(low=0.0, high=1.0, shape=(height, width, 3), dtype=np.float32)
        super().__init__(uuid=uuid, observation_space=space, **kwargs)

    def _image(self, task: Any) -> np.ndarray:
        entry = _goal_entry(task) or {}
        pixels = entry.get("image")
        if pixels is None or np.asarray(pixels).ndim != 3:
            target = _target_object(task)
            if target is None:
                return np.zeros((self.height, self.width, 3), np.float32)
            from mcs_plugin.scenes.images import render_target_image

            pixels = render_target_image(target, size=max(self.height, self.width))
        image = Image.fromarray(np.asarray(pixels, dtype=np.uint8)).resize((self.width, self.height), Image.BILINEAR)
        return np.asarray(image, dtype=np.float32) / 255.0

    def get_observation(self, env: Any, task: Any, *args: Any, **kwargs: Any) -> np.ndarray:
        """The same image every step of an episode (computed once per task)."""
        cached = getattr(task, "_goal_image_cache", None)
        if cached is None or cached.shape[:2] != (self.height, self.width):
            cached = self._image(task)
            task._goal_image_cache = cached
        return cached


class GoalCategorySensor(Sensor):
    """One-hot float32 (n_categories,) over the MCS goal categories, in GoalCategory order."""

    def __init__(self, uuid: str = "goal_category", **kwargs: Any):
        space = gym.spaces.Box(low=0.0, high=1.0, shape=(len(CATEGORIES),), dtype=np.float32)
        super().__init__(uuid=uuid, observation_space=space, **kwargs)

    def get_observation(self, env: Any, task: Any, *args: Any, **kwargs: Any) -> np.ndarray:
        """1 at the task's goal category."""
        vector = np.zeros(len(CATEGORIES), np.float32)
        category = task.task_info.get("goal_category")
        if category in CATEGORIES:
            vector[CATEGORIES.index(category)] = 1.0
        return vector


class TargetColorSensor(Sensor):
    """Multi-hot float32 (10,) of the target's colour words (black, blue, ... yellow) from its materials."""

    def __init__(self, uuid: str = "target_color", **kwargs: Any):
        space = gym.spaces.Box(low=0.0, high=1.0, shape=(len(COLOR_WORDS),), dtype=np.float32)
        super().__init__(uuid=uuid, observation_space=space, **kwargs)

    def get_observation(self, env: Any, task: Any, *args: Any, **kwargs: Any) -> np.ndarray:
        """1 for each colour word of the target's materials."""
        from mcs_plugin.sim.materials import material_color_names

        vector = np.zeros(len(COLOR_WORDS), np.float32)
        for material in (_target_object(task) or {}).get("materials") or []:
            for name in material_color_names(material):
                if name in COLOR_WORDS:
                    vector[COLOR_WORDS.index(name)] = 1.0
        return vector
