import json
from typing import Any

from django.core.management.base import CommandError, CommandParser
from django.utils.translation import gettext, gettext_lazy

from annotation.models import Campaign
from heartbench_core.lib.agreement_report import DEFAULTS
from heartbench_core.management.commands._base import ImportCommand
from heartbench_core.stat_reasons import reason_text
from validation.formatting import report_table
from validation.services.agreement_reports import create_agreement_report


class Command(ImportCommand):
    help = gettext_lazy("Compute and store a new agreement report of a campaign (judge vs golden standard, among experts) and print it.")  # type: ignore[assignment]  # argparse gets it as a string (PlatformCommand.create_parser)

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--campaign", required=True)
        parser.add_argument("--judge", help=gettext("Judge name (default: the campaign's only judge)."))
        parser.add_argument("--run", metavar="LABEL", help=gettext("Judge run label when the judge has several."))
        parser.add_argument("--exclude-catastrophic", action="store_true", help=gettext("Leave out the catastrophic (其他) criteria."))
        parser.add_argument(
            "--post-discussion",
            action="store_true",
            help=gettext(
                "Include accepted post-discussion revisions instead of the blind verdicts (an exploratory report; never sets the gate)."
            ),
        )
        parser.add_argument("--format", choices=["json", "table"], default="table")
        parser.add_argument(
            "--resamples", type=int, default=DEFAULTS.resamples, help=f"Bootstrap resamples (default {DEFAULTS.resamples})."
        )
        parser.add_argument("--seed", type=int, default=DEFAULTS.seed)
        # The gate's parameters come from the dataset's release policy (manage.py release_policy); any of
        # these flags with another value makes the report exploratory: it is stored but never sets the gate.
        parser.add_argument("--threshold", type=float, help=gettext("Exploratory: agreement needed instead of the policy's."))
        parser.add_argument(
            "--min-pairs", type=int, help=gettext("Exploratory: compared pairs needed per dimension instead of the policy's.")
        )
        parser.add_argument(
            "--min-pairs-per-ability",
            type=int,
            help=gettext("Exploratory: compared pairs needed per ability instead of the policy's."),
        )
        parser.add_argument(
            "--must-clear",
            choices=["point", "lower_bound"],
            help=gettext("Exploratory: what must clear the threshold instead of the policy's."),
        )

    def handle(self, *args: Any, **opts: Any) -> None:
        campaign = Campaign.objects.select_related("version__dataset").filter(name=opts["campaign"]).first()
        if campaign is None:
            raise CommandError(gettext("no campaign named %(campaign)r") % {"campaign": opts["campaign"]})
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
            min_pairs_per_ability=opts["min_pairs_per_ability"],
            must_clear=opts["must_clear"],
            exclude_catastrophic=opts["exclude_catastrophic"],
            post_discussion=opts["post_discussion"],
        )
        if report.exploratory:
            self.stderr.write(
                gettext(
                    "report %(report)d is exploratory: computed with parameters other than the release policy; it does not set the gate (%(reasons)s)"
                )
                % {"report": report.pk, "reasons": "; ".join(reason_text(x) for x in report.typed_result.exploratory_reasons)}
            )
        if opts["format"] == "json":
            self.stdout.write(json.dumps({"report_id": report.pk, **report.typed_result.to_dict()}, ensure_ascii=False, indent=2))
        else:
            self.stdout.write(report_table(report))
