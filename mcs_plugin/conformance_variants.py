"""A recorded conformance test turned about the vertical axis or mirrored left to right: scene and expected outputs.

Physics and MCS's rules do not depend on which way a room faces, so a test turned about the room's centre must give
the same outputs turned the same way; and one whose objects are all left-right symmetric, mirrored (x -> -x, with
left and right swapped in its actions), must give the mirrored outputs. A rule that holds for a test but not for a
variant depends on the room's axes or on a side (a sign, a tie broken by x, a box aligned with the room), which the
held-back tests, with other layouts and their left/right twins, show.

- A quarter turn (90, 180, 270) and the mirror map the room onto itself with its sides renamed, grid cells to grid
  cells and the recorded (rounded) numbers to exact numbers: the expectations are as exact as the recorded ones.
- Any other angle turns everything but the room: the room is enlarged to hold the turned one, so walls, floor and
  ceiling are out of the comparison, and tests with a tiled floor or that name a wall or the floor are left out.
  Turned rounded numbers carry up to 0.007 of rounding where the recorded ones carry 0.005, so a test within a hair
  of the tolerance may fail.
- Passive scenes (MCS places their camera) and partitioned floors are left out, and so is a mirror of a scene with
  an object that is not its own mirror image (a hooked tool, a door, ...).

Two parts of MCS itself are not symmetric: a simulation agent turns at a speed set by the difference of its two yaws
as Euler angles (0-360, not wrapped), and an exact half turn goes the way that does not cross yaw 0; agents' turns
differ in a variant for that reason.

Unity turns a point by a yaw of +90 degrees from (x, z) to (z, -x): +z (forward at yaw 0) goes to +x. The mirror
comes first, then the turn.

    .venv/bin/python -m mcs_plugin.cli conformance tests/data/conformance --metadata oracle --turn 90 [--mirror]
"""

from __future__ import annotations

import copy
import json
import math
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcs_plugin.conformance import (ACTIONS_SUFFIX, CONFIG_SUFFIX, OUTPUTS_SUFFIX, SCENE_SUFFIX, TIERS, discover_tests,
                                    read_actions, tier_config)
from mcs_plugin.mcs import parse_action_string
from mcs_plugin.mcs.config import MCSConfig
from mcs_plugin.mcs.scene import parse_scene
from mcs_plugin.sim.actions import DEFAULT_CLOCKWISE, DEFAULT_FORCE
from mcs_plugin.sim.world import DEFAULT_ROOM, FloorGrid

# Scene keys whose meaning is tied to the room's own sides, or that let MCS place the camera itself (passive
# scenes): a variant of such a test is not the same test.
SIDE_BOUND_SCENE_KEYS: tuple[str, ...] = ("partitionFloor", "isometric", "intuitivePhysics", "observation")

# Scene keys that only a quarter turn or the mirror maps onto itself: grid cells of a tiled floor.
GRID_SCENE_KEYS: tuple[str, ...] = ("holes", "lava", "floorTextures")

# Ids of the room's own parts (walls, floor, ceiling), which only a quarter turn or the mirror maps onto themselves.
ROOM_PART_IDS: tuple[str, ...] = ("wall_", "floor", "ceiling")

# Object types (name prefixes) that are not their own mirror image (the hook, the hinge, the drawers are on one side;
# an agent holds what it carries in one hand; chair_1's backrest is on its -x side, and the prefix also leaves out
# chair_10-18).
MIRROR_ASYMMETRIC_TYPES: tuple[str, ...] = ("tool_hooked", "tool_isosceles", "container_asymmetric", "changing_table",
                                            "triangle", "door", "letter_", "number_", "agent_", "chair_1")

# A room side after one quarter turn (+z, the front, goes to +x, the right), and after the mirror.
_SIDE_AFTER_QUARTER = {"front": "right", "right": "back", "back": "left", "left": "front"}
_SIDE_MIRRORED = {"left": "right", "right": "left"}

# Actions that the mirror swaps, and their parameters it negates.
_MIRRORED_ACTIONS = {"MoveLeft": "MoveRight", "MoveRight": "MoveLeft", "RotateLeft": "RotateRight",
                     "RotateRight": "RotateLeft"}
_NEGATED_BY_MIRROR = {("RotateLook", "rotation"), ("MoveObject", "lateral"), ("TorqueObject", "force")}
# ...and the defaults of those that turn one way when not given.
_MIRRORED_DEFAULTS = {"RotateObject": f"clockwise={str(not DEFAULT_CLOCKWISE).lower()}",
                      "TorqueObject": f"force={-DEFAULT_FORCE:g}"}
_IMAGE_X_KEYS = ("objectImageCoordsX", "receptacleObjectImageCoordsX")

_ABSENT = object()


@dataclass(frozen=True)
class Variant:
    """A mirror (x -> -x) followed by a turn of `degrees` about the room's vertical axis."""

    degrees: int = 0
    mirror: bool = False

    @property
    def maps_room(self) -> bool:
        """Whether the room maps onto itself (a quarter turn, with or without the mirror)."""
        return self.degrees % 90 == 0

    @property
    def quarters(self) -> int:
        """Quarter turns (0-3) of a turn that maps the room onto itself; 0 for any other angle."""
        return (self.degrees // 90) % 4 if self.maps_room else 0

    def __str__(self) -> str:
        parts = (["mirrored"] if self.mirror else []) + ([f"turned {self.degrees}"] if self.degrees else [])
        return " and ".join(parts) or "as recorded"

    def point(self, x: float, z: float) -> tuple[float, float]:
        """A point (x, z) of the room as the variant places it (exactly for quarter turns)."""
        if self.mirror:
            x = -x
        if not self.maps_room:
            c, s = math.cos(math.radians(self.degrees)), math.sin(math.radians(self.degrees))
            return x * c + z * s, -x * s + z * c
        for _ in range(self.quarters):
            x, z = z, -x
        return x, z

    def yaw(self, value: Any) -> Any:
        """A yaw (degrees; or a recorded [low, high] range of whole degrees) as the variant turns it."""
        if value is None:
            return None
        if isinstance(value, list):
            return sorted(self.yaw(v) for v in value)
        return ((-value if self.mirror else value) + self.degrees) % 360

    def side(self, side: str) -> str:
        """A room side (front, back, left, right) after the variant; other names stay."""
        if self.mirror:
            side = _SIDE_MIRRORED.get(side, side)
        for _ in range(self.quarters):
            side = _SIDE_AFTER_QUARTER.get(side, side)
        return side

    # -- pairs of recorded numbers -----------------------------------------------------------------------------
    def pair(self, mapping: dict, x_key: str, z_key: str) -> None:
        """Map mapping[x_key], mapping[z_key] in place; each may be a number or a recorded [low, high] range."""
        if x_key not in mapping and z_key not in mapping:
            return
        x, z = mapping.get(x_key, _ABSENT), mapping.get(z_key, _ABSENT)
        if not self.maps_room:
            if any(value is _ABSENT or value is None or isinstance(value, list) for value in (x, z)):
                mapping.pop(x_key, None)  # a lone component or a range cannot be turned by this angle: not compared
                mapping.pop(z_key, None)
            else:
                mapping[x_key], mapping[z_key] = self.point(x, z)
            return
        if self.mirror:
            x = _negate(x)
        for _ in range(self.quarters):
            x, z = z, _negate(x)
        for key, value in ((x_key, x), (z_key, z)):
            if value is _ABSENT:
                mapping.pop(key, None)
            else:
                mapping[key] = value

    def place(self, mapping: Any) -> None:
        """Map a scene point {x, z} in place (a missing coordinate is 0, as MCS reads it)."""
        if isinstance(mapping, dict):
            x, z = mapping.get("x") or 0, mapping.get("z") or 0
            whole = isinstance(x, int) and isinstance(z, int)  # grid cells stay whole numbers
            mapping["x"], mapping["z"] = (round(v) if whole and self.maps_room else v for v in self.point(x, z))

    def vector(self, vector: Any, axial: bool = False, in_room_axes: bool = True) -> None:
        """Map a scene vector {x, y, z} in place: the mirror negates x (an axial vector, a torque or a turn:
        y and z), the turn applies to vectors in the room's axes only."""
        if not isinstance(vector, dict):
            return
        if self.mirror:
            for axis in (("y", "z") if axial else ("x",)):
                if vector.get(axis):
                    vector[axis] = -vector[axis]
        if in_room_axes and self.degrees:
            Variant(self.degrees).place(vector)

    def rotation(self, holder: dict) -> None:
        """Map an Euler rotation {x, y, z} (Unity order) in place; a missing one is (0, 0, 0), which maps too."""
        rotation = holder.setdefault("rotation", {})
        rotation["y"] = self.yaw(float(rotation.get("y") or 0.0))
        if self.mirror and rotation.get("z"):
            rotation["z"] = -rotation["z"]  # a roll changes sides in the mirror; a pitch does not


def _negate(value: Any) -> Any:
    """-value for a number, or a recorded [low, high] range negated (and kept in order); None and absence stay."""
    if isinstance(value, list):
        return sorted(-v for v in value)
    return value if value is None or value is _ABSENT else -value


def _each(items: Any) -> list:
    return items if isinstance(items, list) else []


# -- scenes ---------------------------------------------------------------------------------------------------------
def variant_scene(scene: dict, variant: Variant) -> dict:
    """A copy of an MCS scene mirrored and turned (the room enlarged to hold the turned one when the angle is not a
    quarter turn)."""
    scene = copy.deepcopy(scene)
    if not variant.maps_room:
        x, y, z = _room(scene)
        side = math.ceil(math.hypot(x, z))
        scene["roomDimensions"] = {"x": side, "y": y, "z": side}
    elif variant.quarters % 2 and isinstance(scene.get("roomDimensions"), dict):
        room = scene["roomDimensions"]
        room["x"], room["z"] = room.get("z"), room.get("x")
    if isinstance(scene.get("roomMaterials"), dict):
        scene["roomMaterials"] = {variant.side(side): material for side, material in scene["roomMaterials"].items()}
    start = scene.setdefault("performerStart", {})
    variant.place(start.setdefault("position", {}))
    variant.rotation(start)
    for key in GRID_SCENE_KEYS[:2]:
        for cell in _each(scene.get(key)):
            variant.place(cell)
    for texture in _each(scene.get("floorTextures")):
        for cell in _each(texture.get("positions")):
            variant.place(cell)
    for obj in _each(scene.get("objects")):
        _variant_object(obj, variant)
    goal = scene.get("goal") or {}
    if isinstance(goal.get("action_list"), list):
        goal["action_list"] = [[_variant_teleport(action, variant) for action in _each(step)]
                               for step in goal["action_list"]]
    return scene


def _room(scene: dict) -> tuple[float, float, float]:
    """The scene's room (x, y, z) in metres, MCS's default where it gives none."""
    room = scene.get("roomDimensions") or {}
    return tuple(float(room.get(axis) or default) for axis, default in zip("xyz", DEFAULT_ROOM))


def _variant_teleport(action: Any, variant: Variant) -> Any:
    """A goal's scripted EndHabituation with its teleport (xPosition, zPosition, yRotation) mapped."""
    if not isinstance(action, str) or not action.startswith("EndHabituation,"):
        return action
    name, *pairs = action.split(",")
    params = dict(pair.split("=", 1) for pair in pairs)
    if "xPosition" in params and "zPosition" in params:
        x, z = variant.point(float(params["xPosition"]), float(params["zPosition"]))
        params["xPosition"], params["zPosition"] = f"{x:g}", f"{z:g}"
    if "yRotation" in params:
        params["yRotation"] = f"{variant.yaw(float(params['yRotation'])):g}"
    return ",".join([name, *(f"{key}={value}" for key, value in params.items())])


def _variant_object(obj: dict, variant: Variant) -> None:
    if not obj.get("locationParent"):  # a child's pose is in its parent's frame, which maps with the parent
        for show in _each(obj.get("shows")):
            if "position" in show:
                variant.place(show["position"])
            variant.rotation(show)  # a show without a rotation sets (0, 0, 0), which maps too
    # `moves` and `rotates` are in the object's own axes (which turn with it) unless `globalSpace`; `forces` and
    # `torques` are in the room's axes unless `relative`. Torques and turns are axial vectors.
    for key, axial, room_flag in (("moves", False, "globalSpace"), ("rotates", True, "globalSpace"),
                                  ("forces", False, "relative"), ("torques", True, "relative")):
        for event in _each(obj.get(key)):
            in_room_axes = bool(event.get(room_flag)) == (room_flag == "globalSpace")
            variant.vector(event.get("vector"), axial=axial, in_room_axes=in_room_axes)
    for teleport in _each(obj.get("teleports")):
        variant.place(teleport.get("position"))
        if "rotation" in teleport:
            variant.rotation(teleport)
    for leg in _each((obj.get("agentMovement") or {}).get("sequence")):
        variant.place(leg.get("endPoint"))
    if variant.mirror and isinstance(obj.get("lips"), dict):  # lips are named by the platform's own sides
        obj["lips"] = {_SIDE_MIRRORED.get(side, side): on for side, on in obj["lips"].items()}


def id_renaming(scene: dict, variant: Variant) -> dict[str, str]:
    """Old -> new id of every object a variant renames: the room's walls (named by side) and the tiles of a tiled
    floor (numbered across the room)."""
    renaming = {f"wall_{side}": f"wall_{variant.side(side)}" for side in _SIDE_AFTER_QUARTER}
    before = FloorGrid.for_scene(parse_scene(scene))
    after = FloorGrid.for_scene(parse_scene(variant_scene(scene, variant)))
    if before is None or after is None:
        return renaming
    for x in range(-before.half_x, before.half_x + 1):
        for z in range(-before.half_z, before.half_z + 1):
            old, new = before.tile_id(x, z), after.tile_id(*variant.point(x, z))
            if old and new:
                renaming[old] = new
    return renaming


def variant_action(line: str, variant: Variant, renaming: dict[str, str], width: int = MCSConfig().size) -> str:
    """An action line for the variant: object ids renamed (walls, floor tiles); mirrored, left and right swapped,
    image x coordinates mirrored (pixel x aims at its lower left corner, so x -> width - x) and the parameters
    that turn one way negated."""
    name, params = line.split(",")[0], line.split(",")[1:]
    if variant.mirror:
        name = _MIRRORED_ACTIONS.get(name, name)
    for index, param in enumerate(params):
        key, _, value = (part.strip() for part in param.partition("="))
        if key in ("objectId", "receptacleObjectId") and value in renaming:
            params[index] = f"{key}={renaming[value]}"
        elif variant.mirror and key in _IMAGE_X_KEYS:
            params[index] = f"{key}={min(width - int(float(value)), width - 1)}"  # pixel 0's mirror: the last
        elif variant.mirror and (name, key) in _NEGATED_BY_MIRROR:
            params[index] = f"{key}={-float(value):g}"
        elif variant.mirror and key == "clockwise":
            params[index] = f"{key}={str(value.lower() != 'true').lower()}"
    default = _MIRRORED_DEFAULTS.get(name) if variant.mirror else None
    if default and not any(param.strip().startswith(default.split("=")[0] + "=") for param in params):
        params.append(default)
    return ",".join([name, *params])


# -- recorded outputs -----------------------------------------------------------------------------------------------
def _variant_cells(cells: list, variant: Variant) -> list:
    """Recorded hole cells [x, z] or lava rectangles [x_min, z_min, x_max, z_max] after the variant."""
    mapped = []
    for cell in cells:
        if len(cell) == 4:
            (x1, z1), (x2, z2) = variant.point(cell[0], cell[1]), variant.point(cell[2], cell[3])
            mapped.append([min(x1, x2), min(z1, z2), max(x1, x2), max(z1, z2)])
        else:
            mapped.append(list(variant.point(cell[0], cell[1])))
    return mapped


def variant_step_output(step: dict, variant: Variant, renaming: dict[str, str] | None = None) -> dict:
    """One recorded step output (the corpus's flat keys) as the variant must report it; `renaming` maps object ids
    that the variant changes (id_renaming)."""
    renaming = renaming or {}
    step = copy.deepcopy(step)
    for key in ("resolved_object", "resolved_receptacle"):
        if step.get(key) in renaming:
            step[key] = renaming[step[key]]
    variant.pair(step, "position_x", "position_z")
    if "rotation_y" in step:
        step["rotation_y"] = variant.yaw(step["rotation_y"])
    for key in GRID_SCENE_KEYS[:2]:
        if isinstance(step.get(key), list):
            step[key] = _variant_cells(step[key], variant)
    if variant.quarters % 2 and isinstance(step.get("room_dimensions"), dict):
        room = step["room_dimensions"]
        room["x"], room["z"] = room.get("z"), room.get("x")
    if not variant.maps_room:  # the room is not turned: its walls, floor, ceiling and size are out of it
        step.pop("room_dimensions", None)
        if isinstance(step.get("structural_objects"), list):
            step["structural_objects"] = [obj for obj in step["structural_objects"]
                                          if not str(obj.get("id")).startswith(ROOM_PART_IDS)]
    for group in ("objects", "structural_objects"):
        for obj in _each(step.get(group)):
            obj["id"] = renaming.get(obj.get("id"), obj.get("id"))
            variant.pair(obj, "position_x", "position_z")
            variant.pair(obj, "direction_x", "direction_z")
            if "rotation_y" in obj:
                obj["rotation_y"] = variant.yaw(obj["rotation_y"])
            if variant.mirror and obj.get("rotation_z") is not None:
                obj["rotation_z"] = Variant(mirror=True).yaw(obj["rotation_z"])  # a roll changes sides
    return step


# -- corpora --------------------------------------------------------------------------------------------------------
def left_out_reason(scene: dict, actions: list[str], variant: Variant) -> str | None:
    """Why a test has no such variant (None when it has one)."""
    if any(scene.get(key) for key in SIDE_BOUND_SCENE_KEYS):
        return "tied to the room's sides"
    if not variant.maps_room and (any(scene.get(key) for key in GRID_SCENE_KEYS) or any(
            f"={part}" in line for line in actions for part in ("wall_", "floor"))):
        return "a tiled floor, or an action on the room"
    if variant.mirror and any(str(obj.get("type", "")).startswith(MIRROR_ASYMMETRIC_TYPES)
                              for obj in _each(scene.get("objects"))):
        return "an object that is not its own mirror image"
    return None


def write_variant_corpus(source: Path, target: Path, variant: Variant,
                         tests: list[str] | None = None) -> tuple[list[str], dict[str, str]]:
    """Write every test of `source` (a corpus's files folder) as `variant` into `target`.

    Returns (the tests written, {test left out: why})."""
    target.mkdir(parents=True, exist_ok=True)
    written, left_out = [], {}
    for name in discover_tests(source, tests):
        scene = _read(source / f"{name}{SCENE_SUFFIX}")
        actions_path = source / f"{name}{ACTIONS_SUFFIX}"
        actions = read_actions(actions_path) if actions_path.is_file() else []
        reason = left_out_reason(scene, actions, variant)
        if reason:
            left_out[name] = reason
            continue
        _write(target / f"{name}{SCENE_SUFFIX}", variant_scene(scene, variant))
        renaming = id_renaming(scene, variant)
        for tier in TIERS:
            outputs = source / f"{name}.{tier}{OUTPUTS_SUFFIX}"
            if outputs.is_file():
                _write(target / outputs.name, [variant_step_output(step, variant, renaming) for step in _read(outputs)])
        if actions_path.is_file():
            width = int(tier_config(source, name, TIERS[0]).get("size") or MCSConfig().size)
            lines = [variant_action(line, variant, renaming, width) for line in actions]
            (target / actions_path.name).write_text("\n".join(lines) + "\n", encoding="utf-8")
        for suffix in (*(f".{tier}{CONFIG_SUFFIX}" for tier in TIERS), CONFIG_SUFFIX):
            if (source / f"{name}{suffix}").is_file():
                shutil.copy(source / f"{name}{suffix}", target / f"{name}{suffix}")
        written.append(name)
    for config in [*source.parent.glob("config_*.ini"), *source.glob("config_*.ini")]:  # the corpus's tier configs
        shutil.copy(config, target / config.name)
    return written, left_out


def _read(path: Path) -> Any:
    with open(path, encoding="utf-8-sig") as handle:
        return json.load(handle)


def _write(path: Path, value: Any) -> None:
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(value, handle, indent=1)


# -- the simulator against itself -----------------------------------------------------------------------------------
def equivariance_errors(scene: dict, actions: list[str], variant: Variant, tolerance: float = 1e-3,
                        config: dict | None = None) -> list[str]:
    """Replay `actions` on `scene` and on its variant in the embedded simulator and list where the variant's run is
    not the first one mapped: return statuses, object visibility and positions beyond `tolerance` metres (one line
    each).

    This checks the simulator against itself, so it needs no recording, and any scene and actions serve. A run ends
    at the first action the simulator refuses (MCS's ValueError); both runs then stop there."""
    from mcs_plugin.sim.controller import EmbeddedController

    renaming = id_renaming(scene, variant)
    config = {"metadata": "oracle", "render": False, **(config or {})}
    width = int(config.get("size") or MCSConfig().size)
    runs = []
    for run_scene, lines in ((scene, actions), (variant_scene(scene, variant),
                                                [variant_action(line, variant, renaming, width) for line in actions])):
        controller = EmbeddedController(config)
        outputs = [controller.start_scene(run_scene)]
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
            errors.append(f"step {step}: return_status {before.return_status}, {variant} {after.return_status}")
        mapped = {obj.uuid: obj for obj in after.object_list}
        for obj in before.object_list:
            other = mapped.get(renaming.get(obj.uuid, obj.uuid))
            if other is None:
                errors.append(f"step {step}: {obj.uuid} missing when {variant}")
                continue
            if obj.visible != other.visible:
                errors.append(f"step {step}: {obj.uuid} visible {obj.visible}, {variant} {other.visible}")
            x, z = variant.point(obj.position["x"], obj.position["z"])
            off = max(abs(x - other.position["x"]), abs(z - other.position["z"]),
                      abs(obj.position["y"] - other.position["y"]))
            if off > tolerance:
                errors.append(f"step {step}: {obj.uuid} {off:.3f} m off")
    return errors
