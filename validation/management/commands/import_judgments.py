from typing import Any

from django.core.management.base import CommandParser
from django.utils.translation import gettext, gettext_lazy

from heartbench_core.management.commands._base import ImportCommand
from validation.services.imports import import_judgments


class Command(ImportCommand):
    help = gettext_lazy(  # type: ignore[assignment]  # argparse gets it as a string (PlatformCommand.create_parser)
        "Import human judgments made elsewhere: JSONL lines {question_id, model, annotator, detail: [0, 1, …], reasons?}. "
        "Creates the campaign when it does not exist; several files are imported together; any bad line is an error and nothing is written."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("paths", nargs="+", metavar="path", help=gettext("One or more files, imported together."))
        parser.add_argument("--dataset", required=True)
        parser.add_argument("--campaign", required=True)
        parser.add_argument("--version", metavar="LABEL", help=gettext("Dataset version (default: the newest, or the campaign's)."))
        parser.add_argument("--create-experts", action="store_true", help=gettext("Create expert accounts for unknown annotators."))

    def handle(self, *args: Any, **opts: Any) -> None:
        outcome = self.run_service(
            import_judgments,
            source=opts["paths"],
            dataset_name=opts["dataset"],
            campaign_name=opts["campaign"],
            version_label=opts["version"],
            create_experts=opts["create_experts"],
        )
        facts = {
            "campaign": outcome.campaign.name,
            "responses": outcome.responses_added,
            "assignments": outcome.assignments,
            "judgments": outcome.judgments,
        }
        if outcome.campaign_created:
            message = gettext(
                "campaign %(campaign)r created: %(responses)d responses added, %(assignments)d submitted assignments, %(judgments)d judgments"
            )
        else:
            message = gettext(
                "campaign %(campaign)r extended: %(responses)d responses added, %(assignments)d submitted assignments, %(judgments)d judgments"
            )
        self.stdout.write(message % facts)
        if outcome.experts_created:
            self.stdout.write(gettext("experts created: %(usernames)s") % {"usernames": ", ".join(outcome.experts_created)})
