"""What the performer perceives: object visibility, ObjectMetadata, instance colours and metadata tiers."""

from __future__ import annotations

import functools
import math
import zlib

import mujoco
import numpy as np

from mcs_plugin.mcs import ObjectMetadata
from mcs_plugin.sim.camera import focal_length
from mcs_plugin.sim.coords import mj_matrices_to_unity_euler
from mcs_plugin.sim.performer import CAMERA_FIELD_OF_VIEW, Performer
from mcs_plugin.sim.world import SimObject, World

# Tiers and what each keeps (SPEC 5.2). "default" = the 0.7.4 tier when no metadata key is set.
ORACLE, LEVEL2, LEVEL1, NONE, DEFAULT = "oracle", "level2", "level1", "none", "default"
TIERS_WITH_WORLD_STATE = (ORACLE, DEFAULT)
MAX_VISIBLE_DISTANCE = 14.15  # MCS MAX_DISTANCE_ACROSS_ROOM: rays and visibility stop here


def stable_color(object_id: str, taken: set[tuple[int, int, int]]) -> tuple[int, int, int]:
    """A deterministic instance colour for an object id, distinct from those already taken."""
    seed = zlib.crc32(object_id.encode("utf-8"))
    while True:
        rgb = ((seed & 0xFF), (seed >> 8) & 0xFF, (seed >> 16) & 0xFF)
        if rgb not in taken and rgb != (0, 0, 0):
            taken.add(rgb)
            return rgb
        seed = zlib.crc32(seed.to_bytes(4, "little"))


def _sample_offsets() -> np.ndarray:
    """Visibility sample points in a geom's local box (-1..1), like the visibility points MCS objects carry on
    their surface: the centre, near each face centre and near each corner."""
    near = 0.9
    face_points = []
    for axis in range(3):
        for sign in (-near, near):
            point = [0.0, 0.0, 0.0]
            point[axis] = sign
            face_points.append(point)
    corners = [[sx, sy, sz] for sx in (-near, near) for sy in (-near, near) for sz in (-near, near)]
    return np.array([[0.0, 0.0, 0.0]] + face_points + corners)


_OFFSETS = _sample_offsets()
_ROUND = np.array([mujoco.mjtGeom.mjGEOM_SPHERE, mujoco.mjtGeom.mjGEOM_ELLIPSOID])
_ROUND_SIDES = np.array([mujoco.mjtGeom.mjGEOM_CYLINDER, mujoco.mjtGeom.mjGEOM_CAPSULE])


def _geom_samples(model, geoms: np.ndarray) -> np.ndarray:
    """(G, S, 3) sample offsets in each geom's local frame, on (or just inside) its surface."""
    offsets = np.broadcast_to(_OFFSETS, (len(geoms), len(_OFFSETS), 3)).copy()
    types = model.geom_type[geoms]
    round_ = np.isin(types, _ROUND)
    if round_.any():  # spheres and ellipsoids: points on the surface, not the box corners
        o = offsets[round_]
        norm = np.linalg.norm(o, axis=2, keepdims=True)
        offsets[round_] = np.where(norm > 1e-9, o / np.maximum(norm, 1e-9) * 0.9, o)
    sides = np.isin(types, _ROUND_SIDES)
    if sides.any():  # cylinders (axis z): corners pulled onto the round side
        o = offsets[sides]
        radial = np.linalg.norm(o[:, :, :2], axis=2, keepdims=True)
        scale = np.where(radial > 0.9, 0.9 / np.maximum(radial, 1e-9), 1.0)
        o[:, :, :2] *= scale
        offsets[sides] = o
    return offsets


_GRID = 12  # a coarse grid of image rays finds large objects (floor, walls, furniture) whose samples lie off screen


@functools.lru_cache(maxsize=16)
def _grid_camera_directions(width: int, height: int) -> np.ndarray:
    """(_GRID^2, 3) unit directions through a lattice of image points, in camera axes (right, up, forward)."""
    f = focal_length(height, CAMERA_FIELD_OF_VIEW)
    u = (np.arange(_GRID) + 0.5) / _GRID * width - width / 2.0
    v = (np.arange(_GRID) + 0.5) / _GRID * height - height / 2.0
    uu, vv = np.meshgrid(u, v)
    dirs = np.stack([uu.ravel(), -vv.ravel(), np.full(uu.size, f)], axis=1)
    return dirs / np.linalg.norm(dirs, axis=1, keepdims=True)


def _sample_points_local(world: World) -> np.ndarray:
    """(ngeom, S, 3) visibility sample points of every geom in its own frame (cached on the world)."""
    cached = getattr(world, "_visibility_samples", None)
    if cached is None:
        model = world.model
        geoms = np.arange(model.ngeom)
        centre, half = model.geom_aabb[:, :3], model.geom_aabb[:, 3:]
        cached = centre[:, None, :] + half[:, None, :] * _geom_samples(model, geoms)
        world._visibility_samples = cached
    return cached


def visible_objects(world: World, performer: Performer, width: int, height: int) -> dict[str, float]:
    """Objects in view of the camera (not occluded), with the distance to their nearest seen point.

    An object is seen when an unobstructed ray from the camera reaches one of its sample points (centre, near its
    face centres and corners, like the visibility points of MCS objects) inside the image, or when one of a coarse
    grid of image rays hits it first. The floor is included (it can be targeted); callers list it or not.
    """
    data = world.data
    cam = performer.camera_mj()
    forward, up = performer.camera_axes()
    right = np.array([forward[1] * up[2] - forward[2] * up[1], forward[2] * up[0] - forward[0] * up[2],
                      forward[0] * up[1] - forward[1] * up[0]])
    basis = np.stack([right, up, forward])  # camera axes as rows
    seen: dict[str, float] = {}
    objects = world.objects
    hit_geoms, dists = world.rays(cam, _grid_camera_directions(width, height) @ basis, MAX_VISIBLE_DISTANCE)
    owners_hit = world.geom_owner[np.maximum(hit_geoms, 0)]
    for owner, geom, dist in zip(owners_hit.tolist(), hit_geoms.tolist(), dists.tolist()):
        if geom >= 0 and owner >= 0:
            object_id = objects[owner].id
            if dist < seen.get(object_id, math.inf):
                seen[object_id] = dist
    candidates = world.visibility_geoms()
    if candidates.size == 0:
        return seen
    local = _sample_points_local(world)[candidates]
    rot = data.geom_xmat[candidates].reshape(-1, 3, 3)
    points = (data.geom_xpos[candidates][:, None, :] + np.einsum("gij,gsj->gsi", rot, local)).reshape(-1, 3)
    owners = np.repeat(world.geom_owner[candidates], local.shape[1])
    rel = (points - cam) @ basis.T  # camera coordinates: right, up, forward
    f = focal_length(height, CAMERA_FIELD_OF_VIEW)
    depth = rel[:, 2]
    safe = np.where(depth > 1e-9, depth, 1e-9)
    px = width / 2.0 + f * rel[:, 0] / safe
    py = height / 2.0 - f * rel[:, 1] / safe
    in_view = (depth > 0.01) & (px >= 0) & (px < width) & (py >= 0) & (py < height)
    if not in_view.any():
        return seen
    directions = points[in_view] - cam
    directions /= np.linalg.norm(directions, axis=1, keepdims=True)
    hit_geoms, dists = world.rays(cam, directions, MAX_VISIBLE_DISTANCE)
    hit_owner = np.where(hit_geoms >= 0, world.geom_owner[np.maximum(hit_geoms, 0)], -1)
    match = hit_owner == owners[in_view]
    for owner, dist in zip(hit_owner[match].tolist(), dists[match].tolist()):
        object_id = objects[owner].id
        if dist < seen.get(object_id, math.inf):
            seen[object_id] = dist
    return seen


_CORNER_SIGNS = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)], dtype=float)


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
    local = np.array([o.bounds_center for o in objects])[:, None, :] + _CORNER_SIGNS[None] * half[:, None, :]
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
