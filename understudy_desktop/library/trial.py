"""The approval dialog's "If it ran now": a person's new tool tried on a copy of the queue
with the values from the recording it was made from, so they see which tickets it would
change before they approve. Nothing is changed by a trial; it only informs the dialog (the
approval is of the definition, whatever the trial said)."""

from __future__ import annotations

from typing import Any

from understudy_desktop.definition import Definition, ParamArg

MAX_NAMED = 8


def example_input(
    definition: Definition, recording: dict[str, Any] | None
) -> dict[str, Any] | None:
    """Answers for the tool's questions taken from the demonstration: for each question, the
    value the recording's first step of the same command had in that field. None when a
    required question has no example (the trial is then left out)."""
    recorded = list((recording or {}).get("steps") or [])
    required = set(definition.inputSchema.get("required") or [])
    answers: dict[str, Any] = {}
    for step in definition.steps:
        for field, spec in step.args.items():
            if not isinstance(spec, ParamArg) or spec.name in answers:
                continue
            for seen in recorded:
                payload = seen.get("payload") or {}
                if seen.get("command") == step.command and field in payload:
                    answers[spec.name] = payload[field]
                    break
    if not required <= set(answers):
        return None
    return answers


def trial_sentence(
    ok: bool, changed: list[str], message: str, answers: dict[str, Any], more: int = 0
) -> str:
    """What the trial found, in words for the dialog; `more` tickets beyond those named in
    `changed` (a run's answer names at most 20)."""
    on = ""
    tickets = [v for k, v in answers.items() if "ticket" in k and isinstance(v, str)]
    if tickets:
        on = f"On {', '.join(tickets[:3])} (as in your demonstration), "
    if not ok:
        start = on or "On your queue as it is now, "
        return f"{start}it would stop without changing anything: {message}"
    if not changed:
        already = "it is" if len(tickets) == 1 else "they are"
        start = on or "On your queue as it is now, "
        return f"{start}nothing would change: {already} already as this routine leaves them."
    total = len(changed) + more
    named = ", ".join(changed[:MAX_NAMED])
    rest = total - min(len(changed), MAX_NAMED)
    others = f" and {rest:,} more" if rest > 0 else ""
    count = f"{total:,} ticket{'s' if total != 1 else ''}"
    start = on or "On your queue as it is now, "
    return f"{start}it would change {count}: {named}{others}."
