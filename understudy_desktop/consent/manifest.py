"""Which actions are sensitive. Decided here, in Python, never by arguments, the model or the
page: an agent passing "sensitive": false changes nothing."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SensitiveAction:
    name: str
    verb: str  # how the dialog starts its sentence: "Publish tool", "Revoke tool"


PUBLISH_TOOL = SensitiveAction("publish_tool", "Publish tool")
REVOKE_TOOL = SensitiveAction("revoke_tool", "Revoke tool")
EXPORT_PACK = SensitiveAction("export_pack", "Export a Tool Pack")
RUN_TOOL = SensitiveAction("run_tool", "Run tool")  # only for tools marked "ask me every time"
RELAX_TOOL = SensitiveAction("relax_tool", "Stop asking before each run of tool")

# Meta-tools an agent may call whose effect is sensitive, by MCP tool name.
SENSITIVE_META_TOOLS: dict[str, SensitiveAction] = {
    "understudy_publish_tool": PUBLISH_TOOL,
    "understudy_revoke_tool": REVOKE_TOOL,
    "understudy_export_pack": EXPORT_PACK,
}
