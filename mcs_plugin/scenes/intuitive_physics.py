"""Intuitive-physics (passive, violation-of-expectation) scene pairs: the same setup once plausible, once not.

Stage (MCS passive physics conventions): `intuitivePhysics: true`, the camera fixed at (0, 1.5, -4.5) looking
along +z, occluders made of a wall (`occluder_wall_<u>`, a cube 0.1 m thick standing at z = 1) and a pole on top
(`occluder_pole_<u>`, a cylinder), both kinematic structures. The occluders rise 1 m and come back down in
steps 1-10 (`moves`) to show that nothing hides behind them; then, from step 12, one object (a primitive, kinematic)
enters from off screen and slides across the stage behind the occluders at constant speed (`moves`, global
space) until it leaves the view on the other side. Every step's action is Pass.

Scenarios (implausible variant in brackets):

- object_permanence: the object passes behind the occluder and re-emerges [it vanishes (`hides`) while hidden].
- shape_constancy: while hidden, the object is swapped for an identical one (`hides` + a second object `shows`
  at that step) [for one of a different shape].
- spatio_temporal_continuity: two occluders with a visible gap; while hidden behind the first, the object is
  re-placed (`teleports`) where it is anyway [behind the second occluder, so it never crosses the gap].

The moment of every scripted event is computed so that the object is fully hidden; this is then *measured* in
the simulator on static snapshots of that moment (object there, occluders down): the object must not be visible
(else ``event_visible``), and it must be visible in the open (else ``object_not_visible``).
"""

from __future__ import annotations

import copy
import math
import random
from typing import Any

from mcs_plugin.constants import CAMERA_HALF_HORIZONTAL_FOV
from mcs_plugin.scenes import objects as V
from mcs_plugin.scenes.candidate import Candidate, Snapshot
from mcs_plugin.sim.catalog import get_object_type

SCENARIOS = ("object_permanence", "shape_constancy", "spatio_temporal_continuity")
CAMERA = (0.0, 1.5, -4.5)
OCCLUDER_Z = 1.0
HALF_HFOV = math.radians(CAMERA_HALF_HORIZONTAL_FOV)
ENTER_STEP = 12

_LEVELS = {  # object size range (m), speed (m/step), lane depth range (z)
    "easy": ((0.4, 0.5), 0.05, (1.6, 2.0)),
    "medium": ((0.3, 0.42), 0.07, (1.6, 2.4)),
    "hard": ((0.2, 0.32), 0.1, (1.8, 2.8)),
}


def _r(value: float, digits: int = 4) -> float:
    return round(float(value), digits)


def _occluder(rng: random.Random, x: float, width: float, height: float) -> list[dict[str, Any]]:
    """An occluder wall + pole pair at x (width and height in metres) with the rise-and-fall prelude."""
    u = V.uuid_from(rng)
    prelude = [{"stepBegin": 1, "stepEnd": 4, "vector": {"x": 0, "y": 0.25, "z": 0}},
               {"stepBegin": 7, "stepEnd": 10, "vector": {"x": 0, "y": -0.25, "z": 0}}]
    wall_look = V.Look(rng.choice(V.material_list("WALL_MATERIALS")), "", ())
    wall = V.make_object(f"occluder_wall_{u}", "cube", {"x": x, "y": height / 2, "z": OCCLUDER_Z}, 0.0, wall_look,
                         {"x": _r(width), "y": _r(height), "z": 0.1}, mass=100.0, kinematic=True, structure=True)
    pole_len = max(0.5, 3.0 - height)
    pole_look = V.Look(rng.choice(V.material_list("METAL_MATERIALS")), "metal", ())
    pole = V.make_object(f"occluder_pole_{u}", "cylinder", {"x": x, "y": height + pole_len / 2, "z": OCCLUDER_Z}, 0.0,
                         pole_look, {"x": 0.095, "y": _r(pole_len), "z": 0.095}, mass=100.0, kinematic=True,
                         structure=True)
    for obj in (wall, pole):
        obj["moves"] = copy.deepcopy(prelude)
        obj.pop("info", None)
    return [wall, pole]


def _moving(object_id: str, type_name: str, look: V.Look, scale: dict, x: float, y: float, z: float,
            step: int) -> dict[str, Any]:
    obj = V.make_object(object_id, type_name, {"x": x, "y": y, "z": z}, 0.0, look, scale, kinematic=True)
    obj["shows"][0]["stepBegin"] = step
    return obj


def _static_copy(scene: dict[str, Any], placements: dict[str, float], keep: set[str]) -> dict[str, Any]:
    """A snapshot scene: occluders at rest, the objects in `placements` shown at step 0 at those x positions."""
    snap = {k: v for k, v in scene.items() if k not in ("objects", "goal")}
    snap["name"] = scene["name"] + "-snapshot"
    objects = []
    for obj in scene["objects"]:
        if obj["id"].startswith("occluder_") or obj["id"] in keep:
            o = {k: v for k, v in obj.items() if k not in ("moves", "hides", "teleports")}
            o["shows"] = copy.deepcopy(obj["shows"][:1])
            o["shows"][0]["stepBegin"] = 0
            if obj["id"] in placements:
                o["shows"][0]["position"]["x"] = _r(placements[obj["id"]])
            objects.append(o)
    snap["objects"] = objects
    return snap


def build_pair(rng: random.Random, difficulty: str, name: str, scenario: str | None = None) -> list[Candidate]:
    """A plausible and an implausible candidate (in that order) of one scenario, sharing everything else."""
    size_range, speed, lane_range = _LEVELS[difficulty]
    scenario = scenario or rng.choice(SCENARIOS)
    type_name = rng.choice(V.IP_OBJECT_TYPES)
    otype = get_object_type(type_name)
    s = _r(rng.uniform(*size_range) / max(otype.size), 3)
    scale = V.uniform_scale(s)
    size = max(otype.size) * s
    look = V.choose_look(rng, type_name)
    z = _r(rng.uniform(*lane_range), 2)
    y = _r(otype.position_y_on_floor * s)
    top = otype.size[1] * s
    depth_obj, depth_occ = z - CAMERA[2], OCCLUDER_Z - CAMERA[2]
    p = depth_occ / depth_obj  # object plane -> occluder plane
    half_view = depth_obj * math.tan(HALF_HFOV)
    direction = rng.choice((-1, 1))
    v = speed * rng.choice((0.8, 1.0, 1.2))
    half_proj = (size / 2) * p + 0.05
    height = _r(max(0.8, CAMERA[1] + (top - CAMERA[1]) * p + 0.2), 2)

    def width() -> float:
        return _r(2 * (half_proj + 4 * v * p + 0.1) + rng.uniform(0.0, 0.4), 3)

    occluders: list[tuple[float, float]] = []  # (x centre in occluder plane, width), in the order passed
    if scenario == "spatio_temporal_continuity":
        gap, centre = rng.uniform(0.9, 1.4), rng.uniform(-0.3, 0.3)
        w1, w2 = width(), width()
        occluders = [(_r(centre - direction * (gap / 2 + w1 / 2), 3), w1),
                     (_r(centre + direction * (gap / 2 + w2 / 2), 3), w2)]
    else:
        occluders = [(_r(rng.uniform(-1.0, 1.0), 3), width())]

    x0 = _r(-direction * (half_view + size))
    x_end = direction * (half_view + size)
    t0 = ENTER_STEP
    t_end = t0 + math.ceil(abs(x_end - x0) / v)
    last_step = t_end + 10

    def x_at(k: int, start: float = x0, k0: int = t0) -> float:
        return start + direction * v * (k - k0)

    def step_at(x_obj: float) -> int:
        return t0 + round(abs(x_obj - x0) / v)

    centres = [xc / p for xc, _ in occluders]  # occluder centres projected onto the object's lane
    k_event = step_at(centres[0])
    first_out = centres[0] - direction * (occluders[0][1] / 2 / p + size + 0.3)  # in the open, before occluder 1
    oid = V.uuid_from(rng)
    base_objects: list[dict[str, Any]] = []
    for xc, w in occluders:
        base_objects += _occluder(rng, xc, w, height)
    candidates = []
    answer_of = {True: "plausible", False: "implausible"}
    swap_type = rng.choice([t for t in V.IP_OBJECT_TYPES if get_object_type(t).shape != otype.shape])
    second_id = V.uuid_from(rng)
    floor_material = rng.choice(V.material_list("FLOOR_MATERIALS"))
    wall_material = rng.choice(V.material_list("ROOM_WALL_MATERIALS"))
    for plausible in (True, False):
        mover = _moving(oid, type_name, look, scale, x0, y, z, t0)
        objects = copy.deepcopy(base_objects)
        snapshots_at: list[tuple[str, float, bool, str]] = [(oid, x_at(k_event), False, "event_visible"),
                                                             (oid, first_out, True, "object_not_visible")]
        if scenario == "object_permanence":
            mover["moves"] = [{"stepBegin": t0 + 1, "stepEnd": t_end, "vector": {"x": _r(direction * v), "y": 0, "z": 0},
                               "globalSpace": True}]
            if not plausible:
                mover["hides"] = [{"stepBegin": k_event}]
            objects.append(mover)
        elif scenario == "shape_constancy":
            mover["moves"] = [{"stepBegin": t0 + 1, "stepEnd": k_event, "vector": {"x": _r(direction * v), "y": 0, "z": 0},
                               "globalSpace": True}]
            mover["hides"] = [{"stepBegin": k_event}]
            other_type = type_name if plausible else swap_type
            other = get_object_type(other_type)
            swap = _moving(second_id, other_type, look, scale, _r(x_at(k_event)), _r(other.position_y_on_floor * s), z,
                           k_event)
            swap["moves"] = [{"stepBegin": k_event + 1, "stepEnd": t_end,
                              "vector": {"x": _r(direction * v), "y": 0, "z": 0}, "globalSpace": True}]
            objects += [mover, swap]
            snapshots_at.append((second_id, x_at(k_event), False, "event_visible"))
        else:
            target = x_at(k_event) if plausible else centres[1]
            vector = {"x": _r(direction * v), "y": 0, "z": 0}
            mover["moves"] = [{"stepBegin": t0 + 1, "stepEnd": k_event - 1, "vector": vector, "globalSpace": True},
                              {"stepBegin": k_event + 1, "stepEnd": t_end, "vector": dict(vector), "globalSpace": True}]
            mover["teleports"] = [{"stepBegin": k_event, "position": {"x": _r(target), "y": y, "z": z}}]
            objects.append(mover)
            gap_x = (centres[0] + centres[1]) / 2
            snapshots_at += [(oid, centres[1], False, "event_visible"), (oid, gap_x, True, "object_not_visible")]
        for obj in objects:
            obj.pop("info", None)
        scene_name = f"{name}-{answer_of[plausible]}"
        scene = {
            "name": scene_name,
            "version": 3,
            "intuitivePhysics": True,
            "roomDimensions": {"x": 10.0, "y": 3.0, "z": 10.0},
            "performerStart": {"position": {"x": 0.0, "y": 0.0, "z": CAMERA[2]}, "rotation": {"x": 0.0, "y": 0.0}},
            "floorMaterial": floor_material,
            "wallMaterial": wall_material,
            "objects": objects,
            "goal": {
                "category": "intuitive physics",
                "description": "",
                "last_step": last_step,
                "action_list": [["Pass"] for _ in range(last_step)],
                "metadata": {"choose": ["plausible", "implausible"]},
                "answer": {"choice": answer_of[plausible]},
            },
        }
        snapshots = []
        for object_id, x_obj, visible, reason in snapshots_at:
            keep = {object_id}
            snapshots.append(Snapshot(_static_copy(scene, {object_id: x_obj}, keep), object_id, visible, reason))
        params = {
            "scenario": scenario,
            "answer": answer_of[plausible],
            "pair": name,
            "object_type": type_name,
            "swap_type": swap_type if scenario == "shape_constancy" and not plausible else None,
            "object_size": _r(size, 3),
            "speed": _r(v, 3),
            "lane_z": z,
            "event_step": k_event,
            "n_occluders": len(occluders),
            "n_objects": len(objects),
            "last_step": last_step,
        }
        candidates.append(Candidate(scene, params, snapshots=snapshots))
    return candidates
