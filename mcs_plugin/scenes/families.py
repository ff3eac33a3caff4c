"""MCS evaluation task families (Eval-7 and later): the family and variant a scene names, and a train / held-out split
of a family's variants that never puts one scene in both."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Iterable, Optional, Sequence

#: MCS evaluation scene names: eval_<N>_<interactive|passive>_<family>_<NNNN>_<VV>[.json]
EVAL_NAME = re.compile(r"^eval_\d+_(?P<kind>interactive|passive)_(?P<family>.+?)_(?P<scene>\d{4})_(?P<variant>\d{2})(?:\.json)?$")
OTHER = "other"
SPLITS = ("train", "heldout")

#: The 26 interactive task families of MCS Eval 7 (`eval_7_interactive_<family>_NNNN_VV.json`).
EVAL7_INTERACTIVE_FAMILIES = (
    "agent_identification", "arithmetic", "asymmetric_tool", "collision", "containers", "holes", "imitation",
    "knowledgeable_agents", "lava", "moving_target_prediction", "number_comparison", "object_permanence", "obstacles",
    "occluded_trajectory", "occluders", "ramps", "secondary_tool", "set_rotation", "shell_game", "solidity",
    "spatial_elimination", "spatial_reference", "spatial_reorientation", "support_relations", "symmetric_tool",
    "tool_choice")
#: Eval-7 families whose goal is a retrieval the oracle expert solves with the retrieval vocabulary (navigate, look,
#: open, pick up) in 37-230 steps: the default training families of `experiments/mcs_eval7_dagger.py`.
RETRIEVAL_FAMILIES = ("containers", "imitation", "obstacles", "occluders", "spatial_elimination", "spatial_reference")
#: Also retrieval with that vocabulary, but in 18 x 21 m rooms and 240-460 expert steps, where the expert's labels
#: cost seconds (graph builds at half grid): too slow for DAgger on a 2-core machine (benchmarks/RESULTS.md).
LONG_RETRIEVAL_FAMILIES = ("holes", "lava")


def _match(name: str) -> Optional[re.Match]:
    return EVAL_NAME.match(Path(name).name)


def _scene_name(path: Path) -> Optional[str]:
    """The `name` the scene file gives itself (None when it has none or cannot be read)."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8-sig"))
    except (OSError, ValueError):
        return None
    name = data.get("name") if isinstance(data, dict) else None
    return name if isinstance(name, str) else None


def family_of(scene: str | Path, name: Optional[str] = None) -> str:
    """A scene's family: from its file name (`eval_7_interactive_ramps_0001_01.json` -> `ramps`; passive ones
    `passive_<family>`), else from the scene's own `name` (given, or read from the file), else `other`."""
    match = _match(str(scene))
    if match is None:
        match = _match(name if name is not None else (_scene_name(Path(scene)) or ""))
    if match is None:
        return OTHER
    family = match.group("family")
    return f"passive_{family}" if match.group("kind") == "passive" else family


def variant_of(scene: str | Path) -> Optional[int]:
    """The variant number of an evaluation scene file (`..._0001_07.json` -> 7); None for other names."""
    match = _match(str(scene))
    return None if match is None else int(match.group("variant"))


def split_of(scene: str | Path) -> str:
    """`train` or `heldout`: variants alternate within a family (01, 05, 09... train; 03, 07, 11... held out), so
    both parts cover every family that has two variants or more. Files without a variant number are `train`."""
    variant = variant_of(scene)
    if variant is None:
        return "train"
    return "heldout" if ((variant - 1) // 2) % 2 else "train"


def select(scenes: Iterable[str | Path], families: Optional[Sequence[str]] = None,
           split: Optional[str] = None) -> list[Path]:
    """The scenes of the given families (None: all) and split part (None: both), sorted."""
    if split is not None and split not in SPLITS:
        raise ValueError(f"split must be one of {SPLITS}, not {split!r}")
    wanted = None if families is None else {f.replace(" ", "_") for f in families}
    out = []
    for scene in scenes:
        if wanted is not None and family_of(scene) not in wanted:
            continue
        if split is not None and split_of(scene) != split:
            continue
        out.append(Path(scene))
    return sorted(out)


def main(argv: Optional[Sequence[str]] = None) -> int:
    """`python -m mcs_plugin.scenes.families DIR [--families F...] [--split train|heldout]`: print the scene paths."""
    import argparse

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("folder", help="a folder of MCS evaluation scene files (e.g. ../shared/mcs/eval7)")
    parser.add_argument("--families", nargs="+", help="families to keep (default: all)")
    parser.add_argument("--split", choices=SPLITS, help="part of the variant split (default: both)")
    parser.add_argument("--interactive", action="store_true", help="interactive scenes only")
    args = parser.parse_args(argv)
    pattern = "eval_*_interactive_*.json" if args.interactive else "*.json"
    for path in select(sorted(Path(args.folder).glob(pattern)), args.families, args.split):
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
