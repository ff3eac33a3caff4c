"""What the performer perceives: object visibility, ObjectMetadata, instance colours and metadata tiers."""

from __future__ import annotations

import functools
import json
import math
import operator
import zlib
from typing import Callable, TypeVar

import mujoco
import numpy as np

from mcs_plugin.constants import CAMERA_FIELD_OF_VIEW, GROUP_PERFORMER, GROUP_SEE_PAST
from mcs_plugin.geometry import BOX_CORNER_SIGNS
from mcs_plugin.mcs import ObjectMetadata
from mcs_plugin.sim.camera import camera_basis, focal_length, image_points
from mcs_plugin.sim.catalog import AGENT_SCALE, AGENT_SHAPE, REGISTRY_BOX_SLACK, get_object_type, is_known_type, prefabs
from mcs_plugin.sim.coords import mj_matrices_to_unity_euler
from mcs_plugin.sim.datafiles import data_text
from mcs_plugin.sim.geom_types import GEOM_CAPSULE, GEOM_CYLINDER, GEOM_ELLIPSOID, GEOM_SPHERE
from mcs_plugin.sim.performer import AXIS_HIGH, AXIS_LOW, Performer, axis_distances
from mcs_plugin.sim.world import AGENT_RAY_GROUPS, HOLE_DEPTH, RAY_GROUPS, RAY_GROUPS_SEE_PAST, SimObject, World

MAX_VISIBLE_DISTANCE = 14.15  # MCS MAX_DISTANCE_ACROSS_ROOM: image-point rays, and the range objects are seen in
POINT_RAY_OVERSHOOT = 0.5  # m: a visibility point's ray reaches this far past the point


def stable_color(object_id: str, taken: set[tuple[int, int, int]]) -> tuple[int, int, int]:
    """A deterministic instance colour for an object id, distinct from those already taken."""
    seed = zlib.crc32(object_id.encode("utf-8"))
    while True:
        rgb = ((seed & 0xFF), (seed >> 8) & 0xFF, (seed >> 16) & 0xFF)
        if rgb not in taken and rgb != (0, 0, 0):
            taken.add(rgb)
            return rgb
        seed = zlib.crc32(seed.to_bytes(4, "little"))


# MCS's visibility rule (BaseFPSAgentController.GetAllVisibleSimObjPhysics / CheckIfVisibilityPointInViewport):
# an object is visible when one of its visibility points lies strictly inside the image and a ray from the camera
# toward it (reaching 0.5 m past it) hits the object itself first. Types that MCS's object registries give points
# of their own take those (registry_points, below); every other part gets the corners and face centres of its box
# (as the registries' ``cube``), round parts on their surface, with no centre point. Large objects get no more
# points, so a changing table that fills the image while its corners are out of view is not visible.
# Tools hide nothing: Unity sees a ball just behind a tool's far end, wholly behind the 0.3 m tool in the image, at
# every step, and no recorded observation has an object hidden by a tool. So a ray toward another
# object's point passes through tools (world.GROUP_SEE_PAST); one toward a tool's own point meets it.
SAMPLE_INSET = 0.9  # points sit just inside each part's surface, so a ray aimed at one meets that part (a ray to
# an exact corner grazes it); measured: the surface itself (1.0) matches fewer recorded observations
SAMPLE_SPACING = 1.0  # metres: long parts get a point at least this often along each side (a 9 m tool
# seen side-on, its corners and face centres out of view, is targetable); results are the same for 0.75-1.5 m
_ROUND = np.array([GEOM_SPHERE, GEOM_ELLIPSOID])
_ROUND_SIDES = np.array([GEOM_CYLINDER, GEOM_CAPSULE])
# The 8 corners and 6 face centres of a box, in half-extent units.
_BOX_POINT_SIGNS = np.array(
    [[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)]
    + [[sign if a == axis else 0 for a in range(3)] for axis in range(3) for sign in (-1, 1)], dtype=float)


@functools.lru_cache(maxsize=4096)
def _box_lattice(full: tuple[float, float, float]) -> np.ndarray:
    """Points (half-extent units) on the surface of a box of full extents `full`: corners and face centres, plus
    lattice points at most SAMPLE_SPACING apart along long sides (read-only; cached, scenes reuse sizes)."""
    axes = [np.linspace(-1.0, 1.0, max(1, math.ceil(extent / SAMPLE_SPACING - 1e-9)) + 1) for extent in full]
    grid = np.stack(np.meshgrid(*axes, indexing="ij"), axis=-1).reshape(-1, 3)
    on_surface = grid[(np.abs(grid) > 1.0 - 1e-9).any(axis=1)]
    points = np.unique(np.concatenate([on_surface, _BOX_POINT_SIGNS]).round(9), axis=0)
    points.setflags(write=False)
    return points


PART_BOX, PART_ROUND, PART_ROUND_SIDES = "box", "round", "round_sides"  # kinds of part for part_points


def part_points(full: tuple[float, float, float], kind: str = PART_BOX) -> np.ndarray:
    """MCS's visibility points of one part of an object, relative to its centre in its own frame (full extents
    `full`): its box lattice just inside the surface, moved onto the surface of a sphere (PART_ROUND) or pulled onto
    the round side of a cylinder whose axis is the third one (PART_ROUND_SIDES)."""
    half = np.asarray(full, float) / 2.0
    offsets = _box_lattice(tuple(float(v) for v in full)) * SAMPLE_INSET
    if kind == PART_ROUND:  # spheres and ellipsoids: on the surface, not at the box corners
        norm = np.linalg.norm(offsets, axis=1, keepdims=True)
        offsets = offsets / np.maximum(norm, 1e-9) * SAMPLE_INSET
    elif kind == PART_ROUND_SIDES:  # cylinders: corners pulled onto the round side
        radial = np.linalg.norm(offsets[:, :2], axis=1, keepdims=True)
        offsets[:, :2] *= np.where(radial > SAMPLE_INSET, SAMPLE_INSET / np.maximum(radial, 1e-9), 1.0)
    return half * offsets


# MCS's object registries (mcs_object_registry.json, primitive_object_registry.json; MCSMain.AssignVisibilityPoints)
# give many object types their own visibility points, as children of the object: a ball's 6 axis ends and 12 points
# at 45 degrees in its axis planes, a toy-block cylinder's cardinal rim points, a toy's few points along its body.
# Prefab types the registries give none (dishes, apples, table_1, chair_1, ...) keep their prefab's
# (data/prefab_geometry.json).
# Those types take the registry's points instead of the generic ones, mapped from the registry's frame (the entry's
# boundingBox times its scale, or the points' own extent where that box does not hold them: the stored registries
# are older than 0.7.4 and some entries' sizes changed since) onto the object's box. Their places are MCS's own, so
# they are pulled in only as far as a ray aimed at one needs to meet its part: SAMPLE_INSET of the half-size, at most
# REGISTRY_INSET (a 3 m seesaw plank's end points stay at its end, not 0.15 m short of it).
REGISTRY_POINTS_FILE = "registry_visibility_points.json"
REGISTRY_INSET = 0.01  # metres


@functools.lru_cache(maxsize=1)
def _registry_entries() -> dict[tuple[str, int | None], dict]:
    """The registry entry (visibilityPoints, boundingBox, scale) of each object type that has one, by (type, None),
    and its legacy block for scenes of one version, by (type, version)."""
    entries = json.loads(data_text(REGISTRY_POINTS_FILE))["entries"]
    found = {(type_name, entry.get("legacy_version")): entry for entry in entries for type_name in entry["ids"]}
    # A type the registries give no points keeps its prefab's (SimObjPhysics.VisibilityPoints), framed by its
    # BoundingBox.
    for prefab in prefabs():
        entry = {"ids": prefab["types"], "visibilityPoints": prefab["visibility_points"],
                 "boundingBox": {"position": prefab["bounding_box"]["center"],
                                 "scale": prefab["bounding_box"]["size"]}}
        for type_name in prefab["types"]:
            found.setdefault((type_name, None), entry)
    return found


def _registry_entry(type_name: str, scene_version: int | None = None) -> dict | None:
    """A type's registry entry for a scene of `scene_version`: its legacy block for that version where it has one
    (MCSMain.RetrieveLegacyObjectDefinition), else its own."""
    entries = _registry_entries()
    return entries.get((type_name, scene_version)) or entries.get((type_name, None))


def registry_frame(entry: dict) -> tuple[np.ndarray, np.ndarray]:
    """Centre and full size of the box that frames a registry entry's points, in the registry's units."""
    points = np.array(entry["visibilityPoints"], float)
    scale = np.array(entry.get("scale", (1.0, 1.0, 1.0)), float)
    box = entry["boundingBox"]
    centre, size = np.array(box["position"], float) * scale, np.array(box["scale"], float) * scale
    if np.all(np.abs(points - centre) <= size / 2.0 * (1.0 + REGISTRY_BOX_SLACK)):
        return centre, size
    low, high = points.min(axis=0), points.max(axis=0)
    return (low + high) / 2.0, high - low


def _same_long_side(frame: np.ndarray, size: tuple[float, float, float]) -> bool:
    """Whether a registry frame and a catalog box (full sizes, MCS axes) are longer along the same horizontal axis
    (the stored registries' toy vehicles lie along z, the catalog's along x: their points would land on the wrong
    sides)."""
    return (frame[0] - frame[2]) * (size[0] - size[2]) >= 0 or abs(frame[0] - frame[2]) < 0.1 * max(frame[0], frame[2])


@functools.lru_cache(maxsize=256)
def _registry_pattern(type_name: str, scene_version: int | None = None) -> np.ndarray | None:
    """A type's registry points in half-size units of their frame (read-only), None for a type without any or
    whose registry frame lies across its catalog box."""
    entry = _registry_entry(type_name, scene_version)
    if entry is None or not is_known_type(type_name):
        return None
    centre, size = registry_frame(entry)
    if not _same_long_side(size, get_object_type(type_name).size):
        return None
    half = np.where(size > 0, size / 2.0, 1.0)
    pattern = (np.array(entry["visibilityPoints"], float) - centre) / half
    pattern.setflags(write=False)
    return pattern


def _on_box(pattern: np.ndarray, full: np.ndarray | tuple[float, float, float]) -> np.ndarray:
    """Registry points (half-size units) on a box of full extents `full` about its centre, just inside it."""
    half = np.asarray(full, float) / 2.0
    return pattern * half * np.maximum(SAMPLE_INSET, 1.0 - REGISTRY_INSET / np.maximum(half, 1e-9))


def registry_points(type_name: str, size: np.ndarray, bounds_center: np.ndarray,
                    scene_version: int | None = None) -> np.ndarray | None:
    """An object's registry visibility points in its own MCS frame (relative to its origin) given its box (full
    `size` and `bounds_center`, MCS axes), just inside that box; None for a type the registries give none."""
    pattern = _registry_pattern(type_name, scene_version)
    if pattern is None:
        return None
    return np.asarray(bounds_center, float) + _on_box(pattern, size)


@functools.lru_cache(maxsize=64)
def _shape_pattern(shape: str) -> np.ndarray | None:
    """The registry pattern every catalog type reporting `shape` shares (balls: `ball` and `soccer_ball`), None
    where they have none or differ."""
    patterns = [_registry_pattern(name) for name, version in _registry_entries() if version is None
                and is_known_type(name)
                and get_object_type(name).shape == shape]
    if not patterns or any(p is None or p.shape != patterns[0].shape or not np.allclose(p, patterns[0], atol=1e-3)
                           for p in patterns):
        return None
    return patterns[0]


def shape_points(shape: str, full: tuple[float, float, float]) -> np.ndarray:
    """Visibility points of an object known only by its reported shape and box (full extents, centred), as the
    simulator places them: its types' registry points where they share them (an agent's, on its scaled model), else
    the box's part_points. The expert predicts with it what the simulator will see."""
    if shape == AGENT_SHAPE:
        return _agent_model_points(full)
    pattern = _shape_pattern(shape)
    if pattern is None:
        return part_points(full)
    return _on_box(pattern, full)


def _geom_samples(model: mujoco.MjModel, geom: int) -> np.ndarray:
    """A geom's generic visibility points in its own frame (part_points of its bounding box)."""
    kind = model.geom_type[geom]
    part = PART_ROUND if kind in _ROUND else PART_ROUND_SIDES if kind in _ROUND_SIDES else PART_BOX
    return model.geom_aabb[geom, :3] + part_points(tuple(float(v) for v in 2.0 * model.geom_aabb[geom, 3:]), part)


# Door4.prefab (door_4, door_4b) gives its panel 108 visibility points, children of the panel that turn with it: a grid
# 6 across its width (0.17 m apart) by 9 up its height (0.25 m apart) on each face.
DOOR_POINT_GRID = (6, 9)


@functools.lru_cache(maxsize=16)
def door_panel_points(full: tuple[float, float, float]) -> np.ndarray:
    """A door panel's visibility points relative to its centre (full extents `full`, thin along z)."""
    across, up = (np.linspace(-1.0, 1.0, n) for n in DOOR_POINT_GRID)
    pattern = np.array([[x, y, z] for x in across for y in up for z in (-1.0, 1.0)])
    points = _on_box(pattern, full)
    points.setflags(write=False)
    return points


def _registry_anchor(world: World, obj: SimObject) -> int:
    """The geom that carries an object's registry points: its first visible geom on its own body (-1 if none)."""
    model = world.model
    return next((g for g in obj.geom_ids if model.geom_bodyid[g] == obj.body_id
                 and model.geom_group[g] < GROUP_PERFORMER), -1)


def _registry_samples(world: World, obj: SimObject, geom: int) -> np.ndarray | None:
    """An object's registry points in the frame of `geom` (on the object's body), None without registry points."""
    local = registry_points(obj.type_name, obj.size, obj.bounds_center, world.scene_version)
    if local is None:
        return None
    rotation = np.zeros(9)
    mujoco.mju_quat2Mat(rotation, world.model.geom_quat[geom])
    return (local[:, [0, 2, 1]] - world.model.geom_pos[geom]) @ rotation.reshape(3, 3)


_GRID = 12  # a coarse grid of image rays finds the floor and structures whose samples lie off screen


@functools.lru_cache(maxsize=16)
def _grid_camera_directions(width: int, height: int) -> np.ndarray:
    """(_GRID^2, 3) unit directions through a lattice of image points, in camera axes (right, up, forward)."""
    f = focal_length(height, CAMERA_FIELD_OF_VIEW)
    u = (np.arange(_GRID) + 0.5) / _GRID * width - width / 2.0
    v = (np.arange(_GRID) + 0.5) / _GRID * height - height / 2.0
    uu, vv = np.meshgrid(u, v)
    dirs = np.stack([uu.ravel(), -vv.ravel(), np.full(uu.size, f)], axis=1)
    return dirs / np.linalg.norm(dirs, axis=1, keepdims=True)


_T = TypeVar("_T")


def _cached_on(world: World, name: str, key: tuple, build: Callable[[], _T]) -> _T:
    """build()'s value, kept on the world under `name` until one of `key`'s items is replaced (compared by identity)."""
    cached = getattr(world, name, None)
    if cached is None or not all(map(operator.is_, cached[0], key)):
        cached = (key, build())
        setattr(world, name, cached)
    return cached[1]


def _sample_points_local(world: World) -> tuple[np.ndarray, np.ndarray]:
    """Visibility points of every geom in its own frame (P, 3) and the geom each belongs to (P,), cached: the
    generic points of each geom, or an object's registry points on one of its geoms (its other geoms carry none)."""
    return _cached_on(world, "_visibility_samples", (), lambda: _build_sample_points_local(world))


def _build_sample_points_local(world: World) -> tuple[np.ndarray, np.ndarray]:
    """What _sample_points_local keeps: every geom's visibility points in its own frame, and their geoms."""
    per_geom: list[np.ndarray | None] = [None] * world.model.ngeom
    for obj in world.objects:
        for geom in obj.look_geom_ids:  # only drawn: never a visibility point's part
            per_geom[geom] = np.zeros((0, 3))
        if obj.is_door:
            for geom in obj.geom_ids:
                per_geom[geom] = world.model.geom_aabb[geom, :3] + door_panel_points(
                    tuple(float(v) for v in 2.0 * world.model.geom_aabb[geom, [3, 5, 4]]))[:, [0, 2, 1]]
            continue
        anchor = _registry_anchor(world, obj) if not obj.is_agent else -1
        samples = _registry_samples(world, obj, anchor) if anchor >= 0 else None
        if samples is not None:
            for geom in obj.geom_ids:
                per_geom[geom] = np.zeros((0, 3))
            per_geom[anchor] = samples
    per_geom = [p if p is not None else _geom_samples(world.model, geom) for geom, p in enumerate(per_geom)]
    return np.concatenate(per_geom), np.repeat(np.arange(world.model.ngeom), [len(p) for p in per_geom])


def _seen_by_grid(obj: SimObject) -> bool:
    """Whether an object counts as seen where the image grid hits it: the floor and structures (MCS reports them
    visible anyway; they can be targeted by id)."""
    return obj.is_floor or obj.structural


# A simulation agent is seen by its registry points (MCS gives every agent the same 40: 8 around each of 5 rings up
# its 0.5 x 1.6 x 0.5 box), on its model, which MCS scales to AGENT_SCALE of that box (0.96 m tall, rings of radius
# 0.15 m), pulled in as registry points are. Rays toward them meet the agents' shells (catalog._agent); other objects
# are hidden by the agents' capsules only.
@functools.lru_cache(maxsize=32)
def _agent_pattern(type_name: str | None) -> np.ndarray:
    """An agent type's registry points (half-size units of its box); the registry's other agents' for a type it does
    not list, or none given (they all share one set)."""
    pattern = _registry_pattern(type_name) if type_name else None
    if pattern is None:
        pattern = next(_registry_pattern(name) for name, version in _registry_entries()
                       if version is None and is_known_type(name) and get_object_type(name).is_agent)
    return pattern


def _agent_model_points(full: np.ndarray | tuple[float, float, float], type_name: str | None = None) -> np.ndarray:
    """An agent's visibility points relative to the centre of its box (full extents `full`, bottom at its feet): its
    type's registry points on its model, AGENT_SCALE of the box, pulled in as registry points are."""
    model = np.asarray(full, float) * AGENT_SCALE
    return np.array([0.0, (model[1] - full[1]) / 2.0, 0.0]) + _on_box(_agent_pattern(type_name), model)


def _agent_points(world: World, agents: list[SimObject]) -> tuple[np.ndarray, np.ndarray]:
    """World points (MuJoCo frame) of the agents' visibility points, and the index of the agent each belongs to."""
    index = {id(o): i for i, o in enumerate(world.objects)}
    points, owners = [], []
    for agent in agents:
        local = np.asarray(agent.bounds_center, float) + _agent_model_points(agent.size, agent.type_name)  # MCS axes
        mat = world.data.xmat[agent.body_id].reshape(3, 3)
        points.append(world.data.xpos[agent.body_id] + local[:, [0, 2, 1]] @ mat.T)
        owners.append(np.full(len(local), index[id(agent)]))
    return np.concatenate(points), np.concatenate(owners)


def _point_selection(world: World) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The visibility points of the geoms tested for visibility, less the agents' (seen by their own points): each in
    its geom's frame, its geom and its owner; cached until those geoms or their points change."""
    geoms, samples = world.visibility_geoms(), _sample_points_local(world)

    def select() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        agent_indices = [i for i, o in enumerate(world.objects) if o.is_agent]
        tested = geoms[~np.isin(world.geom_owner[geoms], agent_indices)]
        all_local, all_geoms = samples
        keep = np.isin(all_geoms, tested)
        return all_local[keep], all_geoms[keep], world.geom_owner[all_geoms[keep]]

    return _cached_on(world, "_point_selection", (geoms, samples), select)


def _visibility_points(world: World) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """World points (MuJoCo frame) of every present object's visibility points, the object index of each and
    whether it is a simulation agent's."""
    data = world.data
    local, point_geoms, owners = _point_selection(world)
    rot = data.geom_xmat[point_geoms].reshape(-1, 3, 3)
    points = data.geom_xpos[point_geoms] + np.einsum("pij,pj->pi", rot, local)
    agents = [o for o in world.objects if o.is_agent and o.present]
    agent_mask = np.zeros(len(points), dtype=bool)
    if agents:
        agent_points, agent_owners = _agent_points(world, agents)
        points, owners = np.concatenate([points, agent_points]), np.concatenate([owners, agent_owners])
        agent_mask = np.concatenate([agent_mask, np.ones(len(agent_points), dtype=bool)])
    return points, owners, agent_mask


def in_sight_range(world: World, performer: Performer) -> np.ndarray | None:
    """Which objects (by index in world.objects, one more entry, False, for no owner) MCS tests for visibility at all,
    or None when that is every object: those with a collider within MAX_VISIBLE_DISTANCE of the performer's capsule
    segment with its upper end raised by that distance, so, across the floor plan, within MAX_VISIBLE_DISTANCE of the
    body's axis (AI2-THOR's GetAllVisibleSimObjPhysics: Physics.OverlapCapsule on the SimObjVisible layer, which MCS
    calls with MAX_DISTANCE_ACROSS_ROOM)."""
    low, high = performer.floor_y + AXIS_LOW, performer.floor_y + AXIS_HIGH + MAX_VISIBLE_DISTANCE
    # Everything lies over the floor slab, or at most a hole's depth under it: when the slab's farthest corner is in
    # range, so is every object (anything off the slab is outside the walls, which hide it)
    farthest = math.hypot(abs(performer.x) + world.floor_half[0], abs(performer.z) + world.floor_half[1],
                          max(low, 0.0) + HOLE_DEPTH)
    if farthest <= MAX_VISIBLE_DISTANCE:
        return None
    in_range = np.zeros(len(world.objects) + 1, dtype=bool)
    geoms = world.visibility_geoms()
    owners = world.geom_owner[geoms]
    centre_gap = axis_distances(world.data.geom_xpos[geoms], performer.x, performer.z, low, high)
    # a geom's centre lies inside it: within range if its centre is; out of range if its bounding sphere is
    in_range[owners[centre_gap <= MAX_VISIBLE_DISTANCE]] = True
    unsure = (centre_gap - world.model.geom_rbound[geoms] <= MAX_VISIBLE_DISTANCE) & ~in_range[owners]
    for owner in np.unique(owners[unsure]).tolist():
        near = geoms[unsure & (owners == owner)]
        gap = world.segment_distance(performer.x, performer.z, low, high, near.tolist())
        in_range[owner] = gap <= MAX_VISIBLE_DISTANCE
    in_range[-1] = False
    return in_range


def _tool_owners(world: World) -> np.ndarray:
    """Per owner (index in world.objects, one more entry, False, for no owner), whether it is a tool (has geoms in
    GROUP_SEE_PAST); cached until the geoms tested for visibility change."""
    geoms = world.visibility_geoms()

    def tools() -> np.ndarray:
        by_owner = np.zeros(len(world.objects) + 1, dtype=bool)
        by_owner[world.geom_owner[geoms[world.model.geom_group[geoms] == GROUP_SEE_PAST]]] = True
        return by_owner

    return _cached_on(world, "_tool_owners", (geoms,), tools)


def _point_rays(world: World, cam: np.ndarray, directions: np.ndarray, owners: np.ndarray, agent_point: np.ndarray,
                reach: float):
    """First geoms hit (and distances, up to `reach`) by the rays toward visibility points of the given owners: a ray
    toward another object's point passes through tools (GROUP_SEE_PAST), one toward a tool's own point meets it; only
    rays toward an agent's points meet agents' shells."""
    tool_point = _tool_owners(world)[owners]
    hit_geoms, dists = np.full(len(directions), -1, dtype=np.int32), np.full(len(directions), -1.0)
    for which, groups in ((~tool_point & ~agent_point, RAY_GROUPS_SEE_PAST), (tool_point & ~agent_point, RAY_GROUPS),
                          (agent_point, AGENT_RAY_GROUPS)):
        if which.any():
            hit_geoms[which], dists[which] = world.rays(cam, directions[which], reach, groups)
    return hit_geoms, dists


def _grid_owners(world: World) -> np.ndarray:
    """Per owner (index in world.objects, one more entry, False, for no owner), whether the image grid sees it
    (_seen_by_grid); cached for the world's objects."""
    return _cached_on(world, "_grid_owners", (world.objects,),
                      lambda: np.array([_seen_by_grid(obj) for obj in world.objects] + [False]))


def _note_nearest(seen: dict[str, float], objects: list[SimObject], owners: np.ndarray, dists: np.ndarray) -> None:
    """Keep in `seen` each object's nearest distance among these hits (owners: indices in `objects`)."""
    if owners.size == 0:
        return
    nearest = np.full(len(objects), math.inf)
    np.minimum.at(nearest, owners, dists)
    nearest_l = nearest.tolist()
    for owner in np.flatnonzero(nearest < math.inf).tolist():
        object_id, dist = objects[owner].id, nearest_l[owner]
        if dist < seen.get(object_id, math.inf):
            seen[object_id] = dist


def visible_objects(world: World, performer: Performer, width: int, height: int) -> dict[str, float]:
    """Objects in view of the camera (not occluded), with the distance to their nearest seen point.

    MCS's rule: an object is seen when a ray from the camera toward one of its visibility points inside the
    image hits the object first. The floor, structures and doors are also seen where one of a coarse grid of image
    rays hits them first (_seen_by_grid). The floor is included (it can be targeted); callers list it or not.
    """
    cam = performer.camera_mj()
    basis = camera_basis(*performer.camera_axes())
    seen: dict[str, float] = {}
    objects = world.objects
    hit_geoms, dists = world.rays(cam, _grid_camera_directions(width, height) @ basis, MAX_VISIBLE_DISTANCE)
    owners_hit = np.where(hit_geoms >= 0, world.geom_owner[np.maximum(hit_geoms, 0)], -1)
    keep = _grid_owners(world)[owners_hit]
    _note_nearest(seen, objects, owners_hit[keep], dists[keep])
    points, owners, agent_mask = _visibility_points(world)
    if len(points) == 0:
        return seen
    px, py, depth = image_points(points, cam, basis, width, height)
    in_view = (depth > 0.01) & (px >= 0) & (px < width) & (py >= 0) & (py < height)
    in_range = in_sight_range(world, performer)
    if in_range is not None:
        in_view &= in_range[owners]
    if not in_view.any():
        return seen
    directions = points[in_view] - cam
    lengths = np.linalg.norm(directions, axis=1, keepdims=True)
    directions /= lengths
    # each point's ray reaches 0.5 m past it (BaseFPSAgentController.CheckIfVisibilityPointRaycast)
    hit_geoms, dists = _point_rays(world, cam, directions, owners[in_view], agent_mask[in_view],
                                   float(lengths.max()) + POINT_RAY_OVERSHOOT)
    hit_owner = np.where(hit_geoms >= 0, world.geom_owner[np.maximum(hit_geoms, 0)], -1)
    match = hit_owner == owners[in_view]
    _note_nearest(seen, objects, hit_owner[match], dists[match])
    return seen


def objects_metadata(
    world: World, performer: Performer, objects: list[SimObject], seen: dict[str, float],
    colors: list[tuple[int, int, int]], states: list[list[str]],
) -> list[ObjectMetadata]:
    """ObjectMetadata of several objects as the MCS library reports them (computed in one batch)."""
    if not objects:
        return []
    bodies = [o.body_id for o in objects]
    pos = world.data.xpos[bodies]  # (N, 3) MuJoCo frame
    mats = world.data.xmat[bodies].reshape(-1, 3, 3)
    half = np.array([o.size for o in objects]) / 2.0
    local = np.array([o.bounds_center for o in objects])[:, None, :] + BOX_CORNER_SIGNS[None] * half[:, None, :]
    corners = pos[:, None, :] + np.einsum("nij,nkj->nki", mats, local[:, :, [0, 2, 1]])
    camera = performer.camera_mj()
    delta = pos - camera
    distance = np.linalg.norm(delta, axis=1)
    direction = delta / np.where(distance > 1e-9, distance, 1.0)[:, None]
    distance_xz = np.linalg.norm(delta[:, :2], axis=1)
    euler = mj_matrices_to_unity_euler(mats)
    # Everything to plain Python floats in MCS axis order (x, y, z) = MuJoCo (x, z, y).
    pos_l, dir_l = pos[:, [0, 2, 1]].tolist(), direction[:, [0, 2, 1]].tolist()
    corners_l, euler_l = corners[:, :, [0, 2, 1]].tolist(), euler.tolist()
    dist_l, dist_xz_l = distance.tolist(), distance_xz.tolist()
    result = []
    for i, obj in enumerate(objects):
        x, y, z = pos_l[i]
        dx, dy, dz = dir_l[i]
        rx, ry, rz = euler_l[i]
        color = colors[i]
        result.append(ObjectMetadata(
            uuid=obj.id,
            color={"r": color[0], "g": color[1], "b": color[2]},
            dimensions=[{"x": c[0], "y": c[1], "z": c[2]} for c in corners_l[i]],
            direction={"x": dx, "y": dy, "z": dz},
            distance=dist_xz_l[i] / 0.1,
            distance_in_steps=dist_xz_l[i] / 0.1,
            distance_in_world=dist_l[i],
            held=obj.held,
            mass=obj.mass,
            material_list=list(obj.material_list),
            position={"x": x, "y": y, "z": z},
            rotation={"x": rx, "y": ry, "z": rz},
            shape=obj.shape,
            state_list=states[i],
            texture_color_list=list(obj.texture_color_list),
            # MCS reports every structure as visible, and a shrouded object (renderer off) as not visible.
            visible=(obj.id in seen or obj.held or obj.structural) and not obj.shrouded,
            is_open=obj.is_open,
            openable=obj.openable,
            locked=obj.locked,
            associated_with_agent=obj.associated_with_agent,
        ))
    return result
