"""Interactive scenes: retrieval, traversal and transferral rooms (performer start, targets, containers, occluder
walls, furniture obstacles and distractors), one candidate per call.

A candidate is drawn from one `random.Random`; the checks (`mcs_plugin.scenes.checks`) then accept or reject it.
Difficulty levels (see `DIFFICULTIES` and docs/scenes.md):

- easy: small room, target on the floor 1.4-3 m ahead inside the field of view, must be visible at the start;
  few distractors and furniture.
- medium: bigger room, target 2-6 m away in any direction (visible or not), more clutter, sometimes an
  interior wall.
- hard: biggest room, target 3-8 m away and NOT visible at the start: hidden in a closed container (60 %) and/or
  behind an interior wall placed across the line of sight; empty decoy containers.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Any

from mcs_plugin.constants import CAMERA_HALF_HORIZONTAL_FOV as HALF_HFOV
from mcs_plugin.scenes import objects as V
from mcs_plugin.scenes.candidate import Candidate, PlacementFailed
from mcs_plugin.scenes.placement import Footprint, Placer
from mcs_plugin.sim.catalog import get_object_type


@dataclass(frozen=True)
class Difficulty:
    """Parameters of one difficulty level of the interactive goals."""

    name: str
    room: tuple[float, float]
    distance: tuple[float, float]
    in_view: bool  # draw the target inside the start view cone
    require_visible: bool | None  # True: must be visible at start, False: must not be, None: either
    container_prob: float
    occluder_prob: float  # probability of a wall across the line of sight (hard: always when not in a container)
    n_distractors: tuple[int, int]
    n_furniture: tuple[int, int]
    n_decoys: tuple[int, int]  # empty closed containers
    n_walls: tuple[int, int]  # extra interior walls anywhere
    last_step: int


DIFFICULTIES: dict[str, Difficulty] = {
    "easy": Difficulty("easy", (6.0, 9.0), (1.4, 3.0), True, True, 0.0, 0.0, (0, 2), (0, 2), (0, 0), (0, 0), 500),
    "medium": Difficulty("medium", (7.0, 11.0), (2.0, 6.0), False, None, 0.0, 0.25, (1, 4), (1, 4), (0, 1), (0, 1),
                         1000),
    "hard": Difficulty("hard", (8.0, 12.0), (3.0, 8.0), False, False, 0.6, 0.4, (2, 5), (2, 5), (1, 2), (0, 1), 2000),
}


def _r(value: float, digits: int = 4) -> float:
    return round(float(value), digits)


class RoomBuilder:
    """Builds one interactive room: start, then required objects, then optional clutter."""

    def __init__(self, rng: random.Random, difficulty: Difficulty):
        self.rng = rng
        self.d = difficulty
        lo, hi = difficulty.room
        self.room_x = rng.randint(int(lo * 2), int(hi * 2)) / 2
        self.room_z = rng.randint(int(lo * 2), int(hi * 2)) / 2
        margin = 0.6
        self.start = (_r(rng.uniform(-self.room_x / 2 + margin, self.room_x / 2 - margin), 2),
                      _r(rng.uniform(-self.room_z / 2 + margin, self.room_z / 2 - margin), 2))
        self.yaw = float(rng.randrange(36) * 10)
        self.placer = Placer(rng, self.room_x, self.room_z, self.start)
        self.objects: list[dict[str, Any]] = []
        self.shapes_to_avoid: set[str] = set()
        self.n_obstacles = 0

    # -- sampling regions -----------------------------------------------------------------------------------
    def ring(self, lo: float, hi: float, in_view: bool):
        """A region sampler: points at distance [lo, hi] from the start, inside the view cone if asked."""
        def region(rng: random.Random) -> tuple[float, float]:
            dist = rng.uniform(lo, hi)
            if in_view:
                angle = self.yaw + rng.uniform(-(HALF_HFOV - 8), HALF_HFOV - 8)
            else:
                angle = rng.uniform(0, 360)
            a = math.radians(angle)
            return self.start[0] + dist * math.sin(a), self.start[1] + dist * math.cos(a)
        return region

    def distance_to_start(self, x: float, z: float) -> float:
        """Horizontal distance from the performer start."""
        return math.hypot(x - self.start[0], z - self.start[1])

    # -- objects --------------------------------------------------------------------------------------------
    def small_object(self, role_id: str, type_name: str | None = None, region=None, required: bool = True,
                     avoid_shapes: set[str] | None = None) -> dict[str, Any] | None:
        """A small pickupable object on the floor (target, target_1 or distractor)."""
        rng = self.rng
        pool = [t for t in V.TARGET_TYPES if get_object_type(t).shape not in (avoid_shapes or set())]
        type_name = type_name or rng.choice(pool)
        otype = get_object_type(type_name)
        scale = V.target_scale(rng, type_name)
        fp = self.placer.sample(otype.size[0] * scale["x"] / 2, otype.size[2] * scale["z"] / 2, region=region,
                                attempts=80 if required else 20)
        if fp is None:
            if required:
                raise PlacementFailed(role_id)
            return None
        look = V.choose_look(rng, type_name)
        obj = V.make_object(V.uuid_from(rng), type_name,
                            {"x": fp.x, "y": otype.position_y_on_floor * scale["y"], "z": fp.z}, fp.yaw, look, scale)
        self.objects.append(obj)
        return obj

    def container_with(self, target_type: str, target_scale: dict[str, float], region) -> tuple[dict, dict] | None:
        """A closed container (scaled so the target fits) at a spot drawn from `region`, and the target inside it."""
        rng = self.rng
        ttype = get_object_type(target_type)
        tsize = V.scaled_size(ttype, target_scale)
        types = list(V.CONTAINER_TYPES)
        rng.shuffle(types)
        for ctype_name in types[:5]:
            ctype = get_object_type(ctype_name)
            floor = [p for p in ctype.parts if p.role == "floor"]
            lid = [p for p in ctype.parts if p.role == "lid"]
            walls = [p for p in ctype.parts if p.role == "wall"]
            if not (floor and lid and walls):
                continue
            floor_top = floor[0].center[1] + floor[0].size[1] / 2
            lid_bottom = lid[0].center[1] - lid[0].size[1] / 2
            thick = min(min(p.size[0], p.size[2]) for p in walls)
            inner = (ctype.size[0] - 2 * thick, lid_bottom - floor_top, ctype.size[2] - 2 * thick)
            need = max((tsize[0] + 0.06) / inner[0], (tsize[1] + 0.03) / inner[1], (tsize[2] + 0.06) / inner[2], 1.0)
            s = math.ceil(need * 100) / 100
            if s > 2.5:
                continue
            scale = V.uniform_scale(s)
            fp = self.placer.sample(ctype.size[0] * s / 2, ctype.size[2] * s / 2, region=region, attempts=80)
            if fp is None:
                return None
            look = V.choose_look(rng, ctype_name)
            container = V.make_object(V.uuid_from(rng), ctype_name, {"x": fp.x, "y": 0.0, "z": fp.z}, fp.yaw, look,
                                      scale)
            container["opened"] = False
            target_look = V.choose_look(rng, target_type)
            target = V.make_object(
                V.uuid_from(rng), target_type,
                {"x": fp.x, "y": floor_top * s + ttype.position_y_on_floor * target_scale["y"] + 0.002, "z": fp.z},
                fp.yaw, target_look, target_scale)
            self.objects.extend([container, target])
            self.n_obstacles += 1
            return container, target
        return None

    def occluder_between(self, target_xz: tuple[float, float]) -> dict[str, Any] | None:
        """An interior wall across the line from the start to a target, 40-70 % of the way there."""
        rng = self.rng
        sx, sz = self.start
        tx, tz = target_xz
        dist = math.hypot(tx - sx, tz - sz)
        if dist < 1.6:
            return None
        heading = math.degrees(math.atan2(tx - sx, tz - sz))
        for _ in range(25):
            f = rng.uniform(0.4, 0.7)
            length = _r(rng.uniform(1.2, 2.6), 2)
            cx, cz = sx + f * (tx - sx), sz + f * (tz - sz)
            # yaw = heading turns the wall's long local x axis across the line of sight
            fp = Footprint(_r(cx), _r(cz), length / 2, 0.05, heading, "")
            if self.placer.fits(fp):
                self.placer.add(fp)
                return self._wall(fp, length, rng.uniform(1.2, 2.0))
        return None

    def random_wall(self) -> dict[str, Any] | None:
        """An interior wall somewhere in the room (axis-aligned)."""
        length = _r(self.rng.uniform(1.0, min(3.0, min(self.room_x, self.room_z) / 3)), 2)
        fp = self.placer.sample(length / 2, 0.05, yaws=(0.0, 90.0), attempts=30)
        return None if fp is None else self._wall(fp, length, self.rng.uniform(1.0, 2.0))

    def _wall(self, fp: Footprint, length: float, height: float) -> dict[str, Any]:
        height = _r(height, 2)
        look = V.Look(self.rng.choice(V.material_list("WALL_MATERIALS")), "", ())
        wall = V.make_object(f"wall_{V.uuid_from(self.rng)}", "cube", {"x": fp.x, "y": height / 2, "z": fp.z},
                             fp.yaw, look, {"x": length, "y": height, "z": 0.1}, mass=_r(length * height * 0.1 * 125, 2),
                             kinematic=True, structure=True)
        self.objects.append(wall)
        self.n_obstacles += 1
        return wall

    def furniture(self, type_name: str | None = None, region=None, required: bool = False) -> dict[str, Any] | None:
        """A piece of furniture on the floor (an obstacle)."""
        rng = self.rng
        type_name = type_name or rng.choice(V.FURNITURE_TYPES)
        otype = get_object_type(type_name)
        fp = self.placer.sample(otype.size[0] / 2, otype.size[2] / 2, region=region, attempts=60 if required else 20)
        if fp is None:
            if required:
                raise PlacementFailed(type_name)
            return None
        obj = V.make_object(V.uuid_from(rng), type_name, {"x": fp.x, "y": otype.position_y_on_floor, "z": fp.z},
                            fp.yaw, V.choose_look(rng, type_name))
        self.objects.append(obj)
        self.n_obstacles += 1
        return obj

    def decoy_container(self) -> dict[str, Any] | None:
        """An empty closed container (the performer may have to search several)."""
        type_name = self.rng.choice(V.CONTAINER_TYPES)
        otype = get_object_type(type_name)
        scale = V.uniform_scale(self.rng.choice((1.0, 1.0, 1.25, 1.5)))
        fp = self.placer.sample(otype.size[0] * scale["x"] / 2, otype.size[2] * scale["z"] / 2, attempts=20)
        if fp is None:
            return None
        obj = V.make_object(V.uuid_from(self.rng), type_name, {"x": fp.x, "y": 0.0, "z": fp.z}, fp.yaw,
                            V.choose_look(self.rng, type_name), scale)
        obj["opened"] = False
        self.objects.append(obj)
        self.n_obstacles += 1
        return obj

    def clutter(self) -> dict[str, int]:
        """Extra walls, decoy containers, furniture and distractors per the difficulty; returns the counts."""
        rng, d = self.rng, self.d
        counts = {"walls": 0, "decoys": 0, "furniture": 0, "distractors": 0}
        for _ in range(rng.randint(*d.n_walls)):
            counts["walls"] += self.random_wall() is not None
        for _ in range(rng.randint(*d.n_decoys)):
            counts["decoys"] += self.decoy_container() is not None
        for _ in range(rng.randint(*d.n_furniture)):
            counts["furniture"] += self.furniture() is not None
        for _ in range(rng.randint(*d.n_distractors)):
            counts["distractors"] += self.small_object("distractor", required=False,
                                                       avoid_shapes=self.shapes_to_avoid) is not None
        return counts

    def scene(self, name: str, goal: dict[str, Any]) -> dict[str, Any]:
        """The scene dict (room, materials, start, objects, goal)."""
        rng = self.rng
        return {
            "name": name,
            "version": 2,
            "roomDimensions": {"x": self.room_x, "y": 3.0, "z": self.room_z},
            "performerStart": {"position": {"x": self.start[0], "y": 0.0, "z": self.start[1]},
                               "rotation": {"x": 0.0, "y": self.yaw}},
            "floorMaterial": rng.choice(V.material_list("FLOOR_MATERIALS")),
            "wallMaterial": rng.choice(V.material_list("ROOM_WALL_MATERIALS")),
            "ceilingMaterial": rng.choice(V.material_list("CEILING_MATERIALS")),
            "objects": self.objects,
            "goal": goal,
        }


def target_entry(obj: dict[str, Any]) -> dict[str, Any]:
    """Goal metadata entry of a target (id, info, match_image; the image is added after the checks)."""
    return {"id": obj["id"], "info": list(obj["info"]), "match_image": True}


def _common_params(b: RoomBuilder, target: dict[str, Any], counts: dict[str, int]) -> dict[str, Any]:
    pos = target["shows"][0]["position"]
    return {
        "room": [b.room_x, b.room_z],
        "target_type": target["type"],
        "target_id": target["id"],
        "target_info": target_entry(target)["info"][-1],
        "distance": round(b.distance_to_start(pos["x"], pos["z"]), 3),
        "n_objects": len(b.objects),
        "n_obstacles": b.n_obstacles,
        "n_distractors": counts["distractors"],
        "n_decoys": counts["decoys"],
    }


def build_retrieval(rng: random.Random, difficulty: str, name: str) -> Candidate:
    """A retrieval candidate: find and pick up a target (maybe in a closed container, maybe behind a wall)."""
    d = DIFFICULTIES[difficulty]
    b = RoomBuilder(rng, d)
    region = b.ring(*d.distance, in_view=d.in_view)
    in_container = rng.random() < d.container_prob
    occluded = False
    if in_container:
        type_name = rng.choice([t for t in V.TARGET_TYPES if max(get_object_type(t).size) < 1.01])
        placed = b.container_with(type_name, V.target_scale(rng, type_name, 0.14, 0.3), region)
        if placed is None:
            raise PlacementFailed("container")
        container, target = placed
    else:
        target = b.small_object("target", region=region)
        container = None
    b.shapes_to_avoid.add(get_object_type(target["type"]).shape)
    tpos = target["shows"][0]["position"]
    if rng.random() < (d.occluder_prob if in_container or d.require_visible is not False else 1.0):
        occluded = b.occluder_between((tpos["x"], tpos["z"])) is not None
    return _one_target_candidate(b, d, name, target, "retrieval", "Find and pick up", in_container=in_container,
                                 container_type=container["type"] if container else None, occluder_wall=occluded)


def build_traversal(rng: random.Random, difficulty: str, name: str) -> Candidate:
    """A traversal candidate: find and move next to a target (a small object or a piece of furniture)."""
    d = DIFFICULTIES[difficulty]
    b = RoomBuilder(rng, d)
    region = b.ring(*d.distance, in_view=d.in_view)
    if rng.random() < 0.5:
        target = b.small_object("target", region=region)
    else:
        choices = [t for t in V.FURNITURE_TYPES if max(get_object_type(t).size) <= 2.0]
        target = b.furniture(rng.choice(choices), region=region, required=True)
        b.n_obstacles -= 1
    b.shapes_to_avoid.add(get_object_type(target["type"]).shape)
    tpos = target["shows"][0]["position"]
    occluded = False
    if rng.random() < (d.occluder_prob if d.require_visible is not False else 1.0):
        occluded = b.occluder_between((tpos["x"], tpos["z"])) is not None
    return _one_target_candidate(b, d, name, target, "traversal", "Find and move next to", in_container=False,
                                 occluder_wall=occluded)


def _one_target_candidate(b: RoomBuilder, d, name: str, target: dict, category: str, task: str,
                          **params) -> Candidate:
    """Clutter the room, then the candidate scene whose goal is one target ("<task> the <target>.")."""
    counts = b.clutter()
    entry = target_entry(target)
    goal = {
        "category": category,
        "description": f"{task} the {entry['info'][-1]}.",
        "last_step": d.last_step,
        "metadata": {"target": entry},
    }
    return Candidate(b.scene(name, goal), {**_common_params(b, target, counts), **params},
                     visible_target=target["id"], require_visible=d.require_visible,
                     image_targets={"target": target["id"]})


def build_transferral(rng: random.Random, difficulty: str, name: str) -> Candidate:
    """A transferral candidate: pick up target_1 and put it next to / on top of target_2."""
    d = DIFFICULTIES[difficulty]
    b = RoomBuilder(rng, d)
    relation = rng.choice(("next_to", "on_top_of"))
    region = b.ring(*d.distance, in_view=d.in_view)
    first_type = rng.choice([t for t in V.TARGET_TYPES if not get_object_type(t).receptacle or t.startswith("block")])
    first = b.small_object("target_1", type_name=first_type, region=region)
    second_type = rng.choice(V.ON_TOP_OF_TYPES if relation == "on_top_of" else V.NEXT_TO_TYPES)
    if second_type.startswith("block_"):
        otype = get_object_type(second_type)
        scale = V.uniform_scale(rng.choice((2.0, 2.5, 3.0)))
        fp = b.placer.sample(otype.size[0] * scale["x"] / 2, otype.size[2] * scale["z"] / 2, attempts=80)
        if fp is None:
            raise PlacementFailed("target_2")
        second = V.make_object(V.uuid_from(rng), second_type,
                               {"x": fp.x, "y": otype.position_y_on_floor * scale["y"], "z": fp.z}, fp.yaw,
                               V.choose_look(rng, second_type), scale)
        b.objects.append(second)
    else:
        second = b.furniture(second_type, required=True)
        b.n_obstacles -= 1
    b.shapes_to_avoid.update({get_object_type(first["type"]).shape, get_object_type(second["type"]).shape})
    tpos = first["shows"][0]["position"]
    occluded = False
    if rng.random() < (d.occluder_prob if d.require_visible is not False else 1.0):
        occluded = b.occluder_between((tpos["x"], tpos["z"])) is not None
    counts = b.clutter()
    e1, e2 = target_entry(first), target_entry(second)
    words = "on top of" if relation == "on_top_of" else "next to"
    goal = {
        "category": "transferral",
        "description": f"Find and pick up the {e1['info'][-1]} and move it {words} the {e2['info'][-1]}.",
        "last_step": d.last_step,
        "metadata": {"target_1": e1, "target_2": e2, "relationship": ["target_1", relation, "target_2"]},
    }
    params = _common_params(b, first, counts)
    p2 = second["shows"][0]["position"]
    params.update(in_container=False, occluder_wall=occluded, relationship=relation, target_2_type=second["type"],
                  target_2_id=second["id"],
                  target_distance=round(math.hypot(p2["x"] - tpos["x"], p2["z"] - tpos["z"]), 3))
    return Candidate(b.scene(name, goal), params,
                     visible_target=first["id"], require_visible=d.require_visible,
                     image_targets={"target_1": first["id"], "target_2": second["id"]})
