from typing import Any

from django.core.management.base import CommandParser
from django.utils.translation import gettext

from heartbench_core.management.commands._base import ImportCommand
from heartbench_core.services.judging import import_judge_verdicts


class Command(ImportCommand):
    help = (
        "Import an LLM judge's verdicts on one model's responses (upstream question_score.jsonl: "
        'question_id + score_detail "[1, 0, 1]" or detail [1, 0, 1]) as a judge run.'
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path")
        parser.add_argument("--dataset", required=True)
        parser.add_argument("--model", required=True, help="The model whose responses were judged.")
        parser.add_argument("--judge", required=True, help="The judge model, e.g. claude-sonnet-4-5-20250929.")
        parser.add_argument("--run", dest="run_label", help="Label of this run (default: 'default').")
        parser.add_argument("--version", dest="label", help="Dataset version the verdicts were made against (default: latest).")
        parser.add_argument("--note", default="")

    def handle(self, *args: Any, **opts: Any) -> None:
        self.verbosity = opts["verbosity"]
        outcome = self.run_service(
            import_judge_verdicts,
            source=opts["path"],
            dataset_name=opts["dataset"],
            model_name=opts["model"],
            judge=opts["judge"],
            run_label=opts["run_label"],
            version_label=opts["label"],
            note=opts["note"],
            progress=self.progress,
        )
        run = outcome.run
        facts: dict[str, object] = {"judge": run.judge, "run": run.label, "model": run.model.name, "version": run.version}
        if not outcome.created:
            self.stdout.write(
                gettext("judge run %(judge)s/%(run)s of %(model)s on %(version)s already holds these verdicts; nothing changed") % facts
            )
            return
        facts |= {"verdicts": outcome.verdicts, "questions": outcome.questions}
        facts |= {"uncovered": outcome.uncovered, "responses": outcome.responses_created}
        self.stdout.write(
            gettext("judge run %(judge)s/%(run)s of %(model)s on %(version)s: %(verdicts)d verdicts on %(questions)d questions") % facts
            + (gettext(", %(uncovered)d questions not covered") % facts if outcome.uncovered else "")
            + (gettext(", %(responses)d responses imported from the file") % facts if outcome.responses_created else "")
        )
