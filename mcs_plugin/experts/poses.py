"""Performer poses on the floor and the rays through the camera's centre pixel: the maths the experts plan with.

A pose is (x, z, yaw): metres and degrees (MCS: yaw clockwise, forward = (sin yaw, cos yaw)).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from mcs_plugin.constants import CAMERA_FIELD_OF_VIEW as FIELD_OF_VIEW
from mcs_plugin.constants import MAX_TILT, ROTATE_DEGREES

if TYPE_CHECKING:  # pragma: no cover
    from mcs_plugin.mcs import StepMetadata

HEADINGS = round(360 / ROTATE_DEGREES)


class Pose(NamedTuple):
    """A performer pose on the floor: position (metres) and yaw (degrees, clockwise)."""

    x: float
    z: float
    yaw: float


def pose_of(output: StepMetadata) -> Pose:
    """The performer's pose in a step output (oracle tier: position and rotation present)."""
    if output.position is None or output.rotation is None:
        raise ValueError("the step output has no position/rotation (the expert needs the oracle metadata tier)")
    return Pose(float(output.position["x"]), float(output.position["z"]), float(output.rotation) % 360.0)


def forward_xz(yaw: float) -> tuple[float, float]:
    """Unit forward vector (x, z) of a yaw in degrees."""
    a = math.radians(yaw)
    return math.sin(a), math.cos(a)


def right_xz(yaw: float) -> tuple[float, float]:
    """Unit right vector (x, z) of a yaw in degrees."""
    a = math.radians(yaw)
    return math.cos(a), -math.sin(a)


def achievable_tilts(current: float) -> np.ndarray:
    """Head tilts reachable from `current` with LookUp / LookDown (10 degree steps, within +-90)."""
    low = current - ROTATE_DEGREES * math.floor((current + MAX_TILT) / ROTATE_DEGREES + 1e-9)
    return np.arange(low, MAX_TILT + 1e-6, ROTATE_DEGREES)


def center_ray_directions_many(yaws: np.ndarray, tilts: np.ndarray, image_size: tuple[int, int] = (0, 0),
                               fov: float = FIELD_OF_VIEW) -> np.ndarray:
    """Unit directions (N, T, 3) (MCS x, y, z) of the ray through the centre pixel (W//2, H//2) for N yaws and T
    head tilts; with an unknown image size (0, 0) the exact optical axis."""
    a = np.radians(np.asarray(yaws, float)).reshape(-1, 1)
    t = np.radians(np.asarray(tilts, float)).reshape(1, -1)
    sa, ca, st, ct = np.sin(a), np.cos(a), np.sin(t), np.cos(t)
    forward = np.stack([sa * ct, np.broadcast_to(-st, (a.shape[0], t.shape[1])), ca * ct], axis=-1)
    up = np.stack([sa * st, np.broadcast_to(ct, (a.shape[0], t.shape[1])), ca * st], axis=-1)
    right = np.stack([ca, np.zeros_like(ca), -sa], axis=-1)  # (N, 1, 3)
    width, height = (int(image_size[0]), int(image_size[1])) if image_size else (0, 0)
    if width > 0 and height > 0:
        focal = (height / 2.0) / math.tan(math.radians(fov) / 2.0)
        px, py = width // 2 + 0.5 - width / 2.0, height // 2 + 0.5 - height / 2.0
        direction = forward * focal + right * px - up * py
    else:
        direction = forward
    return direction / np.linalg.norm(direction, axis=-1, keepdims=True)


def aim_key(pose: Pose, tilt: float) -> tuple[int, int, int, int]:
    """A key of an aim (position to 5 cm, yaw and tilt to the degree) for remembering failed interactions."""
    return int(round(pose.x / 0.05)), int(round(pose.z / 0.05)), int(round(pose.yaw)) % 360, int(round(tilt))
