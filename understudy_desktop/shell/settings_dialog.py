"""Edit › Settings…: the person's name and signing key (saved to a file with a passphrase,
brought from another computer, or replaced by a new one the old one vouches for), the team
library's folder and whether to share usage counts, the authors they trust (with a way to
stop trusting one), and the team lead whose rules they follow (or, as the lead, the rules)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMessageBox,
    QPushButton,
    QSpinBox,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from understudy_desktop.rules import rules
from understudy_desktop.shell.plain_label import plain_label
from understudy_desktop.shell.screen_fit import fit_to_screen
from understudy_desktop.team.documents import Policy
from understudy_desktop.team.identity import KEY_FILE_SUFFIX, KeyFileError
from understudy_desktop.team.invitation import EXAMPLE_CODE, InvitationError
from understudy_desktop.team.invitation import SUFFIX as INVITATION_SUFFIX
from understudy_desktop.team.leads import Waiting
from understudy_desktop.team.library_service import TeamLibrary
from understudy_desktop.team.signing import fingerprint, key_id
from understudy_desktop.team.status_words import rules_summary
from understudy_desktop.text import visible_controls

NO_FOLDER = "None chosen"
_HOUR, _DAY = 3600, 86400
CONFIRM_CHOICES = (
    ("1 hour", _HOUR),
    ("8 hours", 8 * _HOUR),
    ("1 day", _DAY),
    ("3 days", 3 * _DAY),
    ("1 week", 7 * _DAY),
    ("30 days", 30 * _DAY),
)
DEFAULT_CONFIRM = rules().teamFreshness.defaultSeconds


class SettingsDialog(QDialog):
    def __init__(self, team: TeamLibrary, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._team = team
        self.chosen_folder: Path | None = team.folder
        self.setWindowTitle("Settings")
        fit_to_screen(self, 620, 520)
        layout = QVBoxLayout(self)
        self.tabs = QTabWidget()
        self.tabs.addTab(self._you_tab(), "&You")
        self.tabs.addTab(self._team_box(), "Team &library")
        self.tabs.addTab(self._trust_box(), "People you &trust")
        self.tabs.addTab(self._lead_box(), "Team l&ead")
        layout.addWidget(self.tabs, 1)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self._apply)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)

    def _team_box(self) -> QGroupBox:
        box = QGroupBox("Team library")
        layout = QVBoxLayout(box)
        layout.addWidget(
            _words(
                "A folder your team already shares (a network drive, OneDrive, Google Drive, "
                "Dropbox, Nextcloud). Tools you share are kept there, signed by you; tools "
                "colleagues share wait there for you to review them."
            )
        )
        row = QHBoxLayout()
        self.folder_label = _words(str(self.chosen_folder) if self.chosen_folder else NO_FOLDER)
        self.folder_label.setAccessibleName("Team library folder")
        choose = QPushButton("&Choose…")
        choose.clicked.connect(self._choose_folder)
        self.stop_button = QPushButton("&Stop using it")
        self.stop_button.setToolTip("Tools you accepted stay in your library.")
        self.stop_button.clicked.connect(self._stop_folder)
        self.stop_button.setEnabled(self.chosen_folder is not None)
        row.addWidget(self.folder_label, 1)
        row.addWidget(choose)
        row.addWidget(self.stop_button)
        layout.addLayout(row)
        self.share_usage = QCheckBox(
            "Share how often I use team tools (counts and days only, never ticket data)"
        )
        self.share_usage.setChecked(self._team.share_usage)
        layout.addWidget(self.share_usage)
        layout.addStretch(1)
        return box

    def _you_tab(self) -> QWidget:
        page = QWidget()
        layout = QVBoxLayout(page)
        you = QFormLayout()
        self.author = QLineEdit(self._team.author)
        self.author.setMaxLength(rules().limits.authorName)
        self.author.setPlaceholderText("For example: Dana Ortiz")
        self.author.setAccessibleName("Your name")
        you.addRow("Your name:", self.author)
        layout.addLayout(you)
        self.key_words = _words("")
        self.key_words.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.key_words)
        row = QHBoxLayout()
        self.save_key_button = QPushButton("Save a &copy of my key…")
        self.save_key_button.setToolTip("For a new computer, or in case this one is lost.")
        self.save_key_button.clicked.connect(self._save_key)
        self.use_key_button = QPushButton("Use a &saved key…")
        self.use_key_button.setToolTip("Bring your key from your other computer.")
        self.use_key_button.clicked.connect(self._use_key)
        self.new_key_button = QPushButton("Make a &new key…")
        self.new_key_button.setToolTip(
            "Your old key vouches for the new one, so colleagues are not warned."
        )
        self.new_key_button.clicked.connect(self._new_key)
        for button in (self.save_key_button, self.use_key_button, self.new_key_button):
            row.addWidget(button)
        row.addStretch(1)
        layout.addLayout(row)
        layout.addStretch(1)
        self._show_key()
        return page

    def _show_key(self) -> None:
        identity = self._team.identity
        if identity.public_key:
            self.key_words.setText(
                f"Your signing key: {identity.key_id}. Colleagues see it beside your name. "
                "When someone trusts you for the first time, read them its fingerprint:\n"
                f"{fingerprint(identity.public_key)}"
            )
        else:
            self.key_words.setText("Your signing key is made the first time you share a tool.")
        self.save_key_button.setEnabled(bool(identity.public_key))
        self.new_key_button.setEnabled(bool(identity.public_key))

    def _passphrase(self, title: str, prompt: str) -> str | None:
        text, ok = QInputDialog.getText(self, title, prompt, QLineEdit.EchoMode.Password)
        return text if ok else None

    def _save_key(self) -> None:
        path, _ = QFileDialog.getSaveFileName(
            self,
            "Save a copy of your key",
            f"my key{KEY_FILE_SUFFIX}",
            f"Understudy key (*{KEY_FILE_SUFFIX})",
        )
        if not path:
            return
        phrase = self._passphrase(
            "Protect your key",
            "A passphrase to protect the copy (at least 8 characters). You need it to use "
            "the copy; nobody can read the key without it.",
        )
        if phrase is None:
            return
        try:
            self._team.identity.export_key(Path(path), phrase)
        except KeyFileError as exc:
            QMessageBox.warning(self, "Your key was not saved", str(exc))
            return
        QMessageBox.information(
            self, "Your key is saved", "Keep the copy somewhere safe, and the passphrase apart."
        )

    def _use_key(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, "Use a saved key", "", f"Understudy key (*{KEY_FILE_SUFFIX});;All files (*)"
        )
        if not path:
            return
        phrase = self._passphrase("Open your saved key", "The passphrase you chose for it:")
        if phrase is None:
            return
        try:
            self._team.identity.import_key(Path(path), phrase)
        except KeyFileError as exc:
            QMessageBox.warning(self, "The key was not used", str(exc))
            return
        self._team.refresh()
        self._show_key()

    def _new_key(self) -> None:
        answer = QMessageBox.question(
            self,
            "Make a new key?",
            "Your tools will be signed with a new key from now on. Your old key signs a note "
            "in the team folder that vouches for the new one, so colleagues who trust you go "
            "on trusting you. Use this if your old key may have been copied.",
        )
        if answer == QMessageBox.StandardButton.Yes and self._team.move_to_new_key():
            self._show_key()

    def _lead_box(self) -> QWidget:
        page = QWidget()
        layout = QVBoxLayout(page)
        layout.addWidget(
            _words(
                "A team lead can set rules for the team library: who may share tools, whether "
                "a second person reviews a tool before everyone is offered it, and tools "
                "turned off for the whole team. Follow the rules signed by your team lead:"
            )
        )
        self.lead = QComboBox()
        self.lead.setAccessibleName("Team lead")
        self._choices = {c.key: c for c in self._team.invitations.lead_choices()}
        self._fill_leads(self._team.lead)
        self.lead.currentIndexChanged.connect(lambda _i: self._show_lead())
        layout.addWidget(self.lead)
        self.lead_key = _words("")
        self.lead_key.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.lead_key)
        self.lead_warning = _words("")
        layout.addWidget(self.lead_warning)
        row = QHBoxLayout()
        self.invitation_button = QPushButton("Use an &invitation…")
        self.invitation_button.setToolTip(
            "The code or file your team lead gave you: it names their key, so you follow "
            "theirs and no other."
        )
        self.invitation_button.clicked.connect(self._use_invitation)
        row.addWidget(self.invitation_button)
        self.invite_button = QPushButton("In&vite a member…")
        self.invite_button.setToolTip("A code or a file that lets a newcomer follow your rules.")
        self.invite_button.clicked.connect(self._invite)
        self.invite_button.setVisible(self._team.is_lead())
        row.addWidget(self.invite_button)
        row.addStretch(1)
        layout.addLayout(row)
        self._add_co_sign(layout)
        self.rules_button = QPushButton("Set the team's &rules as its lead…")
        self.rules_button.setToolTip("Your rules are signed by you; members choose to follow them.")
        self.rules_button.clicked.connect(self._set_rules)
        self.rules_button.setEnabled(self._team.folder is not None)
        layout.addWidget(self.rules_button, 0, Qt.AlignmentFlag.AlignLeft)
        layout.addStretch(1)
        self._show_lead()
        return page

    def _add_co_sign(self, layout: QVBoxLayout) -> None:
        """As one of several leads: newer rules another lead signed, waiting for this one."""
        waiting = self._team.waiting_for_me()
        self.co_sign_button = QPushButton("Read and &sign the new rules…")
        self.co_sign_button.setVisible(bool(waiting))
        if not waiting:
            return
        newest = waiting[-1]
        by = ", ".join(self._lead_name(k) for k in sorted(newest.signed_by))
        layout.addWidget(
            _words(
                f"{by} signed new rules for the team (number {newest.policy.sequence}). They "
                "are in force once enough of the team's leads sign them: yours counts."
            )
        )
        self.co_sign_button.clicked.connect(lambda: self._co_sign(newest))
        layout.addWidget(self.co_sign_button, 0, Qt.AlignmentFlag.AlignLeft)

    def _lead_name(self, key: str) -> str:
        return self._team.decisions.trusted().get(key) or f"key {key_id(key)}"

    def _co_sign(self, waiting: Waiting) -> None:
        summary = rules_summary(waiting.policy, self._team.decisions.trusted(), self._team.lead)
        answer = QMessageBox.question(
            self,
            "Sign the new rules?",
            visible_controls(f"Sign these rules as one of the team's leads?\n\n{summary}"),
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel,
            QMessageBox.StandardButton.Cancel,
        )
        if answer == QMessageBox.StandardButton.Yes and self._team.co_sign(waiting):
            self.co_sign_button.setEnabled(False)

    def _fill_leads(self, current: str) -> None:
        """Every key that signed rules, by name and then key (an order no signer chooses);
        none is picked for a newcomer but the one their invitation names."""
        self.lead.blockSignals(True)
        self.lead.clear()
        self.lead.addItem("Nobody (no rules)", "")
        for choice in self._choices.values():
            name = choice.name or "someone who gave no name"
            mark = "⚠ " if choice.others and not choice.invited else ""
            note = " · your invitation" if choice.invited else ""
            text = f"{mark}{name} · key {choice.key_id}{note}"
            self.lead.addItem(visible_controls(text), choice.key)
        if current and current not in self._choices:
            self.lead.addItem(f"Your choice before (key {key_id(current)})", current)
        self.lead.setCurrentIndex(max(0, self.lead.findData(current)))
        self.lead.blockSignals(False)

    def _show_lead(self) -> None:
        key = str(self.lead.currentData() or "")
        choice = self._choices.get(key)
        self.lead_key.setText(f"Fingerprint of this key: {fingerprint(key)}" if key else "")
        if choice is not None and choice.others and not choice.invited:
            others = choice.others + 1
            self.lead_warning.setText(
                visible_controls(
                    f"⚠ {others} different keys call themselves “{choice.name}”. Only one of "
                    "them is your team lead: use the invitation your lead gave you, or compare "
                    "the whole fingerprint with them, by phone or in person, before you choose."
                )
            )
        elif choice is not None and choice.invited:
            self.lead_warning.setText("✓ Your team lead's invitation names this key.")
        else:
            self.lead_warning.setText("")
        # Shown only with words: a label shown again is laid out again for its new height.
        for label in (self.lead_key, self.lead_warning):
            label.setVisible(bool(label.text()))
        page = self.lead_warning.parentWidget()
        layout = page.layout() if page is not None else None
        if layout is not None:
            layout.activate()

    def _use_invitation(self) -> None:
        dialog = InvitationDialog(self._team, self)
        if dialog.exec() == QDialog.DialogCode.Accepted:
            self._choices = {c.key: c for c in self._team.invitations.lead_choices()}
            self._fill_leads(self._team.lead)
            self._show_lead()

    def _invite(self) -> None:
        InviteDialog(self._team, self).exec()

    def _set_rules(self) -> None:
        RulesDialog(self._team, self).exec()

    def _trust_box(self) -> QGroupBox:
        box = QGroupBox("People you trust")
        layout = QVBoxLayout(box)
        self.trusted = QListWidget()
        self.trusted.setAccessibleName("People you trust")
        for key, name in sorted(self._team.decisions.trusted().items(), key=lambda kv: kv[1]):
            item = QListWidgetItem(visible_controls(f"{name} (key {key_id(key)})"))
            item.setData(Qt.ItemDataRole.UserRole, key)
            item.setToolTip(f"Fingerprint: {fingerprint(key)}")
            self.trusted.addItem(item)
        if not self.trusted.count():
            layout.addWidget(
                _words("Nobody yet. You are asked the first time you review a colleague's tool.")
            )
        layout.addWidget(self.trusted, 1)
        self.distrust_button = QPushButton("Stop &trusting")
        self.distrust_button.setToolTip(
            "What you accepted from them is turned off (not deleted); new tools wait for you "
            "to decide again."
        )
        self.distrust_button.clicked.connect(self._distrust)
        self.distrust_button.setEnabled(self.trusted.count() > 0)
        layout.addWidget(self.distrust_button, 0, Qt.AlignmentFlag.AlignLeft)
        return box

    def _choose_folder(self) -> None:
        start = str(self.chosen_folder or Path.home())
        path = QFileDialog.getExistingDirectory(self, "Choose the team library folder", start)
        if path:
            self.chosen_folder = Path(path)
            self.folder_label.setText(visible_controls(path))
            self.stop_button.setEnabled(True)

    def _stop_folder(self) -> None:
        self.chosen_folder = None
        self.folder_label.setText(NO_FOLDER)
        self.stop_button.setEnabled(False)

    def _distrust(self) -> None:
        item = self.trusted.currentItem() or self.trusted.item(0)
        if item is None:
            return
        self._team.distrust(str(item.data(Qt.ItemDataRole.UserRole)))
        self.trusted.takeItem(self.trusted.row(item))
        self.distrust_button.setEnabled(self.trusted.count() > 0)

    def _apply(self) -> None:
        if self.author.text().strip():
            self._team.set_author(self.author.text())
        if self.chosen_folder != self._team.folder:
            self._team.set_folder(self.chosen_folder)
        if self.share_usage.isChecked() != self._team.share_usage:
            self._team.set_share_usage(self.share_usage.isChecked())
        lead = str(self.lead.currentData() or "")
        if lead != self._team.lead:
            self._team.follow_lead(lead)
        self.accept()


def _words(text: str) -> QLabel:
    return plain_label(visible_controls(text))


class RulesDialog(QDialog):
    """The team lead's rules: who may share, a second review, signed and put in the folder."""

    def __init__(self, team: TeamLibrary, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._team = team
        self.setWindowTitle("The team's rules")
        fit_to_screen(self, 520, 420)
        layout = QVBoxLayout(self)
        layout.addWidget(
            _words(
                "Members who choose to follow you get these rules from the team folder, "
                "signed by you. Who may share tools with the team:"
            )
        )
        policy = team.view.policy if team.is_lead() else None
        allowed = set(policy.publishers) if policy and policy.publishers is not None else None
        self.anyone = QCheckBox("Anyone with access to the folder")
        self.anyone.setChecked(allowed is None)
        layout.addWidget(self.anyone)
        self.people = QListWidget()
        self.people.setAccessibleName("People who may share tools")
        mine = team.identity.public_key
        people = {
            **team.decisions.trusted(),
            **({mine: f"{team.author or 'You'} (you)"} if mine else {}),
        }
        for key, name in sorted(people.items(), key=lambda kv: kv[1]):
            item = QListWidgetItem(visible_controls(f"{name} (key {key_id(key)})"))
            item.setData(Qt.ItemDataRole.UserRole, key)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(
                Qt.CheckState.Checked
                if allowed is None or key in allowed or key == mine
                else Qt.CheckState.Unchecked
            )
            self.people.addItem(item)
        layout.addWidget(self.people, 1)
        self.anyone.toggled.connect(lambda on: self.people.setEnabled(not on))
        self.people.setEnabled(allowed is not None)
        self.second = QCheckBox(
            "A second person reviews each tool before the rest of the team is offered it"
        )
        self.second.setChecked(bool(policy and policy.secondReview))
        layout.addWidget(self.second)
        self._add_freshness(layout, policy)
        self._turned_off = (
            [(t.sharedBy, t.tool, t.steps) for t in policy.turnedOff] if policy else []
        )
        self._revoked = list(policy.revokedKeys) if policy else []
        self.revoke_button = QPushButton("&Revoke someone's key…")
        self.revoke_button.setToolTip(
            "For a key that was copied, or a person who left: it signs, vouches and counts "
            "for nothing, for everyone who follows your rules."
        )
        self.revoke_button.clicked.connect(self._revoke_chosen)
        self._co_leads = list(policy.coLeads) if policy else []
        self._threshold = policy.threshold if policy else 1
        self.leads_button = QPushButton("Other &leads…")
        self.leads_button.setToolTip(
            "Colleagues who lead with you: their confirmations count too, and a change to the "
            "rules can need several of you to sign it."
        )
        self.leads_button.clicked.connect(self._choose_leads)
        row = QHBoxLayout()
        row.addWidget(self.revoke_button)
        row.addWidget(self.leads_button)
        layout.addLayout(row)
        self.leads_said = _words(self._leads_words())
        layout.addWidget(self.leads_said)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.button(QDialogButtonBox.StandardButton.Save).setText("Sign and &save")
        buttons.accepted.connect(self._save)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)

    def _add_freshness(self, layout: QVBoxLayout, policy: Policy | None) -> None:
        """How long a confirmation lasts, and what members' apps do without one."""
        layout.addWidget(
            _words(
                "Your app confirms these rules to members on a schedule, so a member whose copy "
                "of the folder stops getting your newer rules learns of it. Say the rules are "
                "not confirmed after:"
            )
        )
        self.confirm_for = QComboBox()
        self.confirm_for.setAccessibleName("Rules not confirmed after")
        chosen = policy.confirmFor if policy is not None else None
        for label, seconds in CONFIRM_CHOICES:
            self.confirm_for.addItem(label, seconds)
        index = self.confirm_for.findData(chosen if chosen is not None else DEFAULT_CONFIRM)
        if index < 0:
            self.confirm_for.addItem(f"{chosen} seconds (set before)", chosen)
            index = self.confirm_for.count() - 1
        self.confirm_for.setCurrentIndex(index)
        layout.addWidget(self.confirm_for)
        self.pause = QCheckBox(
            "Meanwhile, pause team tools (otherwise they keep running, with a warning)"
        )
        self.pause.setChecked(bool(policy and policy.whenUnconfirmed == "pause"))
        layout.addWidget(self.pause)

    def publishers(self) -> list[str] | None:
        if self.anyone.isChecked():
            return None
        keys = []
        for row in range(self.people.count()):
            item = self.people.item(row)
            if item.checkState() == Qt.CheckState.Checked:
                keys.append(str(item.data(Qt.ItemDataRole.UserRole)))
        return keys

    def _revoke_chosen(self) -> None:
        mine = self._team.identity.public_key
        others = [
            self.people.item(i)
            for i in range(self.people.count())
            if str(self.people.item(i).data(Qt.ItemDataRole.UserRole)) != mine
        ]
        if not others:
            QMessageBox.information(
                self, "Nobody to revoke", "You trust nobody else's key yet, so there is none."
            )
            return
        labels = [item.text() for item in others]
        current = self.people.currentItem()
        start = labels.index(current.text()) if current is not None and current in others else 0
        label, chosen = QInputDialog.getItem(
            self, "Revoke a key", "Whose key should count for nothing?", labels, start, False
        )
        if not chosen:
            return
        key = str(others[labels.index(label)].data(Qt.ItemDataRole.UserRole))
        answer = QMessageBox.question(
            self,
            "Revoke this key?",
            f"Revoke {label}? Tools, reviews and counts signed with it will count for nothing "
            "for everyone who follows your rules. They can share again with a new key once "
            "you trust it.",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel,
            QMessageBox.StandardButton.Cancel,
        )
        if answer != QMessageBox.StandardButton.Yes:
            return
        if self._team.write_policy(
            self.publishers(),
            self.second.isChecked(),
            self._turned_off,
            [*self._revoked, key],
            **self._freshness(),
        ):
            self.accept()

    def _freshness(self) -> dict[str, Any]:
        return {
            "confirm_for": int(self.confirm_for.currentData()),
            "when_unconfirmed": "pause" if self.pause.isChecked() else "keep",
            "co_leads": list(self._co_leads),
            "threshold": self._threshold,
        }

    def _leads_words(self) -> str:
        trusted = self._team.decisions.trusted()
        if not self._co_leads:
            return "You lead the team alone."
        names = ", ".join(trusted.get(k) or f"key {key_id(k)}" for k in self._co_leads)
        need = (
            "any of you can change the rules"
            if self._threshold <= 1
            else f"a change to the rules needs {self._threshold} of you to sign it"
        )
        return visible_controls(f"You lead the team with {names}; {need}.")

    def _choose_leads(self) -> None:
        dialog = LeadsDialog(self._team, self._co_leads, self._threshold, self)
        if dialog.exec() == QDialog.DialogCode.Accepted:
            self._co_leads, self._threshold = dialog.chosen(), dialog.threshold.value()
            self.leads_said.setText(self._leads_words())

    def _save(self) -> None:
        if self._team.write_policy(
            self.publishers(),
            self.second.isChecked(),
            self._turned_off,
            self._revoked,
            **self._freshness(),
        ):
            self.accept()


class InvitationDialog(QDialog):
    """Settings › Team lead › Use an invitation…: the code or file the lead gave."""

    def __init__(self, team: TeamLibrary, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._team = team
        self.setWindowTitle("Use an invitation")
        fit_to_screen(self, 480, 220)
        layout = QVBoxLayout(self)
        layout.addWidget(
            _words(
                "Type the invitation code your team lead gave you (16 letters and digits), or "
                "open the invitation file they sent you."
            )
        )
        self.code = QLineEdit()
        self.code.setAccessibleName("Invitation code")
        self.code.setPlaceholderText(EXAMPLE_CODE)
        layout.addWidget(self.code)
        self.said = _words("")
        layout.addWidget(self.said)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.use_button = buttons.addButton(
            "&Use this code", QDialogButtonBox.ButtonRole.AcceptRole
        )
        self.use_button.setDefault(True)
        self.file_button = buttons.addButton(
            "Open an invitation &file…", QDialogButtonBox.ButtonRole.ActionRole
        )
        buttons.accepted.connect(self._use_code)
        buttons.rejected.connect(self.reject)
        self.file_button.clicked.connect(self._open_file)
        layout.addWidget(buttons)

    def _use_code(self) -> None:
        try:
            words = self._team.invitations.use_invitation_code(self.code.text())
        except InvitationError as exc:
            self.said.setText(str(exc))
            return
        QMessageBox.information(self, "Invitation", words)
        self.accept()

    def _open_file(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self,
            "Open an invitation",
            str(Path.home()),
            f"Understudy invitations (*{INVITATION_SUFFIX});;All files (*)",
        )
        if not path:
            return
        try:
            words = self._team.invitations.use_invitation_file(Path(path))
        except InvitationError as exc:
            self.said.setText(str(exc))
            return
        QMessageBox.information(self, "Invitation", visible_controls(words))
        self.accept()


class InviteDialog(QDialog):
    """Settings › Team lead › Invite a member…: the lead's code, and a file to send."""

    def __init__(self, team: TeamLibrary, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._team = team
        self.setWindowTitle("Invite a member")
        fit_to_screen(self, 480, 240)
        layout = QVBoxLayout(self)
        code = team.invitations.invitation_code()
        layout.addWidget(
            _words(
                "Give a newcomer this code in person, by phone or in a chat your team already "
                "trusts, and ask them to use it in Settings › Team lead › Use an invitation. "
                "It names your key, so they follow your rules and not a copy under your name."
            )
        )
        self.code = QLabel(code or "You have no key yet: set the team's rules first.")
        font = self.code.font()
        font.setPointSize(font.pointSize() + 4)
        font.setBold(True)
        self.code.setFont(font)
        self.code.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.code.setAccessibleName("Invitation code")
        layout.addWidget(self.code)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        self.save_button = buttons.addButton(
            "&Save as a file…", QDialogButtonBox.ButtonRole.ActionRole
        )
        self.save_button.setEnabled(bool(code))
        self.save_button.clicked.connect(self._save)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)

    def _save(self) -> None:
        path, _ = QFileDialog.getSaveFileName(
            self,
            "Save the invitation",
            str(Path.home() / f"team-lead{INVITATION_SUFFIX}"),
            f"Understudy invitations (*{INVITATION_SUFFIX})",
        )
        if not path:
            return
        try:
            self._team.invitations.save_invitation(Path(path))
        except InvitationError as exc:
            QMessageBox.warning(self, "Not saved", str(exc))
            return
        QMessageBox.information(self, "Saved", "The invitation is saved. Send it to the newcomer.")


class LeadsDialog(QDialog):
    """The team's rules › Other leads…: who leads with this person, and how many must sign."""

    def __init__(
        self, team: TeamLibrary, chosen: list[str], threshold: int, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Other leads")
        fit_to_screen(self, 480, 360)
        layout = QVBoxLayout(self)
        layout.addWidget(
            _words(
                "Colleagues who lead the team with you. Their apps confirm the rules too, so "
                "members stay confirmed while you are away; choose only people whose key you "
                "checked with them."
            )
        )
        self.people = QListWidget()
        self.people.setAccessibleName("Other leads")
        mine = team.identity.public_key
        for key, name in sorted(team.decisions.trusted().items(), key=lambda kv: kv[1]):
            if key == mine:
                continue
            item = QListWidgetItem(visible_controls(f"{name} (key {key_id(key)})"))
            item.setData(Qt.ItemDataRole.UserRole, key)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked if key in chosen else Qt.CheckState.Unchecked)
            self.people.addItem(item)
        layout.addWidget(self.people, 1)
        row = QHBoxLayout()
        row.addWidget(_words("A change to the rules needs the signatures of"))
        self.threshold = QSpinBox()
        self.threshold.setAccessibleName("Leads who must sign a change")
        self.threshold.setRange(1, 1 + self.people.count())
        self.threshold.setValue(threshold)
        row.addWidget(self.threshold)
        row.addWidget(_words("of the leads."))
        layout.addLayout(row)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)

    def chosen(self) -> list[str]:
        return [
            str(self.people.item(i).data(Qt.ItemDataRole.UserRole))
            for i in range(self.people.count())
            if self.people.item(i).checkState() == Qt.CheckState.Checked
        ]
