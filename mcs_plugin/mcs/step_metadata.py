"""StepMetadata: the output of start_scene and of every step."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from mcs_plugin.mcs.goal import ActionTuple, GoalMetadata
from mcs_plugin.mcs.object_metadata import ObjectMetadata, to_jsonable

if TYPE_CHECKING:
    import numpy as np
    from PIL import Image

IMAGE_FIELDS: tuple[str, ...] = ("image_list", "depth_map_list", "object_mask_list")


@dataclass
class StepMetadata:
    """One step output (MCS StepMetadata; fields absent from a metadata tier stay None or empty).

    `image_list` and `object_mask_list` hold RGB PIL images, `depth_map_list` float32 (H, W) arrays in metres.
    """

    action_list: list[ActionTuple] = field(default_factory=list)
    camera_aspect_ratio: tuple[int, int] = (0, 0)
    camera_clipping_planes: tuple[float, float] = (0.0, 0.0)
    camera_field_of_view: float = 0.0
    camera_height: float = 0.0
    depth_map_list: list[np.ndarray] = field(default_factory=list)
    goal: GoalMetadata = field(default_factory=GoalMetadata)
    habituation_trial: int | None = None
    haptic_feedback: dict[str, bool] = field(default_factory=dict)
    head_tilt: float = 0.0
    holes: list[tuple[float, float]] | None = None
    image_list: list[Image.Image] = field(default_factory=list)
    lava: list[tuple[float, float, float, float]] | None = None
    object_list: list[ObjectMetadata] = field(default_factory=list)
    object_mask_list: list[Image.Image] = field(default_factory=list)
    performer_radius: float = 0.0
    performer_reach: float = 0.0
    physics_frames_per_second: float = 0.0
    pose: str = "UNDEFINED"
    position: dict[str, float] | None = None
    resolved_object: str | None = None
    resolved_receptacle: str | None = None
    return_status: str = "UNDEFINED"
    reward: float = 0.0
    room_dimensions: dict[str, float] | None = None
    rotation: float | None = 0.0
    segmentation_colors: list[dict[str, Any]] = field(default_factory=list)
    step_number: int = 0
    steps_on_lava: int = 0
    structural_object_list: list[ObjectMetadata] = field(default_factory=list)
    triggered_by_sequence_incorrect: bool = False

    def to_dict(self) -> dict[str, Any]:
        """JSON-serialisable dict of every field except the image, depth and mask lists."""
        return {
            f.name: to_jsonable(getattr(self, f.name)) for f in dataclasses.fields(self) if f.name not in IMAGE_FIELDS
        }

    def copy_without_images(self) -> StepMetadata:
        """A shallow copy with empty image, depth and mask lists (for history and logging)."""
        return dataclasses.replace(self, **{name: [] for name in IMAGE_FIELDS})
