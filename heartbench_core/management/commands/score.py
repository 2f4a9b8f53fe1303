import json
from collections.abc import Callable
from typing import Any

from django.core.exceptions import ValidationError
from django.core.management.base import CommandError, CommandParser
from django.utils.translation import gettext, gettext_lazy

from heartbench_core.lib.scoring import CATASTROPHIC_MODES
from heartbench_core.lib.taxonomy import DIMENSIONS, abilities_of, english_name
from heartbench_core.management.commands._base import P, PlatformCommand, T, _messages
from heartbench_core.services.scoring import SUBSETS, ScoreResult, export_upstream_overall, score_model
from heartbench_core.taxonomy_display import dimension_display
from heartbench_core.verdict_sources import VerdictSet


class Command(PlatformCommand):
    help = gettext_lazy("Score one model (or several) on a dataset version from judge verdicts or the human golden standard.")  # type: ignore[assignment]  # argparse gets it as a string (PlatformCommand.create_parser)

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--dataset", required=True)
        parser.add_argument(
            "--model",
            required=True,
            nargs="+",
            action="extend",
            help=gettext(
                "One or more models (--model A B, or --model A --model B): one start-up for all. "
                'With several, --format json prints one line per model (with its "model") and --export-upstream needs {model} in PATH.'
            ),
        )
        parser.add_argument(
            "--source", default="judge", help=gettext("judge (an imported judge run) or consensus (the human golden standard).")
        )
        parser.add_argument("--judge", help=gettext("Judge name, when the model has runs of several judges."))
        parser.add_argument("--run", dest="run_label", help=gettext("Run label, when a judge has several runs."))
        parser.add_argument("--version", dest="label", help=gettext("Dataset version (default: that of the newest matching run)."))
        parser.add_argument("--subset", default="all", choices=SUBSETS)
        parser.add_argument("--scene", help=gettext("Only questions of this primary scene."))
        parser.add_argument("--catastrophic", default="paper", choices=CATASTROPHIC_MODES)
        parser.add_argument("--format", default="table", choices=("json", "table"))
        parser.add_argument("--questions", action="store_true", help=gettext("With --format json: include per-question scores."))
        parser.add_argument("--export-upstream", metavar="PATH", help=gettext("Also write the upstream overall_score_results.jsonl."))

    def run_service(self, func: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> T:
        try:
            return func(*args, **kwargs)
        except ValidationError as exc:
            raise CommandError("; ".join(_messages(exc))) from None

    def handle(self, *args: Any, **opts: Any) -> None:
        models: list[str] = list(dict.fromkeys(opts["model"]))
        several = len(models) > 1
        if several and opts["export_upstream"] and "{model}" not in opts["export_upstream"]:
            raise CommandError(gettext("with several models, --export-upstream needs {model} in its path (one file per model)"))
        nothing = []
        for n, model in enumerate(models):
            result, verdicts = self.run_service(
                score_model,
                dataset_name=opts["dataset"],
                model_name=model,
                source=opts["source"],
                judge=opts["judge"],
                run=opts["run_label"],
                version_label=opts["label"],
                subset=opts["subset"],
                scene=opts["scene"],
                mode=opts["catastrophic"],
            )
            if opts["export_upstream"]:
                self.run_service(export_upstream_overall, result=result, path=opts["export_upstream"].replace("{model}", model))
            if opts["format"] == "json":
                body = result.as_json(include_questions=opts["questions"])
                self.stdout.write(json.dumps({"model": model, **body} if several else body, ensure_ascii=False))
            else:
                if n:
                    self.stdout.write("")
                self._table(result, verdicts, {**opts, "model": model})
            if result.questions_scored == 0:
                nothing.append(model)
        if nothing and not several:
            raise CommandError(gettext("no question of this subset has verdicts on every criterion: nothing to score"))
        if nothing:
            raise CommandError(
                gettext("no question of this subset has verdicts on every criterion for %(models)s: nothing to score")
                % {"models": ", ".join(nothing)}
            )

    def _table(self, result: ScoreResult, verdicts: VerdictSet, opts: dict[str, Any]) -> None:
        out = self.stdout
        fmt = lambda x: "—" if x is None else f"{x:6.2f}"  # noqa: E731
        facts = {
            "model": opts["model"],
            "dataset": opts["dataset"],
            "version": result.version,
            "verdicts": verdicts.description,
            "subset": result.subset,
            "scene": result.scene,
            "rule": result.catastrophic,
            "scored": result.questions_scored,
            "dropped": result.questions_dropped,
            "incomplete": result.questions_incomplete,
            "catastrophic": result.questions_catastrophic,
        }
        out.write(
            gettext("%(model)s on %(dataset)s@%(version)s · %(verdicts)s · subset %(subset)s") % facts
            + (gettext(" · scene %(scene)s") % facts if result.scene else "")
            + gettext(" · catastrophic rule: %(rule)s") % facts
        )
        out.write(
            gettext("questions scored %(scored)d, left out %(dropped)d") % facts
            + (gettext(" (%(incomplete)d with incomplete verdicts)") % facts if result.questions_incomplete else "")
            + gettext(", catastrophic %(catastrophic)d") % facts
        )
        overall = gettext("OVERALL")
        out.write(f"\n{overall:<28}{fmt(result.overall)}")
        for dim in DIMENSIONS:
            out.write(f"\n{dimension_display(dim):<28}{fmt(result.dimensions[dim])}")
            for label in abilities_of(dim):
                n = result.ability_questions[label]
                shown = gettext("(%(count)d questions)") % {"count": n}
                out.write(f"  {english_name(label) + ' ' + label:<26}{fmt(result.abilities[label])}   {shown}")
        extras = [label for label in result.abilities if english_name(label) == label]
        for label in extras:
            shown = gettext("(%(count)d questions, no dimension)") % {"count": result.ability_questions[label]}
            out.write(f"  {label:<26}{fmt(result.abilities[label])}   {shown}")
