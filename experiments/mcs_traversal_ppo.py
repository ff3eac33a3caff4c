"""PPO on MCS traversal scenes (reach the target object).

    allenact experiments/mcs_traversal_ppo.py -o runs/traversal --config_kwargs '{"train_steps": 20000}'
"""

from __future__ import annotations

from experiments.mcs_retrieval_ppo import MCSRetrievalPPOExperimentConfig
from mcs_plugin.tasks import TraversalTask


class MCSTraversalPPOExperimentConfig(MCSRetrievalPPOExperimentConfig):
    """Traversal with PPO (default scenes: generated easy traversal scenes)."""

    TASK_CLASS = TraversalTask
    GOAL_CATEGORIES = ("traversal",)
    GENERATOR_GOAL = "traversal"

    @classmethod
    def tag(cls) -> str:
        return "mcs-traversal-ppo"
