"""The MCS object catalog: every object type's size, mass, affordances, shape name and geometry.

Source data: ``data/object_types.csv`` (478 types; columns from the MCS schema docs "Object List"
and from the scene generator at scale 1), plus a few types the CSV lacks but MCS 0.7.4 scenes use
(``door_4``, ``door_4b``, ``rotating_cog``, ``semi_sphere_with_base``, ``blob_NN_nose``).

Frames and conventions (read this before using ``Part``)
--------------------------------------------------------
* Everything is in the object's **local MCS frame at scale 1**: metres, y up, +x right, +z forward
  (the object's "front" faces +z at rotation 0: chests open toward +z, chair/sofa backs and bed
  headboards are at -z, drawers slide out toward +z, doors open toward +z: a wardrobe's by 90 degrees, door_4's
  flat against its wall), except where a type's prefab says otherwise (chair_1's backrest is at -x, bed_1's
  headboard at +z).
* The **origin is the object's position point** (``shows[].position``).  An object resting on the
  floor has its origin ``position_y_on_floor`` above the floor, so its bounding box spans
  ``x in [-sx/2, sx/2]``, ``y in [-position_y_on_floor, sy - position_y_on_floor]``,
  ``z in [-sz/2, sz/2]`` (``ObjectType.bounds_min/bounds_max``; ``bounds_center`` is its centre).
  E.g. ``soccer_ball``: origin at the ball's centre, 0.11 above the floor; ``table_1``: origin on
  the floor, parts above it; primitives (``cube``...): origin at the centre (0.5 at scale 1).
* Scene ``scale`` multiplies sizes *and* part centres component-wise (origin fixed).
* The union of an object's parts (closed pose) fills its bounding box exactly, except agents
  (whose torso/head shell is narrower than the 0.5 x 0.5 footprint in z) and the types shaped by their prefab's
  colliders (``data/prefab_geometry.json``: dishes, apples, table_1, table_3, chair_1, bed_1), whose box is the BoundingBox
  around the prefab's mesh; the registry colliders of other types (role ``collider``) may leave parts of it out or stand
  out of it a little, their look fills it.

Part kinds (``Part.kind``)
--------------------------
``box``        box, full extents ``size``.
``sphere``     sphere / **ellipsoid** when the three extents differ (MuJoCo ``ellipsoid``).
``cylinder``   axis along local y, diameters ``size.x`` (x) and ``size.z`` (z) (elliptic if they differ).
``cone``       circular base at local y = -h/2, apex at +h/2.
``pyramid``    square base at -h/2, apex at +h/2.
``square_frustum`` / ``circle_frustum``  base at -h/2, top (half the base width) at +h/2.
``triangle_prism``  the MCS ``triangle`` (ramps): right-triangle cross-section in the y-z plane,
               constant along x; bottom face at y = -h/2, vertical face at z = +d/2, slope rising
               from the low edge (y=-h/2, z=-d/2) to the high edge (y=+h/2, z=+d/2) -> a ramp at
               rotation 0 climbs toward +z (verified against ramp/platform layouts).
``double_cone``  two cones base to base (apexes at +-h/2, widest at y = 0).
``semi_sphere``  hemisphere, flat face at -h/2, dome top at +h/2.
``capsule``    vertical capsule (agents' colliders): radius ``size.x / 2``, from -h/2 to +h/2 (its mesh is the
               cylinder's hull; the world builds a true MuJoCo capsule).
Every kind except ``box``/``sphere`` is available as a unit convex solid via ``mesh_vertices(kind)``
(also ``cylinder``/``sphere``/``box``, for callers that want meshes), so callers scale by ``size``.

Part roles (``Part.role``)
--------------------------
Fixed parts: ``body`` ``wall`` ``floor`` ``top`` ``leg`` ``seat`` ``back`` ``arm`` ``base`` ``shelf``
``side`` ``frame`` ``head``; ``shell`` (an agent's body box, neither solid nor drawn: only the rays
toward agents' visibility points meet it); ``collider`` (solid and met by rays, not drawn), for the types whose
registry entry lists colliders of its own shape (``data/registry_colliders.json``): MCS builds their colliders from the
registry, and their catalog parts stay as their look (``Part.look``: drawn only, neither solid, met by rays nor
weighed).  Moving parts: ``lid`` (the hinged top of an openable container),
``door`` (a hinged door panel: door_4/4b, wardrobe) and ``drawer`` (sliding trays of
changing_table).  Moving parts carry their fully-open pose as an axis-aligned box
(``open_center``/``open_size``, may lie outside the closed bounds) and, for hinged ones, the hinge
line (``hinge`` point + ``hinge_axis`` direction).  A closed container's lid/door closes it
(objects put inside stay inside); with the lid removed or opened the inside can be seen/reached.
``Part.name`` is the MCS child-component suffix (``<objectId>_<name>``) where MCS exposes one
(changing_table ``drawer_top`` ...; bookcases ``bottom``, ``shelf_1`` ...; shelf_2 ``lower_shelf`` ...).
Rotations: all parts have rotation (0, 0, 0) except ``letter_x``'s two bars (+-45 deg about z);
Unity Euler degrees, R = Ry . Rx . Rz, and ``size`` is in the part's own (unrotated) frame.

Data decisions (documented deviations from "gen dims, else doc size, else 1x1x1")
-----------------------------------------------------------------------------------
* Tools: size from the type name (W, 0.3, L) and origin at the centre (0.15 above the floor), not
  the generator's 0.6-tall box (recorded tool scenes place tools at y = 0.15).
  ``tool_hooked_W_x_L``: 3W x 0.3 x L, shaft (width W) along z on the +x side, crossbar (depth W)
  across the +z end; ``tool_isosceles_W_x_L``: L x 0.3 x L, same layout (checked against recorded
  scenes: the ball sits beside the shaft, behind the crossbar).
* Openable containers whose generator dims include the opened lid/doors (chest_2/3/8, suitcase_1,
  changing_table, wardrobe) and rows with copy-paste generator dims (case_8, case_9,
  bookcase_duplex_4_2) use the doc (closed) size.
* Masses are MCS's object registries' (data/registry_definitions.json, what Unity uses when a scene gives
  none), else Unity's real default where recorded outputs show it for a type in no stored registry
  (separate_container 2.0, rotating_cog 10.0), else the doc default; ``*_static`` variants take their
  base type's (bowl_3_static reports 0.25).
* ``changing_table`` and ``wardrobe`` are receptacles but NOT openable themselves
  (OpenObject on changing_table -> NOT_OPENABLE); their drawers/doors are the openable children.
* ``separate_container`` is an open-topped box without a lid part: its lid is the separate ``lid``
  object that snaps on via ``lidAttachment``.
* Block ``*_cylinder`` types report shape ``blank block cylinder`` (IT outputs), not the CSV's "cube".
* Types without any size in the data (deprecated box_2..4, cake, gift_box_1, painting_*, plant_*)
  get rough guessed sizes (``guessed_sizes`` in ``data/catalog_tables.json``); anything still without a size is 1 x 1 x 1.
"""
from __future__ import annotations

import csv
import difflib
import functools
import io
import json
import math
import re
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from mcs_plugin.sim.datafiles import data_text

__all__ = [
    "MESH_KINDS",
    "MOVING_ROLES",
    "PART_KINDS",
    "PART_ROLES",
    "ObjectType",
    "Part",
    "UnknownObjectTypeError",
    "agent_capsule",
    "agent_skin_colors",
    "default_materials",
    "get_object_type",
    "is_known_type",
    "mesh_vertices",
    "object_type_names",
    "parse_tool_type",
    "part_bounds",
]

Vec3 = tuple[float, float, float]

PART_KINDS: tuple[str, ...] = (
    "box", "sphere", "cylinder", "cone", "pyramid", "square_frustum", "circle_frustum",
    "triangle_prism", "double_cone", "semi_sphere", "capsule",
)
# Kinds that are not MuJoCo primitives and must be built from ``mesh_vertices``.
MESH_KINDS: tuple[str, ...] = (
    "cone", "pyramid", "square_frustum", "circle_frustum", "triangle_prism", "double_cone", "semi_sphere",
)
# A rotating cog's collider reaches past the generator's 1.0 m diameter (its teeth): Unity lifts the performer onto a
# 3 m cog whose nominal edge is 0.2 m from the body's axis, not 0.3 m, and a body whose axis is 0.126 m past a 1.08 m
# collider's edge stays on the cog instead of falling off (1.09-1.12 fit two recorded walks, 1.14 does not).
COG_DIAMETER = 1.1
# ...and it is 0.025 m tall at scale 1 (origin at its centre), not the generator's 0.02: containers shown at y 0.1 on
# a cog at y 0.05 with y scale 4 stay at 0.1, while a 0.1 m block on a scale-1 cog at y 0.01 still
# reports 0.07.
COG_HEIGHT = 0.025
# A prefab whose lowest collider lies less than this below its origin has its origin at its bottom (m): the dishes'
# bases and table_1's legs dip 0.5-4 mm; chair_1's splayed legs, 1.25 cm (its registry box reaches 1 cm below the
# origin, so it is left to settle on them), and an apple's lowest point lies 5 cm below its centred origin.
PREFAB_BOTTOM_DIP = 0.01
# A lidded container's floor is 9 % of its height thick: a soccer ball in a 1.5x chest_2 rests with its centre 0.177 m
# above the chest's origin (8.5-9.5 % fit its 35 steps), and chest_1 balls are unchanged.
CONTAINER_FLOOR_FRACTION = 0.09
# A domed lid ("Chest with domed lid": chest_2, chest_8) is the upper 40 % of the chest, so its walls are low: a ball
# in an opened 1.5x chest_2 is seen (and picked up) over the front wall from 0.9 m away (30 % hides it).
DOMED_LID_FRACTION = 0.4
# A hole's walls stand back this fraction of the object's smaller horizontal size on each side: MCS's throwers are
# tubes 1.25 times as wide as their projectile, which fits their hole exactly, and throw it out at the impulse's speed
# (PhysX pushes only on penetration); MuJoCo's soft contacts resist sliding at zero distance and would hold it.
HOLE_CLEARANCE = 0.005
# MCS scales its agent models to 0.6 of their 0.5 x 1.6 x 0.5 catalog box (scene generator AGENT_SCALE; the object an
# agent holds out sits at 0.6 of MCSSimulationAgent's HOLDING_POSITION). Its CapsuleCollider, a vertical
# capsule as wide as the box and as high, scaled alike: radius 0.15, 0.96 high. Measured on recordings: the agent stops
# when a turtle's surface would come within 0.142-0.182 m of its axis; the turtle 0.164 m beside its axis stays seen and
# is not shoved when it turns; a ball held out 0.114 m ahead is picked at the image centre: radius < 0.176;
# and it stops 0.37 m from the performer's axis: 0.15 + the performer's 0.221).
AGENT_SCALE = 0.6
AGENT_SHAPE = "agent"  # the shape MCS reports for simulation agents
MOVING_ROLES: tuple[str, ...] = ("lid", "door", "drawer")
# A "trigger" part is a receptacle's trigger box only: it neither collides, occludes nor is drawn (the changing table's
# shelves are boards of the table itself: a ray to the top shelf's floor picks the table). A "sight" part only hides
# what lies behind it (rays toward other objects' points meet it): a tool's prefab colliders, where its box is seen past.
PART_ROLES: tuple[str, ...] = (
    "body", "wall", "floor", "top", "leg", "seat", "back", "arm", "base", "shelf", "side", "frame", "head", "shell",
    "trigger", "collider", "sight",
) + MOVING_ROLES
# A registry's colliders are framed by its boundingBox (times its scale) and laid onto the catalog box; an entry
# whose frame would have to stretch x and z unevenly (more than this fraction) lies across the catalog box (the toy
# vehicles) or would shear its turned boxes, and keeps the catalog's shape.
REGISTRY_FRAME_TOLERANCE = 0.02
REGISTRY_BOX_SLACK = 0.15  # a registry boundingBox frames an entry's points or colliders when none lies further out
# than this fraction of the box's half-size (letter blocks' points stand 10 % out of theirs)


@dataclass(frozen=True)
class Part:
    """One primitive of an object's shape, local MCS frame at scale 1, relative to the object's origin."""

    kind: str
    center: Vec3
    size: Vec3  # full extents (x, y, z) in the part's own frame
    role: str = "body"
    rotation: Vec3 = (0.0, 0.0, 0.0)  # Unity Euler degrees
    name: str = ""  # MCS child-component suffix, if any
    open_center: Vec3 | None = None  # fully-open pose of a moving part (lid/door/drawer)
    open_size: Vec3 | None = None
    hinge: Vec3 | None = None  # a point on the hinge line (lid/door)
    hinge_axis: Vec3 | None = None  # hinge line direction
    look: bool = False  # only drawn: the type's registry colliders (role "collider") stand in for it


@dataclass(frozen=True)
class ObjectType:
    """Catalog entry of one MCS object type (all values at scale 1)."""

    name: str
    size: Vec3  # full bounding size
    mass: float
    shape: str  # ObjectMetadata.shape as MCS reports it
    pickupable: bool
    moveable: bool
    receptacle: bool
    openable: bool
    physics: bool
    parts: tuple[Part, ...]
    position_y_on_floor: float  # origin height above the floor when resting
    is_agent: bool = False
    is_structural_default: bool = False
    family: str = ""  # small|container|open_container|furniture|tool|agent|blob|primitive|structure|door|other
    kinematic_default: bool = False  # doors and turntables are kinematic unless the scene says otherwise
    center_mass_at_bottom: bool = False  # MCS puts its rigidbody's centre of mass at its origin (wheeled toys)
    bounciness: float = 0.0  # its registry physicsProperties' (0: Unity's default material)
    child_components: tuple[str, ...] = ()  # MCS child ids are f"{object_id}_{name}"
    details: str = ""  # doc description

    @property
    def bounds_min(self) -> Vec3:
        return (-self.size[0] / 2, -self.position_y_on_floor, -self.size[2] / 2)

    @property
    def bounds_max(self) -> Vec3:
        return (self.size[0] / 2, self.size[1] - self.position_y_on_floor, self.size[2] / 2)

    @property
    def bounds_center(self) -> Vec3:
        """Centre of the bounding box relative to the origin (x = z = 0)."""
        return (0.0, self.size[1] / 2 - self.position_y_on_floor, 0.0)

    def parts_with_role(self, *roles: str) -> tuple[Part, ...]:
        return tuple(p for p in self.parts if p.role in roles)


class UnknownObjectTypeError(KeyError):
    """An object type the catalog does not know; ``suggestions`` holds close names."""

    def __init__(self, name: str, suggestions: list[str]):
        self.name = name
        self.suggestions = list(suggestions)
        hint = f"; did you mean {', '.join(repr(s) for s in self.suggestions)}?" if self.suggestions else ""
        self.message = f"unknown MCS object type {name!r}{hint}"
        super().__init__(self.message)

    def __str__(self) -> str:  # KeyError would repr() the message
        return self.message


# ------------------------------------------------------------------------------------------------
# CSV loading
# ------------------------------------------------------------------------------------------------


@functools.cache
def _rows() -> dict[str, dict[str, str]]:
    rows: dict[str, dict[str, str]] = {}
    for row in csv.DictReader(io.StringIO(data_text("object_types.csv"))):
        name = (row.get("type") or "").strip()
        if name:
            rows[name] = {k: (v or "").strip() for k, v in row.items() if k}
    return rows


def _float(text: str) -> float | None:
    try:
        return float(text)
    except (TypeError, ValueError):
        return None


def _doc_size(text: str) -> Vec3 | None:
    """'x=0.5,y=1.6,z=0.5' or '(x=1,y=1,z=1)' -> (0.5, 1.6, 0.5)."""
    if not text:
        return None
    values = dict(re.findall(r"([xyz])\s*=\s*([0-9.]+)", text))
    if len(values) != 3:
        return None
    return (float(values["x"]), float(values["y"]), float(values["z"]))


def _gen_size(text: str) -> Vec3 | None:
    """'0.22/0.22/0.22' -> (0.22, 0.22, 0.22)."""
    if not text:
        return None
    parts = text.split("/")
    if len(parts) != 3:
        return None
    values = [_float(p) for p in parts]
    if any(v is None for v in values):
        return None
    return (values[0], values[1], values[2])  # type: ignore[return-value]


# ------------------------------------------------------------------------------------------------
# Tables of decisions (data/catalog_tables.json says what each holds and why; see also the module docstring)
# ------------------------------------------------------------------------------------------------
def _tables() -> dict[str, Any]:
    """Each table of data/catalog_tables.json by name (its `values`)."""
    tables = json.loads(data_text("catalog_tables.json"))
    return {name: table["values"] for name, table in tables.items() if isinstance(table, dict)}


_TABLES = _tables()
_MASS_OVERRIDES: dict[str, float] = _TABLES["mass_overrides"]
_REGISTRY: dict[str, Any] = json.loads(data_text("registry_definitions.json"))
_REGISTRY_MASSES: dict[str, float] = _REGISTRY["mass"]
_CENTER_MASS_AT_BOTTOM = frozenset(_REGISTRY["center_mass_at_bottom"])
_REGISTRY_KINEMATIC = frozenset(_REGISTRY["kinematic"])
_REGISTRY_BOUNCINESS: dict[str, float] = _REGISTRY["bounciness"]
_REGISTRY_MATERIALS: dict[str, tuple[str, ...]] = {
    name: tuple(materials) for name, materials in _REGISTRY["salient_materials"].items()}
# Types whose shape is their prefab's colliders (AI2-THOR's or MCS's own; data/prefab_geometry.json), by type name.
_PREFABS: dict[str, dict[str, Any]] = {
    name: prefab for prefab in json.loads(data_text("prefab_geometry.json"))["prefabs"] for name in prefab["types"]}
# Registry entries that list colliders (MCSMain.AssignColliders builds those; data/registry_colliders.json), by type.
_REGISTRY_COLLIDERS: dict[str, dict[str, Any]] = {
    name: entry for entry in json.loads(data_text("registry_colliders.json"))["entries"] for name in entry["ids"]}
_PREFER_DOC_SIZE = frozenset(_TABLES["prefer_doc_size"])
_CLOSED_SIZES: dict[str, Vec3] = {name: tuple(size) for name, size in _TABLES["closed_sizes"].items()}
_CENTRED_ORIGIN = frozenset(_TABLES["centred_origin"])
_BOTTOM_ORIGIN_PREFIXES = tuple(_TABLES["bottom_origin_prefixes"])
_GUESSED_SIZES: dict[str, Vec3] = {name: tuple(size) for name, size in _TABLES["guessed_sizes"].items()}
_BLOB_STANDING_Y: dict[str, float] = _TABLES["blob_standing_y"]
_LIDDED_PREFIXES = tuple(_TABLES["lidded_prefixes"])
_LIDDED_NAMES = frozenset(_TABLES["lidded_names"])
_PICKUPABLE_CONTAINER_PREFIXES = tuple(_TABLES["pickupable_container_prefixes"])
_OPEN_CONTAINER_PREFIXES = tuple(_TABLES["open_container_prefixes"])
_DISH_PREFIXES = tuple(_TABLES["dish_prefixes"])
_PRIMITIVE_KINDS: dict[str, str] = _TABLES["primitive_kinds"]
_TUBE_WALL: dict[str, float] = _TABLES["tube_wall"]
_OPEN_AREAS: dict[str, tuple[float, float, float, float, float]] = {
    name: tuple(area) for name, area in _TABLES["open_areas"].items()}
_SUPPORT_CONTAINERS: dict[str, dict[str, Any]] = _TABLES["support_containers"]
# The support containers' prefabs (MCS Custom/Prefabs/container_*.prefab): the floor collider's top lies 0.005 m under
# the generator's enclosed area (what it places there is let go just above the floor), and a lip 0.1 m high closes the
# opening's front and back, where the enclosed area (0.8 of the depth) stops.
SUPPORT_FLOOR_CLEARANCE = 0.005
SUPPORT_LIP_HEIGHT = 0.1
SUPPORT_AREA_DEPTH = 0.8  # of the container's depth
_OPEN_BOX_INSIDES: dict[str, tuple[float, float]] = {
    name: tuple(inside) for name, inside in _TABLES["open_box_insides"].items()}
# (type name or prefix, salient materials, colour names, colours fixed whatever the scene's materials)
_MATERIAL_DEFAULTS: tuple[tuple[str, tuple[str, ...], tuple[str, ...], bool], ...] = tuple(
    (row["type"], tuple(row["materials"]), tuple(row["colors"]), bool(row["fixed_colors"]))
    for row in _TABLES["material_defaults"])
NO_REPORTED_MATERIALS: frozenset[str] = frozenset(_TABLES["no_reported_materials"])

_TOOL_RE = re.compile(r"^tool_(rect|hooked|isosceles|big|i|t)_(\d+)_(\d+)_x_(\d+)_(\d+)$")
_TOOL_HEIGHT = 0.3
_TOOL_BAR_WIDTH_IT = 1.0  # tool_i / tool_t: bar width not in the data, a guess


# Extra types (not in the CSV).
_DOOR_WIDTH, _DOOR_HEIGHT, _DOOR_DEPTH = 0.85, 2.0, 0.1  # generator BASE_DOOR_WIDTH/HEIGHT, wall 0.1
# Door4.prefab: the panel's collider is 0.056 m thick in the 0.1 m wall, and its hinge (the "Parent" pivot that
# CanOpen_Object turns by openPositions y 180) lies on the +x edge at z +0.05, the wall's +z face.
DOOR_PANEL_DEPTH = 0.56  # of the door's depth
DOOR_HINGE_Z = 0.5  # of the door's depth, from its centre


def parse_tool_type(name: str) -> tuple[str, float, float] | None:
    """``tool_<kind>_A_BB_x_C_DD`` -> (kind, width W, length L); None for non-tool names.

    kind is rect|hooked|isosceles|big|i|t; W = A.BB, L = C.DD (e.g. tool_rect_0_75_x_5_00 ->
    ('rect', 0.75, 5.0)).
    """
    match = _TOOL_RE.match(name)
    if not match:
        return None
    kind, a, b, c, d = match.groups()
    return kind, float(f"{a}.{b}"), float(f"{c}.{d}")


# ------------------------------------------------------------------------------------------------
# Geometry helpers (built in a "floor frame": y from 0 to the height, then shifted to the origin)
# ------------------------------------------------------------------------------------------------
def _clamp(value: float, lo: float, hi: float) -> float:
    return max(lo, min(hi, value))


def _box(cx, cy, cz, sx, sy, sz, role="body", name="", **extra) -> Part:
    return Part("box", (float(cx), float(cy), float(cz)), (float(sx), float(sy), float(sz)), role, name=name, **extra)


def _solid(kind, cx, cy, cz, sx, sy, sz, role="body", name="", **extra) -> Part:
    return Part(kind, (float(cx), float(cy), float(cz)), (float(sx), float(sy), float(sz)), role, name=name, **extra)


def _wall_thickness(x: float, y: float, z: float) -> float:
    return _clamp(0.06 * min(x, z), 0.003, 0.05) if min(x, z) > 0 else 0.003


def _open_box(x, y, z, t=None, y0=0.0, cx=0.0, cz=0.0, floor_role="floor", wall_role="wall", name="",
              floor_t=None) -> list[Part]:
    """Floor + 4 walls filling the box [cx +- x/2] x [y0, y0 + y] x [cz +- z/2]; the floor is `floor_t` thick
    (default: as the walls)."""
    t = _wall_thickness(x, y, z) if t is None else t
    t = min(t, y / 3.0, x / 3.0, z / 3.0)
    floor_t = t if floor_t is None else min(floor_t, y / 3.0)
    wall_h = y - floor_t
    wall_y = y0 + floor_t + wall_h / 2
    return [
        _box(cx, y0 + floor_t / 2, cz, x, floor_t, z, floor_role, name),
        _box(cx, wall_y, cz + z / 2 - t / 2, x, wall_h, t, wall_role, name),  # front (+z)
        _box(cx, wall_y, cz - z / 2 + t / 2, x, wall_h, t, wall_role, name),  # back (-z)
        _box(cx - x / 2 + t / 2, wall_y, cz, t, wall_h, z - 2 * t, wall_role, name),  # left (-x)
        _box(cx + x / 2 - t / 2, wall_y, cz, t, wall_h, z - 2 * t, wall_role, name),  # right (+x)
    ]


def _support_container(x, y, z, area: list[float], placers: list[list[float]]) -> list[Part]:
    """A support-relations container: a floor under an opening `area` = [x centre, floor top, width] wide, open at the
    top, between two solid blocks, each as tall as where the placer over it meets it, with a low lip across the
    opening's front and back ends."""
    centre, area_floor, width = area
    left, right = centre - width / 2, centre + width / 2
    floor_top = min(area_floor - SUPPORT_FLOOR_CLEARANCE, y)
    parts = [_box(centre, floor_top / 2, 0, width, floor_top, z, "floor")]
    for x0, x1 in ((-x / 2, left), (right, x / 2)):
        held = [offset for px, offset in placers if x0 <= px <= x1]
        top = max(floor_top, y - (held[0] if held else 0.0))
        parts.append(_box((x0 + x1) / 2, top / 2, 0, x1 - x0, top, z, "wall"))
    lip_depth = (1.0 - SUPPORT_AREA_DEPTH) * z / 2
    lip_top = min(floor_top + SUPPORT_LIP_HEIGHT, y)
    for side in (-1, 1):
        parts.append(_box(centre, (floor_top + lip_top) / 2, side * (z - lip_depth) / 2, width, lip_top - floor_top,
                          lip_depth, "wall"))
    return parts


def _ring(x, y, z, t, y0=0.0) -> list[Part]:
    """Four walls around a vertical hole (tubes, hollow cubes), the hole widened by HOLE_CLEARANCE."""
    t = min(t - HOLE_CLEARANCE * min(x, z), x / 3.0, z / 3.0)
    cy = y0 + y / 2
    return [
        _box(0, cy, z / 2 - t / 2, x, y, t, "wall"),
        _box(0, cy, -z / 2 + t / 2, x, y, t, "wall"),
        _box(-x / 2 + t / 2, cy, 0, t, y, z - 2 * t, "wall"),
        _box(x / 2 - t / 2, cy, 0, t, y, z - 2 * t, "wall"),
    ]


def _lidded_box(x, y, z, domed: bool = False) -> list[Part]:
    """Open-topped box of walls and floor closed by a lid hinged along its top back (-z) edge."""
    lid_t = DOMED_LID_FRACTION * y if domed else _clamp(0.12 * y, 0.003, 0.08)
    floor_t = _clamp(CONTAINER_FLOOR_FRACTION * y, 0.003, 0.05)
    parts = _open_box(x, y - lid_t, z, floor_t=floor_t)
    parts.append(
        _box(
            0, y - lid_t / 2, 0, x, lid_t, z, "lid",
            hinge=(0.0, float(y), float(-z / 2)), hinge_axis=(1.0, 0.0, 0.0),
            # swung up 90 deg about the hinge: standing behind the opening, free edge up
            open_center=(0.0, float(y + z / 2), float(-z / 2 + lid_t / 2)),
            open_size=(float(x), float(z), float(lid_t)),
        )
    )
    return parts


def _hinged_panel(x0, x1, y0, y1, z_face, depth, hinge_side, role="door", name="") -> Part:
    """A vertical panel x in [x0, x1], y in [y0, y1], z in [z_face - depth, z_face] hinged on one
    vertical edge (hinge_side -1: at x0, +1: at x1) that opens 90 deg toward +z."""
    w = x1 - x0
    h = y1 - y0
    x_hinge = x0 if hinge_side < 0 else x1
    open_x = x_hinge + depth / 2 if hinge_side < 0 else x_hinge - depth / 2
    return _box(
        (x0 + x1) / 2, (y0 + y1) / 2, z_face - depth / 2, w, h, depth, role, name,
        hinge=(float(x_hinge), float(y0), float(z_face)), hinge_axis=(0.0, 1.0, 0.0),
        open_center=(float(open_x), float((y0 + y1) / 2), float(z_face + w / 2)),
        open_size=(float(depth), float(h), float(w)),
    )


def _table(x, y, z, round_top=False, sides=None) -> list[Part]:
    top_t = _clamp(0.06 * y, 0.015, 0.06)
    leg_t = _clamp(0.08 * min(x, z), 0.015, 0.08)
    leg_h = y - top_t
    parts = [_solid("cylinder" if round_top else "box", 0, y - top_t / 2, 0, x, top_t, z, "top")]
    if sides:  # side panels instead of legs ("table with sides", desks with sides)
        parts.append(_box(-x / 2 + leg_t / 2, leg_h / 2, 0, leg_t, leg_h, z, "side"))
        parts.append(_box(x / 2 - leg_t / 2, leg_h / 2, 0, leg_t, leg_h, z, "side"))
        if sides >= 3:
            parts.append(_box(0, leg_h / 2, -z / 2 + leg_t / 2, x - 2 * leg_t, leg_h, leg_t, "side"))
        return parts
    inset = 0.7 if round_top else 1.0
    for sx in (-1, 1):
        for sz in (-1, 1):
            lx = sx * (x / 2 - leg_t / 2) * inset
            lz = sz * (z / 2 - leg_t / 2) * inset
            parts.append(_box(lx, leg_h / 2, lz, leg_t, leg_h, leg_t, "leg"))
    return parts


def _chair(x, y, z, back=True) -> list[Part]:
    seat_top = _clamp(0.5 * y, 0.05, 0.55) if back else y
    seat_t = _clamp(0.08 * y, 0.015, 0.06)
    seat_t = min(seat_t, seat_top / 3)
    leg_t = _clamp(0.1 * min(x, z), 0.015, 0.06)
    leg_h = seat_top - seat_t
    parts = [_box(0, seat_top - seat_t / 2, 0, x, seat_t, z, "seat")]
    for sx in (-1, 1):
        for sz in (-1, 1):
            parts.append(_box(sx * (x / 2 - leg_t / 2), leg_h / 2, sz * (z / 2 - leg_t / 2), leg_t, leg_h, leg_t, "leg"))
    if back and y > seat_top:
        back_t = _clamp(0.1 * z, 0.015, 0.06)
        parts.append(_box(0, seat_top + (y - seat_top) / 2, -z / 2 + back_t / 2, x, y - seat_top, back_t, "back"))
    return parts


def _sofa(x, y, z, arms=True, seat: tuple[float, float] | None = None) -> list[Part]:
    """A seat in front of a back, with arms; `seat` (height, z of its middle) puts the seat's top at the height of
    the generator's open area and the back on the side away from it."""
    base_h = seat[0] if seat else 0.42 * y
    back_side = 1.0 if seat and seat[1] < 0 else -1.0  # the back's side along z
    back_t = _clamp(0.25 * z, 0.05, 0.35)
    seat_z = -back_side * back_t / 2
    parts = [
        _box(0, base_h / 2, seat_z, x, base_h, z - back_t, "seat"),
        _box(0, y / 2, back_side * (z / 2 - back_t / 2), x, y, back_t, "back"),
    ]
    if arms and x > 0.5:
        arm_t = _clamp(0.1 * x, 0.04, 0.2)
        arm_top = min(base_h + 0.25 * y, y)
        arm_h = arm_top - base_h
        for sx in (-1, 1):
            parts.append(_box(sx * (x / 2 - arm_t / 2), base_h + arm_h / 2, seat_z, arm_t, arm_h, z - back_t, "arm"))
    return parts


def _open_area_triggers(name: str) -> list[Part]:
    """The generator's open area of a seat as the receptacle's trigger box: a thin slab whose bottom is the area,
    relative to the object's origin (PutObject's spawn points lie on it)."""
    area = _OPEN_AREAS.get(name)
    if area is None:
        return []
    x, y, z, width, depth = area
    return [_box(x, y + TRIGGER_THICKNESS / 2, z, width, TRIGGER_THICKNESS, depth, "trigger")]


def _bed(x, y, z) -> list[Part]:
    base_h = min(0.55 * y, 0.6)
    head_t = _clamp(0.05 * z, 0.04, 0.1)
    return [
        _box(0, base_h / 2, head_t / 2, x, base_h, z - head_t, "seat"),
        _box(0, y / 2, -z / 2 + head_t / 2, x, y, head_t, "back"),
    ]


def _shelf_unit(x, y, z, columns: list[tuple[float, float, int, list[str]]], sides=True, back=True) -> list[Part]:
    """Bookcase-like furniture: optional side panels and back, and per column (x0, x1) shelf boards.

    ``columns`` = [(x0, x1, n_levels, names)], boards at y = k * y / n_levels for k in 0..n-1 plus
    a top board; ``names`` names the boards bottom-up (MCS child components).
    """
    t = _clamp(0.04 * min(1.0, y), 0.02, 0.04)
    back_t = 0.02 if back else 0.0
    parts: list[Part] = []
    if back:
        parts.append(_box(0, y / 2, -z / 2 + back_t / 2, x, y, back_t, "back"))
    inner_z = z - back_t
    cz = back_t / 2
    if sides:
        parts.append(_box(-x / 2 + t / 2, y / 2, cz, t, y, inner_z, "side"))
        parts.append(_box(x / 2 - t / 2, y / 2, cz, t, y, inner_z, "side"))
    parts.append(_box(0, y - t / 2, cz, x, t, inner_z, "top"))
    bounds = sorted({c[0] for c in columns} | {c[1] for c in columns})
    for divider in bounds[1:-1]:
        parts.append(_box(divider, y / 2, cz, t, y - 2 * t, inner_z, "side"))
    for x0, x1, levels, names in columns:
        # inset from an outer side panel by t, from an interior divider by t/2
        lo = x0 + (t / 2 if x0 > -x / 2 + 1e-9 else (t if sides else 0.0))
        hi = x1 - (t / 2 if x1 < x / 2 - 1e-9 else (t if sides else 0.0))
        width = hi - lo
        for k in range(levels):
            board_y = k * y / levels
            y_lo = max(0.0, board_y - t / 2) if k else 0.0
            name = names[k] if k < len(names) else ""
            parts.append(_box((lo + hi) / 2, y_lo + t / 2, cz, width, t, inner_z, "shelf", name))
    return parts


def _drawer(x0, x1, y0, y1, z0, z1, name, slide=None) -> list[Part]:
    """A sliding tray (floor + walls, role 'drawer') in the slot [x0,x1]x[y0,y1]x[z0,z1]; opens +z by `slide`
    (default 0.6 of its depth)."""
    gap = min(0.005, (x1 - x0) / 10, (y1 - y0) / 10)
    w, h, d = x1 - x0 - 2 * gap, y1 - y0 - gap, z1 - z0
    t = _clamp(0.05 * min(w, d), 0.008, 0.02)
    tray = _open_box(w, h, d, t=t, y0=y0, cx=(x0 + x1) / 2, cz=(z0 + z1) / 2, floor_role="drawer", wall_role="drawer", name=name)
    slide = 0.6 * d if slide is None else slide
    return [replace(p, open_center=(p.center[0], p.center[1], p.center[2] + slide), open_size=p.size) for p in tray]


# The changing table's layout (metres at its catalog size 1.1 x 0.96 x 0.58), from the MCS scene generator's
# definition of it: drawer interiors 0.68 wide, the bottom one 0.09-0.29 m up, the top one 0.36-0.58; open shelves
# 0.32 wide with floors at 0.075 and 0.35 and one across the whole width at 0.625; its top 0.85 up; opened it is 0.89
# deep instead of 0.58, so a drawer slides out 0.31 m. With drawer fronts no higher than their slots, a ball put in the
# opened bottom drawer is seen over its front. The generator puts the drawers at x = +0.175 and the shelves
# at -0.365; in our frame they are mirrored: Unity sees the table at yaw 80 but not 90 only with the drawers on -x.
CHANGING_TABLE_DRAWERS_X = (-0.515, 0.165)
CHANGING_TABLE_SHELVES_X = (0.205, 0.525)
CHANGING_TABLE_DRAWERS = (("drawer_bottom", 0.09, 0.33), ("drawer_top", 0.36, 0.6))  # (name, floor, top of front)
CHANGING_TABLE_SHELVES = (("shelf_bottom", 0.075), ("shelf_middle", 0.35))  # (name, floor)
CHANGING_TABLE_TOP_SHELF = 0.625
CHANGING_TABLE_TOP = 0.85
CHANGING_TABLE_DRAWER_SLIDE = 0.31
TRIGGER_THICKNESS = 0.01  # a shelf's trigger box: a thin slab on its floor


def _changing_table(x, y, z) -> list[Part]:
    """Sides and back up to the rails, a top, an open shelf across under it, drawers on the left (-x) and open
    shelves on the right, laid out as CHANGING_TABLE_* (scaled to the size asked for); the shelves (child components)
    are trigger boxes on the table's boards."""
    sx, sy, sz = x / 1.1, y / 0.96, z / 0.58
    t, back_t, floor_t = 0.03, 0.02, 0.02
    inner_z = z - back_t
    cz = back_t / 2
    top, shelf_top = CHANGING_TABLE_TOP * sy, CHANGING_TABLE_TOP_SHELF * sy
    parts = [
        _box(-x / 2 + t / 2, y / 2, cz, t, y, inner_z, "side"),
        _box(x / 2 - t / 2, y / 2, cz, t, y, inner_z, "side"),
        _box(0, y / 2, -z / 2 + back_t / 2, x, y, back_t, "back"),
        _box(0, top - t / 2, cz, x - 2 * t, t, inner_z, "top"),
        _box(0, shelf_top - floor_t / 2, cz, x - 2 * t, floor_t, inner_z, "shelf"),
        _box(0, shelf_top + TRIGGER_THICKNESS / 2, cz, x - 2 * t, TRIGGER_THICKNESS, inner_z, "trigger", "shelf_top"),
    ]
    drawers_lo, drawers_hi = -x / 2 + t, CHANGING_TABLE_DRAWERS_X[1] * sx
    shelves_lo, shelves_hi = CHANGING_TABLE_SHELVES_X[0] * sx, x / 2 - t
    under_shelf = shelf_top - floor_t
    parts.append(_box((shelves_lo + drawers_hi) / 2, under_shelf / 2, cz, shelves_lo - drawers_hi, under_shelf, inner_z, "side"))
    base = CHANGING_TABLE_DRAWERS[0][1] * sy - floor_t  # under the bottom drawer
    parts.append(_box((drawers_lo + drawers_hi) / 2, base / 2, cz, drawers_hi - drawers_lo, base, inner_z, "shelf"))
    for name, floor, front_top in CHANGING_TABLE_DRAWERS:
        parts += _drawer(drawers_lo, drawers_hi, floor * sy - floor_t, front_top * sy, -z / 2 + back_t, z / 2, name,
                         slide=CHANGING_TABLE_DRAWER_SLIDE * sz)
    middle, width = (shelves_lo + shelves_hi) / 2, shelves_hi - shelves_lo
    for name, floor in CHANGING_TABLE_SHELVES:
        parts.append(_box(middle, floor * sy - floor_t / 2, cz, width, floor_t, inner_z, "shelf"))
        parts.append(_box(middle, floor * sy + TRIGGER_THICKNESS / 2, cz, width, TRIGGER_THICKNESS, inner_z, "trigger", name))
    return parts


def _wardrobe(x, y, z) -> list[Part]:
    t = 0.03
    back_t = 0.02
    door_t = 0.03
    inner_z = z - back_t - door_t
    cz = (back_t - door_t) / 2
    parts = [
        _box(-x / 2 + t / 2, y / 2, cz, t, y, inner_z, "side"),
        _box(x / 2 - t / 2, y / 2, cz, t, y, inner_z, "side"),
        _box(0, y / 2, -z / 2 + back_t / 2, x, y, back_t, "back"),
        _box(0, y - t / 2, cz, x - 2 * t, t, inner_z, "top"),
        _box(0, t / 2, cz, x - 2 * t, t, inner_z, "shelf"),
        _box(0, 0.6 * y, cz, x - 2 * t, t, inner_z, "shelf"),
    ]
    parts.append(_hinged_panel(-x / 2, 0.0, 0.0, y, z / 2, door_t, -1))
    parts.append(_hinged_panel(0.0, x / 2, 0.0, y, z / 2, door_t, +1))
    return parts


def _door(x, y, z) -> list[Part]:
    """door_4 / door_4b as MCS's Door4.prefab builds them: one panel (no frame: the scene's wall cubes are the frame)
    hinged on its +x edge on the wall's +z face, that opens 180 degrees to lie flat against that face beside the
    opening."""
    depth = DOOR_PANEL_DEPTH * z
    hinge_z = DOOR_HINGE_Z * z
    return [
        _box(0, y / 2, 0, x, y, depth, "door",
             hinge=(float(x / 2), 0.0, float(hinge_z)), hinge_axis=(0.0, 1.0, 0.0),
             open_center=(float(x), float(y / 2), float(2 * hinge_z)), open_size=(float(x), float(y), float(depth))),
    ]


def agent_capsule(x: float, y: float) -> tuple[float, float]:
    """(radius, height) of the collision capsule of a simulation agent whose catalog box is x wide and y high."""
    return AGENT_SCALE * x / 2, AGENT_SCALE * y


def _agent(x, y, z) -> list[Part]:
    """A simulation agent: Unity's CapsuleCollider (it collides and occludes; turning does not move it), and the
    shell of its body that its own visibility points are tested against (observation.py), neither solid nor drawn."""
    radius, height = agent_capsule(x, y)
    head = min(0.25, 0.9 * min(x, z), 0.3 * y)
    body_h = y - head
    return [
        _solid("capsule", 0, height / 2, 0, 2 * radius, height, 2 * radius, "body"),
        _box(0, body_h / 2, 0, x, body_h, 0.6 * z, "shell"),
        _solid("sphere", 0, body_h + head / 2, 0, head, head, head, "shell"),
    ]


def _rect_tool_sight(x: float, y: float, z: float) -> list[Part]:
    """What a rectangular tool's prefab (tool_rect_*.prefab) is made of, as sight parts (its 0.3 m box collides and is
    seen past): a plank over the middle third of its height (0.05-0.15 m at scale 1), a sphere under each corner down
    to the floor and a post on each corner up to its top, both 0.1 m across."""
    knob = y / 3
    corners = [(sx * (x / 2 - knob / 2), sz * (z / 2 - knob / 2)) for sx in (-1, 1) for sz in (-1, 1)]
    return ([_box(0, y / 3, 0, x, y / 3, z, "sight")]
            + [_solid("sphere", cx, knob / 2, cz, knob, knob, knob, "sight") for cx, cz in corners]
            + [_solid("cylinder", cx, 3 * y / 4, cz, knob, y / 2, knob, "sight") for cx, cz in corners])


def _tool(kind: str, w: float, length: float, x: float, y: float, z: float) -> list[Part]:
    cy = y / 2
    if kind == "rect":
        return [_box(0, cy, 0, x, y, z)] + _rect_tool_sight(x, y, z)
    if kind == "big":
        return [_box(0, cy, 0, x, y, z)]
    if kind in ("hooked", "isosceles"):
        # shaft along z on the +x side, crossbar across the +z end toward -x
        return [
            _box(x / 2 - w / 2, cy, 0, w, y, z),
            _box(-w / 2, cy, z / 2 - w / 2, x - w, y, w),
        ]
    bar = min(_TOOL_BAR_WIDTH_IT, x / 3, z / 3)
    if kind == "t":
        return [
            _box(0, cy, -bar / 2, bar, y, z - bar),
            _box(0, cy, z / 2 - bar / 2, x, y, bar),
        ]
    # "i": crossbars at both ends joined by a centred shaft
    return [
        _box(0, cy, 0, bar, y, z - 2 * bar),
        _box(0, cy, z / 2 - bar / 2, x, y, bar),
        _box(0, cy, -z / 2 + bar / 2, x, y, bar),
    ]


def _with_base(kind: str, x, y, z) -> list[Part]:
    half = y / 2
    return [_box(0, half / 2, 0, x, half, z, "base"), _solid(kind, 0, half + half / 2, 0, x, half, z, "body")]


def _letter_l(x, y, z) -> list[Part]:
    t = 0.4 * min(x, y)
    return [
        _box(-x / 2 + t / 2, y / 2, 0, t, y, z),  # upright on the -x side
        _box(t / 2, t / 2, 0, x - t, t, z),  # foot toward +x
    ]


def _letter_x(x, y, z) -> list[Part]:
    # two bars rotated +-45 deg about z whose rotated extents are exactly x by y (x == y == 1 at scale 1)
    side = min(x, y)
    t = 0.25 * side
    length = side * math.sqrt(2) - t
    return [
        _solid("box", 0, y / 2, 0, t, length, z, "body", rotation=(0.0, 0.0, 45.0)),
        _solid("box", 0, y / 2, 0, t, length, z, "body", rotation=(0.0, 0.0, -45.0)),
    ]


def _hash(x, y, z) -> list[Part]:
    t = 0.2 * min(x, z)
    return [
        _box(0, y / 2, -z / 6, x, y, t), _box(0, y / 2, z / 6, x, y, t),
        _box(-x / 6, y / 2, 0, t, y, z), _box(x / 6, y / 2, 0, t, y, z),
    ]


def _dumbbell(x, y, z) -> list[Part]:
    plate = 0.3 * x
    bar = 0.2 * min(y, z)
    return [
        _solid("sphere", -x / 2 + plate / 2, y / 2, 0, plate, y, z),
        _solid("sphere", x / 2 - plate / 2, y / 2, 0, plate, y, z),
        _box(0, y / 2, 0, x - plate, bar, bar),
    ]


def _tie_fighter(x, y, z) -> list[Part]:
    wing = 0.06 * x
    core = 0.4 * min(x, y, z)
    return [
        _box(-x / 2 + wing / 2, y / 2, 0, wing, y, z),
        _box(x / 2 - wing / 2, y / 2, 0, wing, y, z),
        _solid("sphere", 0, y / 2, 0, core, core, core),
        _box(0, y / 2, 0, x - 2 * wing, 0.1 * y, 0.1 * z),
    ]


def _crib(x, y, z) -> list[Part]:
    t = _clamp(0.04 * min(x, z), 0.01, 0.04)
    floor_y = 0.35 * y
    return [
        _box(0, floor_y, 0, x - 2 * t, t, z - 2 * t, "floor"),
        _box(0, y / 2, z / 2 - t / 2, x, y, t, "wall"),
        _box(0, y / 2, -z / 2 + t / 2, x, y, t, "wall"),
        _box(-x / 2 + t / 2, y / 2, 0, t, y, z - 2 * t, "wall"),
        _box(x / 2 - t / 2, y / 2, 0, t, y, z - 2 * t, "wall"),
    ]


def _cart(x, y, z) -> list[Part]:
    post = _clamp(0.05 * min(x, z), 0.015, 0.04)
    board = 0.02
    parts = []
    for sx in (-1, 1):
        for sz in (-1, 1):
            parts.append(_box(sx * (x / 2 - post / 2), y / 2, sz * (z / 2 - post / 2), post, y, post, "leg"))
    for level in (0.12, 0.5):
        parts.append(_box(0, level * y, 0, x - 2 * post, board, z - 2 * post, "shelf"))
    parts.append(_box(0, y - board / 2, 0, x, board, z, "top"))
    return parts




def _family(name: str, row: dict[str, str]) -> str:
    section = row.get("doc_section", "")
    if name.startswith("agent_"):
        return "agent"
    if name.startswith("blob_"):
        return "blob"
    if name.startswith("tool_"):
        return "tool"
    if name in ("door_4", "door_4b"):
        return "door"
    if name == "rotating_cog":
        return "structure"
    if name.startswith(_LIDDED_PREFIXES) and not name.startswith("crate_open_topped") or name in _LIDDED_NAMES:
        return "container"
    if name == "separate_container" or name.startswith(_OPEN_CONTAINER_PREFIXES):
        return "open_container"
    if name.startswith(_DISH_PREFIXES):
        return "open_container" if name.endswith("_static") else "small"
    if name in _PRIMITIVE_KINDS or name in _TUBE_WALL or name.endswith("_with_base") or name in (
        "dumbbell_1", "dumbbell_2", "hash", "letter_l_narrow", "letter_l_wide", "letter_l_wide_tall",
        "letter_x", "tie_fighter",
    ) or name.startswith("rollable_"):
        return "primitive"
    if section == "Furniture Objects" or row.get("gen_shape") in (
        "table", "chair", "sofa", "sofa chair", "bed", "shelf", "desk", "stool", "cart", "crib", "television",
    ):
        if section == "Small Objects":
            return "small"
        return "furniture"
    if section == "Small Objects" or "pickupable" in row.get("gen_attributes", "").split():
        return "small"
    if name == "lid":
        return "small"
    return "other"


def _parts_for(name: str, row: dict[str, str], family: str, size: Vec3, shape: str) -> list[Part]:
    x, y, z = size
    details = row.get("doc_details", "").lower()
    tool = parse_tool_type(name)
    if tool:
        return _tool(tool[0], tool[1], tool[2], x, y, z)
    if family == "agent":
        return _agent(x, y, z)
    if family == "blob":
        return [_solid("sphere", 0, y / 2, 0, x, y, z)]
    if family == "door":
        return _door(x, y, z)
    if name == "rotating_cog":
        return [_solid("cylinder", 0, y / 2, 0, x, y, z)]
    if family == "container":
        return _lidded_box(x, y, z, domed="domed lid" in details)
    if name in ("changing_table",):
        return _changing_table(x, y, z)
    if name == "wardrobe":
        return _wardrobe(x, y, z)
    if name in _SUPPORT_CONTAINERS:
        return _support_container(x, y, z, **_SUPPORT_CONTAINERS[name])
    if name in _OPEN_BOX_INSIDES:
        wall, floor = _OPEN_BOX_INSIDES[name]
        return _open_box(x, y, z, t=wall, floor_t=floor)
    if family == "open_container" or name.startswith(_DISH_PREFIXES):
        return _open_box(x, y, z)
    if name in _TUBE_WALL:
        return _ring(x, y, z, _TUBE_WALL[name] * min(x, z))
    if name.endswith("_with_base"):
        base_kind = {
            "cone_with_base": "cone", "pyramid_with_base": "pyramid", "square_frustum_with_base": "square_frustum",
            "circle_frustum_with_base": "circle_frustum", "semi_sphere_with_base": "semi_sphere",
        }.get(name, "box")
        return _with_base(base_kind, x, y, z)
    if name in _PRIMITIVE_KINDS:
        return [_solid(_PRIMITIVE_KINDS[name], 0, y / 2, 0, x, y, z)]
    if name.startswith("rollable_"):
        return [_solid("sphere", 0, y / 2, 0, x, y, z)]
    if name.startswith("letter_l"):
        return _letter_l(x, y, z)
    if name == "letter_x":
        return _letter_x(x, y, z)
    if name == "hash":
        return _hash(x, y, z)
    if name.startswith("dumbbell"):
        return _dumbbell(x, y, z)
    if name == "tie_fighter":
        return _tie_fighter(x, y, z)
    if name == "trophy":  # a cup on a stem on a base (its bounding box is mostly empty, which visibility shows)
        return [
            _box(0, 0.1 * y, 0, x, 0.2 * y, z, "base"),
            _solid("cylinder", 0, 0.375 * y, 0, 0.3 * min(x, z), 0.35 * y, 0.3 * min(x, z)),
            _solid("cylinder", 0, 0.775 * y, 0, x, 0.45 * y, 0.75 * z),  # cup and handles
        ]
    if name in ("ball", "soccer_ball"):
        return [_solid("sphere", 0, y / 2, 0, x, y, z)]
    if name.startswith("crayon_") or (name.startswith("block_") and name.endswith("_cylinder")):
        return [_solid("cylinder", 0, y / 2, 0, x, y, z)]
    if family == "furniture":
        if shape == "table" or shape == "desk":
            round_top = any(w in details for w in ("circular", "oval", "semi-circular"))
            sides = 0
            if "3 sides" in details:
                sides = 3
            elif "2 sides" in details or "with sides" in details:
                sides = 2
            return _table(x, y, z, round_top=round_top, sides=sides or None)
        if shape == "chair":
            return _chair(x, y, z, back=True)
        if shape == "stool":
            return _chair(x, y, z, back=False)
        if shape in ("sofa", "sofa chair"):
            area = _OPEN_AREAS.get(name)
            return _sofa(x, y, z, arms=True, seat=(area[1], area[2]) if area else None)
        if shape == "bed":
            return _bed(x, y, z)
        if shape == "crib":
            return _crib(x, y, z)
        if name == "cart_1":
            return _cart(x, y, z)
        if name.startswith(("bookcase_", "double_bookcase_")):
            return _bookcase(name, x, y, z)
        if name == "shelf_1":  # four cubbies
            return _shelf_unit(x, y, z, [(-x / 2, 0.0, 2, []), (0.0, x / 2, 2, [])])
        if name == "shelf_2":  # three shelves
            return _shelf_unit(x, y, z, [(-x / 2, x / 2, 2, ["lower_shelf", "middle_shelf"])])
    return [_box(0, y / 2, 0, x, y, z)]


def _prefab_parts(prefab: dict[str, Any]) -> list[Part]:
    """A prefab's colliders and receptacle trigger boxes in its own frame (origin = the object's). One whose
    origin is at its bottom is raised so that its lowest collider stands on the origin: the stored prefabs' bases dip
    up to 4 mm below it, but MCS's dishes rest with their origin on what they stand on (a bowl placed on a turntable
    at 4 times its size stays at its placed height, where a dipping base would be pushed 1 cm up)."""
    parts = [_solid(shape.get("kind", "box"), *shape["center"], *shape["size"], role, rotation=tuple(shape["rotation"]))
             for key, role in (("colliders", "body"), ("receptacle_trigger_boxes", "trigger")) for shape in prefab[key]]
    dip = -min(part_bounds(part)[0][1] for part in parts if part.role == "body")
    return [_shift_y(part, float(dip)) for part in parts] if 0.0 < dip < PREFAB_BOTTOM_DIP else parts


def _registry_collider_parts(name: str, size: Vec3, centre: Vec3) -> list[Part] | None:
    """The colliders a type's registry entry lists, laid from the entry's frame onto the catalog box (full `size`
    about `centre`, relative to the origin) as its visibility points are: its boundingBox times its scale where that
    holds them, else their own extent; None where it lists none, lists mesh colliders (kept as the catalog's convex
    shapes), or lies across the catalog box. With them, the entry's receptacle trigger boxes (role "trigger") where
    the boundingBox frames both and the entry has no scale of its own (the furniture: the toy blocks' are given before
    their scale, in another frame than their colliders)."""
    entry = _REGISTRY_COLLIDERS.get(name)
    if entry is None or any(c["type"] not in ("box", "sphere") for c in entry["colliders"]):
        return None
    raw = []
    for collider in entry["colliders"]:
        at = np.array([collider["position"][k] for k in "xyz"], float)
        rotation = tuple(float(collider.get("rotation", {}).get(k, 0.0)) for k in "xyz")
        if collider.get("assignToColliderItself"):  # the position is the box's centre in its own turned frame
            at = _unity_rotation(rotation) @ at
        extents = [2.0 * float(collider["radius"])] * 3 if collider["type"] == "sphere" else [
            float(collider["scale"][k]) for k in "xyz"]
        raw.append(_solid(collider["type"], *at, *extents, "collider", rotation=rotation))
    scale = np.array(entry["scale"] or (1.0, 1.0, 1.0), float)
    frame_centre = np.array([entry["boundingBox"]["position"][k] for k in "xyz"], float) * scale
    frame_size = np.array([entry["boundingBox"]["scale"][k] for k in "xyz"], float) * scale
    low = np.min([part_bounds(part)[0] for part in raw], axis=0)
    high = np.max([part_bounds(part)[1] for part in raw], axis=0)
    slack = frame_size / 2.0 * REGISTRY_BOX_SLACK
    if np.any(low < frame_centre - frame_size / 2.0 - slack) or np.any(high > frame_centre + frame_size / 2.0 + slack):
        frame_centre, frame_size = (low + high) / 2.0, high - low
    elif entry["scale"] is None:
        raw += [_box(*(float(box["position"][k]) for k in "xyz"), *(float(box["scale"][k]) for k in "xyz"), "trigger")
                for box in entry.get("receptacleTriggerBoxes", [])]
    ratio = np.asarray(size, float) / frame_size
    if abs(ratio[0] - ratio[2]) > REGISTRY_FRAME_TOLERANCE * max(ratio[0], ratio[2]):
        return None
    if any((part.rotation[0] or part.rotation[2]) for part in raw) and \
            abs(ratio[1] - ratio[0]) > REGISTRY_FRAME_TOLERANCE * ratio[0]:
        return None  # a box tipped out of the horizontal would shear
    laid = []
    for part in raw:
        at = np.asarray(centre, float) + (np.array(part.center) - frame_centre) * ratio
        laid.append(replace(part, center=tuple(at.tolist()), size=tuple((np.array(part.size) * ratio).tolist())))
    return laid


def _same_solids(parts: list[Part], others: list[Part], tolerance: float = 1e-3) -> bool:
    """Whether two shapes are the same unturned primitives (a registry collider that is the catalog's own part)."""
    return len(parts) == len(others) and all(
        a.kind == b.kind and a.rotation == b.rotation == (0.0, 0.0, 0.0)
        and np.allclose(a.center, b.center, atol=tolerance) and np.allclose(a.size, b.size, atol=tolerance)
        for a, b in zip(parts, others))


def _bookcase(name: str, x, y, z) -> list[Part]:
    sides = not name.endswith("_sideless")
    duplex = re.match(r"^bookcase_duplex_(\d+)_(\d+)$", name)
    if duplex:
        left, right = int(duplex.group(1)), int(duplex.group(2))
        return _shelf_unit(x, y, z, [
            (-x / 2, 0.0, left + 1, ["bottom"] + [f"shelf_{k}" for k in range(1, left + 1)]),
            (0.0, x / 2, right + 1, []),
        ])
    match = re.search(r"_(\d+)_shelf", name)
    n = int(match.group(1)) if match else 1
    names = ["bottom"] + [f"shelf_{k}" for k in range(1, n + 1)]
    if name.startswith("double_"):
        return _shelf_unit(x, y, z, [(-x / 2, 0.0, n + 1, names), (0.0, x / 2, n + 1, [])])
    return _shelf_unit(x, y, z, [(-x / 2, x / 2, n + 1, names)], sides=sides)


def _shift_y(part: Part, dy: float) -> Part:
    def moved(v):
        return None if v is None else (v[0], v[1] + dy, v[2])

    return replace(
        part,
        center=(part.center[0], part.center[1] + dy, part.center[2]),
        open_center=moved(part.open_center),
        hinge=moved(part.hinge),
    )


# ------------------------------------------------------------------------------------------------
# Type assembly
# ------------------------------------------------------------------------------------------------
def _extra_rows() -> dict[str, dict[str, str]]:
    """Types MCS 0.7.4 scenes use that the CSV lacks (values from mcs-scene-generator / IT outputs)."""
    door = {
        "doc_section": "Structural", "doc_default_mass": "100", "doc_openable": "X",
        "gen_dims_xyz_at_scale1": f"{_DOOR_WIDTH}/{_DOOR_HEIGHT}/{_DOOR_DEPTH}", "gen_positionY_on_floor": "0.0",
        "gen_attributes": "openable", "gen_shape": "door", "doc_details": "Openable door in a wall (a hinged panel)",
    }
    extras = {
        "door_4": dict(door),
        "door_4b": dict(door),
        "rotating_cog": {
            "doc_section": "Structural", "gen_dims_xyz_at_scale1": f"{COG_DIAMETER}/{COG_HEIGHT}/{COG_DIAMETER}",
            "gen_positionY_on_floor": f"{COG_HEIGHT / 2}",
            "gen_shape": "structural", "doc_details": "Turntable (thin disc, rotated by `rotates`)",
        },
        "semi_sphere_with_base": {
            "gen_dims_xyz_at_scale1": "1.0/2.0/1.0", "gen_positionY_on_floor": "1.0", "gen_mass": "1.0",
            "gen_attributes": "physics", "gen_shape": "semi sphere with base",
        },
    }
    for row_name, row in list(_rows().items()):
        if row_name.startswith("blob_") and re.fullmatch(r"blob_\d+", row_name):
            extras[f"{row_name}_nose"] = dict(row, type=f"{row_name}_nose")
    return extras


@functools.cache
def _all_rows() -> dict[str, dict[str, str]]:
    rows = dict(_rows())
    for name, row in _extra_rows().items():
        rows.setdefault(name, {"type": name, **row})
    return rows


def _shape_name(name: str, row: dict[str, str], family: str) -> str:
    if name.startswith("block_") and name.endswith("_cylinder"):
        return "blank block cylinder"
    shape = row.get("gen_shape", "")
    if shape:
        return shape
    if family == "agent":
        return AGENT_SHAPE
    if family == "blob":
        return "blob"
    if family == "tool":
        return "tool"
    if family == "door":
        return "door"
    base = re.sub(r"(_\d+)+$", "", name)
    return base.replace("_", " ") or name


def _build(name: str, row: dict[str, str]) -> ObjectType:
    base_name = name[: -len("_static")] if name.endswith("_static") else None
    base_row = _rows().get(base_name, {}) if base_name else {}
    if name.endswith("_nose"):
        base_row = _rows().get(name[: -len("_nose")], {})
    family = _family(name, row)
    attrs = set(row.get("gen_attributes", "").split())
    tool = parse_tool_type(name)

    # ---- size
    doc = _doc_size(row.get("doc_base_size", ""))
    gen = _gen_size(row.get("gen_dims_xyz_at_scale1", ""))
    if name in _PREFABS:  # MCS reports the prefab's BoundingBox
        size = tuple(_PREFABS[name]["bounding_box"]["size"])
    elif tool:
        kind, w, length = tool
        if kind == "hooked":
            size = (3 * w, _TOOL_HEIGHT, length)
        elif kind == "isosceles":
            size = (length, _TOOL_HEIGHT, length)
        elif kind in ("i", "t") and gen:
            size = (gen[0], _TOOL_HEIGHT, gen[2])
        else:
            size = (w, _TOOL_HEIGHT, length)
    elif name in _CLOSED_SIZES:
        size = _CLOSED_SIZES[name]
    elif doc and (name in _PREFER_DOC_SIZE or not gen):
        size = doc
    elif gen:
        size = gen
    elif name in _GUESSED_SIZES:
        size = _GUESSED_SIZES[name]
    else:
        size = (1.0, 1.0, 1.0)

    # ---- origin height
    pos_y = _float(row.get("gen_positionY_on_floor", ""))
    if tool:
        pos_y = _TOOL_HEIGHT / 2
    elif family == "blob":
        pos_y = _BLOB_STANDING_Y.get(name.replace("_nose", ""), size[1] / 2)
    elif name.startswith(_BOTTOM_ORIGIN_PREFIXES):
        pos_y = 0.0
    elif name in _CENTRED_ORIGIN:
        pos_y = size[1] / 2
    elif pos_y is None:
        pos_y = 0.0
    pos_y = _clamp(float(pos_y), 0.0, size[1])

    # ---- mass
    mass = _REGISTRY_MASSES.get(name) or _REGISTRY_MASSES.get(base_name) or _MASS_OVERRIDES.get(name)
    if mass is None:
        mass = _float(row.get("doc_default_mass", "")) or _float(base_row.get("doc_default_mass", "")) or _float(
            row.get("gen_mass", "")) or 1.0

    # ---- affordances
    receptacle = row.get("doc_receptacle") == "X" or "receptacle" in attrs
    openable = row.get("doc_openable") == "X" or "openable" in attrs
    moveable = row.get("doc_moveable") == "X" or "moveable" in attrs
    pickupable = "pickupable" in attrs
    if family == "small" and name != "lid" and not name.endswith("_static"):
        pickupable = True
    if family == "container" and name.startswith(_PICKUPABLE_CONTAINER_PREFIXES):
        pickupable = receptacle = openable = True
    if family == "container":
        receptacle = openable = True
    if family == "tool":
        moveable = True
    if name in ("changing_table", "wardrobe"):
        openable = False  # opened through their child drawers/doors
    if family in ("agent", "blob", "door", "structure"):
        pickupable = moveable = False
        receptacle = receptacle if family == "structure" else False
    moveable = moveable or pickupable
    physics = "physics" in attrs or pickupable or moveable or receptacle or openable
    if family in ("agent", "blob", "door", "structure"):
        physics = False

    shape = _shape_name(name, row, family)
    if name in _PREFABS:
        parts = _prefab_parts(_PREFABS[name])
    else:
        parts = [_shift_y(p, -pos_y) for p in _parts_for(name, row, family, size, shape)]
        registry = _registry_collider_parts(name, size, (0.0, size[1] / 2 - pos_y, 0.0))
        colliders = [part for part in registry or [] if part.role == "collider"]
        triggers = [part for part in registry or [] if part.role == "trigger"]
        if registry is not None and not _same_solids(colliders, parts):
            parts = colliders + [replace(part, look=True) for part in parts]
        parts += triggers or _open_area_triggers(name)  # the registry's trigger boxes, else the generator's seat
    children = tuple(dict.fromkeys(p.name for p in parts if p.name))
    return ObjectType(
        name=name,
        size=(float(size[0]), float(size[1]), float(size[2])),
        mass=float(mass),
        shape=shape,
        pickupable=pickupable,
        moveable=moveable,
        receptacle=receptacle,
        openable=openable,
        physics=physics,
        parts=tuple(parts),
        position_y_on_floor=float(pos_y),
        is_agent=family == "agent",
        is_structural_default=name == "rotating_cog",
        family=family,
        # Doors, turntables, separate lids (held up by placers until lidAttachment) and the types whose registry entry
        # says so (beds, sofas, tables, shelves...: MCSMain.AssignRigidbody) are kinematic by default.
        kinematic_default=family in ("door", "structure") or name == "lid" or name in _REGISTRY_KINEMATIC,
        center_mass_at_bottom=name in _CENTER_MASS_AT_BOTTOM,
        bounciness=float(_REGISTRY_BOUNCINESS.get(name, 0.0)),
        child_components=children,
        details=row.get("doc_details", ""),
    )


# ------------------------------------------------------------------------------------------------
# Public API
# ------------------------------------------------------------------------------------------------
@functools.cache
def _names_tuple() -> tuple[str, ...]:
    return tuple(sorted(_all_rows()))


def object_type_names() -> list[str]:
    """All known object type names, sorted."""
    return list(_names_tuple())


def prefabs() -> list[dict[str, Any]]:
    """The prefabs whose colliders shape catalog types (data/prefab_geometry.json entries)."""
    return list({id(prefab): prefab for prefab in _PREFABS.values()}.values())


def is_known_type(name: str) -> bool:
    return isinstance(name, str) and (name in _all_rows() or name.strip().lower() in _all_rows())


@functools.cache
def get_object_type(name: str) -> ObjectType:
    """The catalog entry of an MCS object type (exact name; a lower-cased/stripped match also works).

    Unknown names raise ``UnknownObjectTypeError`` (a ``KeyError``) listing close matches.
    """
    rows = _all_rows()
    key = name if isinstance(name, str) else str(name)
    if key not in rows:
        folded = key.strip().lower()
        if folded in rows:
            key = folded
        else:
            suggestions = difflib.get_close_matches(folded, list(rows), n=5, cutoff=0.6)
            raise UnknownObjectTypeError(str(name), suggestions)
    return _build(key, rows[key])


def _unity_rotation(rotation: Vec3) -> np.ndarray:
    """Rotation matrix (MCS axes) of Unity Euler degrees: R = Ry . Rx . Rz."""
    rx, ry, rz = (math.radians(a) for a in rotation)
    cx, sx, cy, sy, cz, sz = math.cos(rx), math.sin(rx), math.cos(ry), math.sin(ry), math.cos(rz), math.sin(rz)
    r_x = np.array([[1, 0, 0], [0, cx, -sx], [0, sx, cx]])
    r_y = np.array([[cy, 0, sy], [0, 1, 0], [-sy, 0, cy]])
    r_z = np.array([[cz, -sz, 0], [sz, cz, 0], [0, 0, 1]])
    return r_y @ r_x @ r_z


def part_bounds(part: Part) -> tuple[np.ndarray, np.ndarray]:
    """Axis-aligned (min, max) corners of a part (closed pose) in the object's frame, with rotation."""
    center = np.asarray(part.center, float)
    half = np.asarray(part.size, float) / 2
    if not any(part.rotation):
        return center - half, center + half
    extent = np.abs(_unity_rotation(part.rotation)) @ half
    return center - extent, center + extent


def _circle(n: int = 24) -> np.ndarray:
    angles = np.arange(n) * (2 * np.pi / n)
    return np.stack([0.5 * np.cos(angles), 0.5 * np.sin(angles)], axis=1)  # (x, z) on radius 0.5


@functools.cache
def _mesh(kind: str) -> np.ndarray:
    ring = _circle()
    if kind == "box":
        v = [[x, y, z] for x in (-0.5, 0.5) for y in (-0.5, 0.5) for z in (-0.5, 0.5)]
    elif kind in ("cylinder", "capsule"):
        v = [[x, y, z] for y in (-0.5, 0.5) for x, z in ring]
    elif kind == "cone":
        v = [[x, -0.5, z] for x, z in ring] + [[0.0, 0.5, 0.0]]
    elif kind == "circle_frustum":
        v = [[x, -0.5, z] for x, z in ring] + [[0.5 * x, 0.5, 0.5 * z] for x, z in ring]
    elif kind == "double_cone":
        v = [[x, 0.0, z] for x, z in ring] + [[0.0, 0.5, 0.0], [0.0, -0.5, 0.0]]
    elif kind == "pyramid":
        v = [[x, -0.5, z] for x in (-0.5, 0.5) for z in (-0.5, 0.5)] + [[0.0, 0.5, 0.0]]
    elif kind == "square_frustum":
        v = [[x, -0.5, z] for x in (-0.5, 0.5) for z in (-0.5, 0.5)]
        v += [[x, 0.5, z] for x in (-0.25, 0.25) for z in (-0.25, 0.25)]
    elif kind == "triangle_prism":
        v = [[x, y, z] for x in (-0.5, 0.5) for (y, z) in ((-0.5, -0.5), (-0.5, 0.5), (0.5, 0.5))]
    elif kind == "sphere":
        v = [[0.0, 0.5, 0.0], [0.0, -0.5, 0.0]]
        for lat in np.linspace(-75, 75, 11):
            r, h = math.cos(math.radians(lat)), 0.5 * math.sin(math.radians(lat))
            v += [[r * x, h, r * z] for x, z in ring]
    elif kind == "semi_sphere":
        # dome of radius 0.5 (x, z) squashed to height 1: flat face at y = -0.5, top at +0.5
        v = [[0.0, 0.5, 0.0]]
        for lat in np.linspace(0, 75, 6):
            r, h = math.cos(math.radians(lat)), math.sin(math.radians(lat))
            v += [[r * x, h - 0.5, r * z] for x, z in ring]
    else:
        raise ValueError(f"no mesh for part kind {kind!r}; known: {', '.join(PART_KINDS)}")
    out = np.asarray(v, dtype=float)
    out[np.abs(out) < 1e-12] = 0.0
    return out


def mesh_vertices(kind: str) -> np.ndarray:
    """(N, 3) vertices of a unit convex solid of a part kind: bounding box exactly [-0.5, 0.5]^3
    (centred, extents 1, MCS axes with y up), so callers multiply by ``Part.size``.

    Available for every kind in ``PART_KINDS`` (and ``box``); sphere and cylinder use 24-gons.
    """
    return _mesh(kind).copy()


# ------------------------------------------------------------------------------------------------
# Materials an object reports when the scene does not say (prefab defaults of the MCS Unity app)
# ------------------------------------------------------------------------------------------------
def default_materials(type_name: str) -> tuple[tuple[str, ...], tuple[str, ...], bool]:
    """(salient materials, colour names, colours are fixed) of a type when the scene gives none.

    Salient materials are the type's registry entry's (MCSMain), else the material defaults table's, else
    ``('UNDEFINED',)`` (structures, most primitives, agents, lids...); colours default to none.
    ``crayon_<colour>`` reports its colour.
    """
    registry = _REGISTRY_MATERIALS.get(type_name)
    for key, salient, colors, fixed in _MATERIAL_DEFAULTS:
        if type_name == key or (key.endswith("_") and type_name.startswith(key)):
            if key == "crayon_":
                colors = (type_name[len(key):],)
            return registry or salient, colors, fixed
    return registry or ("UNDEFINED",), (), False


def agent_skin_colors(skin: int | None, elder: bool = False) -> tuple[str, ...]:
    """Colour names an agent reports for its ``agentSettings`` skin: elder skins have no
    registered colour, skins 1 and 3 are dark, the others (and the default -1) medium."""
    if elder:
        return ()
    return ("skin_tone_dark",) if skin in (1, 3) else ("skin_tone_medium",)
