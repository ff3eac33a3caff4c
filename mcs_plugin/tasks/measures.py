"""Episode measures of interactive tasks: the path distance to a target that progress shaping and SPL use."""

from __future__ import annotations

import math
from typing import Optional

import numpy as np

from mcs_plugin.experts.navigation import MOVE_DISTANCE, PERFORMER_REACH, NavigationGraph, NearGoal
from mcs_plugin.mcs import StepMetadata


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
            goal = NearGoal.of_object(target, self.reach)
            held = [o.uuid for o in output.object_list if o.held]
            graph = NavigationGraph.from_metadata(output, ignore=[target_id, *held])
            entry = (graph, graph.goal_field(goal), goal)
            self._fields[target_id] = entry
        graph, field, goal = entry
        x, z = float(output.position["x"]), float(output.position["z"])
        straight = float(goal.gap(x, z)) - self.reach
        if straight <= 0.0:
            return 0.0
        moves = graph.heuristic(field, x, z)
        return straight if math.isinf(moves) else max(moves * MOVE_DISTANCE, straight)
