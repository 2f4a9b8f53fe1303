"""Why a statistic is undefined, or a gate fails: the library's English reasons reach pages through the catalogue."""

import copy
import pickle
import re

import numpy as np
import pytest
from django.template import Context, Template
from django.utils import translation

from heartbench_core.lib import agreement as st
from heartbench_core.lib.reasons import TEMPLATES, Reason, parse
from heartbench_core.lib.rubric_quality import hit_rate
from heartbench_core.stat_reasons import reason_text

# Reasons as the library writes them (the ones with values, with values filled in).
WRITTEN = [
    st.NO_PAIRS,
    "no compared pairs: " + st.NO_PAIRS,
    "the agreement rate is undefined: " + st.NO_PAIRS,
    "no discordant pairs: judge and golden standard agree on all 12 compared pairs",
    "no unit was rated by two or more experts",
    "every rating has the same value: expected disagreement is 0, so alpha is undefined (0/0)",
    "every rating has the same value: chance agreement is 1, kappa is 0/0",
    "k = 1: Fleiss' kappa needs at least 2 ratings per unit",
    "no unit has exactly 3 ratings",
    "no unit has a judge verdict and two or more expert ratings",
    "no unit has both a judge verdict and a majority label (at least 2 ratings, more than half of them agreeing)",
    "fewer than 2 models have both scores",
    "one ranking gives every model the same score: tau is 0/0",
    "agreement rate 0.612 is below the threshold 0.75",
    "the lower bound 0.701 of the 95% CI (agreement rate 0.780) is below the threshold 0.75",
    "the lower bound of the 95% CI is undefined (no unit was rated by two or more experts), and the policy requires it to clear the threshold",
    "dimension Emotion has 3 compared pairs, fewer than 30",
    "ability Warmth (温暖) has 3 compared pairs, fewer than 10",
]


def test_every_reason_the_library_writes_is_known():
    unknown = [r for r in WRITTEN if parse(r) is None]
    assert not unknown


def test_reasons_the_library_computes_are_among_them():
    computed = [
        st.krippendorff_alpha_nominal(np.array([0, 1]), np.array([1, 1])).reason,
        st.krippendorff_alpha_nominal(np.array([2, 2]), np.array([2, 2])).reason,
        hit_rate([]).reason,
    ]
    assert all(computed)
    for reason in computed:
        assert isinstance(reason, Reason) and parse(str(reason)) == reason, reason


def test_in_english_a_reason_reads_as_written_with_the_ability_shown_as_on_pages():
    with translation.override("en"):
        for written in WRITTEN[:-1]:
            assert reason_text(written) == written
        assert reason_text(WRITTEN[-1]) == "ability 温暖 · Warmth has 3 compared pairs, fewer than 10"
        assert reason_text("something new") == "something new"
        assert reason_text(None) == ""


def test_in_chinese_the_values_stay_and_the_taxonomy_is_chinese():
    with translation.override("zh-hans"):
        assert "温暖" in reason_text(WRITTEN[-1]) and "Warmth" not in reason_text(WRITTEN[-1])
        assert "0.612" in reason_text("agreement rate 0.612 is below the threshold 0.75")


def test_the_template_filter_uses_the_same_helper():
    with translation.override("en"):
        assert Template("{% load hb %}{{ r|reason }}").render(Context({"r": st.NO_PAIRS})) == st.NO_PAIRS


def _sample_values(code: str) -> dict[str, str]:
    template = TEMPLATES[code].english or TEMPLATES[code].message
    return {name: f"v{i}x" for i, name in enumerate(dict.fromkeys(re.findall(r"%\((\w+)\)s", template)))}


@pytest.mark.parametrize("code", sorted(TEMPLATES))
def test_a_stored_sentence_reads_back_as_its_code_and_values(code):
    written = Reason(code, **_sample_values(code))
    read = parse(str(written))  # what a stored report gives back: a plain string
    assert read is not None and (read.code, dict(read.values)) == (code, _sample_values(code))


@pytest.mark.parametrize("code", sorted(TEMPLATES))
def test_every_reason_reads_in_chinese(code):
    written = Reason(code, **_sample_values(code))
    with translation.override("zh-hans"):
        shown = reason_text(written)
    assert re.search(r"[\u4e00-\u9fff]", shown), (code, shown)
    assert all(value in shown for value in _sample_values(code).values() if code != "gate_ability_pairs"), (code, shown)


def test_a_reason_survives_copies_and_pickles_with_its_code():
    reason = Reason("gate_rate_below", rate="0.612", threshold="0.75")
    for copied in (copy.deepcopy(reason), pickle.loads(pickle.dumps(reason))):
        assert copied == reason and copied.code == "gate_rate_below" and copied.values == reason.values
