"""MCSSceneTaskSampler: one environment per sampler, one task per scene, looping (train) or one pass (eval)."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any, Callable, Optional, Sequence

from allenact.base_abstractions.sensor import Sensor
from allenact.base_abstractions.task import TaskSampler

from mcs_plugin.environment import MCSEnvironment
from mcs_plugin.host.errors import SimulatorGaveUp
from mcs_plugin.mcs import GoalMetadata, Scene, SceneError, load_scene_json_file, parse_scene
from mcs_plugin.samplers.passes import Passes
from mcs_plugin.samplers.scenes import (
    SceneSource,
    list_scenes,
    partition,
    read_manifest_info,
    scene_goal_category,
)
from mcs_plugin.tasks import MCSTask, task_class_for

LOGGER = logging.getLogger(__name__)
TRAIN, VALID, TEST = "train", "valid", "test"


def default_env_factory(**env_args: Any) -> Callable[[], Any]:
    """A factory of MCSEnvironment (embedded backend, oracle metadata unless configured)."""
    def make() -> Any:
        from mcs_plugin import MCSEnvironment

        return MCSEnvironment(**env_args)
    return make


class MCSSceneTaskSampler(TaskSampler):
    """Samples one MCSTask per scene from this process's disjoint share of the scenes.

    `mode="train"` loops forever over a share reshuffled every pass (seeded); `"valid"`/`"test"` make one
    pass in order, and `reset()` rewinds. Unreadable scenes and environments that give up are logged and
    skipped (or raised, with `strict=True`).
    """

    def __init__(
        self,
        scenes: SceneSource,
        sensors: Sequence[Sensor],
        max_steps: int = 500,
        mode: str = TRAIN,
        process_ind: int = 0,
        total_processes: int = 1,
        seed: Optional[int] = None,
        env_factory: Optional[Callable[[], Any]] = None,
        env_args: Optional[dict] = None,
        task_class: Optional[type[MCSTask]] = None,
        task_kwargs: Optional[dict] = None,
        goal_categories: Optional[Sequence[str]] = None,
        strict: bool = False,
        **kwargs: Any,
    ):
        if mode not in (TRAIN, VALID, TEST):
            raise ValueError(f"mode must be one of train/valid/test, got {mode!r}")
        all_scenes = list_scenes(scenes)
        if goal_categories is not None:
            all_scenes = [p for p in all_scenes if scene_goal_category(p) in set(goal_categories)]
        if not all_scenes:
            raise ValueError(f"no scenes in {scenes!r}" + (f" with goal category in {list(goal_categories)}" if goal_categories else ""))
        self.mode = mode
        self.scenes: list[Path] = partition(all_scenes, process_ind, total_processes, oversample=mode == TRAIN)
        self.manifest = read_manifest_info(scenes)
        self.sensors = list(sensors)
        self.max_steps = max_steps
        self.task_class = task_class
        self.task_kwargs = dict(task_kwargs or {})
        self.strict = strict
        self._env_factory = env_factory or default_env_factory(**(env_args or {"config": {"metadata": "oracle"}}))
        self.env: Any = None
        self._passes = Passes(self.scenes, loop=mode == TRAIN, seed=seed)
        self._last_task: Optional[MCSTask] = None
        self._scene_data: dict[Path, tuple[dict, Scene]] = {}  # read and validated scene files (training)
        self.skipped: list[tuple[str, str]] = []

    # -- AllenAct API ----------------------------------------------------------------------------------
    @property
    def length(self) -> float:
        """Tasks left: infinite when training, else what remains of the pass."""
        return self._passes.remaining

    @property
    def total_unique(self) -> int:
        """Scenes in this sampler's share."""
        return len(self.scenes)

    @property
    def last_sampled_task(self) -> Optional[MCSTask]:
        """The most recent task."""
        return self._last_task

    @property
    def all_observation_spaces_equal(self) -> bool:
        """Every task exposes the same sensors."""
        return True

    def set_seed(self, seed: int) -> None:
        """Reseed the shuffling (takes effect at the next pass)."""
        self._passes.set_seed(seed)

    def reset(self) -> None:
        """Rewind to the start of a pass."""
        self._passes.reset()

    def close(self) -> None:
        """Stop the environment."""
        if self.env is not None:
            stop = getattr(self.env, "stop", None) or getattr(self.env, "stop_simulation")
            stop()
            self.env = None

    def next_task(self, force_advance_scene: bool = False) -> Optional[MCSTask]:
        """Start the next scene and wrap it in its goal's task; None when an evaluation pass is over."""
        attempts = 0
        while attempts < max(len(self.scenes), 1) * 2:
            path = self._passes.next()
            if path is None:
                return None
            attempts += 1
            task = self._try_task(path)
            if task is not None:
                self._last_task = task
                return task
        raise RuntimeError(f"no scene in this sampler's share could be started (skipped: {self.skipped[-5:]})")

    # -- internals ----------------------------------------------------------------------------------
    def _try_task(self, path: Path) -> Optional[MCSTask]:
        try:
            scene, parsed = self._scene_data.get(path) or (load_scene_json_file(path), None)
            if self.mode == TRAIN and parsed is None:  # training revisits its share of scenes: read each file once
                parsed = parse_scene(scene, str(path))
                self._scene_data[path] = scene, parsed
            if self.env is None:
                self.env = self._env_factory()
            if parsed is not None and isinstance(self.env, MCSEnvironment):
                self.env.start_scene(scene, parsed=parsed)
            else:
                self.env.start_scene(scene)
        except (SceneError, SimulatorGaveUp, OSError, ValueError) as error:
            if self.strict:
                raise
            LOGGER.warning("skipping scene %s: %s", path, error)
            self.skipped.append((str(path), str(error)))
            return None
        return self._make_task(path, scene)

    def _make_task(self, path: Path, scene: dict) -> MCSTask:
        goal = self.env.last_output.goal
        task_info = scene_task_info(path, scene, goal, self.manifest.get(str(path.resolve()), {}))
        task_class = self.task_class or task_class_for(task_info["goal_category"])
        return task_class(env=self.env, sensors=self.sensors, task_info=task_info, max_steps=self.max_steps,
                          **self.task_kwargs)


def scene_task_info(path: Path, scene: dict, goal: Optional[GoalMetadata], manifest_entry: Optional[dict] = None) -> dict:
    """What a task knows about its scene: names, goal category and targets, objects, answer, generator difficulty."""
    category = goal.category if goal is not None and goal.category else "retrieval"
    return {
        "scene_name": scene.get("name", Path(path).stem),
        "scene_path": str(path),
        "goal_category": category,
        "target_ids": goal.target_ids() if goal is not None else [],
        "goal_metadata": dict((scene.get("goal") or {}).get("metadata") or {}),
        "objects": scene.get("objects", []),
        "answer": ((scene.get("goal") or {}).get("answer") or {}).get("choice"),
        "difficulty": (manifest_entry or {}).get("difficulty"),
    }
