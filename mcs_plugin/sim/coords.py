"""Conversions between MCS coordinates (y up, left-handed, yaw clockwise) and MuJoCo's (z up)."""

from __future__ import annotations

import math

import numpy as np

# Swapping y and z maps MCS's left-handed frame onto MuJoCo's right-handed one.
_SWAP_YZ = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, 1.0, 0.0]])


def mcs_to_mj(x: float, y: float, z: float) -> np.ndarray:
    """Point (x, y, z) in MCS coordinates as a MuJoCo world point."""
    return np.array([x, z, y], dtype=float)




def unity_euler_matrix(rx: float, ry: float, rz: float) -> np.ndarray:
    """Rotation matrix (MCS frame) of Unity Euler angles in degrees: z first, then x, then y."""
    ax, ay, az = (math.radians(a) for a in (rx, ry, rz))
    cx, sx, cy, sy, cz, sz = math.cos(ax), math.sin(ax), math.cos(ay), math.sin(ay), math.cos(az), math.sin(az)
    r_x = np.array([[1, 0, 0], [0, cx, -sx], [0, sx, cx]])
    r_y = np.array([[cy, 0, sy], [0, 1, 0], [-sy, 0, cy]])
    r_z = np.array([[cz, -sz, 0], [sz, cz, 0], [0, 0, 1]])
    return r_y @ r_x @ r_z


def unity_euler_to_mj_matrix(rx: float, ry: float, rz: float) -> np.ndarray:
    """Unity Euler angles (degrees) as a MuJoCo world rotation matrix."""
    return _SWAP_YZ @ unity_euler_matrix(rx, ry, rz) @ _SWAP_YZ


def mj_matrices_to_unity_euler(mats_mj: np.ndarray) -> np.ndarray:
    """Unity Euler angles (N, 3), degrees in [0, 360), of MuJoCo rotation matrices (N, 3, 3)."""
    r = mats_mj[:, [0, 2, 1], :][:, :, [0, 2, 1]]  # back to the MCS frame; R = Ry Rx Rz, so r[1,2] = -sin(x)
    sx = np.clip(-r[:, 1, 2], -1.0, 1.0)
    ax = np.arcsin(sx)
    regular = np.abs(sx) < 0.999999
    ay = np.where(regular, np.arctan2(r[:, 0, 2], r[:, 2, 2]), np.arctan2(-r[:, 2, 0], r[:, 0, 0]))
    az = np.where(regular, np.arctan2(r[:, 1, 0], r[:, 1, 1]), 0.0)
    return np.degrees(np.stack([ax, ay, az], axis=1)) % 360.0


def matrix_to_quat(mat: np.ndarray) -> np.ndarray:
    """Rotation matrix as a MuJoCo quaternion (w, x, y, z)."""
    import mujoco

    quat = np.zeros(4)
    mujoco.mju_mat2Quat(quat, np.asarray(mat, dtype=float).reshape(9))
    return quat


def yaw_forward_mj(yaw_deg: float) -> np.ndarray:
    """Horizontal unit forward vector (MuJoCo frame) of an MCS yaw in degrees."""
    a = math.radians(yaw_deg)
    return np.array([math.sin(a), math.cos(a), 0.0])


def yaw_right_mj(yaw_deg: float) -> np.ndarray:
    """Horizontal unit right vector (MuJoCo frame) of an MCS yaw in degrees."""
    a = math.radians(yaw_deg)
    return np.array([math.cos(a), -math.sin(a), 0.0])


def camera_axes_mj(yaw_deg: float, tilt_deg: float) -> tuple[np.ndarray, np.ndarray]:
    """Camera forward and up vectors (MuJoCo frame) for a yaw and a head tilt (positive = down)."""
    a, t = math.radians(yaw_deg), math.radians(tilt_deg)
    flat = np.array([math.sin(a), math.cos(a), 0.0])
    forward = flat * math.cos(t) + np.array([0.0, 0.0, -math.sin(t)])
    up = flat * math.sin(t) + np.array([0.0, 0.0, math.cos(t)])
    return forward, up
