"""Passive (violation-of-expectation) tasks: watch the scene, then choose an answer with a confidence."""

from __future__ import annotations

from typing import Any, Optional, Sequence

import gym
from allenact.base_abstractions.misc import RLStepResult

from mcs_plugin.mcs import StepMetadata
from mcs_plugin.tasks.base import MCSTask

CONTINUE = "Continue"  # take the scene's scripted action for this step (Pass, EndHabituation, ...)


class PassiveTask(MCSTask):
    """Action 0 plays the scene's allowed action; every other action ends the scene with a choice.

    Action i >= 1 is (choice, confidence) = (choices[(i-1) // n], confidence_levels[(i-1) % n]). A correct
    choice earns `reward_config.success * confidence`, a wrong one loses as much.
    """

    choices: Sequence[str] = ("plausible", "implausible")

    DEFAULT_CONFIDENCE_LEVELS = (0.5, 0.75, 1.0)

    @classmethod
    def action_count(cls, confidence_levels: Sequence[float] = DEFAULT_CONFIDENCE_LEVELS, **task_kwargs: Any) -> int:
        """Continue plus one action per (choice, confidence)."""
        return 1 + len(cls.choices) * len(confidence_levels)

    def __init__(self, *args: Any, confidence_levels: Sequence[float] = DEFAULT_CONFIDENCE_LEVELS, **kwargs: Any):
        self.confidence_levels = tuple(confidence_levels)
        self._choice: Optional[tuple[str, float]] = None
        super().__init__(*args, **kwargs)

    @property
    def action_space(self) -> gym.spaces.Discrete:
        """Continue, then one action per (choice, confidence)."""
        return gym.spaces.Discrete(self.action_count(self.confidence_levels))

    def class_action_names(self) -> tuple[str, ...]:
        """Readable action names, in index order."""
        return (CONTINUE,) + tuple(f"{c}@{p:g}" for c in self.choices for p in self.confidence_levels)

    def _decode(self, action: int) -> tuple[str, float]:
        index = int(action) - 1
        n = len(self.confidence_levels)
        return self.choices[index // n], self.confidence_levels[index % n]

    @property
    def answer(self) -> Optional[str]:
        """The scene's expected choice, when the scene records one."""
        return self.task_info.get("answer")

    def _step(self, action: int) -> RLStepResult:
        reward = 0.0
        if int(action) == 0:
            allowed = self.env.last_output.action_list
            name, params = allowed[0] if allowed else ("Pass", {})
            output = self.env.step(name, **{k: v for k, v in params.items()})
            if output is None or self._scene_ended(output):
                self._scene_over = True
            else:
                self._mcs_reward += float(output.reward or 0.0)
        else:
            choice, confidence = self._decode(action)
            self._choice = (choice, confidence)
            self.env.end_scene(choice, confidence)
            if self.answer is not None:
                reward = self.reward_config.success * confidence * (1.0 if choice == self.answer else -1.0)
        self.last_action_success = True
        return RLStepResult(observation=self.get_observations(), reward=reward, done=self.is_done(),
                            info={"last_action_success": True, "action": self.class_action_names()[int(action)]})

    def reached_terminal_state(self) -> bool:
        """A choice was made or the scene ran out of steps."""
        return self._choice is not None or self._scene_over

    def distance_to_target(self, output: StepMetadata) -> Optional[float]:
        """Passive scenes have no target to approach."""
        return None

    def metrics(self) -> dict[str, Any]:
        """accuracy (0 when no choice was made), chose, confidence, episode length."""
        if not self.is_done():
            return {}
        correct = self._choice is not None and self.answer is not None and self._choice[0] == self.answer
        return {
            "accuracy": float(correct),
            "chose": float(self._choice is not None),
            "confidence": self._choice[1] if self._choice else 0.0,
            "ep_length": self.num_steps_taken(),
            "reward": self.cumulative_reward,
        }

    def query_expert(self, **kwargs) -> tuple[int, bool]:
        """Watch to the last step, then give the recorded answer with full confidence."""
        if self.answer not in self.choices:
            return 0, False
        output = self.env.last_output
        last_step = output.goal.last_step if output.goal is not None else None
        if last_step is not None and output.step_number < last_step - 1:
            return 0, True
        return 1 + self.choices.index(self.answer) * len(self.confidence_levels) + len(self.confidence_levels) - 1, True


class IntuitivePhysicsTask(PassiveTask):
    """Is what happened plausible?"""

    choices = ("plausible", "implausible")


class AgentsTask(PassiveTask):
    """Did the agent behave as expected?"""

    choices = ("expected", "unexpected")
