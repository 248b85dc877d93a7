"""A file the project generates from its Python models (pack.schema.json, the page's
protocol types): one command-line entry that writes it, or with --check says whether the
file in the tree is what the models make, for the tests and for a person."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path


def write_or_check(
    path: Path, make: Callable[[], str], description: str, argv: list[str] | None = None
) -> int:
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--check", action="store_true", help="only say whether it is current")
    args = parser.parse_args(argv)
    text = make()
    if args.check:
        current = path.is_file() and path.read_text(encoding="utf-8") == text
        print(f"{path.name} is current" if current else f"{path.name} is out of date")
        return 0 if current else 1
    path.write_text(text, encoding="utf-8")
    print(f"wrote {path.name}")
    return 0
