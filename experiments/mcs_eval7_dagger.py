"""DAgger on real MCS Eval-7 scenes: the retrieval DAgger recipe (teacher forcing 1 -> 0, then the learner drives and the
oracle expert labels) on the retrieval-type Eval-7 families, each scene with its own goal's task (retrieval, multi
retrieval, imitation; one action vocabulary).

    allenact experiments/mcs_eval7_dagger.py -o runs/eval7 --max_sampler_processes_per_worker 2 \
        --callbacks training_progress --config_kwargs '{"train_steps": 150000}'
    mcs-plugin evaluate runs/eval7/checkpoints/mcs-eval7-dagger/<date>/<file>.pt \
        $(python -m mcs_plugin.scenes.families ../shared/mcs/eval7 --interactive --split heldout)   # per family

Default scenes: the `train` part of the variants (01, 05, 09, ...) of `families` in `eval7_dir` (default
`$MCS_EVAL7_DIR` or `../shared/mcs/eval7`); test scenes: the `heldout` part (03, 07, 11, ...), so no scene is both
trained and evaluated on (`mcs_plugin.scenes.families.split_of`). `scenes` / `test_scenes` override them.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Optional, Sequence

from experiments.mcs_retrieval_dagger import MCSRetrievalDAggerExperimentConfig
from mcs_plugin.samplers import list_scenes
from mcs_plugin.scenes.families import RETRIEVAL_FAMILIES, select
from mcs_plugin.tasks import RetrievalTask

DEFAULT_EVAL7_DIR = "../shared/mcs/eval7"


def eval7_scenes(root: str | os.PathLike, families: Sequence[str], split: str) -> list[str]:
    """The interactive Eval-7 scene files of `families` in one split part; FileNotFoundError naming what is missing."""
    if not Path(root).is_dir():
        raise FileNotFoundError(f"no Eval-7 scene folder at {root} (set eval7_dir or $MCS_EVAL7_DIR)")
    scenes = select(list_scenes(str(Path(root) / "eval_*_interactive_*.json")), families, split)
    if not scenes:
        raise FileNotFoundError(f"no {split} scenes of families {list(families)} in {root}")
    return [str(p) for p in scenes]


class MCSEval7DAggerExperimentConfig(MCSRetrievalDAggerExperimentConfig):
    """DAgger on the retrieval-type Eval-7 families; each scene's task class comes from its goal category."""

    TASK_CLASS = RetrievalTask  # the action space; RetrievalTask, MultiRetrievalTask and ImitationTask share it
    GOAL_CATEGORIES = ("retrieval", "multi retrieval", "imitation")

    def __init__(self, eval7_dir: Optional[str] = None, families: Sequence[str] = RETRIEVAL_FAMILIES,
                 max_steps: int = 500, **kwargs: Any):
        # max_steps: the expert solves the default families' scenes in 37-230 steps (preview phases of Pass included)
        # and lava and holes (LONG_RETRIEVAL_FAMILIES) in 240-460 (benchmarks/RESULTS.md): 500 leaves room for all.
        super().__init__(max_steps=max_steps, **kwargs)
        self.eval7_dir = eval7_dir or os.environ.get("MCS_EVAL7_DIR", DEFAULT_EVAL7_DIR)
        self.families = tuple(families)

    @classmethod
    def tag(cls) -> str:
        return "mcs-eval7-dagger"

    def _sampler_args(self, mode: str, scenes: Any, split: str, process_ind: int, total_processes: int,
                      seeds: Optional[Sequence[int]]) -> dict[str, Any]:
        if scenes is None:
            scenes = eval7_scenes(self.eval7_dir, self.families, "train" if split == "train" else "heldout")
        args = super()._sampler_args(mode, scenes, split, process_ind, total_processes, seeds)
        args["task_class"] = None  # each scene's goal category picks its task class
        return args
