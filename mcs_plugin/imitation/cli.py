"""`mcs-plugin collect-expert`: record expert trajectories for offline behaviour cloning."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from mcs_plugin.samplers.scenes import list_scenes


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--scenes", required=True, nargs="+", help="scene directories, globs, manifests or files")
    parser.add_argument("--out", required=True, type=Path, help="dataset directory to write")
    parser.add_argument("--resolution", type=int, default=64, help="square image size (default 64)")
    parser.add_argument("--max-steps", type=int, default=200, help="steps per episode at most (default 200)")
    parser.add_argument("--keep-failures", action="store_true", help="also keep episodes the expert did not solve")


def cmd_collect_expert(args: argparse.Namespace) -> int:
    """Record the expert on every scene and print the dataset's counts as JSON."""
    from mcs_plugin.imitation.dataset import collect_expert_trajectories

    stats = collect_expert_trajectories(list_scenes(args.scenes), args.out, args.resolution, args.max_steps,
                                        only_successful=not args.keep_failures)
    print(json.dumps(stats))
    return 0 if stats["episodes"] else 1


def register(subparsers) -> None:
    """Add `collect-expert` to the mcs-plugin command."""
    parser = subparsers.add_parser("collect-expert", help="record expert trajectories (observations, expert "
                                   "actions, episode boundaries) for offline behaviour cloning")
    _add_arguments(parser)
    parser.set_defaults(handler=cmd_collect_expert)
