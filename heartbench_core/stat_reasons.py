"""Why a statistic is undefined, or a gate fails, in the reader's language.

The statistics (heartbench_core/lib/agreement.py, agreement_report.py, rubric_quality.py) are
pure and say their reasons in English; stored reports keep those English words. Pages show them
through `reason_text()` (template filter `reason` in `hb`), which recognises each reason the
library writes and says it again through the catalogue with its values; a reason it does not
know shows as it is.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy, pgettext_lazy

from heartbench_core.lib.taxonomy import ABILITY_BY_LABEL
from heartbench_core.taxonomy_display import ability_display, dimension_display

_NO_PAIRS = r"no \(response, criterion\) pair has both a judge verdict and a golden label"

_REASONS: tuple[tuple[re.Pattern[str], Promise], ...] = tuple(
    (re.compile(pattern), template)
    for pattern, template in (
        (_NO_PAIRS, gettext_lazy("no (response, criterion) pair has both a judge verdict and a golden label")),
        (
            "no compared pairs: " + _NO_PAIRS,
            gettext_lazy("no compared pairs: no (response, criterion) pair has both a judge verdict and a golden label"),
        ),
        (
            "the agreement rate is undefined: " + _NO_PAIRS,
            gettext_lazy("the agreement rate is undefined: no (response, criterion) pair has both a judge verdict and a golden label"),
        ),
        ("no verdicts", gettext_lazy("no verdicts")),
        (
            "no unit has a golden label and a verdict of both judges",
            gettext_lazy("no unit has a golden label and a verdict of both judges"),
        ),
        (
            "both raters gave every unit the same value: chance agreement is 1, kappa is 0/0",
            gettext_lazy("both raters gave every unit the same value: chance agreement is 1, kappa is 0/0"),
        ),
        (
            r"no discordant pairs: judge and golden standard agree on all (?P<n>\d+) compared pairs",
            gettext_lazy("no discordant pairs: judge and golden standard agree on all %(n)s compared pairs"),
        ),
        ("no unit was rated by two or more experts", gettext_lazy("no unit was rated by two or more experts")),
        (
            r"every rating has the same value: expected disagreement is 0, so alpha is undefined \(0/0\)",
            gettext_lazy("every rating has the same value: expected disagreement is 0, so alpha is undefined (0/0)"),
        ),
        (
            "every rating has the same value: chance agreement is 1, kappa is 0/0",
            gettext_lazy("every rating has the same value: chance agreement is 1, kappa is 0/0"),
        ),
        (
            r"k = (?P<k>\d+): Fleiss' kappa needs at least 2 ratings per unit",
            gettext_lazy("k = %(k)s: Fleiss' kappa needs at least 2 ratings per unit"),
        ),
        (r"no unit has exactly (?P<k>\d+) ratings", gettext_lazy("no unit has exactly %(k)s ratings")),
        (
            "no unit has a judge verdict and two or more expert ratings",
            gettext_lazy("no unit has a judge verdict and two or more expert ratings"),
        ),
        (
            r"no unit has both a judge verdict and a majority label \((?P<rule>.*)\)",
            gettext_lazy("no unit has both a judge verdict and a majority label (%(rule)s)"),
        ),
        ("fewer than 2 models have both scores", gettext_lazy("fewer than 2 models have both scores")),
        ("no judge verdict to compare with the experts", gettext_lazy("no judge verdict to compare with the experts")),
        (
            r"no expert rated (?P<n>\d+) or more responses that the judge and another expert also rated",
            gettext_lazy("no expert rated %(n)s or more responses that the judge and another expert also rated"),
        ),
        (
            "one ranking gives every model the same score: tau is 0/0",
            gettext_lazy("one ranking gives every model the same score: tau is 0/0"),
        ),
        ("no judge verdicts on this revision yet", gettext_lazy("no judge verdicts on this revision yet")),
        (
            r"agreement rate (?P<rate>[\d.]+) is below the threshold (?P<threshold>[\d.]+)",
            gettext_lazy("agreement rate %(rate)s is below the threshold %(threshold)s"),
        ),
        (
            r"the lower bound (?P<low>[\d.]+) of the 95% CI \(agreement rate (?P<rate>[\d.]+)\) is below the threshold (?P<threshold>[\d.]+)",
            gettext_lazy("the lower bound %(low)s of the 95%% CI (agreement rate %(rate)s) is below the threshold %(threshold)s"),
        ),
        (
            r"the lower bound of the 95% CI is undefined \((?P<why>.*)\), and the policy requires it to clear the threshold",
            gettext_lazy("the lower bound of the 95%% CI is undefined (%(why)s), and the policy requires it to clear the threshold"),
        ),
        (
            r"dimension (?P<dimension>\w+) has (?P<pairs>\d+) compared pairs, fewer than (?P<minimum>\d+)",
            gettext_lazy("dimension %(dimension)s has %(pairs)s compared pairs, fewer than %(minimum)s"),
        ),
        (
            r"fewer than 2 (?P<units>items|responses): no interval by resampling (?P=units)",
            gettext_lazy("fewer than 2 %(units)s: no interval by resampling %(units)s"),
        ),
        (
            r"fewer than 2 (?P<units>items|responses) with pairs: no interval by resampling (?P=units)",
            gettext_lazy("fewer than 2 %(units)s with pairs: no interval by resampling %(units)s"),
        ),
        (
            "every item has the same mean difference: no spread between items to estimate an interval from",
            gettext_lazy("every item has the same mean difference: no spread between items to estimate an interval from"),
        ),
        ("no bootstrap resamples requested", gettext_lazy("no bootstrap resamples requested")),
        ("no units to resample", gettext_lazy("no units to resample")),
        ("no confidence interval was computed", gettext_lazy("no confidence interval was computed")),
        (
            "no interval per criterion: a criterion's pairs all belong to one item",
            gettext_lazy("no interval per criterion: a criterion's pairs all belong to one item"),
        ),
        (
            "judge and golden standard gave every pair the same value: kappa is 0/0",
            gettext_lazy("judge and golden standard gave every pair the same value: kappa is 0/0"),
        ),
        ("no unit rated by two or more experts", gettext_lazy("no unit rated by two or more experts")),
        ("every rating has the same value: alpha is 0/0", gettext_lazy("every rating has the same value: alpha is 0/0")),
        (
            "none of the expert's judgments is on a unit with a golden label",
            gettext_lazy("none of the expert's judgments is on a unit with a golden label"),
        ),
        (
            "fewer than 4 of the expert's judgments compared with the golden standard: no latest quarter",
            gettext_lazy("fewer than 4 of the expert's judgments compared with the golden standard: no latest quarter"),
        ),
        ("the expert shares no rated unit with another expert", gettext_lazy("the expert shares no rated unit with another expert")),
        (
            "no response has both a judge verdict and a golden label on every criterion",
            gettext_lazy("no response has both a judge verdict and a golden label on every criterion"),
        ),
        (
            "no judge verdicts exist for the models of this campaign",
            gettext_lazy("no judge verdicts exist for the models of this campaign"),
        ),
        (
            r"undefined in the stored report, which does not say why \(it was computed before reasons were stored\)",
            gettext_lazy("undefined in the stored report, which does not say why (it was computed before reasons were stored)"),
        ),
        # Why a human-calibrated score is undefined (heartbench_core.lib.calibrated_scores, validation.scoring_population).
        (
            "no response of this model to a sampled item has a golden label on every criterion",
            gettext_lazy("no response of this model to a sampled item has a golden label on every criterion"),
        ),
        (
            "fewer than 2 of this model's responses have a golden label on every criterion",
            gettext_lazy("fewer than 2 of this model's responses have a golden label on every criterion"),
        ),
        (
            "no item of this model was scored by the judge",
            gettext_lazy("no item of this model was scored by the judge"),
        ),
        (
            "no scored item holds this ability",
            gettext_lazy("no scored item holds this ability"),
        ),
        (
            "no ability of this dimension was scored",
            gettext_lazy("no ability of this dimension was scored"),
        ),
        (
            "an ability it averages is held by no labelled response of this model",
            gettext_lazy("an ability it averages is held by no labelled response of this model"),
        ),
        (
            "no resamples requested",
            gettext_lazy("no resamples requested"),
        ),
        (
            "no model of the campaign has judge scores on the campaign's version",
            gettext_lazy("no model of the campaign has judge scores on the campaign's version"),
        ),
        (
            "only a blind test samples the version's items for the experts",
            gettext_lazy("only a blind test samples the version's items for the experts"),
        ),
        (
            "the catastrophic criteria are left out of this report, and the benchmark's score counts them",
            gettext_lazy("the catastrophic criteria are left out of this report, and the benchmark's score counts them"),
        ),
        (
            "the judge's runs score another version than the campaign's",
            gettext_lazy("the judge's runs score another version than the campaign's"),
        ),
        (
            "no official agreement report of this judge on this version has human-calibrated scores yet",
            gettext_lazy("no official agreement report of this judge on this version has human-calibrated scores yet"),
        ),
        (
            "the report compared no response of this model from this run",
            gettext_lazy("the report compared no response of this model from this run"),
        ),
        (
            "the calibrated scores are computed on all questions under the paper's catastrophic rule",
            gettext_lazy("the calibrated scores are computed on all questions under the paper's catastrophic rule"),
        ),
        (
            "the calibrated scores correct a judge's scores, and this source is not a judge",
            gettext_lazy("the calibrated scores correct a judge's scores, and this source is not a judge"),
        ),
        # Why a report is exploratory (validation.services.agreement_reports.apply_release_policy).
        (
            r"(?P<parameter>\w+) (?P<value>\S+) instead of the release policy's (?P<policy>\S+)",
            gettext_lazy("%(parameter)s is %(value)s (the release policy says %(policy)s)"),
        ),
        (
            r"(?P<parameter>resamples|seed) (?P<value>\S+) instead of the default (?P<default>\S+)",
            gettext_lazy("%(parameter)s is %(value)s (the default is %(default)s)"),
        ),
        ("the catastrophic criteria are left out", gettext_lazy("the catastrophic criteria are left out")),
        ("post-discussion verdicts replace the blind ones", gettext_lazy("post-discussion verdicts replace the blind ones")),
        # The risk alerts of an agreement report (their kinds, then their messages).
        ("expert_outlier", gettext_lazy("expert outlier")),
        ("expert_drift", gettext_lazy("expert drifting")),
        ("split_criterion", gettext_lazy("criterion the experts split on")),
        ("low_alpha_criterion", gettext_lazy("criterion with low alpha")),
        ("judge_model_disagreement", gettext_lazy("judge disagrees on a model")),
        (
            r"(?P<expert>.+) agrees with the golden standard (?P<gold>\d+%) of (?P<pairs>\d+) times, against a median of (?P<median>\d+%) among experts",
            gettext_lazy(
                "%(expert)s agrees with the golden standard %(gold)s of %(pairs)s times, against a median of %(median)s among experts"
            ),
        ),
        (
            r"(?P<expert>.+) is drifting: (?P<recent>\d+%) agreement with the golden standard on the latest (?P<pairs>\d+) judgments, "
            r"against (?P<gold>\d+%) overall",
            gettext_lazy(
                "%(expert)s is drifting: %(recent)s agreement with the golden standard on the latest %(pairs)s judgments, against %(gold)s overall"
            ),
        ),
        (
            r"criterion (?P<label>.+) \((?P<ability_en>[^)]+)\): alpha (?P<alpha>[-\d.]+) over (?P<n>\d+) responses",
            gettext_lazy("criterion %(label)s (%(ability_en)s): alpha %(alpha)s over %(n)s responses"),
        ),
        (
            r"criterion (?P<label>.+) \((?P<ability_en>[^)]+)\): the experts split on (?P<split>\d+) of (?P<n>\d+) responses, "
            r"against (?P<rate>\d+%) of the other criteria's (?P<others>\d+) \(p = (?P<p>[\d.]+)\)",
            gettext_lazy(
                "criterion %(label)s (%(ability_en)s): the experts split on %(split)s of %(n)s responses, "
                "against %(rate)s of the other criteria's %(others)s (p = %(p)s)"
            ),
        ),
        (
            r"… and (?P<n>\d+) more criteria the experts split on more often than on the others",
            gettext_lazy("… and %(n)s more criteria the experts split on more often than on the others"),
        ),
        (
            r"… and (?P<n>\d+) more criteria with alpha below (?P<alpha>[\d.]+)",
            gettext_lazy("… and %(n)s more criteria with alpha below %(alpha)s"),
        ),
        (
            r"the judge agrees with the experts on (?P<model>.+) only (?P<rate>\d+%) of (?P<pairs>\d+) pairs on (?P<items>\d+) items "
            r"\(95% CI up to (?P<high>\d+%), resampling the items\), below (?P<overall>\d+%) overall",
            gettext_lazy(
                "the judge agrees with the experts on %(model)s only %(rate)s of %(pairs)s pairs on %(items)s items "
                "(95%% CI up to %(high)s, resampling the items), below %(overall)s overall"
            ),
        ),
        (
            r"the judge agrees with the experts on (?P<model>.+) only (?P<rate>\d+%) of (?P<pairs>\d+) pairs on (?P<items>\d+) items "
            r"\(95% CI over the items up to (?P<high>\d+%)\), below (?P<overall>\d+%) overall",
            gettext_lazy(
                "the judge agrees with the experts on %(model)s only %(rate)s of %(pairs)s pairs on %(items)s items "
                "(95%% CI over the items up to %(high)s), below %(overall)s overall"
            ),
        ),
        (
            r"the judge agrees with the experts on (?P<model>.+) only (?P<rate>\d+%) of (?P<pairs>\d+) pairs on (?P<items>\d+) items "
            r"\(95% CI over the items and the (?P<experts>\d+) experts up to (?P<high>\d+%)\), below (?P<overall>\d+%) overall",
            gettext_lazy(
                "the judge agrees with the experts on %(model)s only %(rate)s of %(pairs)s pairs on %(items)s items "
                "(95%% CI over the items and the %(experts)s experts up to %(high)s), below %(overall)s overall"
            ),
        ),
        # The majority rule's description, which a reason may carry (`rule` below).
        (
            r"at least (?P<n>\d+) expert ratings, more than half of them agreeing",
            gettext_lazy("at least %(n)s expert ratings, more than half of them agreeing"),
        ),
        (
            r"at least k expert ratings \(k: the overlap of the unit's campaign\), more than half of them agreeing",
            gettext_lazy("at least k expert ratings (k: the overlap of the unit's campaign), more than half of them agreeing"),
        ),
        (
            r"ability [^(]+ \((?P<ability>[^)]+)\) has (?P<pairs>\d+) compared pairs, fewer than (?P<minimum>\d+)",
            gettext_lazy("ability %(ability)s has %(pairs)s compared pairs, fewer than %(minimum)s"),
        ),
    )
)

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
}


def reason_text(reason: str | None) -> str:
    """A reason the statistics gave, in the reader's language (an unknown one as it is; None as empty)."""
    if not reason:
        return ""
    for pattern, template in _REASONS:
        match = pattern.fullmatch(reason)
        if match:
            values = {key: _VALUES.get(key, str)(value) for key, value in match.groupdict().items()}
            return str(template) % values if values else str(template)
    return reason
