"""Vision sensors: RGB, depth and instance-mask frames from the latest StepMetadata."""

from __future__ import annotations

from typing import Any

import gym
import numpy as np
from allenact.base_abstractions.sensor import Sensor
from PIL import Image


def _resized(image: Image.Image, width: int, height: int, resample=Image.BILINEAR) -> Image.Image:
    return image if image.size == (width, height) else image.resize((width, height), resample)


class _ColorImageSensor(Sensor):
    """Base of sensors that return one of StepMetadata's PIL image lists as float32 (H, W, 3) in [0, 1]."""

    field = "image_list"
    resample = Image.BILINEAR
    missing = "the environment runs with render disabled"

    def __init__(self, height: int, width: int, uuid: str, **kwargs: Any):
        self.height, self.width = height, width
        space = gym.spaces.Box(low=0.0, high=1.0, shape=(height, width, 3), dtype=np.float32)
        super().__init__(uuid=uuid, observation_space=space, **kwargs)

    def get_observation(self, env: Any, task: Any, *args: Any, **kwargs: Any) -> np.ndarray:
        """The latest image of the list, resized to (height, width) if needed."""
        images = getattr(env.last_output, self.field)
        if not images:
            raise RuntimeError(f"{type(self).__name__} has no {self.field}: {self.missing}")
        return np.asarray(_resized(images[-1], self.width, self.height, self.resample), dtype=np.float32) / 255.0


class RGBSensor(_ColorImageSensor):
    """The camera image: float32 (H, W, 3) in [0, 1]."""

    def __init__(self, height: int = 64, width: int = 64, uuid: str = "rgb", **kwargs: Any):
        super().__init__(height, width, uuid, **kwargs)


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


class InstanceMaskSensor(_ColorImageSensor):
    """Instance segmentation colours: float32 (H, W, 3) in [0, 1]; one colour per object (ObjectMetadata.color).

    Resized with nearest neighbours so colours stay exact.
    """

    field = "object_mask_list"
    resample = Image.NEAREST
    missing = "use the oracle/level2 tier with masks enabled"

    def __init__(self, height: int = 64, width: int = 64, uuid: str = "mask", **kwargs: Any):
        super().__init__(height, width, uuid, **kwargs)
