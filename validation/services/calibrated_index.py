"""The calibrated index of a report: what the leaderboard reads of its human-calibrated scores, one row per model.

Written when an official report is stored, and for a report stored before the index existed (or
restored from an archive) the first time a leaderboard needs it.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

from django.db import transaction

from heartbench_core.lib.agreement_report import AltTest, CalibratedScores, alt_test_from_dict, calibrated_scores_from_dict
from heartbench_core.lib.typed_json import to_json
from validation.models import AgreementReport, CalibratedIndex, CalibratedModelRow

logger = logging.getLogger(__name__)


def index_calibrated_scores(report_id: int) -> None:
    """Copy a stored report's calibrated scores into its index, read from its JSON once."""
    columns = ("result__calibrated_scores", "result__alt_test__overall", "result__run", "result__schema_version")
    found = AgreementReport.objects.filter(pk=report_id).values_list(*columns).first()
    if found is None:
        return
    block, alt_test, runs, schema = found
    try:
        schema = int(schema or 1)
        scores = calibrated_scores_from_dict(block, schema=schema) if block else None
        test = alt_test_from_dict(alt_test, schema=schema) if alt_test else None
        runs = [str(r) for r in runs or ()] if isinstance(runs, list | tuple) or runs is None else None
        if runs is None:
            raise ValueError("run: expected a list of run labels")
    except (ValueError, TypeError, KeyError, AttributeError) as exc:
        # A report that does not read (an archive's, say) shows no calibrated scores on the leaderboard, which then takes
        # the judge's newest readable report; its own page says what is wrong with it.
        logger.warning("report %s: its calibrated scores do not read (%s); the leaderboard leaves them out", report_id, exc)
        scores, test, runs = None, None, []
    write_calibrated_index(report_id, scores, test, runs)


def write_calibrated_index(report_id: int, scores: CalibratedScores | None, alt_test: AltTest | None, runs: Iterable[str] | None) -> None:
    """The report's calibrated index from its typed parts (when it is stored; a concurrent copy of the same report is harmless)."""
    defined = [m.overall.corrected_ci95.resampled.experts for m in scores.models if m.overall.corrected_ci95.defined] if scores else []
    with transaction.atomic():
        if scores is not None:
            CalibratedModelRow.objects.bulk_create(
                [CalibratedModelRow(report_id=report_id, model=m.model, scores=to_json(m)) for m in scores.models],
                batch_size=500,
                ignore_conflicts=True,
            )
        CalibratedIndex.objects.bulk_create(
            [
                CalibratedIndex(
                    report_id=report_id,
                    present=scores is not None,
                    runs=[str(r) for r in runs or ()],
                    kendall_tau=to_json(scores.kendall_tau) if scores else None,
                    experts_resampled=defined[0] if defined else None,
                    alt_test=to_json(alt_test) if alt_test else None,
                )
            ],
            ignore_conflicts=True,
        )
