from typing import Any

from django.core.management.base import CommandParser
from django.utils.translation import gettext_lazy

from annotation.services.campaigns import create_gold_set
from heartbench_core.management.commands._base import ImportCommand


class Command(ImportCommand):
    help = gettext_lazy(  # type: ignore[assignment]  # argparse gets it as a string (PlatformCommand.create_parser)
        "Create a gold set, the pool of hidden gold checks blind tests draw from, from a gold-label file: one JSON line "
        'per response, {"question_id", "model", "labels": [{"position", "hit", "explanation"}]}. It must share no response '
        "with a calibration set. Prints the number of responses."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name")
        parser.add_argument("path")
        parser.add_argument("--dataset", required=True)
        parser.add_argument("--version", dest="version_label", metavar="LABEL")

    def handle(self, *args: Any, **o: Any) -> None:
        outcome = self.run_service(
            create_gold_set, name=o["name"], dataset_name=o["dataset"], version_label=o["version_label"], source=o["path"]
        )
        self.stdout.write(str(outcome.responses))
