from typing import Any

from django.core.management.base import CommandParser
from django.utils.formats import number_format
from django.utils.translation import gettext, gettext_lazy
from django.utils.translation import gettext as _

from heartbench_core.backup import ProgressPrinter, export_campaign
from heartbench_core.management.commands._base import ImportCommand


class Command(ImportCommand):
    help = gettext_lazy(  # type: ignore[assignment]  # argparse gets it as a string (PlatformCommand.create_parser)
        "Back up one campaign (its dataset, responses, judgments, gold labels, reports, rubric history) to one zip archive."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name", help=gettext("The campaign's name."))
        parser.add_argument("-o", "--output", required=True, help=gettext("Path of the archive to write (.zip)."))

    def handle(self, *args: Any, **opts: Any) -> None:
        progress = ProgressPrinter(self.stderr.write) if opts["verbosity"] > 0 else None
        outcome = self.run_service(export_campaign, campaign_name=opts["name"], path=opts["output"], progress=progress)
        rows = sum(outcome.rows.values())
        self.stdout.write(
            _("campaign %(campaign)r: %(rows)s rows of %(kinds)d kinds and %(users)d users written to %(path)s")
            % {
                "campaign": outcome.campaign,
                "rows": number_format(rows, force_grouping=True),
                "kinds": len(outcome.rows),
                "users": outcome.users,
                "path": opts["output"],
            }
        )
