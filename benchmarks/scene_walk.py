"""Walk the navigation grid's path in the embedded simulator and pick up the target, on generated retrieval scenes.

Checks that the scene generator's notion of reachable (`scenes.checks.reach_region` on the `NavGrid`) holds in the
simulator (`scenes.walk.walk_and_pick_up`, which the test suite runs on two scenes): walk the shortest lattice path,
open the container the target is in (if any), look down step by step and pick the target up. Prints each failure and
the totals.

    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/scene_walk.py --per-difficulty 40 --seed 3
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from mcs_plugin.scenes import generator as gen
from mcs_plugin.scenes.manifest import read_manifest
from mcs_plugin.scenes.walk import walk_and_pick_up


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-difficulty", type=int, default=40, help="retrieval scenes per difficulty")
    parser.add_argument("--seed", type=int, default=3)
    args = parser.parse_args(argv)
    out = Path(tempfile.mkdtemp(prefix="scene_walk_"))
    for difficulty in ("easy", "medium", "hard"):
        gen.generate("retrieval", args.per_difficulty, "train", difficulty, args.seed, out, image_size=64,
                     progress=False)
    picked = in_container = picked_in_container = 0
    records = read_manifest(out)
    for record in records:
        status = walk_and_pick_up(json.loads((out / record["path"]).read_text()))
        good = status == "SUCCESSFUL"
        picked += good
        if record.get("in_container"):
            in_container += 1
            picked_in_container += good
        if not good:
            print("failed", record["id"], status, "in a container" if record.get("in_container") else "")
    print(f"{picked}/{len(records)} picked up; in a container {picked_in_container}/{in_container}")
    return 0 if picked == len(records) else 1


if __name__ == "__main__":
    sys.exit(main())
