"""A report's page lists the first models of each per-model table (a report can compare thousands of models), says how
many there are, and lists every one on request (`?models=all`); the page's work follows what it shows."""

import pytest

from tests.validation.builders import MODELS, blind_test
from validation import views
from validation.services.agreement_reports import create_agreement_report

pytestmark = pytest.mark.django_db


def test_each_per_model_table_shows_the_first_models_and_the_rest_on_request(cast, client_for, monkeypatch):
    monkeypatch.setattr(views, "MODELS_SHOWN", 1)
    report = create_agreement_report(campaign=blind_test(cast))
    client = client_for(cast.admin)
    url = f"/validation/campaigns/{report.campaign_id}/"
    cut = client.get(url).content.decode()
    every = client.get(url, {"models": "all"}).content.decode()
    listed = [m for m in MODELS if f'<td translate="no">{m}</td>' in cut]
    assert cut.count(f"The first 1 of {len(MODELS)} models.") == 3  # the breakdown, the score impact and the calibrated scores
    assert 'href="?models=all#breakdown"' in cut and "The first 1 of" not in every
    for model in MODELS:
        assert every.count(f'<td translate="no">{model}</td>') > cut.count(f'<td translate="no">{model}</td>') or model in listed
    assert sum(cut.count(f'<td translate="no">{m}</td>') for m in MODELS) < sum(every.count(f'<td translate="no">{m}</td>') for m in MODELS)


def test_the_note_reads_in_chinese(cast, client_for, monkeypatch):
    monkeypatch.setattr(views, "MODELS_SHOWN", 1)
    report = create_agreement_report(campaign=blind_test(cast))
    page = client_for(cast.admin).get(f"/validation/campaigns/{report.campaign_id}/", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert f"仅列出前 1 个模型（共 {len(MODELS)} 个）。" in page and "显示全部模型" in page
