"""Campaign progress and payment lines read from the tallies give exactly what counting the assignments gave.

The reference below is the counting the campaign page did before the tallies (kept here to
compare with): the histogram, held responses, per-expert open/expired work and time, the pace
(counted by the hour since the hour tallies), and each expert's paid work, on a campaign with
every status, a gold check, reservations past their expiry that no sweep has marked yet, and work
submitted while paused.
"""

from datetime import UTC, timedelta

from django.db.models import Count, Q, Sum
from django.utils import timezone

from annotation.manage.selectors import campaign_progress
from annotation.models import Assignment, AssignmentQuerySet, CampaignResponse
from annotation.services.payments import payment_lines
from tests.annotation.workspace.conftest import judge_fully

from .helpers import demo_campaign, more_experts


def _counted(campaign, now):
    k = campaign.overlap
    rows = list(
        CampaignResponse.objects.filter(campaign=campaign)
        .annotate(
            n_sub=Count("assignments", filter=Q(assignments__status=Assignment.Status.SUBMITTED)),
            n_open=Count("assignments", filter=AssignmentQuerySet.open_q(now, through="assignments")),
        )
        .values_list("is_gold", "n_sub", "n_open")
    )
    histogram = [0] * (k + 1)
    held = gold = 0
    for is_gold, n_sub, n_open in rows:
        if is_gold:
            gold += 1
            continue
        histogram[min(n_sub, k)] += 1
        held += n_open > 0
    experts = [
        (r["expert_id"], r["submitted"], r["open"], r["expired"], r["released"], r["seconds"] or 0)
        for r in Assignment.objects.filter(campaign_response__campaign=campaign)
        .values("expert_id", "expert__username")
        .annotate(
            submitted=Count("pk", filter=Q(status=Assignment.Status.SUBMITTED)),
            open=Count("pk", filter=AssignmentQuerySet.open_q(now)),
            expired=Count("pk", filter=Q(status=Assignment.Status.EXPIRED) | (Q(status=Assignment.Status.RESERVED, expires_at__lte=now))),
            released=Count("pk", filter=Q(status=Assignment.Status.RELEASED)),
            seconds=Sum("active_seconds"),
        )
        .order_by("expert__username")
    ]

    # The pace, counted by the hour (UTC): the first submission from the start of its hour, the week from the start of its first hour.
    def hour(t):
        return t.astimezone(UTC).replace(minute=0, second=0, microsecond=0)

    real = Assignment.objects.filter(campaign_response__campaign=campaign, campaign_response__is_gold=False).submitted()
    first = hour(real.order_by("submitted_at").values_list("submitted_at", flat=True).first())
    week_ago = now - timedelta(days=7)
    start = max(first, week_ago)
    recent = real.filter(submitted_at__gte=first if first >= week_ago else hour(week_ago)).count()
    pace = recent / max((now - start).total_seconds() / 86400, 1 / 24)
    paid = {
        r["expert_id"]: (r["submitted"], r["while_paused"], r["seconds"] or 0)
        for r in Assignment.objects.filter(campaign_response__campaign=campaign)
        .values("expert_id")
        .annotate(
            submitted=Count("pk", filter=Q(status=Assignment.Status.SUBMITTED)),
            while_paused=Count("pk", filter=Q(status=Assignment.Status.SUBMITTED, submitted_while_paused=True)),
            seconds=Sum("active_seconds", filter=Q(status=Assignment.Status.SUBMITTED)),
        )
        .filter(submitted__gt=0)
    }
    return histogram, held, gold, len(rows) - gold, experts, pace, paid


def test_progress_and_pay_read_from_tallies_equal_the_counted_ones(cast):
    experts = [*cast.experts, *more_experts(2)]
    campaign = demo_campaign(cast, overlap=2, experts=experts)
    crs = list(CampaignResponse.objects.filter(campaign=campaign).order_by("pk"))
    CampaignResponse.objects.filter(pk=crs[-1].pk).update(is_gold=True)
    now = timezone.now()
    for n, cr in enumerate(crs):
        for e, expert in enumerate(experts[: 1 + n % 4]):
            a = Assignment.objects.create(campaign_response=cr, expert=expert, expires_at=None if (n + e) % 3 else now + timedelta(hours=1))
            kind = (n * 5 + e) % 6
            if kind in (0, 1):
                judge_fully(a)
                Assignment.objects.filter(pk=a.pk).update(submitted_at=now - timedelta(days=n % 10, hours=e), active_seconds=60 + n)
            elif kind == 2:
                Assignment.objects.filter(pk=a.pk).update(status=Assignment.Status.EXPIRED)
            elif kind == 3:
                Assignment.objects.filter(pk=a.pk).update(status=Assignment.Status.RELEASED, active_seconds=9)
            elif kind == 4:
                Assignment.objects.filter(pk=a.pk).update(expires_at=now - timedelta(minutes=5))  # overdue, not yet swept
    Assignment.objects.filter(status=Assignment.Status.SUBMITTED, campaign_response_id__in=[c.pk for c in crs[:4]]).update(
        submitted_while_paused=True
    )
    histogram, held, gold, real, experts_counted, pace, paid = _counted(campaign, now)
    progress = campaign_progress(campaign, now=now)
    assert (progress.histogram, progress.held, progress.gold_responses, progress.responses) == (histogram, held, gold, real)
    assert [(e.user_id, e.submitted, e.open, e.expired, e.released, e.active_seconds) for e in progress.experts] == experts_counted
    assert progress.pace_per_day == pace
    assert held and any(e.expired for e in progress.experts) and gold == 1
    lines = payment_lines(campaign)
    assert {line.expert_id: (line.submitted, line.while_paused, round(paid[line.expert_id][2] / 3600, 2)) for line in lines} == {
        expert: (n, paused, round(seconds / 3600, 2)) for expert, (n, paused, seconds) in paid.items()
    }
    assert [line.active_hours for line in lines] == [round(paid[line.expert_id][2] / 3600, 2) for line in lines]


def test_an_experts_history_read_from_tallies_equals_their_counted_work(cast):
    from annotation.manage.selectors import profile_history
    from annotation.models import ExpertProfile

    campaign = demo_campaign(cast, overlap=3)
    crs = list(CampaignResponse.objects.filter(campaign=campaign).order_by("pk"))
    CampaignResponse.objects.filter(pk=crs[0].pk).update(is_gold=True)  # counted like any work: the expert is not told
    for n, cr in enumerate(crs[:6]):
        for e, expert in enumerate(cast.experts):
            a = Assignment.objects.create(campaign_response=cr, expert=expert)
            if (n + e) % 3 == 0:
                Assignment.objects.filter(pk=a.pk).update(status=Assignment.Status.RELEASED, active_seconds=5)
            else:
                judge_fully(a)
                Assignment.objects.filter(pk=a.pk).update(active_seconds=30 + n)
    for expert in cast.experts:
        counted = [
            (r["campaign_response__campaign_id"], r["submitted"], r["seconds"] or 0)
            for r in Assignment.objects.filter(expert=expert)
            .values("campaign_response__campaign_id")
            .annotate(
                submitted=Count("pk", filter=Q(status=Assignment.Status.SUBMITTED)),
                seconds=Sum("active_seconds", filter=Q(status=Assignment.Status.SUBMITTED)),
            )
        ]
        history = profile_history(ExpertProfile.objects.get_or_create(user=expert)[0])
        assert [(c["id"], c["submitted"], c["active_seconds"]) for c in history.campaigns] == counted
        assert counted[0][1] > 0 and history.submitted == counted[0][1]
