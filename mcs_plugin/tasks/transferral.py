"""Transferral: pick up target_1 and put it next to or on top of target_2 (success: `mcs_plugin.mcs.goals`)."""

from __future__ import annotations

from typing import Optional

from mcs_plugin.mcs import StepMetadata
from mcs_plugin.mcs.goals import Extent, progress_target, relation_name, transferral_holds, transferral_ids
from mcs_plugin.tasks.actions import TRANSFERRAL_ACTIONS
from mcs_plugin.tasks.base import MCSTask


class TransferralTask(MCSTask):
    """Carry target_1 to target_2; progress is toward target_1 until it is held, then toward target_2."""

    default_actions = TRANSFERRAL_ACTIONS

    def goal_achieved(self, output: StepMetadata) -> bool:
        """target_1, not held, stands in the goal's relationship to target_2 (oracle metadata extents)."""
        if output.goal is None:
            return super().goal_achieved(output)
        first_id, second_id = transferral_ids(output.goal)
        objects = {o.uuid: o for o in list(output.object_list) + list(output.structural_object_list)}
        first, second = objects.get(first_id or ""), objects.get(second_id or "")
        if first is None or second is None or first.held or not first.dimensions or not second.dimensions:
            return False
        return transferral_holds(relation_name((output.goal.metadata or {}).get("relationship")),
                                 Extent.of_metadata(first), Extent.of_metadata(second))

    def target_id(self, output: StepMetadata) -> Optional[str]:
        """target_1 until it is held, then target_2."""
        if output.goal is None:
            ids = self.task_info.get("target_ids") or []
            return ids[0] if ids else None
        return progress_target(output.goal, {o.uuid for o in output.object_list if o.held})
