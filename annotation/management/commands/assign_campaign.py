from typing import Any

from django.core.management.base import CommandError, CommandParser
from django.utils.translation import gettext, gettext_lazy
from django.utils.translation import gettext as _

from annotation.models import Campaign
from annotation.services.assignment import bulk_assign
from heartbench_core.management.commands._base import ImportCommand


class Command(ImportCommand):
    help = gettext_lazy(  # type: ignore[assignment]  # argparse gets it as a string (PlatformCommand.create_parser)
        "Pre-assign a campaign's open slots (k per response) among its eligible experts; prints how many were assigned, "
        "then each slot no eligible expert can take and why, then how many were left empty per reason."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("campaign", help=gettext("campaign name"))

    def handle(self, *args: Any, **o: Any) -> None:
        campaign = Campaign.objects.filter(name=o["campaign"]).first()
        if campaign is None:
            raise CommandError(_("no campaign named %(name)r") % {"name": o["campaign"]})
        result = self.run_service(bulk_assign, campaign=campaign)
        self.stdout.write(str(result.made))
        # Admins only run commands: every slot left open is listed with its reason.
        for slot in result.unfilled:
            self.stdout.write(
                _("unfilled: response #%(id)s (%(question)s), %(n)s slot(s): %(why)s")
                % {"id": slot.campaign_response_id, "question": slot.question_id, "n": slot.need, "why": slot.detail}
            )
        if summary := result.summary():
            self.stdout.write(summary)
