"""Keeping disk and the page's IndexedDB in step.

The rule: every saved tool or recording has a revision the page bumps on each change. On
start, for each name the higher revision wins: disk restores what the page lacks or has
older, and the page's newer entries are written to disk. Afterwards every change in the page
is written to disk (debounced), and what the page removed is removed from disk.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from pydantic import ValidationError
from PySide6.QtCore import QObject, QTimer, Signal

from understudy_desktop.bridge.page_bridge import PageBridge
from understudy_desktop.packs.catalogue import Catalogue
from understudy_desktop.packs.drift import grade_drift, is_breaking
from understudy_desktop.store.procedure_store import ProcedureStore
from understudy_desktop.web.console_link import CallResult, ConsoleLink

log = logging.getLogger(__name__)
DEBOUNCE_MS = 150


class StoreSync(QObject):
    synced = Signal()

    def __init__(
        self,
        store: ProcedureStore,
        link: ConsoleLink,
        bridge: PageBridge,
        warn: Callable[[str, str], None],
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._store = store
        self._link = link
        self._warn = warn
        self._started = False
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(DEBOUNCE_MS)
        self._timer.timeout.connect(self._write_page_state)
        link.ready_changed.connect(self._on_ready)
        bridge.store_changed.connect(lambda: self._started and self._timer.start())

    def _on_ready(self, ready: bool) -> None:
        if not ready:
            self._started = False
            return
        loaded = self._store.load()
        if loaded.quarantined:
            listed = "\n".join(f"• {name}: {reason}" for name, reason in loaded.quarantined)
            self._warn(
                "Some saved tools could not be read",
                "These files were damaged and have been moved to the quarantine folder in "
                f"your data folder. Everything else loaded.\n{listed}",
            )

        def with_snapshot(result: CallResult) -> None:
            page = result.value if result.ok and isinstance(result.value, dict) else {}
            page_tools = {t["name"]: t for t in page.get("tools", [])}
            page_recordings = {r["id"]: r for r in page.get("recordings", [])}
            newer_tools = [
                t.model_dump(mode="json")
                for name, t in loaded.tools.items()
                if t.revision > int(page_tools.get(name, {}).get("revision", -1))
            ]
            newer_recordings = [
                r.model_dump(mode="json")
                for rid, r in loaded.recordings.items()
                if r.revision > int(page_recordings.get(rid, {}).get("revision", -1))
            ]

            def restored(_r: CallResult) -> None:
                self._started = True
                self._write_page_state(delete_missing=False)
                self._check_drift()

            if newer_tools or newer_recordings:
                self._link.call("restoreFromDisk", [newer_tools, newer_recordings], restored)
            else:
                restored(CallResult(True))

        self._link.call("storeSnapshot", [], with_snapshot)

    def _check_drift(self) -> None:
        """After an app update: grade each tool against this console's catalogue."""

        def with_catalogue(answer: CallResult) -> None:
            if not answer.ok or not isinstance(answer.value, dict):
                return
            catalogue = Catalogue.from_page(answer.value)

            def with_tools(tools_answer: CallResult) -> None:
                tools = tools_answer.value if isinstance(tools_answer.value, dict) else {}
                for name, entry in tools.items():
                    recorded = (entry.get("definition") or {}).get("commandSchemas")
                    if not isinstance(recorded, dict):
                        continue
                    changes = grade_drift(recorded, catalogue)
                    if not changes:
                        continue
                    text = "; ".join(c.sentence() for c in changes[:6])
                    if is_breaking(changes) and entry.get("status") == "active":
                        self._link.call(
                            "markNeedsReview",
                            [name, f"the console changed under it: {text}. Repair the step"],
                            lambda _r: None,
                        )
                    elif not is_breaking(changes):
                        self._link.call(
                            "setDriftNote",
                            [name, f"Made with an older console; still compatible: {text}."],
                            lambda _r: None,
                        )

            self._link.call("toolDefinitions", [], with_tools)

        self._link.call("catalogue", [], with_catalogue)

    def _write_page_state(self, delete_missing: bool = True) -> None:
        def with_snapshot(result: CallResult) -> None:
            page = result.value if result.ok and isinstance(result.value, dict) else {}
            on_disk = self._store.load()
            self._write(
                page.get("tools", []),
                on_disk.tools,
                self._store.write_tool,
                self._store.delete_tool,
                "name",
                delete_missing,
            )
            self._write(
                page.get("recordings", []),
                on_disk.recordings,
                self._store.write_recording,
                self._store.delete_recording,
                "id",
                delete_missing,
            )
            self.synced.emit()

        self._link.call("storeSnapshot", [], with_snapshot)

    @staticmethod
    def _write(
        page_items: list[dict[str, Any]],
        disk: dict[str, Any],
        write: Callable[[dict[str, Any]], None],
        delete: Callable[[str], None],
        key: str,
        delete_missing: bool,
    ) -> None:
        seen = set()
        for item in page_items:
            name = str(item.get(key))
            seen.add(name)
            stored = disk.get(name)
            if stored is not None and stored.revision >= int(item.get("revision", 0)):
                continue
            record = {k: v for k, v in item.items() if k != "controller"}
            record["revision"] = int(record.get("revision", 0))
            try:
                write(record)
            except (ValidationError, ValueError, OSError) as exc:
                log.warning("could not save %s to disk: %s", name, exc)
        if delete_missing:
            for name in set(disk) - seen:
                delete(name)
