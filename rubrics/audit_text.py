"""The rubric audit log as a person reads it: its fields' names and the reasons the platform writes.

`AUDIT_VOCABULARY` names every field the services in rubrics/services.py store in an entry's
before/after states (heartbench_core.change_sentences writes each change as a sentence with it).
`reason_text` writes the reasons the platform itself stores in English (a supersession, an
approval, a publication) in the reader's language; a reason a person typed is shown as written.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from django.utils.translation import gettext, pgettext_lazy

from heartbench_core.change_sentences import Vocabulary
from heartbench_core.taxonomy_display import ability_display
from rubrics.models import CriterionRevision, ReviewDecision


def _signed(value: object) -> str:
    return f"+{value}" if isinstance(value, int) and value > 0 else str(value)


_CONTEXT = "a field of a rubric audit entry"
AUDIT_VOCABULARY = Vocabulary(
    labels={
        "revision": pgettext_lazy(_CONTEXT, "Revision"),
        "kind": pgettext_lazy(_CONTEXT, "Kind of change"),
        "status": pgettext_lazy(_CONTEXT, "Status"),
        "text": pgettext_lazy(_CONTEXT, "Criterion text"),
        "ability": pgettext_lazy(_CONTEXT, "Ability"),
        "weight": pgettext_lazy(_CONTEXT, "Weight"),
        "catastrophic": pgettext_lazy(_CONTEXT, "Catastrophic"),
        "lineage.current_revision": pgettext_lazy(_CONTEXT, "Revision in force"),
        "lineage.meaning_revision": pgettext_lazy(_CONTEXT, "Revision that set the meaning"),
        "lineage.retired": pgettext_lazy(_CONTEXT, "Retired"),
        "verdict": pgettext_lazy(_CONTEXT, "Verdict"),
        "body": pgettext_lazy(_CONTEXT, "Comment"),
        "reply_to": pgettext_lazy(_CONTEXT, "In reply to comment"),
        "version": pgettext_lazy(_CONTEXT, "Dataset version"),
        "summary.items_added": pgettext_lazy(_CONTEXT, "Items added"),
        "summary.items_removed": pgettext_lazy(_CONTEXT, "Items removed"),
        "summary.items_changed": pgettext_lazy(_CONTEXT, "Items changed"),
        "summary.criteria_added": pgettext_lazy(_CONTEXT, "Criteria added"),
        "summary.criteria_removed": pgettext_lazy(_CONTEXT, "Criteria removed"),
        "summary.criteria_reworded": pgettext_lazy(_CONTEXT, "Criteria reworded"),
        "summary.criteria_reweighted": pgettext_lazy(_CONTEXT, "Criteria reweighted"),
        "summary.criteria_relabelled": pgettext_lazy(_CONTEXT, "Criteria given another ability"),
        "source": pgettext_lazy(_CONTEXT, "Flagged by"),
        "resolved": pgettext_lazy(_CONTEXT, "Resolved"),
    },
    choices={
        "kind": dict(CriterionRevision.Kind.choices),
        "status": dict(CriterionRevision.Status.choices),
        "verdict": dict(ReviewDecision.Verdict.choices),
    },
    formatters={"ability": lambda v: ability_display(str(v)), "weight": _signed},
)

# The reasons rubrics/services.py writes itself, each with the sentence it reads as.
_REASONS: list[tuple[re.Pattern[str], Callable[[dict[str, str]], str]]] = [
    (
        re.compile(r"^superseded by revision (?P<number>\d+)$"),
        lambda m: gettext("superseded by revision %(number)s") % m,
    ),
    (
        re.compile(r"^unanimous approval by (?P<n>\d+) reviewers$"),
        lambda m: gettext("unanimous approval by %(n)s reviewers") % m,
    ),
    (re.compile(r"^published in (?P<version>\S+)$"), lambda m: gettext("published in %(version)s") % m),
    (re.compile(r"^(?P<n>\d+) approved rubric revisions$"), lambda m: gettext("%(n)s approved rubric revisions") % m),
]


def reason_text(reason: str) -> str:
    """An entry's reason in the reader's language when the platform wrote it; a person's reason as written."""
    for pattern, sentence in _REASONS:
        match = pattern.match(reason or "")
        if match is not None:
            return sentence(match.groupdict())
    return reason
