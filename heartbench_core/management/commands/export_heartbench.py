from typing import Any

from django.core.management.base import CommandParser
from django.utils.translation import gettext, gettext_lazy

from heartbench_core.management.commands._base import ImportCommand
from heartbench_core.services.datasets import export_heartbench, get_version


class Command(ImportCommand):
    help = gettext_lazy("Export a dataset version in the upstream HeartBench JSONL schema.")  # type: ignore[assignment]  # argparse gets it as a string (PlatformCommand.create_parser)

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--dataset", required=True)
        parser.add_argument("--version", dest="label")
        parser.add_argument("-o", "--output", required=True)

    def handle(self, *args: Any, **opts: Any) -> None:
        version = self.run_service(get_version, dataset_name=opts["dataset"], label=opts["label"])
        count = export_heartbench(version=version, path=opts["output"])
        self.stderr.write(
            gettext("wrote %(count)d records of %(version)s to %(file)s") % {"count": count, "version": version, "file": opts["output"]}
        )
