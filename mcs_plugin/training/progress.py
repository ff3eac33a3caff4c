"""An AllenAct callback that prints training progress: steps done / total, elapsed time, ETA and rate.

Experiments expose it as a config method, so it is enabled with `allenact ... --callbacks training_progress`
(AllenAct 0.5.4 loads callback files and modules with a broken check; config methods work).
"""

from __future__ import annotations

import logging
import math
import sys
import time
from typing import Any, Optional

from allenact.base_abstractions.callbacks import Callback
from allenact.base_abstractions.experiment_config import ExperimentConfig
from allenact.utils.system import get_logger
from tqdm import tqdm

LINE_FORMAT = "{n:,}/{total:,} steps ({percentage:.0f}%), elapsed {elapsed}, ETA {remaining}, {rate:.1f} steps/s"
UNBOUNDED_FORMAT = "{n:,} steps, elapsed {elapsed}, {rate:.1f} steps/s"


def pipeline_total_steps(config: ExperimentConfig) -> float:
    """Steps the config's training pipeline runs in all (the sum of its stages' max_stage_steps; inf if unbounded)."""
    stages = config.training_pipeline().pipeline_stages
    limits = [stage.max_stage_steps for stage in stages]
    return math.inf if any(limit is None for limit in limits) else float(sum(limits))


def progress_line(step: int, total: float, elapsed: float, rate: float) -> str:
    """One progress line, e.g. '12,345/20,000 steps (62%), elapsed 00:41, ETA 00:25, 300.0 steps/s'."""
    if math.isinf(total):
        return tqdm.format_meter(step, None, elapsed, rate=rate, bar_format=UNBOUNDED_FORMAT)
    return tqdm.format_meter(min(step, int(total)), int(total), elapsed, rate=rate, bar_format=LINE_FORMAT)


class TrainingProgress(Callback):
    """Prints a progress line (steps done / total / ETA) to stderr after each of AllenAct's training log lines."""

    def __init__(self) -> None:
        self.total: float = math.inf
        self.started = time.monotonic()
        # (step, time) of the first log: the rate is measured from there, so a run resumed from a checkpoint
        # does not count the steps it inherited as done in this session.
        self.anchor: Optional[tuple[int, float]] = None

    def setup(self, name: str, config: ExperimentConfig, mode: str, **kwargs: Any) -> None:
        """Read the total from the config's training pipeline and start the clock."""
        self.total = pipeline_total_steps(config)
        self.started = time.monotonic()

    def on_train_log(self, *, step: int, **kwargs: Any) -> None:
        """Print the progress line for `step` (AllenAct's total training steps so far)."""
        now = time.monotonic()
        if self.anchor is None:
            self.anchor = (step, now)
            rate = step / (now - self.started) if now > self.started else 0.0
        else:
            anchor_step, anchor_time = self.anchor
            rate = (step - anchor_step) / (now - anchor_time) if now > anchor_time else 0.0
        if get_logger().isEnabledFor(logging.INFO):  # AllenAct's --log_level
            # Printed, not logged: AllenAct's log filter drops records from files outside the working directory
            # (this module, when the experiment runs elsewhere or the package is installed).
            stamp = time.strftime("%m/%d %H:%M:%S")
            print(f"[{stamp}] progress: {progress_line(step, self.total, now - self.started, rate)}", file=sys.stderr,
                  flush=True)
