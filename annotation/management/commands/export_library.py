from pathlib import Path
from typing import Any

from django.core.management.base import CommandError, CommandParser
from django.utils.translation import gettext, gettext_lazy

from annotation.knowledge.services.knowledge_io import export_lines
from heartbench_core.management.commands._base import PlatformCommand
from heartbench_core.models import Dataset


class Command(PlatformCommand):
    help = gettext_lazy(  # type: ignore[assignment]  # argparse gets it as a string (PlatformCommand.create_parser)
        "Write the knowledge library (dataset guidelines, FAQ entries, cases) as JSON Lines; import it with import_library."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--dataset", help=gettext("Only this dataset's library (default: every dataset's)."))
        parser.add_argument("-o", "--output", required=True, help=gettext("The file to write ('-' for standard output)."))

    def handle(self, *args: Any, **opts: Any) -> None:
        dataset = None
        if opts["dataset"]:
            dataset = Dataset.objects.filter(name=opts["dataset"]).first()
            if dataset is None:
                raise CommandError(gettext("no dataset named %(name)r") % {"name": opts["dataset"]})
        count = 0
        if opts["output"] == "-":
            for line in export_lines(dataset=dataset):
                self.stdout.write(line, ending="")
                count += 1
            return
        with Path(opts["output"]).open("w", encoding="utf-8") as out:
            for line in export_lines(dataset=dataset):
                out.write(line)
                count += 1
        self.stdout.write(gettext("%(n)d records written to %(path)s") % {"n": count, "path": opts["output"]})
