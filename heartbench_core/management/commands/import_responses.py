from typing import Any

from django.core.management.base import CommandParser
from django.utils.translation import gettext, gettext_lazy

from heartbench_core.management.commands._base import ImportCommand
from heartbench_core.services.responses import import_responses


class Command(ImportCommand):
    help = gettext_lazy('Import one model\'s answers: JSONL lines {"question_id": ..., "response": ...}.')  # type: ignore[assignment]  # argparse gets it as a string (PlatformCommand.create_parser)

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path")
        parser.add_argument("--dataset", required=True)
        parser.add_argument("--model", required=True)
        parser.add_argument("--version", dest="label")

    def handle(self, *args: Any, **opts: Any) -> None:
        outcome = self.run_service(
            import_responses,
            source=opts["path"],
            dataset_name=opts["dataset"],
            model_name=opts["model"],
            version_label=opts["label"],
            progress=self.progress,
        )
        self.stdout.write(
            gettext("%(count)d responses imported for %(model)s") % {"count": outcome.created, "model": outcome.model.name}
            + (gettext(" (%(count)d already present, unchanged)") % {"count": outcome.unchanged} if outcome.unchanged else "")
        )
