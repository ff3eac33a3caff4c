"""What the performer perceives: object visibility, ObjectMetadata, instance colours and metadata tiers."""

from __future__ import annotations

import math
import zlib

import numpy as np

from mcs_plugin.mcs import ObjectMetadata
from mcs_plugin.sim.camera import project
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
    """Visibility sample points in a geom's local box (-1..1): its centre and a point toward each face."""
    axes = np.array([[sx, 0, 0] for sx in (-0.6, 0.6)] + [[0, sy, 0] for sy in (-0.6, 0.6)] + [[0, 0, sz] for sz in (-0.6, 0.6)])
    return np.concatenate([np.zeros((1, 3)), axes])


_OFFSETS = _sample_offsets()


def visible_objects(world: World, performer: Performer, width: int, height: int) -> dict[str, float]:
    """Objects in view of the camera (not occluded), with the distance to their nearest seen point."""
    model, data = world.model, world.data
    cam = performer.camera_mj()
    forward, up = performer.camera_axes()
    geoms = np.array([g for o in world.objects if o.present and not o.is_floor for g in o.geom_ids
                      if model.geom_group[g] < 4], dtype=np.int64)
    if geoms.size == 0:
        return {}
    centre, half = model.geom_aabb[geoms, :3], model.geom_aabb[geoms, 3:]
    local = centre[:, None, :] + half[:, None, :] * _OFFSETS[None, :, :]  # (G, S, 3) geom frame
    rot = data.geom_xmat[geoms].reshape(-1, 3, 3)
    points = data.geom_xpos[geoms][:, None, :] + np.einsum("gij,gsj->gsi", rot, local)
    owners = np.repeat(world.geom_owner[geoms], len(_OFFSETS))
    points = points.reshape(-1, 3)
    pixels, depth = project(points, cam, forward, up, width, height, CAMERA_FIELD_OF_VIEW)
    in_view = (depth > 0.01) & (pixels[:, 0] >= 0) & (pixels[:, 0] < width) & (pixels[:, 1] >= 0) & (pixels[:, 1] < height)
    if not in_view.any():
        return {}
    directions = points[in_view] - cam
    directions /= np.linalg.norm(directions, axis=1, keepdims=True)
    hit_geoms, dists = world.rays(cam, directions, MAX_VISIBLE_DISTANCE)
    hit_owner = np.where(hit_geoms >= 0, world.geom_owner[np.maximum(hit_geoms, 0)], -1)
    seen: dict[str, float] = {}
    for owner, hit, dist in zip(owners[in_view], hit_owner, dists):
        if hit == owner:
            object_id = world.objects[owner].id
            seen[object_id] = min(seen.get(object_id, math.inf), float(dist))
    return seen


_CORNER_SIGNS = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)], dtype=float)


def _unity_euler_batch(mats_mj: np.ndarray) -> np.ndarray:
    """Unity Euler angles (N, 3), degrees in [0, 360), of MuJoCo rotation matrices (N, 3, 3)."""
    r = mats_mj[:, [0, 2, 1], :][:, :, [0, 2, 1]]  # back to the MCS frame
    sx = np.clip(-r[:, 1, 2], -1.0, 1.0)
    ax = np.arcsin(sx)
    regular = np.abs(sx) < 0.999999
    ay = np.where(regular, np.arctan2(r[:, 0, 2], r[:, 2, 2]), np.arctan2(-r[:, 2, 0], r[:, 0, 0]))
    az = np.where(regular, np.arctan2(r[:, 1, 0], r[:, 1, 1]), 0.0)
    return np.degrees(np.stack([ax, ay, az], axis=1)) % 360.0


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
    euler = _unity_euler_batch(mats)
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
            visible=obj.id in seen or obj.held,
            is_open=obj.is_open,
            openable=obj.openable,
            locked=obj.locked,
            associated_with_agent=obj.associated_with_agent,
        ))
    return result
