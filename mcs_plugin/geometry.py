"""Plane geometry on the x-z floor (and angles on it) shared by the simulator's goals, the experts and the drawings: hulls, gaps and
distances to convex polygons.

The hull is a monotone chain, not scipy's Qhull: for the 4-8 bounding-box corners it is given, Qhull costs about ten
times as much (0.3 ms against 0.03 ms a call, measured) and fails on flat input, which this handles.
"""

from __future__ import annotations

import math
from typing import Iterable, Sequence

import numpy as np

# The signs (+-1, +-1, +-1) of a box's 8 corners relative to its centre, in units of its half extents.
BOX_CORNER_SIGNS = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)], dtype=float)


def angle_difference(a: float, b: float) -> float:
    """Signed smallest difference a - b of two angles in degrees, in (-180, 180]."""
    d = (a - b) % 360.0
    return d - 360.0 if d > 180.0 else d


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


class Obstacles:
    """A set of convex x-z polygons with vectorised (and fast scalar) point-distance queries."""

    def __init__(self, polygons: Iterable[np.ndarray]):
        self.polygons = [np.asarray(p, float).reshape(-1, 2) for p in polygons if len(p) >= 1]
        starts, a, b = [], [], []
        for poly in self.polygons:
            starts.append(len(a))
            a.extend(poly)
            b.extend(np.roll(poly, -1, axis=0))
        self._starts = np.array(starts, dtype=np.intp)
        self._a = np.array(a, float).reshape(-1, 2)
        self._ab = np.array(b, float).reshape(-1, 2) - self._a
        self._len2 = np.maximum((self._ab ** 2).sum(axis=1), 1e-18)
        self._sizes = np.array([len(p) for p in self.polygons], dtype=np.intp)
        self._low = np.array([p.min(axis=0) for p in self.polygons]).reshape(-1, 2)
        self._high = np.array([p.max(axis=0) for p in self.polygons]).reshape(-1, 2)
        # plain-Python edges per polygon for scalar queries: (ax, az, abx, abz, len2)
        self._edges = [[(float(pa[0]), float(pa[1]), float(pb[0] - pa[0]), float(pb[1] - pa[1]),
                         max(float((pb[0] - pa[0]) ** 2 + (pb[1] - pa[1]) ** 2), 1e-18))
                        for pa, pb in zip(poly, np.roll(poly, -1, axis=0))] for poly in self.polygons]

    def __len__(self) -> int:
        return len(self.polygons)

    def distances(self, points: np.ndarray, within: float = math.inf) -> np.ndarray:
        """Distance from each point (N, 2) to each polygon (N, P) (0 inside one). With a finite `within`, only the
        points inside a polygon's bounding box grown by `within` are measured against it; the others read inf (a
        navigation grid needs the clearances below a threshold, and most cells are far from most obstacles)."""
        pts = np.asarray(points, float).reshape(-1, 2)
        if not self.polygons:
            return np.empty((len(pts), 0))
        if math.isinf(within):
            out = np.empty((len(pts), len(self.polygons)))
            for lo in range(0, len(pts), 2048):  # bounded memory for big grids
                seg, left = self._edge_terms(pts[lo : lo + 2048], slice(None))
                per_poly = np.minimum.reduceat(seg, self._starts, axis=1)
                # inside: on the left of every edge (a point or a segment has no inside)
                inside = np.logical_and.reduceat(left, self._starts, axis=1) & (self._sizes >= 3)[None]
                out[lo : lo + 2048] = np.where(inside, 0.0, per_poly)
            return out
        out = np.full((len(pts), len(self.polygons)), np.inf)
        order = np.argsort(pts[:, 0], kind="stable")  # each polygon's x band is then one slice
        first = np.searchsorted(pts[order, 0], self._low[:, 0] - within, side="left")
        last = np.searchsorted(pts[order, 0], self._high[:, 0] + within, side="right")
        for i, (start, size) in enumerate(zip(self._starts, self._sizes)):
            band = order[first[i] : last[i]]
            z = pts[band, 1]
            rows = band[(z >= self._low[i, 1] - within) & (z <= self._high[i, 1] + within)]
            if rows.size:
                seg, left = self._edge_terms(pts[rows], slice(start, start + size))
                out[rows, i] = np.where(left.all(axis=1) & (size >= 3), 0.0, seg.min(axis=1))
        return out

    def _edge_terms(self, p: np.ndarray, edges: slice) -> tuple[np.ndarray, np.ndarray]:
        """For points (n, 2) and a run of edges (m): each point's distance to each edge's segment (n, m), and
        whether it lies on the left of the edge (inside a counter-clockwise polygon: left of every edge)."""
        a, ab, len2 = self._a[edges], self._ab[edges], self._len2[edges]
        ap = p[:, None, :] - a[None, :, :]
        t = np.clip((ap * ab[None]).sum(axis=2) / len2[None], 0.0, 1.0)
        closest = ap - t[:, :, None] * ab[None]
        cross = ab[None, :, 0] * ap[:, :, 1] - ab[None, :, 1] * ap[:, :, 0]
        return np.hypot(closest[:, :, 0], closest[:, :, 1]), cross >= 0.0

    def distance(self, points: np.ndarray) -> np.ndarray:
        """Distance from each point (N, 2) to the nearest polygon (0 inside one); inf without polygons."""
        pts = np.asarray(points, float).reshape(-1, 2)
        if not self.polygons:
            return np.full(len(pts), np.inf)
        return self.distances(pts).min(axis=1)

    def distance_to(self, x: float, z: float, indices: Iterable[int]) -> float:
        """Distance from one point to the nearest of some polygons (plain Python: fast for a few)."""
        best = math.inf
        for i in indices:
            edges = self._edges[i]
            inside = len(edges) >= 3
            for ax, az, abx, abz, len2 in edges:
                apx, apz = x - ax, z - az
                if abx * apz - abz * apx < 0.0:
                    inside = False
                t = (apx * abx + apz * abz) / len2
                t = 0.0 if t < 0.0 else (1.0 if t > 1.0 else t)
                dx, dz = apx - t * abx, apz - t * abz
                d = math.sqrt(dx * dx + dz * dz)
                if d < best:
                    best = d
            if inside:
                return 0.0
        return best
