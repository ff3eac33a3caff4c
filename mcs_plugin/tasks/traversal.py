"""Traversal: move next to the target object (within reach of it)."""

from __future__ import annotations

from mcs_plugin.mcs import StepMetadata
from mcs_plugin.mcs.goals import Extent, traversal_holds, traversal_id
from mcs_plugin.tasks.actions import TRAVERSAL_ACTIONS
from mcs_plugin.tasks.base import MCSTask


class TraversalTask(MCSTask):
    """Reach the goal's target; the goal holds once the performer is within reach of its footprint."""

    default_actions = TRAVERSAL_ACTIONS

    def goal_achieved(self, output: StepMetadata) -> bool:
        """The performer stands within reach of the target's footprint (oracle metadata)."""
        if output.goal is None or output.position is None:
            return super().goal_achieved(output)
        target_id = traversal_id(output.goal)
        target = next((o for o in output.object_list if o.uuid == target_id), None)
        if target is None or not target.dimensions:
            return False
        return traversal_holds(output.position["x"], output.position["z"], Extent.of_metadata(target))
