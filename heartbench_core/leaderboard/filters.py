"""The leaderboard's filters, one FilterSet for its page and the API (heartbench_core.filters)."""

from __future__ import annotations

from heartbench_core.filters import Choice, Integer, ListFilters, Text
from heartbench_core.lib.scoring import CATASTROPHIC_MODES
from heartbench_core.models import JudgeRun
from heartbench_core.services.scoring import SUBSETS


class LeaderboardFilters(ListFilters):
    """What the leaderboard page and the API both take: the judge, the scene, the catastrophic rule, a search of the models."""

    judge = Text()
    scene = Text()
    catastrophic = Choice(CATASTROPHIC_MODES)
    q = Text(help_text="Only models whose name contains this (any case); ranks stay those of all.")

    class Meta:
        model = JudgeRun
        fields: list[str] = []

    @property
    def mode(self) -> str:
        return self.values.get("catastrophic") or "paper"

    @property
    def search(self) -> str:
        return (self.values.get("q") or "").strip()


class ScoredLeaderboardFilters(LeaderboardFilters):
    """The API's: which verdicts of which dataset version, the subset scored, and how many models to keep."""

    dataset = Text(required=True)
    source = Text()
    run = Text()
    version = Text()
    subset = Choice(SUBSETS)
    top = Integer(min_value=1, max_value=10000, help_text="Only the first N models listed (after `q`), in rank order.")
