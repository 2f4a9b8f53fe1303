from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from annotation.services.digest import send_risk_digest
from heartbench_core.management.commands._base import PlatformCommand


class Command(PlatformCommand):
    help = gettext_lazy("E-mail the open risk alerts and needs-action counts to the admins who opted in (the worker does it daily).")  # type: ignore[assignment]  # argparse gets it as a string (PlatformCommand.create_parser)

    def handle(self, *args: Any, **o: Any) -> None:
        self.stdout.write(_("%(n)s digests sent.") % {"n": send_risk_digest()})
