"""Goal categories and GoalMetadata: which actions a scene allows at each step."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from mcs_plugin.mcs.action import (
    DEFAULT_ACTIONS,
    Action,
    parse_action_string,
    parse_param_value,
)
from mcs_plugin.mcs.names import MCSName

ActionTuple = tuple[str, dict[str, Any]]


class GoalCategory(MCSName):
    """Goal categories of MCS 0.7.4 plus the legacy transferral and traversal ones."""

    AGENTS = "agents"
    IMITATION = "imitation"
    INTUITIVE_PHYSICS = "intuitive physics"
    PASSIVE = "passive"
    RETRIEVAL = "retrieval"
    MULTI_RETRIEVAL = "multi retrieval"
    TRANSFERRAL = "transferral"
    TRAVERSAL = "traversal"



PASSIVE_CATEGORIES: frozenset[str] = frozenset(
    {GoalCategory.AGENTS.value, GoalCategory.INTUITIVE_PHYSICS.value, GoalCategory.PASSIVE.value}
)


def end_scene_record(choice: Any, confidence: Any, answer: Any, steps: int) -> dict[str, Any]:
    """What `end_scene` returns on every backend: the choice and confidence given, the scene's expected choice
    (`goal.answer.choice`, None if it has none), whether they agree (None if either is missing), steps taken."""
    expected = answer.get("choice") if isinstance(answer, Mapping) else None
    return {"choice": choice, "confidence": confidence, "answer": expected,
            "correct": None if expected is None or choice is None else choice == expected, "steps": steps}


def _normalize_param(value: Any) -> Any:
    """Comparison form of a parameter: numeric strings -> numbers, integral floats -> int (as MCS does)."""
    if isinstance(value, str):
        value = parse_param_value(value.strip())
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def params_match(allowed: Mapping[str, Any], given: Mapping[str, Any]) -> bool:
    """MCS rule: an entry without params allows any params, else every given param must equal the allowed one."""
    return not allowed or all(
        key in allowed and _normalize_param(allowed[key]) == _normalize_param(value) for key, value in given.items()
    )


def _as_action_tuple(entry: str | Sequence[Any]) -> ActionTuple:
    if isinstance(entry, str):
        return parse_action_string(entry)
    action, params = entry
    return str(action), dict(params)


@dataclass
class GoalMetadata:
    """The scene goal as the controller uses it (MCS GoalMetadata).

    `action_list` holds, per step after the preview phase, the allowed (action, params) tuples; strings such as
    'EndHabituation,xPosition=1' are parsed on construction. None means no restriction at all.
    """

    action_list: list[list[ActionTuple]] | None = None
    category: str = ""
    description: str = ""
    habituation_total: int = 0
    last_preview_phase_step: int = 0
    last_step: int | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    steps_allowed_in_lava: int = 0
    triggered_by_target_sequence: list[str] | None = None

    def __post_init__(self) -> None:
        if self.action_list is not None:
            self.action_list = [[_as_action_tuple(entry) for entry in step] for step in self.action_list]

    @property
    def is_passive_category(self) -> bool:
        """True for the passive (violation-of-expectation) categories: agents, intuitive physics, passive."""
        return self.category in PASSIVE_CATEGORIES

    def target_ids(self) -> list[str]:
        """Ids of the goal objects named by metadata `target`, `targets`, `target_1` and `target_2`, in that order."""
        ids: list[str] = []
        for key in ("target", "targets", "target_1", "target_2"):
            value = self.metadata.get(key)
            entries = value if isinstance(value, list) else [value]
            for entry in entries:
                if isinstance(entry, Mapping) and isinstance(entry.get("id"), str) and entry["id"] not in ids:
                    ids.append(entry["id"])
        return ids

    def _scripted_actions_at_step(self, step: int) -> list[ActionTuple] | None:
        """The scene's own non-empty action list for `step`, or None where the scene restricts nothing."""
        if self.action_list is None:
            return None
        index = step - self.last_preview_phase_step
        if 0 <= index < len(self.action_list) and self.action_list[index]:
            return self.action_list[index]
        return None

    def _unfiltered_action_list_at_step(
        self, step: int, steps_on_lava: int, triggered_by_sequence_incorrect: bool, is_passive: bool
    ) -> list[ActionTuple]:
        if steps_on_lava > self.steps_allowed_in_lava or triggered_by_sequence_incorrect:
            return [(Action.END_SCENE.value, {})]
        if self.action_list is not None:
            if step < self.last_preview_phase_step:
                return [(Action.PASS.value, {})]
            if self.last_step is not None and step >= self.last_step:
                return []
            scripted = self._scripted_actions_at_step(step)
            if scripted is not None:
                return scripted
        if is_passive:
            return [(Action.PASS.value, {})]
        return [(name, {}) for name in DEFAULT_ACTIONS]

    def retrieve_action_list_at_step(
        self,
        step: int,
        steps_on_lava: int = 0,
        triggered_by_sequence_incorrect: bool = False,
        is_passive: bool = False,
    ) -> list[ActionTuple]:
        """Actions allowed after `step` steps, as in StepMetadata.action_list (EndHabituation params hidden)."""
        actions = self._unfiltered_action_list_at_step(step, steps_on_lava, triggered_by_sequence_incorrect, is_passive)
        hidden = Action.END_HABITUATION.value
        return [(action, {} if action == hidden else dict(params)) for action, params in actions]

    def hidden_params_at_step(self, step: int) -> dict[str, Any]:
        """The scripted EndHabituation params (xPosition, zPosition, yRotation) for `step`, or {} if none."""
        for action, params in self._scripted_actions_at_step(step) or []:
            if action == Action.END_HABITUATION.value:
                return dict(params)
        return {}

    def is_action_allowed(
        self,
        step: int,
        action: Action | str,
        params: Mapping[str, Any] | None = None,
        steps_on_lava: int = 0,
        triggered_by_sequence_incorrect: bool = False,
        is_passive: bool = False,
    ) -> bool:
        """Whether `action` with `params` is in the action list at `step` (params of EndHabituation are ignored)."""
        name = str(action)
        given = {} if name == Action.END_HABITUATION.value else dict(params or {})
        allowed = self.retrieve_action_list_at_step(step, steps_on_lava, triggered_by_sequence_incorrect, is_passive)
        return any(name == entry and params_match(entry_params, given) for entry, entry_params in allowed)

    def to_dict(self) -> dict[str, Any]:
        """Plain-dict form for history files and JSON (action tuples become [action, params] lists)."""
        return {
            "action_list": None
            if self.action_list is None
            else [[[action, dict(params)] for action, params in step] for step in self.action_list],
            "category": self.category,
            "description": self.description,
            "habituation_total": self.habituation_total,
            "last_preview_phase_step": self.last_preview_phase_step,
            "last_step": self.last_step,
            "metadata": copy.deepcopy(self.metadata),
            "steps_allowed_in_lava": self.steps_allowed_in_lava,
            "triggered_by_target_sequence": None
            if self.triggered_by_target_sequence is None
            else list(self.triggered_by_target_sequence),
        }
