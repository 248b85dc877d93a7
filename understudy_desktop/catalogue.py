"""The console's command catalogue as the shell knows it: web_assets/data/catalogue.json, the
same file the page's catalogue.js is built from. Tools and packs are checked against it and
annotations are computed from it, never from what a script in the page says."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from typing import Any

from understudy_desktop.paths import web_assets_dir


@dataclass(frozen=True)
class CommandInfo:
    id: str
    title: str
    say: str  # the step as a sentence, with {field} where each value goes
    mutates: bool
    set_based: bool  # acts on every ticket the current filter matches
    returns_customer_text: bool
    entity_fields: tuple[str, ...]
    payload_schema: dict[str, Any]
    refs: dict[str, str]  # field -> "person" or "template": kept by name as well as id
    field_words: dict[str, dict[str, str]]  # this command's own words for a field
    control: str | None = None  # the console control it drives (lit up while a run shows it)
    doing: str = ""  # what it does in the words a suggested title is made of ("tag the matches")

    def words(self, field: str, shared: dict[str, dict[str, str]]) -> dict[str, str]:
        base = {
            "label": field,
            "asked": f"the {field} you choose",
            "same": f"the same {field}",
            "fixed": "{value}",
            "describe": "",
        }
        return {**base, **shared.get(field, {}), **self.field_words.get(field, {})}


@dataclass(frozen=True)
class Catalogue:
    version: int
    commands: dict[str, CommandInfo]
    field_words: dict[str, dict[str, str]]

    @staticmethod
    def from_data(raw: dict[str, Any]) -> Catalogue:
        commands = {
            str(c["id"]): CommandInfo(
                id=str(c["id"]),
                title=str(c.get("title") or c["id"]),
                say=str(c.get("say") or c.get("title") or c["id"]),
                mutates=bool(c.get("mutates")),
                set_based=bool(c.get("setBased")),
                returns_customer_text=bool(c.get("returnsCustomerText")),
                entity_fields=tuple(c.get("entityFields") or ()),
                payload_schema=dict(c.get("payloadSchema") or {}),
                refs={str(k): str(v) for k, v in (c.get("refs") or {}).items()},
                field_words=dict(c.get("fieldWords") or {}),
                control=str(c["control"]) if c.get("control") else None,
                doing=str(c.get("doing") or ""),
            )
            for c in raw.get("commands", [])
        }
        return Catalogue(int(raw.get("version", 0)), commands, dict(raw.get("fieldWords") or {}))

    def title_words(self) -> str:
        """Every word a title suggested from the steps is made of (js/ui/draft_editor.js)."""
        return " ".join(c.doing for c in self.commands.values())

    def annotations(self, steps: list[dict[str, Any]]) -> dict[str, bool]:
        """Computed from what the steps do, never taken from a file or the page."""
        infos = [self.commands.get(str(s.get("command"))) for s in steps]
        return {
            "readOnlyHint": not any(i is not None and i.mutates for i in infos),
            "untrustedContentHint": any(i is not None and i.returns_customer_text for i in infos),
        }

    def schemas_for(self, steps: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
        """The payload schemas of the commands `steps` use, as recorded with a tool (drift)."""
        used = {str(s.get("command")) for s in steps}
        return {c: self.commands[c].payload_schema for c in sorted(used) if c in self.commands}


@cache
def current_catalogue() -> Catalogue:
    """This console's catalogue, read once from the file the page is built from."""
    path = web_assets_dir() / "data" / "catalogue.json"
    return Catalogue.from_data(json.loads(path.read_text(encoding="utf-8")))
