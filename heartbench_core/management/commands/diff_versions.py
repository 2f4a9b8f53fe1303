import json
from typing import Any

from django.core.management.base import CommandParser
from django.utils.translation import gettext_lazy

from heartbench_core.management.commands._base import ImportCommand
from heartbench_core.services.datasets import diff_versions, get_version
from heartbench_core.versioning import format_changelog


class Command(ImportCommand):
    help = gettext_lazy("Print the changelog between two versions of a dataset.")  # type: ignore[assignment]  # argparse gets it as a string (PlatformCommand.create_parser)

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--dataset", required=True)
        parser.add_argument("a")
        parser.add_argument("b")
        parser.add_argument("--format", choices=["text", "json"], default="text")

    def handle(self, *args: Any, **opts: Any) -> None:
        a = self.run_service(get_version, dataset_name=opts["dataset"], label=opts["a"])
        b = self.run_service(get_version, dataset_name=opts["dataset"], label=opts["b"])
        log = diff_versions(a, b)
        if opts["format"] == "json":
            self.stdout.write(json.dumps(log, ensure_ascii=False, indent=2))
        else:
            self.stdout.write(f"{a} → {b}")
            self.stdout.write(format_changelog(log))
