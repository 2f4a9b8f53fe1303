"""Shared behaviour of the platform's import/export commands."""

import sys
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import translation
from django.utils.functional import Promise
from django.utils.translation import gettext

from heartbench_core.jsonl import InputFileError
from heartbench_core.language import command_line_language

P = ParamSpec("P")
T = TypeVar("T")


class PlatformCommand(BaseCommand):
    """Base of the platform's commands: `--version LABEL` names a dataset version, not Django's version.

    A command speaks the language of the shell that runs it (`command_line_language`): with
    `LANG=zh_CN.UTF-8`, or `HEARTBENCH_LANGUAGE=zh-hans`, its messages, tables and errors are Chinese.

    It skips Django's system checks: they import every view and API module to check the URLs (about a
    second and a half of a command's start), which the web server, `migrate` and `manage.py check
    --deploy` check anyway; a data command reads and writes the database, which the checks do not test.
    """

    requires_system_checks: list[str] = []

    def run_from_argv(self, argv: list[str]) -> None:
        # The parser is built and `--help` printed before `execute`: its help texts too.
        with translation.override(command_line_language()):
            super().run_from_argv(argv)

    def execute(self, *args: Any, **options: Any) -> Any:
        with translation.override(command_line_language()):
            return super().execute(*args, **options)

    def create_parser(self, prog_name: str, subcommand: str, **kwargs: Any) -> CommandParser:
        kwargs.setdefault("conflict_handler", "resolve")
        parser = super().create_parser(prog_name, subcommand, **kwargs)
        # Help texts are marked lazily (a command's `help` is read at import); argparse needs strings,
        # made here in the language `run_from_argv` chose.
        if isinstance(parser.description, Promise):
            parser.description = str(parser.description)
        for action in parser._actions:
            if isinstance(action.help, Promise):
                action.help = str(action.help)
        return parser


class ImportCommand(PlatformCommand):
    """A command whose service raises ValidationError/InputFileError: print them and exit 1."""

    verbosity = 1  # the --verbosity of the running command, which `progress` reads

    def execute(self, *args: Any, **options: Any) -> Any:
        self.verbosity = options.get("verbosity", 1)
        return super().execute(*args, **options)

    def run_service(self, func: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> T:
        try:
            return func(*args, **kwargs)
        except InputFileError as exc:
            raise CommandError(gettext("nothing was written:") + "\n" + str(exc)) from None
        except ValidationError as exc:
            raise CommandError(gettext("nothing was written:") + " " + "; ".join(_messages(exc))) from None

    def progress(self, line: int) -> None:
        if sys.stderr.isatty() or self.verbosity > 1:
            self.stderr.write(gettext("… read %(lines)d lines") % {"lines": line}, ending="\r" if sys.stderr.isatty() else "\n")


def _messages(exc: ValidationError) -> list[str]:
    if hasattr(exc, "error_dict"):
        return [f"{field}: {msg}" for field, errs in exc.message_dict.items() for msg in errs]
    return list(exc.messages)
