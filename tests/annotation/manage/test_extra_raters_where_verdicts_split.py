"""Extra raters where the verdicts split: granted at the k-th verdict, within the budget, most split first, served by the usual matching."""

import pytest
from django.core.exceptions import ValidationError

from annotation.models import Assignment, CampaignSettings
from annotation.services.assignment import assign_next_response, bulk_assign
from annotation.services.split_extension import (
    after_submit,
    extend_split_responses,
    granted,
    response_split,
    set_split_extension,
)
from heartbench_core.models import StaffExposure

from .helpers import MODELS, demo_campaign
from .split_helpers import criteria_of, responses, split_campaign, split_verdicts, submit

pytestmark = pytest.mark.django_db


def _rate(experts, cr, split: int) -> None:
    """The first three experts submit verdicts split on `split` criteria of the response."""
    for expert, hits in zip(experts[:3], split_verdicts(len(criteria_of(cr)), split), strict=True):
        submit(expert, cr, hits)


def _pulls(expert, campaign, n=30) -> list[int]:
    """The responses the expert is served, pulling and submitting until nothing is left (at most n)."""
    got = []
    for _ in range(n):
        a = assign_next_response(expert=expert, campaign=campaign)
        if a is None:
            break
        got.append(a.campaign_response_id)
        submit(expert, a.campaign_response, assignment=a)
    return got


def test_the_kth_split_verdict_extends_the_response_by_two(cast):
    campaign, experts = split_campaign(cast)
    cr = responses(campaign)[0]
    n = len(criteria_of(cr))
    rows = split_verdicts(n, n)  # every criterion 2–1
    submit(experts[0], cr, rows[0])
    submit(experts[1], cr, rows[1])
    cr.refresh_from_db()
    assert cr.extra_raters == 0  # two verdicts: not yet k
    submit(experts[2], cr, rows[2])
    cr.refresh_from_db()
    assert cr.extra_raters == 2 and cr.extended_at is not None
    assert granted(campaign.pk) == 2


def test_unanimous_or_barely_split_responses_are_not_extended(cast):
    campaign, experts = split_campaign(cast, share=0.5)
    unanimous, barely = responses(campaign)[:2]
    _rate(experts, unanimous, 0)
    n = len(criteria_of(barely))
    _rate(experts, barely, n // 2 - 1 if n >= 4 else 0)  # below half of its criteria split
    for cr in (unanimous, barely):
        cr.refresh_from_db()
        assert cr.extra_raters == 0
    assert response_split(barely.pk, 3).share is not None and response_split(barely.pk, 3).share < 0.5


def test_option_off_changes_nothing(cast):
    campaign, experts = split_campaign(cast, on=False)
    cr = responses(campaign)[0]
    _rate(experts, cr, len(criteria_of(cr)))
    cr.refresh_from_db()
    assert cr.extra_raters == 0
    # The others are served every other response, never a fourth slot of this one.
    for expert in experts[3:]:
        assert cr.pk not in _pulls(expert, campaign)
    assert Assignment.objects.filter(campaign_response=cr).count() == 3


def test_the_budget_is_never_exceeded(cast):
    campaign, experts = split_campaign(cast, budget=3)  # room for one extension (two extra assignments), not two
    first, second = responses(campaign)[:2]
    _rate(experts, first, len(criteria_of(first)))
    _rate(experts, second, len(criteria_of(second)))
    first.refresh_from_db()
    second.refresh_from_db()
    assert (first.extra_raters, second.extra_raters) == (2, 0)
    assert granted(campaign.pk) == 2
    assert extend_split_responses(campaign=campaign).extended == 0  # the backlog pass keeps to the budget too


def test_the_backlog_pass_extends_the_most_split_first(cast):
    campaign, experts = split_campaign(cast, on=False)
    rated = responses(campaign)[:3]
    shares = []
    for cr, fraction in zip(rated, (0.6, 1.0, 0.8), strict=True):
        n = len(criteria_of(cr))
        split = max(1, round(fraction * n))
        _rate(experts, cr, split)
        shares.append(split / n)
    set_split_extension(campaign=campaign, by=cast.admin, enabled=True, budget=4, min_share=0.5)
    done = extend_split_responses(campaign=campaign)
    assert (done.candidates, done.extended, done.spent) == (3, 2, 4)
    extended = {cr.pk for cr in rated if type(cr).objects.get(pk=cr.pk).extra_raters}
    by_share = sorted(zip(shares, [cr.pk for cr in rated], strict=True), reverse=True)
    assert extended == {pk for _share, pk in by_share[:2]}, (shares, extended)


def test_no_response_is_extended_twice(cast):
    campaign, experts = split_campaign(cast, budget=10)
    cr = responses(campaign)[0]
    _rate(experts, cr, len(criteria_of(cr)))
    last = Assignment.objects.filter(campaign_response=cr).order_by("-submitted_at", "-pk").first()
    assert after_submit(assignment=last) is False
    assert extend_split_responses(campaign=campaign).extended == 0
    cr.refresh_from_db()
    assert cr.extra_raters == 2 and granted(campaign.pk) == 2


def test_the_extra_slots_go_to_two_new_experts_by_the_usual_matching(cast):
    campaign, experts = split_campaign(cast, extra_experts=4)  # 7 experts
    cr = responses(campaign)[0]
    _rate(experts, cr, len(criteria_of(cr)))
    # One of the others saw the response in a staff view: never served it blind.
    StaffExposure.objects.create(user=experts[3], response=cr.response)
    for expert in experts[:4]:
        assert cr.pk not in _pulls(expert, campaign)
    served = [e for e in experts[4:] if cr.pk in _pulls(e, campaign)]
    assert len(served) == 2
    holders = list(Assignment.objects.filter(campaign_response=cr).values_list("expert_id", flat=True))
    assert len(holders) == len(set(holders)) == 5


def test_pre_assignment_fills_the_extra_slots_too(cast):
    campaign, experts = split_campaign(cast)
    cr = responses(campaign)[0]
    _rate(experts, cr, len(criteria_of(cr)))
    bulk_assign(campaign=campaign)
    holders = list(Assignment.objects.filter(campaign_response=cr).values_list("expert_id", flat=True))
    assert len(holders) == len(set(holders)) == 5


def test_gold_checks_are_never_extended(cast):
    from annotation.models import CampaignResponse
    from tests.annotation.manage.helpers import gold_set
    from tests.factories import demo_responses, demo_version

    version = demo_version()
    demo_responses()
    pool = gold_set(version, picks=[("dm0005", "demo-model-aurora")])
    campaign, experts = split_campaign(cast, gold_source=pool, gold_rate=0.3, models=MODELS[1:])
    gold = CampaignResponse.objects.get(campaign=campaign, is_gold=True)
    _rate(experts, gold, len(criteria_of(gold)))
    gold.refresh_from_db()
    assert gold.extra_raters == 0


@pytest.mark.parametrize(
    ("enabled", "budget", "share", "field"),
    [
        (True, 0, 0.5, "split_extension_budget"),
        (True, 1, 0.5, "split_extension_budget"),
        (False, -2, 0.5, "split_extension_budget"),
        (True, 2**40, 0.5, "split_extension_budget"),
        (True, 4, 0.0, "split_extension_min_share"),
        (True, 4, 1.5, "split_extension_min_share"),
        (True, 4, float("nan"), "split_extension_min_share"),
    ],
)
def test_bad_settings_are_refused_by_name(cast, enabled, budget, share, field):
    with pytest.raises(ValidationError) as caught:
        demo_campaign(cast, split_extension=enabled, split_extension_budget=budget, split_extension_min_share=share)
    assert field in caught.value.message_dict


def test_the_budget_cannot_go_below_what_was_granted(cast):
    campaign, experts = split_campaign(cast, budget=4)
    cr = responses(campaign)[0]
    _rate(experts, cr, len(criteria_of(cr)))
    with pytest.raises(ValidationError) as caught:
        set_split_extension(campaign=campaign, by=cast.admin, enabled=True, budget=1, min_share=0.5)
    assert "split_extension_budget" in caught.value.message_dict
    cfg = CampaignSettings.objects.get(campaign=campaign)
    assert cfg.split_extension_budget == 4


def test_an_extended_response_comes_in_the_order_any_response_with_two_open_slots_would(cast):
    campaign, experts = split_campaign(cast, extra_experts=4)
    extended, one_left, two_left = responses(campaign)[:3]
    _rate(experts, extended, len(criteria_of(extended)))  # three verdicts in, five wanted: two slots open
    for expert in experts[3:5]:
        Assignment.objects.create(campaign_response=one_left, expert=expert)  # two held, one slot open
    Assignment.objects.create(campaign_response=two_left, expert=experts[3])  # one held, two slots open
    newcomer = experts[6]
    served = []
    for _ in range(3):
        a = assign_next_response(expert=newcomer, campaign=campaign)
        served.append(a.campaign_response_id)
        submit(newcomer, a.campaign_response, assignment=a)
    # Nearer completion first, counted in open slots: its three verdicts do not put the extended response ahead.
    assert served[0] == one_left.pk
    assert set(served[1:]) == {extended.pk, two_left.pk}
