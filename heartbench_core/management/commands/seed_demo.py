import importlib
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import CommandError, CommandParser
from django.db import transaction
from django.utils.translation import gettext, gettext_lazy

from heartbench_core import demo
from heartbench_core.management.commands._base import ImportCommand
from heartbench_core.models import Dataset, User

APPS_WITH_DEMO = ("heartbench_core", "rubrics", "annotation", "validation")
# The dataset demo.seed creates: {loads the released file?: name}.
DEMO_DATASETS = {True: "heartbench", False: "demo"}


class Command(ImportCommand):
    help = gettext_lazy("Load demo users and data (idempotent). --heartbench PATH loads the released benchmark instead of the demo items.")  # type: ignore[assignment]  # argparse gets it as a string (PlatformCommand.create_parser)

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--heartbench", metavar="PATH", help=gettext("A released question_all.jsonl to load instead of the demo items.")
        )
        parser.add_argument(
            "--auto", action="store_true", help=gettext("Use HEARTBENCH_DIR/question_all.jsonl when present, else the demo items.")
        )

    def handle(self, *args: Any, **opts: Any) -> None:
        if settings.PRODUCTION:
            # The demo creates the superuser admin with a published password.
            raise CommandError(gettext("seed_demo refuses to run with PRODUCTION=1: it creates demo accounts with a public password."))
        path = Path(opts["heartbench"]) if opts["heartbench"] else None
        if path is None and opts["auto"]:
            candidate = Path(settings.HEARTBENCH_DIR) / "question_all.jsonl"
            path = candidate if candidate.exists() else None
        if path is not None and not path.exists():
            raise CommandError(gettext("%(path)s: no such file") % {"path": path})
        # Never touch a dataset that exists: re-importing the file would add a version with the
        # original wording over published rubric revisions, and the apps' demos would add to it.
        name = DEMO_DATASETS[path is not None]
        if Dataset.objects.filter(name=name).exists():
            self.stdout.write(
                gettext("Dataset %(name)r already exists: the demo leaves it, and everything on it, as it is.") % {"name": name}
            )
            if User.objects.filter(username=demo.DEMO_USERS[0][0]).exists():
                self._print_logins()
            return
        # All or nothing: a demo that failed half-way would be left as it is by every later start.
        with transaction.atomic():
            ctx = self.run_service(demo.seed, heartbench=path)
            for app in APPS_WITH_DEMO[1:]:
                try:
                    module = importlib.import_module(f"{app}.demo")
                except ModuleNotFoundError as exc:
                    if exc.name != f"{app}.demo":
                        raise
                    continue
                self.run_service(module.seed, context=ctx)
        for line in ctx.log:
            self.stdout.write(f"· {line}")
        self._print_logins()

    def _print_logins(self) -> None:
        self.stdout.write("\n" + gettext("Demo logins (password for all: %(password)s)") % {"password": demo.DEMO_PASSWORD})
        for username, _roles, what in demo.DEMO_USERS:
            self.stdout.write(f"  {username:<10} {gettext(what)}")
