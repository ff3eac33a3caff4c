"""A recorded conformance test turned about the vertical axis: the scene and its expected outputs.

Physics and MCS's rules do not depend on which way a room faces, so a test turned about the room's centre must give
the same outputs turned the same way. A rule that holds for a test but not for its turn depends on the room's axes
(a sign, a tie broken by x, a box aligned with the room), which is what the held-back tests, with other layouts,
show. One known exception is MCS's own: a simulation agent turns at a speed set by the difference of the two yaws as
Euler angles (0-360, not wrapped), so agents' turns differ once the room is turned.

- A quarter turn (90, 180, 270) maps the room onto itself with its sides renamed, grid cells to grid cells and the
  recorded (rounded) numbers to exact numbers: the turned expectations are as exact as the recorded ones.
- Any other angle turns everything but the room: the room is enlarged to hold the turned one, so walls are out of
  the comparison, and tests with a tiled floor or that name a wall are left out. Turned rounded numbers carry up to
  0.007 of rounding where the recorded ones carry 0.005, so a test within a hair of the tolerance may fail.

Unity turns a point by a yaw of +90 degrees from (x, z) to (z, -x): +z (forward at yaw 0) goes to +x.

    .venv/bin/python -m mcs_plugin.cli conformance tests/data/conformance --metadata oracle --turn 90
"""

from __future__ import annotations

import copy
import json
import math
import shutil
from pathlib import Path
from typing import Any

from mcs_plugin.conformance import (ACTIONS_SUFFIX, CONFIG_SUFFIX, OUTPUTS_SUFFIX, SCENE_SUFFIX, TIERS, discover_tests,
                                    read_actions)
from mcs_plugin.mcs import parse_action_string
from mcs_plugin.mcs.scene import parse_scene
from mcs_plugin.sim.world import DEFAULT_ROOM, FloorGrid

# Scene keys whose meaning is tied to the room's own sides, or that let MCS place the camera itself (passive
# scenes): a turned copy of such a test is not the same test.
SIDE_BOUND_SCENE_KEYS: tuple[str, ...] = ("partitionFloor", "isometric", "intuitivePhysics", "observation")

# A room wall's side after one quarter turn (+z, the front, goes to +x, the right).
_WALL_AFTER_QUARTER = {"front": "right", "right": "back", "back": "left", "left": "front"}


# Ids of the room's own parts (walls, floor, ceiling), which only a quarter turn turns.
ROOM_PART_IDS: tuple[str, ...] = ("wall_", "floor", "ceiling")

# Scene keys that only a quarter turn maps onto itself: grid cells of a tiled floor.
GRID_SCENE_KEYS: tuple[str, ...] = ("holes", "lava", "floorTextures")


def is_quarter(degrees: int) -> bool:
    return degrees % 90 == 0


def _quarters(degrees: int) -> int:
    return (degrees // 90) % 4 if is_quarter(degrees) else 0


def turn_xz(x: float, z: float, degrees: int) -> tuple[float, float]:
    """The point (x, z) turned by a yaw of `degrees` about the origin, as Unity turns it (exactly for quarter
    turns)."""
    if not is_quarter(degrees):
        c, s = math.cos(math.radians(degrees)), math.sin(math.radians(degrees))
        return x * c + z * s, -x * s + z * c
    for _ in range(_quarters(degrees)):
        x, z = z, -x
    return x, z


_ABSENT = object()


def _negate(value: Any) -> Any:
    """-value for a number, or a recorded [low, high] range negated (and kept in order); None and absence stay."""
    if isinstance(value, list):
        return sorted(-v for v in value)
    return value if value is None or value is _ABSENT else -value


def _turn_pair(mapping: dict, x_key: str, z_key: str, degrees: int) -> None:
    """Turn mapping[x_key], mapping[z_key] in place; each may be a number or a recorded [low, high] range."""
    if x_key not in mapping and z_key not in mapping:
        return
    x, z = mapping.get(x_key, _ABSENT), mapping.get(z_key, _ABSENT)
    if not is_quarter(degrees):
        if any(value is _ABSENT or value is None or isinstance(value, list) for value in (x, z)):
            mapping.pop(x_key, None)  # a lone component or a range cannot be turned by this angle: not compared
            mapping.pop(z_key, None)
        else:
            mapping[x_key], mapping[z_key] = turn_xz(x, z, degrees)
        return
    for _ in range(_quarters(degrees)):
        x, z = z, _negate(x)
    for key, value in ((x_key, x), (z_key, z)):
        if value is _ABSENT:
            mapping.pop(key, None)
        else:
            mapping[key] = value


def _add_yaw(value: Any, degrees: int) -> Any:
    if value is None:
        return None
    if isinstance(value, list):  # a recorded range of whole degrees
        return [(v + degrees) % 360 for v in value]
    return (value + degrees) % 360


def _turn_vector(vector: dict | None, degrees: int) -> None:
    if isinstance(vector, dict):
        _turn_pair(vector, "x", "z", degrees)


def _turn_rotation(holder: dict, degrees: int) -> None:
    rotation = holder.setdefault("rotation", {})
    rotation["y"] = (float(rotation.get("y") or 0.0) + degrees) % 360


def _each(items: Any) -> list:
    return items if isinstance(items, list) else []


def turn_scene(scene: dict, degrees: int) -> dict:
    """A copy of an MCS scene turned by `degrees` about the room's vertical axis (the room enlarged to hold the
    turned one when the angle is not a quarter turn)."""
    scene = copy.deepcopy(scene)
    if not is_quarter(degrees):
        x, y, z = _room(scene)
        side = math.ceil(math.hypot(x, z))
        scene["roomDimensions"] = {"x": side, "y": y, "z": side}
    elif _quarters(degrees) % 2 and isinstance(scene.get("roomDimensions"), dict):
        room = scene["roomDimensions"]
        room["x"], room["z"] = room.get("z"), room.get("x")
    if isinstance(scene.get("roomMaterials"), dict):
        scene["roomMaterials"] = {_turn_side(side, degrees): material
                                  for side, material in scene["roomMaterials"].items()}
    start = scene.setdefault("performerStart", {})
    _turn_vector(start.setdefault("position", {}), degrees)
    _turn_rotation(start, degrees)
    for key in ("holes", "lava"):
        for cell in _each(scene.get(key)):
            _turn_vector(cell, degrees)
    for texture in _each(scene.get("floorTextures")):
        for cell in _each(texture.get("positions")):
            _turn_vector(cell, degrees)
    for obj in _each(scene.get("objects")):
        _turn_object(obj, degrees)
    goal = scene.get("goal") or {}
    if isinstance(goal.get("action_list"), list):
        goal["action_list"] = [[_turn_teleport_action(action, degrees) for action in _each(step)]
                               for step in goal["action_list"]]
    return scene


def _room(scene: dict) -> tuple[float, float, float]:
    """The scene's room (x, y, z) in metres, MCS's default where it gives none."""
    room = scene.get("roomDimensions") or {}
    return tuple(float(room.get(axis) or default) for axis, default in zip("xyz", DEFAULT_ROOM))


def _turn_teleport_action(action: Any, degrees: int) -> Any:
    """A goal's scripted EndHabituation with its teleport (xPosition, zPosition, yRotation) turned."""
    if not isinstance(action, str) or not action.startswith("EndHabituation,"):
        return action
    name, *pairs = action.split(",")
    params = dict(pair.split("=", 1) for pair in pairs)
    if "xPosition" in params and "zPosition" in params:
        x, z = turn_xz(float(params["xPosition"]), float(params["zPosition"]), degrees)
        params["xPosition"], params["zPosition"] = f"{x:g}", f"{z:g}"
    if "yRotation" in params:
        params["yRotation"] = f"{(float(params['yRotation']) + degrees) % 360:g}"
    return ",".join([name, *(f"{key}={value}" for key, value in params.items())])


def _turn_object(obj: dict, degrees: int) -> None:
    if not obj.get("locationParent"):  # a child's pose is in its parent's frame, which turns with the parent
        for show in _each(obj.get("shows")):
            if "position" in show:
                _turn_vector(show["position"], degrees)
            _turn_rotation(show, degrees)  # a show without a rotation sets (0, 0, 0), which turns too
    # `moves` and `rotates` are in the object's own axes (which turn with it) unless `globalSpace`; `forces` and
    # `torques` are in the room's axes unless `relative`.
    for key, in_room_axes in (("moves", "globalSpace"), ("rotates", "globalSpace"), ("forces", "relative"),
                              ("torques", "relative")):
        for event in _each(obj.get(key)):
            if bool(event.get(in_room_axes)) == (in_room_axes == "globalSpace"):
                _turn_vector(event.get("vector"), degrees)
    for teleport in _each(obj.get("teleports")):
        _turn_vector(teleport.get("position"), degrees)
        if "rotation" in teleport:
            _turn_rotation(teleport, degrees)
    for leg in _each((obj.get("agentMovement") or {}).get("sequence")):
        _turn_vector(leg.get("endPoint"), degrees)


def _turn_side(side: str, degrees: int) -> str:
    """A room side (front, back, left, right) after the turn; other names stay."""
    for _ in range(_quarters(degrees)):
        side = _WALL_AFTER_QUARTER.get(side, side)
    return side


def _turn_cells(cells: list, degrees: int) -> list:
    """Recorded hole cells [x, z] or lava rectangles [x_min, z_min, x_max, z_max] after the turn."""
    turned = []
    for cell in cells:
        if len(cell) == 4:
            (x1, z1), (x2, z2) = turn_xz(cell[0], cell[1], degrees), turn_xz(cell[2], cell[3], degrees)
            turned.append([min(x1, x2), min(z1, z2), max(x1, x2), max(z1, z2)])
        else:
            turned.append(list(turn_xz(cell[0], cell[1], degrees)))
    return turned


def id_renaming(scene: dict, degrees: int) -> dict[str, str]:
    """Old -> new id of every object a turn renames: the room's walls (named by side) and the tiles of a tiled
    floor (numbered across the room)."""
    renaming = {f"wall_{side}": f"wall_{_turn_side(side, degrees)}" for side in _WALL_AFTER_QUARTER}
    before = FloorGrid.for_scene(parse_scene(scene))
    after = FloorGrid.for_scene(parse_scene(turn_scene(scene, degrees)))
    if before is None or after is None:
        return renaming
    for x in range(-before.half_x, before.half_x + 1):
        for z in range(-before.half_z, before.half_z + 1):
            old, new = before.tile_id(x, z), after.tile_id(*turn_xz(x, z, degrees))
            if old and new:
                renaming[old] = new
    return renaming


def turn_action(line: str, renaming: dict[str, str]) -> str:
    """An action line with the object ids it names renamed (walls, floor tiles)."""
    name, *params = line.split(",")
    for index, param in enumerate(params):
        key, _, value = param.partition("=")
        if key.strip() in ("objectId", "receptacleObjectId") and value.strip() in renaming:
            params[index] = f"{key}={renaming[value.strip()]}"
    return ",".join([name, *params])


def turn_step_output(step: dict, degrees: int, renaming: dict[str, str] | None = None) -> dict:
    """One recorded step output (the corpus's flat keys) as the turned test must report it; `renaming` maps
    object ids that the turn changes (id_renaming)."""
    renaming = renaming or {}
    step = copy.deepcopy(step)
    for key in ("resolved_object", "resolved_receptacle"):
        if step.get(key) in renaming:
            step[key] = renaming[step[key]]
    _turn_pair(step, "position_x", "position_z", degrees)
    if "rotation_y" in step:
        step["rotation_y"] = _add_yaw(step["rotation_y"], degrees)
    for key in ("holes", "lava"):
        if isinstance(step.get(key), list):
            step[key] = _turn_cells(step[key], degrees)
    if _quarters(degrees) % 2 and isinstance(step.get("room_dimensions"), dict):
        room = step["room_dimensions"]
        room["x"], room["z"] = room.get("z"), room.get("x")
    if not is_quarter(degrees):  # the room is not turned: its walls, floor, ceiling and size are out of it
        step.pop("room_dimensions", None)
        if isinstance(step.get("structural_objects"), list):
            step["structural_objects"] = [obj for obj in step["structural_objects"]
                                          if not str(obj.get("id")).startswith(ROOM_PART_IDS)]
    for group in ("objects", "structural_objects"):
        for obj in _each(step.get(group)):
            obj["id"] = renaming.get(obj.get("id"), obj.get("id"))
            _turn_pair(obj, "position_x", "position_z", degrees)
            _turn_pair(obj, "direction_x", "direction_z", degrees)
            if "rotation_y" in obj:
                obj["rotation_y"] = _add_yaw(obj["rotation_y"], degrees)
    return step


def write_turned_corpus(source: Path, target: Path, degrees: int,
                        tests: list[str] | None = None) -> tuple[list[str], list[str]]:
    """Write every test of `source` (a corpus's files folder) turned by `degrees` into `target`.

    Returns (turned test names, names left out: scenes tied to the room's sides and, for an angle that is not a
    quarter turn, tests with a tiled floor or that name a wall or a floor tile)."""
    target.mkdir(parents=True, exist_ok=True)
    turned, left_out = [], []
    for name in discover_tests(source, tests):
        scene = _read(source / f"{name}{SCENE_SUFFIX}")
        actions_path = source / f"{name}{ACTIONS_SUFFIX}"
        actions = read_actions(actions_path) if actions_path.is_file() else []
        if any(scene.get(key) for key in SIDE_BOUND_SCENE_KEYS) or not (
                is_quarter(degrees) or _turnable_off_the_grid(scene, actions)):
            left_out.append(name)
            continue
        _write(target / f"{name}{SCENE_SUFFIX}", turn_scene(scene, degrees))
        renaming = id_renaming(scene, degrees)
        for tier in TIERS:
            outputs = source / f"{name}.{tier}{OUTPUTS_SUFFIX}"
            if outputs.is_file():
                _write(target / outputs.name, [turn_step_output(step, degrees, renaming) for step in _read(outputs)])
        if actions_path.is_file():
            lines = [turn_action(line, renaming) for line in actions]
            (target / actions_path.name).write_text("\n".join(lines) + "\n", encoding="utf-8")
        for suffix in (*(f".{tier}{CONFIG_SUFFIX}" for tier in TIERS), CONFIG_SUFFIX):
            if (source / f"{name}{suffix}").is_file():
                shutil.copy(source / f"{name}{suffix}", target / f"{name}{suffix}")
        turned.append(name)
    for config in [*source.parent.glob("config_*.ini"), *source.glob("config_*.ini")]:  # the corpus's tier configs
        shutil.copy(config, target / config.name)
    return turned, left_out


def _turnable_off_the_grid(scene: dict, actions: list[str]) -> bool:
    """Whether a test can be turned by an angle that is not a quarter turn: no tiled floor, no action naming a wall
    or the floor (the room stays as it is)."""
    if any(scene.get(key) for key in GRID_SCENE_KEYS):
        return False
    return not any(f"={room_part}" in line for line in actions for room_part in ("wall_", "floor"))


def _read(path: Path) -> Any:
    with open(path, encoding="utf-8-sig") as handle:
        return json.load(handle)


def _write(path: Path, value: Any) -> None:
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(value, handle, indent=1)


def equivariance_errors(scene: dict, actions: list[str], degrees: int, tolerance: float = 1e-3,
                        config: dict | None = None) -> list[str]:
    """Replay `actions` on `scene` and on its turn in the embedded simulator and list where the turned run is not
    the first turned: return statuses, object visibility and positions beyond `tolerance` metres (one line each).

    This checks the simulator against itself, so it needs no recording, and any scene and actions serve. A run ends
    at the first action the simulator refuses (MCS's ValueError); both runs then stop there."""
    from mcs_plugin.sim.controller import EmbeddedController

    renaming = id_renaming(scene, degrees)
    runs = []
    for turned_scene, lines in ((scene, actions), (turn_scene(scene, degrees),
                                                   [turn_action(line, renaming) for line in actions])):
        controller = EmbeddedController({"metadata": "oracle", "render": False, **(config or {})})
        outputs = [controller.start_scene(turned_scene)]
        try:
            for line in lines:
                name, params = parse_action_string(line)
                outputs.append(controller.step(name, **params))
        except ValueError:
            pass
        finally:
            if not controller.ended:
                controller.end_scene()
        runs.append(outputs)
    errors = []
    for step, (before, after) in enumerate(zip(*runs)):
        if before.return_status != after.return_status:
            errors.append(f"step {step}: return_status {before.return_status} turned {after.return_status}")
        turned_objects = {obj.uuid: obj for obj in after.object_list}
        for obj in before.object_list:
            other = turned_objects.get(renaming.get(obj.uuid, obj.uuid))
            if other is None:
                errors.append(f"step {step}: {obj.uuid} missing after the turn")
                continue
            if obj.visible != other.visible:
                errors.append(f"step {step}: {obj.uuid} visible {obj.visible} turned {other.visible}")
            x, z = turn_xz(obj.position["x"], obj.position["z"], degrees)
            off = max(abs(x - other.position["x"]), abs(z - other.position["z"]),
                      abs(obj.position["y"] - other.position["y"]))
            if off > tolerance:
                errors.append(f"step {step}: {obj.uuid} {off:.3f} m off")
    return errors
