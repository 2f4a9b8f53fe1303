"""The leaderboard's filters, one FilterSet for its pages and the scores API (heartbench_core.filters)."""

from __future__ import annotations

from heartbench_core.filters import Boolean, Choice, Integer, ListFilters, Text
from heartbench_core.lib.scoring import CATASTROPHIC_MODES
from heartbench_core.models import JudgeRun
from heartbench_core.services.scoring import SUBSETS


class LeaderboardFilters(ListFilters):
    """What the leaderboard, a model's page and the scores API take: which runs, the scene, subset and catastrophic rule, a search."""

    judge = Text()
    run = Text()
    scene = Text()
    subset = Choice(SUBSETS)
    catastrophic = Choice(CATASTROPHIC_MODES)
    q = Text(help_text="Only models whose name contains this (any case); ranks stay those of all.")
    sort = Choice(("position", "score"))  # a model's questions: in file order, or lowest score first

    class Meta:
        model = JudgeRun
        fields: list[str] = []

    @property
    def mode(self) -> str:
        return self.values.get("catastrophic") or "paper"

    @property
    def scored_subset(self) -> str:
        return self.values.get("subset") or "all"

    @property
    def search(self) -> str:
        return (self.values.get("q") or "").strip()


class ScoredLeaderboardFilters(LeaderboardFilters):
    """The scores API's: which verdicts of which dataset version, and how many models to keep."""

    dataset = Text(required=True)
    source = Text()
    version = Text()
    top = Integer(min_value=1, max_value=10000, help_text="Only the first N models listed (after `q`), in rank order.")
    page = Integer(min_value=1, help_text="The page of the models listed (50 a page).")


class ModelScoreFilters(ScoredLeaderboardFilters):
    model = Text(required=True)
    questions = Boolean(help_text="include per-question scores")
