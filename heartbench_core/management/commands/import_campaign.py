import csv
from contextlib import ExitStack
from typing import Any

from django.core.management.base import CommandError, CommandParser
from django.utils.formats import number_format
from django.utils.translation import gettext, gettext_lazy
from django.utils.translation import gettext as _

from heartbench_core.archive_file import operator_key
from heartbench_core.backup import BackupOutcome, ProgressPrinter, import_campaign
from heartbench_core.csvsafe import safe_row
from heartbench_core.management.commands._base import ImportCommand


class Command(ImportCommand):
    help = gettext_lazy(  # type: ignore[assignment]  # argparse gets it as a string (PlatformCommand.create_parser)
        "Restore a campaign archive written by export_campaign into an installation that does not hold it yet. "
        "The archive's signature must verify with the archive key (HEARTBENCH_ARCHIVE_KEY or --key-file). "
        "Its users become new accounts without a password and without staff roles; the command lists a password-reset link for each."
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
        parser.add_argument(
            "--key-file",
            metavar="PATH",
            help=gettext("File holding the archive key the archive was signed with; default: the HEARTBENCH_ARCHIVE_KEY variable."),
        )
        parser.add_argument(
            "--trust-unsigned",
            action="store_true",
            help=gettext(
                "Restore an archive whose signature is missing or not checked, only when you know where it comes from; "
                "its users may then not be mapped onto staff accounts."
            ),
        )
        parser.add_argument(
            "--map-user",
            action="append",
            default=[],
            metavar="ARCHIVE_NAME=NAME_HERE",
            help=gettext(
                "Attach the archive's user ARCHIVE_NAME to this installation's existing account NAME_HERE (repeat for each). "
                "Without it, an archive user whose name is taken here is refused."
            ),
        )

    def handle(self, *args: Any, **opts: Any) -> None:
        progress = ProgressPrinter(self.stderr.write) if opts["verbosity"] > 0 else None
        key = self.run_service(operator_key, opts["key_file"])
        map_users = _parse_mapping(opts["map_user"])
        with ExitStack() as stack:
            try:
                handle = stack.enter_context(open(opts["archive"], "rb"))
            except OSError as exc:
                raise CommandError(f"{opts['archive']}: {exc.strerror}") from None
            outcome = self.run_service(
                import_campaign,
                source=handle,
                key=key,
                trust_unsigned=opts["trust_unsigned"],
                map_users=map_users,
                site_url=opts["site_url"],
                progress=progress,
            )
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
        if outcome.signed:
            self.stdout.write(_("Signature verified with the archive key."))
        else:
            self.stdout.write(_("Not verified (--trust-unsigned): nothing says who wrote this archive."))
        self._report_users(outcome)
        if opts["reset_links"]:
            created = [u for u in outcome.restored_users if u.created]
            with open(opts["reset_links"], "w", newline="", encoding="utf-8") as out:
                writer = csv.writer(out)
                writer.writerow(["username", "email", "reset_link"])
                writer.writerows(safe_row([u.username, u.email, u.reset_url]) for u in created)
            self.stdout.write(_("Reset links written to %(path)s") % {"path": opts["reset_links"]})

    def _report_users(self, outcome: BackupOutcome) -> None:
        created = [u for u in outcome.restored_users if u.created]
        if created:
            self.stdout.write(
                _("%(n)d users were created without a password. Send each their link to set one (valid for a limited time):")
                % {"n": len(created)}
            )
            for user in created:
                self.stdout.write(f"  {user.username}\t{user.email or '-'}\t{user.reset_url}")
        mapped = [f"{u.archive_username} → {u.username}" for u in outcome.restored_users if not u.created]
        if mapped:
            self.stdout.write(
                _("Attached to existing accounts, as you confirmed (their password, roles and expert profile unchanged): %(names)s")
                % {"names": ", ".join(mapped)}
            )
        withheld = [f"{u.username} ({', '.join(u.roles_not_granted)})" for u in outcome.restored_users if u.roles_not_granted]
        if withheld:
            self.stdout.write(
                _(
                    "Staff roles are never restored from an archive. The archive says these people held them; grant them on the People page if they should here: %(names)s"
                )
                % {"names": ", ".join(withheld)}
            )


def _parse_mapping(values: list[str]) -> dict[str, str]:
    mapping: dict[str, str] = {}
    for value in values:
        archive_name, sep, here = value.partition("=")
        if not sep or not archive_name or not here:
            raise CommandError(_("--map-user %(value)r: expected ARCHIVE_NAME=NAME_HERE") % {"value": value})
        if archive_name in mapping:
            raise CommandError(_("--map-user: %(name)s is mapped twice") % {"name": archive_name})
        mapping[archive_name] = here
    return mapping
