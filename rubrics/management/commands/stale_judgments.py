"""stale_judgments --dataset NAME [--csv]: responses whose judgments or verdicts predate a change of meaning."""

import csv
from typing import Any

from django.core.management.base import CommandError, CommandParser
from django.utils.translation import gettext, gettext_lazy

from heartbench_core.csvsafe import safe_cell
from heartbench_core.management.commands._base import PlatformCommand
from heartbench_core.models import Dataset
from rubrics.selectors import stale_rows, stale_totals

COLUMNS = ("response", "question_id", "criterion_key", "judged_revision", "meaning_revision", "judgments", "verdicts")


class Command(PlatformCommand):
    help = gettext_lazy("List responses to re-check: expert judgments and judge verdicts made against an older meaning of a criterion.")  # type: ignore[assignment]  # argparse gets it as a string (PlatformCommand.create_parser)

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--dataset", required=True)
        parser.add_argument("--csv", action="store_true", help=gettext("Write CSV to standard output."))

    def handle(self, *args: Any, **opts: Any) -> None:
        dataset = Dataset.objects.filter(name=opts["dataset"]).first()
        if dataset is None:
            raise CommandError(gettext("no dataset named %(dataset)r") % {"dataset": opts["dataset"]})
        rows = stale_rows(dataset)
        if opts["csv"]:
            writer = csv.DictWriter(self.stdout, fieldnames=COLUMNS)
            writer.writeheader()
            writer.writerows({key: safe_cell(value) for key, value in row.items()} for row in rows)
            return
        totals = stale_totals(rows)
        self.stdout.write(gettext("%(responses)d responses to re-check: %(judgments)d judgments, %(verdicts)d verdicts") % totals)
        for r in rows:
            self.stdout.write(
                f"{r['response']}  {r['question_id']}  {r['criterion_key'][:8]}  r{r['judged_revision']}→r{r['meaning_revision']}"
                f"  judgments={r['judgments']} verdicts={r['verdicts']}"
            )
