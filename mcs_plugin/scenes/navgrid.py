"""Navigation grid: where the performer can stand, on the 0.1 m lattice of its moves, and what it can reach.

The lattice is anchored at the performer start (start + 0.1 m * (i, j)), so the start is a node and every node
is a whole number of MoveAhead/MoveLeft... steps away at yaw 0/90/180/270. A node is free when the performer's
disc (radius 0.25 m) fits: at least the radius from the room walls and from every obstacle footprint (exact
Minkowski sum of an oriented rectangle and a disc). Reachability is a 4-connected breadth-first search.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np

from mcs_plugin.constants import MOVE_DISTANCE, PERFORMER_RADIUS, PERFORMER_REACH, STANDING_CAMERA_HEIGHT
from mcs_plugin.scenes.placement import Footprint

HalfPlane = tuple[float, float, float]  # (nx, nz, least): the points p with nx * p.x + nz * p.z >= least


class NavGrid:
    """Free performer positions of a room with obstacles, on the move lattice through `start`."""

    def __init__(self, room_x: float, room_z: float, start: tuple[float, float], obstacles: Iterable[Footprint] = (),
                 radius: float = PERFORMER_RADIUS, step: float = MOVE_DISTANCE, clearance: float = 0.01):
        self.room_x, self.room_z = float(room_x), float(room_z)
        self.start = (float(start[0]), float(start[1]))
        self.radius, self.step = float(radius), float(step)
        limit_x = self.room_x / 2 - self.radius
        limit_z = self.room_z / 2 - self.radius
        sx, sz = self.start
        i0, i1 = math.ceil((-limit_x - sx) / step - 1e-9), math.floor((limit_x - sx) / step + 1e-9)
        j0, j1 = math.ceil((-limit_z - sz) / step - 1e-9), math.floor((limit_z - sz) / step + 1e-9)
        self.xs = sx + step * np.arange(i0, i1 + 1)
        self.zs = sz + step * np.arange(j0, j1 + 1)
        self._start_index = (-j0, -i0)  # (row = z index, column = x index)
        gx, gz = np.meshgrid(self.xs, self.zs)
        self.points = np.stack([gx, gz], axis=-1)  # (nz, nx, 2)
        self.free = np.ones(gx.shape, dtype=bool)
        self.obstacles = list(obstacles)
        for fp in self.obstacles:
            self.free &= fp.distance(self.points) >= self.radius + clearance
        self._distances: np.ndarray | None = None

    @property
    def shape(self) -> tuple[int, int]:
        """(number of z rows, number of x columns)."""
        return self.free.shape

    @property
    def start_free(self) -> bool:
        """Whether the performer fits at its start."""
        r, c = self._start_index
        return 0 <= r < self.shape[0] and 0 <= c < self.shape[1] and bool(self.free[r, c])

    def distances(self) -> np.ndarray:
        """Moves (4-connected lattice steps) from the start to every node; -1 where unreachable."""
        if self._distances is None:
            self._distances = self._bfs(None)
        return self._distances

    def _bfs(self, goal: np.ndarray | None) -> np.ndarray:
        dist = np.full(self.shape, -1, dtype=np.int32)
        if not self.start_free:
            return dist
        frontier = np.zeros(self.shape, dtype=bool)
        frontier[self._start_index] = True
        seen = frontier.copy()
        dist[self._start_index] = 0
        level = 0
        while frontier.any():
            if goal is not None and (frontier & goal).any():
                break
            grown = np.zeros_like(frontier)
            grown[1:, :] |= frontier[:-1, :]
            grown[:-1, :] |= frontier[1:, :]
            grown[:, 1:] |= frontier[:, :-1]
            grown[:, :-1] |= frontier[:, 1:]
            frontier = grown & self.free & ~seen
            seen |= frontier
            level += 1
            dist[frontier] = level
        return dist

    def goal_cells(self, target: Footprint, horizontal_reach: float, front: HalfPlane | None = None) -> np.ndarray:
        """Free nodes from which the target footprint is within `horizontal_reach` (x-z distance), and on the
        `front` side (nx, nz, least n . p) when one is given."""
        goal = self.free & (target.distance(self.points) <= horizontal_reach)
        if front is not None:
            nx, nz, least = front
            goal &= self.points[..., 0] * nx + self.points[..., 1] * nz >= least
        return goal

    def path_length(self, target: Footprint, horizontal_reach: float, front: HalfPlane | None = None) -> float | None:
        """Shortest lattice path (metres) from the start to a node within reach of the target; None if none."""
        goal = self.goal_cells(target, horizontal_reach, front)
        if not goal.any():
            return None
        dist = self._distances if self._distances is not None else self._bfs(goal)
        hits = dist[goal & (dist >= 0)]
        return None if hits.size == 0 else float(hits.min()) * self.step

    def path(self, target: Footprint, horizontal_reach: float,
             front: HalfPlane | None = None) -> list[tuple[float, float]] | None:
        """A shortest lattice path [(x, z), ...] from the start to the nearest node within reach; None if none."""
        goal = self.goal_cells(target, horizontal_reach, front)
        dist = self.distances()
        hits = goal & (dist >= 0)
        if not hits.any():
            return None
        rows, cols = np.nonzero(hits)
        best = int(np.argmin(dist[rows, cols]))
        r, c = int(rows[best]), int(cols[best])
        cells = [(r, c)]
        while dist[r, c] > 0:
            for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                nr, nc = r + dr, c + dc
                if 0 <= nr < self.shape[0] and 0 <= nc < self.shape[1] and dist[nr, nc] == dist[r, c] - 1:
                    r, c = nr, nc
                    break
            cells.append((r, c))
        return [(float(self.xs[c]), float(self.zs[r])) for r, c in reversed(cells)]

    def reachable_fraction(self) -> float:
        """Fraction of free nodes reachable from the start."""
        free = int(self.free.sum())
        return 0.0 if free == 0 else float((self.distances() >= 0).sum()) / free

    def to_networkx(self):
        """The free lattice as a networkx graph (nodes (x, z) rounded to mm, 4-connected edges of 0.1 m)."""
        import networkx as nx

        graph = nx.Graph()
        rows, cols = np.nonzero(self.free)
        key = {(r, c): (round(float(self.xs[c]), 3), round(float(self.zs[r]), 3)) for r, c in zip(rows, cols)}
        graph.add_nodes_from(key.values())
        for (r, c), node in key.items():
            for dr, dc in ((1, 0), (0, 1)):
                other = key.get((r + dr, c + dc))
                if other is not None:
                    graph.add_edge(node, other, weight=self.step)
        return graph


def horizontal_reach(top: float, reach: float = PERFORMER_REACH, camera_height: float = STANDING_CAMERA_HEIGHT, margin: float = 0.1) -> float:
    """Largest x-z distance from the camera to an object's footprint at which its top (height `top`) is within
    `reach` of the camera, less a safety margin."""
    dv = max(0.0, camera_height - top)
    return max(0.0, math.sqrt(max(0.0, reach * reach - dv * dv)) - margin)


def pickup_radius(center_y: float, inscribed: float, reach: float = PERFORMER_REACH, camera_height: float = STANDING_CAMERA_HEIGHT,
                  margin: float = 0.1) -> float:
    """Largest x-z distance from the camera to an object's *centre* at which the object is surely within `reach`:
    the camera-to-centre distance minus the object's inscribed radius (its smallest half extent) must be at most
    `reach - margin`. Exact for balls, conservative for boxes (their surface is nearer than the inscribed sphere)."""
    dv = camera_height - center_y
    limit = reach - margin + inscribed
    return math.sqrt(max(0.0, limit * limit - dv * dv))
