"""Scene -> MuJoCo world: the room, catalog objects as bodies and geoms (lips, holes, planks, child components), the
MJCF model and the World that owns it."""

from __future__ import annotations

import functools
import itertools
import json
from collections import Counter
from dataclasses import dataclass

import mujoco
import numpy as np

from mcs_plugin.constants import (
    GROUP_ABSENT, GROUP_AGENT_SHELL, GROUP_LOOK, GROUP_OBJECT, GROUP_PERFORMER, GROUP_SEE_PAST, GROUP_STRUCTURE,
    PERFORMER_RADIUS, POSE_BODY_HEIGHT, STANDING, SUPPORT_RADIUS,
)
from mcs_plugin.mcs.scene import WALL_THICKNESS, PhysicsConfig, Scene, SceneObject
from mcs_plugin.sim import catalog
from mcs_plugin.sim.coords import matrix_to_quat, mcs_to_mj, unity_euler_to_mj_matrix
from mcs_plugin.sim.datafiles import data_text
from mcs_plugin.sim.materials import material_rgb, reported_color_names
from mcs_plugin.sim.performer import AXIS_HIGH, AXIS_LOW
from mcs_plugin.sim.world import (
    ANGULAR_DRAG, BODY_PREFIX, CONTACT_TIMECONST, DEFAULT_ROOM, FLOOR_COLOR, FLOOR_ID, GRAVITY, HOLE_DEPTH,
    PASSIVE_FLOOR_FRICTION, PHYSICS_TIMESTEP, PROBE_RADIUS, ROLLING_FRICTION, SEESAW_PLANK_THICKNESS, STRUCTURE_COLOR,
    TORSIONAL_FRICTION, UNITY_FRICTION, FloorGrid, SimObject, World,
)


@dataclass
class _Spec:
    """An object's MJCF pieces before compilation."""

    obj: SimObject
    pos: np.ndarray
    mat: np.ndarray
    parts: list[tuple[str, np.ndarray, np.ndarray, np.ndarray, str]]  # kind, centre, size, local rot, role
    group: int
    name: str = ""  # MuJoCo body name: the object id, made unique where scene ids repeat (set by _name_bodies)


def _scene_flag(value, default: bool) -> bool:
    return default if value is None else bool(value)


_MATERIAL_NAMES = ("CERAMIC", "FABRIC", "FOOD", "GLASS", "METAL", "ORGANIC", "PAPER", "PLASTIC", "RUBBER",
                   "SOAP", "SPONGE", "STONE", "UNDEFINED", "WAX", "WOOD")


def reported_colors(obj: SceneObject, materials: list[str] | None = None) -> list[str]:
    """texture_color_list of a scene object wearing `materials` (default: its scene materials), as Unity
    reports it: the colour names of each material in order, without repeats; prefab colours otherwise."""
    _, default_colors, fixed = catalog.default_materials(obj.type)
    materials = list(obj.materials or []) if materials is None else list(materials)
    if fixed or not materials:
        if obj.type.startswith("agent_"):
            settings = obj.agent_settings
            skin, elder = (settings.skin, settings.is_elder) if settings is not None else (-1, False)
            return list(catalog.agent_skin_colors(skin, elder))
        return list(default_colors)
    names: list[str] = []
    for material in materials:
        for name in reported_color_names(material):
            if name not in names:
                names.append(name)
    return names


def reported_materials(obj: SceneObject) -> list[str]:
    """material_list of a scene object: its salientMaterials (upper-cased, known names only), else its type's;
    none for types whose prefab reports none."""
    if obj.type in catalog.NO_REPORTED_MATERIALS:
        return []
    if obj.salient_materials:
        return [m.upper() for m in obj.salient_materials if m.upper() in _MATERIAL_NAMES]
    return list(catalog.default_materials(obj.type)[0])


def _object_colors(obj: SceneObject) -> tuple[tuple[float, float, float], list[str]]:
    materials = list(obj.materials or [])
    names = reported_colors(obj)
    if not materials:
        return (0.6, 0.6, 0.6), names
    return material_rgb(materials[0]), names


@functools.lru_cache(maxsize=512)
def _part_matrix(rotation: tuple[float, float, float]) -> np.ndarray:
    """A part's rotation (Unity Euler degrees) as a read-only MuJoCo rotation matrix, once per distinct rotation (a
    prefab's dozens of turned boxes repeat at every scene start)."""
    matrix = unity_euler_to_mj_matrix(*rotation)
    matrix.setflags(write=False)
    return matrix


def _make_scene_object(obj: SceneObject) -> tuple[SimObject, list, np.ndarray, np.ndarray]:
    """A SimObject, its scaled parts and its local pose for one scene object."""
    otype = catalog.get_object_type(obj.type)
    show = obj.shows[0]
    scale = np.array([show.scale.x, show.scale.y, show.scale.z], dtype=float)
    parts = []
    part_names: list[str] = []
    open_centres: list[np.ndarray | None] = []
    for part in otype.parts:
        centre = np.array(part.center, float) * scale
        size = np.array(part.size, float) * scale
        parts.append((part.kind, centre, size, _part_matrix(part.rotation), "look" if part.look else part.role))
        part_names.append(part.name)
        open_centres.append((np.array(part.open_center, float) * scale, np.array(part.open_size or part.size, float) * scale)
                            if part.open_center is not None and part.kind == "box" else None)
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
        shape="structural" if obj.structure else otype.shape,
        size=np.array(otype.size, float) * scale,
        bounds_center=np.array(otype.bounds_center, float) * scale,
        mass=float(obj.mass) if obj.mass is not None else float(otype.mass),
        dynamic=physics and not structural,
        # Furniture that only holds things (receptacles, openables that cannot be moved) stays put, as in MCS
        # (a sofa shown 5 cm above the floor stays there); scene `physics` or moving affordances free it.
        frozen=physics and not structural and (kinematic or not (moveable or openable or bool(obj.physics))),
        pickupable=pickupable,
        moveable=moveable,
        receptacle=receptacle,
        openable=openable,
        locked=bool(obj.locked),
        is_open=bool(obj.opened),
        structural=structural,
        is_agent=otype.is_agent,
        is_door=otype.family == "door",
        rgb=rgb,
        material_list=reported_materials(obj),
        texture_color_list=color_names,
        associated_with_agent=obj.associated_with_agent or "",
        scene_object=obj,
        seesaw=bool(obj.seesaw),
        part_names=part_names,
        part_open_centres=open_centres,
    )
    if sim.seesaw and sim.dynamic and not sim.frozen:
        parts = _as_plank(sim, parts)
    rotation = show.rotation
    return sim, parts, np.array([show.position.x, show.position.y, show.position.z]), np.array(
        [rotation.x, rotation.y, rotation.z]
    )


def _as_plank(sim: SimObject, parts: list) -> list:
    """Make a physical seesaw object a plank: SEESAW_PLANK_THICKNESS thick along its local z,
    held by _plank_joints instead of moving freely."""
    sim.plank, sim.dynamic = True, False
    sim.size = sim.size.copy()
    sim.size[2] = SEESAW_PLANK_THICKNESS
    thin = []
    for kind, centre, size, rot, role in parts:
        size = size.copy()
        size[2] = SEESAW_PLANK_THICKNESS
        thin.append((kind, centre, size, rot, role))
    return thin


def _plank_joints(mat: np.ndarray) -> str:
    """A seesaw plank's joints: its centre keeps its x and z (position_z 0.3 through 41 degrees
    of tilt) and it turns only about its own x axis, so it rises, falls and pitches as the pivot, the floor and
    the performer's weight let it. The slide's axis is world-vertical in the body's frame."""
    vertical = mat.T @ np.array([0.0, 0.0, 1.0])
    return f'<joint type="slide" axis="{_fmt(vertical)}"/><joint type="hinge" axis="1 0 0"/>'


DEFAULT_CEILING_MATERIAL = "AI2-THOR/Materials/Walls/Drywall"
DEFAULT_FLOOR_MATERIAL = "AI2-THOR/Materials/Fabrics/CarpetWhite 3"
DEFAULT_WALL_MATERIAL = "AI2-THOR/Materials/Walls/DrywallBeige"


LIP_THICKNESS = 0.1  # platform lips: thin raised edges along the top of a platform (centres 0.05 inside,
LIP_HEIGHT = 0.3  # 0.15 above the top)
_LIP_SIDES = {  # side -> (axis across the side, sign, axis along it); MCS "front" is the -z side
    "front": (2, -1.0, 0), "back": (2, 1.0, 0), "left": (0, -1.0, 2), "right": (0, 1.0, 2),
}


def _lip_pieces(lips, size: np.ndarray, centre: np.ndarray) -> list[tuple[str, np.ndarray, np.ndarray]]:
    """(name suffix, centre, size) in the platform's frame (scaled) of each lip piece: one per side that has lips,
    split by the gaps (fractions of the side's length from its -x / -z end); pieces under 1 mm are dropped."""
    top = float(centre[1]) + float(size[1]) / 2.0
    pieces = []
    gaps = lips.gaps
    for side, (axis, sign, along) in _LIP_SIDES.items():
        if not getattr(lips, side, False):
            continue
        length = float(size[along])
        spans = [(0.0, 1.0)]
        for gap in (getattr(gaps, side, None) or []) if gaps is not None else []:
            low, high = sorted((max(0.0, min(1.0, gap.low)), max(0.0, min(1.0, gap.high))))
            spans = [piece for a, b in spans for piece in ((a, min(b, low)), (max(a, high), b))
                     if (piece[1] - piece[0]) * length > 1e-3]
        for index, (a, b) in enumerate(spans):
            point = np.array([float(centre[0]), top + LIP_HEIGHT / 2.0, float(centre[2])])
            point[axis] += sign * (float(size[axis]) / 2.0 - LIP_THICKNESS / 2.0)
            point[along] += (a + b) / 2.0 * length - length / 2.0
            extent = np.array([0.0, LIP_HEIGHT, 0.0])
            extent[axis] = LIP_THICKNESS
            extent[along] = (b - a) * length
            pieces.append((side if len(spans) == 1 else f"{side}-{index}", point, extent))
    return pieces


def room_materials(scene: Scene) -> dict[str, str]:
    """Material of each room piece (scene keys, else MCS's defaults; empty strings count as unset)."""
    wall = scene.wall_material or DEFAULT_WALL_MATERIAL
    sides = scene.room_materials
    materials = {"floor": scene.floor_material or DEFAULT_FLOOR_MATERIAL,
                 "ceiling": scene.ceiling_material or DEFAULT_CEILING_MATERIAL}
    for side in ("back", "front", "left", "right"):
        materials[f"wall_{side}"] = (getattr(sides, side, None) if sides is not None else None) or wall
    return materials


def _registry_physics() -> dict[str, PhysicsConfig]:
    """The physicsProperties MCS's object registries give object types (data/registry_physics.json)."""
    table = json.loads(data_text("registry_physics.json"))["values"]
    return {name: PhysicsConfig.model_validate(props) for name, props in table.items()}


_REGISTRY_PHYSICS = _registry_physics()


def _scene_physics_properties(obj: SimObject) -> PhysicsConfig | None:
    """An object's scene physicsProperties when enabled (None otherwise)."""
    props = obj.scene_object.physics_properties if obj.scene_object is not None else None
    return props if props is not None and props.enable else None


def _physics_properties(obj: SimObject) -> PhysicsConfig | None:
    """The physicsProperties MCSMain assigns an object: the scene's when enabled, else its type's registry entry's."""
    if obj.scene_object is None:
        return None
    return _scene_physics_properties(obj) or _REGISTRY_PHYSICS.get(obj.scene_object.type)


def _apply_physics_properties(obj: SimObject) -> None:
    """An object's physicsProperties set its friction, drag, angular drag and bounciness (MCSMain's
    AssignPhysicsMaterialAndRigidBodyValues assigns every field, so one left out is Unity's JSON default, 0); the
    bounciness of a type without enabled scene physicsProperties is its registry entry's."""
    props = _physics_properties(obj)
    scene_props = _scene_physics_properties(obj)
    if scene_props is not None:
        obj.bounciness = float(scene_props.bounciness or 0.0)
    else:
        obj.bounciness = catalog.get_object_type(obj.type_name).bounciness
    if props is None:
        return
    obj.friction = float(props.dynamic_friction or 0.0)
    obj.drag = float(props.drag or 0.0)
    obj.angular_drag = float(props.angular_drag or 0.0)


def floor_friction(scene: Scene) -> float:
    """The floor's dynamic friction: enabled floorProperties' (a field left out is 0), else 0.1 in an
    intuitive-physics scene (MCSMain.AdjustRoomStructuralObjects), else Unity's default."""
    props = scene.floor_properties
    if props is not None and props.enable:
        return float(props.dynamic_friction or 0.0)
    return PASSIVE_FLOOR_FRICTION if scene.intuitive_physics else UNITY_FRICTION


def room_bounciness(scene: Scene, piece: str) -> float:
    """Bounciness of the floor (enabled floorProperties'), the walls (enabled wallProperties') or the ceiling:
    MCSMain.AdjustRoomStructuralObjects' PHYSICS_BOUNCINESS_DEFAULT, 0, where none is given."""
    props = scene.floor_properties if piece == FLOOR_ID else None if piece == "ceiling" else scene.wall_properties
    return float(props.bounciness or 0.0) if props is not None and props.enable else 0.0


def contact_friction(obj: SimObject, floor: float) -> float:
    """MuJoCo sliding friction of a moving body's geoms: PhysX's average of its material and the floor's. Static
    geoms (the room, structures, kinematic objects) get none, and MuJoCo takes the larger of a contact's two geoms'
    friction, so a body meets the floor, and whatever does not move, with that average (exact where the thing is of
    the floor's material, Unity's default in interactive scenes); two moving bodies meet with the larger of their
    two averages (PhysX: the average of their own two)."""
    return (obj.friction + floor) / 2.0


def _room_specs(scene: Scene) -> list[_Spec]:
    """Floor, ceiling and the four walls as structural objects (MCS ids and placement).

    Positions are the ones MCS reports: walls centred at +-(d/2 + 0.25), y = height/2; the ceiling's
    position is at the room height (its 0.5 m slab lies above it); the floor slab's top is y = 0.
    """
    dims = scene.room_dimensions
    x, y, z = (dims.x, dims.y, dims.z) if dims and (dims.x or dims.y or dims.z) else DEFAULT_ROOM
    t = WALL_THICKNESS
    floor_x, floor_z = scene.floor_size()
    side_x = x / 2 + t / 2  # the side walls' centres
    if scene.intuitive_physics:  # MCSMain.AdjustRoomStructuralObjects gives intuitive physics its own, taller room
        side_x, y = INTUITIVE_PHYSICS_SIDE_WALL_X, INTUITIVE_PHYSICS_WALL_HEIGHT
    # name, origin, box centre relative to the origin, box size
    pieces = [
        ("floor", (0.0, -t / 2, 0.0), (0.0, 0.0, 0.0), (floor_x + 2 * t, t, floor_z + 2 * t)),
        ("wall_back", (0.0, y / 2, -(z / 2 + t / 2)), (0.0, 0.0, 0.0), (2 * side_x + t, y, t)),
        ("wall_front", (0.0, y / 2, z / 2 + t / 2), (0.0, 0.0, 0.0), (2 * side_x + t, y, t)),
        ("wall_left", (-side_x, y / 2, 0.0), (0.0, 0.0, 0.0), (t, y, z + 2 * t)),
        ("wall_right", (side_x, y / 2, 0.0), (0.0, 0.0, 0.0), (t, y, z + 2 * t)),
    ]
    if not scene.has_fixed_camera():
        pieces.append(("ceiling", (0.0, y, 0.0), (0.0, t / 2, 0.0), (x + 2 * t, t, z + 2 * t)))
    materials = room_materials(scene)
    specs = []
    for name, origin, offset, size in pieces:
        is_floor = name == FLOOR_ID
        material = materials[name]
        colors = list(reported_color_names(material))
        obj = SimObject(
            id=name, type_name="structure", shape="structural", size=np.array(size, float),
            bounds_center=np.array(offset, float), mass=0.0, structural=not is_floor, is_floor=is_floor,
            room=True, bounciness=room_bounciness(scene, name),
            rgb=material_rgb(material) if material else (FLOOR_COLOR if is_floor else STRUCTURE_COLOR),
            texture_color_list=colors,
        )
        parts = [("box", np.array(offset, float), np.array(size, float), np.eye(3), "body")]
        if is_floor and scene.holes:
            parts = _floor_with_holes(scene, size, origin)
        specs.append(_Spec(obj, mcs_to_mj(*origin), np.eye(3), parts, GROUP_STRUCTURE))
    return specs


# An intuitive-physics room (measured: the four walls' recorded positions, directions and distances from the fixed
# camera agree on side walls centred 7.75 m out and walls 6 m high, centre 3 m up; MCS's source sets these scenes' walls
# from constants of their own, other values in older releases).
INTUITIVE_PHYSICS_SIDE_WALL_X = 7.75
INTUITIVE_PHYSICS_WALL_HEIGHT = 6.0


def _floor_with_holes(scene: Scene, size: tuple[float, float, float], origin: tuple[float, float, float]) -> list:
    """Floor parts (in the floor body's frame) with 1 x 1 m holes cut out: slabs HOLE_DEPTH thick around the
    holes (their sides are the hole walls) over a bottom slab at -HOLE_DEPTH."""
    half_x, half_z = size[0] / 2.0, size[2] / 2.0
    holes = {(int(h.x), int(h.z)) for h in scene.holes}
    xs = sorted({-half_x, half_x} | {c + d for c, _ in holes for d in (-0.5, 0.5) if -half_x < c + d < half_x})
    zs = sorted({-half_z, half_z} | {c + d for _, c in holes for d in (-0.5, 0.5) if -half_z < c + d < half_z})
    top = -origin[1]  # the floor's top (y = 0) in the body frame
    parts = []
    for z0, z1 in itertools.pairwise(zs):
        for x0, x1 in itertools.pairwise(xs):
            cx, cz = (x0 + x1) / 2.0, (z0 + z1) / 2.0
            if (round(cx), round(cz)) in holes:  # the cells are cut at every hole's edges: a hole is one cell
                continue
            parts.append(("box", np.array([cx, top - HOLE_DEPTH / 2.0, cz]), np.array([x1 - x0, HOLE_DEPTH, z1 - z0]),
                          np.eye(3), "body"))
    parts.append(("box", np.array([0.0, top - HOLE_DEPTH - 0.25, 0.0]), np.array([size[0], 0.5, size[2]]), np.eye(3),
                  "body"))
    return parts


def _object_specs(scene: Scene) -> list[_Spec]:
    """Scene objects placed at their first show, children placed relative to their locationParent."""
    made = [_make_scene_object(o) for o in scene.objects]  # by index: ids may repeat, as in MCS
    first_index: dict[str, int] = {}
    for index, obj in enumerate(scene.objects):
        first_index.setdefault(obj.id, index)
    placed: dict[int, tuple[np.ndarray, np.ndarray]] = {}

    def place(index: int, depth: int = 0) -> tuple[np.ndarray, np.ndarray]:
        if index in placed:
            return placed[index]
        sim, _, pos, rot = made[index]
        mat = unity_euler_to_mj_matrix(*rot)
        world_pos = mcs_to_mj(*pos)
        parent_id = sim.scene_object.location_parent
        if parent_id and parent_id in first_index and depth < 8:
            parent_pos, parent_mat = place(first_index[parent_id], depth + 1)
            world_pos = parent_pos + parent_mat @ world_pos
            mat = parent_mat @ mat
        placed[index] = (world_pos, mat)
        return placed[index]

    specs = []
    for index, obj in enumerate(scene.objects):
        sim, parts, _, _ = made[index]
        pos, mat = place(index)
        group = GROUP_STRUCTURE if sim.structural else GROUP_SEE_PAST if _seen_past(sim) else GROUP_OBJECT
        children = _child_components(sim, parts)
        own = [i for i, name in enumerate(sim.part_names) if not name] if children else list(range(len(parts)))
        sim.part_open_centres = [sim.part_open_centres[i] for i in own]
        sim.part_names = [sim.part_names[i] for i in own]
        specs.append(_Spec(sim, pos, mat, [parts[i] for i in own], group))
        for child, child_parts in children:
            specs.append(_Spec(child, pos.copy(), mat.copy(), child_parts, group))
        if obj.lips is not None:
            for suffix, centre, size in _lip_pieces(obj.lips, sim.size, sim.bounds_center):
                lip = SimObject(
                    id=f"{obj.id}-{suffix}", type_name="lip", shape="structural", size=size, bounds_center=np.zeros(3),
                    mass=0.0, structural=True, is_lip=True, rgb=sim.rgb, material_list=["UNDEFINED"],
                    texture_color_list=list(sim.texture_color_list),
                )
                lip_parts = [("box", np.zeros(3), size, np.eye(3), "body")]
                specs.append(_Spec(lip, pos + mat @ centre[[0, 2, 1]], mat, lip_parts, GROUP_STRUCTURE))
    return specs


def _seen_past(sim: SimObject) -> bool:
    """Whether other objects are seen past this one (GROUP_SEE_PAST): tools."""
    return catalog.parse_tool_type(sim.type_name) is not None


def _child_components(parent: SimObject, parts: list) -> list[tuple[SimObject, list]]:
    """MCS child components (changing_table drawers and shelves, bookcase shelves...) as their own objects:
    ``<parent id>_<name>``, receptacles, openable when they slide or swing (a changing table is
    listed with its five children). They share the parent's frame and do not move on their own."""
    names = list(dict.fromkeys(name for name in parent.part_names if name))
    children = []
    for name in names:
        indices = [i for i, part_name in enumerate(parent.part_names) if part_name == name]
        child_parts = [parts[i] for i in indices]
        openable = any(part[4] in catalog.MOVING_ROLES for part in child_parts)
        lo = np.min([part[1] - part[2] / 2 for part in child_parts], axis=0)
        hi = np.max([part[1] + part[2] / 2 for part in child_parts], axis=0)
        child = SimObject(
            id=f"{parent.id}_{name}", type_name=parent.type_name, shape=parent.shape, size=hi - lo,
            bounds_center=(lo + hi) / 2, mass=0.0, receptacle=True, openable=openable, rgb=parent.rgb,
            material_list=list(parent.material_list), texture_color_list=list(parent.texture_color_list),
            parent=parent.id, part_names=[name] * len(indices),
            part_open_centres=[parent.part_open_centres[i] for i in indices],
        )
        children.append((child, child_parts))
    return children


def _fmt(values) -> str:
    return " ".join(f"{float(v):.6g}" for v in values)


# Parts with no mass, outside an object's solid geoms: its look (only drawn) and its sight parts (only met by rays).
MASSLESS_ROLES = ("look", "sight")

# Roles of parts that never collide, and the group each is in instead of its object's: an agent's shell (met only by
# rays toward agents), a receptacle's trigger box (not even drawn), a look (only drawn), a sight part (only met by rays).
NON_COLLIDING_ROLE_GROUPS = {"shell": GROUP_AGENT_SHELL, "trigger": GROUP_ABSENT, "look": GROUP_LOOK,
                             "sight": GROUP_STRUCTURE}


def _geom_xml(spec: _Spec, index: int, part: tuple, mass: float, meshes: list[str]) -> str:
    """MJCF for one part, in the body's frame (MuJoCo axes); an agent's shell neither collides nor occludes, a
    receptacle's trigger box is not even drawn; a type's look is only drawn (its registry colliders are not drawn:
    World.drawn); a sight part is only met by rays (it hides what lies behind it)."""
    kind, centre, size, rot, role = part
    pos_mj = centre[[0, 2, 1]]
    size_mj = size[[0, 2, 1]]
    quat = matrix_to_quat(rot)
    name = f"{spec.name}#{index}"
    group = NON_COLLIDING_ROLE_GROUPS.get(role, spec.group)
    common = f'name="{_xml_escape(name)}" pos="{_fmt(pos_mj)}" quat="{_fmt(quat)}" group="{group}" mass="{mass:.6g}"'
    if role in NON_COLLIDING_ROLE_GROUPS:
        common += ' contype="0" conaffinity="0"'
    if kind == "box":
        return f'<geom type="box" size="{_fmt(np.maximum(size_mj / 2, 1e-4))}" {common}/>'
    if kind == "sphere":
        radii = np.maximum(size_mj / 2, 1e-4)
        if np.allclose(radii, radii[0], rtol=1e-3):
            return f'<geom type="sphere" size="{radii[0]:.6g}" {common}/>'
        return f'<geom type="ellipsoid" size="{_fmt(radii)}" {common}/>'
    if kind == "capsule":
        radius = max(min(size_mj[0], size_mj[1]) / 2, 1e-4)
        return f'<geom type="capsule" size="{radius:.6g} {max(size_mj[2] / 2 - radius, 1e-4):.6g}" {common}/>'
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


def _name_bodies(specs: list[_Spec]) -> list[_Spec]:
    """Give each spec its MuJoCo body name: its object id, with "~2", "~3"... on later objects of a repeated id."""
    seen: Counter[str] = Counter()
    for spec in specs:
        seen[spec.obj.id] += 1
        spec.name = spec.obj.id if seen[spec.obj.id] == 1 else f"{spec.obj.id}~{seen[spec.obj.id]}"
    return specs


def build_world(scene: Scene, performer_radius: float = PERFORMER_RADIUS,
                performer_height: float = POSE_BODY_HEIGHT[STANDING]) -> World:
    """Compile a scene into a MuJoCo world with the performer's collision capsule."""
    specs = _name_bodies(_room_specs(scene) + _object_specs(scene))
    meshes: list[str] = []
    bodies: list[str] = []
    for spec in specs:
        obj = spec.obj
        total_volume = sum(_part_volume(p[2]) for p in spec.parts if p[4] not in MASSLESS_ROLES) or 1.0
        geoms = []
        for index, part in enumerate(spec.parts):
            mass = 0.0 if part[4] in MASSLESS_ROLES else max(obj.mass, 1e-3) * _part_volume(part[2]) / total_volume
            geoms.append(_geom_xml(spec, index, part, mass, meshes))
        attrs = f'name="{_xml_escape(BODY_PREFIX + spec.name)}" pos="{_fmt(spec.pos)}" quat="{_fmt(matrix_to_quat(spec.mat))}"'
        if obj.dynamic:
            bodies.append(f"<body {attrs}><freejoint/>{''.join(geoms)}</body>")
        elif obj.plank:
            bodies.append(f"<body {attrs}>{_plank_joints(spec.mat)}{''.join(geoms)}</body>")
        elif obj.type_name == "structure":
            bodies.append(f"<body {attrs}>{''.join(geoms)}</body>")
        else:
            bodies.append(f'<body {attrs} mocap="true">{"".join(geoms)}</body>')
    half = max(performer_height / 2 - performer_radius, 0.01)
    performer = (
        '<body name="__performer__" mocap="true" pos="0 0 1">'
        f'<geom name="__performer__" type="cylinder" size="{performer_radius} {half:.6g}" '
        f'group="{GROUP_PERFORMER}" contype="0" conaffinity="0"/>'
        f'<geom name="__sole__" type="sphere" size="{performer_radius}" group="{GROUP_PERFORMER}" contype="0" conaffinity="0"/>'
        f'<geom name="__probe__" type="sphere" size="{PROBE_RADIUS}" group="{GROUP_PERFORMER}" contype="0" conaffinity="0"/>'
        f'<geom name="__foot__" type="sphere" size="{SUPPORT_RADIUS}" group="{GROUP_PERFORMER}" contype="0" conaffinity="0"/>'
        f'<geom name="__axis__" type="capsule" size="0.001 {(AXIS_HIGH - AXIS_LOW) / 2:.6g}" group="{GROUP_PERFORMER}" contype="0" conaffinity="0"/>'
        "</body>"
    )
    xml = (
        '<mujoco model="mcs"><compiler angle="radian"/>'
        f'<option timestep="{PHYSICS_TIMESTEP}" gravity="0 0 {-GRAVITY}" cone="elliptic" impratio="5"/>'
        f'<default><geom friction="0 {TORSIONAL_FRICTION} {ROLLING_FRICTION}" solref="{CONTACT_TIMECONST} 1" rgba="1 1 1 1"/></default>'
        f"<asset>{''.join(meshes)}</asset>"
        f"<worldbody>{''.join(bodies)}{performer}</worldbody></mujoco>"
    )
    model = mujoco.MjModel.from_xml_string(xml)
    data = mujoco.MjData(model)
    objects = [spec.obj for spec in specs]
    floor = floor_friction(scene)
    drawn = np.ones(model.ngeom, dtype=bool)
    moved_centres = False
    for spec in specs:
        obj = spec.obj
        obj.body_id = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, BODY_PREFIX + spec.name)
        first = model.body_geomadr[obj.body_id]
        geoms = list(range(first, first + model.body_geomnum[obj.body_id]))
        obj.geom_ids = [g for g, part in zip(geoms, spec.parts) if part[4] not in MASSLESS_ROLES]
        obj.look_geom_ids = [g for g, part in zip(geoms, spec.parts) if part[4] == "look"]
        obj.sight_geom_ids = [g for g, part in zip(geoms, spec.parts) if part[4] == "sight"]
        obj.lid_geom_ids = [g for g, part in zip(geoms, spec.parts) if part[4] in catalog.MOVING_ROLES]
        drawn[[g for g, part in zip(geoms, spec.parts) if part[4] in ("collider", "sight")]] = False
        for g, part, open_pose in zip(geoms, spec.parts, obj.part_open_centres or [None] * len(spec.parts)):
            # Lids swing up, doors swing open and drawers slide out, each to the box it then fills.
            if open_pose is None:
                continue
            open_centre, open_size = open_pose
            opened = (model.geom_pos[g] + (open_centre - part[1])[[0, 2, 1]], np.maximum(open_size[[0, 2, 1]] / 2.0, 1e-4))
            obj.moving_part_poses[g] = ((model.geom_pos[g].copy(), model.geom_size[g][:3].copy()), opened)
            obj.moving_part_roles[g] = part[4]
        if obj.dynamic or obj.plank:  # moving bodies carry their material (static geoms none: contact_friction)
            _apply_physics_properties(obj)
            model.geom_friction[obj.geom_ids, 0] = contact_friction(obj, floor)
        if obj.dynamic:
            joint = int(model.body_jntadr[obj.body_id])
            obj.qpos, obj.qvel = data.joint(joint).qpos, data.joint(joint).qvel
            # Unity's drag and angular drag: a force -drag * m * v and a torque -angularDrag * I * omega.
            damping = model.joint(joint).damping
            damping[:3] = obj.drag * model.body_mass[obj.body_id]
            damping[3:] = obj.angular_drag * model.body_inertia[obj.body_id]
            if catalog.get_object_type(obj.type_name).center_mass_at_bottom:
                model.body_ipos[obj.body_id] = 0.0  # MCS's centerMassAtBottom: the centre of mass at the origin
                moved_centres = True
        elif obj.plank:
            joint = model.body_jntadr[obj.body_id]
            obj.plank_dofs = (int(model.jnt_dofadr[joint]), int(model.jnt_dofadr[joint + 1]))
            model.dof_damping[obj.plank_dofs[1]] = ANGULAR_DRAG * float(model.dof_M0[obj.plank_dofs[1]])
        elif model.body_mocapid[obj.body_id] >= 0:
            obj.mocap_id = int(model.body_mocapid[obj.body_id])
    if moved_centres:
        mujoco.mj_setConst(model, data)  # constants that depend on the centres of mass
    performer_geom = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_GEOM, "__performer__")
    world = World(model, data, objects, performer_geom)
    world.drawn = drawn
    world.floor_grid = FloorGrid.for_scene(scene)
    world.scene_version = scene.version
    world.floor_half = scene.floor_half_extents()
    for obj in objects:
        if obj.dynamic and obj.frozen:
            world.set_frozen(obj, True)
        if obj.scene_object is not None and obj.scene_object.shows[0].step_begin > 0:
            world.set_present(obj, False)
        elif obj.openable and obj.is_open:
            world.set_open(obj, True)
    world.forward()
    return world
