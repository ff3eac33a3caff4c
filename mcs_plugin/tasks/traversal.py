"""Traversal: move next to the target object (within reach of it)."""

from __future__ import annotations

from mcs_plugin.tasks.actions import TRAVERSAL_ACTIONS
from mcs_plugin.tasks.base import MCSTask


class TraversalTask(MCSTask):
    """Reach the goal's target; the goal holds once the performer is within reach of its footprint."""

    default_actions = TRAVERSAL_ACTIONS
