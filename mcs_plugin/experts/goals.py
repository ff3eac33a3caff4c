"""Goals of the experts' searches: sets of performer poses (near a footprint, aiming at a box, dropping an object
beside a target) with the x-z region where they lie, which the navigation graph's heuristic starts from."""

from __future__ import annotations

import copy as copy_module
import math
from typing import TYPE_CHECKING, Any, Callable, Iterable, Sequence

import numpy as np

from mcs_plugin.constants import CAMERA_FIELD_OF_VIEW, PERFORMER_REACH, ROTATE_DEGREES
from mcs_plugin.constants import STANDING_CAMERA_HEIGHT as CAMERA_HEIGHT
from mcs_plugin.experts.boxes import Box
from mcs_plugin.experts.poses import (
    Pose, achievable_tilts, aim_key, center_ray_directions_many, forward_xz, right_xz,
)
from mcs_plugin.geometry import Obstacles, angle_difference

if TYPE_CHECKING:  # pragma: no cover
    from mcs_plugin.mcs import ObjectMetadata


class Goal:
    """A set of performer poses (a predicate) and the x-z region those poses lie in (for the search heuristic).

    Subclasses override `__call__`; `region(x, z)` (arrays) must be True wherever a goal pose may lie (the
    default, everywhere, makes the search a plain uniform-cost search). `key` names the goal for caching.
    """

    key: Any = None

    def __call__(self, pose: Pose) -> bool:  # pragma: no cover - abstract
        """Whether a pose is a goal pose."""
        raise NotImplementedError

    def region(self, x: np.ndarray, z: np.ndarray) -> np.ndarray:
        """Where goal poses may lie (boolean array shaped like x)."""
        return np.ones(np.shape(x), dtype=bool)

    #: whether `NavigationGraph.goal_cells` samples poses to find where goal poses lie (for heading-dependent goals)
    sampled = False

    def heading_hint(self, pose: Pose) -> float:
        """A lower bound on the actions still needed at a pose inside the region (e.g. turns); 0 by default."""
        return 0.0

    def prefilter(self, x: np.ndarray, z: np.ndarray, yaw: np.ndarray) -> np.ndarray:
        """A cheap vectorised necessary condition for goal poses (broadcasting arrays); all True by default."""
        return np.ones(np.broadcast(x, z, yaw).shape, dtype=bool)


class PredicateGoal(Goal):
    """A goal from a plain callable on poses (no region: the search is uninformed)."""

    def __init__(self, predicate: Callable[[Pose], bool]):
        self.predicate = predicate
        self.key = ("predicate", id(predicate))

    def __call__(self, pose: Pose) -> bool:
        """Whether a pose is a goal pose."""
        return bool(self.predicate(pose))


class NearGoal(Goal):
    """Poses whose x-z position is within `distance` of an axis-aligned x-z rectangle (traversal)."""

    def __init__(self, low: Sequence[float], high: Sequence[float], distance: float):
        self.low, self.high, self.distance = np.asarray(low, float), np.asarray(high, float), float(distance)
        self._bounds = (float(self.low[0]), float(self.low[1]), float(self.high[0]), float(self.high[1]))
        self.key = ("near", tuple(np.round(self.low, 3)), tuple(np.round(self.high, 3)), round(self.distance, 3))

    @classmethod
    def of_object(cls, obj: ObjectMetadata, distance: float) -> NearGoal:
        """Within `distance` (x-z) of an object's axis-aligned footprint."""
        low, high = Box.from_metadata(obj).aabb_xz()
        return cls(low, high, distance)

    def gap(self, x, z) -> np.ndarray:
        """x-z distance from points to the rectangle."""
        dx = np.maximum(0.0, np.maximum(self.low[0] - np.asarray(x), np.asarray(x) - self.high[0]))
        dz = np.maximum(0.0, np.maximum(self.low[1] - np.asarray(z), np.asarray(z) - self.high[1]))
        return np.hypot(dx, dz)

    def __call__(self, pose: Pose) -> bool:
        """Whether the pose's position is near enough."""
        lx, lz, hx, hz = self._bounds
        dx = max(0.0, lx - pose.x, pose.x - hx)
        dz = max(0.0, lz - pose.z, pose.z - hz)
        return dx * dx + dz * dz <= self.distance * self.distance

    def region(self, x, z) -> np.ndarray:
        """Points within the distance."""
        return self.gap(x, z) <= self.distance


class AimGoal(Goal):
    """Poses from which the ray through the image centre hits an aim box within reach, before any occluder, at
    some head tilt the performer can reach (an interaction at the crosshair then acts on the object).

    `open_tops` are boxes (or (box, wall top height) pairs) the ray may only enter from above the top (an opened
    container around the target);
    `bad` holds (x, z, yaw, tilt) keys (see `aim_key`) of aims that failed before and are not offered again;
    `from_above` only accepts rays going down; `elliptic` only hits inside the ellipse inscribed in the box's x-z
    extents (round table tops); `max_lateral` bounds the distance (x-z) from the box centre to the
    ray's vertical plane (aim at the middle of the side facing the performer); `avoid_bearings` (degrees, the
    direction from the box to the camera) are sides from which an aim hit something else before (an opened lid
    that stands up on that side, say), avoided within `bearing_tolerance`; `floor(x, z)` (the navigation graph's
    surface heights) puts the camera CAMERA_HEIGHT above the surface of each pose instead of at `camera_height`;
    `points` (world, (P, 3)) are the target's visibility points: MCS acts on the object the crosshair names only
    when one of them is in the image, within reach and in sight (no occluder, no open top's wall in the way).
    """

    def __init__(self, box: Box, occluders: Sequence[Box] = (), reach: float = PERFORMER_REACH,
                 camera_height: float = CAMERA_HEIGHT, tilts: Sequence[float] | None = None,
                 image_size: tuple[int, int] = (0, 0), open_tops: Sequence[Box] = (), bad: Iterable[tuple] = (),
                 key: Any = None, from_above: bool = False, max_lateral: float | None = None,
                 elliptic: bool = False, avoid_bearings: Sequence[float] = (), bearing_tolerance: float = 75.0,
                 floor: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None,
                 points: np.ndarray | None = None):
        self.box = box
        self.points = None if points is None else np.asarray(points, float).reshape(-1, 3)
        self.reach = float(reach)
        self.camera_height = float(camera_height)
        self.floor = floor
        self.tilts = np.asarray(achievable_tilts(0.0) if tilts is None else tilts, float)
        self.image_size = tuple(image_size or (0, 0))
        self.open_tops = self._tops(open_tops)
        self.bad = set(bad)
        self.from_above = from_above
        self.max_lateral = max_lateral
        self.elliptic = elliptic
        self.avoid_bearings = [float(b) for b in avoid_bearings]
        self.bearing_tolerance = float(bearing_tolerance)
        cx, cz = float(box.center[0]), float(box.center[2])
        self._cxz = (cx, cz)
        xz = box.corners[:, [0, 2]]
        self._radius = float(np.max(np.hypot(xz[:, 0] - cx, xz[:, 1] - cz)))
        dv = max(0.0, (CAMERA_HEIGHT if floor is not None else self.camera_height) - box.top)
        self._horizontal = math.sqrt(max(0.0, self.reach ** 2 - dv ** 2)) + self._radius
        near = self._horizontal + 0.6
        self.occluders = [o for o in occluders
                          if float(np.min(np.hypot(o.corners[:, 0] - cx, o.corners[:, 2] - cz))) <= near
                          or o.contains((cx, o.center[1], cz))]
        self.key = key if key is not None else ("aim", tuple(np.round(box.center, 3)), round(self.reach, 3),
                                                len(self.bad), tuple(np.round(self.tilts, 1)))
        self._aims: dict[tuple[float, float, float], list[tuple[float, float, float]]] = {}  # pose -> its aims

    def without_occluders(self, boxes: Sequence[Box]) -> AimGoal:
        """A copy of this goal for which `boxes` (closed doors, to see whether opening them helps) hide nothing."""
        def listed(occ: Box) -> bool:
            return any(np.allclose(occ.center, b.center) and np.allclose(occ.half, b.half) for b in boxes)

        relaxed = copy_module.copy(self)
        relaxed.occluders = [o for o in self.occluders if not listed(o)]
        relaxed._aims = {}
        relaxed.key = (self.key, "without", tuple(tuple(np.round(b.center, 3)) for b in boxes))
        return relaxed

    @staticmethod
    def _tops(open_tops: Iterable) -> list[tuple[Box, float]]:
        return [(o, o.top - 0.005) if isinstance(o, Box) else (o[0], float(o[1])) for o in open_tops]

    def _ray_test(self, x: np.ndarray, z: np.ndarray, yaw: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """For N poses: (ok (N, T), hit distance (N, T), directions (N, T, 3), origins (N, 3)) over the tilts."""
        x, z, yaw = (np.asarray(v, float).reshape(-1) for v in (x, z, yaw))
        height = self.floor(x, z) + CAMERA_HEIGHT if self.floor is not None else np.full_like(x, self.camera_height)
        origin = np.stack([x, height, z], axis=1)
        dirs = center_ray_directions_many(yaw, self.tilts, self.image_size)
        o = origin[:, None, :]
        t = self.box.ray_entry(o, dirs)
        ok = t <= self.reach
        if self.from_above:
            ok &= dirs[..., 1] < -1e-6
        if self.elliptic:
            hit = o + dirs * np.where(np.isfinite(t), t, 0.0)[..., None]
            local = (hit - self.box.center) @ self.box.axes.T
            ok &= (local[..., 0] / self.box.half[0]) ** 2 + (local[..., 2] / self.box.half[2]) ** 2 <= 1.0
        if ok.any():
            ok &= ~self._blocked(o, dirs, t)
        if self.points is not None and ok.any():
            ok &= self._points_seen(origin, yaw)
        return ok, t, dirs, origin

    def _blocked(self, origin: np.ndarray, dirs: np.ndarray, dist: np.ndarray) -> np.ndarray:
        """Whether sight lines (unit `dirs` from `origin`, `dist` long) meet an occluder or enter an open top's walls
        below their top before their end."""
        blocked = np.zeros(dist.shape, bool)
        for occ in self.occluders:
            blocked |= occ.ray_entry(origin, dirs) < dist - 1e-3
        for container, wall_top in self.open_tops:
            walls = Box(container.center, container.axes, container.half * np.array([1.0, 1e4, 1.0]))
            t_in = walls.ray_entry(origin, dirs)
            y_in = origin[..., 1] + dirs[..., 1] * np.where(np.isfinite(t_in), t_in, 0.0)
            blocked |= (t_in < dist - 1e-3) & (y_in < wall_top)
        return blocked

    def _points_seen(self, origin: np.ndarray, yaw: np.ndarray) -> np.ndarray:
        """(N, T): whether one of the target's visibility points is in the image at each tilt, within reach and in
        sight from each of N camera positions."""
        delta = self.points[None] - origin[:, None]  # (N, P, 3)
        dist = np.linalg.norm(delta, axis=-1)
        dirs = delta / np.maximum(dist, 1e-9)[..., None]
        clear = (dist <= self.reach) & ~self._blocked(origin[:, None], dirs, dist)  # (N, P)
        a = np.radians(yaw).reshape(-1, 1, 1)
        t = np.radians(self.tilts).reshape(1, -1, 1)
        d = dirs[:, None]  # (N, 1, P, 3)
        right = d[..., 0] * np.cos(a) - d[..., 2] * np.sin(a)
        level = d[..., 0] * np.sin(a) + d[..., 2] * np.cos(a)  # along the heading
        depth = level * np.cos(t) - d[..., 1] * np.sin(t)
        up = level * np.sin(t) + d[..., 1] * np.cos(t)
        width, height = self.image_size if self.image_size[0] and self.image_size[1] else (3, 2)
        tan_v = math.tan(math.radians(CAMERA_FIELD_OF_VIEW) / 2.0)
        in_view = (depth > 1e-6) & (np.abs(up) < tan_v * depth) & (np.abs(right) < tan_v * width / height * depth)
        return (in_view & clear[:, None]).any(axis=-1)

    def batch(self, x, z, yaw) -> np.ndarray:
        """Whether some tilt works from each of N poses (vectorised; failed aims in `bad` are not excluded)."""
        x, z, yaw = np.broadcast_arrays(*(np.asarray(v, float) for v in (x, z, yaw)))
        shape = x.shape
        result = self.prefilter(x, z, yaw).reshape(-1)
        idx = np.nonzero(result)[0]
        for lo in range(0, idx.size, 512):
            part = idx[lo : lo + 512]
            ok = self._ray_test(x.reshape(-1)[part], z.reshape(-1)[part], yaw.reshape(-1)[part])[0]
            result[part] = ok.any(axis=1)
        return result.reshape(shape)

    def aims(self, pose: Pose) -> list[tuple[float, float, float]]:
        """(tilt, hit distance, angular error in degrees) of every tilt that works from a pose (worked out once per
        pose)."""
        key = (pose.x, pose.z, pose.yaw)
        found = self._aims.get(key)
        if found is None:
            found = self._aims[key] = self._find_aims(pose)
        return found

    def _find_aims(self, pose: Pose) -> list[tuple[float, float, float]]:
        cx, cz = self._cxz
        dx, dz = cx - pose.x, cz - pose.z
        if math.hypot(dx, dz) > self._horizontal:
            return []
        fx, fz = forward_xz(pose.yaw)
        lateral = abs(dx * fz - dz * fx)
        if lateral > self._radius + 0.02 or dx * fx + dz * fz < -self._radius:
            return []
        if self.max_lateral is not None and lateral > self.max_lateral:
            return []
        if self.avoid_bearings:
            bearing = math.degrees(math.atan2(-dx, -dz))
            if any(abs(angle_difference(bearing, b)) < self.bearing_tolerance for b in self.avoid_bearings):
                return []
        ok, t, dirs, origin = self._ray_test(np.array([pose.x]), np.array([pose.z]), np.array([pose.yaw]))
        ok, t, dirs, origin = ok[0], t[0], dirs[0], origin[0]
        result = []
        to_centre = self.box.center - origin
        to_centre = to_centre / max(np.linalg.norm(to_centre), 1e-9)
        for i in np.nonzero(ok)[0]:
            tilt = float(self.tilts[i])
            if aim_key(pose, tilt) in self.bad:
                continue
            err = math.degrees(math.acos(max(-1.0, min(1.0, float(dirs[i] @ to_centre)))))
            result.append((tilt, float(t[i]), err))
        return result

    def __call__(self, pose: Pose) -> bool:
        """Whether some tilt works from the pose."""
        return bool(self.aims(pose))

    def best_tilt(self, pose: Pose) -> float | None:
        """The working tilt whose ray passes closest to the box centre (None when none works)."""
        aims = self.aims(pose)
        if not aims:
            return None
        return min(aims, key=lambda a: (round(a[2], 6), a[0]))[0]

    sampled = True

    def prefilter(self, x, z, yaw) -> np.ndarray:
        """Close enough, and the heading's vertical plane passes through the box."""
        dx, dz = self._cxz[0] - np.asarray(x), self._cxz[1] - np.asarray(z)
        a = np.radians(np.asarray(yaw))
        fx, fz = np.sin(a), np.cos(a)
        lateral = np.abs(dx * fz - dz * fx)
        limit = self._radius + 0.02 if self.max_lateral is None else min(self._radius + 0.02, self.max_lateral)
        ok = (np.hypot(dx, dz) <= self._horizontal) & (lateral <= limit) & (dx * fx + dz * fz >= -self._radius)
        if self.avoid_bearings:
            bearing = np.degrees(np.arctan2(-dx, -dz))
            for b in self.avoid_bearings:
                diff = (bearing - b) % 360.0
                ok &= np.minimum(diff, 360.0 - diff) >= self.bearing_tolerance
        return ok

    def region(self, x, z) -> np.ndarray:
        """Positions close enough to the box (x-z)."""
        return np.hypot(np.asarray(x) - self._cxz[0], np.asarray(z) - self._cxz[1]) <= self._horizontal

    def heading_hint(self, pose: Pose) -> float:
        """Turns still needed to face the box."""
        dx, dz = self._cxz[0] - pose.x, self._cxz[1] - pose.z
        dist = math.hypot(dx, dz)
        if dist < 1e-9:
            return 0.0
        half = math.degrees(math.asin(min(1.0, self._radius / dist)))
        off = abs(angle_difference(pose.yaw, math.degrees(math.atan2(dx, dz)))) - half
        return max(0.0, math.ceil(off / ROTATE_DEGREES - 1e-9))


class DropGoal(Goal):
    """Poses from which a held object, released where it is held, lands beside a target footprint: the gap between
    their axis-aligned x-z footprints is within `gap`, and the landing spot is clear of other obstacles and walls.

    The held object turns with the performer, so its footprint is given as x-z corners relative to the camera in
    the performer's frame, (ahead, right) metres, measured from a step output while it is held (`held_corners`).
    """

    sampled = True

    def __init__(self, target: tuple[np.ndarray, np.ndarray], corners: np.ndarray, obstacles: Obstacles | None = None,
                 room: tuple[float, float] = (10.0, 10.0), gap: tuple[float, float] = (0.015, 0.07),
                 margin: float = 0.03, bad: Iterable[tuple] = (), key: Any = None):
        self.target = (np.asarray(target[0], float), np.asarray(target[1], float))
        self.bad = set(bad)
        self.corners = np.asarray(corners, float).reshape(-1, 2)
        self.obstacles = obstacles if obstacles is not None else Obstacles([])
        self.room = (float(room[0]), float(room[1]))
        self.gap = (float(gap[0]), float(gap[1]))
        self.margin = float(margin)
        centre = self.corners.mean(axis=0)
        self._centre = centre
        self._radius = float(np.max(np.hypot(*(self.corners - centre).T)))
        self.key = key if key is not None else ("drop", tuple(np.round(self.target[0], 3)),
                                                tuple(np.round(self.target[1], 3)), tuple(np.round(self.corners, 3).ravel()),
                                                len(self.bad))
        self._reach = float(math.hypot(*centre))

    @staticmethod
    def held_corners(held: ObjectMetadata, pose: Pose) -> np.ndarray:
        """A held object's x-z bounding-box corners relative to a pose, as (ahead, right) metres."""
        xz = Box.from_metadata(held).corners[:, [0, 2]] - np.array([pose.x, pose.z])
        fx, fz = forward_xz(pose.yaw)
        rx, rz = right_xz(pose.yaw)
        return np.stack([xz @ np.array([fx, fz]), xz @ np.array([rx, rz])], axis=1)

    def _world(self, x, z, yaw):
        a = np.radians(np.asarray(yaw, float))[..., None]
        ahead, right = self.corners[:, 0], self.corners[:, 1]
        wx = np.asarray(x, float)[..., None] + ahead * np.sin(a) + right * np.cos(a)
        wz = np.asarray(z, float)[..., None] + ahead * np.cos(a) - right * np.sin(a)
        return wx, wz

    def _gap(self, wx, wz):
        lo_t, hi_t = self.target
        dx = np.maximum(0.0, np.maximum(lo_t[0] - wx.max(axis=-1), wx.min(axis=-1) - hi_t[0]))
        dz = np.maximum(0.0, np.maximum(lo_t[1] - wz.max(axis=-1), wz.min(axis=-1) - hi_t[1]))
        return np.hypot(dx, dz)

    def landing(self, pose: Pose) -> np.ndarray:
        """Where the held object's footprint centre (x, z) lands when dropped from a pose."""
        wx, wz = self._world(pose.x, pose.z, pose.yaw)
        return np.array([(wx.min() + wx.max()) / 2.0, (wz.min() + wz.max()) / 2.0])

    def __call__(self, pose: Pose) -> bool:
        """Whether dropping from the pose puts the object beside the target, on clear floor."""
        if self.bad and aim_key(pose, 0.0) in self.bad:
            return False
        wx, wz = self._world(pose.x, pose.z, pose.yaw)
        gap = float(self._gap(wx, wz))
        if not self.gap[0] <= gap <= self.gap[1]:
            return False
        half_x, half_z = self.room[0] / 2.0 - self.margin, self.room[1] / 2.0 - self.margin
        if wx.min() < -half_x or wx.max() > half_x or wz.min() < -half_z or wz.max() > half_z:
            return False
        centre = np.array([[(wx.min() + wx.max()) / 2.0, (wz.min() + wz.max()) / 2.0]])
        return bool(self.obstacles.distance(centre)[0] >= self._radius + self.margin)

    def prefilter(self, x, z, yaw) -> np.ndarray:
        """The landing footprint's gap to the target is in range."""
        x, z, yaw = np.broadcast_arrays(np.asarray(x, float), np.asarray(z, float), np.asarray(yaw, float))
        gap = self._gap(*self._world(x, z, yaw))
        return (gap >= self.gap[0]) & (gap <= self.gap[1])

    def batch(self, x, z, yaw) -> np.ndarray:
        """`__call__` for many poses at once (failed drops in `bad` are not excluded)."""
        x, z, yaw = np.broadcast_arrays(np.asarray(x, float), np.asarray(z, float), np.asarray(yaw, float))
        shape = x.shape
        wx, wz = self._world(x.reshape(-1), z.reshape(-1), yaw.reshape(-1))
        gap = self._gap(wx, wz)
        half_x, half_z = self.room[0] / 2.0 - self.margin, self.room[1] / 2.0 - self.margin
        ok = (gap >= self.gap[0]) & (gap <= self.gap[1]) & (wx.min(axis=-1) >= -half_x) & \
            (wx.max(axis=-1) <= half_x) & (wz.min(axis=-1) >= -half_z) & (wz.max(axis=-1) <= half_z)
        idx = np.nonzero(ok)[0]
        if idx.size and len(self.obstacles):
            centres = np.stack([(wx[idx].min(axis=-1) + wx[idx].max(axis=-1)) / 2.0,
                                (wz[idx].min(axis=-1) + wz[idx].max(axis=-1)) / 2.0], axis=1)
            ok[idx] = self.obstacles.distance(centres) >= self._radius + self.margin
        return ok.reshape(shape)

    def region(self, x, z) -> np.ndarray:
        """Positions about one held-object offset away from the target."""
        d = NearGoal(self.target[0], self.target[1], 0.0).gap(x, z)
        spread = self._radius + self.gap[1] + 0.1
        return (d <= self._reach + spread) & (d >= self._reach - spread - 0.3)


class ClearDropGoal(DropGoal):
    """Poses from which a held object (one the performer should not hold) lands on clear floor, at least
    `min_distance` (x-z) from a point to keep clear (the real target), so that it is out of the way; `near` =
    (x, z, radius) limits where the performer looks for such poses."""

    def __init__(self, keep_clear: tuple[float, float], corners: np.ndarray, obstacles: Obstacles | None = None,
                 room: tuple[float, float] = (10.0, 10.0), min_distance: float = 0.8, margin: float = 0.05,
                 near: tuple[float, float, float] | None = None, key: Any = None):
        point = np.asarray(keep_clear, float)
        self.near = near
        super().__init__((point, point), corners, obstacles, room, gap=(float(min_distance), math.inf), margin=margin,
                         key=key if key is not None else ("clear drop", tuple(np.round(point, 3)),
                                                          tuple(np.round(np.asarray(corners, float), 3).ravel())))

    def region(self, x, z) -> np.ndarray:
        """Within `near` = (x, z, radius) when given, else anywhere."""
        if self.near is None:
            return np.ones(np.shape(x), dtype=bool)
        return np.hypot(np.asarray(x) - self.near[0], np.asarray(z) - self.near[1]) <= self.near[2]
