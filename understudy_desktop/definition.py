"""A tool definition's shape, written once: the steps of catalogue commands, each field filled
from a question the tool asks, a fixed value, or an earlier step's result.

The library's checks parse every definition with `Definition` (a draft, a repair, a macro),
what the person approves is an `Approved` (drafts, import plans, repairs), a Tool Pack's tools
are `Definition`s both ways, and `pack.schema.json` is generated from these models
(`python -m understudy_desktop.packs.schema`), so the file format and the code cannot say two
things. Every limit comes from rules.json. What the shape does not say (budgets in plain
words, the schema lint, the catalogue) is library/checks.py's.
"""

from __future__ import annotations

import copy
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator
from pydantic.json_schema import SkipJsonSchema

from understudy_desktop.rules import rules

_RULES = rules()
_LIMITS = _RULES.limits
COMMAND_ID = _RULES.command_id.pattern
PARAM_NAME = _RULES.param_name.pattern

# The keys a definition has; anything else in a draft is left out before parsing.
FIELDS = ("name", "title", "description", "inputSchema", "annotations", "steps")


class Ref(BaseModel):
    """A person or a template, by the name it had where the tool was made."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "description": "A person or template, by the name it has where the tool was made."
        },
    )

    kind: Literal["person", "template"]
    name: str = Field(min_length=1, max_length=_LIMITS.shownText)


class ParamArg(BaseModel):
    """The answer to a question the tool asks (a property of its input schema)."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    source: Literal["param"] = Field(alias="from")
    name: str = Field(pattern=PARAM_NAME)


class ConstArg(BaseModel):
    """A value fixed when the tool was taught."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    source: Literal["const"] = Field(alias="from")
    value: Any
    ref: Ref | SkipJsonSchema[None] = None

    @model_validator(mode="before")
    @classmethod
    def _no_null_ref(cls, data: Any) -> Any:
        # Absent means "no one in particular"; the format has no null for it (the schema
        # says so too), so the file and the model refuse the same things.
        if isinstance(data, dict) and "ref" in data and data["ref"] is None:
            raise ValueError("ref may be left out but not null")
        return data


class StepArg(BaseModel):
    """A field of an earlier step's result."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    source: Literal["step"] = Field(alias="from")
    step: int = Field(ge=0)
    path: str = Field(max_length=_LIMITS.commandId)


Arg = Annotated[ParamArg | ConstArg | StepArg, Field(discriminator="source")]


def arg_dict(arg: ParamArg | ConstArg | StepArg) -> dict[str, Any]:
    """One field's source in its file form ({"from": ...}); a fixed value stays, even null."""
    if isinstance(arg, ParamArg):
        return {"from": "param", "name": arg.name}
    if isinstance(arg, StepArg):
        return {"from": "step", "step": arg.step, "path": arg.path}
    fixed: dict[str, Any] = {"from": "const", "value": copy.deepcopy(arg.value)}
    if arg.ref is not None:
        fixed["ref"] = arg.ref.model_dump()
    return fixed


class Step(BaseModel):
    model_config = ConfigDict(extra="forbid")

    command: str = Field(pattern=COMMAND_ID)
    args: dict[str, Arg] = Field(max_length=_LIMITS.stepFields)

    def as_dict(self) -> dict[str, Any]:
        return {"command": self.command, "args": {k: arg_dict(v) for k, v in self.args.items()}}


class Definition(BaseModel):
    """A tool: the name agents call it by, the words people see, the questions it asks (its
    input schema) and its steps."""

    # Its name and words are only as long as a file may hold here: the budgets (30 characters
    # for a name, …) are checked, in plain words, by library/checks.py.

    model_config = ConfigDict(extra="forbid")

    name: str = Field(max_length=_LIMITS.shownText)
    title: str = Field(default="", max_length=_LIMITS.shownText)
    description: str = Field(max_length=_LIMITS.longText)
    inputSchema: dict[str, Any]  # noqa: N815 (the format's own key)
    annotations: dict[str, Any] | SkipJsonSchema[None] = Field(
        default=None, description="Ignored on import: recomputed from the catalogue."
    )
    steps: list[Step] = Field(min_length=1, max_length=_LIMITS.toolSteps)

    @classmethod
    def of(cls, stored: dict[str, Any]) -> Definition:
        """A definition's own fields from what the library stores beside them (the console
        version and command schemas it was graded against); raises ValidationError."""
        return cls.model_validate({k: stored[k] for k in FIELDS if k in stored})

    def as_dict(self) -> dict[str, Any]:
        """The plain form the library stores, without what is recomputed (annotations)."""
        return {
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "inputSchema": copy.deepcopy(self.inputSchema),
            "steps": [step.as_dict() for step in self.steps],
        }


class Approved(Definition):
    """A definition as the shell approves and stores it (library/checks.complete): its
    annotations computed from the catalogue, whatever the author said, and the console version
    and command schemas it was graded against. What the person approves hashes from
    `stored()`; the last two are not hashed (re-grading does not change what was approved)."""

    annotations: dict[str, bool]  # required here: the shell computed them
    catalogueVersion: int  # noqa: N815 (the stored form's own key)
    commandSchemas: dict[str, dict[str, Any]]  # noqa: N815

    def stored(self) -> dict[str, Any]:
        """The plain form the library keeps and hashes."""
        return {
            **self.as_dict(),
            "annotations": dict(self.annotations),
            "catalogueVersion": self.catalogueVersion,
            "commandSchemas": copy.deepcopy(self.commandSchemas),
        }

    def but(self, **changes: Any) -> Approved:
        """A copy with some fields changed (a new name, steps naming other people)."""
        return self.model_copy(update=changes)


def readable(stored: dict[str, Any] | None) -> Definition | None:
    """The definition in what is stored, or None where it does not fit the model (a damaged
    or hand-edited copy): code that shows or runs a tool reads it through this."""
    if not isinstance(stored, dict):
        return None
    try:
        return Definition.of(stored)
    except ValidationError:
        return None
