"""The person's library of taught tools, held by the shell: the approved definitions and their
sealed approvals, status and usage (SQLite), drafts and their checks, the run queue and "may
this run now?". A change that makes a tool callable, or more callable, or revokes it needs
the consent Grant that covers it (consent/); a run's steps are applied by the shell's model
(model/). The page shows the library and sends the person's asks (shell/console_asks.py);
it neither runs a tool nor decides what one is."""
