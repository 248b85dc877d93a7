"""Arguments are checked against the tool's inputSchema in Python, before the page sees them.

The problems name the field and the rule, never what the caller sent: not a value, and not a
key the schema does not declare (an agent's input may carry text meant for the next model).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import lru_cache
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError


def argument_problems(schema: dict[str, Any] | None, arguments: dict[str, Any]) -> list[str]:
    """Plain descriptions (keyword and location) of what is wrong, at most ten."""
    if schema is None:
        return []
    validator, declared = _checker(json.dumps(schema, sort_keys=True, separators=(",", ":")))
    problems = []
    for error in sorted(validator.iter_errors(arguments), key=lambda e: list(e.absolute_path)):
        problems.append(_sentence(error, declared))
    return list(dict.fromkeys(problems))[:10]


# Every call is checked, and building a validator costs more than using one: each schema's
# is kept, by its text (a dict's identity could be reused by another schema later).
@lru_cache(maxsize=512)
def _checker(text: str) -> tuple[Draft202012Validator, frozenset[str]]:
    schema = json.loads(text)
    return Draft202012Validator(schema), frozenset(_property_names(schema))


def _sentence(error: ValidationError, declared: frozenset[str]) -> str:
    # Array positions and declared names are ours to repeat; any other key came from the caller.
    path = error.absolute_path
    parts = [str(p) if isinstance(p, int) or p in declared else "(an entry)" for p in path]
    where = "/".join(parts) or "(the arguments)"
    detail = ""
    instance = error.instance if isinstance(error.instance, dict) else {}
    if error.validator == "required" and isinstance(error.validator_value, list):
        missing = [r for r in error.validator_value if r not in instance]
        detail = f" ({', '.join(map(str, missing))})"
    elif error.validator == "additionalProperties" and isinstance(error.schema, dict):
        allowed = sorted((error.schema.get("properties") or {}).keys())
        detail = f" (it takes: {', '.join(allowed)})" if allowed else ""
    elif error.validator == "oneOf" and isinstance(error.validator_value, list):
        # Alternatives that each require one name: say which names, one and only one.
        names = [n for alt in error.validator_value for n in (alt.get("required") or [])]
        detail = f" (give exactly one of: {', '.join(map(str, names))})" if names else ""
    elif error.validator in ("enum", "type"):
        detail = f" (expected {error.validator_value})"
    return f"{where}: fails '{error.validator}'{detail}"


def _property_names(schema: Any) -> Iterator[str]:
    if isinstance(schema, dict):
        properties = schema.get("properties")
        if isinstance(properties, dict):
            yield from (str(k) for k in properties)
        for value in schema.values():
            yield from _property_names(value)
    elif isinstance(schema, list):
        for item in schema:
            yield from _property_names(item)
