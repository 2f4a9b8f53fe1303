from heartbench_core.backup import import_campaign
from heartbench_core.management.commands._base import ImportCommand


class Command(ImportCommand):
    help = "Restore a campaign archive written by export_campaign into an installation that does not hold it yet."

    def add_arguments(self, parser):
        parser.add_argument("archive")

    def handle(self, *args, **opts):
        try:
            handle = open(opts["archive"], "rb")
        except OSError as exc:
            from django.core.management.base import CommandError

            raise CommandError(f"{opts['archive']}: {exc.strerror}") from None
        with handle:
            outcome = self.run_service(import_campaign, source=handle)
        rows = sum(outcome.rows.values())
        self.stdout.write(f"campaign {outcome.campaign!r}: {rows} rows of {len(outcome.rows)} kinds and {outcome.users} users restored")
