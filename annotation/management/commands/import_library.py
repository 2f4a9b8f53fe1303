from typing import Any

from django.core.management.base import CommandParser
from django.utils.translation import gettext, gettext_lazy

from annotation.knowledge.services.knowledge_io import import_library, waiting_for_review
from heartbench_core.management.commands._base import ImportCommand


class Command(ImportCommand):
    help = gettext_lazy(  # type: ignore[assignment]  # argparse gets it as a string (PlatformCommand.create_parser)
        "Import a knowledge library file (export_library's JSON Lines): guidelines revisions, FAQ entries and cases. "
        "Records already here (same uid, same revision) are left as they are; any bad line is an error and nothing is written. "
        "Entries and cases obey the rules of the pages; a published FAQ entry arrives waiting for a review here."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path")

    def handle(self, *args: Any, **opts: Any) -> None:
        outcome = self.run_service(import_library, source=opts["path"])
        self.stdout.write(
            gettext("%(guidelines)d guidelines revisions, %(faq)d FAQ entries and %(cases)d cases imported; %(present)d already here")
            % {"guidelines": outcome.guidelines, "faq": outcome.faq, "cases": outcome.cases, "present": outcome.already_present}
        )
        if outcome.to_review:
            self.stdout.write(waiting_for_review(outcome.to_review))
