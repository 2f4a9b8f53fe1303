"""The leaderboard's filters, one FilterSet for its pages and the scores API (heartbench_core.filters)."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from heartbench_core.filters import Boolean, Choice, Integer, ListFilters, Text
from heartbench_core.lib.scoring import CATASTROPHIC_MODES
from heartbench_core.models import JudgeRun
from heartbench_core.services.scoring import SUBSETS

# The names a page gives the subsets, catastrophic rules and orders (heartbench_core/partials/subset_name.html, catastrophic_rule.html).
SUBSET_NAMES = {
    "all": pgettext_lazy("question subset: all questions", "all"),
    "hard": pgettext_lazy("question subset: hard questions", "hard"),
    "normal": pgettext_lazy("question subset: normal questions", "normal"),
}
RULE_NAMES = {
    "paper": pgettext_lazy("catastrophic rule: any hit on a catastrophic criterion zeroes the question, as the paper defines it", "paper"),
    "upstream": pgettext_lazy(
        "catastrophic rule: only a hit with a positive weight zeroes the question, as the released scoring code does", "upstream"
    ),
}
ORDERS = [("position", _("file order")), ("score", _("lowest score first"))]


class LeaderboardFilters(ListFilters):
    """What the leaderboard, a model's page and the scores API take: which runs, the scene, subset and catastrophic rule, a search."""

    judge = Text(label=_("Judge"))
    run = Text(label=_("Run"))
    scene = Text(label=_("Scene"))
    subset = Choice(choices=[(s, SUBSET_NAMES[s]) for s in SUBSETS], label=_("Subset"))
    catastrophic = Choice(choices=[(m, RULE_NAMES[m]) for m in CATASTROPHIC_MODES], label=_("Catastrophic rule"))
    q = Text(help_text="Only models whose name contains this (any case); ranks stay those of all.", label=_("Search"))
    sort = Choice(choices=ORDERS, label=pgettext_lazy("sort order", "Order"))  # a model's questions

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

    dataset = Text(required=True, label=_("Dataset"))
    source = Text(label=_("Source"))
    version = Text(label=_("Version"))
    top = Integer(
        min_value=1,
        max_value=10000,
        help_text="Only the first N models listed (after `q`), in rank order.",
        label=pgettext_lazy("a list filter", "Number of models"),
    )
    page = Integer(min_value=1, help_text="The page of the models listed (50 a page).", label=pgettext_lazy("a list filter", "Page"))


class ModelScoreFilters(ScoredLeaderboardFilters):
    model = Text(required=True, label=_("Model"))
    questions = Boolean(help_text="include per-question scores", label=pgettext_lazy("a list filter", "Per-question scores"))
