"""Does the embedded simulator give the same outcome when a scene is turned about the room's vertical axis, or
mirrored?

Every rule of MCS that is about objects, not about the room's sides, must give the turned (mirrored) outcome for a
turned (mirrored) scene. This replays actions on a scene and on its variant
(mcs_plugin.conformance_variants.equivariance_errors) and counts where they part: return statuses, visibility,
positions more than 1 mm apart. The actions are a conformance test's recorded ones (--corpus) or the expert's on
each scene (--scenes; the expert is also run on the variant, and both successes are recorded). One JSON line per
(scene, variant), then a summary.

    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/variant_equivariance.py OUT.jsonl --corpus tests/data/conformance --turn 90 30
    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/variant_equivariance.py OUT.jsonl --turn 90 --jobs 2 \\
        --scenes ../shared/mcs/eval7/eval_7_interactive_*.json
    ... --mirror      # mirrored scenes (scenes with objects that are not their own mirror image are left out)

Angles that are not quarter turns enlarge the room rather than turn it (see conformance_variants), so what touches a
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
from mcs_plugin.conformance_variants import Variant, equivariance_errors, left_out_reason, variant_scene
from mcs_plugin.mcs.scene import load_scene_json_file


def corpus_job(folder: str, test: str, variant: Variant) -> dict | None:
    scene = load_scene_json_file(Path(folder) / f"{test}{SCENE_SUFFIX}")
    actions_path = Path(folder) / f"{test}.actions.txt"
    actions = read_actions(actions_path) if actions_path.is_file() else []
    if left_out_reason(scene, actions, variant):
        return None
    errors = equivariance_errors(scene, actions, variant)
    return {"scene": test, "variant": str(variant), "errors": len(errors), "first": errors[:3]}


def scene_job(path: str, variant: Variant) -> dict | None:
    from mcs_plugin.experts.policies import run_expert

    scene = load_scene_json_file(path)
    if left_out_reason(scene, [], variant):
        return None
    record: dict = {"scene": path, "variant": str(variant)}
    try:
        run = run_expert(scene, record_actions=True)
        varied = run_expert(variant_scene(scene, variant))
    except Exception as error:  # noqa: BLE001 - a scene without an expert: recorded, not fatal
        return {**record, "errors": None, "first": [f"{type(error).__name__}: {error}"]}
    errors = equivariance_errors(scene, run.actions, variant)
    return {**record, "success": run.success, "variant_success": varied.success, "steps": run.steps,
            "errors": len(errors), "first": errors[:3]}


def _run(job: tuple) -> dict | None:
    kind, *args = job
    return corpus_job(*args) if kind == "corpus" else scene_job(*args)


def summary(records: list[dict]) -> str:
    lines = []
    for variant in sorted({r["variant"] for r in records}):
        rows = [r for r in records if r["variant"] == variant]
        parted = [r for r in rows if r["errors"]]
        line = f"{variant}: {len(rows)} replays, {len(rows) - len(parted)} the same"
        if any("success" in r for r in rows):
            solved = Counter((r.get("success"), r.get("variant_success")) for r in rows)
            line += (f"; expert solved {sum(n for (s, _), n in solved.items() if s)} as given, "
                     f"{sum(n for (_, t), n in solved.items() if t)} {variant}")
        lines.append(line)
        lines += [f"  {r['scene']}: {r['errors']} ({'; '.join(r['first'])})" for r in parted]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="JSON lines written here")
    parser.add_argument("--corpus", help="conformance corpus folder: replay each test's recorded actions")
    parser.add_argument("--scenes", nargs="*", default=[], help="scene files: replay the expert's actions")
    parser.add_argument("--turn", type=int, nargs="+", default=[90], metavar="DEG", help="0 with --mirror: mirror only")
    parser.add_argument("--mirror", action="store_true", help="mirror (x -> -x) before each turn")
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args(argv)
    variants = [Variant(degrees, args.mirror) for degrees in args.turn]
    jobs: list[tuple] = []
    if args.corpus:
        folder = str(corpus_files_dir(args.corpus))
        jobs += [("corpus", folder, test, variant) for variant in variants for test in discover_tests(folder)]
    jobs += [("scene", path, variant) for variant in variants for path in args.scenes]
    if not jobs:
        parser.error("give --corpus or --scenes")
    records = []
    with Pool(args.jobs) as pool, open(args.out, "w") as out:
        for record in tqdm(pool.imap_unordered(_run, jobs), total=len(jobs), file=sys.stderr):
            if record is None:  # a scene that has no such variant
                continue
            out.write(json.dumps(record) + "\n")
            out.flush()
            records.append(record)
    print(summary(records))
    return 0


if __name__ == "__main__":
    sys.exit(main())
