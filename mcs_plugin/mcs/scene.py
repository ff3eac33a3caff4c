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

from mcs_plugin.mcs.action import Action, parse_action_string
from mcs_plugin.mcs.goal import PASSIVE_CATEGORIES, GoalCategory, GoalMetadata
from mcs_plugin.mcs.limits import (
    MAX_ANGLE,
    MAX_ANGULAR_VELOCITY,
    MAX_COEFFICIENT,
    MAX_COORDINATE,
    MAX_FORCE,
    MAX_MASS,
    MAX_OBJECT_SIZE,
    MAX_ROOM_SIZE,
    MAX_SCALE,
    MAX_STEP,
)
from mcs_plugin.mcs.params import check_params
from mcs_plugin.sim import catalog

DEFAULT_ROOM_DIMENSIONS: dict[str, float] = {"x": 10.0, "y": 3.0, "z": 10.0}
WALL_THICKNESS = 0.5  # metres; the floor slab reaches this far under the walls
INTUITIVE_PHYSICS_FLOOR_WIDTH = 40.0  # metres: intuitive-physics floors run past the side walls (objects enter there)
MAX_DEPTH_BELOW_FLOOR = 1.0  # metres: the lowest an object may be shown or teleported (physics objects would fall)


def _truncate_float(value: Any) -> Any:
    return int(value) if isinstance(value, float) and math.isfinite(value) else value


def _check_action_string(value: str) -> str:
    """A known action whose parameters pass the same checks as a step (EndHabituation's teleport included)."""
    action, params = parse_action_string(value)
    if action not in _ACTION_NAMES:
        raise ValueError(f"unknown action {action!r} in {value!r}")
    check_params(action, params)
    return value


def _check_object_type(value: str) -> str:
    """A type the simulator's catalog knows (the message suggests close names)."""
    try:
        catalog.get_object_type(value)  # cached: the world builds it next anyway
    except catalog.UnknownObjectTypeError as error:
        raise ValueError(error.message) from None
    return value


_ACTION_NAMES = frozenset(a.value for a in Action)
GOAL_CATEGORIES: frozenset[str] = frozenset(c.value for c in GoalCategory)

# Bounded numbers (limits.py); every float is also finite (SceneModel's allow_inf_nan=False).
Int = Annotated[int, BeforeValidator(_truncate_float), Field(ge=-MAX_STEP, le=MAX_STEP)]
Coordinate = Annotated[float, Field(ge=-MAX_COORDINATE, le=MAX_COORDINATE)]
Cell = Annotated[int, BeforeValidator(_truncate_float), Field(ge=-MAX_COORDINATE, le=MAX_COORDINATE)]
Angle = Annotated[float, Field(ge=-MAX_ANGLE, le=MAX_ANGLE)]
ScaleFactor = Annotated[float, Field(gt=0.0, le=MAX_SCALE)]
Force = Annotated[float, Field(ge=-MAX_FORCE, le=MAX_FORCE)]
Coefficient = Annotated[float, Field(ge=0.0, le=MAX_COEFFICIENT)]
Fraction = Annotated[float, Field(ge=0.0, le=1.0)]
RoomSize = Annotated[float, Field(le=MAX_ROOM_SIZE)]
ActionString = Annotated[str, AfterValidator(_check_action_string)]
ObjectType = Annotated[str, AfterValidator(_check_object_type)]


def _nonfinite_path(value: Any, path: str) -> str | None:
    """The JSON path (relative) of the first NaN or infinity inside a JSON-like value, else None."""
    if isinstance(value, float):
        return None if math.isfinite(value) else path
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, item in items:
        found = _nonfinite_path(item, f"{path}[{key}]" if isinstance(key, int) else f"{path}.{key}")
        if found is not None:
            return found
    return None


class SceneModel(BaseModel):
    """Base of all scene models: camelCase aliases, snake_case names also accepted, extra keys ignored."""

    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, extra="ignore", coerce_numbers_to_str=True,
        allow_inf_nan=False,
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
    """A point or offset {x, y, z} in metres (|value| <= MAX_COORDINATE)."""

    x: Coordinate = 0.0
    y: Coordinate = 0.0
    z: Coordinate = 0.0


class Rotation(SceneModel):
    """Euler angles {x, y, z} in degrees (|value| <= MAX_ANGLE)."""

    x: Angle = 0.0
    y: Angle = 0.0
    z: Angle = 0.0


class Scale(SceneModel):
    """Scale factors {x, y, z} (0 < value <= MAX_SCALE); a single number scales all three axes."""

    x: ScaleFactor = 1.0
    y: ScaleFactor = 1.0
    z: ScaleFactor = 1.0

    @model_validator(mode="before")
    @classmethod
    def _uniform(cls, value: Any) -> Any:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return {"x": value, "y": value, "z": value}
        return value


class ForceVector(SceneModel):
    """A force (N) or torque (N*m) {x, y, z} (|value| <= MAX_FORCE)."""

    x: Force = 0.0
    y: Force = 0.0
    z: Force = 0.0


class RoomDimensions(SceneModel):
    """Room size {x, y, z} in metres (<= MAX_ROOM_SIZE; zero or negative means the default on that axis)."""

    x: RoomSize = 0.0
    y: RoomSize = 0.0
    z: RoomSize = 0.0


class Vector2(SceneModel):
    """A floor point {x, z} in metres (agent movement end points)."""

    x: Coordinate = 0.0
    z: Coordinate = 0.0


class HoleOrLava(SceneModel):
    """A 1x1 m floor cell centred on integer {x, z} (holes, lava, floor texture positions)."""

    x: Cell = 0
    z: Cell = 0


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
    rotation: Rotation = Field(default_factory=Rotation)
    scale: Scale = Field(default_factory=Scale)
    bounding_box: list[Vector3] | None = None


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
    vector: ForceVector = Field(default_factory=ForceVector)
    impulse: bool = False
    relative: bool = False
    repeat: bool = False
    step_wait: Int = 0


class Teleport(SceneModel):
    """Set an object's position (and rotation, if given) at step_begin."""

    step_begin: Int = 0
    position: Vector3 = Field(default_factory=Vector3)
    rotation: Rotation | None = None


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
    size: Scale = Field(default_factory=Scale)
    repeat: bool = False
    step_wait: Int = 0


class LidAttachment(SceneModel):
    """Attach this lid to the container `lid_attachment_obj_id` at step_begin."""

    step_begin: Int = 0
    lid_attachment_obj_id: str = ""


class LipGap(SceneModel):
    """An opening in a platform lip, as fractions [low, high] of that side."""

    low: Fraction = 0.0
    high: Fraction = 0.0


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
    angular_drag: Coefficient | None = None
    bounciness: Fraction | None = None
    drag: Coefficient | None = None
    dynamic_friction: Coefficient | None = None
    static_friction: Coefficient | None = None


class Transform(SceneModel):
    """A local transform (nullParent pivot)."""

    position: Vector3 = Field(default_factory=Vector3)
    rotation: Rotation = Field(default_factory=Rotation)
    scale: Scale = Field(default_factory=Scale)


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
    type: ObjectType
    shows: list[ShowConfig] = Field(default_factory=list)
    mass: Annotated[float, Field(gt=0.0, le=MAX_MASS)] | None = None
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
    reset_center_of_mass_at_y: Coordinate | None = None
    max_angular_velocity: Annotated[float, Field(ge=0.0, le=MAX_ANGULAR_VELOCITY)] | None = None
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

    @field_validator("metadata", "answer")
    @classmethod
    def _finite_numbers(cls, value: Any) -> Any:
        """Free-form goal values are passed on in every output: no NaN or infinity inside them."""
        try:  # JSON's C encoder rejects NaN and infinity quickly; walk the value only to name where
            json.dumps(value, allow_nan=False)
            return value
        except (ValueError, TypeError):
            where = _nonfinite_path(value, "")
        if where is not None:
            raise ValueError(f"non-finite number at {where or 'the top'}")
        return value


class PerformerStart(SceneModel):
    """Performer start: position (y is snapped to the floor below) and rotation (x = head tilt, y = yaw)."""

    position: Vector3 = Field(default_factory=Vector3)
    rotation: Rotation = Field(default_factory=Rotation)


class FloorTexture(SceneModel):
    """A floor material applied to 1x1 m cells."""

    material: str = ""
    positions: list[HoleOrLava] = Field(default_factory=list)


class PartitionFloor(SceneModel):
    """Fraction (0..1) of the left and right floor halves that is lava."""

    left_half: Fraction = 0.0
    right_half: Fraction = 0.0


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

    name: str = ""  # optional in MCS 0.7.4
    version: Int | None = None
    room_dimensions: RoomDimensions = Field(default_factory=lambda: RoomDimensions(**DEFAULT_ROOM_DIMENSIONS))
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

    @model_validator(mode="before")
    @classmethod
    def _observation_is_intuitive_physics(cls, data: Any) -> Any:
        """MCS honours the deprecated `observation` flag as `intuitivePhysics` (MCSMain.AdjustRoomStructuralObjects)."""
        if isinstance(data, dict) and data.get("observation") is True:
            return {**data, "intuitivePhysics": True}
        return data

    @field_validator("room_dimensions")
    @classmethod
    def _default_room_dimensions(cls, value: RoomDimensions) -> RoomDimensions:
        """Zero (or negative) dimensions mean the default 10 x 3 x 10 room, per axis."""
        return RoomDimensions(**{axis: v if v > 0 else DEFAULT_ROOM_DIMENSIONS[axis] for axis, v in value})

    def floor_size(self) -> tuple[float, float]:
        """(x, z) extent of the floor, in metres, without the slab under the walls."""
        x, z = self.room_dimensions.x, self.room_dimensions.z
        return (max(x, INTUITIVE_PHYSICS_FLOOR_WIDTH), z) if self.intuitive_physics else (x, z)

    def floor_half_extents(self) -> tuple[float, float]:
        """(x, z) half extents of the floor slab, which reaches under the walls."""
        floor_x, floor_z = self.floor_size()
        return floor_x / 2 + WALL_THICKNESS, floor_z / 2 + WALL_THICKNESS

    def on_floor(self, x: float, z: float) -> bool:
        """Whether an (x, z) point lies above the floor slab (walls included)."""
        half_x, half_z = self.floor_half_extents()
        return abs(x) <= half_x and abs(z) <= half_z

    def has_fixed_camera(self) -> bool:
        """Whether the scene fixes the camera (intuitive physics, isometric views): MCS builds no ceiling there."""
        return self.intuitive_physics or self.isometric or self.isometric_front_right

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
    """Checks beyond types on the raw dict: non-empty object ids and types, a first show per object.

    Ids may repeat, as MCS allows (Eval-7 shape-constancy scenes swap in an object under the same id).
    """
    problems: list[str] = []
    objects = data.get("objects")
    for index, obj in enumerate(objects if isinstance(objects, list) else []):
        if not isinstance(obj, dict):
            continue
        path = f"objects[{index}]"
        for key in ("id", "type"):
            if isinstance(obj.get(key), str) and not obj[key].strip():
                problems.append(_problem(f"{path}.{key}", f"object {key} must not be empty"))
        shows = obj.get("shows")
        if shows is None or (isinstance(shows, list) and not shows):
            problems.append(_problem(f"{path}.shows", "object has no shows; shows[0] is required to place it"))
    return problems


def _placement_problem(scene: Scene, path: str, position: Vector3) -> str | None:
    """Why a shown or teleported object position is unusable (off the floor, or too deep below it), else None."""
    if not scene.on_floor(position.x, position.z):
        half_x, half_z = scene.floor_half_extents()
        return _problem(path, f"({position.x}, {position.z}) lies off the floor (|x| <= {half_x}, |z| <= {half_z})")
    if position.y < -MAX_DEPTH_BELOW_FLOOR:
        return _problem(f"{path}.y", f"{position.y} is more than {MAX_DEPTH_BELOW_FLOOR} m below the floor")
    return None


def _scene_problems(scene: Scene) -> list[str]:
    """Checks that need the whole parsed scene: object extents, placements and the performer start on the floor."""
    problems: list[str] = []
    start = scene.performer_start.position
    if not scene.on_floor(start.x, start.z):
        problems.append(_problem("performerStart.position", f"({start.x}, {start.z}) lies outside the room"))
    for index, obj in enumerate(scene.objects):
        path = f"objects[{index}]"
        size = catalog.get_object_type(obj.type).size
        scales = [(f"{path}.shows[{i}].scale", show.scale) for i, show in enumerate(obj.shows)]
        if obj.shows:
            first = obj.shows[0].scale
            scales += [(f"{path}.resizes[{i}].size", Scale(x=first.x * r.size.x, y=first.y * r.size.y,
                                                              z=first.z * r.size.z)) for i, r in enumerate(obj.resizes)]
        for where, scale in scales:
            extent = max(size[0] * scale.x, size[1] * scale.y, size[2] * scale.z)
            if extent > MAX_OBJECT_SIZE:
                problems.append(_problem(where, f"makes {obj.type} {extent:.4g} m long (at most {MAX_OBJECT_SIZE})"))
        places = [(f"{path}.shows[{i}].position", show.position) for i, show in enumerate(obj.shows)]
        places += [(f"{path}.teleports[{i}].position", t.position) for i, t in enumerate(obj.teleports)]
        problems += filter(None, (_placement_problem(scene, where, position) for where, position in places))
    category = scene.goal.category if scene.goal is not None else ""
    if category and category not in GOAL_CATEGORIES:
        allowed = ", ".join(sorted(GOAL_CATEGORIES))
        problems.append(_problem("goal.category", f"unknown goal category {category!r}; allowed: {allowed}"))
    return problems


def goal_problems(scene: Scene) -> list[str]:
    """Goal consistency `mcs-plugin validate` reports beyond what start_scene checks: every goal target id names
    an object of the scene (MCS 0.7.4 itself does not check this, and some of its recorded test scenes fail it)."""
    ids = {obj.id for obj in scene.objects}
    problems = []
    metadata = scene.goal.metadata if scene.goal is not None else {}
    for key in ("target", "targets", "target_1", "target_2"):
        value = metadata.get(key)
        for index, entry in enumerate(value if isinstance(value, list) else [value]):
            where = f"goal.metadata.{key}" + (f"[{index}]" if isinstance(value, list) else "")
            target_id = entry.get("id") if isinstance(entry, dict) else None
            if target_id is not None and target_id not in ids:
                problems.append(_problem(f"{where}.id", f"goal target {target_id!r} is not an object of the scene"))
    return problems


def _validate(data: Any) -> tuple[Scene | None, list[str]]:
    """The parsed scene (None if it has type errors) and every problem, as 'path: message' strings."""
    if not isinstance(data, dict):
        return None, [f"scene must be a JSON object, got {type(data).__name__}"]
    try:
        scene, problems = Scene.model_validate(data), []
    except ValidationError as error:
        scene, problems = None, [_describe_error(details) for details in error.errors()]
    problems += _structure_problems(data)
    if scene is not None and not problems:
        problems += _scene_problems(scene)
    return scene, problems


def load_scene_json_file(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Read a scene file as a dict (utf-8-sig: a BOM is fine); invalid JSON or text raises SceneError naming it."""
    with open(path, "rb") as handle:
        raw = handle.read()
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise SceneError(os.fspath(path), [f"byte {error.start}: not UTF-8 text ({error.reason})"]) from None
    try:
        return json.loads(text)
    except RecursionError:
        raise SceneError(os.fspath(path), ["JSON nested too deeply"]) from None
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
    except OSError as error:
        return [f"{source}: cannot read file: {error.strerror or error}"]
    scene, problems = _validate(data)
    if scene is not None and not problems:
        problems = goal_problems(scene)
    return [f"{source}: {problem}" for problem in problems]
