"""One definition per goal category: which objects it names, when it is achieved, what to approach next.

The simulator's reward, the tasks and the experts all decide "success" here, from whatever view of the world they
have (simulator bodies or oracle metadata), reduced to the few facts a rule needs: ids picked up, containers
opened, and objects' axis-aligned extents.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

from mcs_plugin.constants import PERFORMER_REACH
from mcs_plugin.geometry import rectangle_gap
from mcs_plugin.mcs.goal import GoalCategory, GoalMetadata

NEXT_TO_DISTANCE = 0.1  # transferral next_to: footprints at most this far apart (MCS allows up to 0.5)
ON_TOP_TOLERANCE = 0.05  # transferral on_top_of: the first object's bottom at most this far below the second's top
#: categories whose goal is to pick targets up (imitation: after opening the demonstrated containers)
RETRIEVAL_CATEGORIES = frozenset({GoalCategory.RETRIEVAL.value, GoalCategory.MULTI_RETRIEVAL.value,
                                  GoalCategory.IMITATION.value})


@dataclass(frozen=True)
class Extent:
    """An object's axis-aligned extent: x-z footprint corners and its bottom and top heights (metres)."""

    low: tuple[float, float]
    high: tuple[float, float]
    bottom: float
    top: float

    @classmethod
    def of_corners(cls, corners: Iterable[Sequence[float]]) -> Extent:
        """The extent of corner points given as (x, y, z) (MCS axes)."""
        points = [tuple(float(v) for v in c) for c in corners]
        if not points:
            raise ValueError("an extent needs at least one corner")
        xs, ys, zs = zip(*points)
        return cls((min(xs), min(zs)), (max(xs), max(zs)), min(ys), max(ys))

    @classmethod
    def of_metadata(cls, obj: Any) -> Extent:
        """The extent of an ObjectMetadata's `dimensions` (its 8 bounding-box corners)."""
        return cls.of_corners((d["x"], d["y"], d["z"]) for d in obj.dimensions)

    def gap(self, other: Extent) -> float:
        """Distance between the two x-z footprints (0 when they overlap)."""
        return rectangle_gap(self.low, self.high, other.low, other.high)


def relation_name(relationship: Any) -> str:
    """A transferral relationship's kind, `next_to` or `on_top_of` ('' if none). Scenes write it as a list
    ([target_1, kind, target_2], [kind]) or a string, with spaces or underscores: the first entry naming a kind."""
    parts = [relationship] if isinstance(relationship, str) else list(relationship or [])
    for part in parts:
        kind = str(part).strip().lower().replace(" ", "_")
        if kind in ("next_to", "on_top_of"):
            return kind
    return ""


def transferral_holds(relation: str, first: Extent, second: Extent) -> bool:
    """Whether target_1 (not held) stands in the relationship to target_2: next_to, footprints within
    NEXT_TO_DISTANCE; on_top_of, footprints overlapping and target_1's bottom at or above target_2's top (less
    ON_TOP_TOLERANCE)."""
    gap = first.gap(second)
    if relation == "next_to":
        return gap <= NEXT_TO_DISTANCE
    if relation == "on_top_of":
        return gap == 0.0 and first.bottom >= second.top - ON_TOP_TOLERANCE
    return False


def traversal_holds(x: float, z: float, target: Extent) -> bool:
    """Whether a performer standing at (x, z) is within PERFORMER_REACH of the target's x-z footprint."""
    return Extent((x, z), (x, z), 0.0, 0.0).gap(target) <= PERFORMER_REACH


def traversal_id(goal: GoalMetadata) -> str | None:
    """The id of a traversal goal's target (None when the goal names none)."""
    return ((goal.metadata or {}).get("target") or {}).get("id")


def pickups_needed(goal: GoalMetadata) -> int:
    """How many of a retrieval goal's targets must be picked up: `pickup_number`, else all of them."""
    return int((goal.metadata or {}).get("pickup_number") or len(goal.target_ids()))


def retrieval_achieved(goal: GoalMetadata, picked: Iterable[str]) -> bool:
    """Retrieval, multi retrieval, imitation: enough of the goal's targets were picked up (in any order)."""
    ids = goal.target_ids()
    picked = set(picked)
    return bool(ids) and sum(1 for i in ids if i in picked) >= pickups_needed(goal)


def transferral_ids(goal: GoalMetadata) -> tuple[str | None, str | None]:
    """(target_1 id, target_2 id) of a transferral goal (None where missing)."""
    metadata: Mapping[str, Any] = goal.metadata or {}

    def ident(key: str) -> str | None:
        entry = metadata.get(key)
        return entry.get("id") if isinstance(entry, Mapping) and isinstance(entry.get("id"), str) else None

    return ident("target_1"), ident("target_2")


def sequence_remaining(goal: GoalMetadata, opened: Iterable[str]) -> list[str]:
    """Imitation: the containers of `triggeredByTargetSequence` still to open, in order (from the first one not
    in `opened`)."""
    sequence = list(goal.triggered_by_target_sequence or [])
    opened = set(opened)
    for index, container_id in enumerate(sequence):
        if container_id not in opened:
            return sequence[index:]
    return []


def progress_target(goal: GoalMetadata, held: Iterable[str], picked: Iterable[str] = (),
                    opened: Iterable[str] = ()) -> str | None:
    """The id the agent should approach next: imitation, the next container of the sequence, then the target;
    retrieval, the first target not picked up; transferral, target_1 until held, then target_2."""
    held, picked = set(held), set(picked)
    category = goal.category
    if category == GoalCategory.TRANSFERRAL.value:
        first, second = transferral_ids(goal)
        return second if first in held else first
    if category == GoalCategory.IMITATION.value:
        remaining = sequence_remaining(goal, opened)
        if remaining:
            return remaining[0]
    pending = [i for i in goal.target_ids() if i not in picked and i not in held]
    return pending[0] if pending else None
