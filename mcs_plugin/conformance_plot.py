"""Pictures of one replayed conformance test: where its objects went, recorded against replayed, and which values
failed at which step (matplotlib; see ``mcs-plugin conformance --plot``)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any, Mapping, Sequence

from mcs_plugin.conformance import ABS_TOL, OBJECT_LISTS, TestResult, is_number

PERFORMER = "performer"
MAX_FAILING_ROWS = 16  # rows of the failure chart; the rest are counted in its title


def tracks(entries: Sequence[Mapping[str, Any]]) -> dict[str, list[tuple[int, float, float]]]:
    """(step, x, z) per object id, and of the performer, from step entries in the recorded format."""
    out: dict[str, list[tuple[int, float, float]]] = {}
    for step, entry in enumerate(entries):
        if is_number(entry.get("position_x")) and is_number(entry.get("position_z")):
            out.setdefault(PERFORMER, []).append((step, float(entry["position_x"]), float(entry["position_z"])))
        for group in OBJECT_LISTS:
            for obj in entry.get(group) or []:
                if is_number(obj.get("position_x")) and is_number(obj.get("position_z")):
                    out.setdefault(str(obj.get("id")), []).append(
                        (step, float(obj["position_x"]), float(obj["position_z"])))
    return out


def failing_rows(result: TestResult) -> dict[str, list[int]]:
    """The steps at which each failing value failed, by row name ('return_status', 'objects[ball].position_x')."""
    rows: dict[str, list[int]] = {}
    for failure in result.failures:
        rows.setdefault(failure.label, []).append(failure.step)
    return rows


def plot_test(result: TestResult, out: str | Path) -> Path:
    """Write a PNG of a replayed test: the top-down paths (x, z in metres) of the performer and of every object that
    moves, recorded (dots) against replayed (lines), failing steps ringed in red; how far apart the two are at each
    step; and which value failed at which step. `result` must come from run_test(..., keep_outputs=True)."""
    from matplotlib.figure import Figure

    if not result.recorded:
        raise ValueError(f"{result.name}: no outputs kept; replay it with keep_outputs=True")
    recorded, replayed = tracks(result.recorded), tracks(result.replayed)
    bad_steps = {failure.step for failure in result.failures}
    failing_ids = {failure.object_id if failure.object_id is not None else PERFORMER for failure in result.failures}
    figure = Figure(figsize=(13, 6.2), layout="constrained")
    paths, gaps, chart = figure.subplot_mosaic([["paths", "gaps"], ["paths", "chart"]],
                                               width_ratios=(1, 1.25)).values()
    moving = [name for name, points in recorded.items()
              if name == PERFORMER or len({(x, z) for _, x, z in points}) > 1 or name in failing_ids]
    for index, name in enumerate(moving):
        colour = "black" if name == PERFORMER else f"C{index % 10}"
        _, xs, zs = zip(*recorded[name])
        paths.plot(xs, zs, "o", color=colour, markersize=4, alpha=0.5, label=f"{name} (recorded)")
        if name in replayed:
            _, oxs, ozs = zip(*replayed[name])
            paths.plot(oxs, ozs, "-", color=colour, linewidth=1.2, label=f"{name} (replayed)")
            gap = position_gaps(recorded[name], replayed[name])
            gaps.plot(list(gap), list(gap.values()), "-", color=colour, linewidth=1.2, label=name)
        if name in failing_ids:
            ringed = [(x, z) for step, x, z in recorded[name] if step in bad_steps]
            if ringed:
                paths.scatter(*zip(*ringed), s=60, facecolors="none", edgecolors="red", linewidths=1.2)
    paths.set_aspect("equal", adjustable="datalim")
    paths.set_xlabel("x (m)")
    paths.set_ylabel("z (m)")
    paths.set_title("paths: recorded (dots), replayed (lines); red: a failing step", fontsize="medium")
    paths.grid(alpha=0.3)
    if moving:
        paths.legend(fontsize="x-small", loc="best")
    gaps.axhline(ABS_TOL, color="grey", linestyle=":", linewidth=1)
    gaps.set_ylabel("recorded to replayed (m)")
    gaps.set_title("how far apart, by step (dotted: the 0.01 m tolerance)", fontsize="medium")
    gaps.set_xlim(-0.5, max(result.steps_compared - 0.5, 0.5))
    gaps.grid(alpha=0.3)
    _draw_failures(chart, failing_rows(result), result.steps_compared)
    verdict = "passes" if result.passed else f"{len(result.failures)} failing values at {len(bad_steps)} steps"
    figure.suptitle(f"{result.name} ({result.tier}): {verdict}")
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(out, dpi=90)
    return out


def position_gaps(recorded: Sequence[tuple[int, float, float]],
                  replayed: Sequence[tuple[int, float, float]]) -> dict[int, float]:
    """The horizontal distance (m) between a recorded and a replayed track, at each step both give."""
    ours = {step: (x, z) for step, x, z in replayed}
    return {step: math.hypot(x - ours[step][0], z - ours[step][1]) for step, x, z in recorded if step in ours}


def write_replayed(result: TestResult, out: str | Path) -> Path:
    """Write the replayed outputs in the recorded outputs' format (JSON), for diffing against them."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result.replayed, indent=1) + "\n")
    return out


def _draw_failures(axis: Any, rows: Mapping[str, list[int]], steps: int) -> None:
    """One row per failing value, a mark at each step it failed, the earliest failing first."""
    names = sorted(rows, key=lambda name: (min(rows[name]), name))[:MAX_FAILING_ROWS]
    for row, name in enumerate(names):
        axis.scatter(rows[name], [row] * len(rows[name]), marker="s", s=14, color="crimson")
    axis.set_yticks(range(len(names)), names, fontsize="x-small")
    axis.set_ylim(len(names) - 0.5 if names else 0.5, -0.5)
    axis.set_xlim(-0.5, max(steps - 0.5, 0.5))
    axis.set_xlabel("step (0: start_scene)")
    more = len(rows) - len(names)
    title = "failing values by step" if rows else "no failing values"
    axis.set_title(title + (f" ({more} more rows not shown)" if more > 0 else ""), fontsize="medium")
    axis.grid(axis="x", alpha=0.3)
