"""The simulated world: scene objects in a MuJoCo model (built by build.py), physics, ray casts and contact queries."""

from __future__ import annotations

import dataclasses
import logging
import math
from collections.abc import Iterable
from contextlib import contextmanager
from dataclasses import dataclass, field

import mujoco
import numpy as np

from mcs_plugin.constants import GROUP_ABSENT, GROUP_PERFORMER
from mcs_plugin.geometry import BOX_CORNER_SIGNS
from mcs_plugin.mcs.scene import DEFAULT_ROOM_DIMENSIONS, Scene, SceneObject
from mcs_plugin.sim.coords import matrix_to_quat
from mcs_plugin.sim.geom_types import (
    GEOM_BOX, GEOM_CAPSULE, GEOM_CYLINDER, GEOM_ELLIPSOID, GEOM_MESH, GEOM_PLANE, GEOM_SPHERE,
)

# Simulated time: MCS runs 5 Unity physics steps of 0.01 s per action (20 "physics frames" per second).
PHYSICS_TIMESTEP = 0.0025
SUBSTEPS_PER_ACTION = 20
PHYSICS_FRAMES_PER_SECOND = 20.0
UNITY_PHYSICS_STEP = 0.01  # seconds: one Physics.Simulate step, during which a per-step AddForce acts
SUBSTEPS_PER_UNITY_STEP = round(UNITY_PHYSICS_STEP / PHYSICS_TIMESTEP)
GRAVITY = 9.81  # m/s^2, downward

# Geom groups a ray cast meets (by group, see constants.py; none meets a look, GROUP_LOOK): RAY_GROUPS_SEE_PAST skips
# tools (GROUP_SEE_PAST), AGENT_RAY_GROUPS hits agents' shells (GROUP_AGENT_SHELL).
RAY_GROUPS = np.array([1, 1, 0, 1, 0, 0], dtype=np.uint8)
RAY_GROUPS_SEE_PAST = np.array([1, 1, 0, 0, 0, 0], dtype=np.uint8)
AGENT_RAY_GROUPS = np.array([1, 1, 0, 0, 1, 0], dtype=np.uint8)

CONTACT_TIMECONST = 0.015  # s: MuJoCo contact stiffness (solref time constant); soft enough for the fitted rolling
# and sliding of balls, tools and blocks, and for stacks that stay put
# PhysX's contacts are rigid: a body that falls onto something stops at its surface. Ours, soft, let a ball that
# lands at 2.5 m/s sink 1 cm and a block at 5.4 m/s 8 mm. A body falling faster than FALL_SPEED as an action begins
# meets things for that action with the stiffest contacts MuJoCo allows (a time constant of two of its steps); the
# rest keep the soft ones, so rolling, sliding and resting are as before. Only steep falls: MuJoCo gives friction the
# contact's time constant too, and a stiff contact under a body sliding in fast flings it up.
FALL_SPEED = 1.0  # m/s, downward
BOUNCE_THRESHOLD = 2.0  # m/s: the project's bounce threshold (DynamicsManager.asset); slower contacts do not bounce
IMPACT_TIMECONST = 2 * PHYSICS_TIMESTEP
REST_SPEED = 1e-3  # m/s (and rad/s): below this for two actions in a row, a body counts as at rest
# 1/s: a kinematic (frozen) or ghosted body's joint damping per unit of its mass and inertia while it holds still, so
# that what rests on it or hits it during an action does not move it (MuJoCo integrates damping implicitly; its pose is
# also put back after each action): a ball put on a kinematic sofa sank 1.2 cm into it, its weight pushing the sofa
# down during every action.
HOLD_STILL_DAMPING = 1e6
# How far an object's bottom may sit inside a kinematic mover's top and still ride it (scenes place objects a
# centimetre into a rotating cog); plus float noise as the mover turns.
CARRY_SINK = 0.01 + 1e-6
SLEEP_ENERGY = 0.005  # Unity's default sleep threshold (kinetic energy / mass, m^2/s^2)
SLEEP_ACTIONS = 8  # PhysX lets a body sleep after ~0.4 s under the threshold
ANGULAR_DRAG = 0.5  # MCS rigidbody angular drag (1/s): spinning and rolling objects slow down
# Contact friction as Unity's PhysX gives it: each collider's PhysicMaterial has a dynamic friction (Unity's default
# material and a `new PhysicMaterial()` alike: 0.6, MCSMain's PHYSICS_FRICTION_DYNAMIC_DEFAULT), and a contact gets the
# average of its two colliders' (PhysicMaterial.frictionCombine defaults to Average). Intuitive-physics floors get 0.1
# (MCSMain PHYSICS_FRICTION_DYNAMIC_PASSIVE) unless the scene's floorProperties say otherwise.
UNITY_FRICTION = 0.6
PASSIVE_FLOOR_FRICTION = 0.1
TORSIONAL_FRICTION = 0.005  # MuJoCo's friction about the contact normal and against rolling (m), no PhysX
ROLLING_FRICTION = 0.0001  # counterpart: small, so that spheres roll on and boxes stop turning
SEESAW_PLANK_THICKNESS = 0.034  # m: a seesaw plank's collider, whatever its z scale (100 in recorded scenes); the
# camera of a performer standing on a flat plank is 0.017 above its centre, on a 17-degree one too
# Spins about the vertical (TorqueObject) are turned by hand, not by MuJoCo's contacts, which at tens of rad/s of slip
# lift a spinning box off the floor. Unity caps them at its maximum angular speed: a torqued turtle turns ~143 degrees in
# its first 0.05 s action whatever the force (0.5, 0.75, 1). They slow down linearly (Coulomb) at SPIN_FRICTION * g *
# r / k^2, r the footprint's half diagonal and k^2 = I/m about the vertical: fitted to recordings (a 0.48 x 0.17 m turtle,
# 100 rad/s^2) and a 1 x 9 m tool (5.6 rad/s^2); a fitted coefficient, not the contact friction (UNITY_FRICTION).
MAX_ANGULAR_SPEED = 50.0  # rad/s
MAX_BODY_ANGULAR_SPEED = 7.0  # rad/s: Unity's default Rigidbody.maxAngularVelocity. A fast ball cannot roll: it slides
# until it is down to 7 rad/s x radius, then rolls on (0.11 m balls end rolling 0.038 m per action)
SPIN_FRICTION = 0.86
BODY_PREFIX = "obj:"  # MuJoCo body names: scene ids may be anything, "world" included
PROBE_RADIUS = 1e-4  # a point-like geom for distance queries
DEFAULT_ROOM = tuple(DEFAULT_ROOM_DIMENSIONS[axis] for axis in "xyz")  # (x, y, z) metres, MCS's default room
HOLE_DEPTH = 3.0  # a performer in a hole stands 3 m below the floor (camera height -2.238)
# MuJoCo warnings after which the state is not to be trusted (contacts dropped, or the state reset after diverging).
PHYSICS_WARNINGS = (mujoco.mjtWarning.mjWARN_CONTACTFULL, mujoco.mjtWarning.mjWARN_CNSTRFULL,
                    mujoco.mjtWarning.mjWARN_BADQACC, mujoco.mjtWarning.mjWARN_BADQPOS,
                    mujoco.mjtWarning.mjWARN_BADQVEL)


logger = logging.getLogger(__name__)


def _log_mujoco_warning(message: str) -> None:
    """MuJoCo's warning text goes to logging, not stdout; the ones that matter raise PhysicsError (World.advance)."""
    logger.warning("MuJoCo: %s", message.strip())


mujoco.set_mju_user_warning(_log_mujoco_warning)


class PhysicsError(ValueError):
    """The physics cannot go on with this scene (objects overlapping in huge numbers, or a diverged state); a
    ValueError because replaying the same scene and actions fails the same way."""
STRUCTURE_COLOR = (0.8, 0.78, 0.72)
FLOOR_COLOR = (0.85, 0.85, 0.82)

_PRIMITIVE_KINDS = {"box", "sphere", "cylinder"}


@dataclass
class ObjectFacts:
    """What the scene and the catalog say of an object: its type, sizes, mass, affordances and parts."""

    id: str
    type_name: str
    shape: str
    size: np.ndarray  # full bounding size (MCS x, y, z) after scale
    bounds_center: np.ndarray  # bounding-box centre in the object's local MCS frame
    mass: float
    dynamic: bool = False  # has a free joint (physics); else a mocap body
    pickupable: bool = False
    moveable: bool = False
    receptacle: bool = False
    openable: bool = False
    locked: bool = False
    structural: bool = False  # listed in structural_object_list
    is_floor: bool = False
    is_agent: bool = False
    is_door: bool = False  # door_4 / door_4b (Door4.prefab)
    seesaw: bool = False
    plank: bool = False  # a seesaw plank: it only rises, falls and pitches about its own x axis (see _plank_joints)
    is_lip: bool = False  # a platform lip: always obstructs the performer
    material_list: list[str] = field(default_factory=list)
    associated_with_agent: str = ""
    drag: float = 0.0  # Unity Rigidbody.drag (1/s): linear velocity damping
    angular_drag: float = ANGULAR_DRAG  # Unity Rigidbody.angularDrag (1/s)
    friction: float = UNITY_FRICTION  # its colliders' PhysicMaterial dynamic friction
    bounciness: float = 0.0  # ...and bounciness
    room: bool = False  # the floor, a wall of the room or the ceiling (materials MCSMain gives the room)
    part_names: list[str] = field(default_factory=list)  # per part: MCS child-component suffix ("" = own part)
    part_open_centres: list = field(default_factory=list)  # per part: (centre, size) in the object frame when open
    parent: str = ""  # for child components (drawers, shelves): the id of the object they belong to
    scene_object: SceneObject | None = None


@dataclass
class ObjectState:
    """An object's state while the scene runs: its MuJoCo addresses, and whether it is present, held, open, moved by
    a script or recoloured."""

    body_id: int = -1
    geom_ids: list[int] = field(default_factory=list)  # its solid geoms (every geom but its look)
    look_geom_ids: list[int] = field(default_factory=list)  # geoms that are only drawn (catalog role "look")
    sight_geom_ids: list[int] = field(default_factory=list)  # geoms that only hide what lies behind (role "sight")
    lid_geom_ids: list[int] = field(default_factory=list)
    qpos: np.ndarray | None = None  # a dynamic object's free joint (x, y, z, qw, qx, qy, qz): a view into MjData.qpos
    qvel: np.ndarray | None = None  # its (vx, vy, vz) world and (wx, wy, wz) body velocity: a view into MjData.qvel
    mocap_id: int = -1
    plank_dofs: tuple[int, int] = (-1, -1)  # a plank's slide and hinge degrees of freedom
    moving_part_poses: dict = field(default_factory=dict)  # geom -> ((pos, half size) closed, (pos, half size) open)
    moving_part_roles: dict = field(default_factory=dict)  # geom -> lid / door / drawer
    present: bool = True  # False while hidden, held or before its first show
    held: bool = False
    was_picked_up: bool = False
    is_open: bool = False
    calm_actions: int = 0  # consecutive actions with kinetic energy under the sleep threshold
    spin: float = 0.0  # rad/s about the vertical (MuJoCo +z) of a TorqueObject spin, turned by World.advance
    frozen: bool = False  # a dynamic body that is currently kinematic (scene `kinematic`, ghosts, placers)
    carried: bool = False  # inside a held container (moves with it, touches nothing)
    ghost: bool = False  # scripted `ghosts`: collides with nothing and holds still
    shrouded: bool = False  # scripted `shrouds`: not drawn and not seen, still physical
    hidden: bool = False  # taken away by a scripted `hides` (until a later show)
    rgb: tuple[float, float, float] = (0.5, 0.5, 0.5)
    texture_color_list: list[str] = field(default_factory=list)
    attached_lid: str = ""  # id of the lid attached to this container (lidAttachment)
    attached_to: str = ""  # id of the container this lid is attached to
    attach_offset: tuple | None = None  # (position, rotation) of an attached lid in its container's frame
    closed_offset: tuple | None = None  # an attached lid's attach_offset while closed (kept while it is open)
    held_by_agent: str = ""  # id of the simulation agent holding this object (associatedWithAgent)

    @property
    def all_geom_ids(self) -> list[int]:
        """Every geom of the object: its solid ones, its look, then its sight geoms."""
        return self.geom_ids + self.look_geom_ids + self.sight_geom_ids


@dataclass
class SimObject(ObjectState, ObjectFacts):
    """One MCS object (scene object or room structure): its facts, then its state (dataclass fields in that order)."""


FLOOR_ID = "floor"  # the room's floor object (MCS id)
FLOOR_TILE_PREFIX = "floor"
FLOOR_TILE_MARGIN = 1  # tiles beyond the last whole-metre cell of the room on each side (13 per row, 10 m room)


@dataclass(frozen=True)
class FloorGrid:
    """Unity's tiled floor, built when a scene has holes, lava or floor textures: 1 m tiles centred on whole
    metres, ids `floor<N>` numbered row by row (z, then x) from the -x, -z corner (floor149 is the tile at
    x 0, z 5 and floor110 the one at x 0, z 2 in a 10 m room)."""

    half_x: int  # tiles run from -half_x to half_x along x
    half_z: int

    @classmethod
    def for_scene(cls, scene: Scene) -> FloorGrid | None:
        """The scene's tiled floor, or None when Unity keeps its single `floor` object."""
        if scene.partition_floor is not None or scene.intuitive_physics or scene.isometric:
            return None
        if not (scene.holes or scene.lava or scene.floor_textures):
            return None
        dims = scene.room_dimensions
        x, _, z = (dims.x, dims.y, dims.z) if dims and (dims.x or dims.y or dims.z) else DEFAULT_ROOM
        return cls(int(x // 2) + FLOOR_TILE_MARGIN, int(z // 2) + FLOOR_TILE_MARGIN)

    def tile_id(self, x: float, z: float) -> str | None:
        """Id of the tile under an MCS (x, z) point, None off the grid."""
        column, row = math.floor(x + 0.5), math.floor(z + 0.5)
        if abs(column) > self.half_x or abs(row) > self.half_z:
            return None
        return f"{FLOOR_TILE_PREFIX}{(row + self.half_z) * (2 * self.half_x + 1) + column + self.half_x}"

    def tile_centre(self, tile_id: str) -> tuple[float, float] | None:
        """MCS (x, z) centre of a tile given its id, None for an id that names no tile."""
        digits = tile_id[len(FLOOR_TILE_PREFIX):]
        if not tile_id.startswith(FLOOR_TILE_PREFIX) or not digits.isdigit():
            return None
        row, column = divmod(int(digits), 2 * self.half_x + 1)
        if row > 2 * self.half_z:
            return None
        return float(column - self.half_x), float(row - self.half_z)


class World:
    """A compiled MuJoCo world for one scene, with its objects in MCS order."""

    def __init__(self, model: mujoco.MjModel, data: mujoco.MjData, objects: list[SimObject], performer_geom: int):
        self.model = model
        self.data = data
        self.objects = objects
        self.by_id = {o.id: o for o in objects}
        self.performer_geom = performer_geom
        self.performer_body = int(model.geom_bodyid[performer_geom])
        self.probe_geom = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_GEOM, "__probe__")
        self.foot_geom = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_GEOM, "__foot__")
        self.axis_geom = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_GEOM, "__axis__")
        self.sole_geom = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_GEOM, "__sole__")
        self.drawn = np.ones(model.ngeom, dtype=bool)  # geoms the camera draws when present (not registry colliders)
        self.geom_owner = np.full(model.ngeom, -1, dtype=np.int32)
        for index, obj in enumerate(objects):
            self.geom_owner[obj.all_geom_ids] = index
        self.script_moves: list = []  # kinematic objects scripts moved this step: (obj, pos, mat, new pos, new mat)
        self._contype = model.geom_contype.copy()
        self._conaffinity = model.geom_conaffinity.copy()
        self._group = model.geom_group.copy()
        self._ray_geom = np.zeros(1, dtype=np.int32)
        self._dynamic = [o for o in objects if o.dynamic]
        free_joints = model.body_jntadr[np.array([o.body_id for o in self._dynamic], dtype=int)]
        self._dynamic_vz = model.jnt_dofadr[free_joints] + 2  # each free joint's vertical velocity (MuJoCo z)
        self._stiff_geoms = np.zeros(model.ngeom, dtype=bool)
        self._soft_solref = model.geom_solref[:, 0].copy()  # each geom's own time constant, for after a landing
        self._priority = model.geom_priority.copy()
        self._drag_damping = model.dof_damping.copy()  # Unity's drag and angular drag (build_world)
        self._dynamic_xyz = model.jnt_qposadr[free_joints][:, None] + np.arange(3)  # for gathering every position at once
        self.floor_half: tuple[float, float] = (math.inf, math.inf)  # (x, y) half extents of the floor slab
        self._spin_dofs = (model.jnt_dofadr[free_joints][:, None] + np.arange(3, 6)).ravel()
        self._plank_dofs = [dof for o in objects if o.plank for dof in o.plank_dofs]
        self._still_checks = 0  # consecutive actions after which every dynamic body was at rest
        self._room_bounciness = {g: o.bounciness for o in objects if o.room for g in o.geom_ids}
        self._bouncy_room = any(b > 0.0 for b in self._room_bounciness.values())  # everything bounces off it
        self._visibility_geoms: np.ndarray | None = None
        self.last_cast_normal = np.array([0.0, 0.0, 1.0])  # surface normal where the last sphere cast landed
        self.last_cast_point = np.zeros(3)  # ...and the point where it touched that surface (MuJoCo frame)
        self._lips = [o for o in objects if o.is_lip]
        self.floor_grid: FloorGrid | None = None  # Unity's 1 m floor tiles, in scenes that have them
        self.scene_version: int | None = None  # the scene's `version` (legacy registry entries apply to some)

    def floor_tile(self, tile_id: str) -> SimObject | None:
        """The floor standing in for one of its tiles (same body and geoms, the tile's id), None for no such tile."""
        floor = self.by_id.get(FLOOR_ID)
        if self.floor_grid is None or floor is None or self.floor_grid.tile_centre(tile_id) is None:
            return None
        return dataclasses.replace(floor, id=tile_id)

    def visibility_geoms(self) -> np.ndarray:
        """Geoms whose samples are tested for visibility: present, rendered, not the floor (cached until presence
        or lids change)."""
        if self._visibility_geoms is None:
            group = self.model.geom_group
            self._visibility_geoms = np.array(
                [g for o in self.objects if o.present and not o.is_floor for g in o.geom_ids if group[g] < GROUP_PERFORMER],
                dtype=np.int64)
        return self._visibility_geoms

    def wake(self) -> None:
        """Resume physics (something may move): called whenever an action or script changes the state."""
        self._still_checks = 0
        for obj in self._dynamic:
            obj.calm_actions = 0

    @property
    def at_rest(self) -> bool:
        """Whether every dynamic body has been still for two consecutive actions (physics is skipped)."""
        return self._still_checks >= 2

    # -- presence and holding -------------------------------------------------------------------
    def set_present(self, obj: SimObject, present: bool) -> None:
        """Put an object in the world (collides, rendered, hit by rays) or take it out."""
        self.wake()
        self._visibility_geoms = None
        obj.present = present
        ids = obj.all_geom_ids  # a look or sight geom never collides (its contype stays 0)
        if present:
            self.model.geom_contype[ids] = 0 if obj.ghost else self._contype[ids]
            self.model.geom_conaffinity[ids] = 0 if obj.ghost else self._conaffinity[ids]
            self.model.geom_group[ids] = self._group[ids]
            if obj.openable and obj.is_open:
                self._set_lid(obj, opened=True)
        else:
            self.model.geom_contype[ids] = 0
            self.model.geom_conaffinity[ids] = 0
            self.model.geom_group[ids] = GROUP_ABSENT

    def set_open(self, obj: SimObject, opened: bool, away_from: np.ndarray | None = None) -> None:
        """Open or close an object's lid or door (an opened lid is out of the way of rays and bodies); an attached
        lid swings up on the side away from `away_from` (a MuJoCo point, the performer; default: the back)."""
        self.wake()
        obj.is_open = opened
        if obj.present:
            self._set_lid(obj, opened)
        lid = self.by_id.get(obj.attached_lid) if obj.attached_lid else None
        if lid is not None and lid.attach_offset is not None:
            self._swing_attached_lid(obj, lid, opened, away_from)

    def _swing_attached_lid(self, container: SimObject, lid: SimObject, opened: bool,
                            away_from: np.ndarray | None) -> None:
        """Turn an attached lid 90 degrees up about its bottom edge on the container side (one of its four local
        sides) facing most directly away from `away_from`, or back down (a 0.4 m lid's origin rises
        0.2 m and moves 0.2 m to the far side)."""
        if not opened:
            if lid.closed_offset is not None:
                lid.attach_offset, lid.closed_offset = lid.closed_offset, None
            return
        if lid.closed_offset is not None:
            return
        self.forward()
        cpos, cmat = self.body_pos(container), self.body_mat(container)
        sides = [cmat[:, 0], -cmat[:, 0], cmat[:, 1], -cmat[:, 1]]  # the container's local x and (MCS) z sides
        away = cpos[:2] - away_from[:2] if away_from is not None else -cmat[:2, 1]
        hinge_side = max(sides, key=lambda side: float(side[:2] @ away))
        hinge_side = np.array([hinge_side[0], hinge_side[1], 0.0]) / max(np.linalg.norm(hinge_side[:2]), 1e-9)
        lid_mat = self.body_mat(lid)
        half = lid.size[[0, 2, 1]] / 2.0  # MuJoCo axes
        reach = float(np.sum(np.abs(lid_mat.T @ hinge_side) * half))  # origin to that edge along the side
        pivot = self.body_pos(lid) + hinge_side * reach
        turn = _axis_rotation(np.cross([0.0, 0.0, 1.0], hinge_side), math.pi / 2.0)
        pos, mat = pivot + turn @ (self.body_pos(lid) - pivot), turn @ lid_mat
        lid.closed_offset = lid.attach_offset
        lid.attach_offset = (cmat.T @ (pos - cpos), cmat.T @ mat)
        self.set_pose(lid, pos, mat)
        self.forward()

    def _set_lid(self, obj: SimObject, opened: bool) -> None:
        """Move an object's lids, doors and drawers to their open (or closed) pose; a drawer takes its contents.
        Moving parts without a box pose to go to are taken out of the way instead."""
        self._visibility_geoms = None
        self.forward()
        sliding = any(role == "drawer" for role in obj.moving_part_roles.values())
        contents = self._contents(obj) if sliding else []
        shift = np.zeros(3)
        for geom, (closed, open_pose) in obj.moving_part_poses.items():
            pos, half = open_pose if opened else closed
            if obj.moving_part_roles.get(geom) == "drawer":
                shift = self.body_mat(obj) @ (pos - self.model.geom_pos[geom])
            self.model.geom_pos[geom] = pos
            self.model.geom_size[geom][:3] = half
            self.model.geom_aabb[geom, 3:] = half
            self.model.geom_rbound[geom] = float(np.linalg.norm(half))
        if obj.moving_part_poses:
            refit_body_bvh(self.model, obj.body_id)
        for item in contents:
            self.set_pose(item, self.body_pos(item) + shift, self.body_mat(item).copy())
        cache = getattr(self, "_visibility_samples", None)
        if cache is not None and obj.moving_part_poses:
            del self._visibility_samples  # the parts' sample points changed size
        self.forward()
        ids = [g for g in obj.lid_geom_ids if g not in obj.moving_part_poses]
        if not ids:
            return
        self.model.geom_contype[ids] = 0 if opened else self._contype[ids]
        self.model.geom_conaffinity[ids] = 0 if opened else self._conaffinity[ids]
        self.model.geom_group[ids] = GROUP_ABSENT if opened else self._group[ids]

    def geoms_box(self, obj: SimObject, in_own_frame: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """Box (low, high; MuJoCo axes) around an object's present geoms, where they are now: aligned with the
        world, or with the object's own axes and relative to its origin (`in_own_frame`)."""
        geoms = [g for g in obj.geom_ids if self.model.geom_group[g] < GROUP_PERFORMER] or obj.geom_ids
        return self._box(obj, geoms, self.model.geom_aabb[geoms, :3], self.model.geom_aabb[geoms, 3:], in_own_frame)

    def _trigger_geoms(self, obj: SimObject) -> list[int]:
        return [g for g in obj.geom_ids if self._group[g] == GROUP_ABSENT]  # built as trigger boxes

    def has_trigger_box(self, obj: SimObject) -> bool:
        """Whether a receptacle was built with trigger boxes (a seat's open area)."""
        return bool(self._trigger_geoms(obj))

    def trigger_box(self, obj: SimObject) -> tuple[np.ndarray, np.ndarray] | None:
        """Box (low, high; MuJoCo axes) around a receptacle's trigger boxes in its own axes, relative to its origin
        (None without any)."""
        geoms = self._trigger_geoms(obj)
        if not geoms:
            return None
        return self._box(obj, geoms, np.zeros((len(geoms), 3)), self.model.geom_size[geoms, :3], in_own_frame=True)

    def spawn_area(self, obj: SimObject, trigger: bool = True) -> tuple[np.ndarray, np.ndarray]:
        """Where MCS lays a receptacle's spawn points (low, high; MuJoCo frame): around the centre of its trigger
        box (`trigger`, where it has one; else of its parts), its size in its own axes laid along the room's axes,
        as if the receptacle were not turned (Contains.GetValidSpawnPoints: the box's world centre plus its scaled,
        unturned size along world x, y and z)."""
        box = self.trigger_box(obj) if trigger else None
        low, high = box if box is not None else self.geoms_box(obj, in_own_frame=True)
        centre = self.body_pos(obj) + self.body_mat(obj) @ ((low + high) / 2.0)
        return centre - (high - low) / 2.0, centre + (high - low) / 2.0

    def _box(self, obj: SimObject, geoms: list[int], centres: np.ndarray, halves: np.ndarray,
             in_own_frame: bool) -> tuple[np.ndarray, np.ndarray]:
        """Box around geoms given their boxes (centre and half size in each geom's frame), in world axes or in the
        object's own (relative to its origin)."""
        origin, axes = (self.body_pos(obj), self.body_mat(obj)) if in_own_frame else (np.zeros(3), np.eye(3))
        lows, highs = [], []
        for g, centre, half in zip(geoms, centres, halves):
            mat = axes.T @ self.data.geom_xmat[g].reshape(3, 3)
            middle = axes.T @ (self.data.geom_xpos[g] - origin) + mat @ centre
            extent = np.abs(mat) @ half
            lows.append(middle - extent)
            highs.append(middle + extent)
        return np.min(lows, axis=0), np.max(highs, axis=0)

    def ray_to(self, obj: SimObject, origin_mj: np.ndarray, direction_mj: np.ndarray) -> float:
        """Distance along a ray to the first of one object's present geoms, ignoring everything else (-1: none)."""
        best = -1.0
        for g in obj.geom_ids:
            if self.model.geom_group[g] >= GROUP_PERFORMER:
                continue
            if self.model.geom_type[g] == GEOM_MESH:
                dist = mujoco.mj_rayMesh(self.model, self.data, g, origin_mj, direction_mj)
            else:
                dist = mujoco.mju_rayGeom(self.data.geom_xpos[g], self.data.geom_xmat[g], self.model.geom_size[g],
                                          origin_mj, direction_mj, int(self.model.geom_type[g]))
            if dist >= 0 and (best < 0 or dist < best):
                best = float(dist)
        return best

    def _contents(self, container: SimObject) -> list[SimObject]:
        """Present physical objects whose centre lies inside a container's (or drawer's) current geoms' box, in
        the container's own axes."""
        if not any(self.model.geom_group[g] < GROUP_PERFORMER for g in container.geom_ids):
            return []
        low, high = self.geoms_box(container, in_own_frame=True)
        high = high + np.array([0.0, 0.0, 0.05])  # up to 5 cm above its rim
        origin, axes = self.body_pos(container), self.body_mat(container)
        found = []
        for other in self._dynamic:
            local = axes.T @ (self.center(other) - origin)
            if other.present and other is not container and bool(np.all((local >= low) & (local <= high))):
                found.append(other)
        return found

    # -- poses ------------------------------------------------------------------------------------
    def body_pos(self, obj: SimObject) -> np.ndarray:
        """World position (MuJoCo frame) of an object's origin."""
        return self.data.xpos[obj.body_id]

    def body_mat(self, obj: SimObject) -> np.ndarray:
        """World rotation matrix (3x3, MuJoCo frame) of an object."""
        return self.data.xmat[obj.body_id].reshape(3, 3)

    def set_pose(self, obj: SimObject, pos_mj: np.ndarray, mat_mj: np.ndarray | None = None) -> None:
        """Teleport an object's origin (and orientation) and zero its velocity."""
        if obj.present:  # moving an absent (e.g. held) object cannot disturb anything
            self.wake()
        quat = matrix_to_quat(mat_mj) if mat_mj is not None else None
        obj.spin = 0.0
        if obj.dynamic:
            obj.qpos[:3] = pos_mj
            if quat is not None:
                obj.qpos[3:] = quat
            obj.qvel[:] = 0.0
        else:
            self.data.mocap_pos[obj.mocap_id] = pos_mj
            if quat is not None:
                self.data.mocap_quat[obj.mocap_id] = quat

    def set_velocity(self, obj: SimObject, linear_mj: np.ndarray, angular_mj: np.ndarray | None = None) -> None:
        """Set a dynamic object's linear (and angular) velocity in the world frame."""
        self.wake()
        obj.qvel[:3] = linear_mj
        if angular_mj is not None:  # a free joint's angular velocity is in the body frame
            obj.qvel[3:] = self.body_mat(obj).T @ np.asarray(angular_mj, float)

    def add_spin(self, obj: SimObject, impulse: float) -> None:
        """An angular impulse (N m s) about the vertical (MuJoCo +z), as Unity's AddTorque, capped at MAX_ANGULAR_SPEED."""
        self.wake()
        spin = obj.spin + impulse / self._vertical_inertia(obj)
        obj.spin = float(np.clip(spin, -MAX_ANGULAR_SPEED, MAX_ANGULAR_SPEED))

    def _vertical_inertia(self, obj: SimObject) -> float:
        """An object's moment of inertia about the vertical through its centre of mass."""
        mat = self.body_mat(obj)
        return float(mat[2] ** 2 @ self.model.body_inertia[obj.body_id])

    def _spin_deceleration(self, obj: SimObject) -> float:
        """Coulomb deceleration (rad/s^2) of a spin: SPIN_FRICTION * g * r / k^2 (see SPIN_FRICTION)."""
        footprint = math.hypot(obj.size[0], obj.size[2]) / 2.0
        radius_sq = self._vertical_inertia(obj) / max(float(self.model.body_mass[obj.body_id]), 1e-9)
        return SPIN_FRICTION * float(-self.model.opt.gravity[2]) * footprint / max(radius_sq, 1e-9)

    def _turn_spinning(self, obj: SimObject, dt: float, deceleration: float) -> None:
        """Slow a spin by `dt` of angular drag and friction, then turn the object by it about the vertical through
        its centre of mass (semi-implicit, as PhysX integrates)."""
        spin = obj.spin * (1.0 - obj.angular_drag * dt)
        obj.spin = math.copysign(max(0.0, abs(spin) - deceleration * dt), spin)
        qpos = obj.qpos
        half = obj.spin * dt / 2.0
        turn = np.array([math.cos(half), 0.0, 0.0, math.sin(half)])
        to_com, turned = np.empty(3), np.empty(3)
        mujoco.mju_rotVecQuat(to_com, self.model.body_ipos[obj.body_id], qpos[3:])
        mujoco.mju_rotVecQuat(turned, to_com, turn)
        quat = np.empty(4)
        mujoco.mju_mulQuat(quat, turn, qpos[3:])
        qpos[:3] += to_com - turned
        qpos[3:] = quat

    def set_frozen(self, obj: SimObject, frozen: bool) -> None:
        """Make a dynamic object kinematic (it holds its pose, others still hit it) or physical again."""
        obj.frozen = frozen
        self._apply_flags(obj)

    def set_carried(self, obj: SimObject, carried: bool) -> None:
        """An object inside a held container: it moves with the container, touching nothing, until let go."""
        obj.carried = carried
        self._apply_flags(obj)

    def set_ghost(self, obj: SimObject, ghost: bool) -> None:
        """Scripted ghosts: the object collides with nothing and holds still while a ghost."""
        obj.ghost = ghost
        self._apply_flags(obj)

    def _apply_flags(self, obj: SimObject) -> None:
        """Contacts and gravity as an object's frozen / carried / ghost flags say; it stops moving and spinning."""
        self.wake()
        obj.spin = 0.0
        ids = obj.geom_ids
        if obj.present:
            touches_nothing = obj.ghost or obj.carried
            self.model.geom_contype[ids] = 0 if touches_nothing else self._contype[ids]
            self.model.geom_conaffinity[ids] = 0 if touches_nothing else self._conaffinity[ids]
        if obj.dynamic:
            self.model.body_gravcomp[obj.body_id] = 1.0 if (obj.frozen or obj.ghost or obj.carried) else 0.0
            dofs = self._dofs(obj)
            self.model.dof_damping[dofs] = (HOLD_STILL_DAMPING * self.model.dof_M0[dofs] if obj.frozen or obj.ghost
                                            else self._drag_damping[dofs])
            obj.qvel[:] = 0.0

    def _dofs(self, obj: SimObject) -> np.ndarray:
        """The six degrees of freedom of a dynamic object's free joint."""
        first = int(self.model.jnt_dofadr[self.model.body_jntadr[obj.body_id]])
        return np.arange(first, first + 6)

    def world_bounds(self, obj: SimObject) -> np.ndarray:
        """The 8 corners (MuJoCo frame) of an object's oriented bounding box."""
        half = obj.size / 2.0
        signs = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)], dtype=float)
        local_mcs = obj.bounds_center + signs * half
        local_mj = local_mcs[:, [0, 2, 1]]
        return self.body_pos(obj) + local_mj @ self.body_mat(obj).T

    def center(self, obj: SimObject) -> np.ndarray:
        """World position (MuJoCo frame) of an object's bounding-box centre."""
        local_mj = obj.bounds_center[[0, 2, 1]]
        return self.body_pos(obj) + self.body_mat(obj) @ local_mj

    # -- physics and queries ----------------------------------------------------------------------
    def forward(self) -> None:
        """Recompute world positions and orientations of all bodies and geoms from the current state."""
        mujoco.mj_kinematics(self.model, self.data)

    def advance(self, substeps: int = SUBSTEPS_PER_ACTION) -> None:
        """Advance physics by `substeps` MuJoCo steps (one MCS action = 0.05 s), unless all is at rest.

        Skipping a world at rest is exact: with every body still, a step would leave the state as it is
        (up to contact-solver creep, which is what makes resting objects drift in long episodes).
        """
        if self.at_rest:
            return
        qvel = self.data.qvel
        # Absent (held, hidden, not yet shown) bodies do not fall through the void; kinematic ones hold still.
        frozen = [(o, o.qpos.copy()) for o in self._dynamic
                  if not o.present or o.frozen or o.ghost]
        self._stiffen_falling()
        bouncing = self._may_bounce(substeps * PHYSICS_TIMESTEP)
        spinning = [(o, self._spin_deceleration(o)) for o in self._dynamic
                    if o.spin and o.present and not (o.frozen or o.ghost or o.carried)]
        try:
            for substep in range(1, substeps + 1):
                before = [obj.qvel[:3].copy() for obj in bouncing]
                mujoco.mj_step(self.model, self.data)
                if bouncing:
                    self._bounce(bouncing, before)
                self._cap_angular_speed(qvel)
                if substep % SUBSTEPS_PER_UNITY_STEP == 0:
                    for obj, deceleration in spinning:
                        self._turn_spinning(obj, UNITY_PHYSICS_STEP, deceleration)
        except mujoco.FatalError as error:  # e.g. mj_stackAlloc: out of memory (too many contacts)
            raise PhysicsError(f"the physics cannot go on: {str(error).splitlines()[0]}") from None
        self._check_warnings()
        for obj, pose in frozen:
            obj.qpos[:] = pose
            obj.qvel[:] = 0.0
        self._sleep(qvel)
        self._check_on_floor()
        mujoco.mj_kinematics(self.model, self.data)
        speed = max((max(np.abs(o.qvel).max(), abs(o.spin)) for o in self._dynamic
                     if o.present and not (o.frozen or o.ghost)), default=0.0)
        speed = max(speed, float(np.abs(qvel[self._plank_dofs]).max(initial=0.0)))
        self._still_checks = self._still_checks + 1 if speed < REST_SPEED else 0

    def _may_bounce(self, seconds: float) -> list[SimObject]:
        """Moving bodies that may bounce off the room in the next `seconds` (their bounciness or the room's > 0, and
        fast enough, or falling fast enough, to meet it faster than BOUNCE_THRESHOLD)."""
        slowest = max(BOUNCE_THRESHOLD - GRAVITY * seconds, 0.0)
        return [o for o in self._dynamic if (o.bounciness > 0.0 or self._bouncy_room) and o.present
                and not (o.frozen or o.ghost or o.carried) and float(o.qvel[:3] @ o.qvel[:3]) > slowest ** 2]

    def _bounce(self, bodies: list[SimObject], before: list[np.ndarray]) -> None:
        """PhysX's restitution off the room: a body that met the floor, a wall or the ceiling faster than
        BOUNCE_THRESHOLD along the contact normal (its velocity `before` the step) leaves it at that speed times
        the average of their two bounciness values (PhysX's default combine). MuJoCo's contacts have no
        restitution; other objects' materials are not known, so what bodies meet there stays inelastic."""
        count = self.data.ncon
        if count == 0:
            return
        contacts = self.data.contact
        geom1, geom2, normals = contacts.geom1[:count], contacts.geom2[:count], contacts.frame[:count, :3]
        for obj, velocity in zip(bodies, before):
            first, second = np.isin(geom1, obj.geom_ids), np.isin(geom2, obj.geom_ids)
            for k in np.flatnonzero(first | second):
                room = self._room_bounciness.get(int(geom2[k] if first[k] else geom1[k]))
                if room is None:
                    continue
                out = normals[k] * (-1.0 if first[k] else 1.0)  # MuJoCo's normal points from geom1 to geom2
                approach = float(velocity @ out)
                if approach < -BOUNCE_THRESHOLD:
                    linear = obj.qvel[:3]
                    linear += ((obj.bounciness + room) / 2.0 * -approach - float(linear @ out)) * out
                    break

    def _stiffen_falling(self) -> None:
        """Give bodies falling faster than FALL_SPEED rigid contacts for this action, the others soft ones (a
        geom's priority makes its time constant the contact's)."""
        if not self._dynamic:
            return
        qvel = self.data.qvel
        down = -qvel[self._dynamic_vz]
        across = np.hypot(qvel[self._dynamic_vz - 2], qvel[self._dynamic_vz - 1])
        falling = (down > FALL_SPEED) & (down > across)
        if not (falling.any() or self._stiff_geoms.any()):
            return
        for obj, fast in zip(self._dynamic, falling):
            self._stiff_geoms[obj.geom_ids] = fast and obj.present
        self.model.geom_priority[:] = self._priority + self._stiff_geoms
        self.model.geom_solref[:, 0] = np.where(self._stiff_geoms, IMPACT_TIMECONST, self._soft_solref)

    def _cap_angular_speed(self, qvel: np.ndarray) -> None:
        """Clamp every dynamic body's angular speed to MAX_BODY_ANGULAR_SPEED, as PhysX does after each step."""
        if not len(self._spin_dofs):
            return
        spins = qvel[self._spin_dofs].reshape(-1, 3)
        speed = np.sqrt((spins * spins).sum(axis=1))
        fast = speed > MAX_BODY_ANGULAR_SPEED
        if fast.any():
            spins[fast] *= (MAX_BODY_ANGULAR_SPEED / speed[fast])[:, None]
            qvel[self._spin_dofs] = spins.reshape(-1)

    def _sleep(self, qvel: np.ndarray) -> None:
        """Unity/PhysX sleeping: a body whose mass-normalised kinetic energy stays under SLEEP_ENERGY for
        SLEEP_ACTIONS actions in a row is stopped (it wakes when something moves it again)."""
        model = self.model
        for obj in self._dynamic:
            if not obj.present:
                continue
            v = obj.qvel
            inertia = model.body_inertia[obj.body_id] / max(model.body_mass[obj.body_id], 1e-9)
            energy = 0.5 * float(v[:3] @ v[:3]) + 0.5 * float(inertia @ (v[3:] * v[3:]))
            if energy < SLEEP_ENERGY:
                obj.calm_actions += 1
                if obj.calm_actions >= SLEEP_ACTIONS:
                    v[:] = 0.0
            else:
                obj.calm_actions = 0

    def push_plank(self, plank: SimObject, point_mj: np.ndarray, impulse: float) -> None:
        """Push a seesaw plank straight down at a point with an impulse (N s): its slide and hinge speed up as
        its joint-space inertia says."""
        self.wake()
        mujoco.mj_kinematics(self.model, self.data)
        mujoco.mj_comPos(self.model, self.data)
        mujoco.mj_crb(self.model, self.data)
        mujoco.mj_factorM(self.model, self.data)
        force = np.zeros(self.model.nv)
        mujoco.mj_applyFT(self.model, self.data, np.array([0.0, 0.0, -impulse]), np.zeros(3),
                          np.asarray(point_mj, float), plank.body_id, force)
        change = np.zeros((1, self.model.nv))
        mujoco.mj_solveM(self.model, self.data, change, force.reshape(1, -1))
        dofs = list(plank.plank_dofs)
        self.data.qvel[dofs] += change[0, dofs]

    def lowest_point(self, obj: SimObject) -> float:
        """Height (MuJoCo z) of the lowest point of an object's present geoms at the current pose."""
        model, data = self.model, self.data
        lowest = math.inf
        for g in obj.geom_ids:
            if model.geom_group[g] >= GROUP_PERFORMER:
                continue
            lowest = min(lowest, _geom_bottom(model, data, g))
        return lowest

    def settle_into_floor(self) -> None:
        """Lift dynamic objects that start partly inside the floor so they rest on it, as Unity's depenetration
        does in the first physics step (scenes often place objects by their centre at y = 0)."""
        moved = False
        for obj in self._dynamic:
            if not obj.present or obj.frozen or obj.ghost:
                continue
            depth = -self.lowest_point(obj)
            if depth > 1e-4:
                obj.qpos[2] += depth
                moved = True
        if moved:
            mujoco.mj_kinematics(self.model, self.data)

    def _check_on_floor(self) -> None:
        """Raise PhysicsError when a physics object fell past the edge of the floor (thrown out of the room by
        objects overlapping each other or a wall): it would fall forever."""
        if not self._dynamic:
            return
        xyz = self.data.qpos[self._dynamic_xyz]
        outside = ((np.abs(xyz[:, 0]) > self.floor_half[0]) | (np.abs(xyz[:, 1]) > self.floor_half[1])) & (xyz[:, 2] < 0)
        for index in np.flatnonzero(outside):
            obj = self._dynamic[index]
            if obj.present:
                raise PhysicsError(f"the physics cannot go on: object {obj.id!r} was thrown out of the room (at "
                                   f"x={xyz[index, 0]:.3g}, z={xyz[index, 1]:.3g}; objects overlapping each other "
                                   "or a wall push each other apart)")

    def _check_warnings(self) -> None:
        """Raise PhysicsError when MuJoCo warned that it dropped contacts or reset a diverged state."""
        for warning in PHYSICS_WARNINGS:
            if self.data.warning[int(warning)].number:
                raise PhysicsError(f"the physics cannot go on: MuJoCo warning {warning.name} (too many contacts "
                                   "between overlapping objects, or a diverged state)")

    def ray(self, origin_mj: np.ndarray, direction_mj: np.ndarray) -> tuple[int, float]:
        """First geom hit by a ray from origin along a unit direction: (geom id or -1, distance)."""
        # mj_ray aborts the process on a zero-length (or non-finite) direction: refuse it here instead.
        if not (np.all(np.isfinite(direction_mj)) and np.all(np.isfinite(origin_mj))
                and np.dot(direction_mj, direction_mj) > 1e-12):
            raise ValueError(f"ray direction {direction_mj!r} from {origin_mj!r} is not a finite non-zero vector")
        dist = mujoco.mj_ray(
            self.model, self.data, np.asarray(origin_mj, float), np.asarray(direction_mj, float),
            RAY_GROUPS, True, self.performer_body, self._ray_geom,
        )
        return int(self._ray_geom[0]), float(dist)

    def rays(
        self, origin_mj: np.ndarray, directions_mj: np.ndarray, cutoff: float, groups: np.ndarray = RAY_GROUPS,
    ) -> tuple[np.ndarray, np.ndarray]:
        """First geoms of `groups` hit (and distances) by many unit rays from one origin; -1 where nothing is hit."""
        n = len(directions_mj)
        geom = np.full(n, -1, dtype=np.int32)
        dist = np.full(n, -1.0)
        if n:
            mujoco.mj_multiRay(
                self.model, self.data, np.asarray(origin_mj, float),
                np.ascontiguousarray(directions_mj, dtype=float).reshape(-1), groups, True,
                self.performer_body, geom, dist, None, n, cutoff,
            )
        return geom, dist

    def solid_geoms(self, obj: SimObject) -> list[int]:
        """An object's geoms that collide (contype set), as Unity's colliders of its prefab."""
        return [g for g in obj.geom_ids if self.model.geom_contype[g] != 0]

    def distance_to(self, obj: SimObject, point_mj: np.ndarray, distmax: float = 20.0) -> float:
        """Distance from a point to the nearest surface of an object's present geoms."""
        self.data.geom_xpos[self.probe_geom] = point_mj
        geoms = [g for g in obj.geom_ids if self.model.geom_group[g] < GROUP_PERFORMER] or obj.geom_ids
        best = min(mujoco.mj_geomDistance(self.model, self.data, self.probe_geom, g, distmax, None) for g in geoms)
        return max(best + PROBE_RADIUS, 0.0)

    def owner(self, geom: int) -> SimObject | None:
        """The object a geom belongs to, or None."""
        if geom < 0:
            return None
        index = self.geom_owner[geom]
        return self.objects[index] if index >= 0 else None

    def body_contacts(self, margin: float = 0.0) -> list[tuple[int, float, np.ndarray]]:
        """contacts() of the performer's body (its cylinder and the sphere at its lower end), one per geom."""
        found: dict[int, tuple[int, float, np.ndarray]] = {}
        for geom in (self.performer_geom, self.sole_geom):
            for contact in self.contacts(geom, margin):
                if contact[0] not in found or contact[1] < found[contact[0]][1]:
                    found[contact[0]] = contact
        return list(found.values())

    def inside(self, container: SimObject) -> list[SimObject]:
        """Physical objects whose centre lies within a container's bounding box (what it holds, resting or not:
        a picked-up bowl takes along an apple still falling into it)."""
        pos, mat = self.body_pos(container), self.body_mat(container)
        half = container.size / 2.0
        found = []
        for other in self.objects:
            if other is container or not other.present or not other.dynamic or other.structural or other.held:
                continue
            local = (mat.T @ (self.center(other) - pos))[[0, 2, 1]] - container.bounds_center
            if np.all(np.abs(local) <= half):
                found.append(other)
        return found

    def carried_by(self, mover: SimObject, gap: float = 0.06) -> list[SimObject]:
        """Objects a kinematic mover (a rotating cog, a moving platform, a dragged container) carries: those
        standing over its footprint with their bottom at most `gap` above its top (MCS carries even one hovering a
        little), what is inside it when it is a receptacle, whatever rests on them and what their
        containers hold."""
        pos, mat = self.body_pos(mover), self.body_mat(mover)
        top = self.world_bounds(mover)[:, 2].max()
        half = mover.size / 2.0
        found: list[SimObject] = []
        for other in self.objects:
            if (other is mover or not other.present or not other.dynamic or other.structural or other.held
                    or other.is_agent):
                continue
            local = (mat.T @ (self.center(other) - pos))[[0, 2, 1]] - mover.bounds_center
            if abs(local[0]) > half[0] or abs(local[2]) > half[2]:
                continue
            bottom = self.lowest_point(other)
            if top - CARRY_SINK <= bottom <= top + gap:
                found.append(other)
        if mover.receptacle:  # a moved container takes what is inside it along (the shell game's ball)
            found.extend(o for o in self.inside(mover) if o not in found and not o.is_agent)
        for base in list(found):
            found.extend(r for r in self.riders(base, frozen_too=True) if r not in found)
            if base.receptacle:  # what is in a carried container rides too, resting or still falling
                found.extend(r for r in self.inside(base) if r not in found)
        return found

    def riders(self, base: SimObject, frozen_too: bool = False) -> list[SimObject]:
        """Physical objects resting on `base`, and on those, and so on (a stack or a table's load); `frozen_too`:
        objects held still (not physics-enabled) as well."""
        found: list[SimObject] = []
        frontier = [base]
        while frontier:
            below = frontier.pop()
            below_ids = set(below.geom_ids)
            for geom in below.geom_ids:
                top = self.data.geom_xpos[geom][2]  # resting on this part: lowest point above the part's middle
                for other_geom, _, _ in self.contacts(geom, margin=0.01):
                    other = self.owner(other_geom)
                    if (other is None or other is base or other in found or not other.dynamic
                            or (other.frozen and not frozen_too) or other.structural
                            or other.held or other_geom in below_ids or self.lowest_point(other) < top - 0.005):
                        continue
                    found.append(other)
                    frontier.append(other)
        return found

    def contacts(self, geom: int, margin: float = 0.0) -> list[tuple[int, float, np.ndarray]]:
        """Present collidable geoms within `margin` of a geom (negative distance = overlap): (geom, distance,
        fromto) where fromto holds the nearest point on `geom` then the nearest point on the other geom."""
        model, data = self.model, self.data
        centre = data.geom_xpos[geom]
        reach = model.geom_rbound[geom] + margin
        gaps = np.linalg.norm(data.geom_xpos - centre, axis=1) - model.geom_rbound
        found = []
        for other in np.nonzero(gaps < reach)[0].tolist():
            if other == geom or model.geom_contype[other] == 0 or model.geom_group[other] >= GROUP_PERFORMER:
                continue
            if model.geom_type[other] == GEOM_PLANE:
                continue
            fromto = np.zeros(6)
            dist = mujoco.mj_geomDistance(model, data, geom, other, margin + 0.05, fromto)
            if dist < margin:
                found.append((other, float(dist), fromto))
        return found

    @contextmanager
    def _segment_probe(self, x: float, y: float, low: float, high: float):
        """The thin axis probe geom resized and placed as the vertical segment from `low` to `high` at (x, y)
        (MuJoCo frame) for the duration of the block; yields (geom id, probe radius)."""
        model, data = self.model, self.data
        axis = self.axis_geom
        size, rbound = model.geom_size[axis].copy(), float(model.geom_rbound[axis])
        model.geom_size[axis][1] = max((high - low) / 2.0, 1e-4)
        model.geom_rbound[axis] = model.geom_size[axis][1] + model.geom_size[axis][0]
        data.geom_xpos[axis] = (x, y, (low + high) / 2.0)
        data.geom_xmat[axis] = np.eye(3).reshape(-1)
        try:
            yield axis, float(size[0])
        finally:
            model.geom_size[axis] = size
            model.geom_rbound[axis] = rbound

    def segment_contacts(self, x: float, y: float, low: float, high: float, margin: float) -> list[tuple[int, float, np.ndarray]]:
        """contacts() of the vertical segment from `low` to `high` at (x, y) (MuJoCo frame): distances from the
        segment itself, fromto from the segment to the other geom."""
        with self._segment_probe(x, y, low, high) as (axis, radius):
            return [(geom, dist + radius, fromto) for geom, dist, fromto in self.contacts(axis, margin - radius)]

    def segment_distance(self, x: float, y: float, low: float, high: float, geoms: Iterable[int]) -> float:
        """Distance (0 when touching) from the vertical segment from `low` to `high` at (x, y) (MuJoCo frame) to the
        nearest of `geoms`, within 20 m."""
        with self._segment_probe(x, y, low, high) as (axis, radius):
            best = min(mujoco.mj_geomDistance(self.model, self.data, axis, g, 20.0, None) for g in geoms)
        return max(best + radius, 0.0)

    def lip_in_the_way(self, x: float, y: float, radius: float) -> bool:
        """Whether a platform lip's footprint comes within `radius` of the vertical line at (x, y) (MuJoCo frame):
        lips stop the performer whatever their height."""
        for lip in self._lips:
            local = self.body_mat(lip).T @ (np.array([x, y, 0.0]) - self.body_pos(lip))
            half = lip.size[[0, 2]] / 2.0
            gap = np.maximum(np.abs(local[:2]) - half, 0.0)
            if float(np.hypot(*gap)) < radius - 1e-9:
                return True
        return False

    def sphere_cast_down(self, x: float, y: float, top: float, radius: float, exclude: Iterable[int] = ()) -> tuple[int, float]:
        """Cast a sphere straight down from height `top` at (x, y) (MuJoCo frame): (first geom hit or -1, height of
        the contact point). Geoms the sphere overlaps at its start are ignored, as Unity's SphereCast does."""
        model, data = self.model, self.data
        foot = self.foot_geom
        model.geom_size[foot][0] = radius
        model.geom_rbound[foot] = radius
        horizontal = np.hypot(data.geom_xpos[:, 0] - x, data.geom_xpos[:, 1] - y) - model.geom_rbound
        near = ((horizontal < radius) & (model.geom_contype != 0) & (model.geom_group < GROUP_PERFORMER)
                & (model.geom_type != GEOM_PLANE))
        skip = set(exclude)
        candidates = [g for g in np.flatnonzero(near).tolist() if g not in skip]
        z = top
        data.geom_xpos[foot] = (x, y, z)
        candidates = [g for g in candidates if mujoco.mj_geomDistance(model, data, foot, g, 1.0, None) > 0.0]
        self.last_cast_normal = np.array([0.0, 0.0, 1.0])
        self.last_cast_point = np.array([x, y, -math.inf])
        fromto = np.zeros(6)
        for _ in range(64):
            data.geom_xpos[foot] = (x, y, z)
            step, falling = math.inf, []
            for g in candidates:
                dist = mujoco.mj_geomDistance(model, data, foot, g, 50.0, fromto)
                if dist < 1e-4:
                    return self._cast_hit(g, np.array([x, y, z]), fromto[3:].copy())
                drop = _vertical_clearance(dist, fromto)
                if drop < math.inf:
                    falling.append(g)
                    step = min(step, drop)
            candidates = falling
            if not candidates or z - step < -50.0:
                return -1, -math.inf
            z -= step
        return -1, -math.inf

    def _cast_hit(self, geom: int, centre: np.ndarray, point: np.ndarray) -> tuple[int, float]:
        """Record the surface normal and the point where a sphere cast (centre `centre`) met `geom` at `point`."""
        self.last_cast_point = point
        normal = centre - point
        norm = float(np.linalg.norm(normal))
        if norm > 1e-9:
            self.last_cast_normal = normal / norm
        return geom, float(point[2])


def _vertical_clearance(dist: float, fromto: np.ndarray) -> float:
    """How far a sphere may fall straight down before it can touch a convex geom `dist` away (nearest points
    `fromto`, sphere first): the plane through the geom's nearest point separates them, and the sphere closes
    on it at the downward part of their direction; inf when the geom is not below (it will never be met)."""
    dx, dy, dz = (fromto[3:] - fromto[:3]).tolist()
    norm = math.sqrt(dx * dx + dy * dy + dz * dz)
    if norm < 1e-12:
        return 0.0
    downward = -dz / norm
    return dist / downward if downward > 1e-9 else math.inf


def _geom_bottom(model: mujoco.MjModel, data: mujoco.MjData, g: int) -> float:
    """Lowest world z of one geom (exact for primitives and meshes)."""
    pos = data.geom_xpos[g]
    mat = data.geom_xmat[g].reshape(3, 3)
    size = model.geom_size[g]
    kind = model.geom_type[g]
    if kind == GEOM_SPHERE:
        return float(pos[2] - size[0])
    if kind == GEOM_ELLIPSOID:
        return float(pos[2] - math.sqrt(float(np.sum((mat[2, :] * size[:3]) ** 2))))
    if kind == GEOM_CYLINDER:
        axis_z = abs(mat[2, 2])
        return float(pos[2] - axis_z * size[1] - size[0] * math.sqrt(max(0.0, 1.0 - axis_z ** 2)))
    if kind == GEOM_CAPSULE:
        return float(pos[2] - abs(mat[2, 2]) * size[1] - size[0])
    if kind == GEOM_BOX:
        return float(pos[2] - np.abs(mat[2, :]) @ size[:3])
    if kind == GEOM_MESH:
        mesh = model.geom_dataid[g]
        start, count = model.mesh_vertadr[mesh], model.mesh_vertnum[mesh]
        verts = model.mesh_vert[start : start + count]
        return float(pos[2] + (verts @ mat.T)[:, 2].min())
    return float(pos[2] - model.geom_rbound[g])


# ----------------------------------------------------------------------------------------------
# Building
# ----------------------------------------------------------------------------------------------
def refit_body_bvh(model: mujoco.MjModel, body: int) -> None:
    """Rebuild a body's bounding volume hierarchy around its geoms where they are now.

    MuJoCo builds each body's tree of boxes (in the body's inertial frame) once, at compile time; ray casts
    (mj_multiRay) and the collision midphase skip whatever lies outside it. A lid, door or drawer moved within its
    body leaves its compile-time box, so its leaf is recomputed and every node above it made the union of its two
    children (a child's index is always larger than its parent's)."""
    start, count = int(model.body_bvhadr[body]), int(model.body_bvhnum[body])
    if count <= 0:
        return
    inertial = np.zeros(9)
    mujoco.mju_quat2Mat(inertial, model.body_iquat[body])
    inertial = inertial.reshape(3, 3)
    geom_rot = np.zeros(9)
    for node in range(start + count - 1, start - 1, -1):
        geom = int(model.bvh_nodeid[node])
        if geom >= 0:
            mujoco.mju_quat2Mat(geom_rot, model.geom_quat[geom])
            corners = model.geom_aabb[geom, :3] + BOX_CORNER_SIGNS * model.geom_aabb[geom, 3:]
            points = (model.geom_pos[geom] + corners @ geom_rot.reshape(3, 3).T - model.body_ipos[body]) @ inertial
        else:
            children = start + model.bvh_child[node]
            boxes = model.bvh_aabb[children]
            points = np.concatenate([boxes[:, :3] - boxes[:, 3:], boxes[:, :3] + boxes[:, 3:]])
        low, high = points.min(axis=0), points.max(axis=0)
        model.bvh_aabb[node] = np.concatenate([(low + high) / 2.0, (high - low) / 2.0])


def _axis_rotation(axis: np.ndarray, angle: float) -> np.ndarray:
    """Rotation matrix of `angle` radians about a unit `axis` (Rodrigues)."""
    x, y, z = np.asarray(axis, float) / max(float(np.linalg.norm(axis)), 1e-12)
    k = np.array([[0.0, -z, y], [z, 0.0, -x], [-y, x, 0.0]])
    return np.eye(3) + math.sin(angle) * k + (1.0 - math.cos(angle)) * (k @ k)


def geom_colors(world: World) -> np.ndarray:
    """Per-geom render colours (ngeom, 3) from each owner's material colour."""
    colors = np.full((world.model.ngeom, 3), 0.5, dtype=np.float32)
    for obj in world.objects:
        colors[obj.all_geom_ids] = obj.rgb
    return colors


def yaw_of(mat_mj: np.ndarray) -> float:
    """MCS yaw (degrees) of a MuJoCo rotation matrix's forward (+y) axis."""
    forward = mat_mj[:, 1]
    return math.degrees(math.atan2(forward[0], forward[1])) % 360.0
