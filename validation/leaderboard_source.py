"""Where the leaderboard reads human-calibrated scores: each judge's latest official report on the version that has them.

It reads them from the reports' calibrated index (`CalibratedIndex`, `CalibratedModelRow`): the heading
of each judge's report and the rows of the models asked for, so the work follows the page, not the
number of models a report compared. A report not yet indexed (stored before the index existed, or
restored from an archive) is indexed here first, once.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from django.db.models import Func, JSONField
from django.urls import reverse

from heartbench_core.leaderboard.calibrated import CalibratedBoard
from heartbench_core.lib.agreement_report import AltTest, CalibratedModel, Figure
from heartbench_core.lib.typed_json import from_json
from heartbench_core.models import DatasetVersion
from validation.models import AgreementReport, CalibratedModelRow
from validation.services.calibrated_index import index_calibrated_scores


class _Headline(Func):
    """A calibrated row's JSON without its per-dimension and per-ability scores, cut in the database: the leaderboard shows
    the overall scores and ranks, and the abilities' are most of the row (and of reading it)."""

    output_field = JSONField()
    template = "json_remove(%(expressions)s, '$.by_dimension', '$.by_ability')"  # SQLite's JSON1

    def as_postgresql(self, compiler: Any, connection: Any, **extra_context: Any) -> Any:
        return self.as_sql(compiler, connection, template="((%(expressions)s) - 'by_dimension' - 'by_ability')", **extra_context)


def calibrated_boards(version: DatasetVersion, models: Collection[str]) -> dict[str, CalibratedBoard]:
    """Judge → the calibrated scores of `models` in its newest official report on the version that has them, with the report's
    alternative annotator test: the version's official reports with their index headings (one query), then the rows of
    `models` in the newest of each judge (one more), never a report's JSON. Each model's overall scores and ranks: its
    `by_dimension` and `by_ability` are left empty (`_Headline`)."""
    columns = ("pk", "judge", "campaign_id", "campaign__name", "calibrated_index__present")
    heading = ("runs", "kendall_tau", "experts_resampled", "alt_test")
    official = AgreementReport.objects.filter(campaign__version=version, exploratory=False).order_by("pk")
    reports = list(official.values_list(*columns, *(f"calibrated_index__{c}" for c in heading)))
    if any(r[4] is None for r in reports):  # reports not yet indexed (usually none): indexed once, then read again
        for r in reports:
            if r[4] is None:
                index_calibrated_scores(r[0])
        reports = list(official.values_list(*columns, *(f"calibrated_index__{c}" for c in heading)))
    newest = {r[1]: r for r in reports if r[4]}  # ascending ids: the last kept per judge is its newest
    found: dict[int, dict[str, CalibratedModel]] = {r[0]: {} for r in newest.values()}
    if found and models:
        rows = CalibratedModelRow.objects.filter(report_id__in=found, model__in=set(models)).annotate(headline=_Headline("scores"))
        for report_id, model, headline in rows.values_list("report_id", "model", "headline"):
            found[report_id][model] = from_json(CalibratedModel, {**headline, "by_dimension": [], "by_ability": []})
    return {
        judge: CalibratedBoard(
            report_id=pk,
            report_url=reverse("validation:report", args=[campaign_id, pk]),
            campaign=campaign,
            runs=tuple(runs),
            kendall_tau=from_json(Figure, kendall_tau),
            experts_resampled=experts_resampled,
            models=found[pk],
            alt_test=None if alt_test is None else from_json(AltTest, alt_test),
        )
        for judge, (pk, _, campaign_id, campaign, _, runs, kendall_tau, experts_resampled, alt_test) in newest.items()
    }
