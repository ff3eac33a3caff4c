"""The discrete action vocabulary of MCS tasks: names, the MCS call each makes, and defaults."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from mcs_plugin.mcs.action import Action

# The MCS names as plain strings (task vocabularies are compared and hashed as str).
MOVE_AHEAD = Action.MOVE_AHEAD.value
MOVE_BACK = Action.MOVE_BACK.value
MOVE_LEFT = Action.MOVE_LEFT.value
MOVE_RIGHT = Action.MOVE_RIGHT.value
ROTATE_LEFT = Action.ROTATE_LEFT.value
ROTATE_RIGHT = Action.ROTATE_RIGHT.value
LOOK_UP = Action.LOOK_UP.value
LOOK_DOWN = Action.LOOK_DOWN.value
PICKUP_OBJECT = Action.PICKUP_OBJECT.value
PUT_OBJECT = Action.PUT_OBJECT.value
DROP_OBJECT = Action.DROP_OBJECT.value
OPEN_OBJECT = Action.OPEN_OBJECT.value
CLOSE_OBJECT = Action.CLOSE_OBJECT.value
PUSH_OBJECT = Action.PUSH_OBJECT.value
PULL_OBJECT = Action.PULL_OBJECT.value
INTERACT_WITH_AGENT = Action.INTERACT_WITH_AGENT.value
PASS = Action.PASS.value
END = "End"  # the agent declares it is done (ends the episode; not an MCS action; only goals that need it)

# Actions that act on an object in view: they target an image point (the crosshair by default).
OBJECT_ACTIONS = frozenset({PICKUP_OBJECT, OPEN_OBJECT, CLOSE_OBJECT, PUSH_OBJECT, PULL_OBJECT, INTERACT_WITH_AGENT})
RECEPTACLE_ACTIONS = frozenset({PUT_OBJECT})

# Interactive goals end the way MCS ends them (success) or at max_steps: their vocabularies have no End, so a
# policy can never quit early to dodge step penalties.
NAVIGATION_ACTIONS = (MOVE_AHEAD, ROTATE_LEFT, ROTATE_RIGHT, LOOK_UP, LOOK_DOWN)
RETRIEVAL_ACTIONS = NAVIGATION_ACTIONS + (PICKUP_OBJECT, OPEN_OBJECT)
TRAVERSAL_ACTIONS = NAVIGATION_ACTIONS
TRANSFERRAL_ACTIONS = NAVIGATION_ACTIONS + (PICKUP_OBJECT, OPEN_OBJECT, PUT_OBJECT, DROP_OBJECT)
# Default interaction points (fractions of the image): the crosshair first (the experts' aim), then the points a
# third of the way down and up the centre column, so an object near the crosshair can be acted on without
# pixel-exact aiming.
INTERACTION_POINTS = ((0.5, 0.5), (0.5, 0.75), (0.5, 0.25))


@dataclass(frozen=True)
class DiscreteAction:
    """One entry of a task's action space: an MCS action, at an image point when it targets an object."""

    name: str
    point: tuple[float, float] | None = None  # (x, y) as fractions of the image size

    @property
    def label(self) -> str:
        """A readable unique name, e.g. 'PickupObject@0.50,0.50'."""
        return self.name if self.point is None else f"{self.name}@{self.point[0]:.2f},{self.point[1]:.2f}"

    def call(self, width: int, height: int) -> tuple[str, dict]:
        """The MCS action name and parameters for an image of the given size."""
        if self.point is None:
            return self.name, {}
        px = min(int(self.point[0] * width), width - 1)
        py = min(int(self.point[1] * height), height - 1)
        prefix = "receptacleObject" if self.name in RECEPTACLE_ACTIONS else "object"
        return self.name, {f"{prefix}ImageCoordsX": px, f"{prefix}ImageCoordsY": py}


@dataclass(frozen=True)
class ActionVocabulary:
    """An ordered discrete action space: each object action is repeated at every interaction point."""

    names: Sequence[str]
    points: Sequence[tuple[float, float]] = field(default=INTERACTION_POINTS)

    def __post_init__(self):
        actions = []
        for name in self.names:
            if name in OBJECT_ACTIONS or name in RECEPTACLE_ACTIONS:
                actions.extend(DiscreteAction(name, tuple(p)) for p in self.points)
            else:
                actions.append(DiscreteAction(name))
        object.__setattr__(self, "actions", tuple(actions))

    def __len__(self) -> int:
        return len(self.actions)

    def __getitem__(self, index: int) -> DiscreteAction:
        return self.actions[index]

    def labels(self) -> tuple[str, ...]:
        """Readable names of every discrete action, in order."""
        return tuple(a.label for a in self.actions)

    def index(self, name: str, point: tuple[float, float] | None = None) -> int:
        """Index of an action (the first interaction point unless `point` is given); ValueError if absent."""
        for i, action in enumerate(self.actions):
            if action.name == name and (point is None or action.point == tuple(point)):
                return i
        raise ValueError(f"action {name!r} is not in this task's vocabulary {self.labels()}")


def grid_points(rows: int, cols: int) -> tuple[tuple[float, float], ...]:
    """Interaction points at the centres of a rows x cols grid over the image."""
    return tuple(((c + 0.5) / cols, (r + 0.5) / rows) for r in range(rows) for c in range(cols))
