from heartbench_core.backup import export_campaign
from heartbench_core.management.commands._base import ImportCommand


class Command(ImportCommand):
    help = "Back up one campaign (its dataset, responses, judgments, gold labels, reports) to one zip archive."

    def add_arguments(self, parser):
        parser.add_argument("name", help="The campaign's name.")
        parser.add_argument("-o", "--output", required=True, help="Path of the archive to write (.zip).")

    def handle(self, *args, **opts):
        outcome = self.run_service(export_campaign, campaign_name=opts["name"], path=opts["output"])
        rows = sum(outcome.rows.values())
        self.stdout.write(f"campaign {outcome.campaign!r}: {rows} rows of {len(outcome.rows)} kinds and {outcome.users} users written to {opts['output']}")
