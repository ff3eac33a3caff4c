"""MCS tasks for AllenAct: one class per goal category, and a registry from category to class."""

from __future__ import annotations

from mcs_plugin.mcs import GoalCategory
from mcs_plugin.tasks.actions import ActionVocabulary, DiscreteAction, grid_points
from mcs_plugin.tasks.base import MCSTask, RewardConfig
from mcs_plugin.tasks.passive import AgentsTask, IntuitivePhysicsTask, PassiveTask
from mcs_plugin.tasks.retrieval import ImitationTask, MultiRetrievalTask, RetrievalTask
from mcs_plugin.tasks.transferral import TransferralTask
from mcs_plugin.tasks.traversal import TraversalTask

TASK_CLASSES: dict[str, type[MCSTask]] = {
    GoalCategory.RETRIEVAL.value: RetrievalTask,
    GoalCategory.MULTI_RETRIEVAL.value: MultiRetrievalTask,
    GoalCategory.IMITATION.value: ImitationTask,
    GoalCategory.TRAVERSAL.value: TraversalTask,
    GoalCategory.TRANSFERRAL.value: TransferralTask,
    GoalCategory.INTUITIVE_PHYSICS.value: IntuitivePhysicsTask,
    GoalCategory.AGENTS.value: AgentsTask,
    GoalCategory.PASSIVE.value: AgentsTask,
}


def task_class_for(category: str) -> type[MCSTask]:
    """The task class of a goal category; ValueError naming the known categories otherwise."""
    try:
        return TASK_CLASSES[category]
    except KeyError:
        raise ValueError(f"no task for goal category {category!r}; known: {', '.join(TASK_CLASSES)}") from None


__all__ = [
    "ActionVocabulary", "AgentsTask", "DiscreteAction", "ImitationTask", "IntuitivePhysicsTask", "MCSTask", "MultiRetrievalTask",
    "PassiveTask", "RetrievalTask", "RewardConfig", "TASK_CLASSES", "TransferralTask", "TraversalTask",
    "grid_points", "task_class_for",
]
