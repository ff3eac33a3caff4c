"""Offline behaviour cloning inside AllenAct: recorded expert episodes replayed as tasks.

A ReplayTask shows the recorded frames in order whatever the policy does, and answers `query_expert`
with the recorded action; AllenAct's Imitation loss (teacher forcing 1) then trains the policy on
the dataset with no simulator running. Sensors are the usual ones: they read `env.last_output`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional, Sequence

import gym
import numpy as np
from allenact.base_abstractions.misc import RLStepResult
from allenact.base_abstractions.sensor import Sensor
from allenact.base_abstractions.task import Task, TaskSampler
from PIL import Image

from mcs_plugin.imitation.dataset import Episode, load_episode, read_index
from mcs_plugin.mcs import StepMetadata, load_scene_json_file, parse_scene
from mcs_plugin.samplers.passes import Passes
from mcs_plugin.samplers.sampler import TRAIN, scene_task_info
from mcs_plugin.samplers.scenes import partition


class ReplayEnvironment:
    """Stands in for MCSEnvironment: `last_output` holds the current recorded frame."""

    def __init__(self, episode: Episode, goal):
        self.episode = episode
        self.goal = goal
        self.frame = 0
        self.last_output = self._output()

    def _output(self) -> StepMetadata:
        rgb = self.episode.rgb[self.frame]
        return StepMetadata(image_list=[Image.fromarray(rgb)], depth_map_list=[self.episode.depth[self.frame]],
                            object_mask_list=[], goal=self.goal, step_number=self.frame,
                            camera_aspect_ratio=(rgb.shape[1], rgb.shape[0]))

    def advance(self) -> bool:
        """Show the next recorded frame; False at the end of the episode."""
        if self.frame + 1 >= len(self.episode):
            return False
        self.frame += 1
        self.last_output = self._output()
        return True


class ReplayTask(Task):
    """One recorded episode; the metric `expert_agreement` is the fraction of steps the policy matched."""

    def __init__(self, env: ReplayEnvironment, sensors: Sequence[Sensor], task_info: dict, max_steps: int,
                 action_count: int, **kwargs: Any):
        super().__init__(env=env, sensors=list(sensors), task_info=task_info, max_steps=max_steps, **kwargs)
        self.action_count = action_count
        self._finished = False
        self._agreed = 0

    @property
    def action_space(self) -> gym.spaces.Discrete:
        """The recorded task's discrete action space."""
        return gym.spaces.Discrete(self.action_count)

    def render(self, mode: str = "rgb", *args, **kwargs) -> np.ndarray:
        """The current recorded frame."""
        return self.env.episode.rgb[self.env.frame]

    def close(self) -> None:
        """Nothing to close."""

    def _step(self, action: int) -> RLStepResult:
        expert = int(self.env.episode.actions[self.env.frame])
        self._agreed += int(int(action) == expert)
        self._finished = not self.env.advance()
        return RLStepResult(observation=self.get_observations(), reward=0.0, done=self.is_done(),
                            info={"last_action_success": True})

    def reached_terminal_state(self) -> bool:
        """The recording ended."""
        return self._finished

    def query_expert(self, **kwargs) -> tuple[int, bool]:
        """The action the expert took on this frame."""
        return int(self.env.episode.actions[self.env.frame]), True

    def metrics(self) -> dict[str, Any]:
        """expert_agreement and ep_length."""
        if not self.is_done():
            return {}
        return {"expert_agreement": self._agreed / max(self.num_steps_taken(), 1), "ep_length": self.num_steps_taken()}


class ReplayTaskSampler(TaskSampler):
    """Replays this process's disjoint share of a dataset's episodes, shuffled each pass (looping when training)."""

    def __init__(self, dataset: str, sensors: Sequence[Sensor], action_count: int, mode: str = TRAIN,
                 process_ind: int = 0, total_processes: int = 1, seed: Optional[int] = None, max_steps: int = 1000,
                 **kwargs: Any):
        self.dataset = Path(dataset)
        self.entries = partition(read_index(self.dataset), process_ind, total_processes, oversample=mode == TRAIN)
        if not self.entries:
            raise ValueError(f"dataset {dataset} has no episodes for process {process_ind} of {total_processes}")
        self.sensors, self.action_count, self.mode, self.max_steps = list(sensors), action_count, mode, max_steps
        self._passes = Passes(self.entries, loop=mode == TRAIN, seed=seed)
        self._last: Optional[ReplayTask] = None

    @property
    def length(self) -> float:
        """Episodes left (infinite when training)."""
        return self._passes.remaining

    @property
    def total_unique(self) -> int:
        """Episodes in this sampler's share."""
        return len(self.entries)

    @property
    def last_sampled_task(self) -> Optional[ReplayTask]:
        """The most recent task."""
        return self._last

    @property
    def all_observation_spaces_equal(self) -> bool:
        """Every task exposes the same sensors."""
        return True

    def reset(self) -> None:
        """Start a new pass over the share."""
        self._passes.reset()

    def set_seed(self, seed: int) -> None:
        """Reseed the shuffling (takes effect at the next pass)."""
        self._passes.set_seed(seed)

    def close(self) -> None:
        """Nothing to close."""

    def next_task(self, force_advance_scene: bool = False) -> Optional[ReplayTask]:
        """The next recorded episode as a task."""
        entry = self._passes.next()
        if entry is None:
            return None
        episode = load_episode(self.dataset, entry)
        scene = load_scene_json_file(episode.scene_path)
        goal = parse_scene(scene, source=episode.scene_path).goal_metadata()
        task_info = scene_task_info(Path(episode.scene_path), scene, goal)
        self._last = ReplayTask(ReplayEnvironment(episode, goal), self.sensors, task_info, self.max_steps,
                                self.action_count)
        return self._last
