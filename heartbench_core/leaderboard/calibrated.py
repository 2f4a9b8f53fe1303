"""Human-calibrated scores beside the judge's leaderboard, from the validation app's latest official report per judge.

The core cannot point at the validation app, so the app registers where the scores are read
(`register_calibrated_source`, from its AppConfig.ready); without it the leaderboard shows none.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass

from heartbench_core.lib.agreement_report import AltTest, CalibratedModel, Figure
from heartbench_core.lib.reasons import Reason
from heartbench_core.models import DatasetVersion

NO_REPORT = Reason("no_calibrated_report")
NOT_IN_REPORT = Reason("not_in_report")
NOT_A_JUDGE = Reason("not_a_judge")
ONLY_ALL_PAPER = Reason("only_all_paper")


@dataclass(frozen=True)
class CalibratedBoard:
    """One judge's human-calibrated scores on a version, from one stored report: its heading and the models asked for."""

    report_id: int
    report_url: str
    campaign: str
    runs: tuple[str, ...]  # the judge's run labels the report compared
    kendall_tau: Figure  # between the judge-only and the corrected ranking, over every model of the report
    experts_resampled: int | None  # experts the intervals resampled with the items (None: the items alone, in reports from before)
    # Of the models asked for, those the report calibrated: their overall scores and ranks (what a leaderboard shows);
    # by_dimension and by_ability are left empty.
    models: Mapping[str, CalibratedModel]
    alt_test: AltTest | None = None  # the same report's answer to "can the judge replace an expert?" (None: it predates the test)

    def model(self, name: str, run: str) -> CalibratedModel | None:
        """The model's calibrated scores when the report compared this run of it."""
        if self.runs and run not in self.runs:
            return None
        return self.models.get(name)


Source = Callable[[DatasetVersion, Collection[str]], dict[str, CalibratedBoard]]  # (version, models) → judge → its board

_source: Source | None = None


def register_calibrated_source(source: Source) -> None:
    """Called once, from the validation app's AppConfig.ready."""
    global _source
    _source = source


def calibrated_of(
    boards: dict[str, CalibratedBoard], judge: str, model: str, run: str
) -> tuple[CalibratedBoard | None, CalibratedModel | None, Reason | None]:
    """The judge's board, the model's calibrated scores in it (for this run), and why there are none (None when there are)."""
    board = boards.get(judge)
    found = board.model(model, run) if board else None
    return board, found, None if found is not None else NOT_IN_REPORT if board else NO_REPORT


def calibrated_boards(version: DatasetVersion, models: Collection[str]) -> dict[str, CalibratedBoard]:
    """Each judge's latest human-calibrated scores of `models` on the version (empty without a source or a report)."""
    return _source(version, models) if _source is not None else {}
