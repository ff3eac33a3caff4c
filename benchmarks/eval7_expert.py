"""The expert on Eval-7 scenes with a wall-clock cap per scene, one JSON line per scene (resumable), then a table
per family (scenes, solved, mean steps of the solved ones).

    python benchmarks/eval7_expert.py OUT.jsonl SCENES... [--cap 120]
    python benchmarks/eval7_expert.py OUT.jsonl --report        # the table of what OUT.jsonl holds
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import time
from pathlib import Path

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
    parser.add_argument("--report", action="store_true")
    args = parser.parse_args(argv)
    if not args.report:
        done = set()
        if args.out.exists():
            done = {json.loads(line)["scene"] for line in args.out.read_text().splitlines()}
        for scene in args.scenes:
            if scene not in done:
                with args.out.open("a") as f:
                    f.write(json.dumps(run_capped(scene, args.cap)) + "\n")
    print(report(args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
