"""Consent's primitives, which the library depends on: which actions are sensitive
(manifest.py), the single-use ledger and the Grant it alone makes (ledger.py), and the seal
on an approval (seal.py). No Qt, and nothing from library/, agent/, shell/ or approval/
(tests/test_layering.py): the library checks a Grant without knowing how it was asked for."""
