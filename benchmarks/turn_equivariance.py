"""Does the embedded simulator give the same outcome when a scene is turned about the room's vertical axis?

Every rule of MCS that is about objects, not about the room's sides, must give the turned outcome for a turned scene.
This replays actions on a scene and on its turn (mcs_plugin.conformance_turn.equivariance_errors) and counts where
they part: return statuses, visibility, positions more than 1 mm apart. The actions are a conformance test's recorded
ones (--corpus) or the expert's on each scene (--scenes; the expert is also run on the turned scene, and both
successes are recorded). One JSON line per (scene, turn), then a summary.

    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/turn_equivariance.py OUT.jsonl --corpus tests/data/conformance --turn 90 30
    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/turn_equivariance.py OUT.jsonl --turn 90 --jobs 2 \\
        --scenes ../shared/mcs/eval7/eval_7_interactive_*.json

Angles that are not quarter turns enlarge the room rather than turn it (see conformance_turn), so what touches a
wall parts there for that reason alone. MCS's simulation agents turn at a speed set by their absolute yaw, which
parts agents' turns by design.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from multiprocessing import Pool
from pathlib import Path

from tqdm import tqdm

from mcs_plugin.conformance import SCENE_SUFFIX, corpus_files_dir, discover_tests, read_actions
from mcs_plugin.conformance_turn import equivariance_errors, turn_scene
from mcs_plugin.mcs.scene import load_scene_json_file


def corpus_job(folder: str, test: str, degrees: int) -> dict:
    scene = load_scene_json_file(Path(folder) / f"{test}{SCENE_SUFFIX}")
    actions_path = Path(folder) / f"{test}.actions.txt"
    errors = equivariance_errors(scene, read_actions(actions_path) if actions_path.is_file() else [], degrees)
    return {"scene": test, "turn": degrees, "errors": len(errors), "first": errors[:3]}


def scene_job(path: str, degrees: int) -> dict:
    from mcs_plugin.experts.policies import run_expert

    scene = load_scene_json_file(path)
    record: dict = {"scene": path, "turn": degrees}
    try:
        run = run_expert(scene, record_actions=True)
        turned = run_expert(turn_scene(scene, degrees))
    except Exception as error:  # noqa: BLE001 - a scene without an expert: recorded, not fatal
        return {**record, "errors": None, "first": [f"{type(error).__name__}: {error}"]}
    errors = equivariance_errors(scene, run.actions, degrees)
    return {**record, "success": run.success, "turned_success": turned.success, "steps": run.steps,
            "errors": len(errors), "first": errors[:3]}


def _run(job: tuple) -> dict:
    kind, *args = job
    return corpus_job(*args) if kind == "corpus" else scene_job(*args)


def summary(records: list[dict]) -> str:
    lines = []
    for degrees in sorted({r["turn"] for r in records}):
        rows = [r for r in records if r["turn"] == degrees]
        parted = [r for r in rows if r["errors"]]
        line = f"turn {degrees}: {len(rows)} replays, {len(rows) - len(parted)} identical after the turn"
        if any("success" in r for r in rows):
            solved = Counter((r.get("success"), r.get("turned_success")) for r in rows)
            line += (f"; expert solved {sum(n for (s, _), n in solved.items() if s)} as given, "
                     f"{sum(n for (_, t), n in solved.items() if t)} turned")
        lines.append(line)
        lines += [f"  {r['scene']}: {r['errors']} ({'; '.join(r['first'])})" for r in parted]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="JSON lines written here")
    parser.add_argument("--corpus", help="conformance corpus folder: replay each test's recorded actions")
    parser.add_argument("--scenes", nargs="*", default=[], help="scene files: replay the expert's actions")
    parser.add_argument("--turn", type=int, nargs="+", default=[90], metavar="DEG")
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args(argv)
    jobs: list[tuple] = []
    if args.corpus:
        folder = str(corpus_files_dir(args.corpus))
        jobs += [("corpus", folder, test, degrees) for degrees in args.turn for test in discover_tests(folder)]
    jobs += [("scene", path, degrees) for degrees in args.turn for path in args.scenes]
    if not jobs:
        parser.error("give --corpus or --scenes")
    records = []
    with Pool(args.jobs) as pool, open(args.out, "w") as out:
        for record in tqdm(pool.imap_unordered(_run, jobs), total=len(jobs), file=sys.stderr):
            out.write(json.dumps(record) + "\n")
            out.flush()
            records.append(record)
    print(summary(records))
    return 0


if __name__ == "__main__":
    sys.exit(main())
