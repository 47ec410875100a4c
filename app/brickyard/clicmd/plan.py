"""`brickyard plan FILE`: validate a layout, place it, size it, fail it, print the commands."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("plan", help="check a volume layout the way gluster would")
    p.add_argument("file")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    raise NotImplementedError
