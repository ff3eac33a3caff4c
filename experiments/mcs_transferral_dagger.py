"""DAgger on MCS transferral scenes (carry target_1 next to or onto target_2): the retrieval DAgger recipe with the
transferral expert as teacher.

    allenact experiments/mcs_transferral_dagger.py -o runs/transferral_dagger --max_sampler_processes_per_worker 2 \
        --config_kwargs '{"train_steps": 80000}'
"""

from __future__ import annotations

from experiments.mcs_retrieval_dagger import MCSRetrievalDAggerExperimentConfig
from mcs_plugin.tasks import TransferralTask


class MCSTransferralDAggerExperimentConfig(MCSRetrievalDAggerExperimentConfig):
    """Transferral with DAgger (default scenes: generated easy transferral scenes)."""

    TASK_CLASS = TransferralTask
    GOAL_CATEGORIES = ("transferral",)
    GENERATOR_GOAL = "transferral"

    @classmethod
    def tag(cls) -> str:
        return "mcs-transferral-dagger"
