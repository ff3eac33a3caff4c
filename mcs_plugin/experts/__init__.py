"""Experts: a navigation graph built from oracle StepMetadata and per-goal expert policies (retrieval, imitation,
traversal, transferral), usable on the embedded simulator and on Unity MCS alike. See docs/experts.md."""

from mcs_plugin.experts.boxes import Box
from mcs_plugin.experts.goals import AimGoal, DropGoal, Goal, NearGoal, PredicateGoal
from mcs_plugin.experts.graph import NavigationGraph
from mcs_plugin.experts.poses import Pose, pose_of
from mcs_plugin.experts.policies import (
    EXPERT_ACTIONS, Expert, ExpertRun, ImitationExpert, NoExpertError, RetrievalExpert, TransferralExpert, TraversalExpert,
    expert_categories, make_expert, relationship_holds, run_expert, shortest_path_length, to_controller_call,
)

__all__ = [
    "AimGoal", "Box", "DropGoal", "EXPERT_ACTIONS", "Expert", "ExpertRun", "Goal", "ImitationExpert", "NavigationGraph", "NearGoal",
    "NoExpertError", "Pose", "PredicateGoal", "RetrievalExpert", "TransferralExpert", "TraversalExpert",
    "expert_categories", "make_expert", "pose_of", "relationship_holds", "run_expert", "shortest_path_length",
    "to_controller_call",
]
