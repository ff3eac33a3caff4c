"""Floor footprints of scene objects (oriented rectangles in the x-z plane) and random non-overlapping placement.

Conventions (MCS): x right, z forward, yaw (rotation.y, degrees) clockwise seen from above; an object's local
+x axis points along (cos yaw, -sin yaw) and its local +z axis along (sin yaw, cos yaw) in (x, z). Catalog
objects are centred on their origin in x and z, so a footprint is centred on `shows[0].position`.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Any, Iterable, Mapping

import numpy as np

from mcs_plugin.sim.catalog import get_object_type


@dataclass(frozen=True)
class Footprint:
    """An oriented rectangle on the floor: centre (x, z), half extents along its local axes, yaw in degrees."""

    x: float
    z: float
    half_x: float
    half_z: float
    yaw: float = 0.0
    object_id: str = ""

    @property
    def axes(self) -> tuple[np.ndarray, np.ndarray]:
        """Unit vectors (in x, z) of the local x and z axes."""
        a = math.radians(self.yaw)
        return np.array([math.cos(a), -math.sin(a)]), np.array([math.sin(a), math.cos(a)])

    def corners(self) -> np.ndarray:
        """The 4 corners as a (4, 2) array of (x, z), counter-clockwise seen from above with z up the page."""
        ax, az = self.axes
        c = np.array([self.x, self.z])
        return np.array([c + sx * self.half_x * ax + sz * self.half_z * az
                         for sx, sz in ((-1, -1), (1, -1), (1, 1), (-1, 1))])

    def distance(self, points: np.ndarray) -> np.ndarray:
        """Distance from each (x, z) point (array (..., 2)) to the rectangle (0 inside)."""
        points = np.asarray(points, dtype=float)
        ax, az = self.axes
        d = points - np.array([self.x, self.z])
        lx = np.abs(d @ ax) - self.half_x
        lz = np.abs(d @ az) - self.half_z
        return np.hypot(np.maximum(lx, 0.0), np.maximum(lz, 0.0))

    def overlaps(self, other: Footprint, gap: float = 0.0) -> bool:
        """Whether the rectangles overlap or come closer than `gap` (separating-axis test on the 4 axes)."""
        a_corners, b_corners = self.corners(), other.corners()
        for axis in (*self.axes, *other.axes):
            pa, pb = a_corners @ axis, b_corners @ axis
            if pa.min() - pb.max() >= gap or pb.min() - pa.max() >= gap:
                return False
        return True

    def inside_room(self, room_x: float, room_z: float, margin: float = 0.0) -> bool:
        """Whether every corner lies inside the room walls (at +-dim/2) by at least `margin`."""
        c = self.corners()
        return bool(np.all(np.abs(c[:, 0]) <= room_x / 2 - margin) and np.all(np.abs(c[:, 1]) <= room_z / 2 - margin))

    @property
    def radius(self) -> float:
        """Half the diagonal: the radius of the circle around the rectangle."""
        return math.hypot(self.half_x, self.half_z)


def footprint_of(obj: Mapping[str, Any]) -> Footprint | None:
    """Footprint of a scene object dict at its first show, from the catalog size x scale; None for objects placed
    relative to a parent (`locationParent`) or of unknown type."""
    if obj.get("locationParent"):
        return None
    try:
        otype = get_object_type(obj["type"])
    except KeyError:
        return None
    show = (obj.get("shows") or [{}])[0]
    pos = show.get("position") or {}
    scale = show.get("scale", 1.0)
    if isinstance(scale, (int, float)):
        scale = {"x": scale, "y": scale, "z": scale}
    sx, sz = float(scale.get("x", 1.0)), float(scale.get("z", 1.0))
    yaw = float((show.get("rotation") or {}).get("y", 0.0))
    return Footprint(float(pos.get("x", 0.0)), float(pos.get("z", 0.0)), otype.size[0] * sx / 2,
                     otype.size[2] * sz / 2, yaw, str(obj.get("id", "")))


def top_height(obj: Mapping[str, Any]) -> float:
    """Height of an object's top above the floor at its first show (origin y + catalog top at its scale)."""
    otype = get_object_type(obj["type"])
    show = obj["shows"][0]
    sy = float(show.get("scale", {}).get("y", 1.0))
    return float(show["position"].get("y", 0.0)) + (otype.size[1] - otype.position_y_on_floor) * sy


class Placer:
    """Random placement of footprints in a room, keeping a gap to everything placed so far and to the performer."""

    def __init__(self, rng: random.Random, room_x: float, room_z: float, start: tuple[float, float],
                 start_clearance: float = 0.6, gap: float = 0.15, wall_margin: float = 0.05):
        self.rng = rng
        self.room_x, self.room_z = room_x, room_z
        self.start = np.array(start, dtype=float)
        self.start_clearance = start_clearance
        self.gap = gap
        self.wall_margin = wall_margin
        self.placed: list[Footprint] = []

    def fits(self, fp: Footprint, gap: float | None = None, wall_margin: float | None = None) -> bool:
        """Whether a footprint is inside the room, clear of the performer start and of every placed footprint."""
        gap = self.gap if gap is None else gap
        if not fp.inside_room(self.room_x, self.room_z, self.wall_margin if wall_margin is None else wall_margin):
            return False
        if float(fp.distance(self.start)) < self.start_clearance:
            return False
        reach = fp.radius + gap
        return not any(abs(fp.x - o.x) < reach + o.radius and abs(fp.z - o.z) < reach + o.radius
                       and fp.overlaps(o, gap) for o in self.placed)

    def add(self, fp: Footprint) -> Footprint:
        """Record a placed footprint."""
        self.placed.append(fp)
        return fp

    def sample(self, half_x: float, half_z: float, attempts: int = 60, region: Any = None,
               yaws: Iterable[float] | None = None, object_id: str = "") -> Footprint | None:
        """Place a rectangle at a random free spot (uniform in the room, or drawn by `region(rng) -> (x, z)`)
        with a random yaw (from `yaws`, else any multiple of 15 degrees); None if no spot was found."""
        yaw_choices = list(yaws) if yaws is not None else [15.0 * k for k in range(24)]
        for _ in range(attempts):
            yaw = self.rng.choice(yaw_choices)
            if region is None:
                x = self.rng.uniform(-self.room_x / 2, self.room_x / 2)
                z = self.rng.uniform(-self.room_z / 2, self.room_z / 2)
            else:
                x, z = region(self.rng)
            fp = Footprint(round(x, 4), round(z, 4), half_x, half_z, yaw, object_id)
            if self.fits(fp):
                return self.add(fp)
        return None
