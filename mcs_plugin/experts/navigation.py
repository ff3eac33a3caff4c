"""The navigation graph: where the performer can stand and how MoveAhead / RotateLeft / RotateRight connect its
poses, built from oracle-tier StepMetadata only (so it works on the Unity backend too).

Discretisation (see docs/experts.md):

- A pose is (x, z, yaw): metres and degrees (MCS: yaw clockwise, forward = (sin yaw, cos yaw)).
- Nodes are keys (ix, iz, h): ix = round((x - x0) / grid), iz likewise, h = round((yaw - yaw0) / 10) mod 36, where
  (x0, z0, yaw0) is the anchor pose (the performer's pose when the graph was built). Each node stands for the one
  exact pose that reached it first: a search starts from an exact pose and applies the actions exactly (a move is
  0.1 m along the heading, a turn 10 degrees), so every planned action sequence is executable as planned, for any
  heading (not just the four axis headings). Two poses closer than the grid share a node (the usual hybrid-A*
  pruning), which is what keeps the graph finite.
- A position is free when the performer's disc (radius 0.25 m, plus a 1 cm clearance) stays inside the room and
  off every obstacle footprint: the x-z convex hull of the 8 `dimensions` corners of every non-held object and
  structure whose bottom is below the top of the performer's body (the ceiling is not an obstacle; small objects
  are), and the lava cells. MCS checks a move by its end position only, and so does the graph.
- Edges: MoveAhead (where its end is free) and RotateLeft / RotateRight, each of cost 1 (one action).

Searches are A* over this implicit graph with a heuristic from a geodesic distance field (8-connected, on the
grid) to the goal's x-z region; `NavigationGraph.graph` materialises the networkx graph of every node reachable
from the anchor (for inspection and tests: it is big in big rooms).
"""

from __future__ import annotations

import heapq
import math
from collections import OrderedDict, deque
from typing import TYPE_CHECKING, Any, Callable, Iterable, NamedTuple, Sequence

import numpy as np

from mcs_plugin.constants import CAMERA_FIELD_OF_VIEW as FIELD_OF_VIEW
from mcs_plugin.constants import MAX_RISE as STEP_RISE
from mcs_plugin.constants import MAX_TILT, MOVE_DISTANCE, PERFORMER_RADIUS, PERFORMER_REACH, ROTATE_DEGREES, SUPPORT_RADIUS
from mcs_plugin.constants import MOVE_DIRECTIONS as MOVE_STEPS
from mcs_plugin.constants import STANDING_CAMERA_HEIGHT as CAMERA_HEIGHT
from mcs_plugin.geometry import convex_hull

if TYPE_CHECKING:  # pragma: no cover
    import networkx as nx

    from mcs_plugin.mcs import ObjectMetadata, StepMetadata

HEADINGS = round(360 / ROTATE_DEGREES)
BODY_TOP = 1.5  # metres above the floor: objects entirely above this do not obstruct the performer (the embedded
# simulator's capsule floats 0.23 m up and reaches 1.46 m: occluder poles 1.35 m up stop it)
CLEARANCE = 0.01  # extra distance kept from obstacles beyond the performer radius
FINE_FACTOR = 4  # in a goal's cells, searches tell poses apart on a grid this many times finer
SAMPLE_SPACING = 0.034  # metres between the positions sampled to find where goal poses lie
PLAN_CACHE_SIZE = 256  # searches a graph remembers (oldest forgotten first)
DESCENT_NEAR = 2.0  # moves from a goal within which off-plan steps are searched, not read off the distance field
DEFAULT_ACTIONS = ("MoveAhead", "RotateLeft", "RotateRight")
AGENT_SHAPE = "agent"  # ObjectMetadata.shape of simulation agents
DOOR_SHAPE = "door"  # ObjectMetadata.shape of doors (door_4, door_4b)
SUPPORT_CONTACT = 0.05  # a structure stands on the floor (or on a lower structure's top) within this gap
OBJECT_RISE = 0.005  # an object whose top is this little above the surface the performer stands on is not in the way


class Pose(NamedTuple):
    """A performer pose on the floor: position (metres) and yaw (degrees, clockwise)."""

    x: float
    z: float
    yaw: float


def pose_of(output: StepMetadata) -> Pose:
    """The performer's pose in a step output (oracle tier: position and rotation present)."""
    if output.position is None or output.rotation is None:
        raise ValueError("the step output has no position/rotation (the expert needs the oracle metadata tier)")
    return Pose(float(output.position["x"]), float(output.position["z"]), float(output.rotation) % 360.0)


def forward_xz(yaw: float) -> tuple[float, float]:
    """Unit forward vector (x, z) of a yaw in degrees."""
    a = math.radians(yaw)
    return math.sin(a), math.cos(a)


def right_xz(yaw: float) -> tuple[float, float]:
    """Unit right vector (x, z) of a yaw in degrees."""
    a = math.radians(yaw)
    return math.cos(a), -math.sin(a)


def angle_difference(a: float, b: float) -> float:
    """Signed smallest difference a - b of two angles in degrees, in (-180, 180]."""
    d = (a - b) % 360.0
    return d - 360.0 if d > 180.0 else d


# -- geometry ---------------------------------------------------------------------------------------------------
_CORNER_SIGNS = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)], dtype=float)


class Box:
    """An oriented box (an object's bounding box in StepMetadata `dimensions`), in MCS coordinates (y up)."""

    def __init__(self, center: np.ndarray, axes: np.ndarray, half: np.ndarray):
        self.center = np.asarray(center, float)
        self.axes = np.asarray(axes, float)  # rows: unit axes
        self.half = np.maximum(np.asarray(half, float), 1e-6)
        self.corners = self.center + (_CORNER_SIGNS * self.half) @ self.axes

    @classmethod
    def from_corners(cls, corners: Sequence) -> Box:
        """The box spanned by 8 corner points (any order); an axis-aligned box when they do not form one."""
        pts = np.array([[c["x"], c["y"], c["z"]] if isinstance(c, dict) else list(c) for c in corners], float)
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
        key = tuple((c["x"], c["y"], c["z"]) if isinstance(c, dict) else tuple(c) for c in obj.dimensions)
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
        # plain-Python edges per polygon for scalar queries: (ax, az, abx, abz, len2)
        self._edges = [[(float(pa[0]), float(pa[1]), float(pb[0] - pa[0]), float(pb[1] - pa[1]),
                         max(float((pb[0] - pa[0]) ** 2 + (pb[1] - pa[1]) ** 2), 1e-18))
                        for pa, pb in zip(poly, np.roll(poly, -1, axis=0))] for poly in self.polygons]

    def __len__(self) -> int:
        return len(self.polygons)

    def distances(self, points: np.ndarray) -> np.ndarray:
        """Distance from each point (N, 2) to each polygon (N, P) (0 inside one)."""
        pts = np.asarray(points, float).reshape(-1, 2)
        out = np.empty((len(pts), len(self.polygons)))
        if not self.polygons:
            return out
        for lo in range(0, len(pts), 2048):  # bounded memory for big grids
            p = pts[lo : lo + 2048]
            ap = p[:, None, :] - self._a[None, :, :]
            t = np.clip((ap * self._ab[None]).sum(axis=2) / self._len2[None], 0.0, 1.0)
            closest = ap - t[:, :, None] * self._ab[None]
            seg = np.hypot(closest[:, :, 0], closest[:, :, 1])
            cross = self._ab[None, :, 0] * ap[:, :, 1] - self._ab[None, :, 1] * ap[:, :, 0]
            per_poly = np.minimum.reduceat(seg, self._starts, axis=1)
            # inside a counter-clockwise polygon: on the left of every edge (a point or segment has no inside)
            inside = np.logical_and.reduceat(cross >= 0.0, self._starts, axis=1) & (self._sizes >= 3)[None]
            out[lo : lo + 2048] = np.where(inside, 0.0, per_poly)
        return out

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


def start_key(output: StepMetadata, obstacles: Iterable[tuple[str, np.ndarray]]) -> tuple:
    """What a graph built from a step output depends on: the room, the obstacles' corners (id, array) to the
    millimetre, the performer's pose (the lattice's anchor) and camera height, lava and holes."""
    pose = pose_of(output)
    return (tuple(sorted((output.room_dimensions or {}).items())),
            tuple(sorted((i, np.round(c, 3).tobytes()) for i, c in obstacles)),
            round(pose.x, 4), round(pose.z, 4), round(pose.yaw, 2), round(float(output.position.get("y", 0.0)), 3),
            tuple(sorted(map(tuple, output.lava or []))), tuple(sorted(map(tuple, output.holes or []))))


class SharedCache:
    """A bounded least-recently-used map of what a process's samplers would otherwise rebuild at every start of the
    same scene (graphs, distance fields)."""

    def __init__(self, size: int):
        self.size = size
        self._items: OrderedDict[tuple, Any] = OrderedDict()

    def get(self, key: tuple, build: Callable[[], Any]) -> Any:
        """The value kept for `key`, made by `build()` the first time."""
        value = self._items.get(key)
        if value is None:
            value = build()
            self._items[key] = value
            if len(self._items) > self.size:
                self._items.popitem(last=False)
        else:
            self._items.move_to_end(key)
        return value


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


# -- goals ------------------------------------------------------------------------------------------------------
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


# -- the graph --------------------------------------------------------------------------------------------------
class NavigationGraph:
    """Free space of one room and the performer's move lattice through an anchor pose (see the module doc)."""

    def __init__(self, room: tuple[float, float], obstacles: Sequence[np.ndarray], anchor: Pose,
                 performer_radius: float = PERFORMER_RADIUS, grid: float = MOVE_DISTANCE, clearance: float = CLEARANCE,
                 actions: Sequence[str] = DEFAULT_ACTIONS, camera_height: float = CAMERA_HEIGHT,
                 obstacle_ids: Sequence[str] | None = None, extents: Sequence[tuple[float, float, str]] | None = None,
                 standing: float = 0.0):
        self.room = (float(room[0]), float(room[1]))
        self.anchor = Pose(float(anchor.x), float(anchor.z), float(anchor.yaw) % 360.0)
        self.radius = float(performer_radius)
        self.grid = float(grid)
        self.clearance = float(clearance)
        self.actions = tuple(actions)
        self.camera_height = float(camera_height)
        self.obstacles = Obstacles(obstacles)
        self.obstacle_ids = list(obstacle_ids) if obstacle_ids is not None else [""] * len(self.obstacles)
        self._limit = (self.room[0] / 2 - self.radius - self.clearance, self.room[1] / 2 - self.radius - self.clearance)
        ax, az = self.anchor.x, self.anchor.z
        i0, i1 = math.floor((-self.room[0] / 2 - ax) / self.grid), math.ceil((self.room[0] / 2 - ax) / self.grid)
        j0, j1 = math.floor((-self.room[1] / 2 - az) / self.grid), math.ceil((self.room[1] / 2 - az) / self.grid)
        self._i0, self._j0 = i0, j0
        self.xs = ax + self.grid * np.arange(i0, i1 + 1)
        self.zs = az + self.grid * np.arange(j0, j1 + 1)
        gx, gz = np.meshgrid(self.xs, self.zs)
        self._cell_points = np.stack([gx.ravel(), gz.ravel()], axis=1)
        self._init_levels(extents, standing)
        per_polygon = self.obstacles.distances(self._cell_points)
        # clearance of each cell's centre at each level (only the polygons in the way at that level count)
        self._level_clearance = np.stack([
            (np.where(block[None, :], per_polygon, np.inf).min(axis=1) if len(self.obstacles) else
             np.full(len(self._cell_points), np.inf)).reshape(gx.shape) for block in self._blocks])
        self._cell_level = self.level_index(gx, gz)
        self._cell_clearance = np.take_along_axis(self._level_clearance, self._cell_level[None], axis=0)[0]
        # polygons that may matter for a point of each cell (for exact checks near obstacles)
        near = self.radius + self.clearance + self.grid * 0.7072 + 1e-6
        self._near_polygons = per_polygon.reshape(gx.shape + (len(self.obstacles),)) <= near
        inside = (np.abs(gx) <= self._limit[0]) & (np.abs(gz) <= self._limit[1])
        #: cells (rows = z, columns = x) whose centre is a free performer position (at its own level)
        self.free = inside & (self._cell_clearance >= self.radius + self.clearance)
        # Cells near some free position (for the heuristic field: every free point's nearest cell is here), and
        # the band the performer crosses when it steps off a platform (free at the level of a higher cell nearby).
        slack = self.grid * math.sqrt(0.5) + 1e-6
        inside_relaxed = (np.abs(gx) <= self._limit[0] + slack) & (np.abs(gz) <= self._limit[1] + slack)
        need = self.radius + self.clearance - slack
        self._relaxed = inside_relaxed & (self._cell_clearance >= need)
        if len(self.levels) > 1:
            from scipy.ndimage import maximum_filter

            span = 2 * int(math.ceil((self.radius + self.clearance) / self.grid)) + 1
            above = maximum_filter(self._cell_level, size=span, mode="nearest")
            band = np.take_along_axis(self._level_clearance, above[None], axis=0)[0] >= need
            self._relaxed |= inside_relaxed & band
        self._move_vectors = {}
        self._graph = None
        self._field_cache: dict[Any, np.ndarray] = {}
        self._cells_csr = None  # the cells' graph for distance fields (scipy sparse), built on first use
        self._plans: dict[tuple, list | None] = {}

    @classmethod
    def from_metadata(cls, output: StepMetadata, performer_radius: float = PERFORMER_RADIUS, grid: float = MOVE_DISTANCE,
                      clearance: float = CLEARANCE, ignore: Iterable[str] = (), actions: Sequence[str] = DEFAULT_ACTIONS,
                      extra_obstacles: Iterable[np.ndarray] = ()) -> NavigationGraph:
        """The graph of a step output (oracle tier), anchored at the performer's pose.

        Obstacles: every non-held object and structure in the output whose bottom is below the performer's body
        top (`ignore` lists ids to leave out), lava cells, and `extra_obstacles` (x-z polygons).
        """
        pose = pose_of(output)
        room = output.room_dimensions or {"x": 10.0, "z": 10.0}
        camera_y = float(output.position.get("y", CAMERA_HEIGHT))
        boxes = obstacle_boxes(output, ignore, floor_y=camera_y - CAMERA_HEIGHT)
        polygons = [box.footprint() for _, box in boxes]
        ids = [object_id for object_id, _ in boxes]
        structures = {obj.uuid for obj in output.structural_object_list}
        extents = [(box.bottom, box.top, "structure" if object_id in structures else "object")
                   for object_id, box in boxes]
        for cell in output.lava or []:
            x0, z0, x1, z1 = (float(v) for v in cell)
            # lava counts when the performer's centre is over it: keep the centre out of the cell (and 5 cm more), at
            # its corners too: the cell shrinks only so far that its footprint grown by the radius still covers them
            grow = -(performer_radius + clearance - 0.05) / math.sqrt(2.0)
            polygons.append(np.array([[x0 - grow, z0 - grow], [x1 + grow, z0 - grow], [x1 + grow, z1 + grow],
                                      [x0 - grow, z1 + grow]]))
            ids.append("lava")
            extents.append((0.0, 0.0, "floor"))
        for hole in output.holes or []:
            hx, hz = float(hole[0]), float(hole[1])
            polygons.append(np.array([[hx - 0.5, hz - 0.5], [hx + 0.5, hz - 0.5], [hx + 0.5, hz + 0.5], [hx - 0.5, hz + 0.5]]))
            ids.append("hole")
            extents.append((0.0, 0.0, "floor"))
        for polygon in extra_obstacles:
            polygons.append(np.asarray(polygon, float))
            ids.append("extra")
            extents.append((0.0, 0.0, "always"))
        return cls((float(room["x"]), float(room["z"])), polygons, pose, performer_radius=performer_radius, grid=grid,
                   clearance=clearance, actions=actions, camera_height=camera_y, obstacle_ids=ids, extents=extents,
                   standing=camera_y - CAMERA_HEIGHT)

    # -- levels -------------------------------------------------------------------------------------------------
    def _init_levels(self, extents: Sequence[tuple[float, float, str]] | None, standing: float) -> None:
        """Surfaces the performer can stand on and what is in its way on each.

        Surfaces are the tops of structures no higher than a step above the one it stands on (`standing`): moves
        climb no more than that, so higher tops (walls, lips, platforms seen from the floor) cannot be reached.

        `extents` gives each polygon's (bottom, top, kind): `structure` (platforms, ramps, walls: their tops are
        surfaces; in the way where they rise more than a step above the surface stood on), `object` (in the way
        where it rises above that surface and starts below the body's top), `floor` (lava, holes: in the way on
        the floor only), `always`. None: every polygon is in the way everywhere and the floor is flat."""
        count = len(self.obstacles)
        extents = list(extents) if extents is not None else [(0.0, 0.0, "always")] * count
        # structures resting on the floor, or on the top of one that does (stacked platforms, lips), are surfaces
        supports: list[int] = []
        tops = [0.0]
        changed = True
        while changed:
            changed = False
            for i, (bottom, top, kind) in enumerate(extents):
                if kind == "structure" and i not in supports and STEP_RISE < top <= standing + STEP_RISE and \
                        any(abs(bottom - t) <= SUPPORT_CONTACT for t in tops):
                    supports.append(i)
                    tops.append(top)
                    changed = True
        self._supports = Obstacles([self.obstacles.polygons[i] for i in supports])
        self._support_tops = np.array([extents[i][1] for i in supports], float)
        #: heights of the surfaces the performer can stand on (0 = the floor), ascending
        self.levels = np.array(sorted({0.0} | {round(float(t), 4) for t in self._support_tops}), float)
        blocks = []
        for level in self.levels:
            block = np.zeros(count, bool)
            for i, (bottom, top, kind) in enumerate(extents):
                if kind == "always":
                    block[i] = True
                elif kind == "floor":
                    block[i] = level < STEP_RISE
                else:
                    rise = STEP_RISE if kind == "structure" else OBJECT_RISE
                    block[i] = bottom < level + BODY_TOP and top > level + rise
            blocks.append(block)
        self._blocks = blocks
        self._hazards = [i for i, (_, _, kind) in enumerate(extents) if kind == "floor"]  # lava, holes

    def floor_at(self, x, z) -> np.ndarray:
        """Height of the surface the performer stands on at x-z positions (vectorised; 0 = the floor)."""
        x, z = np.broadcast_arrays(np.asarray(x, float), np.asarray(z, float))
        if not len(self._supports):
            return np.zeros(x.shape)
        if x.size == 1:  # one pose (aims are checked one by one): plain Python is faster than the vectorised query
            px, pz = float(x.ravel()[0]), float(z.ravel()[0])
            tops = [top for i, top in enumerate(self._support_tops)
                    if self._supports.distance_to(px, pz, (i,)) <= SUPPORT_RADIUS]
            return np.full(x.shape, max(tops, default=0.0))
        inside = self._supports.distances(np.stack([x.ravel(), z.ravel()], axis=1)) <= SUPPORT_RADIUS
        return np.where(inside, self._support_tops[None, :], 0.0).max(axis=1).reshape(x.shape)

    def level_index(self, x, z) -> np.ndarray:
        """Index into `levels` of the surface at x-z positions."""
        height = self.floor_at(x, z)
        return np.abs(height[..., None] - self.levels).argmin(axis=-1)

    def _level_of(self, x: float, z: float) -> int:
        if len(self.levels) == 1:
            return 0
        return int(self.level_index(np.array([x]), np.array([z]))[0])

    # -- free space ---------------------------------------------------------------------------------------------
    def clearance_at(self, x: float, z: float, level: int | None = None) -> float:
        """Distance from a point to the nearest obstacle footprint in the way at a level (default: the point's)."""
        block = self._blocks[self._level_of(x, z) if level is None else level]
        indices = np.nonzero(block)[0].tolist()
        return self.obstacles.distance_to(x, z, indices) if indices else math.inf

    def is_free(self, x: float, z: float, level: int | None = None) -> bool:
        """Whether the performer can stand at (x, z) (inside the room, off every inflated footprint in the way on
        the surface of `level`, an index into `levels`; default: the surface at (x, z))."""
        if abs(x) > self._limit[0] + 1e-9 or abs(z) > self._limit[1] + 1e-9:
            return False
        if level is None:
            level = self._level_of(x, z)
        cell = self._cell(x, z)
        need = self.radius + self.clearance - 1e-9
        if cell is None:
            return self.clearance_at(x, z, level) >= need
        c = self._level_clearance[level][cell]
        slack = self.grid * 0.7072
        if c - slack >= need:  # every point of this cell is free (the clearance is 1-Lipschitz)
            return True
        if c + slack < need:
            return False
        indices = np.nonzero(self._near_polygons[cell] & self._blocks[level])[0].tolist()
        return self.obstacles.distance_to(x, z, indices) >= need

    def move_end(self, x: float, z: float, nx: float, nz: float) -> tuple[float, float] | None:
        """Where a move from (x, z) toward (nx, nz) ends, or None when it is blocked. The body must be clear at the
        start's surface; stepping off a platform, the performer drops to the surface below and is pushed out of
        the platform's side (as MCS does), which this models along the clearance gradient."""
        if len(self.levels) == 1:
            return (nx, nz) if self.is_free(nx, nz, 0) else None
        start = self._level_of(x, z)
        if not self.is_free(nx, nz, start):
            return None
        end = self._level_of(nx, nz)
        if self.levels[end] > self.levels[start] + STEP_RISE:
            return None
        if self.is_free(nx, nz, end):
            return nx, nz
        if self.levels[end] > self.levels[start] - STEP_RISE:
            return None
        need = self.radius + self.clearance
        if self._hazards and self.obstacles.distance_to(nx, nz, self._hazards) < need:
            return None  # the performer would drop onto lava or into a hole (only structures push it aside)
        px, pz = nx, nz
        for _ in range(3):  # the fall: push the body out of what is in the way at the lower surface
            d = self.clearance_at(px, pz, end)
            eps = 0.005
            gx = (self.clearance_at(px + eps, pz, end) - self.clearance_at(px - eps, pz, end)) / (2 * eps)
            gz = (self.clearance_at(px, pz + eps, end) - self.clearance_at(px, pz - eps, end)) / (2 * eps)
            norm = math.hypot(gx, gz)
            if norm < 1e-6:
                return None
            px, pz = px + gx / norm * (need - d + 1e-3), pz + gz / norm * (need - d + 1e-3)
            if self._level_of(px, pz) != end:
                return None
            if self.is_free(px, pz, end):
                return px, pz
        return None

    def _cell(self, x: float, z: float) -> tuple[int, int] | None:
        col = int(round((x - self.anchor.x) / self.grid)) - self._i0
        row = int(round((z - self.anchor.z) / self.grid)) - self._j0
        if 0 <= row < self.free.shape[0] and 0 <= col < self.free.shape[1]:
            return row, col
        return None

    # -- lattice ------------------------------------------------------------------------------------------------
    def node(self, pose: Pose) -> tuple[int, int, int]:
        """The node key (ix, iz, heading) of a pose."""
        ix = int(round((pose.x - self.anchor.x) / self.grid))
        iz = int(round((pose.z - self.anchor.z) / self.grid))
        h = int(round(angle_difference(pose.yaw, self.anchor.yaw) / ROTATE_DEGREES)) % HEADINGS
        return ix, iz, h

    def successors(self, pose: Pose, actions: Sequence[str] | None = None) -> list[tuple[str, Pose]]:
        """The exact poses one action away (moves only where their end is free)."""
        result = []
        for action in actions or self.actions:
            if action == "RotateLeft":
                result.append((action, Pose(pose.x, pose.z, (pose.yaw - ROTATE_DEGREES) % 360.0)))
            elif action == "RotateRight":
                result.append((action, Pose(pose.x, pose.z, (pose.yaw + ROTATE_DEGREES) % 360.0)))
            elif action in MOVE_STEPS:
                ahead, right = MOVE_STEPS[action]
                fx, fz = forward_xz(pose.yaw)
                rx, rz = right_xz(pose.yaw)
                x = pose.x + MOVE_DISTANCE * (ahead * fx + right * rx)
                z = pose.z + MOVE_DISTANCE * (ahead * fz + right * rz)
                end = self.move_end(pose.x, pose.z, x, z)
                if end is not None:
                    result.append((action, Pose(end[0], end[1], pose.yaw)))
        return result

    def escape_action(self, pose: Pose, blocked_yaws: Iterable[float] = ()) -> str | None:
        """From a pose that is not free (an object came to rest against the performer): the first action toward
        the heading whose MoveAhead most increases the clearance (headings in `blocked_yaws` were OBSTRUCTED);
        None when no move helps."""
        blocked = {int(round(y)) % 360 for y in blocked_yaws}
        here = self.clearance_at(pose.x, pose.z)
        best = None
        for k in range(HEADINGS):
            turn = k if k <= HEADINGS // 2 else k - HEADINGS  # + = right
            yaw = (pose.yaw + ROTATE_DEGREES * turn) % 360.0
            fx, fz = forward_xz(yaw)
            x, z = pose.x + MOVE_DISTANCE * fx, pose.z + MOVE_DISTANCE * fz
            if abs(x) > self._limit[0] or abs(z) > self._limit[1]:
                continue
            if int(round(yaw)) % 360 in blocked:
                continue
            gain = self.clearance_at(x, z) - here
            if gain > 1e-6:
                score = (-round(gain, 3), abs(turn), turn)
                if best is None or score < best[0]:
                    best = (score, turn)
        if best is None:
            return None
        turn = best[1]
        return "MoveAhead" if turn == 0 else ("RotateRight" if turn > 0 else "RotateLeft")

    def descent_action(self, pose: Pose, goal: Goal, blocked_yaws: Iterable[float] = (),
                       near: float = DESCENT_NEAR) -> str | None:
        """One cheap step toward a goal without a search: the first action (MoveAhead or a turn toward it) of the
        heading whose MoveAhead lands lowest on the goal's distance field, turns counted as moves.

        None within `near` moves of the goal (where aims need an exact search) or when no free MoveAhead gets
        closer; headings in `blocked_yaws` were OBSTRUCTED from this pose."""
        field = self.goal_field(goal)
        here = self.heuristic(field, pose.x, pose.z)
        if not math.isfinite(here) or here <= near:
            return None
        blocked = {int(round(y)) % 360 for y in blocked_yaws}
        best: tuple[float, int] | None = None
        for k in range(HEADINGS):
            turn = k if k <= HEADINGS // 2 else k - HEADINGS  # + = right
            yaw = (pose.yaw + ROTATE_DEGREES * turn) % 360.0
            if int(round(yaw)) % 360 in blocked:
                continue
            fx, fz = forward_xz(yaw)
            x, z = pose.x + MOVE_DISTANCE * fx, pose.z + MOVE_DISTANCE * fz
            value = self.heuristic(field, x, z)
            if value >= here or self.move_end(pose.x, pose.z, x, z) is None:
                continue
            cost = abs(turn) + value
            if best is None or cost < best[0]:
                best = (cost, turn)
        if best is None:
            return None
        return "MoveAhead" if best[1] == 0 else ("RotateRight" if best[1] > 0 else "RotateLeft")

    # -- heuristic ----------------------------------------------------------------------------------------------
    def distance_field(self, region: np.ndarray) -> np.ndarray:
        """Geodesic distance in moves (8-connected over the cells) from every cell to a region of cells.

        `region` is a boolean array shaped like `free`; cells off the free space (relaxed by half a cell diagonal,
        so that every free position's nearest cell is included) are never entered; unreachable cells are inf.
        """
        from scipy.sparse.csgraph import dijkstra

        sources = np.flatnonzero(region & self._relaxed)
        if len(sources) == 0:
            return np.full(self._relaxed.shape, np.inf)
        dist = dijkstra(self._cell_graph(), directed=False, indices=sources, min_only=True)
        return dist.reshape(self._relaxed.shape)

    def _cell_graph(self):
        """The 8-connected graph of the passable cells (sparse, edge weights in moves), built once."""
        if self._cells_csr is None:
            from scipy.sparse import coo_matrix

            passable = self._relaxed
            rows, cols = passable.shape
            index = np.arange(rows * cols).reshape(rows, cols)
            step = self.grid / MOVE_DISTANCE
            heads, tails, weights = [], [], []
            for (dr, dc), cost in (((0, 1), step), ((1, 0), step), ((1, 1), step * math.sqrt(2.0)),
                                   ((1, -1), step * math.sqrt(2.0))):
                a = (slice(0, rows - dr), slice(max(0, -dc), cols - max(0, dc)))
                b = (slice(dr, rows), slice(max(0, dc), cols - max(0, -dc)))
                both = passable[a] & passable[b]
                heads.append(index[a][both])
                tails.append(index[b][both])
                weights.append(np.full(int(both.sum()), cost))
            self._cells_csr = coo_matrix((np.concatenate(weights), (np.concatenate(heads), np.concatenate(tails))),
                                         shape=(rows * cols, rows * cols)).tocsr()
        return self._cells_csr

    def goal_cells(self, goal: Goal) -> np.ndarray:
        """Cells (shaped like `free`) where goal poses may lie: the goal's region near free space; for a sampled
        goal (`goal.sampled`), only cells where some sampled pose (positions about 3.4 cm apart, then 1.7 cm if
        none is found; all 36 headings) is a goal pose. Cached per goal key."""
        key = ("cells", goal.key if goal.key is not None else id(goal))
        cells = self._field_cache.get(key)
        if cells is None:
            gx, gz = np.meshgrid(self.xs, self.zs)
            cells = np.asarray(goal.region(gx, gz), bool) & self._relaxed
            if getattr(goal, "sampled", False):
                cells = self._sample_cells(goal, cells)
            self._cache(key, cells)
        return cells

    def feasible(self, goal: Goal) -> bool:
        """Whether any goal pose was found near free space (see `goal_cells`)."""
        return bool(self.goal_cells(goal).any())

    def _sample_cells(self, goal: Goal, cells: np.ndarray) -> np.ndarray:
        result = self._sample_cells_at(goal, cells, self._fractions(SAMPLE_SPACING))
        if not result.any():  # narrow bands: look closer
            result = self._sample_cells_at(goal, cells, self._fractions(SAMPLE_SPACING / 2.0))
        return result

    def _fractions(self, spacing: float) -> np.ndarray:
        """Offsets (in cells) of sample points about `spacing` apart across a cell."""
        n = max(1, int(round(self.grid / spacing)))
        return (np.arange(n) + 0.5) / n - 0.5

    def _sample_cells_at(self, goal: Goal, cells: np.ndarray, fractions: np.ndarray) -> np.ndarray:
        rows, cols = np.nonzero(cells)
        result = np.zeros_like(cells)
        if rows.size == 0:
            return result
        offsets = fractions * self.grid
        ox, oz = np.meshgrid(offsets, offsets)
        px = (self.xs[cols][:, None] + ox.ravel()[None]).ravel()
        pz = (self.zs[rows][:, None] + oz.ravel()[None]).ravel()
        owner = np.repeat(np.arange(rows.size), ox.size)
        inside = (np.abs(px) <= self._limit[0]) & (np.abs(pz) <= self._limit[1])
        free = inside & (self.free_clearance(px, pz) >= self.radius + self.clearance)
        yaws = (self.anchor.yaw + ROTATE_DEGREES * np.arange(HEADINGS)) % 360.0
        candidates = goal.prefilter(px[:, None], pz[:, None], yaws[None, :]) & free[:, None]
        batch = getattr(goal, "batch", None)
        if batch is not None and candidates.any():
            p_idx, h_idx = np.nonzero(candidates)
            candidates[p_idx, h_idx] = batch(px[p_idx], pz[p_idx], yaws[h_idx])
        done = np.zeros(rows.size, dtype=bool)
        if batch is not None and not getattr(goal, "bad", None):
            # the batch test is the goal itself when no failed aims are to be left out
            done[np.unique(owner[np.nonzero(candidates.any(axis=1))[0]])] = True
            result[rows[done], cols[done]] = True
            return result
        for p, h in zip(*np.nonzero(candidates)):
            cell = owner[p]
            if done[cell]:
                continue
            if goal(Pose(float(px[p]), float(pz[p]), float(yaws[h]))):
                done[cell] = True
        result[rows[done], cols[done]] = True
        return result

    def free_clearance(self, x: np.ndarray, z: np.ndarray) -> np.ndarray:
        """Clearance of x-z points (vectorised) from what is in the way on the surface each stands on."""
        points = np.stack([np.asarray(x, float).ravel(), np.asarray(z, float).ravel()], axis=1)
        if not len(self.obstacles):
            return np.full(len(points), np.inf)
        distances = self.obstacles.distances(points)
        block = np.stack(self._blocks)[self.level_index(points[:, 0], points[:, 1])]
        return np.where(block, distances, np.inf).min(axis=1)

    def _cache(self, key: Any, value: np.ndarray) -> None:
        if len(self._field_cache) > 32:
            self._field_cache.clear()
        self._field_cache[key] = value

    def goal_field(self, goal: Goal) -> np.ndarray:
        """The distance field to a goal's cells (cached per goal key)."""
        key = ("field", goal.key if goal.key is not None else id(goal))
        field = self._field_cache.get(key)
        if field is None:
            region = self.goal_cells(goal)
            # grow by one cell: goal poses near a cell border belong to the neighbouring cell
            grown = region.copy()
            grown[1:, :] |= region[:-1, :]
            grown[:-1, :] |= region[1:, :]
            grown[:, 1:] |= region[:, :-1]
            grown[:, :-1] |= region[:, 1:]
            field = self.distance_field(grown)
            self._cache(key, field)
        return field

    def heuristic(self, field: np.ndarray, x: float, z: float) -> float:
        """The field's value at a position (its nearest cell)."""
        cell = self._cell(x, z)
        return math.inf if cell is None else float(field[cell])

    # -- search -------------------------------------------------------------------------------------------------
    def plan(self, start: Pose, goal: Goal | Callable[[Pose], bool], blocked: Iterable[tuple] = (),
             max_expansions: int = 150_000, weight: float = 1.0) -> list[tuple[str, Pose]] | None:
        """Shortest action sequence [(action, pose after it)] from `start` to a goal pose; [] at a goal; None if
        none is found. `blocked` holds (node, action) pairs known to fail (an OBSTRUCTED move).

        Results are remembered per (start, goal key, blocked): the same episode start searches once."""
        if not isinstance(goal, Goal):
            goal = PredicateGoal(goal)
        start = Pose(float(start.x), float(start.z), float(start.yaw) % 360.0)
        blocked = frozenset(blocked)
        if goal.key is None:
            return self._search(start, goal, blocked, max_expansions, weight)
        key = (round(start.x, 4), round(start.z, 4), round(start.yaw, 2), goal.key, blocked, max_expansions, weight)
        if key not in self._plans:
            if len(self._plans) >= PLAN_CACHE_SIZE:
                self._plans.pop(next(iter(self._plans)))
            self._plans[key] = self._search(start, goal, blocked, max_expansions, weight)
        path = self._plans[key]
        return None if path is None else list(path)

    def _search(self, start: Pose, goal: Goal, blocked: frozenset, max_expansions: int,
                weight: float) -> list[tuple[str, Pose]] | None:
        """The A* search of `plan` (weighted by `weight`, at most `max_expansions` nodes)."""
        if goal(start):
            return []
        field = self.goal_field(goal)
        if not field[np.isfinite(field)].size:
            return None
        h0 = self.heuristic(field, start.x, start.z)
        if not math.isfinite(h0):
            h0 = 0.0  # the start is off the free space (something came to rest against the performer): turns are
            # still possible there, and moves to free space
        blocked = {(k[:3], a) for k, a in blocked}
        ax, az, ayaw, grid = self.anchor.x, self.anchor.z, self.anchor.yaw, self.grid
        i0, j0 = self._i0, self._j0
        rows, cols = field.shape
        moves = [(a, MOVE_STEPS[a]) for a in self.actions if a in MOVE_STEPS]
        turns = [(a, -ROTATE_DEGREES if a == "RotateLeft" else ROTATE_DEGREES)
                 for a in self.actions if a in ("RotateLeft", "RotateRight")]
        trig: dict[float, tuple[float, float, float, float]] = {}
        is_free = self.is_free
        move_end = self.move_end
        flat = len(self.levels) == 1  # one surface: a move ends where it aims, if that is free (checked below)
        hint = goal.heading_hint

        fine = grid / FINE_FACTOR

        def key_of(x: float, z: float, yaw: float) -> tuple:
            # poses in the goal's cells are told apart on a finer grid: goal poses may lie in narrow bands
            h = int(round(((yaw - ayaw) % 360.0) / ROTATE_DEGREES)) % HEADINGS
            ix, iz = int(round((x - ax) / grid)), int(round((z - az) / grid))
            col, row = ix - i0, iz - j0
            if 0 <= row < rows and 0 <= col < cols and field[row, col] == 0.0:
                return ix, iz, h, int(round((x - ax) / fine)), int(round((z - az) / fine))
            return ix, iz, h

        start_key = key_of(*start)
        best_g = {start_key: 0}
        poses = {start_key: start}
        parents: dict[tuple, tuple] = {}
        closed: set = set()
        counter = 0
        heap = [(weight * h0, 0, counter, start_key)]
        expansions = 0
        while heap:
            _, neg_g, _, key = heapq.heappop(heap)
            g = -neg_g
            if key in closed or g > best_g.get(key, math.inf):
                continue
            pose = poses[key]
            if g > 0 and goal(pose):
                return self._path(parents, poses, key)
            closed.add(key)
            expansions += 1
            if expansions > max_expansions:
                return None
            x, z, yaw = pose
            successors = []
            for action, delta in turns:
                successors.append((action, x, z, (yaw + delta) % 360.0))
            if moves:
                t = trig.get(yaw)
                if t is None:
                    a = math.radians(yaw)
                    t = trig[yaw] = (math.sin(a), math.cos(a), math.cos(a), -math.sin(a))
                fx, fz, rx, rz = t
                for action, (ahead, right) in moves:
                    nx = x + MOVE_DISTANCE * (ahead * fx + right * rx)
                    nz = z + MOVE_DISTANCE * (ahead * fz + right * rz)
                    if not flat:
                        end = move_end(x, z, nx, nz)
                        if end is None:
                            continue
                        nx, nz = end
                    successors.append((action, nx, nz, yaw))
            ng = g + 1
            for action, nx, nz, nyaw in successors:
                if (key[:3], action) in blocked:
                    continue
                nkey = key_of(nx, nz, nyaw)
                if nkey == key or nkey in closed:
                    continue
                known = best_g.get(nkey, math.inf)
                if ng > known:
                    continue
                if ng == known:
                    # a tie: keep the pose nearer its node's centre (poses stay on the lattice, paths straight)
                    old = poses[nkey]
                    size = grid if len(nkey) == 3 else fine
                    cx, cz = ax + nkey[-2] * size, az + nkey[-1] * size
                    if (nx - cx) ** 2 + (nz - cz) ** 2 + 1e-12 < (old.x - cx) ** 2 + (old.z - cz) ** 2 \
                            and (nyaw != yaw or not flat or is_free(nx, nz)):
                        poses[nkey] = Pose(nx, nz, nyaw)
                        parents[nkey] = (key, action)
                    continue
                col, row = nkey[0] - i0, nkey[1] - j0
                if not (0 <= row < rows and 0 <= col < cols):
                    continue
                h = field[row, col]
                if h == math.inf:
                    if nyaw == yaw:
                        continue
                    h = 0.0  # turning on the spot off the free space
                if flat and nyaw == yaw and not is_free(nx, nz):
                    continue
                npose = Pose(nx, nz, nyaw)
                if h == 0.0:
                    h = hint(npose)
                best_g[nkey] = ng
                poses[nkey] = npose
                parents[nkey] = (key, action)
                counter += 1
                heapq.heappush(heap, (ng + weight * h, -ng, counter, nkey))
        return None

    @staticmethod
    def _path(parents: dict, poses: dict, key: tuple) -> list[tuple[str, Pose]]:
        path = []
        while key in parents:
            parent, action = parents[key]
            path.append((action, poses[key]))
            key = parent
        path.reverse()
        return path

    def shortest_path_length(self, start_pose: Pose, goal_predicate: Goal | Callable[[Pose], bool],
                             max_expansions: int = 300_000) -> int | None:
        """The number of actions (moves and turns) of a shortest path from a pose to a goal pose; None if none."""
        path = self.plan(start_pose, goal_predicate, max_expansions=max_expansions)
        return None if path is None else len(path)

    # -- networkx -----------------------------------------------------------------------------------------------
    @property
    def graph(self) -> nx.DiGraph:
        """The networkx graph of every node reachable from the anchor (built on first use; big in big rooms).

        Nodes are (ix, iz, heading) keys with attribute `pose` (the exact pose that reached the node first, in
        breadth-first order); edges carry `action` and `cost` (1).
        """
        if self._graph is None:
            self._graph = self.to_networkx()
        return self._graph

    def to_networkx(self, max_nodes: int = 2_000_000) -> nx.DiGraph:
        """Build the networkx graph by breadth-first expansion from the anchor."""
        import networkx as nx

        graph = nx.DiGraph()
        start_key = self.node(self.anchor)
        poses = {start_key: self.anchor}
        graph.add_node(start_key, pose=self.anchor)
        queue = deque([start_key])
        while queue and graph.number_of_nodes() < max_nodes:
            key = queue.popleft()
            for action, nxt in self.successors(poses[key]):
                nkey = self.node(nxt)
                if nkey == key:
                    continue
                if nkey not in poses:
                    poses[nkey] = nxt
                    graph.add_node(nkey, pose=nxt)
                    queue.append(nkey)
                graph.add_edge(key, nkey, action=action, cost=1)
        return graph


def graph_distance_to(graph: nx.DiGraph, source: tuple, predicate: Callable[[Pose], bool]) -> int | None:
    """Breadth-first number of edges in a networkx navigation graph from a node to the nearest node whose pose
    satisfies `predicate` (a check of `NavigationGraph.shortest_path_length` on the materialised graph)."""
    if source not in graph:
        return None
    seen = {source}
    queue = deque([(source, 0)])
    while queue:
        node, depth = queue.popleft()
        if predicate(graph.nodes[node]["pose"]):
            return depth
        for nxt in graph.successors(node):
            if nxt not in seen:
                seen.add(nxt)
                queue.append((nxt, depth + 1))
    return None


# -- interaction goals ------------------------------------------------------------------------------------------
def achievable_tilts(current: float) -> np.ndarray:
    """Head tilts reachable from `current` with LookUp / LookDown (10 degree steps, within +-90)."""
    low = current - ROTATE_DEGREES * math.floor((current + MAX_TILT) / ROTATE_DEGREES + 1e-9)
    return np.arange(low, MAX_TILT + 1e-6, ROTATE_DEGREES)


def center_ray_directions(yaw: float, tilts: np.ndarray, image_size: tuple[int, int] = (0, 0),
                          fov: float = FIELD_OF_VIEW) -> np.ndarray:
    """Unit directions (MCS x, y, z) of the ray through the centre pixel (W//2, H//2) for a yaw and head tilts.

    With an unknown image size (0, 0) the exact optical axis is used.
    """
    a = math.radians(yaw)
    t = np.radians(np.asarray(tilts, float))
    sa, ca = math.sin(a), math.cos(a)
    st, ct = np.sin(t), np.cos(t)
    forward = np.stack([sa * ct, -st, ca * ct], axis=1)
    up = np.stack([sa * st, ct, ca * st], axis=1)
    right = np.array([ca, 0.0, -sa])
    width, height = (int(image_size[0]), int(image_size[1])) if image_size else (0, 0)
    if width > 0 and height > 0:
        focal = (height / 2.0) / math.tan(math.radians(fov) / 2.0)
        px, py = width // 2 + 0.5 - width / 2.0, height // 2 + 0.5 - height / 2.0
        direction = forward * focal + right[None] * px - up * py
    else:
        direction = forward
    return direction / np.linalg.norm(direction, axis=1, keepdims=True)


def center_ray_directions_many(yaws: np.ndarray, tilts: np.ndarray, image_size: tuple[int, int] = (0, 0),
                               fov: float = FIELD_OF_VIEW) -> np.ndarray:
    """Centre-pixel ray directions (N, T, 3) for N yaws and T tilts (see `center_ray_directions`)."""
    a = np.radians(np.asarray(yaws, float)).reshape(-1, 1)
    t = np.radians(np.asarray(tilts, float)).reshape(1, -1)
    sa, ca, st, ct = np.sin(a), np.cos(a), np.sin(t), np.cos(t)
    forward = np.stack([sa * ct, np.broadcast_to(-st, (a.shape[0], t.shape[1])), ca * ct], axis=-1)
    up = np.stack([sa * st, np.broadcast_to(ct, (a.shape[0], t.shape[1])), ca * st], axis=-1)
    right = np.stack([ca, np.zeros_like(ca), -sa], axis=-1)  # (N, 1, 3)
    width, height = (int(image_size[0]), int(image_size[1])) if image_size else (0, 0)
    if width > 0 and height > 0:
        focal = (height / 2.0) / math.tan(math.radians(fov) / 2.0)
        px, py = width // 2 + 0.5 - width / 2.0, height // 2 + 0.5 - height / 2.0
        direction = forward * focal + right * px - up * py
    else:
        direction = forward
    return direction / np.linalg.norm(direction, axis=-1, keepdims=True)


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
    surface heights) puts the camera CAMERA_HEIGHT above the surface of each pose instead of at `camera_height`.
    """

    def __init__(self, box: Box, occluders: Sequence[Box] = (), reach: float = PERFORMER_REACH,
                 camera_height: float = CAMERA_HEIGHT, tilts: Sequence[float] | None = None,
                 image_size: tuple[int, int] = (0, 0), open_tops: Sequence[Box] = (), bad: Iterable[tuple] = (),
                 key: Any = None, from_above: bool = False, max_lateral: float | None = None,
                 elliptic: bool = False, avoid_bearings: Sequence[float] = (), bearing_tolerance: float = 75.0,
                 floor: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None):
        self.box = box
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
            for occ in self.occluders:
                ok &= ~(occ.ray_entry(o, dirs) < t - 1e-3)
            for container, wall_top in self.open_tops:
                walls = Box(container.center, container.axes, container.half * np.array([1.0, 1e4, 1.0]))
                t_in = walls.ray_entry(o, dirs)
                y_in = o[..., 1] + dirs[..., 1] * np.where(np.isfinite(t_in), t_in, 0.0)
                ok &= ~((t_in < t) & (y_in < wall_top))
        return ok, t, dirs, origin

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


def aim_key(pose: Pose, tilt: float) -> tuple[int, int, int, int]:
    """A key of an aim (position to 5 cm, yaw and tilt to the degree) for remembering failed interactions."""
    return int(round(pose.x / 0.05)), int(round(pose.z / 0.05)), int(round(pose.yaw)) % 360, int(round(tilt))


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
