"""A release policy's fields as people read them (heartbench_core.change_sentences): the history's changes as sentences, errors under the field's name."""

from __future__ import annotations

from django.utils.translation import pgettext_lazy

from heartbench_core.change_sentences import Vocabulary
from validation.models import ReleasePolicy

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
