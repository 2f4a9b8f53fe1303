"""Why a statistic is undefined, or a gate fails, in the reader's language.

The reasons are written once, as codes with templates, in `heartbench_core.lib.reasons`; each
template is its own message in the catalogue. Pages show a reason through `reason_text()`
(template filter `reason` in `hb`): a reason the statistics returned carries its code and values,
and a sentence a report stored before is read back into them by the same templates. A sentence no
template writes shows as it is.
"""

from __future__ import annotations

from collections.abc import Callable

from django.utils.functional import Promise
from django.utils.translation import gettext, gettext_lazy, pgettext_lazy

from heartbench_core.lib.reasons import TEMPLATES, parse
from heartbench_core.lib.taxonomy import ABILITY_BY_LABEL
from heartbench_core.taxonomy_display import ability_display, dimension_display

_LABEL_BY_ENGLISH = {a.name: label for label, a in ABILITY_BY_LABEL.items()}

# A report's parameters and their coded values, as a reason names them.
_PARAMETERS: dict[str, Promise] = {
    "threshold": pgettext_lazy("report parameter", "threshold"),
    "min_pairs_per_dimension": pgettext_lazy("report parameter", "minimum pairs per dimension"),
    "min_pairs_per_ability": pgettext_lazy("report parameter", "minimum pairs per ability"),
    "must_clear": pgettext_lazy("report parameter", "what must clear the threshold"),
    "resamples": pgettext_lazy("report parameter", "resamples"),
    "seed": pgettext_lazy("report parameter", "seed"),
}
_CODED_VALUES: dict[str, Promise] = {
    "point": pgettext_lazy("release policy: what must clear the threshold", "the point estimate"),
    "lower_bound": pgettext_lazy("release policy: what must clear the threshold", "the lower bound of the 95% CI"),
}
_UNITS: dict[str, Promise] = {
    "items": pgettext_lazy("resampled units", "items"),
    "responses": pgettext_lazy("resampled units", "responses"),
    "item": pgettext_lazy("resampled unit", "item"),
    "response": pgettext_lazy("resampled unit", "response"),
}
# The kinds of a report's risk alerts, named.
_ALERT_KINDS: dict[str, Promise] = {
    "expert_outlier": gettext_lazy("expert outlier"),
    "expert_drift": gettext_lazy("expert drifting"),
    "split_criterion": gettext_lazy("criterion the experts split on"),
    "low_alpha_criterion": gettext_lazy("criterion with low alpha"),
    "judge_model_disagreement": gettext_lazy("judge disagrees on a model"),
}


def _shown(table: dict[str, Promise]) -> Callable[[str], str]:
    return lambda value: str(table[value]) if value in table else value


# How a value a reason carries is shown: taxonomy names in the reader's language, reasons within reasons translated.
_VALUES: dict[str, Callable[[str], str]] = {
    "dimension": dimension_display,
    "ability": lambda label: ability_display(label) if label in ABILITY_BY_LABEL else label,
    "why": lambda why: reason_text(why),
    "rule": lambda rule: reason_text(rule),
    "ability_en": lambda name: ability_display(_LABEL_BY_ENGLISH[name]) if name in _LABEL_BY_ENGLISH else name,
    "parameter": _shown(_PARAMETERS),
    "value": _shown(_CODED_VALUES),
    "policy": _shown(_CODED_VALUES),
    "units": _shown(_UNITS),
    "unit": _shown(_UNITS),
}


def reason_text(reason: str | None) -> str:
    """A reason the statistics gave, in the reader's language (an unknown one as it is; None as empty)."""
    if not reason:
        return ""
    if reason in _ALERT_KINDS:
        return str(_ALERT_KINDS[reason])
    parsed = parse(reason)
    if parsed is None:
        return reason
    template = gettext(TEMPLATES[parsed.code].message)
    if not parsed.values:
        return template
    return template % {name: _VALUES.get(name, str)(value) for name, value in parsed.values.items()}
