"""Seeded fuzz cases: picklable dicts describing one scene mutation, one episode of actions, or one config."""

from __future__ import annotations

import copy
import json
import math
import random
from pathlib import Path
from typing import Any

from tests.fuzz.values import FACTORS, bad_value, get_at, leaves, set_at

DATA = Path(__file__).resolve().parents[1] / "data"
# Real scenes to mutate (origins in tests/data/ORIGIN.md and tests/data/scenes/INDEX.md).
SEED_SCENES = sorted((DATA / "scenes").glob("*.json"))
OBJECT_TYPES = ("chest_1", "soccer_ball", "cube", "table_1", "agent_female_01", "tool_rect_0_50_x_4_00", "lid",
                "no_such_type", "", "SOCCER_BALL")
ACTIONS = ("MoveAhead", "MoveBack", "RotateLeft", "LookDown", "RotateLook", "PickupObject", "PutObject",
           "DropObject", "ThrowObject", "PushObject", "PullObject", "TorqueObject", "RotateObject", "MoveObject",
           "OpenObject", "CloseObject", "InteractWithAgent", "EndHabituation", "Pass", "LieDown", "Crawl",
           "Stand", "RotateObjectInHand", "NoSuchAction", "", "\x00")
PARAM_KEYS = ("objectId", "objectImageCoordsX", "objectImageCoordsY", "objectDirectionX", "objectDirectionY",
              "objectDirectionZ", "receptacleObjectId", "receptacleObjectImageCoordsX",
              "receptacleObjectImageCoordsY", "receptacleObjectDirectionX", "force", "amount", "lateral",
              "straight", "clockwise", "rotation", "horizon", "rotationY", "xPosition", "zPosition", "yRotation")
CONFIG_KEYS = ("metadata", "size", "width", "height", "Width", "SIZE", "disable_depth_maps", "render", "seed",
               "noise_enabled", "steps_allowed_in_lava", "goal_reward", "step_penalty", "lava_penalty",
               "reward_mode", "max_held_objects", "timeout", "team", "terminal_output", "history_enabled",
               "no_such_key")
EXTREMES = (99.0, -99.0, 100.0, 100.1, 0.001, 1e-5, 9e4, 1e5, 3599.0, -3600.0, 50.0, 1e7, -1e7)
GOOD_CONFIG = {"metadata": ("oracle", "level2", "level1", "none", "full", "bogus"), "size": (32, 64, 600),
               "width": (16, 64), "height": (16, 48), "render": (False, True, "false")}


def load_seed(path: Path) -> dict[str, Any]:
    """A seed scene as a dict."""
    return json.loads(path.read_text(encoding="utf-8-sig"))


def _mutate_once(scene: dict[str, Any], rng: random.Random) -> str:
    """Apply one random mutation to a scene dict; returns what it did."""
    kind = rng.choice(("leaf", "leaf", "extreme", "extreme", "scale", "delete", "type", "crowd", "goal", "room"))
    objects = scene.get("objects") if isinstance(scene.get("objects"), list) else []
    objects = [obj for obj in objects if isinstance(obj, dict)]
    if kind == "type" and objects:
        rng.choice(objects)["type"] = rng.choice(OBJECT_TYPES)
        return "type"
    if kind == "crowd" and objects:  # many copies of one object at one spot (contact stack, memory)
        obj = rng.choice(objects)
        scene["objects"] = objects + [dict(copy.deepcopy(obj), id=f"copy{i}") for i in range(rng.randint(2, 25))]
        return "crowd"
    if kind == "goal":
        goal = scene.setdefault("goal", {}) if isinstance(scene.get("goal"), dict) else {}
        goal[rng.choice(("category", "last_step", "action_list", "metadata"))] = bad_value(rng)
        scene["goal"] = goal
        return "goal"
    if kind == "room":
        scene["roomDimensions"] = {axis: rng.choice((bad_value(rng), 1e12, 0.1, 200.0, 30.0)) for axis in "xyz"}
        return "room"
    paths = leaves(scene)
    if not paths:
        return "none"
    path = rng.choice(paths)
    if kind == "delete":
        parent = get_at(scene, path[:-1])
        del parent[path[-1]]
        return f"delete {path}"
    value = get_at(scene, path)
    if kind == "extreme" and isinstance(value, (int, float)) and not isinstance(value, bool):
        set_at(scene, path, rng.choice(EXTREMES))  # within the documented limits, or just beyond them
        return f"extreme {path}"
    if kind == "scale" and isinstance(value, (int, float)) and not isinstance(value, bool):
        set_at(scene, path, value * rng.choice(FACTORS))
        return f"scale {path}"
    set_at(scene, path, bad_value(rng))
    return f"set {path}"


def scene_case(rng: random.Random) -> dict[str, Any]:
    """A mutated real scene (1-3 mutations), or raw bytes for a file (non-UTF-8, truncated JSON)."""
    seed = rng.choice(SEED_SCENES)
    scene = load_seed(seed)
    if rng.random() < 0.03:
        text = json.dumps(scene).encode()
        raw = text[: rng.randint(0, len(text))] if rng.random() < 0.5 else b"\xff\xfe" + text
        return {"kind": "scene", "seed": seed.name, "raw": raw, "what": "file bytes"}
    what = [_mutate_once(scene, rng) for _ in range(rng.randint(1, 3))]
    return {"kind": "scene", "seed": seed.name, "scene": scene, "what": "; ".join(what),
            "render": rng.random() < 0.1}


HUGE = (1e308, -1e308, 1e200, 0.0, 1e-320, math.inf)


def _params(rng: random.Random) -> dict[str, Any]:
    params: dict[str, Any] = {}
    if rng.random() < 0.15:  # a whole direction of huge or tiny components (overflows to zero length)
        params.update({f"objectDirection{axis}": rng.choice(HUGE) for axis in "XYZ"})
    for _ in range(rng.randint(0, 3)):
        key = rng.choice(PARAM_KEYS)
        params[key] = rng.choice((bad_value(rng), bad_value(rng), rng.uniform(-2, 2), rng.randint(0, 47), "obj", 0.5,
                                  1, -1, 0, "true", 1e5, rng.uniform(-1e6, 1e6)))
    return params


def action_case(rng: random.Random, count: int) -> dict[str, Any]:
    """An episode on a real scene: `count` actions, most with random (often bad) parameters."""
    seed = rng.choice(SEED_SCENES)
    actions = [(rng.choice(ACTIONS), _params(rng)) for _ in range(count)]
    inline = []
    for index, (name, params) in enumerate(actions):  # the "Action,key=value" string form now and then
        if rng.random() < 0.1:
            inline.append(index)
            actions[index] = (name + "".join(f",{k}={v}" for k, v in params.items()), {})
    return {"kind": "actions", "seed": seed.name, "actions": actions, "environment": rng.random() < 0.25,
            "render": rng.random() < 0.2}


def config_case(rng: random.Random) -> dict[str, Any]:
    """A config dict with 1-4 random keys (good or bad values), or a non-dict config argument."""
    roll = rng.random()
    if roll < 0.05:
        return {"kind": "config", "config": rng.choice((5, 0, -1, 3.5, [], ["size"], b"x", True))}
    if roll < 0.08:
        return {"kind": "config", "ini": rng.choice((b"\xff\xfe[MCS]\nsize=600\n", b"[MCS]\nsize: 1e9\n",
                                                      b"[MCS]\nmetadata = nope\n", b"not ini"))}
    config: dict[str, Any] = {"render": rng.random() < 0.5}
    for _ in range(rng.randint(1, 4)):
        key = rng.choice(CONFIG_KEYS)
        good = GOOD_CONFIG.get(key.lower())
        config[key] = rng.choice(good) if good and rng.random() < 0.4 else bad_value(rng)
    return {"kind": "config", "config": config}


def make_cases(seed: int, scenes: int, actions: int, configs: int, actions_per_episode: int = 10) -> list[dict]:
    """All cases of one run, in a fixed order for a seed: `actions` counts actions, not episodes."""
    rng = random.Random(seed)
    cases = [scene_case(rng) for _ in range(scenes)]
    episodes = -(-actions // actions_per_episode) if actions else 0
    cases += [action_case(rng, actions_per_episode) for _ in range(episodes)]
    cases += [config_case(rng) for _ in range(configs)]
    return cases
