from typing import Any

from django.core.management.base import CommandError, CommandParser
from django.utils.formats import number_format
from django.utils.translation import gettext, gettext_lazy
from django.utils.translation import gettext as _

from heartbench_core.archive_file import operator_key
from heartbench_core.backup import ProgressPrinter, export_campaign
from heartbench_core.management.commands._base import ImportCommand


class Command(ImportCommand):
    help = gettext_lazy(  # type: ignore[assignment]  # argparse gets it as a string (PlatformCommand.create_parser)
        "Back up one campaign (its dataset, responses, judgments, gold labels, reports, rubric history) to one zip archive, "
        "signed with the archive key (HEARTBENCH_ARCHIVE_KEY or --key-file) so that the installation restoring it can tell it is genuine."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name", help=gettext("The campaign's name."))
        parser.add_argument("-o", "--output", required=True, help=gettext("Path of the archive to write (.zip)."))
        parser.add_argument(
            "--key-file",
            metavar="PATH",
            help=gettext("File holding the archive key (at least 32 characters); default: the HEARTBENCH_ARCHIVE_KEY variable."),
        )
        parser.add_argument(
            "--unsigned",
            action="store_true",
            help=gettext("Write the archive without a signature: it can then only be restored with --trust-unsigned."),
        )

    def handle(self, *args: Any, **opts: Any) -> None:
        progress = ProgressPrinter(self.stderr.write) if opts["verbosity"] > 0 else None
        key = self.run_service(operator_key, opts["key_file"])
        if key is None and not opts["unsigned"]:
            raise CommandError(
                _(
                    "no archive key: set HEARTBENCH_ARCHIVE_KEY or pass --key-file, so that the archive is signed; "
                    "or pass --unsigned to write one that can only be restored with --trust-unsigned"
                )
            )
        outcome = self.run_service(
            export_campaign, campaign_name=opts["name"], path=opts["output"], key=None if opts["unsigned"] else key, progress=progress
        )
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
        if not outcome.signed:
            self.stdout.write(_("The archive is not signed: restoring it needs --trust-unsigned."))
