"""The `generate` and `view` subcommands of `mcs-plugin` (added to the main parser by `register(subparsers)`).

    mcs-plugin generate --goal retrieval --count 100 --split train --difficulty easy --seed 0 --out scenes/ [--workers 2]
    mcs-plugin view scenes/train/retrieval-easy-train-s0-00000.json --out scene.png [--step N]

Also runnable alone: `python -m mcs_plugin.scenes.cli generate ...`.
"""

from __future__ import annotations

import argparse
import sys
from typing import Sequence


def add_generate_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of `generate`."""
    from mcs_plugin.scenes.generator import DEFAULT_IMAGE_SIZE, DIFFICULTY_NAMES, GOALS, SPLITS

    parser.add_argument("--goal", required=True, choices=GOALS, help="goal category of the scenes")
    parser.add_argument("--count", type=int, required=True,
                        help="number of scenes (intuitive_physics: number of plausible/implausible pairs)")
    parser.add_argument("--split", default="train", choices=SPLITS, help="dataset split (own seed stream and ids)")
    parser.add_argument("--difficulty", default="easy", choices=DIFFICULTY_NAMES)
    parser.add_argument("--seed", type=int, default=0, help="base seed (same seed -> same bytes)")
    parser.add_argument("--out", required=True, help="output folder (scenes go to OUT/SPLIT/, manifest to OUT/)")
    parser.add_argument("--workers", type=int, default=1, help="processes (output identical to --workers 1)")
    parser.add_argument("--image-size", type=int, default=DEFAULT_IMAGE_SIZE,
                        help="goal image size in pixels (0: no target.image)")
    parser.add_argument("--start-index", type=int, default=0, help="first scene index (to extend a dataset)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")


def cmd_generate(args: argparse.Namespace) -> int:
    """Run `generate`: write the scenes and manifest, print the summary table."""
    from mcs_plugin.scenes.generator import GenerationError, generate, print_summary

    if args.count < 0 or args.workers < 1 or args.image_size < 0:
        print("generate: --count and --image-size must be >= 0 and --workers >= 1", file=sys.stderr)
        return 2
    try:
        summary = generate(args.goal, args.count, args.split, args.difficulty, args.seed, args.out,
                           workers=args.workers, image_size=args.image_size, progress=not args.no_progress,
                           start_index=args.start_index)
    except GenerationError as error:
        print(f"generate: {error}", file=sys.stderr)
        return 1
    print_summary(summary)
    print(f"wrote {summary.written} scenes to {args.out}/{args.split}/ (manifest {args.out}/manifest.jsonl)")
    return 0


def add_view_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of `view`."""
    parser.add_argument("scene", help="scene JSON file")
    parser.add_argument("--out", required=True, help="PNG to write")
    parser.add_argument("--step", type=int, default=0, help="show the frames after this many Pass actions")


def cmd_view(args: argparse.Namespace) -> int:
    """Run `view`: write the map + first-person figure."""
    from mcs_plugin.mcs import SceneError
    from mcs_plugin.scenes.view import view_scene

    try:
        path = view_scene(args.scene, args.out, step=args.step)
    except (SceneError, OSError) as error:
        print(f"view: {error}", file=sys.stderr)
        return 1
    print(f"wrote {path}")
    return 0


#: (name, help, add_arguments, run) of each subcommand, for callers that keep their own registry.
SUBCOMMAND_SPECS = (
    ("generate", "generate checked MCS scenes (retrieval, traversal, transferral, intuitive physics) with a manifest",
     add_generate_arguments, cmd_generate),
    ("view", "draw a scene: top-down map beside the first-person RGB, depth and mask frames",
     add_view_arguments, cmd_view),
)


def register(subparsers) -> None:
    """Add `generate` and `view` to an argparse subparsers object; each sets `handler` (and `func`) to its
    command function, which takes the parsed Namespace and returns the exit code."""
    for name, help_text, add_arguments, run in SUBCOMMAND_SPECS:
        parser = subparsers.add_parser(name, help=help_text, description=help_text)
        add_arguments(parser)
        parser.set_defaults(handler=run, func=run)


def main(argv: Sequence[str] | None = None) -> int:
    """Stand-alone entry point (`python -m mcs_plugin.scenes.cli`)."""
    parser = argparse.ArgumentParser(prog="mcs-plugin")
    register(parser.add_subparsers(dest="command", metavar="COMMAND"))
    args = parser.parse_args(argv)
    if getattr(args, "handler", None) is None:
        parser.print_help(sys.stderr)
        return 2
    return int(args.handler(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
