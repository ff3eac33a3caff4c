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


def camera_basis(forward: np.ndarray, up: np.ndarray) -> np.ndarray:
    """The camera's axes as rows (right, up, forward) of a (3, 3) array, from its forward and up unit vectors."""
    # forward x up written out: np.cross costs ~15 us a call, and this runs every step
    right = [forward[1] * up[2] - forward[2] * up[1], forward[2] * up[0] - forward[0] * up[2],
             forward[0] * up[1] - forward[1] * up[0]]
    return np.array([right, up, forward], dtype=float)


def image_points(points: np.ndarray, origin: np.ndarray, basis: np.ndarray, width: int, height: int,
                 fov_y: float = CAMERA_FIELD_OF_VIEW) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Image coordinates (px right, py down, origin top-left corner) and depth along the view of world points (N, 3)
    seen from `origin` with camera axes `basis` (camera_basis); a point at or behind the camera gets depth <= 0."""
    rel = (np.asarray(points, float) - origin) @ basis.T  # camera coordinates: right, up, forward
    depth = rel[:, 2]
    safe = np.where(depth > 1e-9, depth, 1e-9)
    f = focal_length(height, fov_y)
    return width / 2.0 + f * rel[:, 0] / safe, height / 2.0 - f * rel[:, 1] / safe, depth


def pixel_ray(px: float, py: float, width: int, height: int, fov_y: float, forward: np.ndarray, up: np.ndarray) -> np.ndarray:
    """Unit world direction through image point (px right, py down, origin top-left corner)."""
    forward = np.asarray(forward, float) / np.linalg.norm(forward)
    right = np.cross(forward, up)
    right /= np.linalg.norm(right)
    true_up = np.cross(right, forward)
    f = focal_length(height, fov_y)
    direction = forward * f + right * (px - width / 2.0) - true_up * (py - height / 2.0)
    return direction / np.linalg.norm(direction)

