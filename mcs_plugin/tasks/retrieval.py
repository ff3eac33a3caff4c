"""Retrieval, multi retrieval and imitation: pick the target(s) up (imitation: after opening the containers in
the order an agent demonstrated). Success is MCS's test, `mcs_plugin.mcs.goals.retrieval_achieved`."""

from __future__ import annotations

from typing import Any, Optional

from mcs_plugin.mcs import StepMetadata
from mcs_plugin.mcs.goals import progress_target, retrieval_achieved
from mcs_plugin.tasks.actions import RETRIEVAL_ACTIONS
from mcs_plugin.tasks.base import MCSTask


class RetrievalTask(MCSTask):
    """Pick up the goal's target; success ends the episode by default."""

    default_actions = RETRIEVAL_ACTIONS

    def __init__(self, *args: Any, **kwargs: Any):
        self._picked: set[str] = set()  # goal targets seen held so far (MCS counts a target once picked up)
        super().__init__(*args, **kwargs)

    def _note_held(self, output: StepMetadata) -> set[str]:
        """Remember the goal's targets held in this output; the ids held now."""
        held = {o.uuid for o in output.object_list if o.held}
        ids = set(self.task_info.get("target_ids") or [])
        self._picked |= held & ids
        return held

    def goal_achieved(self, output: StepMetadata) -> bool:
        """Enough of the goal's targets were picked up (all of them, or `pickup_number`)."""
        self._note_held(output)
        return output.goal is not None and retrieval_achieved(output.goal, self._picked)

    def target_id(self, output: StepMetadata) -> Optional[str]:
        """The first target not picked up yet."""
        if output.goal is None:
            return super().target_id(output)
        return progress_target(output.goal, self._note_held(output), self._picked)


class MultiRetrievalTask(RetrievalTask):
    """Pick up `pickup_number` of the goal's targets (all by default, in any order); progress is toward the nearest
    target not picked up yet."""

    def target_id(self, output: StepMetadata) -> Optional[str]:
        """The nearest target not picked up yet."""
        held = self._note_held(output)
        remaining = [i for i in self.task_info.get("target_ids") or [] if i not in held and i not in self._picked]
        if not remaining or output.position is None:
            return remaining[0] if remaining else None
        positions = {o.uuid: o.position for o in output.object_list}

        def distance(object_id: str) -> float:
            p = positions.get(object_id)
            return float("inf") if p is None else (p["x"] - output.position["x"]) ** 2 + (p["z"] - output.position["z"]) ** 2
        return min(remaining, key=distance)


class ImitationTask(RetrievalTask):
    """Open the containers of `triggeredByTargetSequence` in the demonstrated order (a wrong one ends the scene),
    then pick up the target; progress is toward the next container of the sequence, then the target."""

    def __init__(self, *args: Any, **kwargs: Any):
        self._opened_containers: set[str] = set()
        super().__init__(*args, **kwargs)

    def goal_achieved(self, output: StepMetadata) -> bool:
        """The target was picked up and no container was opened out of order."""
        return not output.triggered_by_sequence_incorrect and super().goal_achieved(output)

    def target_id(self, output: StepMetadata) -> Optional[str]:
        """The next container of the sequence still closed, then the target."""
        if output.goal is None:
            return super().target_id(output)
        self._opened_containers |= {o.uuid for o in output.object_list if o.is_open}
        return progress_target(output.goal, self._note_held(output), self._picked, self._opened_containers)
