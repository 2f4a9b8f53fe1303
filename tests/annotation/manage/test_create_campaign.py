from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from annotation.models import Campaign, CampaignResponse, ExpertProfile
from annotation.services.campaigns import stratified_sample
from tests.factories import demo_responses, demo_version

from .helpers import MODELS, qualify

pytestmark = pytest.mark.django_db


@pytest.fixture
def data(cast):
    demo_version()
    demo_responses()
    qualify(*cast.experts)


def run(*args):
    out = StringIO()
    call_command("create_campaign", *args, stdout=out)
    return out.getvalue().strip()


def test_the_command_creates_a_campaign_and_prints_its_number_of_responses(data):
    printed = run("Blind 1", "--dataset", "demo", "--models", ",".join(MODELS), "--sample", "0.5", "--seed", "3")
    campaign = Campaign.objects.get(name="Blind 1")
    assert printed == "9" == str(campaign.responses.count())  # 3 of 6 items × 3 models
    assert (campaign.sample_fraction, campaign.overlap, campaign.seed) == (0.5, 3, 3)
    assert set(campaign.language_models.values_list("name", flat=True)) == set(MODELS)
    assert campaign.experts.count() == 3
    assert campaign.settings.requires_qualification


def test_sampling_is_deterministic_for_a_seed_and_differs_across_seeds(data):
    run("a", "--dataset", "demo", "--models", MODELS[0], "--sample", "0.5", "--seed", "1")
    run("b", "--dataset", "demo", "--models", MODELS[0], "--sample", "0.5", "--seed", "1")
    picks = [sorted(CampaignResponse.objects.filter(campaign__name=n).values_list("item__question_id", flat=True)) for n in "ab"]
    assert picks[0] == picks[1]
    seen = {tuple(picks[0])}
    for seed in range(2, 12):
        run(f"c{seed}", "--dataset", "demo", "--models", MODELS[0], "--sample", "0.5", "--seed", str(seed))
        seen.add(tuple(sorted(CampaignResponse.objects.filter(campaign__name=f"c{seed}").values_list("item__question_id", flat=True))))
    assert len(seen) > 1


def test_the_sample_is_stratified_by_difficulty_and_scene():
    strata = {("hard", "A"): list(range(0, 20)), ("normal", "A"): list(range(20, 80)), ("normal", "B"): list(range(80, 100))}
    picked = stratified_sample(strata, 0.4, seed=5)
    assert len(picked) == 40
    counts = {k: len(set(picked) & set(v)) for k, v in strata.items()}
    assert counts == {("hard", "A"): 8, ("normal", "A"): 24, ("normal", "B"): 8}
    assert picked == stratified_sample(strata, 0.4, seed=5)


@pytest.mark.parametrize("fraction", ["0", "-0.1", "1.5"])
def test_a_sampling_fraction_outside_zero_to_one_is_refused(data, fraction):
    with pytest.raises(CommandError, match=r"sample_fraction: must be in \(0, 1\]"):
        run("x", "--dataset", "demo", "--models", MODELS[0], "--sample", fraction)
    assert not Campaign.objects.exists()


def test_k_larger_than_the_eligible_experts_says_how_many_are_eligible(data, cast):
    ExpertProfile.objects.filter(user=cast.experts[0]).update(availability="away")
    with pytest.raises(CommandError, match="k=3 is larger than the number of eligible experts: 2 of the 3 in the pool"):
        run("x", "--dataset", "demo", "--models", MODELS[0])
    assert not Campaign.objects.exists()


def test_unknown_model_is_refused(data):
    with pytest.raises(CommandError, match="unknown model.*gpt-imaginary"):
        run("x", "--dataset", "demo", "--models", f"{MODELS[0]},gpt-imaginary")
    assert not Campaign.objects.exists()


def test_an_empty_expert_pool_is_refused(cast):
    from django.contrib.auth.models import Group

    demo_version()
    demo_responses()
    Group.objects.filter(name="expert").delete()
    with pytest.raises(CommandError, match="expert pool is empty"):
        run("x", "--dataset", "demo", "--models", MODELS[0])
    assert not Campaign.objects.exists()


def test_unknown_or_non_expert_users_in_the_pool_are_refused(data, cast):
    with pytest.raises(CommandError, match="unknown user.*nobody"):
        run("x", "--dataset", "demo", "--models", MODELS[0], "--experts", "nobody")
    with pytest.raises(CommandError, match="not expert.*olga_outsider"):
        run("x", "--dataset", "demo", "--models", MODELS[0], "--experts", cast.outsider.username)


def test_unqualified_experts_are_not_eligible_unless_allowed(cast):
    demo_version()
    demo_responses()
    with pytest.raises(CommandError, match="0 of the 3 in the pool are active and qualified"):
        run("x", "--dataset", "demo", "--models", MODELS[0])
    assert run("x", "--dataset", "demo", "--models", MODELS[0], "--allow-unqualified") == "2"


def test_a_duplicate_name_and_an_unknown_version_are_refused(data):
    run("x", "--dataset", "demo", "--models", MODELS[0])
    with pytest.raises(CommandError, match="already exists"):
        run("x", "--dataset", "demo", "--models", MODELS[0])
    with pytest.raises(CommandError, match="has no version 'v9'"):
        run("y", "--dataset", "demo", "--version", "v9", "--models", MODELS[0])


def test_assign_campaign_and_expire_reservations_commands(data):
    run("x", "--dataset", "demo", "--models", MODELS[0], "--sample", "1")
    out = StringIO()
    call_command("assign_campaign", "x", stdout=out)
    assert out.getvalue().splitlines()[0] == "18"
    out = StringIO()
    call_command("expire_reservations", stdout=out)
    assert out.getvalue().strip() == "0"


def test_the_real_heartbench_sample_is_forty_percent_of_its_296_items(cast, heartbench_all):
    from heartbench_core.demo import _import_synthetic
    from heartbench_core.services.datasets import import_heartbench

    version = import_heartbench(source=heartbench_all, dataset_name="heartbench").version
    for m in MODELS:
        _import_synthetic(version, m)
    qualify(*cast.experts)
    printed = run("real", "--dataset", "heartbench", "--models", ",".join(MODELS), "--seed", "42")
    campaign = Campaign.objects.get(name="real")
    assert printed == str(118 * 3)
    import math
    from collections import Counter

    sizes = Counter(version.items.values_list("difficulty", "primary_scene"))
    picked = Counter(campaign.responses.filter(response__model__name=MODELS[0]).values_list("item__difficulty", "item__primary_scene"))
    for stratum, size in sizes.items():
        assert picked[stratum] in (math.floor(0.4 * size), math.ceil(0.4 * size)), stratum
