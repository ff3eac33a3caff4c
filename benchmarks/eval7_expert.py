"""The expert on Eval-7 scenes with a wall-clock cap per scene, one JSON line per scene (resumable), then a table
per family (scenes, solved, mean steps of the solved ones).

    python benchmarks/eval7_expert.py OUT.jsonl SCENES... [--cap 120] [--jobs 2]
    python benchmarks/eval7_expert.py OUT.jsonl --report        # the table of what OUT.jsonl holds

Each scene runs in a fresh worker process, `--jobs` at a time; a record is written as soon as its scene ends, so a run
that is stopped (Ctrl-C, `timeout`) keeps what it finished and resumes where it stopped.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import time
from multiprocessing import Pool
from pathlib import Path

from tqdm import tqdm

from mcs_plugin.experts.cli import by_family, family_of, format_family_report
from mcs_plugin.experts.policies import ExpertRun, run_expert
from mcs_plugin.sim.controller import EmbeddedController


class SceneTimeout(Exception):
    """The scene ran past its wall-clock cap."""


def _alarm(*_) -> None:
    raise SceneTimeout()


def run_capped(scene: str, cap: int) -> dict:
    """One scene's record: success, steps, how it ended, seconds (a scene past `cap` seconds counts as failed)."""
    controller = EmbeddedController({"metadata": "oracle", "render": False, "reward_mode": "seed"})
    start = time.time()
    signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(cap)
    try:
        run = run_expert(scene, controller=controller)
        record = {"success": run.success, "steps": run.steps, "ended": run.ended}
    except SceneTimeout:
        record = {"success": False, "steps": None, "ended": f"timeout {cap}s"}
    except Exception as error:  # no expert for the category, an unreadable scene: a failure with its reason
        record = {"success": False, "steps": None, "ended": f"error: {type(error).__name__}: {error}"}
    finally:
        signal.alarm(0)
    record.update(scene=scene, family=family_of(scene), seconds=round(time.time() - start, 1))
    return record


def _run_job(job: tuple[str, int]) -> dict:
    return run_capped(*job)


def _stop(*_) -> None:
    sys.exit(143)  # SIGTERM: leave through the pool's exit, which ends the workers


def run_all(scenes: list[str], out: Path, cap: int, jobs: int) -> None:
    """Run the scenes not yet recorded in `out`, `jobs` at a time, appending each record as its scene ends."""
    done = {json.loads(line)["scene"] for line in out.read_text().splitlines()} if out.exists() else set()
    todo = [scene for scene in dict.fromkeys(scenes) if scene not in done]
    if not todo:  # everything recorded: no pool (terminating a fresh Pool with maxtasksperchild can hang)
        return
    signal.signal(signal.SIGTERM, _stop)
    solved = 0
    with Pool(jobs, maxtasksperchild=1) as pool, tqdm(total=len(todo), unit="scene") as bar:
        for record in pool.imap_unordered(_run_job, [(scene, cap) for scene in todo]):
            with out.open("a") as f:
                f.write(json.dumps(record) + "\n")
            solved += bool(record["success"])
            bar.set_postfix(solved=solved)
            bar.update()
        pool.close()  # every scene ended: let the workers exit rather than terminate them
        pool.join()


def report(path: Path) -> str:
    """The per-family table of the records in a JSONL file (the last record of a scene counts)."""
    records = {}
    for line in path.read_text().splitlines():
        record = json.loads(line)
        records[record["scene"]] = record
    runs = [ExpertRun(r["scene"], "", r["success"], r["steps"] or 0, r["ended"]) for r in records.values()]
    return format_family_report(by_family({"runs": runs, "skipped": []}))


def main(argv: list[str] | None = None) -> int:
    """Run the scenes not yet in OUT (or just report)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("scenes", nargs="*")
    parser.add_argument("--cap", type=int, default=120, help="seconds per scene")
    parser.add_argument("--jobs", type=int, default=1, help="scenes run at a time (one process each)")
    parser.add_argument("--report", action="store_true")
    args = parser.parse_args(argv)
    if args.jobs < 1:
        parser.error(f"--jobs must be at least 1, got {args.jobs}")
    if not args.report:
        run_all(args.scenes, args.out, args.cap, args.jobs)
    print(report(args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
