"""Why a statistic is undefined, a gate fails, a report is exploratory or an alert was raised: one table.

Each reason is written once, here, as a code and a %-style template. The template is also the
reason's message in the translation catalogue (marked below for the extractor), so a page shows
it in the reader's language with its values (`heartbench_core.stat_reasons.reason_text`). The
statistics return a `Reason`: a `str` holding the English sentence, which is what reports store and
the API shows, that also carries its code and values. A report stored before carries only the
sentence; `parse` reads the code and values back from it by the same templates, so no second
description of a reason exists anywhere.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


def gettext_noop(message: str) -> str:
    """Mark `message` for the translation catalogue (this module is Django-free; pages translate it)."""
    return message


@dataclass(frozen=True)
class Template:
    message: str  # what a page shows, translated: the catalogue's msgid
    english: str | None = None  # the sentence reports store, where it says more than the message


TEMPLATES: dict[str, Template] = {
    # Agreement statistics (heartbench_core.lib.agreement).
    "no_pairs": Template(gettext_noop("no (response, criterion) pair has both a judge verdict and a golden label")),
    "no_compared_pairs": Template(
        gettext_noop("no compared pairs: no (response, criterion) pair has both a judge verdict and a golden label")
    ),
    "no_agreement_rate": Template(
        gettext_noop("the agreement rate is undefined: no (response, criterion) pair has both a judge verdict and a golden label")
    ),
    "no_verdicts": Template(gettext_noop("no verdicts")),
    "no_common_pairs": Template(gettext_noop("no unit has a golden label and a verdict of both judges")),
    "kappa_constant_raters": Template(gettext_noop("both raters gave every unit the same value: chance agreement is 1, kappa is 0/0")),
    "no_discordant_pairs": Template(gettext_noop("no discordant pairs: judge and golden standard agree on all %(n)s compared pairs")),
    "no_unit_rated_twice": Template(gettext_noop("no unit was rated by two or more experts")),
    "alpha_constant": Template(gettext_noop("every rating has the same value: expected disagreement is 0, so alpha is undefined (0/0)")),
    "fleiss_constant": Template(gettext_noop("every rating has the same value: chance agreement is 1, kappa is 0/0")),
    "fleiss_too_few_ratings": Template(gettext_noop("k = %(k)s: Fleiss' kappa needs at least 2 ratings per unit")),
    "no_unit_with_k": Template(gettext_noop("no unit has exactly %(k)s ratings")),
    "no_majority_pairs": Template(gettext_noop("no unit has both a judge verdict and a majority label (%(rule)s)")),
    "too_few_models": Template(gettext_noop("fewer than 2 models have both scores")),
    "tau_constant": Template(gettext_noop("one ranking gives every model the same score: tau is 0/0")),
    "too_few_units": Template(gettext_noop("fewer than 2 %(units)s: no interval by resampling %(units)s")),
    "too_few_units_with_pairs": Template(gettext_noop("fewer than 2 %(units)s with pairs: no interval by resampling %(units)s")),
    "no_spread": Template(
        gettext_noop("every %(unit)s has the same mean difference: no spread between %(units)s to estimate an interval from")
    ),
    "no_units_to_resample": Template(gettext_noop("no units to resample")),
    "majority_rule": Template(gettext_noop("at least %(n)s expert ratings, more than half of them agreeing")),
    "majority_rule_overlap": Template(
        gettext_noop("at least k expert ratings (k: the overlap of the unit's campaign), more than half of them agreeing")
    ),
    # The alternative annotator test (heartbench_core.lib.alt_test).
    "no_judge_verdict": Template(gettext_noop("no judge verdict to compare with the experts")),
    "no_overlap": Template(gettext_noop("no unit has a judge verdict and two or more expert ratings")),
    "too_few_responses": Template(gettext_noop("no expert rated %(n)s or more responses that the judge and another expert also rated")),
    # A rubric revision's quality signals (heartbench_core.lib.rubric_quality).
    "no_revision_verdicts": Template(gettext_noop("no judge verdicts on this revision yet")),
    # The agreement report's parts (heartbench_core.lib.agreement_report).
    "no_bootstrap_resamples": Template(gettext_noop("no bootstrap resamples requested")),
    "no_interval": Template(gettext_noop("no confidence interval was computed")),
    "no_criterion_interval": Template(gettext_noop("no interval per criterion: a criterion's pairs all belong to one item")),
    "kappa_constant_pairs": Template(gettext_noop("judge and golden standard gave every pair the same value: kappa is 0/0")),
    "no_alpha_units": Template(gettext_noop("no unit rated by two or more experts")),
    "alpha_constant_ratings": Template(gettext_noop("every rating has the same value: alpha is 0/0")),
    "no_gold_pairs": Template(gettext_noop("none of the expert's judgments is on a unit with a golden label")),
    "no_recent_quarter": Template(
        gettext_noop("fewer than 4 of the expert's judgments compared with the golden standard: no latest quarter")
    ),
    "no_shared_units": Template(gettext_noop("the expert shares no rated unit with another expert")),
    "no_fully_labelled": Template(gettext_noop("no response has both a judge verdict and a golden label on every criterion")),
    "no_judge_runs": Template(gettext_noop("no judge verdicts exist for the models of this campaign")),
    "not_recorded": Template(
        gettext_noop("undefined in the stored report, which does not say why (it was computed before reasons were stored)")
    ),
    # The release gate.
    "gate_rate_below": Template(gettext_noop("agreement rate %(rate)s is below the threshold %(threshold)s")),
    "gate_low_below": Template(
        gettext_noop("the lower bound %(low)s of the 95%% CI (agreement rate %(rate)s) is below the threshold %(threshold)s")
    ),
    "gate_low_undefined": Template(
        gettext_noop("the lower bound of the 95%% CI is undefined (%(why)s), and the policy requires it to clear the threshold")
    ),
    "gate_dimension_pairs": Template(gettext_noop("dimension %(dimension)s has %(pairs)s compared pairs, fewer than %(minimum)s")),
    "gate_ability_pairs": Template(
        gettext_noop("ability %(ability)s has %(pairs)s compared pairs, fewer than %(minimum)s"),
        english="ability %(ability_en)s (%(ability)s) has %(pairs)s compared pairs, fewer than %(minimum)s",
    ),
    # Human-calibrated scores (heartbench_core.lib.calibrated_scores, validation.scoring_population, the leaderboard).
    "no_labelled": Template(gettext_noop("no response of this model to a sampled item has a golden label on every criterion")),
    "too_few_labelled": Template(gettext_noop("fewer than 2 of this model's responses have a golden label on every criterion")),
    "no_scored": Template(gettext_noop("no item of this model was scored by the judge")),
    "no_ability": Template(gettext_noop("no scored item holds this ability")),
    "no_dimension_ability": Template(gettext_noop("no ability of this dimension was scored")),
    "no_labelled_ability": Template(gettext_noop("an ability it averages is held by no labelled response of this model")),
    "no_draws": Template(gettext_noop("no resamples requested")),
    "no_population_model": Template(gettext_noop("no model of the campaign has judge scores on the campaign's version")),
    "not_a_blind_test": Template(gettext_noop("only a blind test samples the version's items for the experts")),
    "catastrophic_left_out": Template(
        gettext_noop("the catastrophic criteria are left out of this report, and the benchmark's score counts them")
    ),
    "other_version": Template(gettext_noop("the judge's runs score another version than the campaign's")),
    "no_calibrated_report": Template(
        gettext_noop("no official agreement report of this judge on this version has human-calibrated scores yet")
    ),
    "not_in_report": Template(gettext_noop("the report compared no response of this model from this run")),
    "only_all_paper": Template(gettext_noop("the calibrated scores are computed on all questions under the paper's catastrophic rule")),
    "not_a_judge": Template(gettext_noop("the calibrated scores correct a judge's scores, and this source is not a judge")),
    # Why a report is exploratory (validation.services.agreement_reports).
    "off_policy": Template(
        gettext_noop("%(parameter)s is %(value)s (the release policy says %(policy)s)"),
        english="%(parameter)s %(value)s instead of the release policy's %(policy)s",
    ),
    "off_default": Template(
        gettext_noop("%(parameter)s is %(value)s (the default is %(default)s)"),
        english="%(parameter)s %(value)s instead of the default %(default)s",
    ),
    "catastrophic_excluded": Template(gettext_noop("the catastrophic criteria are left out")),
    "post_discussion": Template(gettext_noop("post-discussion verdicts replace the blind ones")),
    # The risk alerts of an agreement report.
    "expert_outlier": Template(
        gettext_noop("%(expert)s agrees with the golden standard %(gold)s of %(pairs)s times, against a median of %(median)s among experts")
    ),
    "expert_drift": Template(
        gettext_noop(
            "%(expert)s is drifting: %(recent)s agreement with the golden standard on the latest %(pairs)s judgments, against %(gold)s overall"
        )
    ),
    "split_criterion": Template(
        gettext_noop(
            "criterion %(label)s (%(ability_en)s): the experts split on %(split)s of %(n)s responses, "
            "against %(rate)s of the other criteria's %(others)s (p = %(p)s)"
        )
    ),
    "more_split_criteria": Template(gettext_noop("… and %(n)s more criteria the experts split on more often than on the others")),
    "judge_model_disagreement": Template(
        gettext_noop(
            "the judge agrees with the experts on %(model)s only %(rate)s of %(pairs)s pairs on %(items)s items "
            "(95%% CI over the items up to %(high)s), below %(overall)s overall"
        )
    ),
    "judge_model_disagreement_experts": Template(
        gettext_noop(
            "the judge agrees with the experts on %(model)s only %(rate)s of %(pairs)s pairs on %(items)s items "
            "(95%% CI over the items and the %(experts)s experts up to %(high)s), below %(overall)s overall"
        )
    ),
    # Stored only: reports of earlier versions said these.
    "low_alpha_criterion": Template(gettext_noop("criterion %(label)s (%(ability_en)s): alpha %(alpha)s over %(n)s responses")),
    "more_low_alpha_criteria": Template(gettext_noop("… and %(n)s more criteria with alpha below %(alpha)s")),
    "judge_model_disagreement_resampling": Template(
        gettext_noop(
            "the judge agrees with the experts on %(model)s only %(rate)s of %(pairs)s pairs on %(items)s items "
            "(95%% CI up to %(high)s, resampling the items), below %(overall)s overall"
        )
    ),
}


class Reason(str):
    """The English sentence of reason `code` with its values; a `str`, so it is stored and shown as the sentence.

    Values are kept as the strings the sentence shows (a rate already formatted as the sentence
    writes it), so a reason read back from a stored sentence carries the same values.
    """

    code: str
    values: Mapping[str, str]

    def __new__(cls, code: str, **values: Any) -> Reason:
        template = TEMPLATES[code]
        shown = {name: str(value) for name, value in values.items()}
        self = super().__new__(cls, (template.english or template.message) % shown)
        self.code = code
        self.values = shown
        return self

    def __reduce__(self) -> tuple[Any, ...]:  # copies and pickles rebuild it from its code, not from the sentence
        return (_rebuilt, (self.code, dict(self.values)))


def _rebuilt(code: str, values: dict[str, str]) -> Reason:
    return Reason(code, **values)


_FIELD = re.compile(r"%\((\w+)\)s")


def _pattern(template: str) -> re.Pattern[str]:
    """The regular expression a template's sentence matches, each value a named group (a repeated one a back-reference)."""
    out, seen, at = [], set(), 0
    for field in _FIELD.finditer(template):
        out.append(re.escape(template[at : field.start()].replace("%%", "%")))
        name = field.group(1)
        out.append(f"(?P={name})" if name in seen else f"(?P<{name}>.+?)")
        seen.add(name)
        at = field.end()
    out.append(re.escape(template[at:].replace("%%", "%")))
    return re.compile("".join(out), re.DOTALL)


_PATTERNS = tuple((code, _pattern(t.english or t.message)) for code, t in TEMPLATES.items())


def parse(sentence: str) -> Reason | None:
    """The reason a stored English sentence says, with its values; None for a sentence no template writes."""
    if isinstance(sentence, Reason):
        return sentence
    for code, pattern in _PATTERNS:
        match = pattern.fullmatch(sentence)
        if match:
            return Reason(code, **match.groupdict())
    return None
