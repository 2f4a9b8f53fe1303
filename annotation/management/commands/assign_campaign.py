from django.core.management.base import CommandError

from annotation.models import Campaign
from annotation.services.assignment import bulk_assign
from heartbench_core.management.commands._base import ImportCommand


class Command(ImportCommand):
    help = "Pre-assign a campaign's open slots (k per response) among its eligible experts; prints how many were assigned."

    def add_arguments(self, parser):
        parser.add_argument("campaign", help="campaign name")

    def handle(self, *args, **o):
        campaign = Campaign.objects.filter(name=o["campaign"]).first()
        if campaign is None:
            raise CommandError(f"no campaign named {o['campaign']!r}")
        self.stdout.write(str(self.run_service(bulk_assign, campaign=campaign)))
