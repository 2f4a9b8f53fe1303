from typing import Any

from django.core.management.base import CommandError, CommandParser
from django.utils.translation import gettext, gettext_lazy
from django.utils.translation import gettext as _

from annotation.models import Campaign
from annotation.services.split_extension import DEFAULT_MIN_SHARE, extend_split_responses, set_split_extension, split_extension_state
from heartbench_core.management.commands._base import ImportCommand


class Command(ImportCommand):
    help = gettext_lazy(  # type: ignore[assignment]  # argparse gets it as a string (PlatformCommand.create_parser)
        "Extra raters where the verdicts split: set the option of a blind test, and extend the responses waiting for it, "
        "most split first, within the budget. Prints how many responses were extended."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("campaign", help=gettext("name of the blind test"))
        parser.add_argument(
            "--budget",
            type=int,
            metavar="N",
            help=gettext("turn the option on with at most N extra assignments (two per extended response)"),
        )
        parser.add_argument(
            "--share",
            type=float,
            default=None,
            help=gettext("share of a response's criteria split by one vote that extends it, in (0, 1] (default: as set, else 0.5)"),
        )
        parser.add_argument("--off", action="store_true", help=gettext("turn the option off (what was granted stays)"))

    def handle(self, *args: Any, **o: Any) -> None:
        campaign = Campaign.objects.filter(name=o["campaign"]).first()
        if campaign is None:
            raise CommandError(_("nothing was written: campaign: no campaign named %(name)r") % {"name": o["campaign"]})
        if o["off"] and o["budget"] is not None:
            raise CommandError(_("nothing was written: --off and --budget contradict each other"))
        state = split_extension_state(campaign, counts=False)
        share = state.min_share if o["share"] is None else o["share"]
        if o["off"] or o["budget"] is not None or o["share"] is not None:
            self.run_service(
                set_split_extension,
                campaign=campaign,
                enabled=not o["off"] and (o["budget"] is not None or state.enabled),
                budget=state.budget if o["budget"] is None else o["budget"],
                min_share=share if share is not None else DEFAULT_MIN_SHARE,
            )
        if o["off"]:
            self.stdout.write("0")
            return
        done = self.run_service(extend_split_responses, campaign=campaign)
        if o["verbosity"] > 1:
            self.stderr.write(
                _("%(candidates)d responses waiting with split verdicts; %(spent)d of %(budget)d extra assignments granted")
                % {"candidates": done.candidates, "spent": done.spent, "budget": done.budget}
            )
        self.stdout.write(str(done.extended))
