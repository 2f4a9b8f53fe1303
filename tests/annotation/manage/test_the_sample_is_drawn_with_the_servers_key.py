"""A blind test's seed is random unless an admin gives one, and its sample is drawn with the server's sampling key.

The same stored seed under the same key draws the same sample again (reproducible); under another
key, or through the public sampler alone, it does not (so reading the seed tells nothing).
"""

from io import StringIO

import pytest
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.test import override_settings

from annotation.models import Campaign
from annotation.services.campaigns import create_campaign, stratified_sample
from annotation.services.sampling import MAX_SEED, SEED_BITS
from tests.factories import demo_responses, demo_version

from .helpers import MODELS, qualify

pytestmark = pytest.mark.django_db


@pytest.fixture
def data(cast):
    demo_version()
    demo_responses()
    qualify(*cast.experts)


def blind(name: str, **kwargs) -> Campaign:
    return create_campaign(name=name, dataset_name="demo", model_names=MODELS, sample_fraction=0.5, overlap=1, **kwargs).campaign


def items(campaign: Campaign) -> list[int]:
    return sorted(set(campaign.responses.values_list("item_id", flat=True)))


def test_a_campaign_given_no_seed_gets_a_random_one_from_the_service_the_command_the_page_and_the_api(cast, client_for, data):
    seeds = {blind(f"service {i}").seed for i in range(3)}
    call_command("create_campaign", "command", "--dataset", "demo", "--models", MODELS[0], stdout=StringIO())
    seeds.add(Campaign.objects.get(name="command").seed)
    client = client_for(cast.admin)
    form = {"name": "page", "dataset": "demo", "models": MODELS[0], "sample_fraction": "0.5", "overlap": "1", "reservation_hours": "2"}
    form |= {"gold_rate": "0", "min_tier_for_hard": "1", "piece_rate": "0", "requires_qualification": "on"}
    assert client.post("/work/manage/campaigns/new/", form).status_code == 302
    seeds.add(Campaign.objects.get(name="page").seed)
    body = {"name": "api", "dataset": "demo", "models": [MODELS[0]], "overlap": 1}
    assert client.post("/api/v1/annotation/manage/campaigns/", body, content_type="application/json").status_code == 201
    seeds.add(Campaign.objects.get(name="api").seed)
    assert len(seeds) == 6 and all(0 < s < 2**SEED_BITS for s in seeds)


def test_the_same_seed_under_the_same_key_draws_the_same_sample(data):
    assert items(blind("a", seed=5)) == items(blind("b", seed=5))


def test_another_key_draws_another_sample_from_the_same_seed(data):
    mine = [items(blind(f"mine {seed}", seed=seed)) for seed in range(6)]
    with override_settings(HEARTBENCH_SAMPLING_KEY="another installation's sampling key, as long as any"):
        theirs = [items(blind(f"theirs {seed}", seed=seed)) for seed in range(6)]
    assert mine != theirs


def test_the_public_sampler_with_the_stored_seed_does_not_give_the_sample(data):
    from heartbench_core.models import DatasetVersion

    version = DatasetVersion.objects.get(dataset__name="demo")
    strata: dict = {}
    for pk, diff, scene in version.items.values_list("pk", "difficulty", "primary_scene"):
        strata.setdefault((diff, scene), []).append(pk)
    campaigns = [blind(f"seed {seed}", seed=seed) for seed in range(6)]
    assert any(items(c) != stratified_sample(strata, 0.5, c.seed) for c in campaigns)


@pytest.mark.parametrize("seed", [-1, MAX_SEED + 1, True])
def test_a_seed_out_of_range_is_refused_naming_the_field(data, seed):
    with pytest.raises(ValidationError) as exc:
        blind("bad", seed=seed)
    assert "seed" in exc.value.message_dict
    assert not Campaign.objects.exists()


def test_the_form_and_the_api_refuse_a_negative_seed(cast, client_for, data):
    client = client_for(cast.admin)
    form = {"name": "page", "dataset": "demo", "models": MODELS[0], "sample_fraction": "0.5", "overlap": "1", "reservation_hours": "2"}
    form |= {"gold_rate": "0", "min_tier_for_hard": "1", "piece_rate": "0", "seed": "-1"}
    page = client.post("/work/manage/campaigns/new/", form)
    assert page.status_code == 400 and "seed" in page.context["form"].errors
    body = {"name": "api", "dataset": "demo", "models": [MODELS[0]], "overlap": 1, "seed": -1}
    answer = client.post("/api/v1/annotation/manage/campaigns/", body, content_type="application/json")
    assert answer.status_code == 400 and "seed" in answer.content.decode()
    assert not Campaign.objects.exists()
