"""`score --source consensus` scores a model with the human golden standard."""

import io

import pytest
from django.core.exceptions import ValidationError
from django.core.management import call_command

from heartbench_core import verdict_sources
from heartbench_core.models import Dataset
from heartbench_core.verdict_sources import load_verdicts
from tests.validation.builders import blind_test
from validation.models import GoldenLabel
from validation.scoring_source import load_consensus
from validation.services.agreement_reports import create_agreement_report


@pytest.fixture(autouse=True)
def consensus_registered(monkeypatch):
    """The app registers the source at start-up; tests elsewhere may have swapped the registry entry."""
    monkeypatch.setitem(verdict_sources._SOURCES, "consensus", load_consensus)


def test_the_app_registers_the_consensus_source_at_start_up():
    from django.apps import apps

    verdict_sources._SOURCES.pop("consensus", None)
    apps.get_app_config("validation").ready()
    assert verdict_sources._SOURCES["consensus"] is load_consensus


def test_the_consensus_source_loads_the_golden_labels_of_one_model(cast):
    campaign = blind_test(cast)
    create_agreement_report(campaign=campaign, resamples=20)
    verdicts = load_verdicts("consensus", dataset=Dataset.objects.get(name="demo"), model="demo-model-aurora")
    stored = dict(
        GoldenLabel.objects.filter(campaign_response__response__model__name="demo-model-aurora").values_list("criterion_id", "hit")
    )
    assert dict(zip(verdicts.criterion_id.tolist(), verdicts.hit.tolist())) == stored
    assert verdicts.meta["campaign"] == campaign.name


def test_the_score_command_accepts_the_consensus_source(cast):
    campaign = blind_test(cast)
    create_agreement_report(campaign=campaign, resamples=20)
    out = io.StringIO()
    call_command("score", "--dataset", "demo", "--model", "demo-model-aurora", "--source", "consensus", stdout=out)
    assert out.getvalue().strip()


def test_without_a_golden_standard_the_source_says_so(cast):
    blind_test(cast)
    with pytest.raises(ValidationError, match="no human golden standard"):
        load_verdicts("consensus", dataset=Dataset.objects.get(name="demo"), model="demo-model-aurora")
