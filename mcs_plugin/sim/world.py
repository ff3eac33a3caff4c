"""Scene -> MuJoCo world: room structure, catalog objects as bodies and geoms, and an object registry."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Iterable

import mujoco
import numpy as np

from mcs_plugin.mcs.scene import Scene, SceneObject
from mcs_plugin.sim import catalog
from mcs_plugin.sim.coords import matrix_to_quat, mcs_to_mj, unity_euler_to_mj_matrix
from mcs_plugin.sim.materials import material_color_names, material_rgb

# Simulated time: MCS runs 5 Unity physics steps of 0.01 s per action (20 "physics frames" per second).
PHYSICS_TIMESTEP = 0.005
SUBSTEPS_PER_ACTION = 10
PHYSICS_FRAMES_PER_SECOND = 20.0

# Geom groups: ray casts and the renderer skip PERFORMER and ABSENT (hidden, held or not yet shown).
GROUP_OBJECT, GROUP_STRUCTURE, GROUP_PERFORMER, GROUP_ABSENT = 0, 1, 4, 5
RAY_GROUPS = np.array([1, 1, 1, 1, 0, 0], dtype=np.uint8)

REST_SPEED = 1e-3  # m/s (and rad/s): below this for two actions in a row, a body counts as at rest
PROBE_RADIUS = 1e-4  # a point-like geom for distance queries
WALL_THICKNESS = 0.5
DEFAULT_ROOM = (10.0, 3.0, 10.0)
STRUCTURE_COLOR = (0.8, 0.78, 0.72)
FLOOR_COLOR = (0.85, 0.85, 0.82)

_PRIMITIVE_KINDS = {"box", "sphere", "cylinder"}


@dataclass
class SimObject:
    """One MCS object (scene object or room structure) and its MuJoCo body and geoms."""

    id: str
    type_name: str
    shape: str
    size: np.ndarray  # full bounding size (MCS x, y, z) after scale
    bounds_center: np.ndarray  # bounding-box centre in the object's local MCS frame
    mass: float
    body_id: int = -1
    geom_ids: list[int] = field(default_factory=list)
    lid_geom_ids: list[int] = field(default_factory=list)
    dynamic: bool = False  # has a free joint (physics); else a mocap body
    qpos_adr: int = -1
    qvel_adr: int = -1
    mocap_id: int = -1
    pickupable: bool = False
    moveable: bool = False
    receptacle: bool = False
    openable: bool = False
    locked: bool = False
    is_open: bool = False
    structural: bool = False  # listed in structural_object_list
    is_floor: bool = False
    is_agent: bool = False
    rgb: tuple[float, float, float] = (0.5, 0.5, 0.5)
    material_list: list[str] = field(default_factory=list)
    texture_color_list: list[str] = field(default_factory=list)
    associated_with_agent: str = ""
    present: bool = True  # False while hidden, held or before its first show
    held: bool = False
    was_picked_up: bool = False
    scene_object: SceneObject | None = None

    @property
    def interactable_body(self) -> bool:
        """Whether actions can move this object (a dynamic body that is not structure)."""
        return self.dynamic and not self.structural


@dataclass
class _Spec:
    """An object's MJCF pieces before compilation."""

    obj: SimObject
    pos: np.ndarray
    mat: np.ndarray
    parts: list[tuple[str, np.ndarray, np.ndarray, np.ndarray, str]]  # kind, centre, size, local rot, role
    group: int


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
        self.geom_owner = np.full(model.ngeom, -1, dtype=np.int32)
        for index, obj in enumerate(objects):
            self.geom_owner[obj.geom_ids] = index
        self._contype = model.geom_contype.copy()
        self._conaffinity = model.geom_conaffinity.copy()
        self._group = model.geom_group.copy()
        self._ray_geom = np.zeros(1, dtype=np.int32)
        self._dynamic = [o for o in objects if o.dynamic]
        self._still_checks = 0  # consecutive actions after which every dynamic body was at rest

    def wake(self) -> None:
        """Resume physics (something may move): called whenever an action or script changes the state."""
        self._still_checks = 0

    @property
    def at_rest(self) -> bool:
        """Whether every dynamic body has been still for two consecutive actions (physics is skipped)."""
        return self._still_checks >= 2

    # -- presence and holding -------------------------------------------------------------------
    def set_present(self, obj: SimObject, present: bool) -> None:
        """Put an object in the world (collides, rendered, hit by rays) or take it out."""
        self.wake()
        obj.present = present
        ids = obj.geom_ids
        if present:
            self.model.geom_contype[ids] = self._contype[ids]
            self.model.geom_conaffinity[ids] = self._conaffinity[ids]
            self.model.geom_group[ids] = self._group[ids]
            if obj.openable and obj.is_open:
                self._set_lid(obj, opened=True)
        else:
            self.model.geom_contype[ids] = 0
            self.model.geom_conaffinity[ids] = 0
            self.model.geom_group[ids] = GROUP_ABSENT

    def set_open(self, obj: SimObject, opened: bool) -> None:
        """Open or close an object's lid or door (an opened lid is out of the way of rays and bodies)."""
        self.wake()
        obj.is_open = opened
        if obj.present:
            self._set_lid(obj, opened)

    def _set_lid(self, obj: SimObject, opened: bool) -> None:
        ids = obj.lid_geom_ids
        if not ids:
            return
        self.model.geom_contype[ids] = 0 if opened else self._contype[ids]
        self.model.geom_conaffinity[ids] = 0 if opened else self._conaffinity[ids]
        self.model.geom_group[ids] = GROUP_ABSENT if opened else self._group[ids]

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
        if obj.dynamic:
            self.data.qpos[obj.qpos_adr : obj.qpos_adr + 3] = pos_mj
            if quat is not None:
                self.data.qpos[obj.qpos_adr + 3 : obj.qpos_adr + 7] = quat
            self.data.qvel[obj.qvel_adr : obj.qvel_adr + 6] = 0.0
        else:
            self.data.mocap_pos[obj.mocap_id] = pos_mj
            if quat is not None:
                self.data.mocap_quat[obj.mocap_id] = quat

    def set_velocity(self, obj: SimObject, linear_mj: np.ndarray, angular_mj: np.ndarray | None = None) -> None:
        """Set a dynamic object's linear (and angular) velocity in the world frame."""
        self.wake()
        self.data.qvel[obj.qvel_adr : obj.qvel_adr + 3] = linear_mj
        if angular_mj is not None:
            self.data.qvel[obj.qvel_adr + 3 : obj.qvel_adr + 6] = angular_mj

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
        qpos, qvel = self.data.qpos, self.data.qvel
        frozen = [(o, qpos[o.qpos_adr : o.qpos_adr + 7].copy()) for o in self._dynamic if not o.present]
        for _ in range(substeps):
            mujoco.mj_step(self.model, self.data)
        for obj, pose in frozen:  # absent (held, hidden, not yet shown) bodies do not fall through the void
            qpos[obj.qpos_adr : obj.qpos_adr + 7] = pose
            qvel[obj.qvel_adr : obj.qvel_adr + 6] = 0.0
        mujoco.mj_kinematics(self.model, self.data)
        speed = max((np.abs(qvel[o.qvel_adr : o.qvel_adr + 6]).max() for o in self._dynamic if o.present), default=0.0)
        self._still_checks = self._still_checks + 1 if speed < REST_SPEED else 0

    def ray(self, origin_mj: np.ndarray, direction_mj: np.ndarray) -> tuple[int, float]:
        """First geom hit by a ray from origin along a unit direction: (geom id or -1, distance)."""
        dist = mujoco.mj_ray(
            self.model, self.data, np.asarray(origin_mj, float), np.asarray(direction_mj, float),
            RAY_GROUPS, True, self.performer_body, self._ray_geom,
        )
        return int(self._ray_geom[0]), float(dist)

    def rays(self, origin_mj: np.ndarray, directions_mj: np.ndarray, cutoff: float) -> tuple[np.ndarray, np.ndarray]:
        """First geoms hit (and distances) by many unit rays from one origin; -1 where nothing is hit."""
        n = len(directions_mj)
        geom = np.full(n, -1, dtype=np.int32)
        dist = np.full(n, -1.0)
        if n:
            mujoco.mj_multiRay(
                self.model, self.data, np.asarray(origin_mj, float),
                np.ascontiguousarray(directions_mj, dtype=float).reshape(-1), RAY_GROUPS, True,
                self.performer_body, geom, dist, None, n, cutoff,
            )
        return geom, dist

    def distance_to(self, obj: SimObject, point_mj: np.ndarray, distmax: float = 20.0) -> float:
        """Distance from a point to the nearest surface of an object's present geoms."""
        self.data.geom_xpos[self.probe_geom] = point_mj
        geoms = [g for g in obj.geom_ids if self.model.geom_group[g] != GROUP_ABSENT] or obj.geom_ids
        best = min(mujoco.mj_geomDistance(self.model, self.data, self.probe_geom, g, distmax, None) for g in geoms)
        return max(best + PROBE_RADIUS, 0.0)

    def owner(self, geom: int) -> SimObject | None:
        """The object a geom belongs to, or None."""
        if geom < 0:
            return None
        index = self.geom_owner[geom]
        return self.objects[index] if index >= 0 else None

    def collides(self, geom: int, ignore: Iterable[int] = (), margin: float = 0.0) -> bool:
        """Whether a geom (at its current pose) overlaps any present collidable geom not in `ignore`."""
        model, data = self.model, self.data
        ignored = set(ignore)
        centre = data.geom_xpos[geom]
        reach = model.geom_rbound[geom] + margin
        gaps = np.linalg.norm(data.geom_xpos - centre, axis=1) - model.geom_rbound
        candidates = np.nonzero(gaps < reach)[0]
        for other in candidates:
            if other == geom or other in ignored or model.geom_contype[other] == 0:
                continue
            if model.geom_type[other] == mujoco.mjtGeom.mjGEOM_PLANE:
                continue
            if mujoco.mj_geomDistance(model, data, geom, int(other), margin + 0.05, None) < margin:
                return True
        return False


# ----------------------------------------------------------------------------------------------
# Building
# ----------------------------------------------------------------------------------------------
def _scene_flag(value, default: bool) -> bool:
    return default if value is None else bool(value)


def _object_colors(obj: SceneObject) -> tuple[tuple[float, float, float], list[str]]:
    materials = list(obj.materials or [])
    if not materials:
        return (0.6, 0.6, 0.6), []
    rgb = material_rgb(materials[0])
    names: list[str] = []
    for material in materials:
        for name in material_color_names(material):
            if name not in names:
                names.append(name)
    return rgb, names


def _make_scene_object(obj: SceneObject) -> tuple[SimObject, list, np.ndarray, np.ndarray]:
    """A SimObject, its scaled parts and its local pose for one scene object."""
    otype = catalog.get_object_type(obj.type)
    show = obj.shows[0]
    scale = np.array([show.scale.x, show.scale.y, show.scale.z], dtype=float)
    parts = []
    lo, hi = np.full(3, np.inf), np.full(3, -np.inf)
    for part in otype.parts:
        centre = np.array(part.center, float) * scale
        size = np.array(part.size, float) * scale
        rot = unity_euler_to_mj_matrix(*part.rotation)
        parts.append((part.kind, centre, size, rot, part.role))
        lo, hi = np.minimum(lo, centre - size / 2), np.maximum(hi, centre + size / 2)
    structural = bool(obj.structure) or otype.is_structural_default
    kinematic = bool(obj.kinematic) or otype.kinematic_default
    pickupable = _scene_flag(obj.pickupable, otype.pickupable)
    moveable = _scene_flag(obj.moveable, otype.moveable) or pickupable
    receptacle = _scene_flag(obj.receptacle, otype.receptacle)
    openable = _scene_flag(obj.openable, otype.openable)
    physics = bool(obj.physics) or otype.physics or pickupable or moveable or receptacle or openable
    rgb, color_names = _object_colors(obj)
    sim = SimObject(
        id=obj.id,
        type_name=obj.type,
        shape=otype.shape,
        size=np.array(otype.size, float) * scale,
        bounds_center=(lo + hi) / 2.0,
        mass=float(obj.mass) if obj.mass is not None else float(otype.mass),
        dynamic=physics and not kinematic and not structural,
        pickupable=pickupable,
        moveable=moveable,
        receptacle=receptacle,
        openable=openable,
        locked=bool(obj.locked),
        is_open=bool(obj.opened),
        structural=structural,
        is_agent=otype.is_agent,
        rgb=rgb,
        material_list=[m.upper() for m in (obj.salient_materials or [])],
        texture_color_list=color_names,
        associated_with_agent=obj.associated_with_agent or "",
        scene_object=obj,
    )
    rotation = show.rotation
    return sim, parts, np.array([show.position.x, show.position.y, show.position.z]), np.array(
        [rotation.x, rotation.y, rotation.z]
    )


def _room_specs(scene: Scene) -> list[_Spec]:
    """Floor, ceiling and the four walls as structural objects (MCS ids and placement)."""
    dims = scene.room_dimensions
    x, y, z = (dims.x, dims.y, dims.z) if dims and (dims.x or dims.y or dims.z) else DEFAULT_ROOM
    passive = bool(scene.intuitive_physics or scene.isometric or getattr(scene, "isometric_front_right", False))
    t = WALL_THICKNESS
    floor_x, floor_z = (max(x, 40.0), z) if scene.intuitive_physics else (x, z)
    pieces = [
        ("floor", (0.0, -t / 2, 0.0), (floor_x + 2 * t, t, floor_z + 2 * t)),
        ("wall_back", (0.0, y / 2, -(z / 2 + t / 2)), (x + 2 * t, y, t)),
        ("wall_front", (0.0, y / 2, z / 2 + t / 2), (x + 2 * t, y, t)),
        ("wall_left", (-(x / 2 + t / 2), y / 2, 0.0), (t, y, z + 2 * t)),
        ("wall_right", (x / 2 + t / 2, y / 2, 0.0), (t, y, z + 2 * t)),
    ]
    if not passive:
        pieces.append(("ceiling", (0.0, y + t / 2, 0.0), (x + 2 * t, t, z + 2 * t)))
    specs = []
    for name, centre, size in pieces:
        is_floor = name == "floor"
        obj = SimObject(
            id=name, type_name="structure", shape="structural", size=np.array(size, float),
            bounds_center=np.zeros(3), mass=0.0, structural=not is_floor, is_floor=is_floor,
            rgb=FLOOR_COLOR if is_floor else STRUCTURE_COLOR,
        )
        parts = [("box", np.zeros(3), np.array(size, float), np.eye(3), "body")]
        specs.append(_Spec(obj, mcs_to_mj(*centre), np.eye(3), parts, GROUP_STRUCTURE))
    return specs


def _object_specs(scene: Scene) -> list[_Spec]:
    """Scene objects placed at their first show, children placed relative to their locationParent."""
    made = {o.id: _make_scene_object(o) for o in scene.objects}
    placed: dict[str, tuple[np.ndarray, np.ndarray]] = {}

    def place(object_id: str, depth: int = 0) -> tuple[np.ndarray, np.ndarray]:
        if object_id in placed:
            return placed[object_id]
        sim, _, pos, rot = made[object_id]
        mat = unity_euler_to_mj_matrix(*rot)
        world_pos = mcs_to_mj(*pos)
        parent_id = sim.scene_object.location_parent
        if parent_id and parent_id in made and depth < 8:
            parent_pos, parent_mat = place(parent_id, depth + 1)
            world_pos = parent_pos + parent_mat @ world_pos
            mat = parent_mat @ mat
        placed[object_id] = (world_pos, mat)
        return placed[object_id]

    specs = []
    for obj in scene.objects:
        sim, parts, _, _ = made[obj.id]
        pos, mat = place(obj.id)
        group = GROUP_STRUCTURE if sim.structural else GROUP_OBJECT
        specs.append(_Spec(sim, pos, mat, parts, group))
    return specs


def _fmt(values) -> str:
    return " ".join(f"{float(v):.6g}" for v in values)


def _geom_xml(spec: _Spec, index: int, kind: str, centre, size, rot, mass: float, meshes: list[str]) -> str:
    """MJCF for one part, in the body's frame (MuJoCo axes)."""
    pos_mj = centre[[0, 2, 1]]
    size_mj = size[[0, 2, 1]]
    quat = matrix_to_quat(rot)
    name = f"{spec.obj.id}#{index}"
    common = f'name="{_xml_escape(name)}" pos="{_fmt(pos_mj)}" quat="{_fmt(quat)}" group="{spec.group}" mass="{mass:.6g}"'
    if kind == "box":
        return f'<geom type="box" size="{_fmt(np.maximum(size_mj / 2, 1e-4))}" {common}/>'
    if kind == "sphere":
        radii = np.maximum(size_mj / 2, 1e-4)
        if np.allclose(radii, radii[0], rtol=1e-3):
            return f'<geom type="sphere" size="{radii[0]:.6g}" {common}/>'
        return f'<geom type="ellipsoid" size="{_fmt(radii)}" {common}/>'
    if kind == "cylinder":
        radius = max(min(size_mj[0], size_mj[1]) / 2, 1e-4)
        if abs(size_mj[0] - size_mj[1]) < 1e-6:
            return f'<geom type="cylinder" size="{radius:.6g} {max(size_mj[2] / 2, 1e-4):.6g}" {common}/>'
    # Everything else (and elliptic cylinders) as a convex mesh scaled to the part's size.
    mesh_name = f"mesh{len(meshes)}"
    vertices = catalog.mesh_vertices("cylinder" if kind == "cylinder" else kind)[:, [0, 2, 1]] * np.maximum(size_mj, 1e-4)
    meshes.append(f'<mesh name="{mesh_name}" vertex="{_fmt(vertices.reshape(-1))}"/>')
    return f'<geom type="mesh" mesh="{mesh_name}" {common}/>'


def _xml_escape(text: str) -> str:
    return text.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;").replace(">", "&gt;")


def _part_volume(size: np.ndarray) -> float:
    return float(max(size[0] * size[1] * size[2], 1e-9))


def build_world(scene: Scene, performer_radius: float = 0.25, performer_height: float = 1.23) -> World:
    """Compile a scene into a MuJoCo world with the performer's collision capsule."""
    specs = _room_specs(scene) + _object_specs(scene)
    meshes: list[str] = []
    bodies: list[str] = []
    for spec in specs:
        obj = spec.obj
        total_volume = sum(_part_volume(p[2]) for p in spec.parts) or 1.0
        geoms = []
        for index, (kind, centre, size, rot, _role) in enumerate(spec.parts):
            mass = max(obj.mass, 1e-3) * _part_volume(size) / total_volume
            geoms.append(_geom_xml(spec, index, kind, centre, size, rot, mass, meshes))
        attrs = f'name="{_xml_escape(obj.id)}" pos="{_fmt(spec.pos)}" quat="{_fmt(matrix_to_quat(spec.mat))}"'
        if obj.dynamic:
            bodies.append(f"<body {attrs}><freejoint/>{''.join(geoms)}</body>")
        elif obj.type_name == "structure":
            bodies.append(f"<body {attrs}>{''.join(geoms)}</body>")
        else:
            bodies.append(f'<body {attrs} mocap="true">{"".join(geoms)}</body>')
    half = max(performer_height / 2 - performer_radius, 0.01)
    performer = (
        '<body name="__performer__" mocap="true" pos="0 0 1">'
        f'<geom name="__performer__" type="capsule" size="{performer_radius} {half:.6g}" '
        f'group="{GROUP_PERFORMER}" contype="0" conaffinity="0"/>'
        f'<geom name="__probe__" type="sphere" size="{PROBE_RADIUS}" group="{GROUP_PERFORMER}" contype="0" conaffinity="0"/>'
        "</body>"
    )
    xml = (
        '<mujoco model="mcs"><compiler angle="radian"/>'
        f'<option timestep="{PHYSICS_TIMESTEP}" gravity="0 0 -9.81"/>'
        '<default><geom friction="0.6 0.005 0.0001" solref="0.005 1" rgba="1 1 1 1"/></default>'
        f"<asset>{''.join(meshes)}</asset>"
        f"<worldbody>{''.join(bodies)}{performer}</worldbody></mujoco>"
    )
    model = mujoco.MjModel.from_xml_string(xml)
    data = mujoco.MjData(model)
    objects = [spec.obj for spec in specs]
    for spec in specs:
        obj = spec.obj
        obj.body_id = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, obj.id)
        first = model.body_geomadr[obj.body_id]
        obj.geom_ids = list(range(first, first + model.body_geomnum[obj.body_id]))
        obj.lid_geom_ids = [g for g, part in zip(obj.geom_ids, spec.parts) if part[4] in catalog.MOVING_ROLES]
        if obj.dynamic:
            joint = model.body_jntadr[obj.body_id]
            obj.qpos_adr, obj.qvel_adr = int(model.jnt_qposadr[joint]), int(model.jnt_dofadr[joint])
        elif model.body_mocapid[obj.body_id] >= 0:
            obj.mocap_id = int(model.body_mocapid[obj.body_id])
    performer_geom = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_GEOM, "__performer__")
    world = World(model, data, objects, performer_geom)
    for obj in objects:
        if obj.scene_object is not None and obj.scene_object.shows[0].step_begin > 0:
            world.set_present(obj, False)
        elif obj.openable and obj.is_open:
            world.set_open(obj, True)
    world.forward()
    return world


def geom_colors(world: World) -> np.ndarray:
    """Per-geom render colours (ngeom, 3) from each owner's material colour."""
    colors = np.full((world.model.ngeom, 3), 0.5, dtype=np.float32)
    for obj in world.objects:
        colors[obj.geom_ids] = obj.rgb
    return colors


def yaw_of(mat_mj: np.ndarray) -> float:
    """MCS yaw (degrees) of a MuJoCo rotation matrix's forward (+y) axis."""
    forward = mat_mj[:, 1]
    return math.degrees(math.atan2(forward[0], forward[1])) % 360.0
