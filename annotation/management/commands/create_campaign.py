from datetime import timedelta
from decimal import Decimal, InvalidOperation
from typing import Any

from django.core.management.base import CommandError, CommandParser
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from django.utils.translation import gettext, gettext_lazy
from django.utils.translation import gettext as _

from annotation.models import Campaign
from annotation.services.campaigns import create_campaign
from heartbench_core.management.commands._base import ImportCommand


class Command(ImportCommand):
    help = gettext_lazy("Create a blind-test campaign over a dataset version; prints the number of responses in it.")  # type: ignore[assignment]  # argparse gets it as a string (PlatformCommand.create_parser)

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name")
        parser.add_argument("--dataset", required=True)
        parser.add_argument("--version", dest="version_label", metavar="LABEL", help=gettext("dataset version (default: the latest)"))
        parser.add_argument("--models", required=True, help=gettext("comma-separated model names"))
        parser.add_argument("--sample", type=float, default=0.4, help=gettext("fraction of items, in (0, 1] (default 0.4)"))
        parser.add_argument("--overlap", type=int, default=3, help=gettext("k distinct experts per response (default 3)"))
        parser.add_argument(
            "--seed",
            type=int,
            default=None,
            help=gettext("default: a random seed; give one only to draw the same sample again (with the same sampling key)"),
        )
        parser.add_argument("--experts", help=gettext("comma-separated usernames (default: every active expert)"))
        parser.add_argument("--timeout-hours", type=float, default=2.0, help=gettext("reservation timeout (default 2)"))
        parser.add_argument("--gold-from", help=gettext("gold set to draw hidden gold checks from (see create_gold_set)"))
        parser.add_argument("--gold-rate", type=float, default=0.0, help=gettext("share of gold checks in each expert's queue"))
        parser.add_argument("--min-tier-for-hard", type=int, default=1)
        parser.add_argument("--piece-rate", default="0", help=gettext("payment per submitted response"))
        parser.add_argument("--allow-unqualified", action="store_true", help=gettext("do not require a passed calibration"))
        parser.add_argument("--per-dimension", action="store_true", help=gettext("require qualification in every dimension of a rubric"))
        parser.add_argument(
            "--deadline", help=gettext("when the work is due (ISO 8601, e.g. 2026-12-31T18:00+08:00; without a zone: the site's)")
        )
        parser.add_argument(
            "--extra-raters-budget",
            type=int,
            default=None,
            metavar="N",
            help=gettext(
                "turn on extra raters where the verdicts split: at most N extra assignments (two per extended response); default off"
            ),
        )
        parser.add_argument(
            "--extra-raters-share",
            type=float,
            default=0.5,
            help=gettext("share of a response's criteria split by one vote that extends it, in (0, 1] (default 0.5)"),
        )
        parser.add_argument(
            "--certificate-name", default="", help=gettext('title of the experts\' certificate (default "AI Evaluation Expert")')
        )

    def handle(self, *args: Any, **o: Any) -> None:
        gold_source = None
        if o["gold_from"]:
            gold_source = Campaign.objects.filter(name=o["gold_from"]).first()
            if gold_source is None:
                raise CommandError(_("nothing was written: gold_source: no campaign named %(name)r") % {"name": o["gold_from"]})
        try:
            piece_rate = Decimal(o["piece_rate"])
        except InvalidOperation:
            raise CommandError(_("nothing was written: piece_rate: not a number: %(value)r") % {"value": o["piece_rate"]}) from None
        deadline = None
        if o["deadline"]:
            try:
                deadline = parse_datetime(o["deadline"])
            except ValueError:
                deadline = None
            if deadline is None:
                raise CommandError(_("nothing was written: deadline: not a date and time: %(value)r") % {"value": o["deadline"]})
            if timezone.is_naive(deadline):
                deadline = timezone.make_aware(deadline)
        outcome = self.run_service(
            create_campaign,
            name=o["name"],
            dataset_name=o["dataset"],
            version_label=o["version_label"],
            model_names=o["models"].split(","),
            sample_fraction=o["sample"],
            overlap=o["overlap"],
            seed=o["seed"],
            reservation_timeout=timedelta(hours=o["timeout_hours"]),
            expert_usernames=[u.strip() for u in o["experts"].split(",") if u.strip()] if o["experts"] else None,
            requires_qualification=not o["allow_unqualified"],
            qualification_per_dimension=o["per_dimension"],
            gold_source=gold_source,
            gold_rate=o["gold_rate"],
            min_tier_for_hard=o["min_tier_for_hard"],
            piece_rate=piece_rate,
            deadline=deadline,
            certificate_name=o["certificate_name"],
            split_extension=o["extra_raters_budget"] is not None,
            split_extension_budget=o["extra_raters_budget"] or 0,
            split_extension_min_share=o["extra_raters_share"],
        )
        if o["verbosity"] > 1:
            self.stderr.write(
                _("%(items)d items sampled, %(gold)d gold checks, %(experts)d eligible experts")
                % {"items": outcome.items, "gold": outcome.gold, "experts": outcome.eligible_experts}
            )
        self.stdout.write(str(outcome.responses))
