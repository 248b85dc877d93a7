"""Asking the person, above the library: the native approval dialog, the only place a consent
is granted (dialog.py); the gate that joins repeated requests into one dialog (gate.py); what
the dialog says about a tool (wording.py); and the flow that checks what the shell holds, asks,
and changes the library with the Grant the person's Approve produced (service.py)."""
