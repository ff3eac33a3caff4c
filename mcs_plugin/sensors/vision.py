"""Vision sensors: RGB, depth and instance-mask frames from the latest StepMetadata."""

from __future__ import annotations

from typing import Any

import gym
import numpy as np
from allenact.base_abstractions.sensor import Sensor
from PIL import Image


def _resized(image: Image.Image, width: int, height: int, resample=Image.BILINEAR) -> Image.Image:
    return image if image.size == (width, height) else image.resize((width, height), resample)


class RGBSensor(Sensor):
    """The camera image: float32 (H, W, 3) in [0, 1]."""

    def __init__(self, height: int = 64, width: int = 64, uuid: str = "rgb", **kwargs: Any):
        self.height, self.width = height, width
        space = gym.spaces.Box(low=0.0, high=1.0, shape=(height, width, 3), dtype=np.float32)
        super().__init__(uuid=uuid, observation_space=space, **kwargs)

    def get_observation(self, env: Any, task: Any, *args: Any, **kwargs: Any) -> np.ndarray:
        """The latest RGB frame, resized to (height, width) if needed."""
        images = env.last_output.image_list
        if not images:
            raise RuntimeError("RGBSensor needs rendered images: the environment runs with render disabled")
        return np.asarray(_resized(images[-1], self.width, self.height), dtype=np.float32) / 255.0


class DepthSensor(Sensor):
    """Depth along the viewing axis: float32 (H, W, 1) in metres, or in [0, 1] of `max_depth` if normalised."""

    def __init__(self, height: int = 64, width: int = 64, max_depth: float = 15.0, normalize: bool = True,
                 uuid: str = "depth", **kwargs: Any):
        self.height, self.width, self.max_depth, self.normalize = height, width, max_depth, normalize
        high = 1.0 if normalize else max_depth
        space = gym.spaces.Box(low=0.0, high=high, shape=(height, width, 1), dtype=np.float32)
        super().__init__(uuid=uuid, observation_space=space, **kwargs)

    def get_observation(self, env: Any, task: Any, *args: Any, **kwargs: Any) -> np.ndarray:
        """The latest depth map, clipped to max_depth (and normalised), resized with nearest neighbours."""
        maps = env.last_output.depth_map_list
        if not maps:
            raise RuntimeError("DepthSensor needs depth maps: enable them in the environment config")
        depth = maps[-1]
        if depth.shape != (self.height, self.width):
            depth = np.asarray(Image.fromarray(depth).resize((self.width, self.height), Image.NEAREST))
        depth = np.clip(depth, 0.0, self.max_depth)
        if self.normalize:
            depth = depth / self.max_depth
        return depth.astype(np.float32)[:, :, None]


class InstanceMaskSensor(Sensor):
    """Instance segmentation colours: float32 (H, W, 3) in [0, 1]; one colour per object (ObjectMetadata.color)."""

    def __init__(self, height: int = 64, width: int = 64, uuid: str = "mask", **kwargs: Any):
        self.height, self.width = height, width
        space = gym.spaces.Box(low=0.0, high=1.0, shape=(height, width, 3), dtype=np.float32)
        super().__init__(uuid=uuid, observation_space=space, **kwargs)

    def get_observation(self, env: Any, task: Any, *args: Any, **kwargs: Any) -> np.ndarray:
        """The latest mask, resized with nearest neighbours so colours stay exact."""
        masks = env.last_output.object_mask_list
        if not masks:
            raise RuntimeError("InstanceMaskSensor needs object masks: use the oracle/level2 tier with masks enabled")
        return np.asarray(_resized(masks[-1], self.width, self.height, Image.NEAREST), dtype=np.float32) / 255.0
