from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from annotation.services.risks import check_risks
from heartbench_core.management.commands._base import PlatformCommand


class Command(PlatformCommand):
    help = gettext_lazy(  # type: ignore[assignment]  # argparse gets it as a string (PlatformCommand.create_parser)
        "Run the risk checks now (the worker runs them every hour): open or update alerts on drift, agreement and the judge."
    )

    def handle(self, *args: Any, **o: Any) -> None:
        run = check_risks()
        self.stdout.write(
            _("%(opened)s alerts opened, %(updated)s updated (checks: %(checks)s).")
            % {"opened": run.opened, "updated": run.updated, "checks": ", ".join(run.checks)}
        )
