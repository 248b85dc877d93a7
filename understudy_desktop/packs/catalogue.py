"""The console's command catalogue as Python sees it (the page describes it over the bridge):
what packs are checked against and what annotations are recomputed from."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class CommandInfo:
    id: str
    mutates: bool
    returns_customer_text: bool
    entity_fields: tuple[str, ...]
    payload_schema: dict[str, Any]


@dataclass(frozen=True)
class Catalogue:
    version: int
    commands: dict[str, CommandInfo]

    @staticmethod
    def from_page(raw: dict[str, Any]) -> Catalogue:
        commands = {
            str(c["id"]): CommandInfo(
                id=str(c["id"]),
                mutates=bool(c.get("mutates")),
                returns_customer_text=bool(c.get("returnsCustomerText")),
                entity_fields=tuple(c.get("entityFields") or ()),
                payload_schema=dict(c.get("payloadSchema") or {}),
            )
            for c in raw.get("commands", [])
        }
        return Catalogue(int(raw.get("version", 0)), commands)

    def annotations(self, steps: list[dict[str, Any]]) -> dict[str, bool]:
        """Computed from what the steps do, never taken from a file."""
        infos = [self.commands.get(str(s.get("command"))) for s in steps]
        return {
            "readOnlyHint": not any(i is not None and i.mutates for i in infos),
            "untrustedContentHint": any(i is not None and i.returns_customer_text for i in infos),
        }
