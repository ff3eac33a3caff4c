"""Learning curves of an AllenAct run, read from its tensorboard event files and drawn with matplotlib."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

DEFAULT_METRICS: tuple[str, ...] = ("success", "reward", "ep_length")
MODES: tuple[str, ...] = ("train", "valid", "test")  # AllenAct's tag prefixes: <mode>-metrics/<name>


@dataclass(frozen=True)
class Curve:
    """One scalar series: a metric of one mode in one tensorboard log folder."""

    log_dir: str  # relative to the run folder, e.g. tb/mcs-retrieval-ppo/2026-11-24_19-23-05
    mode: str
    metric: str
    steps: np.ndarray
    values: np.ndarray


def log_dirs(run_dir: Path) -> list[Path]:
    """Folders under run_dir that hold tensorboard event files, sorted."""
    return sorted({path.parent for path in run_dir.rglob("events.out.tfevents.*")})


def read_curves(run_dir: str | Path, metrics: Sequence[str] = DEFAULT_METRICS) -> list[Curve]:
    """Every `<mode>-metrics/<metric>` series of every log folder under run_dir (sorted by step)."""
    from tensorboard.backend.event_processing.event_accumulator import SCALARS, EventAccumulator

    run_dir = Path(run_dir)
    curves = []
    for folder in log_dirs(run_dir):
        events = EventAccumulator(str(folder), size_guidance={SCALARS: 0})  # 0: keep every point
        events.Reload()
        tags = set(events.Tags()["scalars"])
        for metric in metrics:
            for mode in MODES:
                tag = f"{mode}-metrics/{metric}"
                if tag not in tags:
                    continue
                points = sorted((event.step, event.value) for event in events.Scalars(tag))
                steps, values = (np.array(column) for column in zip(*points))
                curves.append(Curve(str(folder.relative_to(run_dir)), mode, metric, steps, values))
    return curves


def smooth(values: np.ndarray, weight: float) -> np.ndarray:
    """Tensorboard's smoothing: a debiased exponential moving average (weight 0 = none, near 1 = heavy)."""
    out = np.empty(len(values), dtype=float)
    average = 0.0
    for index, value in enumerate(values):
        average = weight * average + (1.0 - weight) * float(value)
        out[index] = average / (1.0 - weight ** (index + 1))
    return out


def plot_curves(curves: Sequence[Curve], out: str | Path, title: str = "", smoothing: float = 0.6) -> Path:
    """One panel per metric, one line per (log folder, mode): raw points faint, smoothed solid. Writes a PNG."""
    from matplotlib.figure import Figure

    metrics = list(dict.fromkeys(curve.metric for curve in curves))
    figure = Figure(figsize=(5.0 * len(metrics), 3.6), layout="constrained")
    axes = np.atleast_1d(figure.subplots(1, len(metrics), squeeze=False)[0])
    several_logs = len({curve.log_dir for curve in curves}) > 1
    for axis, metric in zip(axes, metrics):
        for index, curve in enumerate(c for c in curves if c.metric == metric):
            colour = f"C{index % 10}"
            label = f"{curve.mode} ({curve.log_dir})" if several_logs else curve.mode
            if len(curve.steps) == 1:  # e.g. a test run of one checkpoint: a point, not a line
                axis.plot(curve.steps, curve.values, "o", color=colour, label=label)
                continue
            axis.plot(curve.steps, curve.values, color=colour, alpha=0.25, linewidth=1)
            axis.plot(curve.steps, smooth(curve.values, smoothing), color=colour, linewidth=2, label=label)
        axis.set_title(metric)
        axis.set_xlabel("training steps")
        axis.grid(alpha=0.3)
        axis.legend(fontsize="small")
    if title:
        figure.suptitle(title)
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(out, dpi=100)
    return out
