import json

from django.core.management.base import CommandError

from annotation.models import Campaign
from heartbench_core.management.commands._base import ImportCommand
from validation.report import DEFAULTS
from validation.services.reports import create_agreement_report
from validation.formatting import report_table


class Command(ImportCommand):
    help = "Compute and store a new agreement report of a campaign (judge vs golden standard, among experts) and print it."

    def add_arguments(self, parser):
        parser.add_argument("--campaign", required=True)
        parser.add_argument("--judge", help="Judge name (default: the campaign's only judge).")
        parser.add_argument("--run", metavar="LABEL", help="Judge run label when the judge has several.")
        parser.add_argument("--exclude-catastrophic", action="store_true", help="Leave out the catastrophic (其他) criteria.")
        parser.add_argument("--format", choices=["json", "table"], default="table")
        parser.add_argument("--resamples", type=int, default=DEFAULTS["resamples"], help="Bootstrap resamples (default 1000).")
        parser.add_argument("--seed", type=int, default=DEFAULTS["seed"])
        parser.add_argument("--threshold", type=float, default=DEFAULTS["threshold"], help="Release gate: agreement needed (default 0.75).")
        parser.add_argument(
            "--min-pairs", type=int, default=DEFAULTS["min_pairs_per_dimension"], help="Release gate: compared pairs needed per dimension."
        )

    def handle(self, *args, **opts):
        campaign = Campaign.objects.select_related("version__dataset").filter(name=opts["campaign"]).first()
        if campaign is None:
            raise CommandError(f"no campaign named {opts['campaign']!r}")
        report = self.run_service(
            create_agreement_report,
            campaign=campaign,
            judge=opts["judge"],
            run=opts["run"],
            trigger="command",
            resamples=opts["resamples"],
            seed=opts["seed"],
            threshold=opts["threshold"],
            min_pairs_per_dimension=opts["min_pairs"],
            exclude_catastrophic=opts["exclude_catastrophic"],
        )
        if opts["format"] == "json":
            self.stdout.write(json.dumps({"report_id": report.pk, **report.result}, ensure_ascii=False, indent=2))
        else:
            self.stdout.write(report_table(report))
