import json
from typing import Any

from django.core.management.base import CommandError, CommandParser
from django.utils.translation import gettext, gettext_lazy

from annotation.models import Campaign
from heartbench_core.lib.planner import Extension
from heartbench_core.management.commands._base import ImportCommand
from heartbench_core.services.datasets import get_version
from validation.planner import Assumptions, PlanRequest, design_sentence, make_plan, pilot_sentence, plan_json


def _numbers(text: str, kind: type, what: str) -> tuple:
    try:
        values = tuple(kind(v) for v in text.split(",") if v.strip())
    except ValueError:
        raise CommandError(gettext("%(what)s: a comma-separated list of numbers, not %(text)r") % {"what": what, "text": text}) from None
    if not values:
        raise CommandError(gettext("%(what)s: give at least one value") % {"what": what})
    return values


class Command(ImportCommand):
    help = gettext_lazy(  # type: ignore[assignment]  # argparse gets it as a string (PlatformCommand.create_parser)
        "Plan a blind test: for a grid of designs (share of items × raters per response), the expected 95% interval "
        "half-width of the judge–expert agreement and of a difference between two models' calibrated scores, with "
        "each design's judgments, expert hours and cost, simulated from a pilot blind test or from stated assumptions."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--dataset", required=True)
        parser.add_argument("--version", dest="version_label", metavar="LABEL", help=gettext("dataset version (default: the latest)"))
        parser.add_argument("--models", type=int, required=True, help=gettext("How many models the blind test will hold."))
        parser.add_argument(
            "--pilot", metavar="CAMPAIGN", help=gettext("An earlier blind test on the same dataset (default: assumptions).")
        )
        parser.add_argument("--shares", default="0.1,0.2,0.3,0.4,0.5", help=gettext("Shares of the items to plan for."))
        parser.add_argument("--raters", default="3,5", help=gettext("Raters per response to plan for."))
        parser.add_argument("--pool", type=int, help=gettext("Experts available (default: the pilot's, else the active experts)."))
        parser.add_argument("--piece-rate", type=float, default=0.0, help=gettext("Paid per submitted response."))
        parser.add_argument("--target-agreement", type=float, help=gettext("Wanted half-width of the agreement, in points (1.5 = ±1.5)."))
        parser.add_argument("--target-difference", type=float, help=gettext("Wanted half-width of a model difference, in score points."))
        parser.add_argument(
            "--extra-raters",
            metavar="MIN_SHARE,BUDGET_SHARE",
            help=gettext(
                "Also plan extra raters where the verdicts split: e.g. 0.5,0.1 (split share that extends, most responses extended)."
            ),
        )
        parser.add_argument("--simulations", type=int, default=1000)
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument("--format", choices=["json", "table"], default="table")

    def handle(self, *args: Any, **opts: Any) -> None:
        version = self.run_service(get_version, opts["dataset"], opts["version_label"])
        pilot = None
        if opts["pilot"]:
            pilot = Campaign.objects.select_related("version__dataset").filter(name=opts["pilot"]).first()
            if pilot is None:
                raise CommandError(gettext("no campaign named %(campaign)r") % {"campaign": opts["pilot"]})
        if opts["simulations"] < 10:
            raise CommandError(gettext("--simulations: at least 10"))
        extension = None
        if opts["extra_raters"]:
            values = _numbers(opts["extra_raters"], float, "--extra-raters")
            if len(values) != 2:
                raise CommandError(gettext("--extra-raters: two numbers, the split share and the budget share"))
            extension = Extension(min_share=values[0], budget_share=values[1])
        target = opts["target_agreement"]
        request = PlanRequest(
            version=version,
            models=opts["models"],
            pilot=pilot,
            shares=_numbers(opts["shares"], float, "--shares"),
            raters=_numbers(opts["raters"], int, "--raters"),
            pool=opts["pool"],
            piece_rate=opts["piece_rate"],
            target_agreement=target / 100 if target is not None else None,
            target_difference=opts["target_difference"],
            assumptions=Assumptions(),
            simulations=opts["simulations"],
            seed=opts["seed"],
            extension=extension,
        )
        view = self.run_service(make_plan, request)
        if opts["format"] == "json":
            self.stdout.write(json.dumps(plan_json(view), ensure_ascii=False, indent=2))
            return
        self.stdout.write(pilot_sentence(view))
        for tier, (seconds, n) in view.seconds_by_tier.items():
            self.stdout.write(
                gettext("tier %(tier)d: %(seconds).1f s per criterion (%(n)d assignments)") % {"tier": tier, "seconds": seconds, "n": n}
            )
        header = ("share", "k", "extra", "responses", "judgments", "hours", "money", "±agreement", "±difference")
        self.stdout.write("  ".join(f"{h:>11}" for h in header))
        for d in view.plan.designs:
            cells = (
                f"{d.share:.0%}",
                d.raters,
                d.extended_responses if d.extended else "-",
                d.responses,
                d.judgments,
                f"{d.expert_hours:.0f}",
                f"{d.money:.0f}",
                f"{d.agreement_half_width * 100:.2f}",
                f"{d.difference_half_width:.2f}",
            )
            self.stdout.write("  ".join(f"{c!s:>11}" for c in cells))
        if view.recommended is not None:
            self.stdout.write(design_sentence(view, view.recommended))
        elif not view.target_met:
            self.stdout.write(gettext("No design of the grid meets the target; widen the grid (more items or raters)."))
