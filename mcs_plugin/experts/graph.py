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
from typing import TYPE_CHECKING, Any, Callable, Iterable, Sequence

import numpy as np

from mcs_plugin.constants import MAX_RISE as STEP_RISE
from mcs_plugin.constants import MOVE_DIRECTIONS as MOVE_STEPS
from mcs_plugin.constants import MOVE_DISTANCE, PERFORMER_RADIUS, ROTATE_DEGREES, SUPPORT_RADIUS
from mcs_plugin.constants import STANDING_CAMERA_HEIGHT as CAMERA_HEIGHT
from mcs_plugin.experts.boxes import BODY_TOP, obstacle_boxes
from mcs_plugin.experts.goals import Goal, PredicateGoal
from mcs_plugin.experts.poses import HEADINGS, Pose, forward_xz, pose_of, right_xz
from mcs_plugin.experts.ramps import RAMP, RAMP_SIDE, is_ramp, ramp_pieces
from mcs_plugin.geometry import Obstacles, angle_difference

if TYPE_CHECKING:  # pragma: no cover
    import networkx as nx

    from mcs_plugin.mcs import StepMetadata

CLEARANCE = 0.01  # extra distance kept from obstacles beyond the performer radius
FINE_FACTOR = 4  # in a goal's cells, searches tell poses apart on a grid this many times finer
SAMPLE_SPACING = 0.034  # metres between the positions sampled to find where goal poses lie
PLAN_CACHE_SIZE = 256  # searches a graph remembers (oldest forgotten first)
DESCENT_NEAR = 2.0  # moves from a goal within which off-plan steps are searched, not read off the distance field
DEFAULT_ACTIONS = ("MoveAhead", "RotateLeft", "RotateRight")
SUPPORT_CONTACT = 0.05  # a structure stands on the floor (or on a lower structure's top) within this gap
CELL_RISE_SLACK = 0.05  # metres: cells' surfaces are read at their centres, moves' at their exact ends
OBJECT_RISE = 0.005  # an object whose top is this little above the surface the performer stands on is not in the way


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
        # polygons that may matter for a point of each cell (for exact checks near obstacles)
        near = self.radius + self.clearance + self.grid * 0.7072 + 1e-6
        # the grid's clearances are only compared with thresholds up to `near`: further ones need not be exact
        per_polygon = self.obstacles.distances(self._cell_points, within=near + self.grid)
        # clearance of each cell's centre at each level (only the polygons in the way at that level count)
        self._level_clearance = np.stack([
            (np.where(block[None, :], per_polygon, np.inf).min(axis=1) if len(self.obstacles) else
             np.full(len(self._cell_points), np.inf)).reshape(gx.shape) for block in self._blocks])
        self._cell_level = self.level_index(gx, gz)
        self._cell_clearance = np.take_along_axis(self._level_clearance, self._cell_level[None], axis=0)[0]
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
        structures = {obj.uuid: obj for obj in output.structural_object_list}
        polygons, ids, extents = [], [], []
        for object_id, box in boxes:
            obj = structures.get(object_id)
            pieces = ramp_pieces(box, float(obj.rotation.get("y", 0.0))) if obj is not None and is_ramp(obj) else None
            for piece in pieces or []:  # a ramp the performer can climb: slices and side faces
                polygons.append(piece.polygon)
                ids.append(object_id)
                extents.append((piece.bottom, piece.top, piece.kind))
            if not pieces:
                polygons.append(box.footprint())
                ids.append(object_id)
                extents.append((box.bottom, box.top, "structure" if obj is not None else "object"))
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

        Surfaces are the tops of structures no higher than a step above the highest surface it can reach (`standing`,
        the one it stands on, or the top of a ramp it can reach): moves climb no more than that, so higher tops
        (walls, lips, platforms seen from the floor) cannot be reached.

        `extents` gives each polygon's (bottom, top, kind): `structure` (platforms, walls: their tops are surfaces;
        in the way where they rise more than a step above the surface stood on), `ramp` (a ramp's slice: a surface,
        never in the way), `ramp side` (a ramp's side face: in the way like a structure, never a surface), `object`
        (in the way where it rises above that surface and starts below the body's top), `floor` (lava, holes: in the
        way on the floor only), `always`. None: every polygon is in the way everywhere and the floor is flat."""
        count = len(self.obstacles)
        extents = list(extents) if extents is not None else [(0.0, 0.0, "always")] * count
        # structures resting on the floor, or on the top of one that does (stacked platforms, lips), are surfaces;
        # a ramp resting on one leads up to its top, and a structure no higher than a step above that is one too
        supports: list[int] = []
        tops = [0.0]
        reach = standing
        changed = True
        while changed:
            changed = False
            for i, (bottom, top, kind) in enumerate(extents):
                if kind not in ("structure", RAMP) or i in supports or \
                        not any(abs(bottom - t) <= SUPPORT_CONTACT for t in tops):
                    continue
                if kind == RAMP or STEP_RISE < top <= reach + STEP_RISE:
                    supports.append(i)
                    tops.append(top)
                    reach = max(reach, top) if kind == RAMP else reach
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
                elif kind != RAMP:
                    rise = STEP_RISE if kind in ("structure", RAMP_SIDE) else OBJECT_RISE
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
        start's surface (at the end's when it climbs: a platform's edge at the top of a ramp is a step); stepping off a platform, the performer drops to the surface below and is pushed out of
        the platform's side (as MCS does), which this models along the clearance gradient."""
        if len(self.levels) == 1:
            return (nx, nz) if self.is_free(nx, nz, 0) else None
        start, end = self._level_of(x, z), self._level_of(nx, nz)
        if self.levels[end] > self.levels[start] + STEP_RISE:
            return None
        if self.levels[end] > self.levels[start]:  # climbing (a ramp): an edge is a step from where the feet will be
            return (nx, nz) if self.is_free(nx, nz, end) else None
        if not self.is_free(nx, nz, start):
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
        dist = dijkstra(self._cell_graph(), directed=True, indices=sources, min_only=True)
        return dist.reshape(self._relaxed.shape)

    def _cell_graph(self):
        """The 8-connected graph of the passable cells (sparse, edge weights in moves), built once. Reversed: it
        holds an edge b -> a for each move a -> b, and a move climbs to a neighbour no more than a step above it;
        so a search from a region gives distances to it."""
        if self._cells_csr is None:
            from scipy.sparse import coo_matrix

            passable = self._relaxed
            height = self.levels[self._cell_level]
            rows, cols = passable.shape
            index = np.arange(rows * cols).reshape(rows, cols)
            step = self.grid / MOVE_DISTANCE
            heads, tails, weights = [], [], []
            for (dr, dc), cost in (((0, 1), step), ((1, 0), step), ((1, 1), step * math.sqrt(2.0)),
                                   ((1, -1), step * math.sqrt(2.0))):
                a = (slice(0, rows - dr), slice(max(0, -dc), cols - max(0, dc)))
                b = (slice(dr, rows), slice(max(0, dc), cols - max(0, -dc)))
                both = passable[a] & passable[b]
                rise = height[b] - height[a]
                for start, end, climb in ((a, b, rise), (b, a, -rise)):
                    ok = both & (climb <= STEP_RISE + CELL_RISE_SLACK)
                    heads.append(index[end][ok])  # reversed: from the move's end to its start
                    tails.append(index[start][ok])
                    weights.append(np.full(int(ok.sum()), cost))
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
        free = inside & (self.free_clearance(px, pz, within=self.radius + self.clearance) >= self.radius + self.clearance)
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

    def free_clearance(self, x: np.ndarray, z: np.ndarray, within: float = math.inf) -> np.ndarray:
        """Clearance of x-z points (vectorised) from what is in the way on the surface each stands on (inf for
        clearances beyond a finite `within`)."""
        points = np.stack([np.asarray(x, float).ravel(), np.asarray(z, float).ravel()], axis=1)
        if not len(self.obstacles):
            return np.full(len(points), np.inf)
        distances = self.obstacles.distances(points, within=within)
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
