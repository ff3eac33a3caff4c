"""Bounds on every number a scene, an action or a config may hold (documented in docs/input_limits.md).

Real MCS 0.7.4 scenes (the 313 Eval-7 scenes and the MCS sample and test scenes) stay well inside them:
rooms up to 59 m, positions within 16 m, scales up to 100, masses up to 18,530 kg, forces up to 14,000 N.
Beyond them the physics (MuJoCo) and the renderer no longer give meaningful or bounded-cost results.
"""

from __future__ import annotations

MAX_COORDINATE = 100.0  # metres: any position, offset or per-step move, on each axis
MAX_ROOM_SIZE = 100.0  # metres: each room dimension
MAX_SCALE = 100.0  # a scale factor (scale > 0) on each axis
MAX_OBJECT_SIZE = 100.0  # metres: an object's extent (catalog size times scale) on each axis
MAX_MASS = 1e5  # kg (mass > 0)
MAX_FORCE = 1e5  # newtons (or N*m): scripted forces and torques, on each axis
MAX_ANGLE = 3600.0  # degrees: rotations, on each axis
MAX_COEFFICIENT = 100.0  # friction and drag coefficients (>= 0); bounciness is in [0, 1]
MAX_ANGULAR_VELOCITY = 1e4  # rad/s
MAX_STEP = 10**7  # any step number, step count or step wait (absolute value)
MAX_DIRECTION = 1e6  # absolute value of each objectDirectionX/Y/Z component (its length must be > MIN_DIRECTION)
MIN_DIRECTION = 1e-6
MAX_IMAGE_SIZE = 4096  # pixels: image width and height (each >= 1)
MAX_CONFIG_INT = 2**31 - 1  # any other integer config value (absolute value)
MAX_CONFIG_NUMBER = 1e12  # any real config value: rewards and penalties (absolute value)
