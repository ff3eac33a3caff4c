"""PPO on MCS transferral scenes (carry target_1 next to or onto target_2).

    allenact experiments/mcs_transferral_ppo.py -o runs/transferral --config_kwargs '{"train_steps": 20000}'
"""

from __future__ import annotations

from experiments.mcs_retrieval_ppo import MCSRetrievalPPOExperimentConfig
from mcs_plugin.tasks import TransferralTask


class MCSTransferralPPOExperimentConfig(MCSRetrievalPPOExperimentConfig):
    """Transferral with PPO (default scenes: generated easy transferral scenes)."""

    TASK_CLASS = TransferralTask
    GOAL_CATEGORIES = ("transferral",)
    GENERATOR_GOAL = "transferral"

    @classmethod
    def tag(cls) -> str:
        return "mcs-transferral-ppo"
