"""Pay follows the quality policy: work submitted while paused is paid in full, not paid, or held until an admin decides per expert."""

from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse
from django.utils import timezone

from annotation.models import Assignment, CampaignResponse, PayDecision, QualityPolicy
from annotation.services.payments import decide_held_pay, payment_lines

from .helpers import demo_campaign

pytestmark = pytest.mark.django_db

API = "/api/v1/annotation"


@pytest.fixture
def worked(cast):
    """erin submitted 5 responses at 2.00, 2 of them while paused; the second expert 1, none while paused."""
    campaign = demo_campaign(cast, piece_rate=Decimal("2"))
    responses = list(CampaignResponse.objects.filter(campaign=campaign).order_by("order_key")[:5])
    now = timezone.now()
    Assignment.objects.bulk_create(
        [
            Assignment(campaign_response=cr, expert=cast.expert, status="submitted", submitted_at=now, submitted_while_paused=i >= 3)
            for i, cr in enumerate(responses)
        ]
        + [Assignment(campaign_response=responses[0], expert=cast.experts[1], status="submitted", submitted_at=now)]
    )
    return campaign


def set_policy(value: str) -> QualityPolicy:
    policy = QualityPolicy.current()
    policy.paused_work_pay = value
    policy.save()
    return policy


def line_of(campaign, user):
    return next(p for p in payment_lines(campaign) if p.username == user.username)


@pytest.mark.parametrize(
    "policy, paid, held, withheld",
    [("full", 5, 0, 0), ("none", 3, 0, 2), ("review", 3, 2, 0)],
)
def test_each_policy_splits_the_submitted_work(worked, cast, policy, paid, held, withheld):
    set_policy(policy)
    line = line_of(worked, cast.expert)
    assert (line.submitted, line.while_paused, line.paid, line.held, line.withheld) == (5, 2, paid, held, withheld)
    assert line.amount == Decimal(paid * 2).quantize(Decimal("0.01"))
    other = line_of(worked, cast.experts[1])
    assert (other.paid, other.held, other.withheld) == (1, 0, 0)


def test_under_review_an_admin_decides_and_can_change_the_decision(worked, cast):
    set_policy("review")
    decide_held_pay(campaign=worked, expert=cast.expert, pay=True, by=cast.admin)
    assert (line_of(worked, cast.expert).paid, line_of(worked, cast.expert).amount) == (5, Decimal("10.00"))
    with pytest.raises(ValidationError) as exc:
        decide_held_pay(campaign=worked, expert=cast.expert, pay=False, note="", by=cast.admin)
    assert "note" in exc.value.message_dict
    decide_held_pay(campaign=worked, expert=cast.expert, pay=False, note="Submitted after being told to stop", by=cast.admin)
    line = line_of(worked, cast.expert)
    assert (line.paid, line.held, line.withheld, line.amount) == (3, 0, 2, Decimal("6.00"))
    assert PayDecision.objects.get().decided_by == cast.admin
    with pytest.raises(ValidationError) as exc:
        decide_held_pay(campaign=worked, expert=cast.experts[1], pay=True, by=cast.admin)
    assert "expert" in exc.value.message_dict


def test_the_page_shows_every_figure_and_takes_the_decision(worked, cast, client_for):
    set_policy("review")
    c = client_for(cast.admin)
    url = reverse("annotation:campaign_payments_page", args=[worked.pk])
    html = c.get(url).content.decode()
    assert "Held for an admin&#x27;s decision" in html or "Held for an admin's decision" in html
    assert "Of which while paused" in html and 'id="payments"' in html
    c.post(reverse("annotation:pay_decision", args=[worked.pk, cast.expert.username]), {"pay": "no", "note": "late"})
    assert not PayDecision.objects.get().pay
    assert "late" in c.get(url).content.decode()
    # A refusal without a note is refused, with the field named.
    r = c.post(reverse("annotation:pay_decision", args=[worked.pk, cast.expert.username]), {"pay": "no"}, follow=True)
    assert "note" in r.content.decode()


def test_the_csv_and_the_api_carry_the_same_figures(worked, cast, client_for):
    set_policy("none")
    c = client_for(cast.admin)
    lines = c.get(reverse("annotation:campaign_payments", args=[worked.pk])).content.decode().strip().splitlines()
    assert lines[0].split(",")[3:8] == [
        "submitted_responses",
        "submitted_while_paused",
        "paid_responses",
        "held_responses",
        "withheld_responses",
    ]
    assert lines[1].startswith(f"Blind test 1,{cast.expert.username},{cast.expert.email},5,2,3,0,2,")
    assert lines[-1].endswith(",TOTAL,,6,2,4,0,2,,2.00,8.00,,none")
    body = c.get(f"{API}/manage/campaigns/{worked.pk}/payment-lines/").json()
    assert body["paused_work_pay"] == "none"
    mine = next(row for row in body["lines"] if row["username"] == cast.expert.username)
    assert (mine["submitted"], mine["paid"], mine["withheld"], mine["amount"]) == (5, 3, 2, "6.00")
    set_policy("review")
    r = c.post(
        f"{API}/manage/campaigns/{worked.pk}/pay-decision/", {"expert": cast.expert.username, "pay": True}, content_type="application/json"
    )
    assert r.status_code == 200 and (r.json()["paid"], r.json()["decision"]) == (5, True)
    bad = c.post(f"{API}/manage/campaigns/{worked.pk}/pay-decision/", {"expert": "nobody", "pay": True}, content_type="application/json")
    assert bad.status_code == 400 and "expert" in str(bad.json())


def test_gold_checks_are_paid_like_any_work(cast):
    campaign = demo_campaign(cast, piece_rate=Decimal("1"))
    crs = list(CampaignResponse.objects.filter(campaign=campaign)[:2])
    CampaignResponse.objects.filter(pk=crs[0].pk).update(is_gold=True)
    Assignment.objects.bulk_create([Assignment(campaign_response=cr, expert=cast.expert, status="submitted") for cr in crs])
    assert (line_of(campaign, cast.expert).paid, line_of(campaign, cast.expert).amount) == (2, Decimal("2.00"))


def test_an_admin_writes_the_policy_and_experts_read_it_sanitised_on_their_profile(worked, cast, client_for):
    admin = client_for(cast.admin)
    r = admin.post(
        reverse("annotation:pay_policy", args=[worked.pk]),
        {"paused_work_pay": "none", "pay_policy_text": "## Pay\n\nWork while **away** is not paid.<script>alert(1)</script>"},
    )
    assert r.status_code == 302
    policy = QualityPolicy.current()
    assert policy.paused_work_pay == "none" and policy.pay_policy_text.startswith("## Pay")
    bad = admin.post(reverse("annotation:pay_policy", args=[worked.pk]), {"paused_work_pay": "sometimes"}, follow=True)
    assert "paused_work_pay" in bad.content.decode() and QualityPolicy.current().paused_work_pay == "none"
    html = client_for(cast.expert).get(reverse("annotation:profile")).content.decode()
    assert "<h2>Pay</h2>" in html and "<strong>away</strong>" in html and "<script>alert" not in html
    # What the expert reads names no gold check and no figure of anyone else.
    assert "gold" not in html.lower()


def test_the_api_reads_and_changes_the_pay_policy_for_admins_only(cast, client_for):
    c = client_for(cast.admin)
    assert c.get(f"{API}/manage/pay-policy/").json() == {"paused_work_pay": "review", "pay_policy_text": ""}
    r = c.patch(f"{API}/manage/pay-policy/", {"paused_work_pay": "full"}, content_type="application/json")
    assert r.status_code == 200 and r.json()["paused_work_pay"] == "full"
    bad = c.patch(f"{API}/manage/pay-policy/", {"paused_work_pay": "half"}, content_type="application/json")
    assert bad.status_code == 400 and "paused_work_pay" in str(bad.json())
    assert c.patch(f"{API}/manage/pay-policy/", ["full"], content_type="application/json").status_code == 400
    assert client_for(cast.expert).get(f"{API}/manage/pay-policy/").status_code == 403
    assert QualityPolicy.current().paused_work_pay == "full"
