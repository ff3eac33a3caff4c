"""Tool skill: move a tool with MoveObject so that it shoves a stranded target (in lava) to where the performer can
pick it up.

MCS's tool families put the target in a pool or band of lava, out of reach, with tools (`shape == "tool"`, moveable,
not pickupable) lying beside it. MoveObject moves the object at the crosshair 0.1 m along the performer's heading
(`straight=1`, a push) or toward it (`straight=-1`, a pull), and whatever lies in its way goes along. The skill
picks a tool and a heading from the oracle metadata alone (bounding boxes, lava cells, holes): the tool's swept
footprint must meet the target, and the target must come out where the floor around it is free and connected to
where the performer can walk. It walks to the tool's near side facing that heading, then alternates MoveObject
with the move that keeps its distance to the tool (MoveAhead after a push, MoveBack after a pull) while that move
stays off lava, and plans again when the world departs from the plan: the tool slips out of the crosshair, the
tool travelled past where it should have met the target and the target has not moved (the far side of a hooked
tool's bounding box is open), or MoveObject fails. Tool choice needs no rule of its own: the tool whose plan works
(long enough, in line with the target) is the cheapest. When no tool can shove the target as it lies, a tool is
first brought into place (a placing plan: moved without meeting the target to where a shove works), and when none can
be, a tool out of reach in lava is shoved within reach by another (a freeing plan: a secondary tool); both end after
their travel, and the skill plans afresh from there.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import ndimage

from mcs_plugin.constants import PERFORMER_RADIUS, PERFORMER_REACH, ROTATE_DEGREES, STANDING_CAMERA_HEIGHT
from mcs_plugin.experts.boxes import Box
from mcs_plugin.experts.goals import AimGoal
from mcs_plugin.experts.graph import CLEARANCE, NavigationGraph
from mcs_plugin.experts.poses import HEADINGS, Pose, achievable_tilts, pose_of
from mcs_plugin.geometry import Obstacles

TOOL_SHAPE = "tool"  # ObjectMetadata.shape of MCS tools
STEP = 0.1  # metres a MoveObject moves the tool, and a move the performer
MAX_TRAVEL = 12.0  # metres a plan may move a tool
STAND_OFF = 0.5  # metres between the performer and the tool's near side where a plan starts
SLACK = {1: 0.25, -1: 0.1}  # metres the tool may still move once the performer stops following (push, pull)
TARGET_MARGIN = 0.1  # the target comes out when its disc is this far off every lava cell and hole
PICKUP_RING = (0.35, 0.5)  # radii (m) around a target where the performer may stand to pick it up (within reach)
FLOOR_GRID = 0.2  # metres between the points of the coarse floor map that tells which floor the performer reaches
AIM_DEPTH = 0.35  # metres of the tool's near side the crosshair aims at
AIM_BAND = 0.3  # metres of the tool's width the crosshair aims at
BANDS = 9  # crosshair bands tried across a tool's width
NO_CONTACT_SLACK = 0.35  # metres a tool may travel past its predicted contact before the plan counts as failed
BAR_WIDTH = 1.2  # metres: a tool box no wider than this is a bar, solid across (MCS's rect tools are 0.5-1.13 wide)
MOVED = 0.05  # metres a target must move to count as shoved
CLEAR_MARGIN = 0.3  # metres: a tool's box grown by this (the target's radius and some) must clear a target inside it
PLACE_STEP = 0.5  # metres between the travels a placing move (a tool brought to where a shove takes over) tries
PLACE_TRAVEL = 25.0  # metres a placing move may move a tool (across a 30 m room)
PLACE_NEAR = 2.0  # metres: a placing move ends with the tool's box this close to the target
FREE_EXTRA = 0.3  # metres a tool freed with another is moved past the least travel that brings it within reach
WALL_GAP = 0.02  # metres a moved tool's box, or a shoved target, keeps from the room's walls


@dataclass
class ToolPlan:
    """How one tool is to be moved: heading of the performer, MoveObject's `straight`, the world direction the tool
    moves in, the travel before it meets the target and the travel that brings the target out, the crosshair
    bands to try (lateral offset across the heading, and the x-z point to stand at), and the estimated cost in
    actions (a placing plan's counts the plan that follows it)."""

    tool: str
    yaw: float
    straight: int
    direction: tuple[float, float]
    contact: float
    travel: float
    bands: list[tuple[float, tuple[float, float]]]
    cost: float
    placing: bool = False  # the plan only brings a tool into place for a later one: it ends after its travel
    shoves: str = ""  # id of the other tool the plan shoves within reach ("": the target)
    face: int = -1  # the face of the tool's box that is to meet the target (`_face`; -1: a bar's, or none)


def _xz(obj) -> np.ndarray:
    return np.array([float(obj.position.get("x", 0.0)), float(obj.position.get("z", 0.0))])


def _radius(obj) -> float:
    """The target's x-z radius (half its larger footprint side)."""
    low, high = Box.from_metadata(obj).aabb_xz()
    return float(max(high - low)) / 2.0


def _lava_polygons(output) -> list[np.ndarray]:
    """Lava cells and holes as x-z polygons."""
    polygons = []
    for cell in output.lava or []:
        x0, z0, x1, z1 = (float(v) for v in cell)
        polygons.append(np.array([[x0, z0], [x1, z0], [x1, z1], [x0, z1]]))
    for hole in output.holes or []:
        hx, hz = float(hole[0]), float(hole[1])
        polygons.append(np.array([[hx - 0.5, hz - 0.5], [hx + 0.5, hz - 0.5], [hx + 0.5, hz + 0.5], [hx - 0.5, hz + 0.5]]))
    return polygons


def _ring(centre: np.ndarray) -> np.ndarray:
    """Points around a target from which the performer could pick it up (PICKUP_RING radii, every 30 degrees)."""
    angles = np.radians(np.arange(0.0, 360.0, 30.0))
    unit = np.stack([np.sin(angles), np.cos(angles)], axis=1)
    return np.concatenate([centre[None] + radius * unit for radius in PICKUP_RING])


def pickup_spot(floor: "FloorMap", target, pose: Pose) -> np.ndarray | None:
    """The place nearest the performer from which it could pick a target up (None: the target is stranded)."""
    ring = _ring(_xz(target))
    ring = ring[floor.reached(ring)]
    if not len(ring):
        return None
    return ring[int(np.argmin(np.hypot(ring[:, 0] - pose.x, ring[:, 1] - pose.z)))]


def stranded(floor: "FloorMap", target) -> bool:
    """Whether the performer can reach no place around a target it could pick it up from (lava, holes or walls in
    the way)."""
    return not bool(floor.reached(_ring(_xz(target))).any())


def _line_span(polygon: np.ndarray, d: np.ndarray, n: np.ndarray, v: float) -> tuple[float, float] | None:
    """(back, front): the extent along `d` of a convex polygon's chord at lateral offset `v` (None: no chord)."""
    u, w = polygon @ d, polygon @ n
    hits = []
    for i in range(len(polygon)):
        j = (i + 1) % len(polygon)
        if (w[i] - v) * (w[j] - v) <= 0.0 and abs(w[j] - w[i]) > 1e-9:
            hits.append(u[i] + (v - w[i]) * (u[j] - u[i]) / (w[j] - w[i]))
        elif abs(w[i] - v) <= 1e-9:
            hits.append(u[i])
    return (min(hits), max(hits)) if hits else None


class FloorMap:
    """Where the performer can stand on the floor when the tool and the target are left out (a coarse grid, 8-connected
    components), and which components it can reach from where it is."""

    def __init__(self, others: Obstacles, room: tuple[float, float], pose: Pose):
        self.others = others
        self.limit = (room[0] / 2 - PERFORMER_RADIUS - CLEARANCE, room[1] / 2 - PERFORMER_RADIUS - CLEARANCE)
        self.xs = np.arange(-self.limit[0], self.limit[0] + 1e-9, FLOOR_GRID)
        self.zs = np.arange(-self.limit[1], self.limit[1] + 1e-9, FLOOR_GRID)
        gx, gz = np.meshgrid(self.xs, self.zs)
        points = np.stack([gx.ravel(), gz.ravel()], axis=1)
        free = self.clear(points).reshape(gx.shape)
        self.labels, _ = ndimage.label(free, structure=np.ones((3, 3)))
        # The performer's own component; on a platform (its point is no floor) every component it can step down to.
        near = np.hypot(gx - pose.x, gz - pose.z) <= (FLOOR_GRID if self.clear(np.array([[pose.x, pose.z]]))[0] else 1.0)
        self.reachable = set(np.unique(self.labels[near & free]).tolist()) - {0}

    def clear(self, points: np.ndarray) -> np.ndarray:
        """Whether the performer may stand at each x-z point (in the room, off lava, holes and other obstacles)."""
        inside = (np.abs(points[:, 0]) <= self.limit[0]) & (np.abs(points[:, 1]) <= self.limit[1])
        if len(self.others):
            inside &= self.others.distance(points) >= PERFORMER_RADIUS + CLEARANCE
        return inside

    def points(self) -> np.ndarray:
        """The map's points on floor the performer reaches."""
        gx, gz = np.meshgrid(self.xs, self.zs)
        on = np.isin(self.labels, list(self.reachable))
        return np.stack([gx[on], gz[on]], axis=1)

    def reached(self, points: np.ndarray) -> np.ndarray:
        """Whether each point is clear and its nearest map point on a floor component the performer reaches."""
        i = np.round((points[:, 0] - self.xs[0]) / FLOOR_GRID).astype(int)
        j = np.round((points[:, 1] - self.zs[0]) / FLOOR_GRID).astype(int)
        inside = (i >= 0) & (i < len(self.xs)) & (j >= 0) & (j < len(self.zs))
        labels = self.labels[np.clip(j, 0, len(self.zs) - 1), np.clip(i, 0, len(self.xs) - 1)]
        ok = inside & np.isin(labels, list(self.reachable))
        if ok.any():
            ok[ok] = self.clear(points[ok])
        return ok


def floor_map(output, target, graph: NavigationGraph) -> FloorMap:
    """The floor map of a scene with its tools and the target left out."""
    skip = {o.uuid for o in output.object_list if o.shape == TOOL_SHAPE} | {target.uuid}
    others = [p for p, i in zip(graph.obstacles.polygons, graph.obstacle_ids) if i not in skip]
    return FloorMap(Obstacles(others), graph.room, pose_of(output))


def _free_tools(output) -> list:
    """The tools lying about (not held, with a size)."""
    return [o for o in output.object_list if o.shape == TOOL_SHAPE and not o.held and o.dimensions]


def _is_bar(box: Box) -> bool:
    """Whether a tool's box is narrow enough to be a bar, solid across."""
    return 2 * float(min(box.half[0], box.half[2])) <= BAR_WIDTH


def _headings(pose: Pose) -> np.ndarray:
    """The headings of the performer's rotation lattice."""
    return pose.yaw % ROTATE_DEGREES + ROTATE_DEGREES * np.arange(HEADINGS)


def _in_room(polygon: np.ndarray, room: np.ndarray) -> bool:
    """Whether an x-z polygon lies inside the room (half sizes `room`), WALL_GAP off its walls."""
    return not np.any(np.abs(polygon) > room - WALL_GAP)


def _axes(heading: float) -> tuple[np.ndarray, np.ndarray]:
    """The unit x-z vector of a heading and the one across it."""
    a = math.radians(heading)
    d = np.array([math.sin(a), math.cos(a)])
    return d, np.array([d[1], -d[0]])


def plan_tool_moves(output, target, graph: NavigationGraph, floor: FloorMap, failed: set) -> list[ToolPlan]:
    """Every workable tool move for a stranded target, cheapest first (`failed`: (tool id, heading) keys to skip, and
    (tool id, "face", face) keys of faces found open)."""
    pose = pose_of(output)
    scene = _Scene(output, target, graph, floor)
    plans = []
    for tool in _free_tools(output):
        plans += _shoves(scene, tool.uuid, Box.from_metadata(tool), pose, failed)
    return sorted(plans, key=lambda p: p.cost)


def _face(box: Box, point: np.ndarray) -> int:
    """Which side of a box's footprint an x-z point on its outline lies on: 0 / 1 along the box's first horizontal
    axis (+ / -), 2 / 3 along its second (the box's own frame: a tool keeps its faces as MoveObject shifts it)."""
    local = box.axes[[0, 2]][:, [0, 2]] @ (point - box.center[[0, 2]])
    k = int(np.argmax(np.abs(local) / box.half[[0, 2]]))
    return 2 * k + (0 if local[k] >= 0 else 1)


def _shifted(box: Box, offset: np.ndarray) -> Box:
    """A box moved along the floor by an x-z offset."""
    return Box(box.center + np.array([offset[0], 0.0, offset[1]]), box.axes, box.half)


class _Scene:
    """What every tool plan of one target needs: the target's x-z centre and radius, lava and holes, the room's
    half sizes and the floor map."""

    def __init__(self, output, target, graph: NavigationGraph, floor: FloorMap):
        self.t, self.r = _xz(target), _radius(target)
        self.lava = Obstacles(_lava_polygons(output))
        self.room = np.array(graph.room) / 2.0
        self.floor = floor


def _shoves(scene: _Scene, tool: str, box: Box, pose: Pose, failed: set) -> list[ToolPlan]:
    """The plans that move one tool along a lattice heading so that it shoves the target out of lava, from `pose`. A
    face of the tool's box found open (the target went into the box there) is passed through: the face behind meets
    the target."""
    t, r = scene.t, scene.r
    polygon, solid = box.footprint(), _is_bar(box)
    plans = []
    for heading in _headings(pose):
        if (tool, round(float(heading)) % 360) in failed:
            continue
        d, n = _axes(heading)
        tv = float(t @ n)
        lateral = polygon @ n
        if not lateral.min() <= tv <= lateral.max():
            continue  # the tool's path misses the target
        chord = _line_span(polygon, d, n, tv)
        if chord is None:
            continue
        back, front = chord
        tu = float(t @ d)
        faces = [-1 if solid else _face(box, u * d + tv * n) for u in (back, front)]
        if tu - r >= front - 1e-6 and (tool, "face", faces[1]) not in failed:
            contact, face = tu - r - front, faces[1]  # ahead of the tool
        elif tu > back and (tool, "face", faces[0]) not in failed:
            # inside its box (a hook's inside), or ahead of an open face: met by what lies behind it
            contact, face = max(0.0, tu - r - back), faces[0]
        else:
            continue
        travel = _travel_out(t, d, contact, r, scene.lava, scene.floor, scene.room)
        if travel is None:
            continue
        if not _in_room(polygon + travel * d, scene.room):
            continue  # the tool would run into a wall
        low, high = _span(lateral)
        for straight in (1, -1):
            plan = _placed(tool, polygon, solid, d, n, heading, straight, tv, low, high, contact, travel, pose,
                           scene.floor, t)
            if plan is not None:
                plan.face = face
                plans.append(plan)
    return plans


def plan_placing_moves(output, target, graph: NavigationGraph, floor: FloorMap, failed: set) -> list[ToolPlan]:
    """Every workable move of a tool that brings it, without meeting the target, to where a shove takes over (a tool
    too far from the target or out of line with it; a hook put round the target to pull it back), cheapest first:
    the least travel along each heading after which `_shoves` finds a plan, the cost counting that plan's."""
    pose = pose_of(output)
    scene = _Scene(output, target, graph, floor)
    plans = []
    for tool in _free_tools(output):
        box = Box.from_metadata(tool)
        polygon = box.footprint()
        for heading in _headings(pose):
            if (tool.uuid, round(float(heading)) % 360) in failed:
                continue
            d, n = _axes(heading)
            lateral = polygon @ n
            low, high = _span(lateral)
            for travel in _placing_travels(scene, polygon, d, n):
                best = _placing(scene, tool.uuid, box, d, n, heading, low, high, travel, pose, failed)
                if best is not None:
                    plans.append(best)
                    break
    return sorted(plans, key=lambda p: p.cost)


def _placing_travels(scene: _Scene, polygon: np.ndarray, d: np.ndarray, n: np.ndarray) -> np.ndarray:
    """The travels (every PLACE_STEP) along `d` that leave a tool in the room, its box within PLACE_NEAR of the
    target, and its back short of the target (the box may end round it: a hook's inside, whose near side is open)."""
    travels = np.arange(PLACE_STEP, PLACE_TRAVEL + 1e-9, PLACE_STEP)
    ok = np.array([_in_room(polygon + k * d, scene.room) for k in travels], bool)
    ok &= Obstacles([polygon]).distance(scene.t[None] - travels[:, None] * d[None]) <= PLACE_NEAR
    tv, (low, high) = float(scene.t @ n), _span(polygon @ n)
    chord = _line_span(polygon, d, n, min(max(tv, low), high))
    if chord is not None and low - scene.r <= tv <= high + scene.r:  # the target lies in the tool's path
        ok &= chord[0] + travels < float(scene.t @ d) - scene.r  # the box's back stays short of it
    return travels[ok]


def _span(values: np.ndarray) -> tuple[float, float]:
    """The least and greatest of some values."""
    return float(values.min()), float(values.max())


def _placing(scene: _Scene, tool: str, box: Box, d: np.ndarray, n: np.ndarray, heading: float, low: float, high: float,
             travel: float, pose: Pose, failed: set) -> ToolPlan | None:
    """The cheapest plan moving a tool by `travel` along `d` (the target not met) after which a shove takes over
    (None: the performer has nowhere to stand, or no shove works from there)."""
    middle = (low + high) / 2
    best = None
    for straight in (1, -1):
        plan = _placed(tool, box.footprint(), _is_bar(box), d, n, heading, straight, middle, low, high, travel, travel,
                       pose, scene.floor, scene.t)
        if plan is None:
            continue
        x, z = np.array(plan.bands[0][1]) + travel * d  # where the performer ends (it follows the tool)
        shoves = _shoves(scene, tool, _shifted(box, travel * d), Pose(float(x), float(z), pose.yaw), failed)
        if not shoves:
            return None  # the same for a pull: the tool ends at the same place
        plan.cost += min(p.cost for p in shoves)
        plan.placing = True
        if best is None or plan.cost < best.cost:
            best = plan
    return best


def plan_freeing_moves(output, target, graph: NavigationGraph, floor: FloorMap, failed: set) -> list[ToolPlan]:
    """Every workable move of a tool that shoves another tool, out of reach (in lava), until the performer can reach
    it, cheapest first: along each heading where the first tool's path meets the other's box, the least travel
    after which the other's box lies within STAND_OFF of floor the performer reaches, and FREE_EXTRA more."""
    pose = pose_of(output)
    room = np.array(graph.room) / 2.0
    floor_points = floor.points()
    tools = [(o.uuid, Box.from_metadata(o)) for o in _free_tools(output)]
    plans = []
    for other, other_box in tools:
        if _reach_travel(other_box, np.zeros(2), floor_points) is not None:
            continue  # within reach as it lies
        for tool, box in tools:
            if tool == other:
                continue
            polygon = box.footprint()
            for heading in _headings(pose):
                if (tool, round(float(heading)) % 360) in failed:
                    continue
                d, n = _axes(heading)
                met = _contact(polygon, other_box, d, n)
                if met is None or (other, "face", met[2]) in failed:
                    continue  # the path misses the other tool, or meets a face of it found open
                contact, band, face = met
                push = _reach_travel(other_box, d, floor_points)
                if push is None:
                    continue
                travel = contact + push + FREE_EXTRA
                if travel > MAX_TRAVEL or not _in_room(other_box.footprint() + (travel - contact) * d, room):
                    continue
                lateral = polygon @ n
                end = np.array([other_box.center[0], other_box.center[2]]) + (travel - contact) * d
                plan = _placed(tool, polygon, _is_bar(box), d, n, heading, 1, band, *_span(lateral), contact, travel,
                               pose, floor, end)
                if plan is not None:
                    plan.placing, plan.shoves, plan.face = True, other, face
                    plans.append(plan)
    return sorted(plans, key=lambda p: p.cost)


def _contact(polygon: np.ndarray, box: Box, d: np.ndarray, n: np.ndarray) -> tuple[float, float, int] | None:
    """(travel, lateral offset, face): how far a box moves along `d` before it meets another box ahead of it, where
    across the heading, and which face of the other it meets (`_face`; -1 for a bar's) (None: its path misses it)."""
    other = box.footprint()
    low = max(float((polygon @ n).min()), float((other @ n).min()))
    high = min(float((polygon @ n).max()), float((other @ n).max()))
    best = None
    for v in np.linspace(low, high, BANDS) if high > low else []:
        mine, theirs = _line_span(polygon, d, n, float(v)), _line_span(other, d, n, float(v))
        if mine is not None and theirs is not None and theirs[0] >= mine[1] - 1e-6 and \
                (best is None or theirs[0] - mine[1] < best[0]):
            best = (theirs[0] - mine[1], float(v), -1 if _is_bar(box) else _face(box, theirs[0] * d + v * n))
    return best


def _reach_travel(box: Box, d: np.ndarray, points: np.ndarray) -> float | None:
    """The least travel along `d` (0 for no move; else STEP to MAX_TRAVEL) after which a box lies within STAND_OFF of
    one of `points` (the floor the performer reaches), or None."""
    axes = box.axes[[0, 2]][:, [0, 2]]  # the box's horizontal axes, x-z components
    half = box.half[[0, 2]] + STAND_OFF
    local = (points - np.array([box.center[0], box.center[2]])) @ axes.T  # (N, 2) in the box's frame
    step = axes @ d
    if not np.any(step):
        return 0.0 if np.any(np.all(np.abs(local) <= half, axis=1)) else None
    lo, hi = np.full(len(points), STEP), np.full(len(points), MAX_TRAVEL)
    for k in range(2):
        if abs(step[k]) < 1e-9:
            inside = np.abs(local[:, k]) <= half[k]
            lo, hi = np.where(inside, lo, np.inf), np.where(inside, hi, -np.inf)
        else:
            a, b = (local[:, k] - half[k]) / step[k], (local[:, k] + half[k]) / step[k]
            lo, hi = np.maximum(lo, np.minimum(a, b)), np.minimum(hi, np.maximum(a, b))
    ok = lo <= hi
    return float(math.ceil(lo[ok].min() / STEP - 1e-9) * STEP) if ok.any() else None


def enclosing_tool(output, target):
    """The tool whose bounding box (grown by CLEAR_MARGIN) holds a target (a hook's inside), or None: navigation and
    aims take the box as solid, so the target cannot be picked up there."""
    t = _xz(target)
    for tool in output.object_list:
        if tool.shape == TOOL_SHAPE and not tool.held and tool.dimensions:
            box = Box.from_metadata(tool)
            if box.contains((t[0], box.center[1], t[1]), margin=CLEAR_MARGIN):
                return tool
    return None


def plan_clearing_moves(output, target, tool, graph: NavigationGraph, floor: FloorMap, failed: set) -> list[ToolPlan]:
    """Every workable move of a tool whose box holds the target that takes the box off it (the least travel along
    each heading after which the box, grown by CLEAR_MARGIN, no longer holds the target, the tool staying in the
    room), cheapest first. The target is not to be met: the plan's contact is its whole travel."""
    pose = pose_of(output)
    box = Box.from_metadata(tool)
    polygon = box.footprint()
    t = _xz(target)
    room = np.array(graph.room) / 2.0
    plans = []
    for heading in _headings(pose):
        if (tool.uuid, round(float(heading)) % 360) in failed:
            continue
        d, n = _axes(heading)
        travel = next((float(k) for k in np.arange(STEP, MAX_TRAVEL + 1e-9, STEP)
                       if not box.contains((t[0] - k * d[0], box.center[1], t[1] - k * d[1]), margin=CLEAR_MARGIN)),
                      None)
        if travel is None or not _in_room(polygon + travel * d, room):
            continue
        lateral = polygon @ n
        for straight in (1, -1):
            plan = _placed(tool.uuid, polygon, False, d, n, heading, straight, float(t @ n), *_span(lateral), travel,
                           travel, pose, floor, t)
            if plan is not None:
                plans.append(plan)
    return sorted(plans, key=lambda p: p.cost)


def _travel_out(t: np.ndarray, d: np.ndarray, contact: float, r: float, lava: Obstacles, floor: FloorMap,
                room: np.ndarray) -> float | None:
    """The least tool travel that leaves the target off lava, in the room and with a reachable place to pick it up
    from (None when there is none within MAX_TRAVEL)."""
    pushes = np.arange(STEP, MAX_TRAVEL - contact + 1e-9, STEP)
    if pushes.size == 0:
        return None
    ends = t[None] + pushes[:, None] * d[None]
    ok = np.all(np.abs(ends) <= room - r - WALL_GAP, axis=1)
    if len(lava):
        ok &= lava.distance(ends) >= r + TARGET_MARGIN
    candidates = np.nonzero(ok)[0]
    if candidates.size == 0:
        return None
    per_end = len(_ring(ends[0]))
    rings = np.concatenate([_ring(ends[k]) for k in candidates])
    hits = floor.reached(rings).reshape(len(candidates), per_end).any(axis=1)
    if not hits.any():
        return None
    return contact + float(pushes[candidates[int(np.argmax(hits))]])


def _placed(tool: str, polygon: np.ndarray, solid: bool, d: np.ndarray, n: np.ndarray, heading: float, straight: int,
            tv: float, low: float, high: float, contact: float, travel: float, pose: Pose, floor: FloorMap,
            t: np.ndarray) -> ToolPlan | None:
    """The plan of pushing (straight 1: the performer behind the tool) or pulling (-1: in front of it) a tool along
    `d`, or None when, at every crosshair band across the heading, the performer has nowhere to stand or its way
    along the tool runs onto lava too early."""
    follow = max(0, int(math.ceil((travel - SLACK[straight]) / STEP - 1e-9)))
    half = AIM_BAND / 2
    options = []  # (band, start, how far behind the tool's rearmost point it stands)
    for v in np.linspace(low + half, high - half, BANDS) if high - low > AIM_BAND else [(low + high) / 2]:
        chord = _line_span(polygon, d, n, float(v))
        if chord is None:
            continue
        u0 = chord[0] - STAND_OFF if straight == 1 else chord[1] + STAND_OFF
        start = u0 * d + v * n
        path = start[None] + (STEP * np.arange(0, follow + 1))[:, None] * d[None]
        if floor.reached(start[None])[0] and floor.clear(path).all():
            options.append((float(v), start))
    if not options:
        return None
    middle = (low + high) / 2
    # a bar is solid across: its middle first; a wide box (a hooked or triangular tool) is open in places: its
    # sides first, the one farther from the target's line first (the target sits in the open part)
    options.sort(key=lambda o: abs(o[0] - middle) if solid else -abs(o[0] - tv))
    start = options[0][1]
    off_centre = abs(tv - middle) / STEP  # a push off the tool's middle line turns it (and lets the target slide off)
    walk_in = math.hypot(start[0] - pose.x, start[1] - pose.z) / STEP
    end = t + (travel - contact) * d
    walk_out = math.hypot(*(end - (start + follow * STEP * d))) / STEP
    yaw = heading if straight == 1 else (heading + 180.0) % 360.0
    cost = walk_in + 2.0 * travel / STEP + walk_out + off_centre + (0 if straight == 1 else 1)
    return ToolPlan(tool, float(yaw) % 360.0, straight, (float(d[0]), float(d[1])), contact, travel,
                    [(v, (float(x), float(z))) for v, (x, z) in options], cost)


def aim_box(tool_box: Box, plan: ToolPlan, band: float) -> Box:
    """The part of a tool the crosshair aims at: AIM_DEPTH of its near side (behind it for a push, in front for a
    pull) in a band AIM_BAND wide at lateral offset `band`, upright along the heading."""
    d = np.array(plan.direction)
    n = np.array([d[1], -d[0]])
    polygon = tool_box.footprint()
    chord = _line_span(polygon, d, n, band)
    back, front = chord if chord is not None else (float((polygon @ d).min()), float((polygon @ d).max()))
    depth = min(AIM_DEPTH, front - back)
    u = back + depth / 2 if plan.straight == 1 else front - depth / 2
    centre_xz = u * d + band * n
    centre = np.array([centre_xz[0], tool_box.center[1], centre_xz[1]])
    axes = np.array([[n[0], 0.0, n[1]], [0.0, 1.0, 0.0], [d[0], 0.0, d[1]]])
    return Box(centre, axes, np.array([AIM_BAND / 2, float(tool_box.half[1]), depth / 2]))


def tool_aim(output, box: Box, bad: set, exclude: set) -> AimGoal:
    """Poses from which the crosshair hits `box` (a part of a tool) within reach before anything else."""
    occluders = [Box.from_metadata(o) for o in list(output.object_list) + list(output.structural_object_list)
                 if not o.held and o.uuid not in exclude and o.dimensions and o.uuid != "ceiling"]
    return AimGoal(box, occluders=occluders, reach=PERFORMER_REACH - 0.05,
                   camera_height=float(output.position.get("y", STANDING_CAMERA_HEIGHT)),
                   tilts=achievable_tilts(float(output.head_tilt)), image_size=tuple(output.camera_aspect_ratio), bad=bad)
