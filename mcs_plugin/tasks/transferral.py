"""Transferral: pick up target_1 and put it next to or on top of target_2."""

from __future__ import annotations

from typing import Optional

from mcs_plugin.mcs import StepMetadata
from mcs_plugin.tasks.actions import TRANSFERRAL_ACTIONS
from mcs_plugin.tasks.base import MCSTask


class TransferralTask(MCSTask):
    """Carry target_1 to target_2; progress is toward target_1 until it is held, then toward target_2."""

    default_actions = TRANSFERRAL_ACTIONS

    def target_id(self, output: StepMetadata) -> Optional[str]:
        """target_1 until it is held, then target_2."""
        ids = self.task_info.get("target_ids") or []
        if len(ids) < 2:
            return ids[0] if ids else None
        held = any(o.held and o.uuid == ids[0] for o in output.object_list)
        return ids[1] if held else ids[0]
