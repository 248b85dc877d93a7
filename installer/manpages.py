"""The two commands' man pages, generated from their argument parsers (argparse-manpage), so
that every option a command takes is in its page and none that it does not. What a parser
cannot say (the files, where to look next) is added here.

    python installer/manpages.py OUT_DIR    # writes understudy.1 and understudy-mcp.1
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from argparse_manpage.manpage import Manpage

from understudy_desktop import __version__
from understudy_desktop.agent.stdio_proxy import build_parser as relay_parser
from understudy_desktop.cli import build_parser as app_parser

SUMMARY = {
    "understudy": "support triage console that learns routines",
    "understudy-mcp": "connect an AI client to Understudy over standard input and output",
}
FILES = {
    "understudy": (
        ".TP\n.I ~/.local/share/Understudy\n"
        "The data folder: the database of the queue, tools and settings, the browser profile, "
        "and the log (\\fIlogs/understudy.log\\fR). Only its owner can read it.\n"
        ".TP\n.I ~/.config/Understudy\n"
        "The key that seals your approvals, kept apart from every data folder.\n"
    ),
    "understudy-mcp": (
        ".TP\n.I ~/.local/share/Understudy/agent.json\n"
        "Where the running Understudy says how to reach it; read to find it.\n"
        ".TP\n.I ~/.local/share/Understudy/logs/mcp-proxy.log\n"
        "What the relay did, for when a client reports a problem.\n"
    ),
}
SEE_ALSO = {"understudy": ".BR understudy\\-mcp (1)", "understudy-mcp": ".BR understudy (1)"}


def page(parser: argparse.ArgumentParser) -> str:
    name = parser.prog
    man = Manpage(
        parser,
        _data={
            "project_name": "Understudy",
            "version": __version__,
            "manual_title": "User Commands",
            "description": SUMMARY[name],
        },
    )
    man.add_section("FILES", ">", FILES[name])
    man.add_section("SEE ALSO", ">", SEE_ALSO[name])
    return str(man)


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__.strip().splitlines()[-1].strip(), file=sys.stderr)
        return 2
    out = Path(argv[0])
    out.mkdir(parents=True, exist_ok=True)
    for parser in (app_parser(), relay_parser()):
        (out / f"{parser.prog}.1").write_text(page(parser), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
