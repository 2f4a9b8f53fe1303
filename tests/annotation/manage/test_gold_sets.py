"""Gold sets: a pool of hidden gold checks of its own, disjoint from every calibration set, in which nobody works."""

import io

import pytest
from django.core.exceptions import ValidationError
from django.core.management import CommandError, call_command

from annotation.manage.selectors import expert_campaigns
from annotation.models import Assignment, Campaign, CampaignResponse, GoldLabel
from annotation.services.assignment import assign_next_response, bulk_assign
from annotation.services.campaigns import create_calibration, create_campaign
from annotation.services.payments import payment_lines
from annotation.workspace.selectors import campaigns_for_expert
from heartbench_core.models import LanguageModel, ModelResponse
from tests.factories import demo_responses, demo_version

from .helpers import MODELS, gold_file, gold_set, judge, qualify

pytestmark = pytest.mark.django_db

API = "/api/v1/annotation"
CALIBRATION_PICKS = [("dm0001", "demo-model-aurora"), ("dm0002", "demo-model-borealis")]


@pytest.fixture
def version(cast):
    v = demo_version()
    demo_responses()
    qualify(*cast.experts)
    return v


def blind(cast, pool, **kwargs):
    """A blind test over borealis and cirrus drawing gold checks from `pool` (aurora's answers come in place of one of theirs)."""
    return create_campaign(
        name=kwargs.pop("name", "Blind"),
        dataset_name="demo",
        model_names=kwargs.pop("models", MODELS[1:]),
        sample_fraction=1.0,
        overlap=2,
        gold_source=pool,
        gold_rate=kwargs.pop("gold_rate", 0.5),
        expert_usernames=[e.username for e in cast.experts],
        **kwargs,
    )


def test_a_gold_set_holds_its_gold_labelled_responses_as_gold(version):
    pool = gold_set(version)
    assert pool.kind == Campaign.Kind.GOLD_SET
    assert CampaignResponse.objects.filter(campaign=pool, is_gold=True).count() == 3
    assert GoldLabel.objects.filter(campaign_response__campaign=pool).exists()
    assert not pool.experts.exists()


def test_a_blind_test_copies_its_gold_checks_from_the_gold_set(cast, version):
    pool = gold_set(version, picks=[("dm0005", "demo-model-aurora"), ("dm0006", "demo-model-aurora")])
    outcome = blind(cast, pool)
    assert outcome.gold == 2
    gold = CampaignResponse.objects.filter(campaign=outcome.campaign, is_gold=True)
    assert set(gold.values_list("response__question_id", flat=True)) == {"dm0005", "dm0006"}
    assert (
        GoldLabel.objects.filter(campaign_response__in=gold).count() == GoldLabel.objects.filter(campaign_response__campaign=pool).count()
    )
    assert outcome.campaign.settings.gold_source == pool


def test_a_calibration_set_is_refused_as_a_gold_source_naming_the_field(cast, version):
    calibration = create_calibration(name="Cal", dataset_name="demo", source=gold_file(version, picks=CALIBRATION_PICKS)).campaign
    with pytest.raises(ValidationError) as exc:
        blind(cast, calibration)
    assert "is a calibration set" in exc.value.message_dict["gold_source"][0]
    assert not Campaign.objects.filter(name="Blind").exists()


def test_a_gold_set_sharing_a_response_with_a_calibration_set_is_refused_with_the_count_and_the_set(cast, version):
    pool = gold_set(version, picks=[("dm0005", "demo-model-aurora"), ("dm0006", "demo-model-aurora")])
    calibration = create_calibration(
        name="Cal", dataset_name="demo", source=gold_file(version, picks=[("dm0004", "demo-model-cirrus")])
    ).campaign
    # An overlap that arose after both sets existed (the services refuse one at creation) is still caught.
    CampaignResponse.objects.filter(campaign=calibration).update(
        response=ModelResponse.objects.get(question_id="dm0005", model__name="demo-model-aurora")
    )
    with pytest.raises(ValidationError) as exc:
        blind(cast, pool)
    assert "1 with calibration set 'Cal'" in exc.value.message_dict["gold_source"][0]
    assert not Campaign.objects.filter(name="Blind").exists()


def test_a_gold_set_overlapping_a_calibration_set_is_refused_when_created(version):
    create_calibration(name="Cal", dataset_name="demo", source=gold_file(version, picks=CALIBRATION_PICKS))
    with pytest.raises(ValidationError) as exc:
        gold_set(version, picks=[("dm0001", "demo-model-aurora"), ("dm0002", "demo-model-borealis"), ("dm0005", "demo-model-aurora")])
    assert "2 with calibration set 'Cal'" in exc.value.message_dict["source"][0]
    assert not Campaign.objects.filter(kind=Campaign.Kind.GOLD_SET).exists()


def test_byte_identical_text_to_the_same_question_counts_as_the_same_response(version):
    original = ModelResponse.objects.get(question_id="dm0001", model__name="demo-model-aurora")
    copycat = LanguageModel.objects.create(name="copycat-model")
    ModelResponse.objects.create(dataset=original.dataset, question_id="dm0001", model=copycat, text=original.text, imported_for=version)
    create_calibration(name="Cal", dataset_name="demo", source=gold_file(version, picks=CALIBRATION_PICKS))
    with pytest.raises(ValidationError, match="1 with calibration set 'Cal'"):
        gold_set(version, picks=[("dm0001", "copycat-model")])


def test_a_calibration_file_overlapping_a_gold_set_is_refused(version):
    gold_set(version)
    with pytest.raises(ValidationError) as exc:
        create_calibration(name="Cal", dataset_name="demo", source=gold_file(version, picks=[("dm0005", "demo-model-borealis")]))
    assert "1 with gold set 'Gold pool'" in exc.value.message_dict["source"][0]
    assert not Campaign.objects.filter(name="Cal").exists()


def test_a_calibration_file_repeating_a_hidden_gold_check_is_refused_even_once_its_gold_set_is_gone(cast, version):
    pool = gold_set(version, picks=[("dm0005", "demo-model-aurora"), ("dm0006", "demo-model-aurora")])
    blind(cast, pool)
    GoldLabel.objects.filter(campaign_response__campaign=pool).delete()
    pool.delete()
    with pytest.raises(ValidationError) as exc:
        create_calibration(name="Cal", dataset_name="demo", source=gold_file(version, picks=[("dm0006", "demo-model-aurora")]))
    assert "1 with the hidden gold checks of campaign 'Blind'" in exc.value.message_dict["source"][0]


def test_a_gold_set_on_another_version_is_refused(cast, version):
    pool = gold_set(version)
    from heartbench_core.models import DatasetVersion

    other = DatasetVersion.objects.create(dataset=version.dataset, number=version.number + 1, label="v-other")
    Campaign.objects.filter(pk=pool.pk).update(version=other)
    pool.refresh_from_db()
    with pytest.raises(ValidationError) as exc:
        blind(cast, pool, version_label=version.label)
    assert "v-other" in exc.value.message_dict["gold_source"][0]


def test_nobody_is_ever_given_work_in_a_gold_set(cast, version):
    pool = gold_set(version)
    assert assign_next_response(expert=cast.expert, campaign=pool) is None
    with pytest.raises(ValidationError, match="gold set"):
        bulk_assign(campaign=pool)
    assert not Assignment.objects.exists()


def test_a_gold_set_never_shows_in_an_experts_campaign_lists(cast, client_for, version):
    pool = gold_set(version)
    assert pool not in expert_campaigns(cast.expert)
    assert pool not in campaigns_for_expert(cast.expert)
    page = client_for(cast.expert).get("/work/").content.decode()
    assert pool.name not in page


def test_a_gold_response_repeating_a_sampled_answer_word_for_word_takes_that_answers_place(cast, version):
    sampled = ModelResponse.objects.get(question_id="dm0005", model__name="demo-model-borealis")
    copycat = LanguageModel.objects.create(name="copycat-model")
    ModelResponse.objects.create(dataset=sampled.dataset, question_id="dm0005", model=copycat, text=sampled.text, imported_for=version)
    pool = gold_set(version, picks=[("dm0005", "copycat-model"), ("dm0006", "demo-model-aurora")])
    for seed in range(5):
        campaign = blind(cast, pool, name=f"Blind {seed}", seed=seed).campaign
        texts = list(campaign.responses.filter(item__question_id="dm0005").values_list("response__text", flat=True))
        # Whichever of its two answers the gold checks replace, the expert never meets the same text twice.
        assert len(texts) == 2 and len(set(texts)) == 2
        gold = campaign.responses.filter(is_gold=True, item__question_id="dm0005").first()
        if gold is not None:
            assert gold.response.model == copycat and not campaign.responses.filter(response=sampled).exists()


def test_a_gold_rate_with_no_usable_gold_check_is_refused(cast, version):
    """A gold check takes the place of one model's answer and needs another: a one-model blind test has no room for one."""
    pool = gold_set(version, picks=[("dm0005", "demo-model-borealis")])
    with pytest.raises(ValidationError) as exc:
        blind(cast, pool, models=MODELS[1:2])
    assert "another chosen model must answer that question too" in exc.value.message_dict["gold_source"][0]
    assert not Campaign.objects.filter(name="Blind").exists()


def test_a_gold_response_of_a_chosen_model_is_that_models_answer_held_as_gold(cast, version):
    pool = gold_set(version, picks=[("dm0005", "demo-model-borealis")])
    campaign = blind(cast, pool).campaign
    gold = campaign.responses.get(is_gold=True)
    assert gold.response == ModelResponse.objects.get(question_id="dm0005", model__name="demo-model-borealis")
    assert campaign.responses.filter(item__question_id="dm0005").count() == 2


def test_a_gold_check_is_paid_like_any_work(cast, version):
    pool = gold_set(version)
    campaign = blind(cast, pool, gold_rate=0.9, piece_rate=2).campaign
    kinds = []
    while (a := assign_next_response(expert=cast.expert, campaign=campaign)) is not None:
        kinds.append(a.campaign_response.is_gold)
        judge(a)
    assert any(kinds) and not all(kinds)
    (line,) = payment_lines(campaign)
    assert line.submitted == len(kinds) and line.amount == 2 * len(kinds)


def test_the_command_creates_a_gold_set_and_refuses_an_overlap(cast, version, tmp_path, capsys):
    path = tmp_path / "gold.jsonl"
    path.write_bytes(gold_file(version, picks=[("dm0005", "demo-model-aurora")]).getvalue())
    call_command("create_gold_set", "Gold by command", str(path), "--dataset", "demo")
    assert capsys.readouterr().out.strip() == "1"
    assert Campaign.objects.get(name="Gold by command").kind == Campaign.Kind.GOLD_SET
    with pytest.raises(CommandError, match="source: .*gold set 'Gold by command'"):
        call_command("create_calibration", "Cal", str(path), "--dataset", "demo")


def test_an_admin_creates_a_gold_set_on_the_page_and_the_api(cast, client_for, version):
    c = client_for(cast.admin)
    assert c.get("/work/manage/gold-sets/new/").status_code == 200
    r = c.post(
        "/work/manage/gold-sets/new/",
        {"name": "Gold page", "dataset": "demo", "gold_file": gold_file(version, picks=[("dm0005", "demo-model-aurora")])},
    )
    assert r.status_code == 302
    assert Campaign.objects.get(name="Gold page").kind == Campaign.Kind.GOLD_SET
    r = c.post(
        f"{API}/manage/gold-sets/",
        {"name": "Gold api", "dataset": "demo", "file": gold_file(version, picks=[("dm0006", "demo-model-aurora")])},
        format="multipart",
    )
    assert r.status_code == 201 and r.json()["kind"] == "gold_set"
    bad = io.BytesIO(b'{"question_id": "dm0001", "model": "demo-model-aurora", "labels": "all"}\n')
    bad.name = "gold.jsonl"
    r = c.post(f"{API}/manage/gold-sets/", {"name": "Gold bad", "dataset": "demo", "file": bad}, format="multipart")
    assert r.status_code == 400 and r.json()["errors"][0]["field"] == "labels"
    assert client_for(cast.expert).get("/work/manage/gold-sets/new/").status_code == 403


def test_the_campaign_form_offers_only_gold_sets_as_gold_sources(cast, client_for, version):
    gold_set(version)
    create_calibration(name="Cal", dataset_name="demo", source=gold_file(version, picks=CALIBRATION_PICKS))
    html = client_for(cast.admin).get("/work/manage/campaigns/new/").content.decode()
    assert "Gold pool" in html and ">Cal<" not in html


def test_whoever_imports_a_gold_set_is_never_given_its_checks_blind(cast, version):
    from django.contrib.auth.models import Group

    from annotation.services.campaigns import create_gold_set
    from heartbench_core.roles import Role

    importer = cast.experts[0]
    importer.groups.add(Group.objects.get_or_create(name=Role.ADMIN.value)[0])
    picks = [("dm0005", "demo-model-aurora"), ("dm0006", "demo-model-aurora")]
    pool = create_gold_set(name="Pool", dataset_name="demo", source=gold_file(version, picks=picks), created_by=importer).campaign
    campaign = blind(cast, pool, gold_rate=0.9).campaign
    served = []
    while (a := assign_next_response(expert=importer, campaign=campaign)) is not None:
        served.append(a.campaign_response)
        Assignment.objects.filter(pk=a.pk).update(status=Assignment.Status.SUBMITTED)
    assert served, "the importer was served nothing: the test proves nothing"
    assert not [cr for cr in served if cr.is_gold]
    other = []
    while (a := assign_next_response(expert=cast.experts[1], campaign=campaign)) is not None:
        other.append(a.campaign_response)
        Assignment.objects.filter(pk=a.pk).update(status=Assignment.Status.SUBMITTED)
    assert [cr for cr in other if cr.is_gold], "another expert gets the gold checks"
