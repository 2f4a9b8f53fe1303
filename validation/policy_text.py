"""A release policy's fields as people read them: the history's changes as sentences, errors under the field's name."""

from __future__ import annotations

from django.utils.translation import pgettext_lazy

from heartbench_core.change_sentences import ChangeSentence, Vocabulary, change_sentences, field_label
from validation.models import ReleasePolicy, ReleasePolicyChange

_CONTEXT = "a field of the release policy"
POLICY_VOCABULARY = Vocabulary(
    labels={
        "threshold": pgettext_lazy(_CONTEXT, "Threshold"),
        "must_clear": pgettext_lazy(_CONTEXT, "Must clear the threshold"),
        "min_pairs_per_dimension": pgettext_lazy(_CONTEXT, "Minimum compared pairs per dimension"),
        "min_pairs_per_ability": pgettext_lazy(_CONTEXT, "Minimum compared pairs per ability"),
    },
    choices={"must_clear": dict(ReleasePolicy.Clears.choices)},
)


def policy_change_sentences(change: ReleasePolicyChange) -> list[ChangeSentence]:
    """One audited change of a release policy, field by field, as sentences in the reader's language."""
    return change_sentences(change.before, change.after, POLICY_VOCABULARY)


def policy_field_label(name: str) -> str:
    """A policy field's label, for an error shown under it ("__all__" and unknown names as they are)."""
    return field_label(name, POLICY_VOCABULARY)
