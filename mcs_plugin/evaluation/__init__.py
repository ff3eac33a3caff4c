"""Evaluation of trained policies: load a checkpoint with its experiment, run it on scenes, summarise, film."""

from mcs_plugin.evaluation.policy import TrainedPolicy, load_policy
from mcs_plugin.evaluation.runner import EpisodeRecord, evaluate, summarise

__all__ = ["EpisodeRecord", "TrainedPolicy", "evaluate", "load_policy", "summarise"]
