"""What the performer perceives: object visibility, ObjectMetadata, instance colours and metadata tiers."""

from __future__ import annotations

import math
import zlib

import numpy as np

from mcs_plugin.mcs import ObjectMetadata
from mcs_plugin.sim.camera import project
from mcs_plugin.sim.coords import mj_matrix_to_unity_euler, mj_to_mcs
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
    """Visibility sample points in a geom's local box (-1..1): centre, face points and inner corners."""
    axes = np.array([[sx, 0, 0] for sx in (-0.6, 0.6)] + [[0, sy, 0] for sy in (-0.6, 0.6)] + [[0, 0, sz] for sz in (-0.6, 0.6)])
    corners = np.array([[sx, sy, sz] for sx in (-0.4, 0.4) for sy in (-0.4, 0.4) for sz in (-0.4, 0.4)])
    return np.concatenate([np.zeros((1, 3)), axes, corners])


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


def object_metadata(
    world: World, performer: Performer, obj: SimObject, visible: bool, color: tuple[int, int, int], state_list: list[str]
) -> ObjectMetadata:
    """ObjectMetadata of one object as the MCS library reports it."""
    pos_mj = world.body_pos(obj)
    position = mj_to_mcs(pos_mj)
    camera = mj_to_mcs(performer.camera_mj())
    delta = {k: position[k] - camera[k] for k in "xyz"}
    distance = math.sqrt(sum(v * v for v in delta.values()))
    direction = {k: (v / distance if distance > 1e-9 else 0.0) for k, v in delta.items()}
    distance_xz = math.hypot(delta["x"], delta["z"])
    rx, ry, rz = mj_matrix_to_unity_euler(world.body_mat(obj))
    rgb = {"r": color[0], "g": color[1], "b": color[2]}
    return ObjectMetadata(
        uuid=obj.id,
        color=rgb,
        dimensions=[mj_to_mcs(c) for c in world.world_bounds(obj)],
        direction=direction,
        distance=distance_xz / 0.1,
        distance_in_steps=distance_xz / 0.1,
        distance_in_world=distance,
        held=obj.held,
        mass=obj.mass,
        material_list=list(obj.material_list),
        position=position,
        rotation={"x": rx, "y": ry, "z": rz},
        shape=obj.shape,
        state_list=list(state_list),
        texture_color_list=list(obj.texture_color_list),
        visible=visible or obj.held,
        is_open=obj.is_open,
        openable=obj.openable,
        locked=obj.locked,
        associated_with_agent=obj.associated_with_agent,
    )
