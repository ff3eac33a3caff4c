"""Offline behaviour cloning on recorded expert trajectories (no simulator during training).

    mcs-plugin collect-expert --scenes data/scenes/default/train --out data/expert/retrieval
    allenact experiments/mcs_retrieval_bc.py -o runs/bc --config_kwargs '{"dataset": "data/expert/retrieval"}'

Evaluation (`--eval`) runs the trained policy on the simulator like the other retrieval experiments.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from allenact.algorithms.onpolicy_sync.losses.imitation import Imitation
from allenact.base_abstractions.experiment_config import MachineParams
from allenact.base_abstractions.sensor import ExpertActionSensor, Sensor
from allenact.base_abstractions.task import TaskSampler
from allenact.utils.experiment_utils import PipelineStage, TrainingPipeline

from experiments.mcs_base import MCSBaseExperimentConfig
from mcs_plugin.imitation import ReplayTaskSampler, read_index
from mcs_plugin.samplers import MCSSceneTaskSampler
from mcs_plugin.sensors import TargetPointSensor


class MCSRetrievalBCExperimentConfig(MCSBaseExperimentConfig):
    """Retrieval policy trained offline by imitation (teacher forcing 1) on an expert dataset."""

    def __init__(self, dataset: str = "data/expert/retrieval", **kwargs: Any):
        super().__init__(**kwargs)
        self.dataset = dataset

    @classmethod
    def tag(cls) -> str:
        return "mcs-retrieval-bc"

    def sensors(self) -> list[Sensor]:
        """What the recordings hold (frames and the scene's goal, not the target's position) plus the expert action."""
        recorded = [s for s in super().sensors() if not isinstance(s, TargetPointSensor)]
        return recorded + [ExpertActionSensor(action_space=self.action_count())]

    def machine_params(self, mode: str = "train", **kwargs: Any) -> MachineParams:
        """As the base config; training first checks that the dataset has episodes. AllenAct asks for the training
        machine parameters in its main process before it starts any worker, so a missing or empty dataset stops
        the run there with its own message (a worker's error would be buried under AllenAct's shutdown)."""
        if mode == "train" and not read_index(Path(self.dataset)):
            raise ValueError(f"{self.dataset}: the expert dataset has no episodes; make one with "
                             f"`mcs-plugin collect-expert`")
        return super().machine_params(mode, **kwargs)

    def make_sampler_fn(self, **kwargs: Any) -> TaskSampler:
        """Training replays the dataset; evaluation runs on the simulator."""
        if kwargs.get("mode") == "train":
            return ReplayTaskSampler(**kwargs)
        return MCSSceneTaskSampler(**kwargs)

    def train_task_sampler_args(self, process_ind: int, total_processes: int, devices=None, seeds=None,
                                deterministic_cudnn: bool = False) -> dict[str, Any]:
        """This process's share of the recorded episodes."""
        return {"dataset": self.dataset, "sensors": self.sensors(), "action_count": self.action_count(),
                "mode": "train", "process_ind": process_ind, "total_processes": total_processes,
                "seed": seeds[process_ind] if seeds is not None else self.seed + process_ind}

    def training_pipeline(self, **kwargs) -> TrainingPipeline:
        """Imitation of the recorded actions for `train_steps` steps."""
        return self.pipeline({"imitation_loss": Imitation()},
                             [PipelineStage(loss_names=["imitation_loss"], max_stage_steps=self.train_steps)])
