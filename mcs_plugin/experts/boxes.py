"""Objects' oriented bounding boxes from StepMetadata, and which of them can obstruct the performer's body."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable, Sequence

import numpy as np

from mcs_plugin.constants import CAPSULE_TOP, STANDING_CAMERA_HEIGHT as CAMERA_HEIGHT
from mcs_plugin.geometry import BOX_CORNER_SIGNS, convex_hull

if TYPE_CHECKING:  # pragma: no cover
    from mcs_plugin.mcs import ObjectMetadata, StepMetadata

BODY_TOP = CAPSULE_TOP + 0.05  # metres above the floor: objects entirely above this do not obstruct the performer
# (MCS's capsule reaches CAPSULE_TOP; 5 cm to spare; occluders' poles 1.35 m up let it pass)
AGENT_SHAPE = "agent"  # ObjectMetadata.shape of simulation agents
DOOR_SHAPE = "door"  # ObjectMetadata.shape of doors (door_4, door_4b)


def corner_xyz(corner) -> tuple:
    """(x, y, z) of one `dimensions` corner: a dict as MCS reports it, or a sequence."""
    return (corner["x"], corner["y"], corner["z"]) if isinstance(corner, dict) else tuple(corner)


class Box:
    """An oriented box (an object's bounding box in StepMetadata `dimensions`), in MCS coordinates (y up)."""

    def __init__(self, center: np.ndarray, axes: np.ndarray, half: np.ndarray):
        self.center = np.asarray(center, float)
        self.axes = np.asarray(axes, float)  # rows: unit axes
        self.half = np.maximum(np.asarray(half, float), 1e-6)
        self.corners = self.center + (BOX_CORNER_SIGNS * self.half) @ self.axes

    @classmethod
    def from_corners(cls, corners: Sequence) -> Box:
        """The box spanned by 8 corner points (any order); an axis-aligned box when they do not form one."""
        pts = np.array([corner_xyz(c) for c in corners], float)
        if len(pts) == 0:
            raise ValueError("an object without dimensions")
        center = pts.mean(axis=0)
        if len(pts) == 8:
            diffs = pts[1:] - pts[0]
            lengths = np.linalg.norm(diffs, axis=1)
            order = np.argsort(lengths, kind="stable")
            axes: list[np.ndarray] = []
            sizes: list[float] = []
            for i in order:
                if lengths[i] < 1e-9:
                    continue
                unit = diffs[i] / lengths[i]
                if all(abs(float(unit @ a)) < 1e-3 for a in axes):
                    axes.append(unit)
                    sizes.append(float(lengths[i]))
                if len(axes) == 3:
                    break
            if len(axes) == 3:
                # Order the axes as close to x, y, z as possible (y = the most vertical one).
                axes_arr = np.array(axes)
                up = int(np.argmax(np.abs(axes_arr[:, 1])))
                rest = [i for i in range(3) if i != up]
                first = rest[0] if abs(axes_arr[rest[0], 0]) >= abs(axes_arr[rest[1], 0]) else rest[1]
                third = rest[1] if first == rest[0] else rest[0]
                idx = [first, up, third]
                return cls(center, axes_arr[idx], np.array(sizes)[idx] / 2.0)
        low, high = pts.min(axis=0), pts.max(axis=0)
        return cls((low + high) / 2.0, np.eye(3), (high - low) / 2.0)

    @classmethod
    def from_metadata(cls, obj: ObjectMetadata) -> Box:
        """The bounding box of an ObjectMetadata (memoised per corner values: objects at rest reuse theirs; and per
        corner list, which the expert asks about many times in a step)."""
        seen = _BOX_BY_CORNER_LIST.get(id(obj.dimensions))
        if seen is not None and seen[0] is obj.dimensions:
            return seen[1]
        key = tuple(corner_xyz(c) for c in obj.dimensions)
        box = _BOX_CACHE.get(key)
        if box is None:
            box = cls.from_corners(obj.dimensions)
            if len(_BOX_CACHE) > 4096:
                _BOX_CACHE.clear()
            _BOX_CACHE[key] = box
        if len(_BOX_BY_CORNER_LIST) > 1024:
            _BOX_BY_CORNER_LIST.clear()
        _BOX_BY_CORNER_LIST[id(obj.dimensions)] = (obj.dimensions, box)  # the list is kept, so its id stays unique
        return box

    @property
    def bottom(self) -> float:
        """Lowest y of the box."""
        return float(self.corners[:, 1].min())

    @property
    def top(self) -> float:
        """Highest y of the box."""
        return float(self.corners[:, 1].max())

    def footprint(self) -> np.ndarray:
        """Counter-clockwise x-z convex hull (k, 2) of the box."""
        return convex_hull(self.corners[:, [0, 2]])

    def aabb_xz(self) -> tuple[np.ndarray, np.ndarray]:
        """Axis-aligned x-z bounds (low, high) of the corners (as the reward checks footprints)."""
        xz = self.corners[:, [0, 2]]
        return xz.min(axis=0), xz.max(axis=0)

    def scaled(self, factors: float | Sequence[float]) -> Box:
        """The same box with its half extents multiplied by `factors` (about its centre)."""
        return Box(self.center, self.axes, self.half * np.asarray(factors, float))

    def contains(self, point: Sequence[float], margin: float = 0.0) -> bool:
        """Whether a point lies inside the box (grown by `margin`)."""
        local = self.axes @ (np.asarray(point, float) - self.center)
        return bool(np.all(np.abs(local) <= self.half + margin))

    def ray_entry(self, origin: np.ndarray, directions: np.ndarray) -> np.ndarray:
        """Distance along unit rays from origins to where they enter the box; inf where they miss.

        `origin` (..., 3) and `directions` (..., 3) broadcast against each other (e.g. one origin and (N, 3) rays).
        """
        o = (np.asarray(origin, float) - self.center) @ self.axes.T
        d = np.asarray(directions, float) @ self.axes.T
        o, d = np.broadcast_arrays(o, d)
        parallel = np.abs(d) <= 1e-12
        inv = 1.0 / np.where(parallel, 1.0, d)
        t1 = (-self.half - o) * inv
        t2 = (self.half - o) * inv
        inside_slab = np.abs(o) <= self.half
        low = np.where(parallel, np.where(inside_slab, -np.inf, np.inf), np.minimum(t1, t2))
        high = np.where(parallel, np.where(inside_slab, np.inf, -np.inf), np.maximum(t1, t2))
        t_in, t_out = low.max(axis=-1), high.min(axis=-1)
        hit = (t_out >= np.maximum(t_in, 0.0)) & np.isfinite(t_out)
        return np.where(hit, np.maximum(t_in, 0.0), np.inf)


_BOX_CACHE: dict[tuple, Box] = {}  # corner values -> box
_BOX_BY_CORNER_LIST: dict[int, tuple[list, Box]] = {}  # id of a metadata corner list -> (that list, its box)


def obstacle_boxes(output: StepMetadata, ignore: Iterable[str] = (), floor_y: float | None = None) -> list[tuple[str, Box]]:
    """(id, box) of every object and structure in a step output that can obstruct the performer's body. Simulation
    agents and what they carry are left out: they walk, and a graph rebuilt at each of their steps would cost seconds
    per step (a move into one is OBSTRUCTED, and the expert plans around that)."""
    ignored = set(ignore)
    if floor_y is None:
        floor_y = (output.position or {}).get("y", CAMERA_HEIGHT) - CAMERA_HEIGHT
    result = []
    objects = list(output.object_list) + list(output.structural_object_list)
    carried = {o.simulation_agent_held_object for o in objects if o.simulation_agent_is_holding_held_object}
    for obj in objects:
        if obj.held or obj.uuid in ignored or not obj.dimensions or obj.shape == AGENT_SHAPE or obj.uuid in carried:
            continue
        if obj.shape == DOOR_SHAPE and obj.is_open:
            continue  # an open door leaves its doorway free (its box stays that of the closed door)
        box = Box.from_metadata(obj)
        if box.bottom > floor_y + BODY_TOP:
            continue  # the ceiling, shelves above the head
        result.append((obj.uuid, box))
    return result
