"""Episode measures of interactive tasks: where the target is from the camera, how far it is along the
navigation graph, and how far the view is from it (what progress shaping, SPL and the target sensor use)."""

from __future__ import annotations

import math
from typing import NamedTuple, Optional

import numpy as np

from mcs_plugin.constants import MOVE_DISTANCE, PERFORMER_REACH
from mcs_plugin.experts.boxes import corner_xyz, obstacle_boxes
from mcs_plugin.experts.goals import NearGoal
from mcs_plugin.experts.graph import NavigationGraph, SharedCache, start_key
from mcs_plugin.mcs import ObjectMetadata, StepMetadata


class TargetView(NamedTuple):
    """A target seen from the camera: x-z distance (m), bearing right of the heading and elevation below the view
    axis (radians, head tilt included), and its metadata."""

    distance: float
    bearing: float
    elevation: float
    target: ObjectMetadata

    @property
    def aim_error(self) -> float:
        """Angle (radians) between the view axis and the direction to the target's centre."""
        cos = math.cos(self.bearing) * math.cos(self.elevation)  # spherical distance from (0, 0)
        return math.acos(max(-1.0, min(1.0, cos)))


def target_view(output: StepMetadata, target_id: Optional[str]) -> Optional[TargetView]:
    """Where a target's bounding-box centre is from the camera (None without oracle positions or the target)."""
    target = next((o for o in output.object_list if o.uuid == target_id), None) if target_id else None
    if target is None or output.position is None or output.rotation is None:
        return None
    corners = target.dimensions or [target.position]
    cx = sum(c["x"] for c in corners) / len(corners) - output.position["x"]
    cy = sum(c["y"] for c in corners) / len(corners) - output.position["y"]  # position y is the camera's
    cz = sum(c["z"] for c in corners) / len(corners) - output.position["z"]
    flat = math.hypot(cx, cz)
    bearing = math.atan2(cx, cz) - math.radians(output.rotation)  # Unity yaw: 0 faces +z, clockwise
    bearing = math.atan2(math.sin(bearing), math.cos(bearing))
    elevation = math.atan2(-cy, flat) - math.radians(output.head_tilt or 0.0)  # positive: below the view axis
    return TargetView(flat, bearing, elevation, target)


_FIELDS = SharedCache(128)  # fields kept per process: samplers looping over their shares of scenes build each once


def _shared_field(output: StepMetadata, target: ObjectMetadata, reach: float) -> tuple[NavigationGraph, np.ndarray, NearGoal]:
    """The graph, distance field and goal of a target, shared within a process by every episode that starts the
    same way (a training sampler starts each of its scenes many times)."""
    ignore = [target.uuid, *(o.uuid for o in output.object_list if o.held)]
    corners = np.asarray([corner_xyz(c) for c in target.dimensions])
    key = (start_key(output, ((i, b.corners) for i, b in obstacle_boxes(output, ignore))), target.uuid,
           np.round(corners, 3).tobytes(), round(reach, 4))

    def build() -> tuple[NavigationGraph, np.ndarray, NearGoal]:
        goal = NearGoal.of_object(target, reach)
        graph = NavigationGraph.from_metadata(output, ignore=ignore)
        return graph, graph.goal_field(goal), goal

    return _FIELDS.get(key, build)


class PathDistance:
    """Metres along the navigation graph from the performer to within reach of a target object.

    The graph and its distance field are built once per target from the oracle metadata of the step that first
    asks for it (objects that move later do not change the field); where the graph has no path (the target on a
    platform, the performer off the lattice) the straight-line x-z distance to the reach region is used instead.
    """

    def __init__(self, reach: float = PERFORMER_REACH):
        self.reach = float(reach)
        self._fields: dict[str, tuple[NavigationGraph, np.ndarray, NearGoal]] = {}

    def __call__(self, output: StepMetadata, target_id: Optional[str]) -> Optional[float]:
        """The distance in metres (0 once within reach); None without oracle positions or the target."""
        if target_id is None or output.position is None:
            return None
        entry = self._fields.get(target_id)
        if entry is None:
            target = next((o for o in output.object_list if o.uuid == target_id), None)
            if target is None or not target.dimensions:
                return None
            entry = _shared_field(output, target, self.reach)
            self._fields[target_id] = entry
        graph, field, goal = entry
        x, z = float(output.position["x"]), float(output.position["z"])
        straight = float(goal.gap(x, z)) - self.reach
        if straight <= 0.0:
            return 0.0
        moves = graph.heuristic(field, x, z)
        return straight if math.isinf(moves) else max(moves * MOVE_DISTANCE, straight)
