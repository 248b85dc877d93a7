"""The team window's list: a heading per group (team_words.GROUPS), its tools below it.

A folder may hold thousands of shared tools, and while a sync service brings them in the
view changes many times a second. So the list is a flat model over the view itself: nothing
is made per row until Qt asks for a row it is about to draw, and a new view costs a sort and
a reset, not thousands of items (a QStandardItemModel of 5,000 rows took 0.1 to 0.2 s to
fill, and expanding a tree of them as long again; this takes about 30 ms). Every row is one
line of one height, so none is measured before it is drawn; the chosen tool's words are
shown whole under the list."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QAbstractListModel, QModelIndex, QObject, QPersistentModelIndex, Qt
from PySide6.QtGui import QFont, QKeyEvent
from PySide6.QtWidgets import QAbstractItemView, QListView

from understudy_desktop.shell import team_words
from understudy_desktop.team.inbox import TeamTool, TeamView
from understudy_desktop.text import visible_controls

TOOL_ROLE = Qt.ItemDataRole.UserRole + 1
LAYOUT_BATCH = 250
Index = QModelIndex | QPersistentModelIndex


class TeamModel(QAbstractListModel):
    """One flat list of rows, each a heading (its words) or a tool under the last heading.
    Flat, not a tree: a tree asks every row whether it has children each time it is laid
    out (thousands of calls into Python), and expanding one laid out every row at once."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._rows: list[tuple[str, TeamTool | None]] = []  # (heading, the tool or None)
        self._texts: dict[int, str] = {}
        self.heading_font = QFont()
        self.heading_font.setBold(True)

    def show(self, view: TeamView) -> None:
        # The view lists tools by name already; each group keeps that order.
        by_state: dict[str, list[TeamTool]] = {}
        for tool in view.tools:
            by_state.setdefault(tool.state, []).append(tool)
        rows: list[tuple[str, TeamTool | None]] = []
        for heading, states in team_words.GROUPS:
            members = [t for state in states for t in by_state.get(state, [])]
            if len(states) > 1:
                members.sort(key=lambda t: t.tool)
            if members:
                rows.append((f"{heading} ({len(members)})", None))
                rows.extend((heading, t) for t in members)
        self.beginResetModel()
        self._rows, self._texts = rows, {}
        self.endResetModel()

    # --- what Qt asks ----------------------------------------------------------------------
    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802, B008 (Qt's name)
        return 0 if parent.isValid() else len(self._rows)

    def flags(self, index: Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        if self._rows[index.row()][1] is None:
            return Qt.ItemFlag.ItemIsEnabled
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        heading, tool = self._rows[index.row()]
        if tool is None:
            if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.AccessibleTextRole):
                return heading
            if role == Qt.ItemDataRole.FontRole:
                return self.heading_font
            return None
        if role == TOOL_ROLE:
            return tool
        if role == Qt.ItemDataRole.DisplayRole:
            # One line a row (the warning first): rows of one height are laid out without
            # measuring each. The whole of it is under the list, for the chosen tool.
            return " — ".join(self._text(index.row(), tool).splitlines())
        if role == Qt.ItemDataRole.ToolTipRole:
            return self._text(index.row(), tool)
        if role == Qt.ItemDataRole.AccessibleTextRole:
            return f"{heading}: {self._text(index.row(), tool)}"
        return None

    def _text(self, row: int, tool: TeamTool) -> str:
        found = self._texts.get(row)
        if found is None:
            found = self._texts[row] = visible_controls(team_words.describe(tool))
        return found

    # --- for the window -------------------------------------------------------------------
    def where(self, file_name: str) -> QModelIndex:
        """The index of the tool whose file this is (invalid when it is not listed)."""
        for r, (_heading, tool) in enumerate(self._rows):
            if tool is not None and tool.file.name == file_name:
                return self.createIndex(r, 0)
        return QModelIndex()

    def first_tool(self) -> QModelIndex:
        for r, (_heading, tool) in enumerate(self._rows):
            if tool is not None:
                return self.createIndex(r, 0)
        return QModelIndex()

    def texts(self) -> list[str]:
        """Every row's words, headings and tools, in order (tests read the window so)."""
        return [h if t is None else self._text(r, t) for r, (h, t) in enumerate(self._rows)]


class TeamList(QListView):
    """The list itself; Enter reviews the chosen tool."""

    def __init__(self, on_enter: Callable[[], None]) -> None:
        super().__init__()
        self._on_enter = on_enter
        self.model_ = TeamModel(self)
        self.setModel(self.model_)
        self.setWordWrap(False)
        self.setUniformItemSizes(True)
        # Laid out a few hundred rows at a time, between events: laying out asks the model
        # about every row, and thousands of calls into Python at once held the window.
        self.setLayoutMode(QListView.LayoutMode.Batched)
        self.setBatchSize(LAYOUT_BATCH)
        self.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 (Qt's name)
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            self._on_enter()
            return
        super().keyPressEvent(event)

    def show_view(self, view: TeamView) -> None:
        """Draw `view`, keeping the chosen tool chosen (else the first one)."""
        chosen = self.current_tool()
        self.model_.show(view)
        again = self.model_.where(chosen.file.name) if chosen is not None else QModelIndex()
        target = again if again.isValid() else self.model_.first_tool()
        if target.isValid():
            self.setCurrentIndex(target)

    def texts(self) -> list[str]:
        return self.model_.texts()

    def current_words(self) -> str:
        """All the words of the chosen tool, its warning first ('' when none is chosen)."""
        index = self.currentIndex()
        return str(index.data(Qt.ItemDataRole.ToolTipRole) or "") if index.isValid() else ""

    def current_tool(self) -> TeamTool | None:
        index = self.currentIndex()
        found = index.data(TOOL_ROLE) if index.isValid() else None
        return found if isinstance(found, TeamTool) else None

    def choose_text(self, words: str) -> None:
        """Choose the first tool whose words hold `words`."""
        for r, text in enumerate(self.model_.texts()):
            index = self.model_.index(r, 0)
            if words in text and index.data(TOOL_ROLE) is not None:
                self.setCurrentIndex(index)
                return
        raise LookupError(words)
