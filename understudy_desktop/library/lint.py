"""The input-schema lint: JSON Schema 2020-12, an object root, known keywords only, no $ref,
satisfiable constraints. The keyword policy comes from rules.json, which the page's lint
(js/teach/compile.js) reads too; tests/test_rule_parity.py runs both on one corpus."""

from __future__ import annotations

from typing import Any

from understudy_desktop.rules import SchemaLintRules, rules


def lint_schema(schema: Any) -> list[str]:
    policy = rules().schemaLint
    if not isinstance(schema, dict):
        return ["the input schema must be a JSON object"]
    problems: list[str] = []
    if schema.get("type") != "object":
        problems.append('the input schema must describe an object (type: "object")')
    if "$schema" in schema and schema["$schema"] != policy.dialect:
        problems.append("only JSON Schema 2020-12 is accepted")
    _walk(schema, "", problems, policy)
    return problems


def _bounds(node: dict[str, Any], low: str, high: str, where: str, problems: list[str]) -> None:
    a, b = node.get(low), node.get(high)
    if isinstance(a, int | float) and isinstance(b, int | float) and a > b:
        problems.append(f"{where or '/'}: {low} is above {high}")


def _walk(node: Any, where: str, problems: list[str], policy: SchemaLintRules) -> None:
    if isinstance(node, list):
        for i, item in enumerate(node):
            _walk(item, f"{where}/{i}", problems, policy)
        return
    if not isinstance(node, dict):
        return
    for key, value in node.items():
        if key in policy.forbidden:
            problems.append(f"{where or '/'}: $ref is not allowed")
        elif key not in policy.keywords:
            # Never the key itself, nor a property's name in the path: both are the author's
            # text, and an agent reads these (the page's lint says the same).
            problems.append(f"{where or '/'}: a keyword that is not allowed")
        if key == "properties" and isinstance(value, dict):
            for i, sub in enumerate(value.values()):
                _walk(sub, f"{where}/properties/{i + 1}", problems, policy)
        elif key in policy.subschemaKeywords or (
            key == "additionalProperties" and isinstance(value, dict)
        ):
            _walk(value, f"{where}/{key}", problems, policy)
    _bounds(node, "minLength", "maxLength", where, problems)
    _bounds(node, "minimum", "maximum", where, problems)
    _bounds(node, "minItems", "maxItems", where, problems)
    if isinstance(node.get("enum"), list) and not node["enum"]:
        problems.append(f"{where or '/'}: an empty enum can never be satisfied")
    properties = node.get("properties")
    closed = node.get("additionalProperties") is False
    if closed and isinstance(node.get("required"), list) and isinstance(properties, dict):
        for name in node["required"]:
            if name not in properties:
                problems.append(f"{where or '/'}: a required property is not among its properties")
