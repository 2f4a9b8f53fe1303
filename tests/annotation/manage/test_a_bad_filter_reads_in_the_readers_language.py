"""A bad filter value reads in the reader's language on a page: the filter named by its label, the values it
takes by theirs, never the parameter's code; the API's 400 still names the parameter (heartbench_core.filters)."""

import importlib

import pytest
from django.utils.functional import Promise

from heartbench_core.filters import ListFilters

from .helpers import demo_campaign

pytestmark = pytest.mark.django_db

FILTER_MODULES = (
    "annotation.knowledge.filters",
    "annotation.manage.filters",
    "annotation.workspace.filters",
    "heartbench_core.datasets.filters",
    "heartbench_core.judging.filters",
    "heartbench_core.leaderboard.filters",
    "heartbench_core.people.filters",
    "rubrics.filters",
    "validation.filters",
)


def test_a_chinese_page_names_the_filter_and_its_values_in_chinese(cast, client_for):
    campaign = demo_campaign(cast, name="Blind test A")
    c = client_for(cast.admin)
    page = c.get("/work/manage/campaigns/", {"status": "nonsense"}, HTTP_ACCEPT_LANGUAGE="zh-hans")
    text = page.content.decode()
    assert page.status_code == 200 and campaign.name in text
    assert "状态：无效的值“nonsense”；可选：草稿、进行中、已暂停、已关闭。" in text
    assert "status:" not in text and "is not one of" not in text and "draft, active" not in text
    response = c.get("/api/v1/annotation/manage/campaigns/", {"status": "nonsense"}, HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert response.status_code == 400 and list(response.json()) == ["status"]


def test_every_list_filter_has_a_translatable_label():
    for module in FILTER_MODULES:
        importlib.import_module(module)
    found, unnamed = [], []

    def walk(cls: type[ListFilters]) -> None:
        for sub in cls.__subclasses__():
            found.append(sub)
            walk(sub)

    walk(ListFilters)
    for filter_set in found:
        unnamed += [f"{filter_set.__name__}.{name}" for name, f in filter_set.base_filters.items() if not isinstance(f._label, Promise)]
    assert found and unnamed == []
