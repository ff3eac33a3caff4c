"""PPO on MCS retrieval scenes with the embedded simulator (CNN + GRU policy over RGB, depth and goal vectors).

    allenact experiments/mcs_retrieval_ppo.py -o runs/ppo --config_kwargs '{"train_steps": 20000}'
"""

from __future__ import annotations

from allenact.algorithms.onpolicy_sync.losses import PPO
from allenact.algorithms.onpolicy_sync.losses.ppo import PPOConfig
from allenact.utils.experiment_utils import PipelineStage, TrainingPipeline

from experiments.mcs_base import MCSBaseExperimentConfig


class MCSRetrievalPPOExperimentConfig(MCSBaseExperimentConfig):
    """Retrieval with PPO."""

    @classmethod
    def tag(cls) -> str:
        return "mcs-retrieval-ppo"

    def training_pipeline(self, **kwargs) -> TrainingPipeline:
        """PPO for `train_steps` steps."""
        return self.pipeline(
            {"ppo_loss": PPO(**PPOConfig)},
            [PipelineStage(loss_names=["ppo_loss"], max_stage_steps=self.train_steps)],
        )
