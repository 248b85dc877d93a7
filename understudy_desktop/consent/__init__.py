"""Consent outside the model and the page: a manifest of sensitive actions, a single-use
ledger, the native dialog that alone grants, and the approval records of taught tools."""
