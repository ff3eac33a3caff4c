"""PPO on passive intuitive-physics scenes: watch, then judge the scene plausible or implausible with a confidence.

    allenact experiments/mcs_intuitive_physics_ppo.py -o runs/physics --config_kwargs '{"train_steps": 20000}'
"""

from __future__ import annotations

from allenact.base_abstractions.sensor import Sensor

from experiments.mcs_retrieval_ppo import MCSRetrievalPPOExperimentConfig
from mcs_plugin.sensors import DepthSensor, RGBSensor
from mcs_plugin.tasks import IntuitivePhysicsTask


class MCSIntuitivePhysicsPPOExperimentConfig(MCSRetrievalPPOExperimentConfig):
    """Intuitive physics (violation of expectation) with PPO; the metric to watch is `accuracy`."""

    TASK_CLASS = IntuitivePhysicsTask
    GOAL_CATEGORIES = ("intuitive physics",)
    GENERATOR_GOAL = "intuitive_physics"

    def __init__(self, max_steps: int = 400, **kwargs):
        super().__init__(max_steps=max_steps, **kwargs)

    @classmethod
    def tag(cls) -> str:
        return "mcs-intuitive-physics-ppo"

    def sensors(self) -> list[Sensor]:
        """RGB and depth: the scenes have no target to describe."""
        return [RGBSensor(self.resolution, self.resolution), DepthSensor(self.resolution, self.resolution)]
