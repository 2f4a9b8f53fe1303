from typing import Any

from django.utils.translation import gettext as _

from annotation.services.digest import send_risk_digest
from heartbench_core.management.commands._base import PlatformCommand


class Command(PlatformCommand):
    help = "E-mail the open risk alerts and needs-action counts to the admins who opted in (the worker does it daily)."

    def handle(self, *args: Any, **o: Any) -> None:
        self.stdout.write(_("%(n)s digests sent.") % {"n": send_risk_digest()})
