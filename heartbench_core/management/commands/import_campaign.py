import csv
from contextlib import ExitStack
from typing import Any

from django.core.management.base import CommandError, CommandParser
from django.utils.formats import number_format
from django.utils.translation import gettext, gettext_lazy
from django.utils.translation import gettext as _

from heartbench_core.backup import ProgressPrinter, import_campaign
from heartbench_core.csvsafe import safe_row
from heartbench_core.management.commands._base import ImportCommand


class Command(ImportCommand):
    help = gettext_lazy(  # type: ignore[assignment]  # argparse gets it as a string (PlatformCommand.create_parser)
        "Restore a campaign archive written by export_campaign into an installation that does not hold it yet. "
        "Users new to this installation get an unusable password; the command lists a password-reset link for each."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("archive")
        parser.add_argument(
            "--site-url",
            default="http://127.0.0.1:8000",
            help=gettext("Address of this installation, the start of every password-reset link (default: %(default)s)."),
        )
        parser.add_argument(
            "--reset-links",
            metavar="PATH",
            help=gettext("Also write the restored users and their reset links to this CSV file (username, email, link)."),
        )

    def handle(self, *args: Any, **opts: Any) -> None:
        progress = ProgressPrinter(self.stderr.write) if opts["verbosity"] > 0 else None
        with ExitStack() as stack:
            try:
                handle = stack.enter_context(open(opts["archive"], "rb"))
            except OSError as exc:
                raise CommandError(f"{opts['archive']}: {exc.strerror}") from None
            outcome = self.run_service(import_campaign, source=handle, site_url=opts["site_url"], progress=progress)
        rows = sum(outcome.rows.values())
        self.stdout.write(
            _("campaign %(campaign)r: %(rows)s rows of %(kinds)d kinds and %(users)d users restored")
            % {
                "campaign": outcome.campaign,
                "rows": number_format(rows, force_grouping=True),
                "kinds": len(outcome.rows),
                "users": outcome.users,
            }
        )
        created = [u for u in outcome.restored_users if u.created]
        if created:
            self.stdout.write(
                _("%(n)d users were created without a password. Send each their link to set one (valid for a limited time):")
                % {"n": len(created)}
            )
            for user in created:
                self.stdout.write(f"  {user.username}\t{user.email or '-'}\t{user.reset_url}")
        kept = [u.username for u in outcome.restored_users if not u.created]
        if kept:
            self.stdout.write(_("Already here, password unchanged: %(names)s") % {"names": ", ".join(kept)})
        if opts["reset_links"]:
            with open(opts["reset_links"], "w", newline="", encoding="utf-8") as out:
                writer = csv.writer(out)
                writer.writerow(["username", "email", "reset_link"])
                writer.writerows(safe_row([u.username, u.email, u.reset_url]) for u in created)
            self.stdout.write(_("Reset links written to %(path)s") % {"path": opts["reset_links"]})
