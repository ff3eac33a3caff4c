"""Triangle meshes the renderer draws: unit primitives (box, sphere, capsule, cylinder, plane) and MuJoCo mesh assets.

Each builder returns (vertices (n, 7) float32 = position, normal, capsule-cap flag; indices (m,) uint32), faces
counter-clockwise seen from outside. Curved primitives carry the true surface normal at every vertex (smooth
shading); mesh assets (up to 2,000 faces) are smoothed across edges flatter than `CREASE_DEGREES` and stay
faceted across sharper ones (a cone's side is smooth, its rim and a box's edges are not).
"""

from __future__ import annotations

import functools
import math

import mujoco
import numpy as np

from mcs_plugin.sim.geom_types import GEOM_BOX, GEOM_CAPSULE, GEOM_CYLINDER, GEOM_ELLIPSOID, GEOM_PLANE, GEOM_SPHERE

__all__ = ["CREASE_DEGREES", "UNIT_MESHES", "asset_mesh"]

CREASE_DEGREES = 40.0
_MAX_SMOOTHED_FACES = 2000  # smoothing compares every pair of faces: larger meshes keep flat face normals


def _box_mesh(segments=0, rings=0):
    """Cube [-1, 1]^3 with one flat normal per face (24 vertices, 12 triangles)."""
    verts, idx = [], []
    for axis in range(3):
        for sign in (1.0, -1.0):
            n = np.zeros(3)
            n[axis] = sign
            u = np.zeros(3)
            u[(axis + 1) % 3] = 1.0
            v = np.cross(n, u)  # u x v = n
            base = len(verts)
            for a, b in ((-1, -1), (1, -1), (1, 1), (-1, 1)):
                verts.append([*(n + a * u + b * v), *n, 0.0])
            idx += [base, base + 1, base + 2, base, base + 2, base + 3]
    return np.asarray(verts, np.float32), np.asarray(idx, np.uint32)


def _rows_mesh(rows, segments):
    """Surface of revolution about z from rows of (theta, cap flag); theta 0 at +z."""
    phi = np.linspace(0.0, 2.0 * np.pi, segments + 1)
    phi[-1] = 0.0  # close the seam exactly
    verts = []
    for theta, cap in rows:
        st, ct = math.sin(theta), math.cos(theta)
        for p in phi:
            n = (st * math.cos(p), st * math.sin(p), ct)
            verts.append([*n, *n, cap])
    idx = []
    ncol = segments + 1
    for i in range(len(rows) - 1):
        top_pole = rows[i][0] == 0.0
        bottom_pole = rows[i + 1][0] == math.pi
        for j in range(segments):
            a, b = i * ncol + j, (i + 1) * ncol + j
            c, d = b + 1, a + 1
            if not bottom_pole:
                idx += [a, b, c]
            if not top_pole:
                idx += [a, c, d]
    return np.asarray(verts, np.float32), np.asarray(idx, np.uint32)


def _sphere_mesh(segments, rings):
    """Unit UV sphere."""
    return _rows_mesh([(math.pi * i / rings, 0.0) for i in range(rings + 1)], segments)


def _capsule_mesh(segments, rings):
    """Unit-radius capsule: hemispheres shifted by +-half-length (cap flag) joined by a tube."""
    half = rings // 2
    rows = [(math.pi * i / rings, 1.0) for i in range(half + 1)]
    rows += [(math.pi * i / rings, -1.0) for i in range(half, rings + 1)]
    return _rows_mesh(rows, segments)


def _cylinder_mesh(segments, rings):
    """Cylinder of radius 1 from z = -1 to 1, with flat caps."""
    phi = 2.0 * np.pi * np.arange(segments) / segments
    c, s = np.cos(phi), np.sin(phi)
    verts, idx = [], []
    for z in (1.0, -1.0):  # side: top ring then bottom ring
        for k in range(segments):
            verts.append([c[k], s[k], z, c[k], s[k], 0.0, 0.0])
    for k in range(segments):
        a, d = k, (k + 1) % segments
        b, cc = a + segments, d + segments
        idx += [a, b, cc, a, cc, d]
    for z in (1.0, -1.0):
        centre = len(verts)
        verts.append([0.0, 0.0, z, 0.0, 0.0, z, 0.0])
        for k in range(segments):
            verts.append([c[k], s[k], z, 0.0, 0.0, z, 0.0])
        for k in range(segments):
            p, q = centre + 1 + k, centre + 1 + (k + 1) % segments
            idx += [centre, p, q] if z > 0 else [centre, q, p]
    return np.asarray(verts, np.float32), np.asarray(idx, np.uint32)


def _plane_mesh(segments=0, rings=0):
    """Quad [-1, 1]^2 at z = 0, normal +z."""
    verts = [[x, y, 0.0, 0.0, 0.0, 1.0, 0.0] for x, y in ((-1, -1), (1, -1), (1, 1), (-1, 1))]
    return np.asarray(verts, np.float32), np.asarray([0, 1, 2, 0, 2, 3], np.uint32)


def _cached(builder):
    """A builder whose meshes are made once per tessellation (every scene start asks again) and read-only."""
    @functools.lru_cache(maxsize=32)
    @functools.wraps(builder)
    def build(segments=0, rings=0):
        verts, idx = builder(segments, rings)
        verts.setflags(write=False)
        idx.setflags(write=False)
        return verts, idx
    return build


UNIT_MESHES = {
    GEOM_PLANE: _cached(_plane_mesh),
    GEOM_SPHERE: _cached(_sphere_mesh),
    GEOM_ELLIPSOID: _cached(_sphere_mesh),
    GEOM_CAPSULE: _cached(_capsule_mesh),
    GEOM_CYLINDER: _cached(_cylinder_mesh),
    GEOM_BOX: _cached(_box_mesh),
}


def asset_mesh(model: mujoco.MjModel, mesh_id: int) -> tuple[np.ndarray, np.ndarray]:
    """Vertices of MuJoCo mesh asset mesh_id (mesh frame), one per face corner, with crease-smoothed normals."""
    va, vn = int(model.mesh_vertadr[mesh_id]), int(model.mesh_vertnum[mesh_id])
    fa, fn = int(model.mesh_faceadr[mesh_id]), int(model.mesh_facenum[mesh_id])
    v = np.asarray(model.mesh_vert[va : va + vn], np.float64)
    f = np.asarray(model.mesh_face[fa : fa + fn], np.int64)
    tri = v[f]  # (fn, 3, 3)
    out = np.zeros((fn, 3, 7), np.float32)
    out[:, :, 0:3] = tri
    out[:, :, 3:6] = _crease_normals(v, f, tri) if fn <= _MAX_SMOOTHED_FACES else _face_normals(tri)[:, None, :]
    return out.reshape(-1, 7), np.arange(3 * fn, dtype=np.uint32)


def _face_normals(tri: np.ndarray) -> np.ndarray:
    """(fn, 3) unit normals of triangles (fn, 3, 3); zero for degenerate ones."""
    n = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
    norm = np.linalg.norm(n, axis=1, keepdims=True)
    return np.where(norm > 0, n / np.where(norm > 0, norm, 1.0), 0.0)


def _crease_normals(v: np.ndarray, f: np.ndarray, tri: np.ndarray) -> np.ndarray:
    """(fn, 3, 3) corner normals: the mean of the normals of the faces that share the corner's point and lie
    within CREASE_DEGREES of the corner's own face, weighted by their angle at that point (so how a flat
    region is split into triangles does not tilt it); a face's own normal alone across sharper edges."""
    unit = _face_normals(tri)
    # Each face's angle at each of its corners.
    angle = np.empty((len(f), 3))
    for k in range(3):
        a, b = tri[:, (k + 1) % 3] - tri[:, k], tri[:, (k + 2) % 3] - tri[:, k]
        cos = np.einsum("ij,ij->i", a, b) / np.maximum(np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1), 1e-30)
        angle[:, k] = np.arccos(np.clip(cos, -1.0, 1.0))
    # Points, welded by position (MuJoCo may store one point several times); weight[point, face] = angle there.
    _, point = np.unique(np.round(v, 7), axis=0, return_inverse=True)
    corner_point = point.reshape(-1)[f]  # (fn, 3)
    weight = np.zeros((int(corner_point.max()) + 1 if len(f) else 0, len(f)))
    weight[corner_point, np.arange(len(f))[:, None]] = angle
    near = unit @ unit.T >= math.cos(math.radians(CREASE_DEGREES))  # (fn, fn): faces smoothed together
    out = np.empty(tri.shape)
    for k in range(3):
        summed = (weight[corner_point[:, k]] * near) @ unit  # faces around each face's corner k
        length = np.linalg.norm(summed, axis=1, keepdims=True)
        out[:, k] = np.where(length > 0, summed / np.where(length > 0, length, 1.0), unit)
    return out
