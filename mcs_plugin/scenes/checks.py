"""Checks every generated scene passes before it is written; each failure has a short reason for the summary.

`scene_failures(scene)` works on any scene dict (also scenes read back from files):

- ``schema_invalid``: `parse_scene` rejects it;
- ``outside_room``: an object footprint crosses a room wall;
- ``overlap``: two objects present at step 0 overlap (oriented footprints that overlap *and* height ranges that
  overlap; an object inside a receptacle's footprint and height range counts as contained, not overlapping);
- ``start_blocked``: the performer's disc (radius 0.25 m) at its start hits a wall or an object;
- ``unreachable``: no free lattice node within reach of a goal target (`reach_region`: pickup reach for
  things to pick up, 1 m to the top of a transferral receptacle, 0.9 m x-z for traversal) is reachable from the
  start.

`check_candidate` adds the measured checks that need the simulator (oracle metadata, no rendering):
``simulator_error`` (start_scene raised), ``not_visible_at_start`` / ``visible_at_start`` (the difficulty's
visibility requirement) and any snapshot expectation of the candidate (intuitive physics: ``event_visible``
when the object is not hidden at the moment of the implausible event, ``object_not_visible`` when it cannot be
seen in the open).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mcs_plugin.constants import PERFORMER_RADIUS, STANDING_CAMERA_HEIGHT
from mcs_plugin.mcs import SceneError, parse_scene
from mcs_plugin.scenes.candidate import Candidate
from mcs_plugin.scenes.navgrid import HalfPlane, NavGrid, horizontal_reach, pickup_radius
from mcs_plugin.scenes.placement import Footprint, footprint_of, top_height
from mcs_plugin.sim.catalog import get_object_type

TRAVERSAL_REACH = 0.9  # x-z metres to the target footprint (MCS traversal: within 1.0)
_TOL = 1e-3


@dataclass
class CheckResult:
    """Outcome of the checks: the first failure reason (None when the scene passed) and what was measured."""

    reason: str | None = None
    message: str = ""
    measured: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """True when every check passed."""
        return self.reason is None


def _y_range(obj: dict[str, Any]) -> tuple[float, float]:
    otype = get_object_type(obj["type"])
    show = obj["shows"][0]
    sy = float((show.get("scale") or {}).get("y", 1.0))
    bottom = float(show["position"].get("y", 0.0)) - otype.position_y_on_floor * sy
    return bottom, bottom + otype.size[1] * sy


def _contained(inner: tuple[dict, Footprint], outer: tuple[dict, Footprint]) -> bool:
    """Whether `inner` lies within a receptacle `outer` (footprint and height range)."""
    (a, fa), (b, fb) = inner, outer
    if not (b.get("receptacle") or get_object_type(b["type"]).receptacle):
        return False
    if fa.half_x * fa.half_z > 0.8 * fb.half_x * fb.half_z or np.any(fb.distance(fa.corners()) > _TOL):
        return False
    (a0, a1), (b0, b1) = _y_range(a), _y_range(b)
    return a0 >= b0 - _TOL and a1 <= b1 + _TOL and a1 - a0 < b1 - b0


def present_at_start(scene: dict[str, Any]) -> list[dict[str, Any]]:
    """Objects whose first show is at step 0 (IP objects that enter later are not in the room yet)."""
    return [o for o in scene.get("objects") or [] if (o.get("shows") or [{}])[0].get("stepBegin", 0) == 0]


def footprints(scene: dict[str, Any]) -> list[tuple[dict[str, Any], Footprint]]:
    """(object, footprint) of every object present at step 0 that has one."""
    out = []
    for obj in present_at_start(scene):
        fp = footprint_of(obj)
        if fp is not None:
            out.append((obj, fp))
    return out


def overlaps(scene: dict[str, Any]) -> list[tuple[str, str]]:
    """Pairs of object ids that overlap (3-D: footprints and heights), containment excepted."""
    items = footprints(scene)
    pairs = []
    for i, (a, fa) in enumerate(items):
        for b, fb in items[i + 1:]:
            if abs(fa.x - fb.x) > fa.radius + fb.radius or abs(fa.z - fb.z) > fa.radius + fb.radius:
                continue
            if not fa.overlaps(fb):
                continue
            (a0, a1), (b0, b1) = _y_range(a), _y_range(b)
            if a0 >= b1 - _TOL or b0 >= a1 - _TOL:
                continue
            if _contained((a, fa), (b, fb)) or _contained((b, fb), (a, fa)):
                continue
            pairs.append((a["id"], b["id"]))
    return pairs


def _room(scene: dict[str, Any]) -> tuple[float, float]:
    dims = scene.get("roomDimensions") or {}
    return float(dims.get("x") or 10.0), float(dims.get("z") or 10.0)


def goal_targets(scene: dict[str, Any]) -> list[str]:
    """Ids of the goal's target objects (target, target_1, target_2)."""
    metadata = (scene.get("goal") or {}).get("metadata") or {}
    return [metadata[k]["id"] for k in ("target", "target_1", "target_2")
            if isinstance(metadata.get(k), dict) and metadata[k].get("id")]


def nav_grid(scene: dict[str, Any]) -> NavGrid:
    """The navigation grid of a scene: every object present at step 0 (not inside another) is an obstacle."""
    items = footprints(scene)
    obstacles = [fp for obj, fp in items
                 if not any(other is not obj and _contained((obj, fp), (other, ofp)) for other, ofp in items)]
    start = (scene.get("performerStart") or {}).get("position") or {}
    return NavGrid(*_room(scene), (float(start.get("x", 0.0)), float(start.get("z", 0.0))), obstacles)


def reach_region(
    scene: dict[str, Any], target_id: str,
) -> tuple[Footprint, float] | tuple[Footprint, float, HalfPlane] | None:
    """Where the performer must stand to act on a goal target: (footprint, x-z distance[, front half-plane]), or
    None if unknown.

    - traversal target: within 0.9 m (x-z) of its footprint;
    - transferral target_2 (the receptacle): its top within 1 m of the camera (footprint + top height, as for a box);
    - anything to pick up (retrieval target, transferral target_1): its centre within 1 m of the camera less its
      inscribed radius (`pickup_radius`), i.e. surely within reach whatever its shape; inside a container, also
      close enough that its top shows over the container's rim (camera 0.762 m high, rim = container top), and
      not behind a lidded container's back edge, where its opened lid stands.
    """
    obj = next((o for o in scene.get("objects") or [] if o.get("id") == target_id), None)
    fp = footprint_of(obj) if obj else None
    if fp is None:
        return None
    goal = scene.get("goal") or {}
    metadata = goal.get("metadata") or {}
    if goal.get("category") == "traversal":
        return fp, TRAVERSAL_REACH
    if isinstance(metadata.get("target_2"), dict) and metadata["target_2"].get("id") == target_id:
        return fp, horizontal_reach(top_height(obj))
    bottom, top = _y_range(obj)
    inscribed = min(fp.half_x, fp.half_z, (top - bottom) / 2)
    radius = pickup_radius((top + bottom) / 2, inscribed)
    region = Footprint(fp.x, fp.z, 0.0, 0.0, 0.0, target_id)
    holder = _holder(scene, obj, fp)
    if holder is not None:  # inside an (opened) container: the target's top must show over the rim
        container, cfp = holder
        rim = _y_range(container)[1]
        if rim > top:
            rim_distance = min(cfp.half_x, cfp.half_z) - max(abs(fp.x - cfp.x), abs(fp.z - cfp.z))
            radius = min(radius, 0.9 * max(0.0, rim_distance) * (STANDING_CAMERA_HEIGHT - top) / (rim - top))
        front = _front_of_lid_hinge(container, cfp)
        if front is not None:
            return region, radius, front
    return region, radius


def _front_of_lid_hinge(container: dict[str, Any], cfp: Footprint) -> HalfPlane | None:
    """The floor on the opening's side of a lidded container's hinge line (its opened lid stands over the line),
    from the catalog lid's hinge; None for a container without a lid."""
    otype = get_object_type(container["type"])
    lid = next((p for p in otype.parts_with_role("lid") if p.hinge is not None and p.hinge_axis is not None), None)
    if lid is None:
        return None
    ax, az = cfp.axes
    # The hinge point and the inward normal (across the hinge axis, toward the box's middle) on the scaled footprint.
    hinge = np.array([cfp.x, cfp.z]) + (lid.hinge[0] / (otype.size[0] / 2) * cfp.half_x * ax
                                         + lid.hinge[2] / (otype.size[2] / 2) * cfp.half_z * az)
    across = -lid.hinge_axis[2] * ax + lid.hinge_axis[0] * az
    inward = across if float(across @ (np.array([cfp.x, cfp.z]) - hinge)) > 0 else -across
    inward = inward / float(np.linalg.norm(inward))
    return float(inward[0]), float(inward[1]), float(inward @ hinge)


def _holder(scene: dict[str, Any], obj: dict[str, Any], fp: Footprint) -> tuple[dict[str, Any], Footprint] | None:
    """The receptacle an object lies inside, if any."""
    for other, ofp in footprints(scene):
        if other is not obj and _contained((obj, fp), (other, ofp)):
            return other, ofp
    return None


def reach_path_lengths(scene: dict[str, Any], grid: NavGrid | None = None) -> dict[str, float | None]:
    """Per goal target: the shortest lattice path (m) from the start to a node within reach, None if unreachable."""
    grid = grid or nav_grid(scene)
    out: dict[str, float | None] = {}
    for target_id in goal_targets(scene):
        region = reach_region(scene, target_id)
        out[target_id] = None if region is None else grid.path_length(*region)
    return out


def scene_failures(scene: dict[str, Any]) -> CheckResult:
    """Static checks of a scene dict (no simulator): schema, room, overlap, start, reachability."""
    result = CheckResult()
    try:
        parsed = parse_scene(scene, str(scene.get("name", "<generated>")))
    except SceneError as error:
        return CheckResult("schema_invalid", "; ".join(error.problems[:3]))
    room_x, room_z = _room(scene)
    items = footprints(scene)
    passive = parsed.has_fixed_camera()  # a fixed camera: no performer to place or to reach anything
    if not passive:
        for obj, fp in items:
            if not fp.inside_room(room_x, room_z):
                return CheckResult("outside_room", obj["id"])
    pairs = overlaps(scene)
    if pairs:
        return CheckResult("overlap", f"{pairs[0][0]} overlaps {pairs[0][1]}")
    if passive:
        return result
    start = (scene.get("performerStart") or {}).get("position") or {}
    point = np.array([float(start.get("x", 0.0)), float(start.get("z", 0.0))])
    if np.any(np.abs(point) > np.array([room_x, room_z]) / 2 - PERFORMER_RADIUS):
        return CheckResult("start_blocked", "performer start too close to a room wall")
    for obj, fp in items:
        if float(fp.distance(point)) < PERFORMER_RADIUS:
            return CheckResult("start_blocked", f"performer start overlaps {obj['id']}")
    category = (scene.get("goal") or {}).get("category")
    if category in ("retrieval", "traversal", "transferral", "multi retrieval"):
        grid = nav_grid(scene)
        paths = reach_path_lengths(scene, grid)
        for target_id, length in paths.items():
            if length is None:
                return CheckResult("unreachable", f"no reachable node within reach of {target_id}")
        result.measured["path_length"] = {k: round(v, 2) for k, v in paths.items()}
    return result


_controller = None


def _sim():
    global _controller
    if _controller is None:
        from mcs_plugin.sim.controller import EmbeddedController

        _controller = EmbeddedController({"metadata": "oracle", "render": False})
    return _controller


def visible_at_start(scene: dict[str, Any]) -> dict[str, bool]:
    """Visibility of every object in the simulator's first output (oracle metadata, no rendering)."""
    output = _sim().start_scene(scene)
    return {o.uuid: bool(o.visible) for o in output.object_list}


def check_candidate(candidate: Candidate) -> CheckResult:
    """All checks of a generated candidate: the static ones, then the measured ones in the simulator."""
    result = scene_failures(candidate.scene)
    if not result.ok:
        return result
    try:
        seen = visible_at_start(candidate.scene)
    except Exception as error:  # noqa: BLE001 - any simulator failure rejects the scene
        return CheckResult("simulator_error", f"{type(error).__name__}: {error}")
    if candidate.visible_target is not None:
        visible = seen.get(candidate.visible_target, False)
        result.measured["visible_at_start"] = visible
        if candidate.require_visible is True and not visible:
            return CheckResult("not_visible_at_start", candidate.visible_target, result.measured)
        if candidate.require_visible is False and visible:
            return CheckResult("visible_at_start", candidate.visible_target, result.measured)
    for snapshot in candidate.snapshots:
        try:
            visible = visible_at_start(snapshot.scene).get(snapshot.object_id, False)
        except Exception as error:  # noqa: BLE001
            return CheckResult("simulator_error", f"{type(error).__name__}: {error}")
        if visible != snapshot.visible:
            return CheckResult(snapshot.reason, snapshot.object_id, result.measured)
    return result
