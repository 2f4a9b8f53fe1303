"""Shared behaviour of the platform's import/export commands."""

import sys

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from heartbench_core.jsonl import InputFileError


class PlatformCommand(BaseCommand):
    """Base of the platform's commands: `--version LABEL` names a dataset version, not Django's version."""

    def create_parser(self, prog_name, subcommand, **kwargs):
        kwargs.setdefault("conflict_handler", "resolve")
        return super().create_parser(prog_name, subcommand, **kwargs)


class ImportCommand(PlatformCommand):
    """A command whose service raises ValidationError/InputFileError: print them and exit 1."""

    def run_service(self, func, /, **kwargs):
        try:
            return func(**kwargs)
        except InputFileError as exc:
            raise CommandError("nothing was written:\n" + str(exc)) from None
        except ValidationError as exc:
            raise CommandError("nothing was written: " + "; ".join(_messages(exc))) from None

    def progress(self, line: int) -> None:
        if sys.stderr.isatty() or self.verbosity > 1:
            self.stderr.write(f"… read {line} lines", ending="\r" if sys.stderr.isatty() else "\n")


def _messages(exc: ValidationError) -> list[str]:
    if hasattr(exc, "error_dict"):
        return [f"{field}: {msg}" for field, errs in exc.message_dict.items() for msg in errs]
    return list(exc.messages)
