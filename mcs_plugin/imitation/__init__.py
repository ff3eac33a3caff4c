"""Imitation learning from expert trajectories: record datasets, replay them for offline behaviour cloning."""

from mcs_plugin.imitation.dataset import (
    collect_expert_trajectories,
    load_episode,
    read_index,
)
from mcs_plugin.imitation.replay import ReplayTask, ReplayTaskSampler

__all__ = ["ReplayTask", "ReplayTaskSampler", "collect_expert_trajectories", "load_episode", "read_index"]
