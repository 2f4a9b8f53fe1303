from typing import Any

from django.core.management.base import CommandParser
from django.utils.translation import gettext, gettext_lazy

from heartbench_core.judging.services.runs import holder_name, request_answers
from heartbench_core.management.commands._runs import RunCommand


class Command(RunCommand):
    help = gettext_lazy(  # type: ignore[assignment]  # argparse gets it as a string (PlatformCommand.create_parser)
        "Ask an endpoint (a model under test) for MODEL's answers to the dataset's questions and store them as MODEL's "
        "responses, in the foreground. A rerun fills only what is missing."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        self.add_run_arguments(
            parser,
            model_help=gettext("The model the answers are stored as."),
            endpoint_help=gettext("The endpoint that answers (see add_endpoint)."),
        )

    def handle(self, *args: Any, **opts: Any) -> None:
        request = self.run_service(
            request_answers,
            dataset_name=opts["dataset"],
            model_name=opts["model"],
            endpoint_name=opts["endpoint"],
            version_label=opts["label"],
            selection=self.selection(opts),
            trigger="command",
            hold_as=holder_name("command"),
        )
        run = request.run
        if run is None:
            self.stdout.write(
                gettext("%(model)s already has an answer to every question asked for: nothing to do") % {"model": opts["model"]}
            )
            return
        facts = {
            "model": run.model.name,
            "version": run.version,
            "endpoint": run.endpoint.name,
            "added": request.added,
            "retried": request.retried,
        }
        self.stdout.write(
            (
                gettext("answers of %(model)s on %(version)s from endpoint %(endpoint)s: new run, %(added)d questions")
                if request.created
                else gettext(
                    "answers of %(model)s on %(version)s from endpoint %(endpoint)s: resumed, %(added)d questions added, %(retried)d failed ones to retry"
                )
            )
            % facts
        )
        if request.left_out.get("answered"):
            self.stdout.write(gettext("%(n)d questions already answered: left as they are") % {"n": request.left_out["answered"]})
        self.note_taken_over(request)
        self.run_held(run, verb="generate")
