"""A campaign's page names its first models and how many there are, not every model of a blind test of a thousand."""

import pytest
from django.urls import reverse
from django.utils import translation

from annotation.manage import read_models

from .helpers import MODELS, demo_campaign

pytestmark = pytest.mark.django_db


def test_the_page_names_the_first_models_with_their_count_and_a_way_to_all(cast, client_for, monkeypatch):
    monkeypatch.setattr(read_models, "MODELS_SHOWN", 2)
    campaign = demo_campaign(cast)
    url = reverse("annotation:campaign", args=[campaign.pk])
    first, second, third = sorted(MODELS)
    page = client_for(cast.admin).get(url).content.decode()
    assert first in page and second in page and third not in page
    assert "(the first 2 of 3)" in page and "?models=all#campaign-models" in page
    every = client_for(cast.admin).get(url, {"models": "all"}).content.decode()
    assert all(name in every for name in MODELS) and "?models=all#campaign-models" not in every


def test_a_campaign_with_few_models_names_them_all_without_a_link(cast, client_for):
    campaign = demo_campaign(cast)
    page = client_for(cast.admin).get(reverse("annotation:campaign", args=[campaign.pk])).content.decode()
    assert all(name in page for name in MODELS) and "?models=all" not in page


def test_the_count_reads_in_chinese(cast, client_for, monkeypatch):
    monkeypatch.setattr(read_models, "MODELS_SHOWN", 2)
    campaign = demo_campaign(cast)
    with translation.override("zh-hans"):
        page = (
            client_for(cast.admin).get(reverse("annotation:campaign", args=[campaign.pk]), HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
        )
    assert "（前 2 个，共 3 个）" in page and "显示全部模型" in page
