"""The JSON Lines reader's problems as a Django ValidationError.

Reading is pure (`heartbench_core.lib.jsonl`) and ends with a `LineErrors`; importers collect
their problems in the `ErrorCollector` here, whose `raise_if_any` raises them as an
`InputFileError`, a ValidationError, with the same messages naming file, line and field. So
pages, commands and the API report a bad file as they report any other refused input.
"""

from django.core.exceptions import ValidationError

from heartbench_core.lib import jsonl


class InputFileError(ValidationError):
    """One or more problems in an input file; nothing was written."""

    def __init__(self, errors: list[jsonl.LineError]) -> None:
        problems = jsonl.LineErrors(errors)
        self.errors = problems.errors
        self.truncated = problems.truncated
        super().__init__(problems.messages)

    def __str__(self) -> str:
        return "\n".join(self.messages)


class ErrorCollector(jsonl.ErrorCollector):
    """Collects LineErrors for one file; `raise_if_any` raises them as an InputFileError."""

    def raise_if_any(self) -> None:
        """Raise InputFileError listing every recorded problem, if there is one."""
        try:
            super().raise_if_any()
        except jsonl.LineErrors as exc:
            raise InputFileError(self.errors) from exc
