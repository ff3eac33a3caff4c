"""Shared AllenAct experiment settings for MCS tasks on the embedded simulator.

Every constructor argument can be set from the command line, e.g.
    allenact experiments/mcs_retrieval_ppo.py --config_kwargs '{"scenes": "data/scenes/default/train", "resolution": 64}'
"""

from __future__ import annotations

import os
import random
from abc import ABC
from pathlib import Path
from typing import Any, Optional, Sequence

import gym
import torch
import torch.optim as optim
from allenact.base_abstractions.experiment_config import ExperimentConfig, MachineParams
from allenact.base_abstractions.sensor import ExpertActionSensor, Sensor, SensorSuite
from allenact.utils.experiment_utils import Builder, LinearDecay, TrainingPipeline
from torch.optim.lr_scheduler import LambdaLR

from mcs_plugin.models import MCSActorCritic
from mcs_plugin.samplers import MCSSceneTaskSampler
from mcs_plugin.sensors import DepthSensor, GoalCategorySensor, RGBSensor, TargetColorSensor, TargetPointSensor
from mcs_plugin.tasks import MCSTask, RetrievalTask
from mcs_plugin.training.progress import TrainingProgress

torch.set_num_threads(1)  # many sampler processes share a few cores; see shared notes on AllenAct
os.environ.setdefault("LP_NUM_THREADS", "1")


SPLIT_COUNTS = {"train": 100, "val": 20, "test": 20}


def _default_scenes(goal: str, split: str) -> str:
    """A generated dataset's scene directory for a goal and split (generated, easy difficulty, on first use).

    Retrieval uses the default dataset of `make train`; other goals get data/scenes/<goal>/<split>.
    """
    from mcs_plugin.scenes import ensure_default_dataset, generate

    if goal == "retrieval":
        return str(ensure_default_dataset() / split)
    root = Path("data/scenes") / goal
    if not (root / split).is_dir():
        generate(goal, SPLIT_COUNTS[split], split, "easy", 0, root, progress=False)
    return str(root / split)


class MCSBaseExperimentConfig(ExperimentConfig, ABC):
    """Sensors, samplers, model and machine settings shared by the MCS experiments."""

    TASK_CLASS: type[MCSTask] = RetrievalTask
    GOAL_CATEGORIES: Sequence[str] = ("retrieval",)
    GENERATOR_GOAL = "retrieval"  # the scene generator's goal for the default dataset

    def __init__(
        self,
        scenes: Optional[str] = None,
        valid_scenes: Optional[str] = None,
        test_scenes: Optional[str] = None,
        resolution: int = 64,
        processes: int = 16,
        valid_processes: int = 0,
        test_processes: int = 2,
        train_steps: int = 20_000,
        rollout_steps: int = 64,
        max_steps: int = 200,
        lr: float = 3e-4,
        num_mini_batch: int = 2,
        update_repeats: int = 4,
        save_interval: int = 10_000,
        nodes: int = 1,
        workers_per_node: int = 1,
        seed: int = 0,
        device: str = "auto",
        **kwargs: Any,
    ):
        self.scenes = scenes
        self.valid_scenes = valid_scenes
        self.test_scenes = test_scenes
        self.resolution = resolution
        self.processes = processes
        self.valid_processes = valid_processes
        self.test_processes = test_processes
        self.train_steps = train_steps
        self.rollout_steps = rollout_steps
        self.max_steps = max_steps
        self.lr = lr
        self.num_mini_batch = num_mini_batch
        self.update_repeats = update_repeats
        self.save_interval = save_interval
        self.nodes = nodes
        self.workers_per_node = workers_per_node
        self.seed = seed
        if device not in ("auto", "cpu", "cuda"):
            raise ValueError(f"device must be 'auto', 'cpu' or 'cuda', not {device!r}")
        if device == "cuda" and not torch.cuda.is_available():
            raise ValueError("device='cuda' but torch sees no CUDA GPU (install a CUDA build of torch, or use 'cpu')")
        self.device = device
        if nodes > 1:
            # Without -s, AllenAct's runner draws its seed from Python's global RNG right after building this
            # config, independently on each machine, so the machines would start from different models.
            # Seeding that RNG from `seed` here makes every machine draw the same one; -s still overrides it.
            random.seed(seed)

    # -- what the agent perceives and can do ----------------------------------------------------------
    def sensors(self) -> list[Sensor]:
        """RGB, depth, goal category, target colour and the target's bearing and distance (oracle tier)."""
        r = self.resolution
        return [RGBSensor(r, r), DepthSensor(r, r), GoalCategorySensor(), TargetColorSensor(), TargetPointSensor()]

    def action_count(self) -> int:
        """Size of the task's discrete action space."""
        return self.TASK_CLASS.action_count()

    def create_model(self, **kwargs: Any) -> torch.nn.Module:
        """A small CNN + GRU actor-critic over the sensors."""
        observation_space = SensorSuite([s for s in self.sensors() if not isinstance(s, ExpertActionSensor)]).observation_spaces
        return MCSActorCritic(gym.spaces.Discrete(self.action_count()), observation_space, rgb_uuid="rgb",
                              depth_uuid="depth", goal_uuids=("goal_category", "target_color", "target_point"))

    # -- machines -----------------------------------------------------------------------------------
    def devices(self, count: int) -> list[torch.device]:
        """Torch devices of `count` workers: the GPUs in turn when CUDA is available (device 'auto' or 'cuda'),
        else the CPU."""
        if self.device == "cpu" or not torch.cuda.is_available():
            return [torch.device("cpu")] * count
        return [torch.device("cuda", i % torch.cuda.device_count()) for i in range(count)]

    def machine_params(self, mode: str = "train", **kwargs: Any) -> MachineParams:
        """`nodes` x `workers_per_node` training workers, each with `processes` task samplers, on the CPU or the
        GPUs (see `devices`).

        Samplers are grouped into OS processes by AllenAct's `--max_sampler_processes_per_worker` (use the core
        count: 16 samplers in 2 processes batch the policy's inference and keep both cores busy).

        Machine `machine_id` (AllenAct's --machine_id) runs workers machine_id*workers_per_node onwards.
        """
        if mode == "train":
            workers = self.nodes * self.workers_per_node
            first = int(kwargs.get("machine_id", 0)) * self.workers_per_node
            return MachineParams(nprocesses=[self.processes] * workers, devices=self.devices(workers),
                                 local_worker_ids=list(range(first, first + self.workers_per_node)))
        count = self.valid_processes if mode == "valid" else self.test_processes
        return MachineParams(nprocesses=count, devices=self.devices(1) if count else [])

    # -- samplers -----------------------------------------------------------------------------------
    def make_sampler_fn(self, **kwargs: Any) -> MCSSceneTaskSampler:
        """One MCSSceneTaskSampler per sampler process."""
        return MCSSceneTaskSampler(**kwargs)

    def _sampler_args(self, mode: str, scenes: Optional[str], split: str, process_ind: int, total_processes: int,
                      seeds: Optional[Sequence[int]]) -> dict[str, Any]:
        r = self.resolution
        return {
            "scenes": scenes or _default_scenes(self.GENERATOR_GOAL, split),
            "sensors": self.sensors(),
            "max_steps": self.max_steps,
            "mode": mode,
            "process_ind": process_ind,
            "total_processes": total_processes,
            "seed": seeds[process_ind] if seeds is not None else self.seed + process_ind,
            # oracle metadata for the reward and target sensor; no masks (no sensor reads them)
            "env_args": {"config": {"metadata": "oracle", "width": r, "height": r, "disable_object_masks": True}},
            "task_class": self.TASK_CLASS,
            "goal_categories": self.GOAL_CATEGORIES,
        }

    def train_task_sampler_args(self, process_ind: int, total_processes: int, devices=None, seeds=None,
                                deterministic_cudnn: bool = False) -> dict[str, Any]:
        """Training: this process's share of the training scenes, looping."""
        return self._sampler_args("train", self.scenes, "train", process_ind, total_processes, seeds)

    def valid_task_sampler_args(self, process_ind: int, total_processes: int, devices=None, seeds=None,
                                deterministic_cudnn: bool = False) -> dict[str, Any]:
        """Validation: one pass over this process's share of the validation scenes."""
        return self._sampler_args("valid", self.valid_scenes, "val", process_ind, total_processes, seeds)

    def test_task_sampler_args(self, process_ind: int, total_processes: int, devices=None, seeds=None,
                               deterministic_cudnn: bool = False) -> dict[str, Any]:
        """Testing: one pass over this process's share of the test scenes."""
        return self._sampler_args("test", self.test_scenes, "test", process_ind, total_processes, seeds)

    # -- callbacks ----------------------------------------------------------------------------------
    def training_progress(self) -> TrainingProgress:
        """`--callbacks training_progress`: a log line with steps done / total / ETA after each training log."""
        return TrainingProgress()

    # -- optimisation -------------------------------------------------------------------------------
    def pipeline(self, named_losses: dict, stages: list) -> TrainingPipeline:
        """A training pipeline with this experiment's optimiser and rollout settings."""
        return TrainingPipeline(
            named_losses=named_losses,
            pipeline_stages=stages,
            optimizer_builder=Builder(optim.Adam, dict(lr=self.lr)),
            # the learning rate decays linearly to 0 over the run: the last checkpoint is a settled policy
            lr_scheduler_builder=Builder(LambdaLR, {"lr_lambda": LinearDecay(steps=self.train_steps)}),
            num_mini_batch=min(self.num_mini_batch, self.processes),  # AllenAct: at most one per sampler
            update_repeats=self.update_repeats,
            max_grad_norm=0.5,
            num_steps=self.rollout_steps,
            gamma=0.99,
            use_gae=True,
            gae_lambda=0.95,
            advance_scene_rollout_period=None,
            save_interval=self.save_interval,
            metric_accumulate_interval=1,
        )
