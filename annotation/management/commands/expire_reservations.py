from typing import Any

from annotation.services.assignment import expire_reservations
from heartbench_core.management.commands._base import PlatformCommand


class Command(PlatformCommand):
    help = "Return reservations past their timeout to the pool (the worker also does this every few minutes)."

    def handle(self, *args: Any, **o: Any) -> None:
        self.stdout.write(str(expire_reservations()))
