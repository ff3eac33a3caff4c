"""Scene JSON schema (MCS 0.7.4 scene files) as pydantic models, with loading and validation.

Parsing is as tolerant as MCS: unknown keys are ignored, camelCase keys and snake_case field names are both
accepted, booleans accept "true"/"false" strings, numbers are coerced (floats given for integer fields are
truncated, as pydantic v1 did). Problems are reported as SceneError lines naming the file and JSON path.
"""

from __future__ import annotations

import functools
import json
import math
import os
from typing import Annotated, Any, Iterable

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic.alias_generators import to_camel
from pydantic_core import ErrorDetails

from mcs_plugin.mcs.action import parse_action_string
from mcs_plugin.mcs.goal import PASSIVE_CATEGORIES, GoalMetadata

DEFAULT_ROOM_DIMENSIONS: dict[str, float] = {"x": 10.0, "y": 3.0, "z": 10.0}


def _truncate_float(value: Any) -> Any:
    return int(value) if isinstance(value, float) and math.isfinite(value) else value


def _check_action_string(value: str) -> str:
    parse_action_string(value)
    return value


Int = Annotated[int, BeforeValidator(_truncate_float)]
ActionString = Annotated[str, AfterValidator(_check_action_string)]


class SceneModel(BaseModel):
    """Base of all scene models: camelCase aliases, snake_case names also accepted, extra keys ignored."""

    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, extra="ignore", coerce_numbers_to_str=True
    )

    @model_validator(mode="before")
    @classmethod
    def _null_means_default(cls, data: Any) -> Any:
        """A JSON null for an optional key means "not given" (real scenes write e.g. "salientMaterials": null)."""
        if not isinstance(data, dict):
            return data
        required = _required_keys(cls)
        return {key: value for key, value in data.items() if value is not None or key in required}


@functools.cache
def _required_keys(model: type[SceneModel]) -> frozenset[str]:
    """Names and aliases of a model's required fields (a null there stays an error)."""
    return frozenset(key for name, f in model.model_fields.items() if f.is_required() for key in (name, f.alias))


class Vector3(SceneModel):
    """A point, rotation (degrees) or scale {x, y, z}."""

    x: float = 0.0
    y: float = 0.0
    z: float = 0.0


class Vector2(SceneModel):
    """A floor point {x, z} in metres (agent movement end points)."""

    x: float = 0.0
    z: float = 0.0


class HoleOrLava(SceneModel):
    """A 1x1 m floor cell centred on integer {x, z} (holes, lava, floor texture positions)."""

    x: Int = 0
    z: Int = 0


class StepBeginEnd(SceneModel):
    """A step range [step_begin, step_end], optionally repeated every step_wait steps."""

    step_begin: Int = 0
    step_end: Int = 0
    repeat: bool = False
    step_wait: Int = 0


class SingleStep(SceneModel):
    """An event at one step (hides, togglePhysics)."""

    step_begin: Int = 0


class ShowConfig(SceneModel):
    """Pose of an object from step_begin on; shows[0] places it, later shows teleport it."""

    step_begin: Int = 0
    position: Vector3 = Field(default_factory=Vector3)
    rotation: Vector3 = Field(default_factory=Vector3)
    scale: Vector3 = Field(default_factory=lambda: Vector3(x=1.0, y=1.0, z=1.0))
    bounding_box: list[Vector3] | None = None

    @field_validator("scale", mode="before")
    @classmethod
    def _uniform_scale(cls, value: Any) -> Any:
        """A single number scales all three axes."""
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return {"x": value, "y": value, "z": value}
        return value


class MoveConfig(SceneModel):
    """Add `vector` (metres or degrees) every step in [step_begin, step_end] (moves, rotates)."""

    step_begin: Int = 0
    step_end: Int = 0
    vector: Vector3 = Field(default_factory=Vector3)
    repeat: bool = False
    step_wait: Int = 0
    global_space: bool = False


class ForceConfig(SceneModel):
    """Apply a force or torque `vector` (N) every step in [step_begin, step_end] (forces, torques)."""

    step_begin: Int = 0
    step_end: Int = 0
    vector: Vector3 = Field(default_factory=Vector3)
    impulse: bool = False
    relative: bool = False
    repeat: bool = False
    step_wait: Int = 0


class Teleport(SceneModel):
    """Set an object's position (and rotation, if given) at step_begin."""

    step_begin: Int = 0
    position: Vector3 = Field(default_factory=Vector3)
    rotation: Vector3 | None = None


class OpenClose(SceneModel):
    """Scripted opening (open=True) or closing of an object at `step`."""

    step: Int = 0
    open: bool = False


class ChangeMaterial(SceneModel):
    """Replace an object's materials at step_begin."""

    step_begin: Int = 0
    materials: list[str] = Field(default_factory=list)


class SizeChange(SceneModel):
    """Multiply an object's size by `size` over [step_begin, step_end] (resizes)."""

    step_begin: Int = 0
    step_end: Int = 0
    size: Vector3 = Field(default_factory=lambda: Vector3(x=1.0, y=1.0, z=1.0))
    repeat: bool = False
    step_wait: Int = 0


class LidAttachment(SceneModel):
    """Attach this lid to the container `lid_attachment_obj_id` at step_begin."""

    step_begin: Int = 0
    lid_attachment_obj_id: str = ""


class LipGap(SceneModel):
    """An opening in a platform lip, as fractions [low, high] of that side."""

    low: float = 0.0
    high: float = 0.0


class LipGaps(SceneModel):
    """Openings per platform side."""

    front: list[LipGap] = Field(default_factory=list)
    back: list[LipGap] = Field(default_factory=list)
    left: list[LipGap] = Field(default_factory=list)
    right: list[LipGap] = Field(default_factory=list)


class Lips(SceneModel):
    """Raised edges of a platform that block walking off it."""

    front: bool = False
    back: bool = False
    left: bool = False
    right: bool = False
    gaps: LipGaps | None = None


class PhysicsConfig(SceneModel):
    """Friction and drag of an object, floor or wall (unset fields keep Unity defaults)."""

    enable: bool = False
    angular_drag: float | None = None
    bounciness: float | None = None
    drag: float | None = None
    dynamic_friction: float | None = None
    static_friction: float | None = None


class Transform(SceneModel):
    """A local transform (nullParent pivot)."""

    position: Vector3 = Field(default_factory=Vector3)
    rotation: Vector3 = Field(default_factory=Vector3)
    scale: Vector3 = Field(default_factory=lambda: Vector3(x=1.0, y=1.0, z=1.0))


class AgentSettings(SceneModel):
    """Appearance of a simulation agent (render only)."""

    chest: Int = 0
    chest_material: Int = 0
    eyes: Int = 0
    feet: Int = 0
    feet_material: Int = 0
    glasses: Int = 0
    hair: Int = 0
    hair_material: Int = 0
    hat_material: Int = 0
    hide_hair: bool = False
    is_elder: bool = False
    jacket: Int = 0
    jacket_material: Int = 0
    legs: Int = 0
    legs_material: Int = 0
    show_beard: bool = False
    show_glasses: bool = False
    show_jacket: bool = False
    show_tie: bool = False
    skin: Int = 0
    tie: Int = 0
    tie_material: Int = 0


class AgentMovementStep(SceneModel):
    """One leg of an agent's walk: play `animation` while walking to `end_point`."""

    animation: str = ""
    end_point: Vector2 = Field(default_factory=Vector2)


class AgentMovement(SceneModel):
    """A simulation agent's scripted walk starting at step_begin."""

    step_begin: Int = 0
    repeat: bool = False
    sequence: list[AgentMovementStep] = Field(default_factory=list)


class AgentAction(SceneModel):
    """An animation clip of a simulation agent (objects[].actions)."""

    id: str
    step_begin: Int = 0
    step_end: Int | None = None
    is_loop_animation: bool = False


class SceneObject(SceneModel):
    """One object of the scene. Affordance flags and mass are None when the scene leaves the type default."""

    id: str
    type: str
    shows: list[ShowConfig] = Field(default_factory=list)
    mass: float | None = None
    materials: list[str] = Field(default_factory=list)
    material_file: str | None = None
    salient_materials: list[str] = Field(default_factory=list)
    pickupable: bool | None = None
    moveable: bool | None = None
    openable: bool | None = None
    receptacle: bool | None = None
    physics: bool = False
    kinematic: bool = False
    structure: bool = False
    opened: bool = False
    locked: bool = False
    moves: list[MoveConfig] = Field(default_factory=list)
    rotates: list[MoveConfig] = Field(default_factory=list)
    forces: list[ForceConfig] = Field(default_factory=list)
    torques: list[ForceConfig] = Field(default_factory=list)
    teleports: list[Teleport] = Field(default_factory=list)
    hides: list[SingleStep] = Field(default_factory=list)
    shrouds: list[StepBeginEnd] = Field(default_factory=list)
    ghosts: list[StepBeginEnd] = Field(default_factory=list)
    toggle_physics: list[SingleStep] = Field(default_factory=list)
    change_materials: list[ChangeMaterial] = Field(default_factory=list)
    resizes: list[SizeChange] = Field(default_factory=list)
    open_close: list[OpenClose] = Field(default_factory=list)
    lid_attachment: LidAttachment | None = None
    location_parent: str | None = None
    null_parent: Transform | None = None
    center_of_mass: Vector3 | None = None
    reset_center_of_mass: bool = False
    reset_center_of_mass_at_y: float | None = None
    max_angular_velocity: float | None = None
    physics_properties: PhysicsConfig | None = None
    lips: Lips | None = None
    seesaw: bool = False
    states: list[list[str]] = Field(default_factory=list)
    triggered_by: bool = False
    associated_with_agent: str | None = None
    agent_settings: AgentSettings | None = None
    agent_movement: AgentMovement | None = None
    actions: list[AgentAction] = Field(default_factory=list)


class Goal(SceneModel):
    """The scene goal. Keys are snake_case in files (camelCase also accepted); UI-only fields are kept as given."""

    action_list: list[list[ActionString]] | None = None
    category: str = ""
    description: str = ""
    habituation_total: Int = 0
    last_preview_phase_step: Int = 0
    last_step: Int | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    skip_preview_phase: bool = False
    triggered_by_target_sequence: list[str] | None = None
    answer: Any = None
    domains_info: Any = None
    info_list: Any = None
    objects_info: Any = None
    scene_info: Any = None
    task_list: Any = None
    type_list: Any = None


class PerformerStart(SceneModel):
    """Performer start: position (y is snapped to the floor below) and rotation (x = head tilt, y = yaw)."""

    position: Vector3 = Field(default_factory=Vector3)
    rotation: Vector3 = Field(default_factory=Vector3)


class FloorTexture(SceneModel):
    """A floor material applied to 1x1 m cells."""

    material: str = ""
    positions: list[HoleOrLava] = Field(default_factory=list)


class PartitionFloor(SceneModel):
    """Fraction (0..1) of the left and right floor halves that is lava."""

    left_half: float = 0.0
    right_half: float = 0.0


class RoomMaterials(SceneModel):
    """Per-wall materials (render only)."""

    front: str | None = None
    back: str | None = None
    left: str | None = None
    right: str | None = None


def _copy_goal_metadata(metadata: dict | None) -> dict:
    """A copy of goal metadata whose entries can be edited; large values (target images) are shared, not copied."""
    copied = {}
    for key, value in (metadata or {}).items():
        if isinstance(value, dict):
            copied[key] = dict(value)
        elif isinstance(value, list):
            copied[key] = [dict(v) if isinstance(v, dict) else v for v in value]
        else:
            copied[key] = value
    return copied


class Scene(SceneModel):
    """A whole MCS scene file."""

    name: str
    version: Int | None = None
    room_dimensions: Vector3 = Field(default_factory=lambda: Vector3(**DEFAULT_ROOM_DIMENSIONS))
    performer_start: PerformerStart = Field(default_factory=PerformerStart)
    objects: list[SceneObject] = Field(default_factory=list)
    goal: Goal | None = None
    floor_material: str | None = None
    wall_material: str | None = None
    ceiling_material: str | None = None
    room_materials: RoomMaterials | None = None
    floor_textures: list[FloorTexture] = Field(default_factory=list)
    holes: list[HoleOrLava] = Field(default_factory=list)
    lava: list[HoleOrLava] = Field(default_factory=list)
    partition_floor: PartitionFloor | None = None
    intuitive_physics: bool = False
    isometric: bool = False
    isometric_front_right: bool = False
    restrict_open_doors: bool = False
    restrict_open_objects: bool = False
    floor_properties: PhysicsConfig | None = None
    wall_properties: PhysicsConfig | None = None
    toggle_lights: list[StepBeginEnd] = Field(default_factory=list)
    screenshot: bool = False

    @field_validator("room_dimensions")
    @classmethod
    def _default_room_dimensions(cls, value: Vector3) -> Vector3:
        """Zero (or negative) dimensions mean the default 10 x 3 x 10 room, per axis."""
        return Vector3(**{axis: v if v > 0 else DEFAULT_ROOM_DIMENSIONS[axis] for axis, v in value})

    def is_passive(self) -> bool:
        """Passive (VoE) scene: intuitive physics, isometric, or a passive goal category (MCS is_passive_scene)."""
        category = self.goal.category if self.goal is not None else ""
        return self.intuitive_physics or self.isometric or category in PASSIVE_CATEGORIES

    def goal_metadata(self, steps_allowed_in_lava: int = 0) -> GoalMetadata:
        """The GoalMetadata the controller uses (action strings parsed to (action, params) tuples)."""
        goal = self.goal
        if goal is None:
            return GoalMetadata(steps_allowed_in_lava=steps_allowed_in_lava)
        return GoalMetadata(
            action_list=None if goal.action_list is None else [list(step) for step in goal.action_list],
            category=goal.category,
            description=goal.description,
            habituation_total=goal.habituation_total,
            last_preview_phase_step=goal.last_preview_phase_step,
            last_step=goal.last_step,
            metadata=_copy_goal_metadata(goal.metadata),
            steps_allowed_in_lava=steps_allowed_in_lava,
            triggered_by_target_sequence=None
            if goal.triggered_by_target_sequence is None
            else list(goal.triggered_by_target_sequence),
        )

    def object_by_id(self, object_id: str) -> SceneObject | None:
        """The scene object with this id, or None."""
        return next((obj for obj in self.objects if obj.id == object_id), None)


class SceneError(ValueError):
    """A scene MCS would reject; each problem line names the source and the JSON path of the bad value."""

    def __init__(self, source: str, problems: list[str]) -> None:
        self.source = source
        self.problems = problems
        super().__init__("\n".join(self.lines()))

    def lines(self) -> list[str]:
        """One 'source: path: message' line per problem."""
        return [f"{self.source}: {problem}" for problem in self.problems]


def _format_path(loc: Iterable[int | str]) -> str:
    path = ""
    for part in loc:
        path += f"[{part}]" if isinstance(part, int) else (f".{part}" if path else str(part))
    return path


def _problem(path: str, message: str) -> str:
    return f"{path}: {message}" if path else message


def _describe_error(error: ErrorDetails) -> str:
    """'objects[2].shows[0].position.x: Input should be a valid number, got 'abc''."""
    message, given = error["msg"], error.get("input")
    if error["type"] == "value_error":
        message = message.removeprefix("Value error, ")
    elif error["type"] != "missing":
        shown = "an object" if isinstance(given, dict) else "an array" if isinstance(given, list) else repr(given)
        message = f"{message.split(', unable to')[0]}, got {shown}"
    return _problem(_format_path(error["loc"]), message)


def _structure_problems(data: dict[str, Any]) -> list[str]:
    """Checks beyond types: non-empty name, unique non-empty object ids and types, a first show per object."""
    problems: list[str] = []
    name = data.get("name")
    if isinstance(name, str) and not name.strip():
        problems.append(_problem("name", "scene name must not be empty"))
    objects = data.get("objects")
    seen: dict[str, int] = {}
    for index, obj in enumerate(objects if isinstance(objects, list) else []):
        if not isinstance(obj, dict):
            continue
        path = f"objects[{index}]"
        for key in ("id", "type"):
            if isinstance(obj.get(key), str) and not obj[key].strip():
                problems.append(_problem(f"{path}.{key}", f"object {key} must not be empty"))
        object_id = obj.get("id")
        if isinstance(object_id, str) and object_id:
            if object_id in seen:
                first = f"objects[{seen[object_id]}]"
                problems.append(_problem(f"{path}.id", f"duplicate object id {object_id!r} (also {first})"))
            else:
                seen[object_id] = index
        shows = obj.get("shows")
        if shows is None or (isinstance(shows, list) and not shows):
            problems.append(_problem(f"{path}.shows", "object has no shows; shows[0] is required to place it"))
    return problems


def _validate(data: Any) -> tuple[Scene | None, list[str]]:
    """The parsed scene (None if it has type errors) and every problem, as 'path: message' strings."""
    if not isinstance(data, dict):
        return None, [f"scene must be a JSON object, got {type(data).__name__}"]
    try:
        scene, problems = Scene.model_validate(data), []
    except ValidationError as error:
        scene, problems = None, [_describe_error(details) for details in error.errors()]
    return scene, problems + _structure_problems(data)


def load_scene_json_file(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Read a scene file as a dict (utf-8-sig: a BOM is fine); invalid JSON raises SceneError with line and column."""
    with open(path, encoding="utf-8-sig") as handle:
        text = handle.read()
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        problem = f"line {error.lineno} column {error.colno}: invalid JSON: {error.msg}"
        raise SceneError(os.fspath(path), [problem]) from error


def parse_scene(data: dict[str, Any], source: str = "<dict>") -> Scene:
    """Validate a scene dict; raises SceneError listing every problem."""
    scene, problems = _validate(data)
    if scene is None or problems:
        raise SceneError(source, problems)
    return scene


def load_scene(path: str | os.PathLike[str]) -> Scene:
    """Load and validate a scene file."""
    return parse_scene(load_scene_json_file(path), os.fspath(path))


def validate_scene_file(path: str | os.PathLike[str]) -> list[str]:
    """One 'file: path: message' line per problem of a scene file; [] when the scene is valid."""
    source = os.fspath(path)
    try:
        data = load_scene_json_file(path)
    except SceneError as error:
        return error.lines()
    except (OSError, UnicodeDecodeError) as error:
        return [f"{source}: cannot read file: {error}"]
    return [f"{source}: {problem}" for problem in _validate(data)[1]]
