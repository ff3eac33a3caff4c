"""`mcs-plugin expert SCENES... [--json] [--max-steps N]`: run the expert of each scene's goal category on the
embedded simulator (oracle metadata, no rendering) and report its success per goal category.

Wiring: `register(subparsers)` adds the subcommand to an argparse sub-parser set (the handler is stored as the
parser default `handler`); `add_arguments` and `run` are the same pieces for a `Subcommand` table.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections import defaultdict
from pathlib import Path
from typing import Iterable

from mcs_plugin.scenes.families import family_of

HELP = "run the expert policy on scenes and report its success per goal category"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of the `expert` subcommand."""
    parser.add_argument("scenes", nargs="+", metavar="SCENES",
                        help="scene JSON files or directories (searched recursively for *.json)")
    parser.add_argument("--json", action="store_true",
                        help='print one JSON object: {"<goal>": {"success": k, "total": n}, ...}')
    parser.add_argument("--max-steps", type=int, default=None, metavar="N",
                        help="step limit per scene (default: the scene's last_step, else 1000)")
    parser.add_argument("--by-family", action="store_true",
                        help="report per Eval task family (from the file name, e.g. eval_7_interactive_ramps_0001_01"
                             ".json -> ramps): scenes, solved, mean steps of the solved ones")
    parser.add_argument("--failures", action="store_true", help="also list the failed scenes and why")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")


def register(subparsers) -> argparse.ArgumentParser:
    """Add the `expert` subcommand to an argparse sub-parser set; returns its parser."""
    parser = subparsers.add_parser("expert", help=HELP, description=HELP)
    add_arguments(parser)
    parser.set_defaults(handler=run)
    return parser


def by_family(result: dict) -> dict[str, dict]:
    """Per-family totals of an `evaluate` result: {family: {"scenes", "solved", "mean_steps", "skipped"}}; mean
    steps are over the solved scenes (None when none was solved)."""
    families: dict[str, dict] = defaultdict(lambda: {"scenes": 0, "solved": 0, "steps": [], "skipped": 0})
    for run in result["runs"]:
        entry = families[family_of(run.scene)]
        entry["scenes"] += 1
        if run.success:
            entry["solved"] += 1
            entry["steps"].append(run.steps)
    for path, _ in result["skipped"]:
        entry = families[family_of(path)]
        entry["scenes"] += 1
        entry["skipped"] += 1
    return {family: {"scenes": e["scenes"], "solved": e["solved"], "skipped": e["skipped"],
                     "mean_steps": round(statistics.fmean(e["steps"]), 1) if e["steps"] else None}
            for family, e in sorted(families.items())}


def format_family_report(families: dict[str, dict]) -> str:
    """A table of expert success per family, with a total row."""
    lines = [f"{'family':<34}{'scenes':>7}{'solved':>7}{'rate':>8}{'mean steps':>12}{'skipped':>9}"]
    for family, e in families.items():
        rate = 100.0 * e["solved"] / e["scenes"] if e["scenes"] else 0.0
        steps = "-" if e["mean_steps"] is None else f"{e['mean_steps']:.1f}"
        lines.append(f"{family:<34}{e['scenes']:>7}{e['solved']:>7}{rate:>7.1f}%{steps:>12}{e['skipped']:>9}")
    scenes = sum(e["scenes"] for e in families.values())
    solved = sum(e["solved"] for e in families.values())
    rate = 100.0 * solved / scenes if scenes else 0.0
    lines.append(f"{'all':<34}{scenes:>7}{solved:>7}{rate:>7.1f}%")
    return "\n".join(lines)


def scene_files(paths: Iterable[str | Path]) -> list[Path]:
    """Scene files named by files and directories (directories: every *.json below, sorted; manifests skipped)."""
    files: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            files.extend(sorted(p for p in path.rglob("*.json") if p.is_file()))
        elif path.is_file():
            files.append(path)
        else:
            raise FileNotFoundError(f"no such scene file or directory: {raw}")
    seen: set[Path] = set()
    unique = []
    for f in files:
        key = f.resolve()
        if key not in seen:
            seen.add(key)
            unique.append(f)
    return unique


def evaluate(paths: Iterable[str | Path], max_steps: int | None = None, progress: bool = True) -> dict:
    """Run the expert on every scene: {"totals": {goal: {"success", "total"}}, "runs": [...], "skipped": [...]}."""
    from mcs_plugin.experts.policies import NoExpertError, run_expert
    from mcs_plugin.sim.controller import EmbeddedController

    files = scene_files(paths)
    controller = EmbeddedController({"metadata": "oracle", "render": False, "reward_mode": "seed"})
    totals: dict[str, dict[str, int]] = defaultdict(lambda: {"success": 0, "total": 0})
    runs, skipped = [], []
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=len(files), desc="expert", unit="scene", file=sys.stderr,
                   disable=None)  # None: drawn only when stderr is a terminal
    try:
        for path in files:
            try:
                run = run_expert(str(path), controller=controller, max_steps=max_steps)
            except NoExpertError as error:
                skipped.append((str(path), str(error)))
            except Exception as error:  # an unreadable scene: reported, not fatal
                skipped.append((str(path), f"{type(error).__name__}: {error}"))
            else:
                runs.append(run)
                entry = totals[run.category]
                entry["total"] += 1
                entry["success"] += int(run.success)
                if bar is not None:
                    done = sum(t["success"] for t in totals.values())
                    bar.set_postfix(success=f"{done}/{len(runs)}")
            if bar is not None:
                bar.update(1)
    finally:
        if bar is not None:
            bar.close()
    return {"totals": {k: dict(v) for k, v in sorted(totals.items())}, "runs": runs, "skipped": skipped}


def format_report(result: dict, failures: bool = False) -> str:
    """A table of success per goal category (and the failed scenes when asked)."""
    lines = [f"{'goal':<16}{'success':>8}{'total':>8}{'rate':>9}"]
    for goal, entry in result["totals"].items():
        rate = 100.0 * entry["success"] / entry["total"] if entry["total"] else 0.0
        lines.append(f"{goal:<16}{entry['success']:>8}{entry['total']:>8}{rate:>8.1f}%")
    if result["skipped"]:
        lines.append(f"skipped {len(result['skipped'])} scene(s) without an expert or unreadable")
    if failures:
        for run in result["runs"]:
            if not run.success:
                lines.append(f"FAIL {run.scene}: {run.category}, {run.steps} steps, {run.ended}")
        for path, why in result["skipped"]:
            lines.append(f"SKIP {path}: {why}")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    """Handler of `mcs-plugin expert`."""
    try:
        result = evaluate(args.scenes, max_steps=args.max_steps, progress=not args.no_progress)
    except FileNotFoundError as error:
        print(f"mcs-plugin expert: {error}", file=sys.stderr)
        return 2
    if args.by_family:
        families = by_family(result)
        if args.json:
            print(json.dumps(families, sort_keys=True))
        else:
            print(format_family_report(families))
            if args.failures:
                print(format_report(result, failures=True))
    elif args.json:
        print(json.dumps(result["totals"], sort_keys=True))
    else:
        print(format_report(result, failures=args.failures))
    return 0


def main(argv: list[str] | None = None) -> int:
    """Run the subcommand on its own (`python -m mcs_plugin.experts.cli SCENES...`)."""
    parser = argparse.ArgumentParser(prog="mcs-plugin expert", description=HELP)
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
