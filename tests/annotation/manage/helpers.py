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


def demo_campaign(cast, *, name="Blind test 1", sample=1.0, overlap=3, experts=None, qualified=True, **kwargs):
    """A blind test over all 6 demo items × 3 fictional models (18 responses) among the cast's experts."""
    demo_version()
    demo_responses()
    experts = experts if experts is not None else cast.experts
    if qualified:
        qualify(*experts)
    return create_campaign(
        name=name,
        dataset_name="demo",
        model_names=MODELS,
        sample_fraction=sample,
        overlap=overlap,
        expert_usernames=[e.username for e in experts],
        **kwargs,
    ).campaign
