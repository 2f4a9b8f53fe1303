from datetime import timedelta
from typing import Any

from django.core.management.base import CommandParser
from django.utils.translation import gettext, gettext_lazy

from annotation.services.campaigns import create_calibration
from heartbench_core.management.commands._base import ImportCommand


class Command(ImportCommand):
    help = gettext_lazy(  # type: ignore[assignment]  # argparse gets it as a string (PlatformCommand.create_parser)
        "Create a calibration set (it must share no response with a gold set) from a gold-label file: one JSON line per response, "
        '{"question_id", "model", "labels": [{"position", "hit", "explanation"}]}. Prints the number of responses.'
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name")
        parser.add_argument("path")
        parser.add_argument("--dataset", required=True)
        parser.add_argument("--version", dest="version_label", metavar="LABEL")
        parser.add_argument("--pass", dest="pass_threshold", type=float, default=0.8, help=gettext("pass mark in (0, 1] (default 0.8)"))
        parser.add_argument(
            "--cooldown-days", type=float, default=1.0, help=gettext("wait before a failed attempt may be retaken (default 1)")
        )
        parser.add_argument("--max-attempts", type=int, default=2, help=gettext("attempts an expert may make (default 2)"))
        parser.add_argument("--sitting-size", type=int, default=None, help=gettext("responses per attempt (default: the whole set)"))
        parser.add_argument("--experts", help=gettext("comma-separated usernames (default: every active expert)"))

    def handle(self, *args: Any, **o: Any) -> None:
        outcome = self.run_service(
            create_calibration,
            name=o["name"],
            dataset_name=o["dataset"],
            version_label=o["version_label"],
            source=o["path"],
            pass_threshold=o["pass_threshold"],
            retake_cooldown=timedelta(days=o["cooldown_days"]),
            max_attempts=o["max_attempts"],
            sitting_size=o["sitting_size"],
            expert_usernames=[u.strip() for u in o["experts"].split(",") if u.strip()] if o["experts"] else None,
        )
        self.stdout.write(str(outcome.responses))
