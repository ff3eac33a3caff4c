"""DAgger on MCS retrieval: imitation of the expert with teacher forcing decaying from 1 to 0, then PPO.

    allenact experiments/mcs_retrieval_dagger.py -o runs/dagger --config_kwargs '{"train_steps": 20000}'
"""

from __future__ import annotations

from allenact.algorithms.onpolicy_sync.losses import PPO
from allenact.algorithms.onpolicy_sync.losses.imitation import Imitation
from allenact.algorithms.onpolicy_sync.losses.ppo import PPOConfig
from allenact.base_abstractions.sensor import ExpertActionSensor, Sensor
from allenact.utils.experiment_utils import LinearDecay, PipelineStage, TrainingPipeline

from experiments.mcs_base import MCSBaseExperimentConfig


class MCSRetrievalDAggerExperimentConfig(MCSBaseExperimentConfig):
    """Retrieval: `imitation_fraction` of the steps imitate the expert (DAgger), the rest is PPO."""

    def __init__(self, imitation_fraction: float = 0.5, **kwargs):
        super().__init__(**kwargs)
        self.imitation_fraction = imitation_fraction

    @classmethod
    def tag(cls) -> str:
        return "mcs-retrieval-dagger"

    def sensors(self) -> list[Sensor]:
        """The base sensors plus the expert's action (used by the imitation loss only)."""
        return super().sensors() + [ExpertActionSensor(action_space=self.action_count())]

    def training_pipeline(self, **kwargs) -> TrainingPipeline:
        """Imitation with teacher forcing 1 -> 0, then PPO."""
        imitation_steps = max(int(self.train_steps * self.imitation_fraction), 1)
        return self.pipeline(
            {"imitation_loss": Imitation(), "ppo_loss": PPO(**PPOConfig)},
            [
                PipelineStage(loss_names=["imitation_loss"], max_stage_steps=imitation_steps,
                              teacher_forcing=LinearDecay(startp=1.0, endp=0.0, steps=imitation_steps)),
                PipelineStage(loss_names=["ppo_loss"], max_stage_steps=max(self.train_steps - imitation_steps, 1)),
            ],
        )
