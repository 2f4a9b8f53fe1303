"""Builders for the campaign-management tests: qualified experts and small campaigns on the demo items."""

from django.contrib.auth.models import Group

from annotation.models import ExpertProfile, Qualification
from annotation.services.campaigns import create_campaign
from heartbench_core.roles import Role
from tests.conftest import make_user
from tests.factories import demo_responses, demo_version

MODELS = ["demo-model-aurora", "demo-model-borealis", "demo-model-cirrus"]


def qualify(*users, dimension: str = "") -> None:
    """Grant qualification as an admin would (calibration is tested on its own)."""
    for user in users:
        ExpertProfile.objects.get_or_create(user=user)
        Qualification.objects.get_or_create(expert=user, dimension=dimension, defaults={"source": "admin", "reason": "test"})


def more_experts(n: int, prefix: str = "ext_expert"):
    users = [make_user(f"{prefix}{i}", Role.EXPERT) for i in range(1, n + 1)]
    Group.objects.get_or_create(name=Role.EXPERT.value)
    return users


def demo_campaign(cast, *, name="Blind test 1", sample=1.0, overlap=3, experts=None, qualified=True, models=None, **kwargs):
    """A blind test over all 6 demo items × 3 fictional models (18 responses) among the cast's experts."""
    demo_version()
    demo_responses()
    experts = experts if experts is not None else cast.experts
    if qualified:
        qualify(*experts)
    return create_campaign(
        name=name,
        dataset_name="demo",
        model_names=models or MODELS,
        sample_fraction=sample,
        overlap=overlap,
        expert_usernames=[e.username for e in experts],
        **kwargs,
    ).campaign


def gold_file(version, picks=(("dm0001", "demo-model-aurora"), ("dm0002", "demo-model-borealis"))):
    """A gold-label JSONL (bytes) for the given responses: criterion i is a hit when i is even."""
    import io
    import json

    lines = []
    for qid, model in picks:
        n = version.items.get(question_id=qid).criteria.count()
        labels = [{"position": i, "hit": i % 2 == 0, "explanation": f"gold note {i}"} for i in range(n)]
        lines.append(json.dumps({"question_id": qid, "model": model, "labels": labels}, ensure_ascii=False))
    f = io.BytesIO(("\n".join(lines) + "\n").encode())
    f.name = "gold.jsonl"
    return f


def judge(assignment, *, wrong: int = 0):
    """Judge an assignment like gold (criterion i hit when i is even), getting the first `wrong` criteria wrong; submit."""
    from django.utils import timezone

    from annotation.models import Assignment, Judgment
    from annotation.services.quality import after_submit

    criteria = list(assignment.campaign_response.item.criteria.order_by("position"))
    Judgment.objects.bulk_create(
        [
            Judgment(assignment=assignment, criterion=c, rationale="because the response does so", hit=(c.position % 2 == 0) != (i < wrong))
            for i, c in enumerate(criteria)
        ]
    )
    Assignment.objects.filter(pk=assignment.pk).update(status=Assignment.Status.SUBMITTED, submitted_at=timezone.now())
    assignment.refresh_from_db()
    after_submit(assignment=assignment)
    return len(criteria)


def age_calibration(expert, campaign, *, days: float) -> None:
    """Move an expert's finished calibration attempts and their work `days` into the past (as if the cooldown had run)."""
    from datetime import timedelta

    from django.db.models import F

    from annotation.models import Assignment, CalibrationResult

    delta = timedelta(days=days)
    CalibrationResult.objects.filter(expert=expert, campaign=campaign).update(completed_at=F("completed_at") - delta)
    Assignment.objects.filter(expert=expert, campaign_response__campaign=campaign).update(
        reserved_at=F("reserved_at") - delta, submitted_at=F("submitted_at") - delta
    )


def gold_set(
    version, name="Gold pool", picks=(("dm0005", "demo-model-aurora"), ("dm0005", "demo-model-borealis"), ("dm0006", "demo-model-cirrus"))
):
    """A gold set (the pool of hidden gold checks) on the demo items, disjoint from `gold_file`'s default calibration picks."""
    from annotation.services.campaigns import create_gold_set

    return create_gold_set(name=name, dataset_name="demo", source=gold_file(version, picks=picks)).campaign
