"""Pinhole camera geometry shared by rendering, image-coordinate targeting and visibility."""

from __future__ import annotations

import math

import numpy as np

from mcs_plugin.constants import CAMERA_FIELD_OF_VIEW


def focal_length(height: int, fov_y: float) -> float:
    """Focal length in pixels of a vertical field of view (degrees) for an image height."""
    return (height / 2.0) / math.tan(math.radians(fov_y) / 2.0)


def projection_params(width: int, height: int, fov_y: float = CAMERA_FIELD_OF_VIEW) -> tuple[float, float, float, float]:
    """Pinhole intrinsics (fx, fy, cx, cy) in pixels for a vertical field of view in degrees."""
    f = focal_length(height, fov_y)
    return f, f, width / 2.0, height / 2.0


def pixel_ray(px: float, py: float, width: int, height: int, fov_y: float, forward: np.ndarray, up: np.ndarray) -> np.ndarray:
    """Unit world direction through image point (px right, py down, origin top-left corner)."""
    forward = np.asarray(forward, float) / np.linalg.norm(forward)
    right = np.cross(forward, up)
    right /= np.linalg.norm(right)
    true_up = np.cross(right, forward)
    f = focal_length(height, fov_y)
    direction = forward * f + right * (px - width / 2.0) - true_up * (py - height / 2.0)
    return direction / np.linalg.norm(direction)

