from typing import Any

from django.core.management.base import CommandParser
from django.utils.translation import gettext, gettext_lazy

from heartbench_core.judging.services.runs import holder_name, request_judge_run
from heartbench_core.management.commands._runs import RunCommand


class Command(RunCommand):
    help = gettext_lazy(  # type: ignore[assignment]  # argparse gets it as a string (PlatformCommand.create_parser)
        "Judge MODEL's responses with an endpoint's model as the judge, in the foreground. "
        "A rerun with the same run label resumes: no question is judged twice, failed ones are tried again."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        self.add_run_arguments(
            parser,
            model_help=gettext("The model whose responses are judged."),
            endpoint_help=gettext("The endpoint whose model judges (see add_endpoint)."),
        )
        parser.add_argument(
            "--run", dest="run_label", help=gettext("Run label (default: the template's name and revision, e.g. heartbench-zh-r1).")
        )
        parser.add_argument("--template", help=gettext("Judge prompt template (default: heartbench-zh); its newest revision is used."))
        parser.add_argument("--ability", help=gettext("Only questions with a criterion of this ability label."))
        parser.add_argument(
            "--changed-since",
            type=int,
            metavar="RUN_ID",
            help=gettext("Only questions whose criteria changed since judge run RUN_ID."),
        )

    def handle(self, *args: Any, **opts: Any) -> None:
        request = self.run_service(
            request_judge_run,
            dataset_name=opts["dataset"],
            model_name=opts["model"],
            endpoint_name=opts["endpoint"],
            run_label=opts["run_label"],
            version_label=opts["label"],
            template_name=opts["template"],
            selection=self.selection(opts),
            trigger="command",
            hold_as=holder_name("command"),
        )
        run = request.run
        assert run is not None and run.judge_run is not None and run.template_revision is not None
        facts = {
            "judge": run.judge_run.judge,
            "run": run.judge_run.label,
            "model": run.model.name,
            "version": run.version,
            "template": run.template_revision,
            "added": request.added,
            "retried": request.retried,
        }
        self.stdout.write(
            (
                gettext("judge run %(judge)s/%(run)s of %(model)s on %(version)s (template %(template)s): new, %(added)d questions")
                if request.created
                else gettext(
                    "judge run %(judge)s/%(run)s of %(model)s on %(version)s (template %(template)s): resumed, %(added)d questions added, %(retried)d failed ones to retry"
                )
            )
            % facts
        )
        if request.left_out.get("no_response"):
            self.stdout.write(
                gettext("%(n)d questions left out: the model has no response to them") % {"n": request.left_out["no_response"]}
            )
        self.note_taken_over(request)
        self.run_held(run, verb="judge")
