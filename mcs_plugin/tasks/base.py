"""MCSTask: an AllenAct Task over one MCS scene, with a discrete action vocabulary and shaped reward."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Optional, Sequence

import gym
import numpy as np
from allenact.base_abstractions.misc import RLStepResult
from allenact.base_abstractions.sensor import Sensor
from allenact.base_abstractions.task import Task

from mcs_plugin.mcs import ReturnStatus, StepMetadata
from mcs_plugin.tasks.actions import END, OPEN_OBJECT, ActionVocabulary
from mcs_plugin.tasks.measures import PathDistance, target_view

SUCCESS_STATUSES = {ReturnStatus.SUCCESSFUL.value, ReturnStatus.SUCCESSFUL_WITH_INVALID_PARAMETERS.value}
END_SCENE_ONLY = [("EndScene", {})]


@dataclass(frozen=True)
class RewardConfig:
    """Shaped reward terms, each reported apart in `info["reward_terms"]` and as `reward_<term>` metrics.

    The MCS reward is reported beside them (metric `mcs_reward`). Interactive episodes have no End action, so
    the only way out before `max_steps` is success: quitting can never score better than trying.
    """

    success: float = 10.0  # once, when the goal is achieved
    step: float = -0.01  # every step
    progress: float = 1.0  # per metre the target got closer along the navigation graph (oracle metadata)
    aim: float = 0.5  # per radian the view axis turned toward the target (turns and looks that face it)
    failed_action: float = -0.02  # an action whose return status is not SUCCESSFUL


REWARD_TERMS = ("success", "progress", "aim", "step", "failed_action")
# Expert labels (DAgger): a search budget that finds the expert's plans in generated rooms (a few thousand nodes)
# but bounds a futile search, and how many steps to leave a learner unlabelled after the expert found no way on
# (its searches would fail again from nearby states, at the full cost each time), doubled at each repeat.
LABEL_SEARCH_EXPANSIONS = 20_000
LABEL_RETRY_STEPS = 8


class MCSTask(Task):
    """One MCS scene as an AllenAct task; subclasses define the goal test and the progress measure.

    The environment (`mcs_plugin.MCSEnvironment` or anything with `step`, `last_output` and `end_scene`)
    has already started the scene. Reward and metrics read oracle-tier metadata, so run the environment at
    the oracle tier and let the sensors decide what the policy sees.
    """

    default_actions: Sequence[str] = ()

    def __init__(self, env: Any, sensors: Sequence[Sensor], task_info: dict, max_steps: int,
                 vocabulary: Optional[ActionVocabulary] = None, reward_config: RewardConfig = RewardConfig(),
                 end_on_success: bool = True, **kwargs: Any):
        super().__init__(env=env, sensors=list(sensors), task_info=task_info, max_steps=max_steps, **kwargs)
        self.vocabulary = vocabulary or ActionVocabulary(self.default_actions)
        self.reward_config = reward_config
        self.end_on_success = end_on_success
        self.width, self.height = self._image_size(env.last_output)
        self._ended_by_agent = False
        self._scene_over = False  # the scene's last_step passed, or MCS allows only EndScene
        self._achieved = False
        self._mcs_reward = 0.0
        self._failed_actions = 0
        self._opened: set[str] = set()
        self._reward_sums = dict.fromkeys(REWARD_TERMS, 0.0)
        self._path_distance = PathDistance()
        self._last_distance = self.distance_to_target(env.last_output)
        self._last_aim = self.aim_error(env.last_output)
        self._shortest_path = self._last_distance  # metres from the start to within reach (SPL's optimum)
        self._travelled = 0.0
        start = env.last_output.position
        self._position = None if start is None else (start["x"], start["z"])
        self._expert = None  # created on the first query; False when the goal category has no expert
        self._suggested: Optional[int] = None  # the expert's last label and the action then taken (DAgger: may differ)
        self._taken: Optional[int] = None
        self._unlabelled_steps = 0  # steps left without expert labels after the expert found no way on
        self._label_failures = 0
        self.last_action_success = True

    @staticmethod
    def _image_size(output: StepMetadata) -> tuple[int, int]:
        if output.image_list:
            return output.image_list[-1].size
        return tuple(output.camera_aspect_ratio or (600, 400))

    @classmethod
    def action_count(cls, **task_kwargs: Any) -> int:
        """Size of the action space of tasks of this class made with `task_kwargs` (before any task exists)."""
        vocabulary = task_kwargs.get("vocabulary") or ActionVocabulary(cls.default_actions)
        return len(vocabulary)

    # -- AllenAct API --------------------------------------------------------------------------------
    @property
    def action_space(self) -> gym.spaces.Discrete:
        """One discrete action per vocabulary entry."""
        return gym.spaces.Discrete(len(self.vocabulary))

    def class_action_names(self) -> tuple[str, ...]:
        """Readable action names, in index order."""
        return self.vocabulary.labels()

    def render(self, mode: str = "rgb", *args, **kwargs) -> np.ndarray:
        """The latest RGB frame (H, W, 3 uint8)."""
        images = self.env.last_output.image_list
        return np.asarray(images[-1]) if images else np.zeros((self.height, self.width, 3), np.uint8)

    def close(self) -> None:
        """Tasks share the sampler's environment: nothing to close here."""

    def _step(self, action: int) -> RLStepResult:
        chosen = self.vocabulary[int(action)]
        self._taken = int(action)
        terms = dict.fromkeys(REWARD_TERMS, 0.0)
        terms["step"] = self.reward_config.step
        if chosen.name == END:
            self._ended_by_agent = True
            self.last_action_success = True
        else:
            name, params = chosen.call(self.width, self.height)
            allowed = self._allowed(name)
            if not allowed:  # the scene forbids it now (e.g. a preview phase): play the scene's action instead
                name, params = self.env.last_output.action_list[0]
                terms["failed_action"] += self.reward_config.failed_action
                self._failed_actions += 1
            output = self.env.step(name, **params)
            if output is None:
                self._scene_over = True
                self.last_action_success = False
            else:
                self._account(output, name, terms)
                self.last_action_success = self.last_action_success and allowed
        for term, value in terms.items():
            self._reward_sums[term] += value
        return RLStepResult(
            observation=self.get_observations(),
            reward=sum(terms.values()),
            done=self.is_done(),
            info={"last_action_success": self.last_action_success, "action": chosen.label, "reward_terms": terms},
        )

    def _allowed(self, name: str) -> bool:
        """Whether the scene's action list for this step contains the action."""
        action_list = self.env.last_output.action_list
        return not action_list or any(entry == name for entry, _ in action_list)

    def _account(self, output: StepMetadata, action_name: str, terms: dict[str, float]) -> None:
        """Update episode bookkeeping from a step's output, adding this step's shaped reward to `terms`."""
        config = self.reward_config
        previous = self._position
        self._mcs_reward += float(output.reward or 0.0)
        self.last_action_success = output.return_status in SUCCESS_STATUSES
        if not self.last_action_success:
            self._failed_actions += 1
            terms["failed_action"] += config.failed_action
        if action_name == OPEN_OBJECT and self.last_action_success and output.resolved_object:
            self._opened.add(output.resolved_object)
        if output.position is not None:
            if previous is not None:
                self._travelled += math.hypot(output.position["x"] - previous[0], output.position["z"] - previous[1])
            self._position = (output.position["x"], output.position["z"])
        distance = self.distance_to_target(output)
        if distance is not None and self._last_distance is not None:
            terms["progress"] += config.progress * (self._last_distance - distance)
        self._last_distance = distance
        aim = self.aim_error(output)
        if aim is not None and self._last_aim is not None:
            terms["aim"] += config.aim * (self._last_aim - aim)
        self._last_aim = aim
        if not self._achieved and self.goal_achieved(output):
            self._achieved = True
            terms["success"] += config.success
        if self._scene_ended(output):
            self._scene_over = True

    @staticmethod
    def _scene_ended(output: StepMetadata) -> bool:
        """The scene's last step was taken, or MCS allows nothing but EndScene (the lava rule)."""
        last_step = output.goal.last_step if output.goal is not None else None
        passed_last = last_step is not None and output.step_number >= last_step
        return passed_last or not output.action_list or output.action_list == END_SCENE_ONLY

    def reached_terminal_state(self) -> bool:
        """End taken, the goal achieved (when it ends the episode), the scene's last step, or the lava rule."""
        return self._ended_by_agent or self._scene_over or (self.end_on_success and self._achieved)

    def end_reason(self) -> str:
        """Why the episode ended (or 'running'): success, agent_end, scene_over or max_steps."""
        if self._achieved and self.end_on_success:
            return "success"
        if self._ended_by_agent:
            return "agent_end"
        if self._scene_over:
            return "scene_over"
        return "max_steps" if self.is_done() else "running"

    def metrics(self) -> dict[str, Any]:
        """Numbers only: success, SPL, length, rewards, distance to target, failed actions, objects opened."""
        if not self.is_done():
            return {}
        steps = self.num_steps_taken()
        metrics = {
            "success": float(self._achieved),
            "ep_length": steps,
            "reward": self.cumulative_reward,
            "mcs_reward": self._mcs_reward,
            "failed_actions": self._failed_actions,
            "objects_opened": len(self._opened),
        }
        metrics.update({f"reward_{term}": value for term, value in self._reward_sums.items()})
        # AllenAct keeps "task_info" in each task's row of metrics__*.json and leaves it out of the means
        metrics["task_info"] = {"scene": self.task_info.get("scene_name"), "scene_path": self.task_info.get("scene_path"),
                                "goal_category": self.task_info.get("goal_category"),
                                "difficulty": self.task_info.get("difficulty"), "ended": self.end_reason()}
        if self._last_distance is not None:
            metrics["distance_to_target"] = self._last_distance
        if self._shortest_path is not None:
            # SPL (Anderson et al. 2018): success x shortest path / max(shortest path, path taken), in metres
            best = self._shortest_path
            metrics["spl"] = float(self._achieved) * (1.0 if best <= 0 else best / max(best, self._travelled))
        return metrics

    def query_expert(self, **kwargs) -> tuple[int, bool]:
        """The expert's next action as an index into this task's vocabulary (False when it has none)."""
        from mcs_plugin.experts import NoExpertError, make_expert

        if self._expert is None:
            try:
                names = {action.name for action in self.vocabulary.actions}
                self._expert = make_expert(self.task_info["goal_category"], allowed=names,
                                           max_expansions=LABEL_SEARCH_EXPANSIONS)
            except NoExpertError:
                self._expert = False
        if self._expert is False:
            return 0, False
        if self._unlabelled_steps > 0:
            self._unlabelled_steps -= 1
            return 0, False
        if self._suggested is not None and self._taken != self._suggested:
            self._expert.overruled()  # a learner's action failing is no evidence against the expert's aim
        self._suggested = None
        suggestion = self._expert.next_action(self.env.last_output)
        if suggestion is None:
            # The expert gives up on its own runs (too many failures, going round in circles); labelling a learner's
            # states, it starts afresh from where the learner is instead (DAgger needs labels most there).
            self._expert.reset()
            suggestion = self._expert.next_action(self.env.last_output)
        if suggestion is None:
            self._unlabelled_steps = LABEL_RETRY_STEPS * 2 ** self._label_failures
            self._label_failures += 1
            self._expert.reset()
            return 0, False
        try:
            self._suggested = self.vocabulary.index(suggestion[0])
        except ValueError:
            return 0, False
        return self._suggested, True

    # -- goal-specific ------------------------------------------------------------------------------
    def goal_achieved(self, output: StepMetadata) -> bool:
        """Whether the scene's goal holds, for categories without a rule of their own (the interactive tasks
        override this with `mcs_plugin.mcs.goals`): the simulator's reward is positive exactly then under the default
        (seed) reward mode."""
        return float(output.reward or 0.0) > 0.0

    def target_id(self, output: StepMetadata) -> Optional[str]:
        """The object the agent should currently approach (None when there is none)."""
        ids = self.task_info.get("target_ids") or []
        return ids[0] if ids else None

    def aim_error(self, output: StepMetadata) -> Optional[float]:
        """Radians between the view axis and the current target (None without oracle data or once it is held)."""
        view = target_view(output, self.target_id(output))
        return None if view is None or view.target.held else view.aim_error

    def distance_to_target(self, output: StepMetadata) -> Optional[float]:
        """Metres along the navigation graph from the performer to within reach of the current target (None
        without oracle data)."""
        return self._path_distance(output, self.target_id(output))
