"""The filters of the knowledge library's lists (FAQ entries, cases), its page and its API alike (heartbench_core.filters).

Applied by the read models' selectors, which also decide what an expert may read: the FilterSet
parses and checks the values (an unknown dataset is a 404 in the API; the page lists every dataset).
The page's links name the criterion `criterion`, the API `key`: one filter, `criterion` its alias.
"""

from __future__ import annotations

from django.utils.translation import gettext_lazy

from annotation.knowledge.models import Case, FaqEntry
from heartbench_core.filters import Choice, ListFilters, Text, Uuid


class FaqFilters(ListFilters):
    dataset = Text(help_text="A dataset's name.", label=gettext_lazy("Dataset"))
    key = Uuid(help_text="A criterion's lineage key.", label=gettext_lazy("Criterion"))
    status = Choice(choices=FaqEntry.Status.choices, help_text="Staff only.", label=gettext_lazy("Status"))

    aliases = {"criterion": "key"}

    class Meta:
        model = FaqEntry
        fields: list[str] = []


class CaseFilters(FaqFilters):
    status = Choice(choices=Case.Status.choices, help_text="Staff only.", label=gettext_lazy("Status"))

    class Meta:
        model = Case
        fields: list[str] = []
