"""Where the leaderboard reads human-calibrated scores: each judge's latest official report on the version that has them."""

from __future__ import annotations

from django.db.models import Max
from django.urls import reverse

from heartbench_core.leaderboard.calibrated import CalibratedBoard
from heartbench_core.lib.agreement_report import alt_test_from_dict, calibrated_scores_from_dict
from heartbench_core.models import DatasetVersion
from validation.models import AgreementReport


def calibrated_boards(version: DatasetVersion) -> dict[str, CalibratedBoard]:
    """Judge → the calibrated scores of its newest official report on the version, with its alternative annotator test
    (one query, reading only those blocks)."""
    official = AgreementReport.objects.filter(campaign__version=version, exploratory=False, result__calibrated_scores__isnull=False)
    newest = official.order_by().values("judge").annotate(last=Max("id")).values("last")
    rows = AgreementReport.objects.filter(pk__in=newest).order_by()
    boards = {}
    columns = ("id", "judge", "campaign_id", "campaign__name", "result__run", "result__calibrated_scores", "result__alt_test__overall")
    for pk, judge, campaign_id, campaign, runs, block, alt_test, schema in rows.values_list(*columns, "result__schema_version"):
        if block:
            schema = int(schema or 1)
            boards[judge] = CalibratedBoard(
                report_id=pk,
                report_url=reverse("validation:report", args=[campaign_id, pk]),
                campaign=campaign,
                runs=tuple(str(r) for r in runs or ()),
                scores=calibrated_scores_from_dict(block, schema=schema),
                alt_test=alt_test_from_dict(alt_test, schema=schema) if alt_test else None,
            )
    return boards
