"""The console's QWebEnginePage: stays on our origin, and reports the page's console to logging."""

from __future__ import annotations

import logging
import time

from PySide6.QtCore import QChildEvent, QEvent, QObject, Qt, QTimer, QUrl, Signal
from PySide6.QtGui import QDesktopServices
from PySide6.QtWebEngineCore import QWebEnginePage, QWebEngineProfile, QWebEngineSettings
from PySide6.QtWebEngineWidgets import QWebEngineView
from PySide6.QtWidgets import QMessageBox, QWidget

from understudy_desktop.text import visible_controls
from understudy_desktop.web.scheme import HOST, SCHEME

js_log = logging.getLogger("understudy.js")
log = logging.getLogger(__name__)

_EXTERNAL_SCHEMES = frozenset({"http", "https", "mailto"})

_LEVELS = {
    QWebEnginePage.JavaScriptConsoleMessageLevel.InfoMessageLevel: logging.INFO,
    QWebEnginePage.JavaScriptConsoleMessageLevel.WarningMessageLevel: logging.WARNING,
    QWebEnginePage.JavaScriptConsoleMessageLevel.ErrorMessageLevel: logging.ERROR,
}


def is_app_url(url: QUrl) -> bool:
    return url.scheme() == SCHEME and url.host() == HOST


def open_externally(url: QUrl) -> bool:
    """Hand a link to the system browser; only web and mail links, never file:// or custom."""
    if url.scheme() not in _EXTERNAL_SCHEMES:
        log.warning("refused to open %s", url.toDisplayString())
        return False
    return QDesktopServices.openUrl(url)


# How long after a person's click or key press in the console an address it opens counts as
# theirs: a link's navigation follows its click within milliseconds.
PERSON_GESTURE_S = 1.5
_PERSON_INPUT = frozenset(
    {QEvent.Type.MouseButtonRelease, QEvent.Type.KeyPress, QEvent.Type.TouchEnd}
)


class PersonInput(QObject):
    """When the person last clicked or pressed a key in the console's view. Only real input
    reaches here (a page script's click() is an event inside the page, never Qt's), so an
    address opened just after it is the person's doing.

    It watches the view and each widget put inside it (the engine's input widget comes and
    goes with the renderer), and calls nothing on them: a widget being torn down may still
    pass an event through here."""

    def __init__(self, view: QWidget) -> None:
        super().__init__(view)
        self.last = float("-inf")
        view.installEventFilter(self)
        for child in view.findChildren(QWidget):
            child.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt name)
        kind = event.type()
        if kind in _PERSON_INPUT:
            self.last = time.monotonic()
        elif kind == QEvent.Type.ChildAdded and isinstance(event, QChildEvent):
            child = event.child()
            if isinstance(child, QWidget):
                child.installEventFilter(self)
        return False

    def recent(self) -> bool:
        return time.monotonic() - self.last < PERSON_GESTURE_S


class OpenAsker(QObject):
    """An address leaves the app only when the person says so, in a native question that
    names it: a page script cannot open the system browser on its own, nor a hundred times
    (one question at a time; what a script asks meanwhile is dropped)."""

    asked = Signal(QMessageBox)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.box: QMessageBox | None = None

    def ask(self, url: QUrl, near: QWidget | None) -> None:
        if url.scheme() not in _EXTERNAL_SCHEMES:
            log.warning("refused to open %s", url.toDisplayString())
            return
        if self.box is not None:
            log.info("a second address to open while one is asked about: dropped")
            return
        box = QMessageBox(
            QMessageBox.Icon.Question,
            "Open in your web browser?",
            "",
            QMessageBox.StandardButton.Open | QMessageBox.StandardButton.Cancel,
            near,
        )
        box.setTextFormat(Qt.TextFormat.PlainText)
        box.setText("Open this address in your web browser?")
        box.setInformativeText(visible_controls(url.toDisplayString()))
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        self.box = box

        def answered(button: int) -> None:
            self.box = None
            if button == QMessageBox.StandardButton.Open:
                open_externally(url)

        box.finished.connect(answered)
        box.open()
        self.asked.emit(box)


# What the shell itself does to the console's frame: load it (page.load) and reload it. A
# script's location.href, a link, a form or history is refused, even to one of the app's own
# pages: the console's document, with its bridge, stays.
_SHELL_LOADS = frozenset(
    {
        QWebEnginePage.NavigationType.NavigationTypeTyped,
        QWebEnginePage.NavigationType.NavigationTypeReload,
    }
)


class ConsolePage(QWebEnginePage):
    """The console's frame stays on the console: navigation outside understudy://app is
    refused, and so is any the page itself starts; external links go to the system browser."""

    navigation_refused = Signal(QUrl)

    def __init__(self, profile: QWebEngineProfile, parent: QObject | None = None) -> None:
        super().__init__(profile, parent)
        self.opener = OpenAsker(self)
        self.person_input: PersonInput | None = None  # set once the page has its view
        # window.open() only from a person's click (Chromium's popup blocker): a script on
        # its own cannot even raise the question of opening an address.
        self.settings().setAttribute(
            QWebEngineSettings.WebAttribute.JavascriptCanOpenWindows, False
        )

    def watch_person_input(self, view: QWidget) -> None:
        self.person_input = PersonInput(view)

    def ask_to_open(self, url: QUrl) -> None:
        """After the navigation is refused (never inside Chromium's own call); only when the
        person just clicked or pressed a key in the console: a script's click() is dropped."""
        if self.person_input is None or not self.person_input.recent():
            log.warning("an address opened with no click of the person's: dropped")
            return
        view = QWebEngineView.forPage(self)
        near = view.window() if view is not None else None
        QTimer.singleShot(0, self, lambda: self.opener.ask(url, near))

    def javaScriptConsoleMessage(  # noqa: N802 (Qt name)
        self,
        level: QWebEnginePage.JavaScriptConsoleMessageLevel,
        message: str,
        line: int,
        source: str,
    ) -> None:
        js_log.log(_LEVELS.get(level, logging.INFO), "%s (%s:%d)", message, source, line)

    def acceptNavigationRequest(  # noqa: N802 (Qt name)
        self, url: QUrl | str, nav_type: QWebEnginePage.NavigationType, is_main_frame: bool
    ) -> bool:
        target = QUrl(url) if isinstance(url, str) else url
        if is_app_url(target) and (not is_main_frame or nav_type in _SHELL_LOADS):
            return True
        self.navigation_refused.emit(target)
        if nav_type == QWebEnginePage.NavigationType.NavigationTypeLinkClicked:
            self.ask_to_open(target)
        else:
            log.warning("navigation away from the console refused: %s", target.toDisplayString())
        return False

    def createWindow(  # noqa: N802 (Qt name)
        self, window_type: QWebEnginePage.WebWindowType
    ) -> QWebEnginePage:
        # target=_blank and window.open(): the console never opens a second in-app window; a
        # throwaway page catches the first URL and sends it to the system browser.
        return _ExternalLinkCatcher(self.profile(), self)


class _ExternalLinkCatcher(QWebEnginePage):
    def __init__(self, profile: QWebEngineProfile, console: ConsolePage) -> None:
        super().__init__(profile, console)
        self._console = console

    def acceptNavigationRequest(  # noqa: N802 (Qt name)
        self, url: QUrl | str, nav_type: QWebEnginePage.NavigationType, is_main_frame: bool
    ) -> bool:
        self._console.ask_to_open(QUrl(url) if isinstance(url, str) else url)
        self.deleteLater()
        return False
