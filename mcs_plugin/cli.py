"""The `mcs-plugin` command line: run scenes on the embedded simulator, validate scene files, run the conformance
corpus.

Each subcommand is a `Subcommand` (name, help, an argument-adding function and a handler returning the exit code)
listed once in `SUBCOMMANDS`; to add one, write the two functions and append an entry there.
"""

from __future__ import annotations

import argparse
import importlib
import json
import random
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

from mcs_plugin import __version__

# Never chosen at random unless nothing else is allowed: they end the scene or are internal.
_AVOID_RANDOM: frozenset[str] = frozenset({"EndScene", "Initialize"})


@dataclass(frozen=True)
class Subcommand:
    """One `mcs-plugin <name>` subcommand."""

    name: str
    help: str
    add_arguments: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int]


# -- helpers ------------------------------------------------------------------------------------------------
def read_action_lines(path: str | Path) -> list[str]:
    """Action lines of a file (`Action,key=value` per line); blank lines and `#` comments skipped."""
    with open(path, encoding="utf-8-sig") as handle:
        lines = [line.strip() for line in handle]
    return [line for line in lines if line and not line.startswith("#")]


def depth_to_image(depth: Any) -> Any:
    """A depth map (metres) as an 8-bit grey PIL image for viewing: nearest = 255 (bright), farthest = 32 (dark
    grey), pixels without depth (0, inf, nan) black."""
    import numpy as np
    from PIL import Image

    depth = np.asarray(depth, dtype=np.float32)
    valid = np.isfinite(depth) & (depth > 0)
    out = np.zeros(depth.shape, dtype=np.uint8)
    if valid.any():
        near, far = float(depth[valid].min()), float(depth[valid].max())
        span = far - near
        scaled = np.full(depth.shape, 255.0, dtype=np.float32) if span <= 0 else 32.0 + 223.0 * (far - depth) / span
        out[valid] = np.clip(np.rint(scaled[valid]), 0, 255).astype(np.uint8)
    return Image.fromarray(out, mode="L")


def random_action(rng: random.Random, action_list: Sequence[Any], width: int, height: int) -> tuple[str, dict]:
    """A random allowed action; actions on objects get a random pixel (objectImageCoordsX/Y) as target, plus
    random force / direction / rotation parameters where the action takes them and the goal does not fix them."""
    from mcs_plugin.mcs import DEFAULT_ACTIONS
    from mcs_plugin.mcs.params import TARGET_PREFIX  # the actions on an object (and PutObject's receptacle)

    choices = [(entry[0], dict(entry[1] or {})) for entry in action_list] if action_list else \
        [(name, {}) for name in DEFAULT_ACTIONS]
    preferred = [c for c in choices if c[0] not in _AVOID_RANDOM]
    name, params = rng.choice(preferred or choices)
    name = str(getattr(name, "value", name))
    if name in TARGET_PREFIX:
        if "objectId" not in params and "objectImageCoordsX" not in params:
            params["objectImageCoordsX"] = rng.randrange(width)
            params["objectImageCoordsY"] = rng.randrange(height)
        if name == "PutObject" and "receptacleObjectId" not in params and "receptacleObjectImageCoordsX" not in params:
            params["receptacleObjectImageCoordsX"] = rng.randrange(width)
            params["receptacleObjectImageCoordsY"] = rng.randrange(height)
        if name == "TorqueObject":
            params.setdefault("force", round(rng.uniform(-1.0, 1.0), 2))
        elif name in ("PushObject", "PullObject"):
            params.setdefault("force", round(rng.uniform(0.0, 1.0), 2))
        elif name == "MoveObject":
            params.setdefault("lateral", float(rng.choice((-1, 0, 1))))
            params.setdefault("straight", float(rng.choice((-1, 0, 1))))
        elif name == "RotateObject":
            params.setdefault("clockwise", rng.random() < 0.5)
    return name, params


def _save_step(out: Path, index: int, output: Any) -> None:
    """step_NNNN.png, depth_NNNN.png, mask_NNNN.png (those the output has) and step_NNNN.json."""
    if output.image_list:
        output.image_list[-1].convert("RGB").save(out / f"step_{index:04d}.png")
    if output.depth_map_list:
        depth_to_image(output.depth_map_list[-1]).save(out / f"depth_{index:04d}.png")
    if output.object_mask_list:
        output.object_mask_list[-1].convert("RGB").save(out / f"mask_{index:04d}.png")
    with open(out / f"step_{index:04d}.json", "w", encoding="utf-8") as handle:
        json.dump(output.to_dict(), handle, indent=1)


def _scene_config(args: argparse.Namespace) -> dict[str, Any]:
    from mcs_plugin.mcs import read_config_file

    config: dict[str, Any] = dict(read_config_file(args.config)) if args.config else {}
    if args.metadata:
        config["metadata"] = args.metadata
    config.setdefault("metadata", "oracle")
    if args.size:
        config["size"] = args.size
    return config


# -- run-scene ----------------------------------------------------------------------------------------------
def _add_run_scene_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("scene", help="scene JSON file")
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--actions", metavar="FILE", help="actions file: one 'Action,key=value' per line")
    source.add_argument("--random", type=int, metavar="N", help="run N random actions from each step's action_list")
    parser.add_argument("--seed", type=int, default=0, help="random seed for --random (default 0)")
    parser.add_argument("--config", metavar="INI", help="MCS config file ([MCS] section)")
    parser.add_argument("--metadata", metavar="TIER", help="metadata tier: oracle, level2, level1, none (default oracle)")
    parser.add_argument("--size", type=int, metavar="W", help="image width in pixels (height = 2/3 of it)")
    parser.add_argument("--out", metavar="DIR", help="write step_NNNN.png/json, depth_NNNN.png, mask_NNNN.png, summary.json")
    parser.add_argument("--quiet", action="store_true", help="no per-step lines; a progress bar instead")


def _status(output: Any) -> str:
    status = output.return_status
    return str(getattr(status, "value", status))


def _step_line(index: int, action: str, output: Any) -> str:
    return f"step {index:4d}  {action:<48}  {_status(output):<22}  reward {output.reward:.4f}"


def cmd_run_scene(args: argparse.Namespace) -> int:
    """Run a scene with scripted or random actions, optionally saving every step's images and metadata."""
    from tqdm import tqdm

    from mcs_plugin.mcs import format_action, parse_action_string
    from mcs_plugin.sim.controller import EmbeddedController

    if args.random is not None and args.random < 0:
        print("error: --random must be >= 0", file=sys.stderr)
        return 2
    try:
        lines = read_action_lines(args.actions) if args.actions else []
        controller = EmbeddedController(_scene_config(args))
        output = controller.start_scene(args.scene)
    except (OSError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    out = Path(args.out) if args.out else None
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
    width = int(getattr(controller, "width", 600))
    height = int(getattr(controller, "height", width * 2 // 3))
    rng = random.Random(args.seed)
    n_steps = len(lines) if args.actions else (args.random or 0)
    statuses: Counter[str] = Counter()
    actions_run: list[str] = []
    reward = output.reward
    ended, failure = False, None

    def record(index: int, action: str, result: Any) -> None:
        statuses[_status(result)] += 1
        if out is not None:
            _save_step(out, index, result)
        if not args.quiet:
            print(_step_line(index, action, result), flush=True)

    record(0, "(start_scene)", output)
    # disable=None: the bar is drawn only when stderr is a terminal
    with tqdm(total=n_steps, unit="step", file=sys.stderr, disable=None if args.quiet else True) as bar:
        for index in range(1, n_steps + 1):
            try:
                if args.actions:
                    name, params = parse_action_string(lines[index - 1])
                else:
                    name, params = random_action(rng, output.action_list, width, height)
                action = format_action(name, params)
                result = controller.step(name, **params)
            except ValueError as error:
                failure = f"step {index}: {error}"
                print(f"error: {failure}", file=sys.stderr)
                break
            bar.update(1)
            if result is None:
                ended = True
                actions_run.append(action)
                if not args.quiet:
                    print(f"step {index:4d}  {action:<48}  (scene ended)")
                break
            actions_run.append(action)
            output, reward = result, result.reward
            record(index, action, result)
    summary = {
        "scene": str(args.scene),
        "steps": len(actions_run),
        "actions": actions_run,
        "return_status_counts": dict(statuses),
        "final_reward": reward,
        "final_step_number": output.step_number,
        "scene_ended": ended,
        "error": failure,
    }
    if out is not None:
        with open(out / "summary.json", "w", encoding="utf-8") as handle:
            json.dump(summary, handle, indent=2)
    if not args.quiet:
        print(f"{len(actions_run)} steps, final reward {reward:.4f}" + (f", wrote {out}" if out else ""))
    return 1 if failure else 0


# -- validate -----------------------------------------------------------------------------------------------
def _add_validate_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="+", metavar="PATH",
                        help="scene JSON files, or folders searched recursively for *.json files")


def _scene_files(paths: Sequence[str]) -> tuple[list[Path], list[str]]:
    files, problems = [], []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found = sorted(path.rglob("*.json"))
            if not found:
                problems.append(f"{raw}: folder has no *.json files")
            files.extend(found)
        elif path.is_file():
            files.append(path)
        else:
            problems.append(f"{raw}: no such file or folder")
    return files, problems


def cmd_validate(args: argparse.Namespace) -> int:
    """Print one 'path: problem' line per problem of each scene file; exit 1 if there was any.

    The checks are start_scene's (the same schema: a scene that validates, loads) plus goal consistency (every goal
    target id is an object of the scene).
    """
    from mcs_plugin.mcs import validate_scene_file

    files, path_problems = _scene_files(args.paths)
    for line in path_problems:
        print(line)
    with_problems = 0
    for path in files:
        problems = validate_scene_file(path)
        if problems:
            with_problems += 1
        prefix = f"{path}:"
        for problem in problems:
            print(problem if problem.startswith(prefix) else f"{prefix} {problem}")
    print(f"{len(files)} files, {with_problems} with problems")
    return 1 if with_problems or path_problems else 0


# -- conformance --------------------------------------------------------------------------------------------
def _add_conformance_arguments(parser: argparse.ArgumentParser) -> None:
    from mcs_plugin.conformance import TIERS

    parser.add_argument("directory", metavar="DIR", help="conformance corpus folder (tests/data/conformance)")
    parser.add_argument("--metadata", action="append", choices=TIERS, metavar="TIER",
                        help="tier to run: oracle, level1 or level2 (repeatable; default all three)")
    parser.add_argument("--test", nargs="+", action="extend", metavar="NNN",
                        help="only these tests (number or name prefix, e.g. 001)")
    parser.add_argument("--json", action="store_true", help="print one JSON object (see conformance.to_json)")
    parser.add_argument("--write-passing", metavar="FILE",
                        help="also write the passing tests per tier to FILE (JSON; the test suite's regression list)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    parser.add_argument("--turn", type=int, default=0, metavar="DEG",
                        help="replay every test turned by DEG degrees about the room's vertical axis, against its "
                             "expected outputs turned the same way (see mcs_plugin/conformance_variants.py)")
    parser.add_argument("--mirror", action="store_true",
                        help="replay every test mirrored left to right (x -> -x), before any --turn")
    parser.add_argument("--details", action="store_true",
                        help="after the report, list every failing value of every failing test (step, field, "
                             "expected, got)")
    parser.add_argument("--plot", metavar="FOLDER",
                        help="for every failing test, write FOLDER/<test>.<tier>.png (paths recorded against "
                             "replayed, failing values by step) and <test>.<tier>.replayed.json (our outputs in "
                             "the recorded format)")


def cmd_conformance(args: argparse.Namespace) -> int:
    """Replay the recorded MCS outputs and report pass rates (always exit 0: a report, not a check)."""
    from mcs_plugin.conformance import TIERS, format_report, passing_tests, run_corpus, to_json

    if not Path(args.directory).is_dir():
        print(f"error: {args.directory}: no such folder", file=sys.stderr)
        return 2
    tiers = tuple(dict.fromkeys(args.metadata)) if args.metadata else TIERS
    keep = bool(args.plot)
    if args.turn or args.mirror:
        results = _run_variant_corpus(args, tiers, keep)
    else:
        results = run_corpus(args.directory, tiers=tiers, tests=args.test, progress=not args.no_progress,
                             keep_outputs=keep)
    if args.write_passing:
        Path(args.write_passing).write_text(json.dumps(passing_tests(results), indent=1) + "\n")
    if args.json:
        print(json.dumps(to_json(results)))
    else:
        print(format_report(results))
    failing = [test for tier_result in results.values() for test in tier_result.results if not test.passed]
    if args.details:
        listing = sys.stderr if args.json else sys.stdout  # --json keeps stdout one JSON object
        for test in failing:
            print(f"\n{test.name} ({test.tier}): {len(test.failures)} failing values", file=listing)
            for failure in test.failures:
                print(f"  {failure.describe()}", file=listing)
    if args.plot:
        _plot_failing(failing, Path(args.plot))
    return 0


def _plot_failing(failing: Sequence[Any], folder: Path) -> None:
    """conformance --plot: a picture and the replayed outputs of every failing test (see conformance_plot)."""
    from mcs_plugin.conformance_plot import plot_test, write_replayed

    drawn = [test for test in failing if test.recorded]  # a test stopped before its first output has nothing to draw
    for test in drawn:
        plot_test(test, folder / f"{test.name}.{test.tier}.png")
        write_replayed(test, folder / f"{test.name}.{test.tier}.replayed.json")
    print(f"{len(drawn)} of {len(failing)} failing tests drawn in {folder}", file=sys.stderr)


def _run_variant_corpus(args: argparse.Namespace, tiers: Sequence[str], keep_outputs: bool) -> Any:
    """run_corpus over a turned or mirrored copy of the corpus (see mcs_plugin.conformance_variants)."""
    import tempfile

    from mcs_plugin.conformance import corpus_files_dir, run_corpus
    from mcs_plugin.conformance_variants import Variant, write_variant_corpus

    variant = Variant(args.turn, args.mirror)
    with tempfile.TemporaryDirectory(prefix="conformance_variant_") as folder:
        written, left_out = write_variant_corpus(corpus_files_dir(args.directory), Path(folder), variant, args.test)
        print(f"{variant}: {len(written)} tests", file=sys.stderr)
        for name, reason in left_out.items():
            print(f"  left out {name}: {reason}", file=sys.stderr)
        return run_corpus(folder, tiers=tiers, progress=not args.no_progress, keep_outputs=keep_outputs)


# -- parser -------------------------------------------------------------------------------------------------
SUBCOMMANDS: list[Subcommand] = [
    Subcommand("run-scene", "run a scene with scripted or random actions and save each step",
               _add_run_scene_arguments, cmd_run_scene),
    Subcommand("validate", "check scene JSON files (folders recursively) as start_scene does, plus goal targets",
               _add_validate_arguments,
               cmd_validate),
    Subcommand("conformance", "replay recorded MCS Unity outputs on the embedded simulator",
               _add_conformance_arguments, cmd_conformance),
]


# Subpackages that add their own subcommands through a `register(subparsers)` function.
PLUGIN_COMMAND_MODULES: tuple[str, ...] = ("mcs_plugin.scenes.cli", "mcs_plugin.experts.cli", "mcs_plugin.imitation.cli",
                                           "mcs_plugin.evaluation.cli", "mcs_plugin.training.cli",
                                           "mcs_plugin.overview")


def build_parser(subcommands: Sequence[Subcommand] | None = None) -> argparse.ArgumentParser:
    """The argparse parser with every registered subcommand."""
    parser = argparse.ArgumentParser(prog="mcs-plugin", description=__doc__.split("\n\n")[0])
    parser.add_argument("--version", action="version", version=f"mcs-plugin {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for command in SUBCOMMANDS if subcommands is None else subcommands:
        command_parser = sub.add_parser(command.name, help=command.help, description=command.help)
        command.add_arguments(command_parser)
        command_parser.set_defaults(handler=command.run)
    if subcommands is None:
        for module in PLUGIN_COMMAND_MODULES:
            importlib.import_module(module).register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `mcs-plugin` console script; returns the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help(sys.stderr)
        return 2
    try:
        return int(handler(args) or 0)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
