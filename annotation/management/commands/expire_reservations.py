from typing import Any

from django.utils.translation import gettext_lazy

from annotation.services.assignment import expire_reservations
from heartbench_core.management.commands._base import PlatformCommand


class Command(PlatformCommand):
    help = gettext_lazy("Return reservations past their timeout to the pool (the worker also does this every few minutes).")  # type: ignore[assignment]  # argparse gets it as a string (PlatformCommand.create_parser)

    def handle(self, *args: Any, **o: Any) -> None:
        self.stdout.write(str(expire_reservations()))
