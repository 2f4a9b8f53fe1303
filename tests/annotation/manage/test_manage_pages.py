import pytest
from django.urls import reverse
from django.utils import timezone

from annotation.models import AdminAlert, Assignment, Campaign, ExpertProfile, Qualification
from annotation.services.assignment import assign_next_response

from .helpers import MODELS, demo_campaign

pytestmark = pytest.mark.django_db

ADMIN_PAGES = [
    "annotation:campaigns",
    "annotation:campaign_create",
    "annotation:calibration_create",
    "annotation:experts",
    "annotation:alerts",
]


@pytest.mark.parametrize("name", ADMIN_PAGES)
def test_admin_pages_refuse_everyone_but_admins(cast, client_for, name):
    for user in (cast.expert, cast.reviewer, cast.author, cast.outsider):
        assert client_for(user).get(reverse(name)).status_code == 403
    assert client_for(cast.admin).get(reverse(name)).status_code == 200


def test_campaign_pages_refuse_experts(cast, client_for):
    campaign = demo_campaign(cast)
    c = client_for(cast.expert)
    for url in (
        reverse("annotation:campaign", args=[campaign.pk]),
        reverse("annotation:campaign_assignments", args=[campaign.pk]),
        reverse("annotation:campaign_payments", args=[campaign.pk]),
        reverse("annotation:expert", args=[cast.expert.username]),
    ):
        assert c.get(url).status_code == 403
    assert c.post(reverse("annotation:campaign_bulk_assign", args=[campaign.pk])).status_code == 403
    assert not Assignment.objects.exists()


def test_an_admin_creates_a_campaign_through_the_page(cast, client_for):
    from tests.factories import demo_responses, demo_version

    from .helpers import qualify

    demo_version()
    demo_responses()
    qualify(*cast.experts)
    c = client_for(cast.admin)
    r = c.post(
        reverse("annotation:campaign_create"),
        {
            "name": "Paged",
            "dataset": "demo",
            "models": MODELS[:2],
            "sample_fraction": "0.5",
            "overlap": "2",
            "seed": "4",
            "reservation_hours": "2",
            "requires_qualification": "on",
            "gold_rate": "0",
            "min_tier_for_hard": "1",
            "piece_rate": "1.50",
        },
    )
    campaign = Campaign.objects.get(name="Paged")
    assert r.status_code == 302 and r["Location"] == reverse("annotation:campaign", args=[campaign.pk])
    assert campaign.responses.count() == 6 and campaign.overlap == 2


def test_bad_campaign_input_is_shown_on_the_form_and_nothing_is_written(cast, client_for):
    from tests.factories import demo_responses, demo_version

    demo_version()
    demo_responses()
    r = client_for(cast.admin).post(
        reverse("annotation:campaign_create"),
        {
            "name": "Bad",
            "dataset": "demo",
            "models": MODELS[:1],
            "sample_fraction": "1.5",
            "overlap": "3",
            "seed": "0",
            "reservation_hours": "2",
            "gold_rate": "0",
            "min_tier_for_hard": "1",
            "piece_rate": "0",
        },
    )
    assert r.status_code == 400
    assert "must be in (0, 1]" in r.content.decode()
    r = client_for(cast.admin).post(
        reverse("annotation:campaign_create"),
        {
            "name": "Bad",
            "dataset": "demo",
            "models": MODELS[:1],
            "sample_fraction": "0.5",
            "overlap": "3",
            "seed": "0",
            "reservation_hours": "2",
            "requires_qualification": "on",
            "gold_rate": "0",
            "min_tier_for_hard": "1",
            "piece_rate": "0",
        },
    )
    assert r.status_code == 400
    assert "0 of the 3 in the pool are active and qualified" in r.content.decode()
    assert not Campaign.objects.exists()


def test_the_campaign_page_shows_progress_by_submitted_judgments_per_expert_time_and_projection(
    cast, client_for, django_assert_max_num_queries
):
    campaign = demo_campaign(cast, overlap=2)
    for expert in cast.experts[:2]:
        a = assign_next_response(expert=expert, campaign=campaign)
        Assignment.objects.filter(pk=a.pk).update(status="submitted", submitted_at=timezone.now(), active_seconds=600)
    c = client_for(cast.admin)
    with django_assert_max_num_queries(25):
        r = c.get(reverse("annotation:campaign", args=[campaign.pk]))
    html = r.content.decode()
    assert "<strong>1</strong> of 18 responses have all 2 judgments" in html
    assert "0/2: <strong>17</strong>" in html and "2/2: <strong>1</strong>" in html
    assert cast.experts[0].username in html and "projected finish" in html
    assert "0.3 h" in html  # 2 × 600 s on task
    partial = c.get(reverse("annotation:campaign", args=[campaign.pk]), HTTP_HX_REQUEST="true").content.decode()
    assert 'id="campaign-progress"' in partial and "<html" not in partial


def test_a_pace_of_thousands_a_day_is_written_with_its_thousands_separated(cast, client_for):
    campaign = demo_campaign(cast, overlap=3)
    Assignment.objects.bulk_create(
        Assignment(campaign_response=cr, expert=expert, status="submitted", submitted_at=timezone.now())
        for i, cr in enumerate(campaign.responses.order_by("pk"))
        for expert in cast.experts[1 if i == 0 else 0 :]
    )
    # 53 submissions, all in the last hour (the shortest span a pace is taken over): 1,272 a day, one still to come.
    html = client_for(cast.admin).get(reverse("annotation:campaign", args=[campaign.pk])).content.decode()
    assert '<div class="stat">1,272.0</div>' in html and "at 1,272.0 submissions per day" in html


def test_a_complete_campaign_finished_on_the_day_of_its_last_submission(cast, client_for):
    from datetime import timedelta

    campaign = demo_campaign(cast, overlap=3)
    last = timezone.now() - timedelta(days=3)
    Assignment.objects.bulk_create(
        Assignment(campaign_response=cr, expert=expert, status="submitted", submitted_at=last - timedelta(hours=i))
        for i, cr in enumerate(campaign.responses.order_by("pk"))
        for expert in cast.experts
    )
    from django.utils.formats import date_format

    from annotation.manage.selectors import campaign_progress

    progress = campaign_progress(campaign)
    assert progress.done and progress.projected_finish == timezone.localdate(last)  # not today, as every later view would say
    listing = client_for(cast.admin).get(reverse("annotation:campaigns")).content.decode()
    assert f'{date_format(timezone.localdate(last), "DATE_FORMAT")} <span class="muted">(complete)</span>' in listing


def test_the_per_expert_tables_show_the_first_experts_and_every_one_on_request(cast, client_for, monkeypatch):
    from annotation.manage import views

    monkeypatch.setattr(views, "EXPERT_ROWS", 1)
    campaign = demo_campaign(cast, overlap=2)
    first, second = sorted(cast.experts[:2], key=lambda e: e.username)
    for expert in (first, second):
        a = assign_next_response(expert=expert, campaign=campaign)
        Assignment.objects.filter(pk=a.pk).update(status="submitted", submitted_at=timezone.now(), active_seconds=600)
    c = client_for(cast.admin)
    url = reverse("annotation:campaign", args=[campaign.pk])
    html = c.get(url).content.decode()
    assert f">{first.username}</a>" in html and f">{second.username}</a>" not in html and f"<td>{second.username}</td>" not in html
    assert "The first 1 of 2 experts, by name." in html and f'href="{url}?experts=all"' in html
    everyone = c.get(url, {"experts": "all"}).content.decode()
    assert f">{second.username}</a>" in everyone and f"<td>{second.username}</td>" in everyone and "The first 1 of" not in everyone
    assert f'hx-get="{url}?experts=all"' in everyone  # the progress keeps every expert when it refreshes
    polled = c.get(url, HTTP_HX_REQUEST="true").content.decode()
    assert f">{second.username}</a>" not in polled and "The first 1 of 2 experts" in polled


def test_bulk_assign_and_release_through_the_assignment_overview(cast, client_for):
    campaign = demo_campaign(cast, overlap=1)
    ExpertProfile.objects.update(capacity=100)
    c = client_for(cast.admin)
    r = c.post(reverse("annotation:campaign_bulk_assign", args=[campaign.pk]), follow=True)
    assert "18 assignments made." in r.content.decode()
    a = Assignment.objects.first()
    # Releasing asks first: the first post only shows what will happen.
    asked = c.post(reverse("annotation:assignment_release", args=[a.public_id]))
    a.refresh_from_db()
    assert asked.status_code == 200 and "Release this assignment?" in asked.content.decode() and a.status == "reserved"
    c.post(reverse("annotation:assignment_release", args=[a.public_id]), {"confirm": "yes"})
    a.refresh_from_db()
    assert a.status == "released"
    html = c.get(reverse("annotation:campaign_assignments", args=[campaign.pk]), {"status": "released"}).content.decode()
    assert a.public_id in html and "Page 1 of 1 · 1 assignments" in html


def test_the_payment_export_multiplies_submitted_work_by_the_piece_rate(cast, client_for):
    campaign = demo_campaign(cast, piece_rate=2.5)
    for _ in range(3):
        a = assign_next_response(expert=cast.expert, campaign=campaign)
        Assignment.objects.filter(pk=a.pk).update(status="submitted", submitted_at=timezone.now(), active_seconds=1800)
    body = client_for(cast.admin).get(reverse("annotation:campaign_payments", args=[campaign.pk])).content.decode()
    lines = body.strip().splitlines()
    assert lines[0].startswith("campaign,expert,email,submitted_responses")
    # submitted, of which while paused, paid, held, withheld, hours, rate, amount, certified, the paused-work policy
    assert lines[1] == f"Blind test 1,{cast.expert.username},{cast.expert.email},3,0,3,0,0,1.50,2.50,7.50,no,review"
    assert lines[-1].endswith(",TOTAL,,3,0,3,0,0,,2.50,7.50,,review")


def test_an_admin_edits_a_profile_overrides_the_tier_with_a_reason_and_qualifies(cast, client_for):
    c = client_for(cast.admin)
    url = reverse("annotation:expert", args=[cast.expert.username])
    r = c.post(
        url,
        {
            "action": "profile",
            "degree": "PhD",
            "years_practice": "12",
            "credentials": "Licensed",
            "specialties": "Emotional Understanding, 道德, Emotion",
            "languages": "zh, en",
            "capacity": "4",
            "availability": "active",
            "availability_reason": "",
        },
    )
    assert r.status_code == 302
    p = ExpertProfile.objects.get(user=cast.expert)
    assert (p.degree, p.years_practice, p.capacity, p.specialties, p.languages) == (
        "PhD",
        12,
        4,
        ["情绪理解", "道德", "Emotion"],
        ["zh", "en"],
    )
    assert c.post(url, {"action": "tier", "tier": "3", "reason": ""}).status_code == 400
    c.post(url, {"action": "tier", "tier": "3", "reason": "supervising clinician"})
    p.refresh_from_db()
    assert p.effective_tier == 3 and p.tier_changes.get().reason == "supervising clinician"
    c.post(url, {"action": "qualify", "dimension": "Emotion", "reason": "ten years of emotion-focused therapy"})
    assert Qualification.objects.get(expert=cast.expert).dimension == "Emotion"


def test_an_expert_sees_only_their_own_profile_and_changes_only_availability(cast, client_for):
    ExpertProfile.objects.create(user=cast.expert, degree="MSc", capacity=7)
    c = client_for(cast.expert)
    html = c.get(reverse("annotation:profile")).content.decode()
    assert "MSc" in html and "7 responses at once" in html
    r = c.post(reverse("annotation:profile"), {"availability": "away", "reason": "on leave", "capacity": "99", "degree": "PhD"})
    assert r.status_code == 302
    p = ExpertProfile.objects.get(user=cast.expert)
    assert (p.availability, p.availability_reason, p.capacity, p.degree) == ("away", "on leave", 7, "MSc")
    assert client_for(cast.outsider).get(reverse("annotation:profile")).status_code == 403


def test_a_paused_expert_cannot_unpause_themself(cast, client_for):
    ExpertProfile.objects.create(user=cast.expert, availability="paused", availability_reason="Paused automatically: low accuracy")
    r = client_for(cast.expert).post(reverse("annotation:profile"), {"availability": "active"})
    assert r.status_code == 400
    assert ExpertProfile.objects.get(user=cast.expert).availability == "paused"


def test_alerts_are_listed_and_resolved(cast, client_for):
    alert = AdminAlert.objects.create(kind="gold_accuracy", expert=cast.expert, message="erin was paused")
    c = client_for(cast.admin)
    assert "erin was paused" in c.get(reverse("annotation:alerts")).content.decode()
    c.post(reverse("annotation:alert_resolve", args=[alert.pk]))
    alert.refresh_from_db()
    assert alert.resolved_by == cast.admin
    assert "erin was paused" not in c.get(reverse("annotation:alerts")).content.decode()


def test_the_experts_page_lists_a_page_at_a_time_with_workload_from_the_tallies(cast, client_for, monkeypatch):
    from datetime import timedelta

    from annotation.manage import selectors

    campaign = demo_campaign(cast, overlap=3)
    crs = list(campaign.responses.order_by("pk"))
    now = timezone.now()
    expert = cast.experts[0]
    Assignment.objects.create(campaign_response=crs[0], expert=expert, expires_at=now + timedelta(hours=1))  # open
    Assignment.objects.create(campaign_response=crs[1], expert=expert, expires_at=now - timedelta(minutes=1))  # overdue: not open
    Assignment.objects.create(campaign_response=crs[2], expert=expert, status="submitted", submitted_at=now)
    Assignment.objects.create(campaign_response=crs[3], expert=cast.experts[1], expires_at=None)  # pre-assigned: open
    counted = {
        p.user_id: (
            Assignment.objects.filter(expert_id=p.user_id).open(now).count(),
            Assignment.objects.filter(expert_id=p.user_id).submitted().count(),
        )
        for p in ExpertProfile.objects.all()
    }
    assert {p.user_id: (p.open_n, p.submitted_n) for p in selectors.expert_profiles()} == counted
    assert counted[expert.pk] == (1, 1)
    monkeypatch.setattr(selectors, "EXPERTS_PER_PAGE", 2)
    c = client_for(cast.admin)
    first = c.get(reverse("annotation:experts")).content.decode()
    usernames = sorted(ExpertProfile.objects.values_list("user__username", flat=True))
    assert usernames[0] in first and usernames[2] not in first and f"Page 1 of {-(-len(usernames) // 2)}" in first
    assert usernames[2] in c.get(reverse("annotation:experts"), {"page": 2}).content.decode()
