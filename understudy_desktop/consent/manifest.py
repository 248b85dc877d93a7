"""Which actions are sensitive. Decided here, in Python, never by arguments, the model or the
page: an agent passing "sensitive": false changes nothing.

Every action that makes a tool callable, or more callable, needs a person's click in the
native dialog: publish, repair, review after a change, enable, import, and letting a tool run
without asking. So does taking a tool away for good (revoke). Turning a tool off asked for by
the console page takes the dialog too: a script in the page could ask for it as well as the
person, and it changes what agents are shown. Keeping or deleting a recording is decided in
the dialog for the same reason: recordings are what agents are told they can make tools from.
Asking before each run only takes power away and happens at once.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SensitiveAction:
    name: str
    verb: str  # how the dialog starts its sentence: "Publish tool", "Revoke tool"


PUBLISH_TOOL = SensitiveAction("publish_tool", "Publish tool")
REPAIR_TOOL = SensitiveAction("repair_tool", "Repair tool")
REVIEW_TOOL = SensitiveAction("review_tool", "Approve the changed tool")
ENABLE_TOOL = SensitiveAction("enable_tool", "Turn tool back on")
REVOKE_TOOL = SensitiveAction("revoke_tool", "Revoke tool")
IMPORT_PACK = SensitiveAction("import_pack", "Import tools from a Tool Pack")
EXPORT_PACK = SensitiveAction("export_pack", "Export a Tool Pack")
RUN_TOOL = SensitiveAction("run_tool", "Run tool")  # only for tools marked "ask me every time"
RELAX_TOOL = SensitiveAction("relax_tool", "Stop asking before each run of tool")
DISABLE_TOOL = SensitiveAction("disable_tool", "Turn tool off")
KEEP_RECORDING = SensitiveAction("keep_recording", "Keep the recording")
DELETE_RECORDING = SensitiveAction("delete_recording", "Delete the recording")

# Built-in agent tools whose effect is sensitive, by MCP tool name. The endpoint decides these
# in Python; the page never runs them.
SENSITIVE_META_TOOLS: dict[str, SensitiveAction] = {
    "understudy_publish_tool": PUBLISH_TOOL,
    "understudy_revoke_tool": REVOKE_TOOL,
    "understudy_export_pack": EXPORT_PACK,
}
