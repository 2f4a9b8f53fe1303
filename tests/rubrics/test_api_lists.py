"""The stale list and the authors' work list in the API: in pages, narrowed by filters, bad filters refused."""

import json

import pytest
from drf_spectacular.generators import SchemaGenerator
from rest_framework.pagination import PageNumberPagination

from annotation.models import Assignment, UnclearCriterionReport
from heartbench_core.models import Criterion
from rubrics import services
from rubrics.selectors import work_list
from tests.factories import demo_responses
from tests.rubrics.conftest import approve_by_panel, edit, human_judgments, judge

pytestmark = pytest.mark.django_db

MODELS = ("demo-model-aurora", "demo-model-borealis", "demo-model-cirrus")
STALE = "/api/v1/rubrics/stale/"
WORK = "/api/v1/rubrics/worklist/"


@pytest.fixture
def small_pages(monkeypatch):
    monkeypatch.setattr(PageNumberPagination, "page_size", 2)


def first_criterion(version, question_id):
    return Criterion.objects.select_related("lineage").get(item__version=version, item__question_id=question_id, position=0)


def every_page(client, url, query):
    """The pages of a list, following `next` links."""
    pages = [client.get(url, query).json()]
    while pages[-1]["next"]:
        pages.append(client.get(pages[-1]["next"]).json())
    return pages


@pytest.fixture
def two_changed_meanings(cast, version):
    """dm0001 and dm0002: three judge verdicts and three expert judgments each on criterion 0, whose meaning then changes."""
    demo_responses()
    for qid in ("dm0001", "dm0002"):
        judge(version, qid, {m: {0: True, 1: False} for m in MODELS})
        human_judgments(version, qid, "demo-model-aurora", cast.experts, [{0: True}, {0: False}, {0: True}])
        criterion = first_criterion(version, qid)
        approve_by_panel(edit(cast, criterion, text=criterion.text + "（重新界定）", meaning_changed=True), cast.reviewers)
    return version


def test_the_stale_list_comes_in_pages_with_totals_over_every_row(cast, client_for, two_changed_meanings, small_pages):
    pages = every_page(client_for(cast.author), STALE, {"dataset": "demo"})
    assert len(pages) == 3 and {p["count"] for p in pages} == {6}
    rows = [r for p in pages for r in p["results"]]
    assert len({(r["response"], r["criterion_key"]) for r in rows}) == 6
    assert [r["question_id"] for r in rows] == ["dm0001"] * 3 + ["dm0002"] * 3
    for page in pages:  # every page carries the totals of the whole list, not of its own rows
        assert (page["responses"], page["judgments"], page["verdicts"]) == (6, 3 + 3, 3 + 3)


def test_the_stale_list_narrows_to_one_question_and_so_do_its_totals(cast, client_for, two_changed_meanings):
    body = client_for(cast.author).get(STALE, {"dataset": "demo", "question_id": "dm0002"}).json()
    assert body["count"] == 3 and {r["question_id"] for r in body["results"]} == {"dm0002"}
    assert (body["responses"], body["judgments"], body["verdicts"]) == (3, 3, 3)
    untouched = client_for(cast.author).get(STALE, {"dataset": "demo", "question_id": "dm0003"}).json()
    assert (untouched["count"], untouched["responses"], untouched["results"]) == (0, 0, [])


@pytest.fixture
def work(cast, version, settings):
    """Signals on dm0001 (criteria 0 and 1 ambiguous and saturated), one unclear report there, three flags on dm0002."""
    settings.RUBRICS_AMBIGUITY = {"threshold": 0.75, "min_units": 2}
    demo_responses()
    judge(version, "dm0001", {m: {0: True, 1: True} for m in MODELS})
    for model in MODELS[:2]:
        human_judgments(version, "dm0001", model, cast.experts, [{0: True, 1: True}, {0: False, 1: True}, {0: True, 1: False}])
    UnclearCriterionReport.objects.create(
        assignment=Assignment.objects.first(), criterion=first_criterion(version, "dm0001"), comment="“无力感”指什么？"
    )
    for criterion in Criterion.objects.filter(item__version=version, item__question_id="dm0002", position__lt=3):
        services.flag_criterion(lineage=criterion.lineage, reason=f"check criterion {criterion.position}", source="test")
    return version


def test_the_work_list_comes_in_pages_in_a_stable_order(cast, client_for, work, small_pages):
    pages = every_page(client_for(cast.author), WORK, {"dataset": "demo"})
    assert len(pages) == 4 and {p["count"] for p in pages} == {8}
    listed = [(e["kind"], e["criterion_key"], e["object_id"]) for p in pages for e in p["results"]]
    assert listed == [(w.kind, w.criterion_key, w.object_id) for w in work_list(work.dataset)]
    assert sorted(kind for kind, _, _ in listed) == ["ambiguous"] * 2 + ["flag"] * 3 + ["saturated"] * 2 + ["unclear"]


@pytest.mark.parametrize(
    "query, expected",
    [
        ({"kind": "flag"}, [("flag", "dm0002")] * 3),
        ({"kind": "unclear"}, [("unclear", "dm0001")]),
        ({"question_id": "dm0002"}, [("flag", "dm0002")] * 3),
        ({"question_id": "dm0001", "kind": "saturated"}, [("saturated", "dm0001")] * 2),
        ({"question_id": "dm0001", "kind": "flag"}, []),
    ],
)
def test_the_work_list_narrows_by_kind_and_question(cast, client_for, work, query, expected):
    body = client_for(cast.author).get(WORK, {"dataset": "demo", **query}).json()
    assert [(e["kind"], e["question_id"]) for e in body["results"]] == expected and body["count"] == len(expected)


def test_the_selector_filters_agree_with_filtering_the_whole_list(work):
    whole = work_list(work.dataset)
    for kind in ("ambiguous", "saturated", "unclear", "flag", "stale"):
        for qid in (None, "dm0001", "dm0002"):
            expected = [w for w in whole if w.kind == kind and qid in (None, w.question_id)]
            assert work_list(work.dataset, kind=kind, question_id=qid) == expected, (kind, qid)


@pytest.mark.parametrize("url", [STALE, WORK])
@pytest.mark.parametrize(
    "query, parameter",
    [({}, "dataset"), ({"dataset": "nope"}, "dataset"), ({"dataset": "demo", "question_id": "dm9999"}, "question_id")],
)
def test_a_bad_filter_is_a_400_naming_the_parameter(cast, client_for, version, url, query, parameter):
    response = client_for(cast.author).get(url, query)
    assert response.status_code == 400 and list(response.json()) == [parameter]


def test_an_unknown_kind_of_work_is_a_400(cast, client_for, version):
    # "stale" became a kind of the list (judgments made against an older meaning); "obsolete" is none.
    response = client_for(cast.author).get(WORK, {"dataset": "demo", "kind": "obsolete"})
    assert response.status_code == 400 and list(response.json()) == ["kind"]


def test_the_schema_documents_the_stale_totals_next_to_the_page():
    schema = json.loads(json.dumps(SchemaGenerator().get_schema(request=None, public=True), default=str))
    ref = schema["paths"][STALE]["get"]["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]
    page = schema["components"]["schemas"][ref.rsplit("/", 1)[-1]]
    assert {"count", "responses", "judgments", "verdicts", "results"} <= set(page["required"])
    assert page["properties"]["judgments"]["type"] == "integer"
    assert page["properties"]["results"]["items"]["$ref"].endswith("/StaleRow")


@pytest.mark.parametrize("name", ["rubrics-api-stale", "rubrics-api-worklist"])
def test_a_nul_byte_in_a_filter_is_a_400_naming_it(client_for, cast, name):
    from django.urls import reverse

    response = client_for(cast.admin).get(reverse(name), {"dataset": "demo\x00"})
    assert response.status_code == 400 and "dataset" in response.json()
    response = client_for(cast.admin).get(reverse(name), {"dataset": "demo", "question_id": "dm\x00"})
    assert response.status_code == 400 and "question_id" in response.json()
