"""MCS action semantics: parameter checks, target resolution, return statuses and their effects."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from mcs_plugin.constants import (
    CAMERA_FIELD_OF_VIEW, CRAWLING, LYING, PERFORMER_RADIUS, PERFORMER_REACH, ROTATE_DEGREES, STANDING,
)
from mcs_plugin.mcs import Action, ReturnStatus
from mcs_plugin.mcs.params import bool_param, check_params, choice_param, direction_keys, number_param
from mcs_plugin.sim.camera import camera_basis, image_points, pixel_ray
from mcs_plugin.sim.coords import unity_euler_to_mj_matrix, yaw_forward_mj, yaw_right_mj
from mcs_plugin.sim.observation import MAX_VISIBLE_DISTANCE
from mcs_plugin.sim.performer import TOUCH_TOLERANCE, Performer
from mcs_plugin.sim.world import FLOOR_ID, SimObject, World

S = ReturnStatus
HELD_AHEAD = 0.24  # a held object's near side sits this far ahead of the camera
HELD_BELOW = 0.08  # and its top this far below the camera (and its bottom at least this far above the floor)
SPAWN_POINT_LIFT = 0.05  # AI2-THOR's receptacle spawn points lie this far above the bottom of the trigger box
PLACE_LIFT = 0.005  # and an object placed at one is let go this far above it (InstantiatePrefabTest's yoffset)
CONTAINER_DROP = SPAWN_POINT_LIFT + PLACE_LIFT  # an object put into a container is let go this far above its floor
PLACE_YAWS = (0.0, 90.0, 180.0, 270.0)  # world yaws a put object is tried at, in order (PlaceObject, 90-degree steps)
SPAWN_VIEW_LIFT = 0.05  # a spawn point not below the camera is looked at this far above it (NarrowDownValidSpawnPoints)
SPAWN_VIEW_MARGIN = 0.01  # the sight line to a spawn point may meet something this close before it (Unity raycast)
AGENT_HELD_GROWTH = 0.073  # an object taken from a simulation agent is held this much further out and lower
DEFAULT_FORCE = 0.5  # MCS's default `force` of PushObject, PullObject, TorqueObject and ThrowObject
DEFAULT_CLOCKWISE = True  # MCS's default `clockwise` of RotateObject
THROW_SPEED = 8.0  # m/s at force 1
HELD_THROW_MAGNITUDE = 0.1  # MoveObject / RotateObject on the held object throw it with MCS's default moveMagnitude
PUSH_IMPULSE = 10.0  # N*s at force 1 (a 1 kg ball leaves at 5 m/s with the default force 0.5)
TORQUE_IMPULSE = 21.9  # N*m*s at force 1 (a 6.5 kg 1 x 9 m tool turns 1, 1, 2, 3 degrees in 4 torques)
ROTATE_OBJECT_DEGREES = 5.0
MOVE_OBJECT_DISTANCE = 0.1
OVERLAP_TOLERANCE = 0.005  # overlaps deeper than this block kinematic moves and rotations of objects
PLACE_GRID_STEP = 0.05  # metres between the other spots PutObject tries on a receptacle where the first is taken
PLACE_GRID_CELLS = 20  # ...and at most this many along its longer side
REACH_TOLERANCE = 1e-3  # an object exactly at the reach is out of it (ball surface 1.0 m from the axis)


@dataclass
class Outcome:
    """What an action did: its status and the ids it resolved."""

    status: ReturnStatus
    resolved_object: str | None = None
    resolved_receptacle: str | None = None
    black_frame: bool = False


def _lenient_angles(params: dict, keys: tuple[tuple[str, float], ...]) -> tuple[list[float], ReturnStatus]:
    """Seed 002 angle parameters: a value outside [-limit, limit] (or not a number) becomes 0."""
    status, values = S.SUCCESSFUL, []
    for key, limit in keys:
        try:
            value = float(params.get(key, 0.0))
        except (TypeError, ValueError):
            value = math.nan
        if not -limit <= value <= limit:
            value, status = 0.0, S.SUCCESSFUL_WITH_INVALID_PARAMETERS
        values.append(value)
    return values, status


def _spots_nearest_first(first: np.ndarray, low: np.ndarray, high: np.ndarray) -> list[np.ndarray]:
    """`first`, then a grid of points over the (x, y) box low..high, nearest to `first` first."""
    step = max(PLACE_GRID_STEP, float(np.max(high - low)) / PLACE_GRID_CELLS)
    xs = np.arange(low[0], high[0] + 1e-9, step)
    ys = np.arange(low[1], high[1] + 1e-9, step)
    grid = np.stack(np.meshgrid(xs, ys, indexing="ij"), axis=-1).reshape(-1, 2)
    grid = grid[np.argsort(np.linalg.norm(grid - first, axis=1), kind="stable")]
    return [first, *grid]


class ActionRunner:
    """Carries out one MCS action on a world and a performer and says how it went."""

    def __init__(self, world: World, performer: Performer, width: int, height: int, restrict_open: str | None = None):
        self.world = world
        self.performer = performer
        self.width = width
        self.height = height
        self.held: list[SimObject] = []
        self.max_held = 1
        self.noise: Callable[[], float] = lambda: 0.0
        self.visible: Callable[[], dict[str, float]] = dict
        self.restrict_open = restrict_open  # None, "doors" or "objects": only one may ever be opened
        self._opened_once: set[str] = set()
        self.hidden_params: dict = {}
        self.hand = (HELD_AHEAD, -HELD_BELOW)  # (ahead of the camera, above it) of held objects' origins
        self._carried: dict[str, list] = {}  # held container id -> [(content, position, rotation in it)]
        self._from_agent: set[str] = set()  # ids of objects the performer took from a simulation agent
        self.agents = None  # the scene's simulation agents (sim.agents.Agents), set by the controller
        self.step = 0  # the step being run
        self._held_rotation: dict[str, np.ndarray] = {}  # held object id -> rotation relative to the performer's yaw
        self._handlers: dict[str, Callable[[dict], Outcome]] = {
            Action.MOVE_AHEAD: self._move, Action.MOVE_BACK: self._move, Action.MOVE_LEFT: self._move,
            Action.MOVE_RIGHT: self._move, Action.ROTATE_LEFT: self._rotate, Action.ROTATE_RIGHT: self._rotate,
            Action.LOOK_UP: self._look, Action.LOOK_DOWN: self._look, Action.ROTATE_LOOK: self._rotate_look,
            Action.PICKUP_OBJECT: self._pickup, Action.PUT_OBJECT: self._put, Action.DROP_OBJECT: self._drop,
            Action.THROW_OBJECT: self._throw, Action.PUSH_OBJECT: self._push_pull, Action.PULL_OBJECT: self._push_pull,
            Action.TORQUE_OBJECT: self._torque, Action.ROTATE_OBJECT: self._rotate_object,
            Action.MOVE_OBJECT: self._move_object, Action.OPEN_OBJECT: self._open_close,
            Action.CLOSE_OBJECT: self._open_close, Action.INTERACT_WITH_AGENT: self._interact,
            Action.ROTATE_OBJECT_IN_HAND: self._rotate_in_hand,
            Action.CRAWL: self._pose, Action.LIE_DOWN: self._pose, Action.STAND: self._pose,
            Action.END_HABITUATION: self._end_habituation, Action.PASS: lambda p: Outcome(S.SUCCESSFUL),
        }
        self._action = ""

    def supports(self, action: str) -> bool:
        """Whether this runner knows the action."""
        return action in self._handlers

    def validate(self, action: str, params: dict) -> None:
        """Raise ValueError for a parameter MCS rejects before running (ranges, types, coordinates, targets)."""
        check_params(action, params, (self.width, self.height))

    def run(self, action: str, params: dict) -> Outcome:
        """Carry out an action (already validated) and report its outcome."""
        self._action = action
        return self._handlers[action](params)

    # -- helpers ------------------------------------------------------------------------------------
    def _camera(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        forward, up = self.performer.camera_axes()
        return self.performer.camera_mj(), forward, up

    def _ray_from_params(self, params: dict, prefix: str) -> np.ndarray | None:
        """A world ray direction from image coordinates or a camera-frame direction, if given."""
        _, forward, up = self._camera()
        x_key, y_key = f"{prefix}ImageCoordsX", f"{prefix}ImageCoordsY"
        if x_key in params or y_key in params:
            # MCS's Python API sends Unity the integer screen point (x, height - 1 - y), origin at the bottom left,
            # and Camera.ScreenPointToRay aims at that point: the lower left corner of the pixel, not its centre.
            px = float(int(float(params.get(x_key, 0))))
            py = float(int(float(params.get(y_key, 0))) + 1)
            return pixel_ray(px, py, self.width, self.height, CAMERA_FIELD_OF_VIEW, forward, up)
        dir_keys = direction_keys(prefix)
        if any(k in params for k in dir_keys):
            dx, dy, dz = (float(params.get(k, 0.0)) for k in dir_keys)
            right = np.cross(forward, up)
            direction = right * dx + up * dy + forward * dz
            return direction / np.linalg.norm(direction)  # not zero: check_params ran
        return None

    def resolve(self, params: dict, prefix: str = "object") -> tuple[SimObject | None, ReturnStatus | None, np.ndarray | None]:
        """The object a parameter set points at: (object, failure status or None, hit point of the image ray).

        Reach follows MCS: a visible object is in reach when its nearest surface is within PERFORMER_REACH of the
        reach zone's axis (Unity's capsule overlap test, Performer.reach_distance); an object that cannot be seen is
        OUT_OF_REACH when its nearest surface is beyond PERFORMER_REACH from the camera and NOT_VISIBLE otherwise.
        """
        object_id = params.get(f"{prefix}Id")
        cam = self.performer.camera_mj()
        hit = None
        if object_id is not None:
            obj = self.world.by_id.get(str(object_id)) or self.world.floor_tile(str(object_id))
            if obj is None or (not obj.present and not obj.held):
                return None, S.NOT_OBJECT, None
            if obj.held:
                return obj, None, None
            visible = (FLOOR_ID if obj.is_floor else obj.id) in self.visible()
        else:
            direction = self._ray_from_params(params, prefix)
            if direction is None:  # check_params rejected the action before it ran
                raise ValueError(f"{self._action} needs {prefix}Id or {prefix}ImageCoordsX/Y")
            geom, dist = self.world.ray(cam, direction)
            if geom < 0 or dist > MAX_VISIBLE_DISTANCE:
                return None, S.NOT_OBJECT, None
            obj = self.world.owner(geom)
            if obj is None:
                return None, S.NOT_INTERACTABLE, None
            hit = cam + direction * dist
            # MCS only turns an image point into an id (MCSController.ConvertScreenPointToId); the action then checks
            # that id's visibility as for an id given directly. (A seed-002 direction vector keeps its target.)
            by_image = f"{prefix}ImageCoordsX" in params or f"{prefix}ImageCoordsY" in params
            visible = not by_image or (FLOOR_ID if obj.is_floor else obj.id) in self.visible()
            if obj.is_floor and self.world.floor_grid is not None:
                obj = self.world.floor_tile(self.world.floor_grid.tile_id(hit[0], hit[1]) or "") or obj
        if not visible:
            status = S.OUT_OF_REACH if self.world.distance_to(obj, cam) > PERFORMER_REACH - REACH_TOLERANCE else S.NOT_VISIBLE
            return obj, status, hit
        if self._reach_distance(obj) > PERFORMER_REACH - REACH_TOLERANCE:
            return obj, S.OUT_OF_REACH, hit
        return obj, None, hit

    def _reach_distance(self, obj: SimObject) -> float:
        """Distance from the body's axis to an object's nearest surface; for a floor tile, to its 1 m square."""
        grid = self.world.floor_grid
        centre = grid.tile_centre(obj.id) if obj.is_floor and grid is not None else None
        if centre is None:
            return self.performer.reach_distance(self.world, obj)
        own = np.array([self.performer.x, self.performer.z])
        nearest = np.clip(own, np.array(centre) - 0.5, np.array(centre) + 0.5)
        return self.performer.reach_axis_distance(np.array([nearest[0], nearest[1], 0.0]))

    def _target(self, params: dict, prefix: str = "object") -> tuple[SimObject | None, Outcome | None, np.ndarray | None]:
        """Resolve a target and apply MCS's precedence: NOT_OBJECT, OUT_OF_REACH / NOT_VISIBLE."""
        obj, failure, hit = self.resolve(params, prefix)
        resolved = obj.id if obj is not None else None
        if failure is not None:
            return obj, Outcome(failure, resolved_object=resolved), hit
        return obj, None, hit

    def _held_object(self, params: dict) -> tuple[SimObject | None, ReturnStatus | None]:
        object_id = params.get("objectId")
        if object_id is None:
            return (self.held[0], None) if self.held else (None, S.NOT_HELD)
        obj = self.world.by_id.get(str(object_id))
        if obj is None:
            return None, S.NOT_OBJECT
        return (obj, None) if obj.held else (None, S.NOT_HELD)

    def set_hand(self, obj: SimObject) -> None:
        """Move the hand to fit a newly picked-up object, as MCS does (UpdateHandPositionToHoldObject).

        The hand sits ahead of the camera by half the object's larger horizontal side plus HELD_AHEAD, and low
        enough that the object's top is HELD_BELOW under the camera, but never so low that its bottom comes
        within HELD_BELOW of the floor level. Every held object's origin is at the hand.
        """
        self.hand = self._hand_for(obj)

    def _hand_for(self, obj: SimObject) -> tuple[float, float]:
        """(ahead of the camera, above it) of the hand holding one object (see set_hand)."""
        size, centre_y = obj.size, float(obj.bounds_center[1])
        grow = AGENT_HELD_GROWTH if obj.id in self._from_agent else 0.0
        ahead = max(size[0], size[2]) / 2.0 + HELD_AHEAD + grow
        below = -(size[1] / 2.0 + centre_y + HELD_BELOW + grow)
        lowest = size[1] / 2.0 - centre_y - self.performer.camera_height + HELD_BELOW
        return ahead, max(below, lowest)

    def hold_pose(self, obj: SimObject, hand: tuple[float, float] | None = None) -> None:
        """Place a held object's origin at the hand, turned with the performer."""
        performer = self.performer
        ahead, up = self.hand if hand is None else hand
        origin = performer.camera_mj() + yaw_forward_mj(performer.yaw) * ahead + np.array([0.0, 0.0, up])
        relative = self._held_rotation.get(obj.id)
        mat = self.world.body_mat(obj).copy() if relative is None else unity_euler_to_mj_matrix(0.0, performer.yaw, 0.0) @ relative
        self.world.set_pose(obj, origin, mat)
        self._carry_contents(obj, origin, mat)

    def _carry_contents(self, obj: SimObject, pos: np.ndarray, mat: np.ndarray) -> None:
        """Keep what a held container holds where it sits in the container."""
        for content, rel_pos, rel_mat in self._carried.get(obj.id, ()):
            self.world.set_pose(content, pos + mat @ rel_pos, mat @ rel_mat)

    def update_held(self) -> None:
        """Keep held objects with the performer (after moves and physics)."""
        for obj in self.held:
            self.hold_pose(obj)

    def _release(self, obj: SimObject, pose: tuple[np.ndarray, np.ndarray] | None = None) -> None:
        """Let go of a held object at `pose` (origin, rotation), by default where the hand would hold it alone
        (a small ball held with a big one); what it carried falls with it."""
        if pose is None:
            self.hold_pose(obj, self._hand_for(obj))
        else:
            self.world.set_pose(obj, *pose)
            self._carry_contents(obj, *pose)
        obj.held = False
        self._held_rotation.pop(obj.id, None)
        self.held.remove(obj)
        self.world.set_present(obj, True)
        self._make_physical(obj)  # AI2-THOR's DropHandObject, and MCS's put, make the released body non-kinematic
        for content, _, _ in self._carried.pop(obj.id, ()):
            self.world.set_carried(content, False)

    # -- navigation ---------------------------------------------------------------------------------
    def _move(self, params: dict) -> Outcome:
        if not self.performer.move(self.world, self._action, scale=1.0 + self.noise()):
            return Outcome(S.OBSTRUCTED)
        self.update_held()
        return Outcome(S.SUCCESSFUL)

    def _rotate(self, params: dict) -> Outcome:
        sign = 1.0 if self._action == Action.ROTATE_RIGHT else -1.0
        # MCSController's RotateLeft/RotateRight/LookUp/LookDown turn by a fixed 10 degrees: noise never reaches them.
        self.performer.rotate(sign * ROTATE_DEGREES)
        self.update_held()
        return Outcome(S.SUCCESSFUL)

    def _look(self, params: dict) -> Outcome:
        sign = 1.0 if self._action == Action.LOOK_DOWN else -1.0
        if not self.performer.look(sign * ROTATE_DEGREES):
            return Outcome(S.CANNOT_ROTATE)
        return Outcome(S.SUCCESSFUL)

    def _rotate_look(self, params: dict) -> Outcome:
        """Seed 002 RotateLook: invalid rotation/horizon values become 0."""
        (rotation, horizon), status = _lenient_angles(params, (("rotation", 360.0), ("horizon", 180.0)))
        self.performer.rotate(rotation)
        self.performer.tilt = max(-90.0, min(90.0, self.performer.tilt + horizon))
        self.update_held()
        return Outcome(status)

    def _pose(self, params: dict) -> Outcome:
        performer = self.performer
        if self._action == Action.STAND:
            if performer.pose == LYING:
                return Outcome(S.WRONG_POSE)
            target = STANDING
        elif self._action == Action.CRAWL:
            target = CRAWLING
        else:
            target = LYING
        status = S.SUCCESSFUL
        if self._action == Action.LIE_DOWN:
            (rotation,), status = _lenient_angles(params, (("rotation", 360.0),))
            performer.rotate(rotation)
        if not performer.change_pose(self.world, target):
            return Outcome(S.OBSTRUCTED)
        self.update_held()
        return Outcome(status)

    def _end_habituation(self, params: dict) -> Outcome:
        hidden = {**self.hidden_params, **params}
        performer = self.performer
        # MCS's Python teleports only with both coordinates (Parameter._get_teleport_position).
        if "xPosition" in hidden and "zPosition" in hidden:
            performer.x, performer.z = float(hidden["xPosition"]), float(hidden["zPosition"])
        if "yRotation" in hidden:  # MCS teleports the body's yaw and levels the camera (tilt 10 -> 0)
            performer.yaw, performer.tilt = float(hidden["yRotation"]) % 360.0, 0.0
        performer.place_capsule(self.world, performer.x, performer.z)
        for obj in self.world.objects:
            if obj.dynamic and obj.present:
                self.world.set_velocity(obj, np.zeros(3), np.zeros(3))
        self.update_held()
        return Outcome(S.SUCCESSFUL, black_frame=True)

    # -- object interactions ------------------------------------------------------------------------
    def _pickup(self, params: dict) -> Outcome:
        obj, failure, _ = self._target(params)
        if failure is not None:
            return failure
        outcome = Outcome(S.SUCCESSFUL, resolved_object=obj.id)
        if obj.held:
            return outcome
        if not obj.pickupable or not obj.dynamic:
            outcome.status = S.NOT_PICKUPABLE
            return outcome
        if self.max_held and len(self.held) >= self.max_held:
            outcome.status = S.HAND_IS_FULL
            return outcome
        # Picking up a container takes what it holds along, fixed in it and still seen.
        pos, mat = self.world.body_pos(obj).copy(), self.world.body_mat(obj).copy()
        contents = [(c, mat.T @ (self.world.body_pos(c) - pos), mat.T @ self.world.body_mat(c))
                    for c in self.world.inside(obj)] if obj.receptacle else []
        for content, _, _ in contents:
            self.world.set_carried(content, True)
        if contents:
            self._carried[obj.id] = contents
        from_agent = bool(obj.held_by_agent)
        if from_agent and self.agents is not None:
            self.agents.picked_up(obj)  # taken from a simulation agent's hand
        obj.held = obj.was_picked_up = True
        self.held.append(obj)
        self.world.set_present(obj, False)
        # MCS turns a picked-up object to face the way the hand does, whatever its rotation was, and turns it with
        # the performer (held rotation_y = the performer's); one taken from an
        # agent is held as if it were bigger.
        self._held_rotation[obj.id] = np.eye(3)
        if from_agent:
            self._from_agent.add(obj.id)
        self.set_hand(obj)
        self.update_held()
        return outcome

    def _put(self, params: dict) -> Outcome:
        """PutObject, checked in MCSController.PutObject's order: no object named and none held (NOT_HELD); the
        receptacle's image point turned into an id, then the object's and the receptacle's ids (NOT_OBJECT,
        NOT_INTERACTABLE); then the base action: the object held (NOT_HELD), a closed container (OBSTRUCTED),
        reach and visibility, NOT_RECEPTACLE, a spot where the object fits (OBSTRUCTED)."""
        if params.get("objectId") is None and not self.held:
            return Outcome(S.NOT_HELD)
        # An image point only names the receptacle (MCSController.TryReceptacleObjectIdFromScreenPoint): where its ray
        # met the receptacle plays no part in where the object goes.
        receptacle, failed, _ = self.resolve(params, prefix="receptacleObject")
        if receptacle is None:
            return Outcome(failed)
        # MCS reports only the receptacle as resolved (the held object is not looked up in the image).
        outcome = Outcome(S.SUCCESSFUL, resolved_receptacle=receptacle.id)
        obj, not_held = self._held_object(params)
        if not_held is not None:
            outcome.status = not_held
            return outcome
        if receptacle.openable and not receptacle.is_open and receptacle.lid_geom_ids:
            outcome.status = S.OBSTRUCTED  # a closed container, even out of reach
            return outcome
        if failed is not None:
            outcome.status = failed
            return outcome
        if not receptacle.receptacle:
            outcome.status = S.NOT_RECEPTACLE
            return outcome
        if not self._place_on(obj, receptacle):
            outcome.status = S.OBSTRUCTED
            return outcome
        return outcome

    def _place_on(self, obj: SimObject, receptacle: SimObject) -> bool:
        """Set a held object down upright on a receptacle's surface (above its centre where it can).

        As in MCS, the spot on a surface must be within reach of the camera across the floor plan, whatever its
        height, and in view (Contains.NarrowDownValidSpawnPoints); an opened container (chest, drawer) takes the
        object at its centre once the container itself is in reach (even 1.2 m away). The object is set upright
        facing the room's yaw 0, else 90, 180 or 270 degrees, the first that fits (MCS's edit of
        InstantiatePrefabTest.PlaceObject sets the world yaw to i * 90 degrees, no longer the receptacle's). It must
        fit there, overlapping nothing (another object, a container's walls): on a surface the nearest spot in reach
        where it fits is taken instead, and none means OBSTRUCTED, as does an object too big for a container (AI2-THOR's
        PlaceObjectReceptacle tries the receptacle's spawn points in turn and fails when the object fits at none).
        Where the receptacle has a trigger box (a seat's open area), the spots lie on it and the object is let go
        at AI2-THOR's spawn point: on the surface, or SPAWN_POINT_LIFT above the trigger box's bottom where the
        surface is lower (Contains.GetValidSpawnPoints), and PLACE_LIFT above that.
        """
        world = self.world
        top = world.geoms_box(receptacle)[1][2]  # where its parts are now (drawers slide out)
        on_trigger = not receptacle.openable and world.has_trigger_box(receptacle)
        low, high = world.spawn_area(receptacle, trigger=on_trigger)
        # its centre, else the point of its area nearest the performer where the object fits
        half = max(obj.size[0], obj.size[2]) / 2.0
        middle = (low[:2] + high[:2]) / 2.0
        first = middle
        if not receptacle.openable and self.performer.horizontal_distance(*middle) > PERFORMER_REACH:
            fit_low, fit_high = np.minimum(low[:2] + half, middle), np.maximum(high[:2] - half, middle)
            first = np.clip(np.array([self.performer.x, self.performer.z]), fit_low, fit_high)
        turns = [(mat, mat @ obj.bounds_center[[0, 2, 1]])
                 for mat in (unity_euler_to_mj_matrix(0.0, yaw, 0.0) for yaw in PLACE_YAWS)]
        # A container takes the object at its centre or not at all; a surface may take it at another spot.
        spots = [np.asarray(first, float)] if receptacle.openable else _spots_nearest_first(
            np.asarray(first, float), low[:2], high[:2])
        for index, spot in enumerate(spots):
            dist = world.ray_to(receptacle, np.array([spot[0], spot[1], top + 0.01]), np.array([0.0, 0.0, -1.0]))
            if index and dist < 0 and not on_trigger:
                continue  # off the receptacle
            if dist >= 0:
                surface = top + 0.01 - dist
            else:  # off its parts: a trigger box's spawn point is its bottom point, else the receptacle's top
                surface = low[2] if on_trigger else top
            in_reach = self.performer.horizontal_distance(spot[0], spot[1]) <= PERFORMER_REACH - REACH_TOLERANCE
            if not (in_reach or receptacle.openable):
                if index == 0:
                    return False
                continue
            if not (receptacle.openable or self._spot_in_view(np.array([spot[0], spot[1], surface]))):
                continue
            if receptacle.openable:
                bottom = surface + CONTAINER_DROP
            elif on_trigger:  # low[2]: the trigger box's bottom
                bottom = max(surface, low[2] + SPAWN_POINT_LIFT) + PLACE_LIFT
            else:  # no trigger box known: the spawn point on the surface (AI2-THOR's ray hit point)
                bottom = surface + PLACE_LIFT
            for mat, local_centre in turns:
                pose = (np.array([spot[0], spot[1], bottom + obj.size[1] / 2.0]) - local_centre, mat)
                if self._fits(obj, pose):
                    self._release(obj, pose)
                    world.forward()
                    return True
        return False

    def _spot_in_view(self, point: np.ndarray) -> bool:
        """Whether a spot on a surface is in the image and in sight, as AI2-THOR asks of a spawn point
        (Contains.NarrowDownValidSpawnPoints, CheckIfPointIsInViewport): strictly inside the viewport, and nothing
        met by the ray from the camera short of 1 cm before it; a spot not below the camera is looked at 5 cm above
        the surface."""
        cam = self.performer.camera_mj()
        if point[2] >= cam[2] - SPAWN_VIEW_LIFT:
            point = point + np.array([0.0, 0.0, SPAWN_VIEW_LIFT])
        (px,), (py,), (depth,) = image_points(point[None], cam, camera_basis(*self.performer.camera_axes()),
                                              self.width, self.height)
        if depth <= 0 or not (0 < px < self.width and 0 < py < self.height):
            return False
        rel = point - cam
        dist = float(np.linalg.norm(rel))
        geom, hit = self.world.ray(cam, rel / dist)
        return geom < 0 or hit > dist - SPAWN_VIEW_MARGIN

    def _fits(self, obj: SimObject, pose: tuple[np.ndarray, np.ndarray]) -> bool:
        """Whether a held object set at `pose` would overlap nothing by more than OVERLAP_TOLERANCE."""
        world = self.world
        before = world.body_pos(obj).copy(), world.body_mat(obj).copy()
        world.set_pose(obj, *pose)
        world.forward()
        clear = all(-dist <= OVERLAP_TOLERANCE for geom in obj.geom_ids for other, dist, _ in world.contacts(geom)
                    if world.owner(other) is not obj)
        world.set_pose(obj, *before)
        world.forward()
        return clear

    def _drop(self, params: dict) -> Outcome:
        obj, failure = self._held_object(params)
        if failure is not None:
            return Outcome(failure)
        self._release(obj)
        return Outcome(S.SUCCESSFUL, resolved_object=obj.id)

    def _throw(self, params: dict, force: float | None = None) -> Outcome:
        """Let go of a held object and throw it with `force` (default: the `force` parameter, 0.5)."""
        obj, failure = self._held_object(params)
        if failure is not None:
            return Outcome(failure)
        if force is None:
            force = number_param(params, "force", DEFAULT_FORCE, 0.0, 1.0)
        direction = self._ray_from_params(params, "object")
        aim = None
        by_image = direction is not None and any(k in params for k in ("objectImageCoordsX", "objectImageCoordsY"))
        if by_image:  # MCS aims at the first thing the image point's ray hits (MCSController.ThrowObject)
            cam = self.performer.camera_mj()
            geom, dist = self.world.ray(cam, direction)
            aim = cam + direction * dist if 0 <= geom and dist <= MAX_VISIBLE_DISTANCE else None
        self._release(obj)
        if by_image and aim is None:
            return Outcome(S.FAILED, resolved_object=obj.id)  # dropped, not thrown: nothing to aim at
        if direction is None:
            direction = self.performer.camera_axes()[0]
        elif aim is not None:
            offset = aim - self.world.center(obj)
            norm = float(np.linalg.norm(offset))
            direction = offset / norm if norm > 1e-9 else direction
        self.world.set_velocity(obj, direction * THROW_SPEED * force)
        return Outcome(S.SUCCESSFUL, resolved_object=obj.id)

    def _moveable_target(self, params: dict) -> tuple[SimObject | None, Outcome]:
        obj, failure, _ = self._target(params)
        if failure is not None:
            return None, failure
        outcome = Outcome(S.SUCCESSFUL, resolved_object=obj.id)
        if not (obj.moveable and obj.dynamic) or obj.is_agent:
            outcome.status = S.NOT_MOVEABLE
            return None, outcome
        return obj, outcome

    def _targets_held(self, params: dict) -> bool:
        """Whether an object action names a held object by id: MCS then throws it instead (MCSController's
        PushObject, PullObject, TorqueObject, RotateObject and MoveObject all call ThrowObject, with the action's
        moveMagnitude: the force for the first three, MCS's Python default 0.1 for the others)."""
        return bool(self.held) and params.get("objectId") in {o.id for o in self.held}

    def _push_pull(self, params: dict) -> Outcome:
        if self._targets_held(params):
            return self._throw(params)
        obj, outcome = self._moveable_target(params)
        if obj is None:
            return outcome
        force = number_param(params, "force", DEFAULT_FORCE, 0.0, 1.0) * (1.0 + self.noise())
        # AI2-THOR's ApplyForceObject pushes along the agent's facing (pulls against it), wherever the object is in
        # view (a turtle pushed off-centre goes straight on).
        away = yaw_forward_mj(self.performer.yaw)
        sign = 1.0 if self._action == Action.PUSH_OBJECT else -1.0
        self._make_physical(obj)
        self.world.set_velocity(obj, sign * away * PUSH_IMPULSE * force / max(obj.mass, 1e-3))
        return outcome

    def _torque(self, params: dict) -> Outcome:
        if self._targets_held(params):
            return self._throw(params, number_param(params, "force", DEFAULT_FORCE, -1.0, 1.0))
        obj, outcome = self._moveable_target(params)
        if obj is None:
            return outcome
        force = number_param(params, "force", DEFAULT_FORCE, -1.0, 1.0) * (1.0 + self.noise())
        # Positive force turns the object clockwise seen from above (negative about MuJoCo +z).
        self._make_physical(obj)
        self.world.add_spin(obj, -force * TORQUE_IMPULSE)
        return outcome

    def _make_physical(self, obj: SimObject) -> None:
        """Make a kinematic body physical for good, as AI2-THOR does before a force acts on it (ApplyForceObject:
        isKinematic = false; MCS's TorqueObject goes through it too) and when the hand lets go of it."""
        if obj.dynamic and obj.frozen and not obj.ghost:
            self.world.set_frozen(obj, False)

    def _kinematic_shift(self, obj: SimObject, offset: np.ndarray, yaw_deg: float, shove: bool = False) -> bool:
        """Move and turn an object if it does not run into anything; False (unchanged) otherwise.

        With `shove`, physical objects in the way (not kinematic, structural or agents) and what rests on them are
        carried along by the same offset, as MCS's MoveObject does (a ball, another tool, a stack), unless that runs
        them into something.
        """
        world = self.world
        pos, mat = world.body_pos(obj).copy(), world.body_mat(obj).copy()
        before = self._overlap_depths(obj)  # resting contacts (the floor, a support) do not block
        body_gap = self.performer.body_distance(world, obj)
        turn = unity_euler_to_mj_matrix(0.0, yaw_deg, 0.0)
        centre = world.center(obj)
        # What rests on the object goes with it, rigidly (a rotated stack; a table's load).
        riders = [(r, world.body_pos(r).copy(), world.body_mat(r).copy()) for r in self.world.riders(obj)]
        world.set_pose(obj, centre + offset + turn @ (pos - centre), turn @ mat)
        for rider, rider_pos, rider_mat in riders:
            world.set_pose(rider, centre + offset + turn @ (rider_pos - centre), turn @ rider_mat)
        world.forward()
        carried: list[tuple[SimObject, np.ndarray]] = []
        blocked = self._runs_into_performer(obj, body_gap)
        after = {} if blocked else self._overlap_depths(obj)
        for other in [world.by_id[i] for i, depth in after.items() if depth > before.get(i, 0.0) + OVERLAP_TOLERANCE]:
            if shove and other.dynamic and other.moveable and not (other.frozen or other.ghost or other.structural or other.is_agent):
                # and what rests on it goes along too (a shoved block's stack)
                for load in [other] + world.riders(other):
                    if load is not obj and all(load is not known[0] for known in carried + riders):
                        carried.append((load, world.body_pos(load).copy()))
            else:
                blocked = True
                break
        if not blocked and carried:
            for other, start in carried:
                world.set_pose(other, start + offset, world.body_mat(other).copy())
            world.forward()
            moving = {obj.id} | {other.id for other, _ in carried}
            blocked = any(o.id not in moving for other, _ in carried for o in self._overlapping(other))
        if blocked:
            for other, start in carried:
                world.set_pose(other, start, world.body_mat(other).copy())
            for rider, rider_pos, rider_mat in riders:
                world.set_pose(rider, rider_pos, rider_mat)
            world.set_pose(obj, pos, mat)
            world.forward()
        return not blocked

    def _runs_into_performer(self, obj: SimObject, gap_before: float) -> bool:
        """Whether a moved object came closer to the performer's body than its radius (a tool pulled back
        stops 0.2 m from the body's axis, not 0.3 m)."""
        gap = self.performer.body_distance(self.world, obj)
        return gap < PERFORMER_RADIUS and gap < gap_before - 1e-6

    def _overlap_depths(self, obj: SimObject) -> dict[str, float]:
        """How deep an object overlaps each other object (or room part) it touches, by id."""
        depths: dict[str, float] = {}
        for geom in obj.geom_ids:
            for other_geom, dist, _ in self.world.contacts(geom, margin=0.0):
                other = self.world.owner(other_geom)
                if other is not None and other is not obj:
                    depths[other.id] = max(depths.get(other.id, 0.0), -dist)
        return depths

    def _overlapping(self, obj: SimObject) -> list[SimObject]:
        """Objects (or room parts) an object overlaps by more than OVERLAP_TOLERANCE."""
        return [self.world.by_id[i] for i, depth in self._overlap_depths(obj).items() if depth > OVERLAP_TOLERANCE]

    def _rotate_object(self, params: dict) -> Outcome:
        if self._targets_held(params):
            return self._throw(params, HELD_THROW_MAGNITUDE)
        obj, outcome = self._moveable_target(params)
        if obj is None:
            return outcome
        clockwise = bool_param(params, "clockwise", DEFAULT_CLOCKWISE)
        degrees = ROTATE_OBJECT_DEGREES if clockwise else -ROTATE_OBJECT_DEGREES
        if not self._kinematic_shift(obj, np.zeros(3), degrees):
            outcome.status = S.OBSTRUCTED
        return outcome

    def _move_object(self, params: dict) -> Outcome:
        if self._targets_held(params):
            return self._throw(params, HELD_THROW_MAGNITUDE)
        obj, outcome = self._moveable_target(params)
        if obj is None:
            return outcome
        lateral = choice_param(params, "lateral", 0)
        straight = choice_param(params, "straight", 0 if "lateral" in params and "straight" not in params else 1)
        yaw = self.performer.yaw
        direction = straight * yaw_forward_mj(yaw) + lateral * yaw_right_mj(yaw)
        norm = float(np.linalg.norm(direction))
        # A diagonal move is 0.1 m along the diagonal (0.07 m on each axis).
        offset = MOVE_OBJECT_DISTANCE * direction / norm if norm > 1e-9 else np.zeros(3)
        if not self._kinematic_shift(obj, offset, 0.0, shove=True):
            outcome.status = S.OBSTRUCTED
        return outcome

    def _open_close(self, params: dict) -> Outcome:
        obj, failure, _ = self._target(params)
        if failure is not None:
            return failure
        outcome = Outcome(S.SUCCESSFUL, resolved_object=obj.id)
        opening = self._action == Action.OPEN_OBJECT
        if obj.openable and obj.attached_to:  # an attached lid opens and closes its container
            obj = self.world.by_id.get(obj.attached_to, obj)
        if not obj.openable:
            outcome.status = S.NOT_OPENABLE
        elif opening and obj.locked:
            outcome.status = S.IS_LOCKED
        elif opening and obj.is_open:
            outcome.status = S.IS_OPENED_COMPLETELY
        elif not opening and not obj.is_open:
            outcome.status = S.IS_CLOSED_COMPLETELY
        elif opening and self._restricted(obj):
            outcome.status = S.IS_LOCKED  # restrictOpenDoors / restrictOpenObjects: only one may ever be opened
        else:
            cam = self.performer.camera_mj()
            self.world.set_open(obj, opening, cam)
            if self._body_meets(obj):  # the moved part ends up in the body: put back, as AI2-THOR does
                self.world.set_open(obj, not opening, cam)
                outcome.status = S.OBSTRUCTED
            elif opening:
                self._opened_once.add(obj.id)
        return outcome

    def _body_meets(self, obj: SimObject) -> bool:
        """Whether the performer's body overlaps an object (or the lid attached to it) by more than a touch."""
        world = self.world
        lid = world.by_id.get(obj.attached_lid) if obj.attached_lid else None
        self.performer.place_capsule(world, self.performer.x, self.performer.z)
        for geom, dist, _ in world.body_contacts():
            owner = world.owner(geom)
            if dist < -TOUCH_TOLERANCE and owner is not None and (owner is obj or owner is lid):
                return True
        return False

    def _restricted(self, obj: SimObject) -> bool:
        """Whether opening `obj` is refused because another door (restrictOpenDoors) or openable object
        (restrictOpenObjects) was opened before (a container may still be opened after a door)."""
        if not self.restrict_open or obj.id in self._opened_once:
            return False
        if self.restrict_open == "doors":
            return obj.is_door and any(self.world.by_id[i].is_door for i in self._opened_once)
        return bool(self._opened_once)

    def _rotate_in_hand(self, params: dict) -> Outcome:
        """Seed 002 RotateObjectInHand: turn a held object by rotationX/Y/Z degrees."""
        obj, failure = self._held_object(params)
        if failure is not None:
            return Outcome(failure)
        angles, status = _lenient_angles(params, tuple((f"rotation{a}", 360.0) for a in "XYZ"))
        self._held_rotation[obj.id] = unity_euler_to_mj_matrix(*angles) @ self._held_rotation[obj.id]
        self.hold_pose(obj)
        return Outcome(status, resolved_object=obj.id)

    def _interact(self, params: dict) -> Outcome:
        obj, failure, _ = self._target(params)
        if failure is not None:
            return failure
        outcome = Outcome(S.SUCCESSFUL, resolved_object=obj.id)
        if not obj.is_agent:
            outcome.status = S.NOT_AGENT
        elif self.agents is not None and self.agents.busy(obj, self.step):
            outcome.status = S.AGENT_IS_BUSY
        elif self.agents is not None and self.agents.interacting(obj):
            outcome.status = S.AGENT_CURRENTLY_INTERACTING_WITH_PERFORMER
        elif self.agents is not None:
            self.agents.interact(obj, (self.performer.x, self.performer.z))
        return outcome
