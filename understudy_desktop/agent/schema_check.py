"""Arguments are checked against the tool's inputSchema in Python, before the page sees them."""

from __future__ import annotations

from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError


def argument_problems(schema: dict[str, Any] | None, arguments: dict[str, Any]) -> list[str]:
    """Plain descriptions (keyword and location, never the value) of what is wrong."""
    if schema is None:
        return []
    try:
        validator = Draft202012Validator(schema)
    except SchemaError:
        return ["the tool's own input schema is invalid"]
    problems = []
    for error in sorted(validator.iter_errors(arguments), key=lambda e: list(e.absolute_path)):
        where = "/".join(str(p) for p in error.absolute_path) or "(the arguments)"
        detail = ""
        if error.validator == "required":
            missing = [r for r in error.validator_value if r not in (error.instance or {})]
            detail = f" ({', '.join(map(str, missing))})"
        elif error.validator == "additionalProperties" and isinstance(error.instance, dict):
            allowed = set((error.schema.get("properties") or {}).keys())
            extra = sorted(k for k in error.instance if k not in allowed)
            detail = f" ({', '.join(extra)})"
        elif error.validator in ("enum", "type"):
            detail = f" (expected {error.validator_value})"
        problems.append(f"{where}: fails '{error.validator}'{detail}")
    return problems[:10]
