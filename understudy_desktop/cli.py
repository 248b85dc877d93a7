"""`understudy` command line: where the data lives, and an optional file to open (a queue, or
a Tool Pack to import)."""

from __future__ import annotations

import argparse
import gc
from pathlib import Path

from understudy_desktop import APP_NAME, __version__
from understudy_desktop.logs import configure_logging
from understudy_desktop.paths import DATA_DIR_ENV, keep_private, resolve_data_paths


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="understudy",
        description=f"{APP_NAME}: a helpdesk triage console. Teach a routine once; agents "
        "run it as a tool, exactly as you approved it, and the app applies every change.",
    )
    parser.add_argument(
        "file",
        nargs="?",
        type=Path,
        help="a ticket queue to open (a helpdesk export: .csv, .tsv, .json, .jsonl), or a "
        "Tool Pack to import (shown for your approval first)",
    )
    parser.add_argument(
        "--data-dir",
        metavar="DIR",
        help="keep the app's data (the database of your queue, tools and settings; the "
        f"browser profile; logs) in DIR (default: ${DATA_DIR_ENV}, or the platform's user "
        "data folder)",
    )
    parser.add_argument(
        "--quit-after-load",
        action="store_true",
        help="start, wait until the console is ready, then quit (for smoke tests)",
    )
    parser.add_argument(
        "--mcp-port",
        type=int,
        default=0,
        metavar="PORT",
        help="loopback port for the agent (MCP) endpoint; 0 picks a free one (default)",
    )
    parser.add_argument(
        "--no-agent", action="store_true", help="do not start the agent (MCP) endpoint"
    )
    parser.add_argument(
        "--yes",
        action="store_true",
        help="import a Tool Pack given on the command line without the preview (unattended use)",
    )
    parser.add_argument(
        "--team-folder",
        type=Path,
        metavar="DIR",
        help="use DIR as the team library (remembered; the same as Settings › Team library)",
    )
    parser.add_argument(
        "--log-level",
        default="INFO",
        choices=["DEBUG", "INFO", "WARNING"],
        help="how much goes into the log (default: INFO)",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.file is not None and not args.file.is_file():
        build_parser().error(f"there is no file at {args.file}")
    keep_private()
    paths = resolve_data_paths(args.data_dir)
    configure_logging(paths, args.log_level)
    gc.disable()  # until the app is up (gc_on_main.py says why)
    # Imported late: argument errors and --help must not pay for starting Qt.
    from understudy_desktop.app import run

    agent_port = None if args.no_agent else args.mcp_port
    return run(
        paths,
        args.file,
        args.quit_after_load,
        agent_port,
        assume_yes=args.yes,
        team_folder=args.team_folder,
    )
