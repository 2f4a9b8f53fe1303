from pathlib import Path
from typing import Any

from django.core.management.base import CommandError, CommandParser
from django.utils.translation import gettext, gettext_lazy

from heartbench_core.management.commands._base import ImportCommand
from heartbench_core.services.judging import JudgeFile, import_judge_runs


def model_of(path: str) -> str:
    """The model a judge file judged, read from its name: `<model>.jsonl`, or `<model>/question_score.jsonl` as upstream writes it."""
    p = Path(path)
    stem = p.name.split(".", 1)[0]
    return p.parent.name if stem == "question_score" else stem


class Command(ImportCommand):
    help = gettext_lazy(  # type: ignore[assignment]  # argparse gets it as a string (PlatformCommand.create_parser)
        "Import an LLM judge's verdicts on models' responses (upstream question_score.jsonl: "
        'question_id + score_detail "[1, 0, 1]" or detail [1, 0, 1]), one judge run per file. '
        "Several files are imported together: any bad line in any of them and nothing is written."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("paths", nargs="+", metavar="path")
        parser.add_argument("--dataset", required=True)
        parser.add_argument(
            "--model",
            action="append",
            default=[],
            help=gettext(
                "The model whose responses a file judged; once per file, in the files' order "
                "(default: from each file's name, <model>.jsonl or <model>/question_score.jsonl)."
            ),
        )
        parser.add_argument("--judge", required=True, help=gettext("The judge model, e.g. claude-sonnet-4-5-20250929."))
        parser.add_argument("--run", dest="run_label", help=gettext("Label of this run (default: 'default')."))
        parser.add_argument("--version", dest="label", help=gettext("Dataset version the verdicts were made against (default: latest)."))
        parser.add_argument("--note", default="")

    def handle(self, *args: Any, **opts: Any) -> None:
        paths, models = opts["paths"], opts["model"]
        if models and len(models) != len(paths):
            raise CommandError(
                gettext(
                    "give --model once per file (%(files)d files, %(models)d models), or leave it out to read each model from its file name"
                )
                % {"files": len(paths), "models": len(models)}
            )
        files = [JudgeFile(path, model) for path, model in zip(paths, models or [model_of(p) for p in paths])]
        outcomes = self.run_service(
            import_judge_runs,
            files=files,
            dataset_name=opts["dataset"],
            judge=opts["judge"],
            run_label=opts["run_label"],
            version_label=opts["label"],
            note=opts["note"],
            progress=self.progress,
        )
        for outcome in outcomes:
            run = outcome.run
            facts: dict[str, object] = {"judge": run.judge, "run": run.label, "model": run.model.name, "version": run.version}
            if not outcome.created:
                self.stdout.write(
                    gettext("judge run %(judge)s/%(run)s of %(model)s on %(version)s already holds these verdicts; nothing changed") % facts
                )
                continue
            facts |= {"verdicts": outcome.verdicts, "questions": outcome.questions}
            facts |= {"uncovered": outcome.uncovered, "responses": outcome.responses_created}
            self.stdout.write(
                gettext("judge run %(judge)s/%(run)s of %(model)s on %(version)s: %(verdicts)d verdicts on %(questions)d questions") % facts
                + (gettext(", %(uncovered)d questions not covered") % facts if outcome.uncovered else "")
                + (gettext(", %(responses)d responses imported from the file") % facts if outcome.responses_created else "")
            )
