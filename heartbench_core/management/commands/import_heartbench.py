from typing import Any

from django.core.management.base import CommandParser
from django.utils.translation import gettext, gettext_lazy

from heartbench_core.management.commands._base import ImportCommand
from heartbench_core.services.datasets import import_heartbench


class Command(ImportCommand):
    help = gettext_lazy("Import a HeartBench JSONL file (upstream schema) as a new version of a dataset.")  # type: ignore[assignment]  # argparse gets it as a string (PlatformCommand.create_parser)

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path")
        parser.add_argument("--dataset", required=True)
        parser.add_argument("--version", dest="label", help=gettext("Label of the new version (default v<N>)."))
        parser.add_argument("--note", default="")
        parser.add_argument("--difficulty", choices=["hard", "normal"], help=gettext("For files without a difficulty key."))

    def handle(self, *args: Any, **opts: Any) -> None:
        outcome = self.run_service(
            import_heartbench,
            source=opts["path"],
            dataset_name=opts["dataset"],
            label=opts["label"],
            note=opts["note"],
            difficulty=opts["difficulty"],
            progress=self.progress,
        )
        self.stdout.write(outcome.version.label)
        if outcome.created:
            self.stderr.write(
                gettext("created %(version)s with %(items)d items and %(criteria)d criteria")
                % {"version": outcome.version, "items": outcome.items, "criteria": outcome.criteria}
            )
        else:
            self.stderr.write(
                gettext("content identical to the latest version %(version)s: nothing created") % {"version": outcome.version}
            )
