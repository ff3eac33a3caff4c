"""Per-goal expert policies: retrieval (also multi retrieval), traversal and transferral.

One interface: `expert = make_expert(goal_category)`, then `expert.next_action(output)` on each step output
returns `(action, params)` or None (the expert cannot go on). Actions come from `EXPERT_ACTIONS`; "End" means the
goal is done (the task layer maps it). Interactions act on the object under the image centre and carry no
coordinates: the task layer adds them (or `to_controller_call` does, to drive a controller directly).

The experts are closed-loop: every step they rebuild their view of the world from the StepMetadata (oracle tier),
keep following their current plan while the performer is where the plan says, and plan again otherwise (after an
OBSTRUCTED move, a moved object, or actions they did not choose). They are deterministic: the same outputs give
the same actions.
"""

from __future__ import annotations

import math
import weakref
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

import numpy as np

from mcs_plugin.constants import MOVE_DIRECTIONS as MOVE_STEPS
from mcs_plugin.constants import PERFORMER_REACH
from mcs_plugin.constants import STANDING_CAMERA_HEIGHT as CAMERA_HEIGHT
from mcs_plugin.experts.boxes import AGENT_SHAPE, DOOR_SHAPE, Box, corner_xyz, obstacle_boxes
from mcs_plugin.experts.goals import AimGoal, ClearDropGoal, DropGoal, Goal, NearGoal
from mcs_plugin.experts.graph import DEFAULT_ACTIONS, NavigationGraph, SharedCache, start_key
from mcs_plugin.experts.poses import Pose, achievable_tilts, aim_key, pose_of
from mcs_plugin.geometry import Obstacles, angle_difference
from mcs_plugin.experts.tool_skill import ToolSkill
from mcs_plugin.mcs.goals import Extent, pickups_needed, relation_name, transferral_holds
from mcs_plugin.sim.observation import shape_points

ActionChoice = tuple[str, dict]

#: Every action an expert may return ("End" = the goal is done).
EXPERT_ACTIONS: tuple[str, ...] = (
    "MoveAhead", "MoveBack", "MoveLeft", "MoveRight", "RotateLeft", "RotateRight", "LookUp", "LookDown",
    "PickupObject", "OpenObject", "CloseObject", "PutObject", "DropObject", "InteractWithAgent", "MoveObject", "Pass",
    "EndHabituation", "End",
)
OBJECT_ACTIONS = frozenset({"PickupObject", "OpenObject", "CloseObject", "InteractWithAgent", "MoveObject"})
MOVE_ACTIONS = frozenset(MOVE_STEPS)
LONG_WAY_WEIGHT = 1.5  # A* weight of the second search when the first ran out of expansions (paths <= 1.5x longer)
MOVE_TOLERANCE = 0.02  # metres an obstacle may move before the navigation graph is made anew
STILL_TOLERANCE = 0.002  # metres an obstacle may move between two steps and count as standing still
DOOR_MEMO_MOVE = 0.25  # metres a goal's object may move before the door noted in its way is looked for again
ROLLING_DISTANCE = 2.0  # metres from the performer beyond which a moving obstacle waits until it stops
EXPERT_GRID = 0.05  # node spacing of the experts' searches (half a move: straighter, shorter paths than 0.1)
REACH_MARGIN = 0.05  # plan interactions this much inside the 1 m reach
TRAVERSAL_MARGIN = 0.1  # and traversal this much inside it
HELD_AHEAD = 0.24  # a held object's near face is about this far ahead of the camera (MCS)
PICKUP_SHRINK = 0.5  # aim at the middle half of a target's bounding box
LID_FRACTION = 0.1  # relaxed aims: an open container's walls end this fraction of its height below its top
RIM_MARGIN = 0.02  # sight lines into an opened container pass this far over its walls (a ray grazing the rim meets it)
CONTAINER_SHRINK = 0.7
TOP_CENTRE = 0.15  # aim at the centre of a receptacle's top first: MCS then puts the object there ...
TOP_CENTRE_HALF = 0.05  # (metres: the centre of a top above the camera, aimed at through the top's near side)
TOP_SHRINK = 0.6  # ... else at the middle of its top (inside the ellipse inscribed in its footprint) ...
TOP_INSET = 0.05  # ... or anywhere at least this far inside that ellipse
MAX_REPEATS = 12  # the same action from the same pose this often means the expert goes round in circles
MAX_INVALIDATIONS = 60  # plans given up on the way because their end stopped being a goal pose
PLACEMENT_START = 3  # steps a completed trigger sequence takes to set the target's placement going
AGENT_SNAP = 0.1  # metres: grid of the aim point on a walking agent
MAX_WAIT = 150  # steps the expert waits for a target that moves (or sits in a launcher) and cannot be reached yet
FETCH_RESERVE = 1000  # steps of a scene's limit kept for fetching a target once it stops moving
OFFER_WAIT = 12  # steps to wait for an agent asked with InteractWithAgent to hold its object out (MCS: about 5)
OFFERED_DISTANCE = 0.05  # an agent's object farther than this (x-z) from the agent is held out, ready to take
_SUCCESS = {"SUCCESSFUL", "IS_OPENED_COMPLETELY", "IS_CLOSED_COMPLETELY"}


def to_controller_call(action: str, params: dict | None, width: int, height: int) -> tuple[str, dict]:
    """An expert action as a controller call: interactions get the image centre (W//2, H//2) as their target."""
    params = dict(params or {})
    if action in OBJECT_ACTIONS and "objectId" not in params:
        params.setdefault("objectImageCoordsX", int(width) // 2)
        params.setdefault("objectImageCoordsY", int(height) // 2)
    elif action == "PutObject" and "receptacleObjectId" not in params:
        params.setdefault("receptacleObjectImageCoordsX", int(width) // 2)
        params.setdefault("receptacleObjectImageCoordsY", int(height) // 2)
    return action, params


def _objects(output) -> dict[str, Any]:
    return {o.uuid: o for o in list(output.object_list) + list(output.structural_object_list)}


def _box(obj) -> Box:
    return Box.from_metadata(obj)


def _centre(obj) -> np.ndarray:
    return _box(obj).center


def _kind_centre(objects: dict[str, Any], kind: Any) -> np.ndarray | None:
    """The centre of the object a goal kind names (("pickup", id), ("open", id), ...), if `objects` (id -> object
    metadata) holds it."""
    obj = objects.get(kind[1]) if isinstance(kind, tuple) and len(kind) > 1 else None
    return _centre(obj) if obj is not None and obj.dimensions else None


def visibility_points(obj) -> np.ndarray:
    """World points (P, 3) where MCS looks for an object (the simulator's shape_points on its bounding box: a ball's
    are its registry points on its sphere)."""
    box = _box(obj)
    points = shape_points(obj.shape, tuple(2.0 * box.half))
    return box.center + points @ box.axes


def layout(output) -> tuple:
    """Where every object and structure of a step output is and how it stands (id, position, rotation, open, held,
    two opposite box corners): outputs with equal layouts have equal boxes, so what was derived from one holds for
    the other, and a layout is cheaper to compare than the boxes."""
    return tuple(_layout_row(obj) for objects in (output.object_list, output.structural_object_list) for obj in objects)


def _layout_row(obj) -> tuple:
    p, r, d = obj.position or {}, obj.rotation or {}, obj.dimensions or ()
    corners = (corner_xyz(d[0]), corner_xyz(d[-1])) if d else ()
    return obj.uuid, p.get("x"), p.get("y"), p.get("z"), r.get("x"), r.get("y"), r.get("z"), obj.is_open, obj.held, corners


def scripted_action(output) -> ActionChoice | None:
    """The action a scene dictates for this step (a preview phase of Pass, a scripted turn, EndHabituation, the
    lava rule's EndScene): the step's action list names a single action. None when the expert may choose."""
    entries = list(output.action_list or [])
    names = {name for name, _ in entries}
    if len(names) != 1:
        return None
    name, params = entries[0]
    return str(name), dict(params or {})


def relationship_holds(first, second, relationship: str) -> bool:
    """Whether a transferral relationship ('next_to' / 'on_top_of') holds between two ObjectMetadata (neither held),
    by the rule the reward uses (`mcs_plugin.mcs.goals.transferral_holds`)."""
    if first is None or second is None or first.held or second.held:
        return False
    return transferral_holds(relation_name(relationship), Extent.of_metadata(first), Extent.of_metadata(second))


def container_of(target, output, openable: bool = True) -> Any | None:
    """The object the target lies inside (its centre within the object's box), if any; the smallest. Openable
    ones only by default; with `openable=False` any object (an open-topped container, say), agents left out."""
    point = _centre(target)
    best, volume = None, math.inf
    for obj in output.object_list:
        if obj.uuid == target.uuid or obj.held or not obj.dimensions or (openable and not obj.openable) \
                or obj.shape == AGENT_SHAPE:
            continue
        box = _box(obj)
        if box.contains(point, margin=0.01):
            v = float(np.prod(box.half))
            if v < volume:
                best, volume = obj, v
    return best


def in_structure(target, output) -> bool:
    """Whether the target's centre lies inside a structure's box (a throwing device holding it, say)."""
    point = _centre(target)
    return any(obj.dimensions and _box(obj).contains(point, margin=0.01) for obj in output.structural_object_list)


def holder_of(target, output) -> Any | None:
    """The agent holding the target and not yet holding it out (its `associatedWithAgent`), if any."""
    agent = _objects(output).get(target.associated_with_agent) if target.associated_with_agent else None
    if agent is None or not agent.simulation_agent_is_holding_held_object:
        return None
    dx = target.position.get("x", 0.0) - agent.position.get("x", 0.0)
    dz = target.position.get("z", 0.0) - agent.position.get("z", 0.0)
    return agent if math.hypot(dx, dz) <= OFFERED_DISTANCE else None


class Expert:
    """Base expert: navigation with re-planning, aiming (turn, tilt) and recovery from failed actions.

    `grid`: node spacing of its searches; `actions`: the navigation actions it plans with (default MoveAhead,
    RotateLeft, RotateRight); `allowed`: the task's action vocabulary, when it lacks Pass the expert does not wait
    for a put-down object to settle; `max_failures`: failed interactions before it gives up.
    """

    categories: tuple[str, ...] = ()

    def __init__(self, grid: float = EXPERT_GRID, max_failures: int = 8, settle_steps: int = 20,
                 actions: Iterable[str] = DEFAULT_ACTIONS, max_expansions: int = 150_000,
                 allowed: Iterable[str] | None = None):
        self.grid = grid
        self.max_failures = max_failures
        self.allowed = None if allowed is None else frozenset(allowed)
        # after putting an object down, wait (Pass) until it is still, if the task lets the expert wait
        self.settle_steps = settle_steps if self.allowed is None or "Pass" in self.allowed else 0
        self.move_actions = tuple(actions)
        self.max_expansions = max_expansions
        self.reset()

    # -- episode state ----------------------------------------------------------------------------------------
    def reset(self) -> None:
        """Forget everything about the current episode (called automatically when a new one starts)."""
        self._graph: NavigationGraph | None = None
        self._graph_key: Any = None
        self._graph_output: Any = None  # the step output the graph was last checked against
        self._graph_layout: tuple | None = None  # the layout the graph was last checked against
        self._last_obstacles: dict | None = None  # the obstacles' x-z corners when the graph was last checked
        self._layout: tuple[Any, tuple] | None = None  # (output, its layout) of the current step
        self._aim_goals: tuple[tuple, dict] = ((), {})  # (layout, its aim goals by their arguments and graph)
        self._structure_memo: tuple | None = None  # (layout, target id, inside a structure?)
        self._plan: list | None = None
        self._plan_kind: Any = None
        self._plan_graph: NavigationGraph | None = None
        self._fine: tuple[NavigationGraph, NavigationGraph] | None = None  # (graph, its half-grid refinement)
        self._plan_start: Pose | None = None
        self._plan_index = 0
        self._blocked: set[tuple] = set()  # (pose key, action) of OBSTRUCTED moves
        self._bad: dict[Any, set] = defaultdict(set)  # goal kind -> failed aim keys
        self._reach_cut: dict[Any, float] = defaultdict(float)
        self._bad_sides: dict[Any, list] = defaultdict(list)  # goal kind -> bearings (target -> camera) to avoid
        self._aim_centre: tuple[float, float] | None = None
        self._kind: Any = None  # the goal kind of the action being chosen, e.g. ("pickup", id)
        self.failures = 0
        self.loops = 0
        self.invalidations = 0
        self._last: tuple | None = None  # (step, action, kind, pose, tilt)
        self._last_step: int | None = None
        self._picked: set[str] = set()
        self._settle = 0
        self._positions: dict[str, np.ndarray] = {}
        self._placed: tuple | None = None  # (kind, aim key) of the last put / drop
        self._visits: dict[tuple, int] = defaultdict(int)
        self._asked: dict[str, int] = {}  # agent id -> step of the InteractWithAgent that succeeded
        # goal kind -> (the closed door found in its way, where the kind's object stood then)
        self._doors: dict[Any, tuple[str, np.ndarray | None]] = {}
        self.reason = ""  # why the expert gave up (None returned)

    def next_action(self, output) -> ActionChoice | None:
        """The expert's action for a step output, or None when it cannot go on."""
        if output is None:
            return None
        step = int(output.step_number)
        if self._last_step is not None and step < self._last_step:
            self.reset()
        self._note_result(output)
        self._kind = None
        if self.failures > self.max_failures:
            self.reason = "too many failed actions"
            return None
        if self.loops > 1:
            self.reason = "going round in circles"
            return None
        scripted = scripted_action(output)
        if scripted is not None:
            if scripted[0] == "EndScene":  # MCS's lava / wrong-sequence rule: the scene is over
                self.reason = "the scene allows only EndScene"
                return None
            self._plan = None  # the scene moves the performer: plan afresh afterwards
            self._remember(output, scripted)
            return scripted
        choice = self._decide(output)
        if choice is None and not self.reason:
            self.reason = "no plan"
        self._remember(output, choice)
        return choice

    def overruled(self) -> None:
        """Its last suggestion was not carried out (a learner acted instead): learn nothing from the next outcome."""
        self._last = None

    # -- to implement ------------------------------------------------------------------------------------------
    def _decide(self, output) -> ActionChoice | None:  # pragma: no cover - abstract
        raise NotImplementedError

    # -- bookkeeping -------------------------------------------------------------------------------------------
    def _remember(self, output, choice: ActionChoice | None) -> None:
        self._last_step = int(output.step_number)
        if choice is None or output.position is None:
            self._last = None
            return
        if choice[0] != "Pass":
            state = (self._pose_key(pose_of(output)), round(float(output.head_tilt)), choice[0])
            self._visits[state] += 1
            if self._visits[state] > MAX_REPEATS:
                self.loops += 1
                self._visits.clear()
                self._plan = None
        self._last = (int(output.step_number), choice[0], self._kind, pose_of(output), float(output.head_tilt))

    def _note_result(self, output) -> None:
        """Learn from the outcome of the expert's previous action (assumed executed when the step advanced by 1)."""
        last, self._last = self._last, None
        if last is None or int(output.step_number) != last[0] + 1:
            return
        _, action, kind, pose, tilt = last
        status = str(output.return_status)
        if action in MOVE_ACTIONS and status == "OBSTRUCTED":
            self._blocked.add((self._pose_key(pose), action))
            self._plan = None
            return
        if action in OBJECT_ACTIONS or action == "PutObject":
            resolved = output.resolved_receptacle if action == "PutObject" else output.resolved_object
            wrong = status == "SUCCESSFUL" and resolved is not None and kind is not None and len(kind) > 1 \
                and resolved != kind[1]
            if status not in _SUCCESS or wrong:
                self.failures += 1
                self._bad[kind].add(aim_key(pose, tilt))
                if resolved is not None and kind is not None and len(kind) > 1 and resolved != kind[1] \
                        and self._aim_centre is not None:
                    # something else is in the way from this side (e.g. a lid standing up): try another side
                    cx, cz = self._aim_centre
                    self._bad_sides[kind].append(math.degrees(math.atan2(pose.x - cx, pose.z - cz)))
                if status == "OUT_OF_REACH":
                    self._reach_cut[kind] = min(0.4, self._reach_cut[kind] + 0.1)
            elif action == "PutObject":
                self._settle = self.settle_steps
                self._placed = (kind, aim_key(pose, tilt))
        if action == "InteractWithAgent" and status == "SUCCESSFUL" and kind is not None:
            self._asked[kind[1]] = last[0]
        if action == "DropObject" and status == "SUCCESSFUL":
            self._settle = self.settle_steps
            self._placed = (kind, aim_key(pose, 0.0))

    @staticmethod
    def _pose_key(pose: Pose) -> tuple:
        return round(pose.x, 3), round(pose.z, 3), int(round(pose.yaw)) % 360

    def _moved(self, obj) -> bool:
        """Whether an object moved since the previous call (and remember where it is now)."""
        centre = _centre(obj)
        previous = self._positions.get(obj.uuid)
        self._positions[obj.uuid] = centre
        return previous is not None and float(np.max(np.abs(previous - centre))) > 1e-3

    # -- world model ---------------------------------------------------------------------------------------------
    def layout_of(self, output) -> tuple:
        """The layout (see `layout`) of a step output, computed once per output."""
        if self._layout is None or self._layout[0] is not output:
            self._layout = (output, layout(output))
        return self._layout[1]

    def in_structure(self, target, output) -> bool:
        """`in_structure`, remembered while nothing moves."""
        current = self.layout_of(output)
        memo = self._structure_memo
        if memo is None or memo[0] != current or memo[1] != target.uuid:
            memo = self._structure_memo = (current, target.uuid, in_structure(target, output))
        return memo[2]

    def graph_for(self, output) -> NavigationGraph:
        """The navigation graph of an output (rebuilt only when an obstacle appeared, went or moved > 2 cm and
        the obstacles stand still)."""
        if output is self._graph_output:  # asked several times per step
            return self._graph
        current = (self.layout_of(output), (output.position or {}).get("y"))
        if self._graph is not None and current == self._graph_layout:  # nothing moved, the floor is the same
            self._graph_output = output
            return self._graph
        self._graph_layout = current
        snapshot = {i: b.corners[:, [0, 2]] for i, b in obstacle_boxes(output)}
        room = tuple(sorted((output.room_dimensions or {}).items()))
        old = self._graph_key
        same = old is not None and old[0] == room and _moved_at_most(old[1], snapshot, MOVE_TOLERANCE)
        # An obstacle rolling on its own, away from the performer (a thrown ball), is somewhere else next step: the
        # graph is made anew once it stands still, not at every step of the roll (a large room's graph costs a second
        # or more). What moves near the performer (a tool it pushes) is taken in at once.
        rolling = (old is not None and old[0] == room and self._last_obstacles is not None
                   and _rolling_away(self._last_obstacles, snapshot, output.position))
        self._last_obstacles = snapshot
        if self._graph is None or not (same or rolling):
            self._graph = _shared_graph(output, snapshot, self.grid, self.move_actions)
            self._graph_key = (room, snapshot)
        self._graph_output = output
        return self._graph

    def fine_graph_for(self, output, graph: NavigationGraph) -> NavigationGraph:
        """The half-grid graph searched where `graph` finds no path (narrow passages), built once per graph and shared
        by the experts of a process as `graph` is (DAgger: every episode of a scene would otherwise build its own)."""
        if self._fine is None or self._fine[0] is not graph:
            fine = _FINE_GRAPHS.get(graph)
            if fine is None:
                fine = NavigationGraph.from_metadata(output, grid=self.grid / 2, actions=self.move_actions)
                _FINE_GRAPHS[graph] = fine
            self._fine = (graph, fine)
        return self._fine[1]

    def aim_goal(self, output, box: Box, kind: Any, exclude: Iterable[str] = (), open_tops: Iterable = (),
                 from_above: bool = False, max_lateral: float | None = None, elliptic: bool = False,
                 points: np.ndarray | None = None) -> AimGoal:
        """Poses from which the image centre hits `box` within reach (see AimGoal), remembering failed aims; the same
        goal object while nothing moves, so that what it worked out for a pose is kept."""
        open_tops = list(open_tops)
        graph = self.graph_for(output)
        tilts = achievable_tilts(float(output.head_tilt))
        key = (kind, len(self._bad[kind]), len(self._bad_sides[kind]), self._reach_cut[kind],
               tuple(box.center), tuple(box.half), tuple(box.axes.ravel()), tuple(sorted(exclude)),
               tuple((tuple(b.center), tuple(b.half), tuple(b.axes.ravel()), t) for b, t in AimGoal._tops(open_tops)),
               from_above, max_lateral, elliptic, None if points is None else points.tobytes(), tuple(tilts),
               float(output.position.get("y", CAMERA_HEIGHT)),
               tuple(output.camera_aspect_ratio), graph)
        current = self.layout_of(output)
        if self._aim_goals[0] != current:
            self._aim_goals = (current, {})
        goals = self._aim_goals[1]
        if key not in goals:
            goals[key] = self._new_aim_goal(output, graph, box, kind, exclude, open_tops, tilts, from_above,
                                            max_lateral, elliptic, points)
        return goals[key]

    def _new_aim_goal(self, output, graph: NavigationGraph, box: Box, kind: Any, exclude: Iterable[str],
                      open_tops: list, tilts: np.ndarray, from_above: bool, max_lateral: float | None,
                      elliptic: bool, points: np.ndarray | None = None) -> AimGoal:
        skip = set(exclude)
        occluders = []
        for obj in list(output.object_list) + list(output.structural_object_list):
            if obj.held or obj.uuid in skip or not obj.dimensions or obj.uuid == "ceiling":
                continue
            if obj.shape == DOOR_SHAPE and obj.is_open:
                continue  # its box stays that of the closed door; the panel has swung out of the doorway
            occluders.append(_box(obj))
        reach = PERFORMER_REACH - REACH_MARGIN - self._reach_cut[kind]
        return AimGoal(box, occluders, reach=reach, camera_height=float(output.position.get("y", CAMERA_HEIGHT)),
                       floor=graph.floor_at if len(graph.levels) > 1 else None,
                       tilts=tilts, image_size=tuple(output.camera_aspect_ratio),
                       open_tops=open_tops, bad=self._bad[kind], from_above=from_above, max_lateral=max_lateral,
                       elliptic=elliptic, avoid_bearings=self._bad_sides[kind], points=points,
                       key=(kind, len(self._bad[kind]), len(self._bad_sides[kind]), round(self._reach_cut[kind], 2),
                            tuple(np.round(box.center, 2)), tuple(np.round(box.half, 3)),
                            tuple(round(float(t), 3) for _, t in AimGoal._tops(open_tops)),
                            round(float(output.head_tilt)) % 10, points is not None))

    # -- acting ----------------------------------------------------------------------------------------------------
    def act_at(self, output, goal: Goal, kind: Any, action: ActionChoice) -> ActionChoice | None:
        """`action` when the performer is at a goal pose (after tilting the head for an aim), else the next move."""
        self._kind = kind
        self._aim_centre = (float(goal.box.center[0]), float(goal.box.center[2])) if isinstance(goal, AimGoal) else None
        pose = pose_of(output)
        if goal(pose):
            if isinstance(goal, AimGoal):
                tilt = goal.best_tilt(pose)
                current = float(output.head_tilt)
                if tilt is not None and abs(tilt - current) > 1e-3:
                    return ("LookDown", {}) if tilt > current else ("LookUp", {})
            self._plan = None
            return action
        return self.navigate(output, goal, kind)

    def navigate(self, output, goal: Goal, kind: Any = None) -> ActionChoice | None:
        """The next action of a plan to a goal pose; the plan is kept while the performer is on it, its end is
        still a goal pose and its moves are still free, and made again otherwise (closed loop)."""
        pose = pose_of(output)
        graph = self.graph_for(output)
        if self._plan is not None and self._plan_kind == kind:
            plan = self._plan
            for j in range(self._plan_index, len(plan)):
                expected = self._plan_start if j == 0 else plan[j - 1][1]
                if _close(pose, expected):
                    valid = goal(plan[-1][1]) and (graph is self._plan_graph or all(
                        graph.is_free(p.x, p.z) for a, p in plan[j:] if a in MOVE_ACTIONS))
                    if valid:
                        self._plan_index = j + 1
                        return plan[j][0], {}
                    self.invalidations += 1  # on the plan, but its end stopped being a goal pose
                    if self.invalidations > MAX_INVALIDATIONS:
                        self._plan = None
                        self.reason = "the goal keeps moving"
                        return None
                    break
        door = self._remembered_door(output, kind)
        if door is not None and not door.is_open and kind != ("open", door.uuid):
            # the way to this goal was found closed by this door before: open it first, without searching again
            return self.act_at(output, self._open_goal(output, door), ("open", door.uuid), ("OpenObject", {}))
        if not graph.feasible(goal):
            self._plan = None
            door = self._door_in_the_way(output, goal)
            if door is not None and kind != ("open", door.uuid):
                self._remember_door(output, kind, door)  # the only goal poses lie in a closed doorway, say
                return self.act_at(output, self._open_goal(output, door), ("open", door.uuid), ("OpenObject", {}))
            self.reason = "no goal pose (nowhere to act from)"
            return None
        if self._plan is not None and self._plan_kind == kind:
            # Off a plan (someone else acted, as a learner does under DAgger): step down the goal's distance
            # field instead of searching again, until the goal is near.
            blocked_yaws = [p[2] for p, a in self._blocked
                            if a == "MoveAhead" and abs(p[0] - pose.x) < 0.01 and abs(p[1] - pose.z) < 0.01]
            action = graph.descent_action(pose, goal, blocked_yaws)
            if action is not None:
                return action, {}
        blocked = {(graph.node(Pose(*p)), a) for p, a in self._blocked}
        stuck = not graph.is_free(pose.x, pose.z)  # something came to rest against the performer
        path = graph.plan(pose, goal, blocked=blocked, max_expansions=self.max_expansions // (10 if stuck else 1))
        if not path and stuck:  # step away first
            blocked_yaws = [p[2] for p, a in self._blocked
                            if a == "MoveAhead" and abs(p[0] - pose.x) < 0.01 and abs(p[1] - pose.z) < 0.01]
            action = graph.escape_action(pose, blocked_yaws)
            if action is not None:
                self._plan = None
                return action, {}
        if not path and not stuck:  # a long way (up a ramp, around a platform): a weighted search finds one sooner
            path = graph.plan(pose, goal, blocked=blocked, max_expansions=self.max_expansions, weight=LONG_WAY_WEIGHT)
        if not path and self.grid > 0.03:
            fine = self.fine_graph_for(output, graph)
            blocked = {(fine.node(Pose(*p)), a) for p, a in self._blocked}
            path = fine.plan(pose, goal, blocked=blocked, max_expansions=self.max_expansions)
        if not path:
            self._plan = None
            door = self._door_in_the_way(output, goal)
            if door is not None and kind != ("open", door.uuid):
                self._remember_door(output, kind, door)
                return self.act_at(output, self._open_goal(output, door), ("open", door.uuid), ("OpenObject", {}))
            self.reason = "no path to a goal pose"
            return None
        self._plan, self._plan_kind, self._plan_start, self._plan_index = path, kind, pose, 1
        self._plan_graph = graph
        return path[0][0], {}

    def _remember_door(self, output, kind: Any, door) -> None:
        """Note the closed door found in the way to a goal, with where the goal's object stands now."""
        self._doors[kind] = (door.uuid, _kind_centre(_objects(output), kind))

    def _remembered_door(self, output, kind: Any) -> Any | None:
        """The door noted for a goal, unless the goal's object has moved since (a rolled target may now lie on the
        other side of the room, behind another door)."""
        if kind not in self._doors:
            return None
        door_id, centre = self._doors[kind]
        objects = _objects(output)
        now = _kind_centre(objects, kind)
        if centre is not None and (now is None or float(np.hypot(*(now - centre)[[0, 2]])) > DOOR_MEMO_MOVE):
            del self._doors[kind]
            return None
        return objects.get(door_id)

    def _door_in_the_way(self, output, goal: Goal) -> Any | None:
        """The closed door to open when no path reaches a goal (or no goal pose is free): plan again as if every
        closed door were open and take the door that path passes nearest (None without closed doors or when that
        does not help either)."""
        doors = [o for o in output.object_list
                 if o.shape == DOOR_SHAPE and o.openable and not o.is_open and not o.locked and o.dimensions]
        if not doors:
            return None
        pose = pose_of(output)
        relaxed = NavigationGraph.from_metadata(output, grid=self.grid, actions=self.move_actions,
                                                ignore={d.uuid for d in doors})
        if isinstance(goal, AimGoal):
            goal = goal.without_occluders([_box(d) for d in doors])  # nor do they hide what is behind them
        if not relaxed.feasible(goal):
            return None
        path = relaxed.plan(pose, goal, max_expansions=self.max_expansions)
        if not path:
            return None
        points = np.array([[pose.x, pose.z]] + [[p.x, p.z] for _, p in path])
        gaps = [float(Obstacles([_box(d).footprint()]).distance(points).min()) for d in doors]
        return doors[int(np.argmin(gaps))]

    def _open_goal(self, output, obj, inside: Iterable[str] = ()) -> AimGoal:
        """Where to aim to open an object (the middle of its box, then most of it); `inside`: ids of objects within
        it, which do not block the aim."""
        kind = ("open", obj.uuid)
        goal = None
        for shrink in (CONTAINER_SHRINK, 0.9):
            goal = self.aim_goal(output, _box(obj).scaled(shrink), kind, exclude={obj.uuid, *inside})
            if self.graph_for(output).feasible(goal):
                break
        return goal

    def fetch_goal(self, output, target) -> tuple[AimGoal, Any, ActionChoice]:
        """(goal, kind, action) of the next step of fetching an object: open its closed container, or pick it up.

        Aims are tried strict first (the middle of the object, container walls as high as the container) and
        relaxed when no pose satisfies them (a bigger part of the object, walls below the lid; last, no walls in the
        way, as a container open at its sides, a support-relations channel, has none)."""
        container = container_of(target, output)
        graph = self.graph_for(output)
        if container is not None and not container.is_open:
            cbox = _box(container)
            inside = {o.uuid for o in output.object_list
                      if o.uuid != container.uuid and cbox.contains(_centre(o), margin=0.01)}
            return self._open_goal(output, container, inside), ("open", container.uuid), ("OpenObject", {})
        exclude = {target.uuid}
        container = container or container_of(target, output, openable=False)  # opened, or open at the top
        if container is not None:
            exclude.add(container.uuid)
        if target.associated_with_agent:
            exclude.add(target.associated_with_agent)  # held out in front of the agent, inside its box
        kind = ("pickup", target.uuid)
        goal = None
        points = visibility_points(target) if container is not None else None  # walls may hide it
        for shrink, lid in ((PICKUP_SHRINK, 0.0), (0.8, LID_FRACTION), (0.8, None)):
            open_tops = []
            if container is not None and lid is not None:
                cbox = _box(container)
                open_tops.append((cbox, cbox.top - lid * (cbox.top - cbox.bottom) + RIM_MARGIN))
            goal = self.aim_goal(output, _box(target).scaled(shrink), kind, exclude=exclude, open_tops=open_tops,
                                 points=points)
            if graph.feasible(goal):
                break
        return goal, kind, ("PickupObject", {})

    def dispose(self, output, held, target) -> ActionChoice | None:
        """Put down an object picked up by mistake (the container, say) away from the target: DropObject from a
        pose where it lands on clear floor at least 0.8 m from the target."""
        if _box(held).contains(_centre(target), margin=0.05):
            return "DropObject", {}  # the target is in what it holds (a container): put both down here
        corners = DropGoal.held_corners(held, pose_of(output))
        others = [b.footprint() for i, b in obstacle_boxes(output, ignore={held.uuid})]
        room = output.room_dimensions or {"x": 10.0, "z": 10.0}
        centre = _centre(target)
        pose = pose_of(output)
        goal = ClearDropGoal((float(centre[0]), float(centre[2])), corners, Obstacles(others),
                             (float(room["x"]), float(room["z"])), near=(pose.x, pose.z, 1.5))
        kind = ("dispose", held.uuid)
        if not self.graph_for(output).feasible(goal):
            return "DropObject", {}
        return self.act_at(output, goal, kind, ("DropObject", {}))

    def fetch(self, output, target) -> ActionChoice | None:
        """Go to and pick up an object, opening the closed container it is in first, or asking the agent that
        holds it to hand it over (InteractWithAgent, then wait until it is held out)."""
        agent = holder_of(target, output)
        if agent is not None:
            asked = self._asked.get(agent.uuid)
            if asked is not None and int(output.step_number) - asked <= OFFER_WAIT:
                return "Pass", {}
            goal = None
            kind = ("agent", agent.uuid)
            box = _box(agent)
            # a walking agent: aim at its box snapped to a 10 cm grid, so that the goal (and its search) changes
            # every few steps, not at every one; the middle half of its box still covers the snapped centre
            snapped = np.round(box.center / AGENT_SNAP) * AGENT_SNAP
            box = Box(np.array([snapped[0], box.center[1], snapped[2]]), box.axes, box.half)
            for shrink in (PICKUP_SHRINK, 0.9):
                goal = self.aim_goal(output, box.scaled(shrink), kind, exclude={agent.uuid, target.uuid})
                if self.graph_for(output).feasible(goal):
                    break
            return self.act_at(output, goal, kind, ("InteractWithAgent", {}))
        container = container_of(target, output)
        if container is not None and not container.is_open and container.locked:
            self.reason = "the target's container is locked"
            return None
        goal, kind, action = self.fetch_goal(output, target)
        return self.act_at(output, goal, kind, action)

    def shortest_path_length(self, output) -> int | None:
        """The SPL reference path length: moves and turns of a shortest path from the output's pose through the
        places the expert acts from (retrieval: where it can open the container / pick up the target; traversal:
        within reach; transferral: where it picks up target_1, then where it can place it). None when there is
        none. Looks and interactions are not counted."""
        graph = self.graph_for(output)
        pose, total = pose_of(output), 0
        for goal in self.legs(output):
            if goal is None:
                return None
            path = graph.plan(pose, goal, max_expansions=self.max_expansions)
            if path is None:
                return None
            total += len(path)
            if path:
                pose = path[-1][1]
        return total

    def legs(self, output) -> list[Goal | None]:
        """The navigation goals of an episode, in order (for `shortest_path_length`)."""
        return [self.first_goal(output)]

    def first_goal(self, output) -> Goal | None:  # pragma: no cover - abstract
        """The navigation goal of the episode's first phase."""
        raise NotImplementedError


_GRAPHS = SharedCache(128)  # graphs kept per process: samplers looping over their shares of scenes build each once
_FINE_GRAPHS: "weakref.WeakKeyDictionary[NavigationGraph, NavigationGraph]" = weakref.WeakKeyDictionary()  # per graph


def _shared_graph(output, snapshot: dict, grid: float, actions: tuple) -> NavigationGraph:
    """The navigation graph of an output, shared by the experts of a process: the same scene start (room, obstacles
    to the millimetre, anchor pose) gives the same graph, with its distance fields and searches already done."""
    return _GRAPHS.get((start_key(output, snapshot.items()), grid, actions),
                       lambda: NavigationGraph.from_metadata(output, grid=grid, actions=actions))


def _steps_to_spare(output) -> int:
    """Steps left before the scene's step limit less FETCH_RESERVE (0 when the scene sets no limit)."""
    last = output.goal.last_step if output.goal is not None else None
    return max(0, int(last) - int(output.step_number) - FETCH_RESERVE) if last else 0


def _moved_at_most(before: dict, after: dict, tolerance: float) -> bool:
    """Whether two obstacle snapshots (id -> x-z corners) hold the same obstacles, none moved more than `tolerance`."""
    return before.keys() == after.keys() and all(
        float(np.max(np.abs(before[i] - corners))) <= tolerance for i, corners in after.items())


def _rolling_away(before: dict, after: dict, position: dict | None) -> bool:
    """Whether, between two obstacle snapshots of consecutive steps, something moved and all that moved is further
    than ROLLING_DISTANCE from the performer at `position`."""
    if before.keys() != after.keys() or position is None:
        return False
    here = np.array([position["x"], position["z"]])
    moved = [corners for i, corners in after.items() if float(np.max(np.abs(before[i] - corners))) > STILL_TOLERANCE]
    return bool(moved) and all(float(np.min(np.hypot(*(c - here).T))) > ROLLING_DISTANCE for c in moved)


def _close(a: Pose, b: Pose | None) -> bool:
    return b is not None and abs(a.x - b.x) < 0.01 and abs(a.z - b.z) < 0.01 and abs(angle_difference(a.yaw, b.yaw)) < 1.0


class RetrievalExpert(Expert):
    """Retrieval (and multi retrieval): reach each target (opening its container), face it, look at it, pick it
    up; drop it before fetching the next one; End when enough targets were picked up."""

    categories = ("retrieval", "multi retrieval")

    def _targets(self, output) -> list[str]:
        return output.goal.target_ids() if output.goal is not None else []

    def _decide(self, output) -> ActionChoice | None:
        ids = self._targets(output)
        if not ids:
            self.reason = "the goal names no target"
            return None
        held = [o for o in output.object_list if o.held]
        for obj in held:
            if obj.uuid in ids:
                self._picked.add(obj.uuid)
        if len([i for i in ids if i in self._picked]) >= pickups_needed(output.goal):
            return "End", {}
        objects = {o.uuid: o for o in output.object_list}
        pending = [objects[i] for i in ids if i not in self._picked and i in objects]
        if held:
            if not pending or any(o.uuid in ids for o in held):
                return "DropObject", {}  # a target already counted: the hand must be free for the next one
            return self.dispose(output, held[0], pending[0])
        if not pending:
            self.reason = "no target in the metadata"
            return None
        pose = pose_of(output)
        target = min(pending, key=lambda o: (math.hypot(_centre(o)[0] - pose.x, _centre(o)[2] - pose.z), o.uuid))
        shove = self.tools.next_action(self, output, target)  # a target stranded in lava: bring it out with a tool
        if shove is not None:
            return shove
        moving = self._moved(target)
        if holder_of(target, output) is None and (
                self._waited < MAX_WAIT and (moving or self.in_structure(target, output))
                or moving and _steps_to_spare(output) > 0):
            # a target on its way (thrown, rolling, carried round) or still in its launcher: wait until it rests
            # rather than chase it (a moving goal means a search at every step); one still moving waits on for as
            # long as the scene's step limit leaves FETCH_RESERVE steps to fetch it (a ball rolling for 400 steps)
            self._waited += 1
            return "Pass", {}
        return self.fetch(output, target)

    def reset(self) -> None:
        """Forget the episode, including how long it waited for a moving target."""
        super().reset()
        self._waited = 0
        self.tools = ToolSkill()

    def first_goal(self, output) -> Goal | None:
        """Aim at the nearest target (or at its closed container)."""
        objects = {o.uuid: o for o in output.object_list}
        pending = [objects[i] for i in self._targets(output) if i in objects]
        if not pending:
            return None
        pose = pose_of(output)
        target = min(pending, key=lambda o: (math.hypot(_centre(o)[0] - pose.x, _centre(o)[2] - pose.z), o.uuid))
        return self.fetch_goal(output, target)[0]


class ImitationExpert(RetrievalExpert):
    """Imitation: open the containers of the goal's `triggeredByTargetSequence` in that order (as the agent showed),
    wait while the target is being placed, then retrieve it."""

    categories = ("imitation",)

    def _decide(self, output) -> ActionChoice | None:
        objects = _objects(output)
        for container_id in next_in_sequence(output):
            container = objects.get(container_id)
            if container is None:
                self.reason = "a container of the sequence is not in the metadata"
                return None
            return self.act_at(output, self._open_goal(output, container), ("open", container.uuid), ("OpenObject", {}))
        step = int(output.step_number)
        if self._placed_from is None:
            self._placed_from = step
        targets = [objects[i] for i in self._targets(output) if i in objects]
        moving = [self._moved(target) for target in targets]
        if any(moving) or step - self._placed_from < PLACEMENT_START:
            return "Pass", {}  # the opened sequence triggers the target's placement: wait until it is down
        return super()._decide(output)

    def reset(self) -> None:
        """Forget the episode, including when the sequence was completed."""
        super().reset()
        self._placed_from: int | None = None

    def first_goal(self, output) -> Goal | None:
        """Aim at the first container of the sequence still closed (else at the target)."""
        objects = _objects(output)
        for container_id in next_in_sequence(output):
            container = objects.get(container_id)
            return None if container is None else self.aim_goal(
                output, _box(container).scaled(CONTAINER_SHRINK), ("open", container_id), exclude={container_id})
        return super().first_goal(output)


def next_in_sequence(output) -> list[str]:
    """Ids of the goal's trigger sequence from its first container that is still closed on (empty when all are
    open or the goal has no sequence)."""
    sequence = list((output.goal.triggered_by_target_sequence or []) if output.goal is not None else [])
    objects = _objects(output)
    for index, container_id in enumerate(sequence):
        container = objects.get(container_id)
        if container is None or not container.is_open:
            return sequence[index:]
    return []


class TraversalExpert(Expert):
    """Traversal: reach a position within reach (x-z) of the target's footprint, then End."""

    categories = ("traversal",)

    def first_goal(self, output) -> Goal | None:
        """Within reach of the target."""
        target_id = ((output.goal.metadata or {}).get("target") or {}).get("id") if output.goal else None
        target = _objects(output).get(target_id)
        if target is None:
            return None
        return NearGoal.of_object(target, PERFORMER_REACH - TRAVERSAL_MARGIN)

    def _decide(self, output) -> ActionChoice | None:
        goal = self.first_goal(output)
        if goal is None:
            self.reason = "no target in the metadata"
            return None
        self._kind = ("near",)
        if goal(pose_of(output)):
            return "End", {}
        return self.navigate(output, goal, self._kind)


class TransferralExpert(Expert):
    """Transferral: pick up target_1, carry it to target_2, then PutObject on it (on_top_of) or DropObject beside
    it (next_to); wait for it to settle, End when the relationship holds (else fetch it again)."""

    categories = ("transferral",)

    def _parts(self, output):
        metadata = (output.goal.metadata or {}) if output.goal else {}
        objects = _objects(output)
        first = objects.get((metadata.get("target_1") or {}).get("id"))
        second = objects.get((metadata.get("target_2") or {}).get("id"))
        return first, second, relation_name(metadata.get("relationship"))

    def _decide(self, output) -> ActionChoice | None:
        first, second, relation = self._parts(output)
        if first is None or second is None or relation not in ("next_to", "on_top_of"):
            self.reason = "the goal's targets or relationship are missing"
            return None
        moving = self._moved(first)
        if first.held:
            self._settle = 0
            goal, action = self._place_goal(output, first, second, relation)
            if goal is None:
                return None
            return self.act_at(output, goal, ("place", second.uuid), action)
        wrong = [o for o in output.object_list if o.held]
        if wrong:
            return self.dispose(output, wrong[0], first)
        if self._settle > 0 and moving:
            self._settle -= 1
            return "Pass", {}
        self._settle = 0
        if relationship_holds(first, second, relation):
            return "End", {}
        if self._placed is not None:  # it was put down but did not stay where it had to: try elsewhere
            kind, key = self._placed
            self._placed = None
            self.failures += 1
            self._bad[kind].add(key)
        return self.fetch(output, first)

    def _place_goal(self, output, first, second, relation: str) -> tuple[Goal | None, ActionChoice]:
        sbox = _box(second)
        if relation == "on_top_of":
            return self._put_goal(output, first, second, sbox), ("PutObject", {})
        corners = DropGoal.held_corners(first, pose_of(output))
        others = [b.footprint() for i, b in obstacle_boxes(output, ignore={first.uuid, second.uuid})]
        room = output.room_dimensions or {"x": 10.0, "z": 10.0}
        kind = ("place", second.uuid)
        goal = DropGoal(sbox.aabb_xz(), corners, Obstacles(others), (float(room["x"]), float(room["z"])),
                        bad=self._bad[kind])
        return goal, ("DropObject", {})

    def _put_goal(self, output, first, second, sbox: Box) -> AimGoal:
        """Aim at target_2's top from above (its centre, then its middle, then more of it: never beyond the ellipse
        inscribed in its bounding box, as round tops are); when no pose sees the top (a top above the camera), aim
        through the top's near side from where its centre is in reach, else at the middle of that side, where the
        simulator sets the object on the edge."""
        graph = self.graph_for(output)
        kind = ("place", second.uuid)
        camera_y = float(output.position.get("y", CAMERA_HEIGHT))
        if camera_y > sbox.top + 0.02:
            edge_room = 1.0 - TOP_INSET / max(float(min(sbox.half[0], sbox.half[2])), 1e-6)
            for shrink in (TOP_CENTRE, TOP_SHRINK, max(TOP_SHRINK, edge_room)):
                top = Box(np.array([sbox.center[0], sbox.top - 0.01, sbox.center[2]]), sbox.axes,
                          np.array([sbox.half[0] * shrink, 0.01, sbox.half[2] * shrink]))
                goal = self.aim_goal(output, top, kind, exclude={first.uuid}, from_above=True, elliptic=True)
                if graph.feasible(goal):
                    return goal
        # The top out of sight: first from where its centre is in reach (MCS then sets the object there), through
        # the top's near side; else at the middle of that side, where the object is set on the near edge.
        exclude = {first.uuid, second.uuid}

        def slab(half_x: float, half_z: float) -> Box:  # the top's upper 4 cm about its centre
            return Box(np.array([sbox.center[0], sbox.top - 0.0225, sbox.center[2]]), sbox.axes,
                       np.array([half_x, 0.0175, half_z]))

        goal = self.aim_goal(output, slab(TOP_CENTRE_HALF, TOP_CENTRE_HALF), kind, exclude=exclude)
        if graph.feasible(goal):
            return goal
        return self.aim_goal(output, slab(sbox.half[0] * 0.99, sbox.half[2] * 0.99), kind, exclude=exclude,
                             max_lateral=0.35 * float(min(sbox.half[0], sbox.half[2])))

    def first_goal(self, output) -> Goal | None:
        """Aim at target_1 (or its closed container)."""
        first, _, _ = self._parts(output)
        if first is None:
            return None
        return self.fetch_goal(output, first)[0]

    def legs(self, output) -> list[Goal | None]:
        """Fetch target_1, then reach a place to put it on target_2 (next_to: within the carrying distance)."""
        first, second, relation = self._parts(output)
        if first is None or second is None:
            return [None]
        if first.held:
            fetch: list[Goal | None] = []
        else:
            fetch = [self.first_goal(output)]
        sbox = _box(second)
        if relation == "on_top_of":
            return fetch + [self._put_goal(output, first, second, sbox)]
        fbox = _box(first)
        carry = HELD_AHEAD + float(max(fbox.half[0], fbox.half[2])) * 2.0 + 0.05
        return fetch + [NearGoal(*sbox.aabb_xz(), carry)]


_EXPERTS = {category: cls for cls in (RetrievalExpert, ImitationExpert, TraversalExpert, TransferralExpert)
            for category in cls.categories}


def shortest_path_length(output, goal_category: str | None = None, **kwargs) -> int | None:
    """The SPL reference path length of a step output's scene from its pose (see `Expert.shortest_path_length`)."""
    category = goal_category or (output.goal.category if output.goal is not None else "")
    return make_expert(category, **kwargs).shortest_path_length(output)


class NoExpertError(ValueError):
    """A goal category without an expert (the passive categories, for example)."""


def make_expert(goal_category: str, **kwargs) -> Expert:
    """The expert of a goal category ('retrieval', 'multi retrieval', 'imitation', 'traversal', 'transferral')."""
    cls = _EXPERTS.get(str(goal_category).strip().lower())
    if cls is None:
        raise NoExpertError(f"no expert for goal category {goal_category!r}; experts exist for: {', '.join(sorted(_EXPERTS))}")
    return cls(**kwargs)


def expert_categories() -> tuple[str, ...]:
    """Goal categories that have an expert."""
    return tuple(sorted(_EXPERTS))


# -- running an expert on a scene ----------------------------------------------------------------------------------
@dataclass
class ExpertRun:
    """How an expert did on one scene."""

    scene: str
    category: str
    success: bool
    steps: int
    ended: str  # "End", "gave up: <reason>", "step limit", "last_step", "error: <message>"
    actions: list[str] = field(default_factory=list)


def run_expert(scene: str | Path | dict, controller=None, max_steps: int | None = None, expert: Expert | None = None,
               record_actions: bool = False) -> ExpertRun:
    """Run the expert of a scene's goal category on the embedded simulator (oracle metadata, no rendering).

    Success is the simulator's verdict on the final step output: reward > 0 under the seed reward mode (1 when
    the goal is achieved).
    """
    from mcs_plugin.sim.controller import EmbeddedController

    if controller is None:
        controller = EmbeddedController({"metadata": "oracle", "render": False, "reward_mode": "seed"})
    name = scene.get("name", "scene") if isinstance(scene, dict) else str(scene)
    output = controller.start_scene(scene)
    category = output.goal.category if output.goal is not None else ""
    if expert is None:
        expert = make_expert(category)
    expert.reset()
    width, height = output.camera_aspect_ratio
    limit = max_steps if max_steps is not None else (output.goal.last_step or 1000)
    steps, ended, actions = 0, "step limit", []
    try:
        while steps < limit:
            choice = expert.next_action(output)
            if choice is None:
                ended = f"gave up: {expert.reason}"
                break
            action, params = choice
            if record_actions:
                actions.append(action)
            if action == "End":
                ended = "End"
                break
            name_, params = to_controller_call(action, params, width, height)
            nxt = controller.step(name_, **params)
            if nxt is None:
                ended = "last_step"
                break
            output = nxt
            steps += 1
    except ValueError as error:  # an action the scene does not allow
        ended = f"error: {error}"
    success = float(output.reward) > 0.0
    try:
        controller.end_scene()
    except RuntimeError:
        pass
    return ExpertRun(name, category, success, steps, ended, actions)
