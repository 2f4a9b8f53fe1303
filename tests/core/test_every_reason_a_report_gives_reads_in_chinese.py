"""Every reason an agreement report can carry — why a figure or an interval is undefined, why the gate
failed, why the report is exploratory — reads in Chinese on a Chinese page.

Reports store their reasons in English (the API serves them so); pages say them again through
`heartbench_core.stat_reasons.reason_text`. The reasons are collected from reports computed on
degenerate campaigns (no judge, one item, a single rater, every rating alike, nothing complete)
rather than listed by hand, so a reason added to the statistics later fails here until the
catalogue knows it.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from django.utils import translation

from heartbench_core.leaderboard import calibrated as calibrated_board
from heartbench_core.lib import agreement_report as ar
from heartbench_core.lib import calibrated_scores as cal
from heartbench_core.lib.agreement_report import GatePolicy, compute_report
from heartbench_core.stat_reasons import reason_text
from tests.lib.test_agreement_report import Arrays
from validation import scoring_population as population
from validation.models import ReleasePolicy
from validation.services.agreement_reports import apply_release_policy

_CJK = re.compile(r"[\u4e00-\u9fff]")


def _reasons(value: Any, name: str = "") -> Iterator[str]:
    """Every reason string in a typed report: fields named reason/reasons/…_reason(s), the undefined map, alert messages."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            yield from _reasons(getattr(value, f.name), f.name)
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _reasons(item, name if name == "undefined" else str(key))
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _reasons(item, name)
    elif isinstance(value, str) and value and (name in ("undefined", "message", "kind") or "reason" in name):
        yield value


def _variants() -> dict[str, Arrays]:
    plain = Arrays()
    no_judge = Arrays(u_judge=np.full(3, -1, np.int8))
    one_rater = Arrays(j_unit=np.array([0, 1, 2]), j_expert=np.array([0, 0, 0]), j_hit=np.array([1, 0, 1], bool), j_time=np.full(3, 1.7e9))
    alike = Arrays(j_hit=np.ones(8, bool), u_judge=np.ones(3, np.int8))
    nothing_complete = Arrays(k=4)
    one_item = Arrays(u_cr=np.array([0, 0, 0]), cr_item=np.array([0, 0]), crit_item=np.array([0, 0, 0]))
    return {
        "plain": plain,
        "no judge": no_judge,
        "one rater": one_rater,
        "alike": alike,
        "nothing complete": nothing_complete,
        "one item": one_item,
    }


def collected_reasons() -> set[str]:
    found: set[str] = set()
    strict = GatePolicy(threshold=0.99, min_pairs_per_dimension=50, min_pairs_per_ability=20, must_clear="lower_bound")
    for arrays in _variants().values():
        for resamples in (0, 50):
            report = compute_report(arrays, resamples=resamples, gate_policy=strict)
            found.update(_reasons(report))
            found.update(_reasons(compute_report(arrays, resamples=resamples)))
    # The constants a stored report or a reader of one may give, and why a report is exploratory.
    found.update(v for k, v in vars(ar).items() if k.startswith("NO_") and isinstance(v, str))
    found.add(ar.NOT_RECORDED)
    policy = ReleasePolicy(threshold=0.75, min_pairs_per_dimension=30, min_pairs_per_ability=10, must_clear="point")
    params = {
        "resamples": 20,
        "seed": 3,
        "threshold": 0.8,
        "min_pairs_per_dimension": 10,
        "min_pairs_per_ability": 5,
        "must_clear": "lower_bound",
        "exclude_catastrophic": True,
        "post_discussion": True,
    }
    found.update(apply_release_policy(params, policy)[1])
    found.add("no judge verdicts exist for the models of this campaign")
    # Why a human-calibrated score is undefined: the estimator's, the report's population's and the leaderboard's.
    for module in (cal, population, calibrated_board):
        found.update(
            v
            for k, v in vars(module).items()
            if k.startswith(("NO_", "TOO_FEW_", "NOT_", "OTHER_", "ONLY_", "CATASTROPHIC_")) and isinstance(v, str) and " " in v
        )
    return found


def test_the_degenerate_campaigns_give_a_wide_range_of_reasons():
    reasons = collected_reasons()
    assert len(reasons) >= 25, sorted(reasons)
    assert any("resampling items" in r for r in reasons) and any("instead of the default" in r for r in reasons)


@pytest.mark.parametrize("reason", sorted(collected_reasons()))
def test_each_reads_in_chinese_and_keeps_its_values_in_english(reason):
    with translation.override("zh-hans"):
        shown = reason_text(reason)
    assert _CJK.search(shown) and not re.search(r"[A-Za-z]{4,}", re.sub(r"Krippendorff|Fleiss|Cohen|Kendall|McNemar|Gwet", "", shown)), (
        f"{reason!r} reads {shown!r} in Chinese"
    )
    with translation.override("en"):
        shown = reason_text(reason)
    number = re.compile(r"\d+(?:\.\d+)?")
    assert all(value in number.findall(shown) for value in number.findall(reason)), f"a value was lost in English: {shown!r}"
