"""pack.schema.json, generated from the pack's models (packs/model.py, definition.py).

    python -m understudy_desktop.packs.schema          # rewrite pack.schema.json
    python -m understudy_desktop.packs.schema --check  # exit 1 if the file is out of date

The file is kept in the package (the importer validates with it, and people read it to see
the format); tests/test_pack_schema.py fails when it and the models disagree.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from understudy_desktop.generated_file import write_or_check
from understudy_desktop.packs.model import Pack

SCHEMA_FILE = Path(__file__).with_name("pack.schema.json")


def _without_titles(node: Any) -> Any:
    """pydantic titles every property after its Python name, and gives optional fields a null
    default the format does not have; the format's readers need neither."""
    if isinstance(node, dict):
        if isinstance(node.get("description"), str):
            node = {**node, "description": " ".join(node["description"].split())}
        return {
            k: _without_titles(v)
            for k, v in node.items()
            if not (k == "title" and isinstance(v, str)) and not (k == "default" and v is None)
        }
    if isinstance(node, list):
        return [_without_titles(v) for v in node]
    return node


def generated() -> dict[str, Any]:
    schema = Pack.model_json_schema(by_alias=True, mode="validation")
    cleaned: dict[str, Any] = _without_titles(schema)
    top: dict[str, Any] = {k: cleaned.pop(k) for k in ("$schema", "$id") if k in cleaned}
    return {**top, "title": schema["title"], **cleaned}


def text() -> str:
    return json.dumps(generated(), indent=2, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    return write_or_check(SCHEMA_FILE, text, "Write pack.schema.json from the pack models.", argv)


if __name__ == "__main__":
    sys.exit(main())
