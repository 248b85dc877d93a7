"""Command payloads checked against the catalogue's JSON Schemas before anything is applied.

The sentences are the page's (js/validate.js): they name the field and the rule a person or an
agent can act on, and never repeat the value that was refused.
"""

from __future__ import annotations

from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError

from understudy_desktop.catalogue import CommandInfo

_CONTAINERS = frozenset({"properties", "items", "allOf", "$ref"})


_VALIDATORS: dict[str, Draft202012Validator] = {}


def _validator(command: CommandInfo) -> Draft202012Validator:
    """Compiled once per command (the catalogue is read once, so its schemas never change)."""
    found = _VALIDATORS.get(command.id)
    if found is None:
        found = _VALIDATORS[command.id] = Draft202012Validator(command.payload_schema)
    return found


def payload_problems(command: CommandInfo, payload: Any) -> list[str]:
    """[] when `payload` fits the command, else plain sentences (no value repeated)."""
    errors = list(_validator(command).iter_errors(payload))
    if not errors:
        return []
    leaves = [e for e in errors if e.validator not in _CONTAINERS]
    chosen = leaves or errors
    return list(dict.fromkeys(_sentence(e, command.payload_schema) for e in chosen))


def _where(error: ValidationError) -> str:
    path = [str(p) for p in error.absolute_path]
    return ".".join(path) if path else "the payload"


def _sentence(error: ValidationError, schema: dict[str, Any]) -> str:
    where = _where(error)
    keyword = str(error.validator)
    if keyword == "required":
        instance = error.instance if isinstance(error.instance, dict) else {}
        required = error.validator_value if isinstance(error.validator_value, list) else []
        missing = [r for r in required if r not in instance]
        return f"{missing[0] if missing else 'a field'} is required"
    if keyword == "additionalProperties":
        known = list((schema.get("properties") or {}).keys()) if where == "the payload" else []
        if known:
            return f"{where} has a field it does not take (it takes: {', '.join(known)})"
        return f"{where} has a field it does not take"
    if keyword == "enum":
        allowed = error.validator_value if isinstance(error.validator_value, list) else []
        return f"{where} must be one of: {', '.join(str(a) for a in allowed)}"
    simple = {
        "type": f"{where} must be {_type_words(error.validator_value)}",
        "minLength": f"{where} must not be empty",
        "maxLength": f"{where} is too long",
        "pattern": f"{where} has characters that are not allowed",
        "minItems": f"{where} needs at least one item",
        "maxItems": f"{where} has too many items",
        "uniqueItems": f"{where} lists the same item twice",
        "anyOf": f"{where} is not an allowed value",
        "const": f"{where} is not an allowed value",
    }
    return simple.get(keyword, f"{where} is not valid ({keyword})")


def _type_words(expected: Any) -> str:
    if isinstance(expected, list):
        return " or ".join(f"a {t}" for t in expected)
    return f"a {expected}"
