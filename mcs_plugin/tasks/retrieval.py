"""Retrieval and multi retrieval: find the target object(s) and pick them up."""

from __future__ import annotations

from typing import Optional

from mcs_plugin.mcs import StepMetadata
from mcs_plugin.tasks.actions import RETRIEVAL_ACTIONS
from mcs_plugin.tasks.base import MCSTask


class RetrievalTask(MCSTask):
    """Pick up the goal's target; success ends the episode by default."""

    default_actions = RETRIEVAL_ACTIONS


class MultiRetrievalTask(RetrievalTask):
    """Pick up `pickup_number` of the goal's targets; progress is toward the nearest target not yet held."""

    def target_id(self, output: StepMetadata) -> Optional[str]:
        """The nearest target that is not held yet."""
        held = {o.uuid for o in output.object_list if o.held}
        remaining = [i for i in self.task_info.get("target_ids") or [] if i not in held]
        if not remaining or output.position is None:
            return remaining[0] if remaining else None
        positions = {o.uuid: o.position for o in output.object_list}
        def distance(object_id: str) -> float:
            p = positions.get(object_id)
            return float("inf") if p is None else (p["x"] - output.position["x"]) ** 2 + (p["z"] - output.position["z"]) ** 2
        return min(remaining, key=distance)
