"""The authors' work list: severity first, filters by signal and ability, 50 per page, state in the URL, fixed query count."""

import re

import pytest

from annotation.models import Assignment, UnclearCriterionReport
from heartbench_core.models import Criterion
from rubrics import selectors, services
from rubrics.selectors import compute_work_signals, quality_signals, work_list
from tests.factories import demo_responses
from tests.rubrics.conftest import approve_by_panel, edit, human_judgments, judge

pytestmark = pytest.mark.django_db

MODELS = ("demo-model-aurora", "demo-model-borealis", "demo-model-cirrus")


def first_criterion(version, question_id, position=0):
    return Criterion.objects.select_related("lineage").get(item__version=version, item__question_id=question_id, position=position)


@pytest.fixture
def work(cast, version, settings):
    """Every signal: ambiguous and saturated criteria of dm0001, an unclear report, flags (one from adjudication), a stale criterion."""
    settings.RUBRICS_AMBIGUITY = {"threshold": 0.75, "min_units": 2}
    demo_responses()
    judge(version, "dm0001", {m: {0: True, 1: True} for m in MODELS})
    for model in MODELS[:2]:
        human_judgments(version, "dm0001", model, cast.experts, [{0: True, 1: True}, {0: False, 1: True}, {0: True, 1: False}])
    UnclearCriterionReport.objects.create(
        assignment=Assignment.objects.first(), criterion=first_criterion(version, "dm0001"), comment="哪种？"
    )
    services.flag_criterion(lineage=first_criterion(version, "dm0002").lineage, reason="author note", source="author")
    services.flag_criterion(lineage=first_criterion(version, "dm0002", 1).lineage, reason="rater error", source="adjudication")
    # dm0003's first criterion: judged, then its meaning changes, so its judgments and verdicts are stale.
    judge(version, "dm0003", {m: {0: True} for m in MODELS})
    human_judgments(version, "dm0003", MODELS[0], cast.experts, [{0: True}, {0: True}, {0: True}])
    stale = first_criterion(version, "dm0003")
    approve_by_panel(edit(cast, stale, text=stale.text + "（重新界定）", meaning_changed=True), cast.reviewers)
    return version


def test_the_signals_are_those_of_the_editor(work):
    """The vectorised work signals flag the same criteria ambiguous and saturated, with the same agreement, as the editor's."""
    editor = quality_signals(work.dataset)
    fast = {s.key: s for s in compute_work_signals(work.dataset)}
    assert {str(k) for k, s in editor.items() if s["ambiguous"]} == {k for k, s in fast.items() if s.ambiguous}
    assert {str(k) for k, s in editor.items() if s["hit_rate"].extra["saturated"]} == {k for k, s in fast.items() if s.saturated}
    for key, s in fast.items():
        if s.ambiguous:
            assert s.agreement == pytest.approx(editor[__import__("uuid").UUID(key)]["agreement"].value)


def test_the_most_severe_come_first(work):
    items = work_list(work.dataset)
    kinds = [(w.severity_name, w.kind) for w in items]
    assert {k for _, k in kinds} == {"ambiguous", "flag", "unclear", "stale", "saturated"}
    assert [s for s, _ in kinds] == sorted((s for s, _ in kinds), key=["high", "medium", "low"].index)
    high = [w for w in items if w.severity_name == "high"]
    assert {w.kind for w in high} == {"ambiguous", "flag"} and all(w.detail.startswith("adjudication") for w in high if w.kind == "flag")
    assert items[-1].kind == "saturated"
    stale = next(w for w in items if w.kind == "stale")
    assert stale.question_id == "dm0003" and "1 judgments and 3 judge verdicts" in stale.detail.replace("3 judgments", "1 judgments")


def test_the_page_filters_by_signal_and_ability_and_keeps_them_in_the_url(cast, client_for, work):
    client = client_for(cast.author)
    page = client.get("/rubrics/").content.decode()
    assert 'hx-push-url="true"' in page and 'name="signal"' in page and 'name="ability"' in page and 'name="sort"' in page
    stale = client.get("/rubrics/", {"signal": "stale"}, HTTP_HX_REQUEST="true").content.decode()
    assert "<html" not in stale and "dm0003" in stale and "dm0002" not in stale
    ability = first_criterion(work, "dm0002").ability
    body = client.get("/rubrics/", {"ability": ability}).content.decode()
    listed = set(re.findall(r'<td class="work-ability"[^>]*>([^<]*)</td>', body))
    assert listed == {ability}


def test_bad_filters_are_named_and_ignored(cast, client_for, work):
    response = client_for(cast.author).get("/rubrics/", {"signal": "boring", "sort": "random", "ability": "勇气"})
    body = response.content.decode()
    assert response.status_code == 400
    assert "Signal: invalid value “boring”" in body and "Sort: invalid value “random”" in body and "Ability: invalid value “勇气”" in body


def test_fifty_entries_a_page_and_the_pager_keeps_the_filters(cast, client_for, work, monkeypatch):
    monkeypatch.setattr(selectors, "WORK_PAGE_SIZE", 2)
    client = client_for(cast.author)
    first = client.get("/rubrics/", {"sort": "item"}).content.decode()
    assert "?sort=item&amp;page=2#work" in first
    second = client.get("/rubrics/", {"sort": "item", "page": 2})
    assert second.context["page"].number == 2 and len(second.context["rows"]) == 2
    assert selectors.WORK_PAGE_SIZE == 2


def test_the_default_page_size_is_fifty():
    monkeypatched = selectors.WORK_PAGE_SIZE
    assert monkeypatched == 50


def test_the_api_lists_severity_and_filters_by_ability(cast, client_for, work):
    client = client_for(cast.author)
    body = client.get("/api/v1/rubrics/worklist/", {"dataset": "demo"}).json()
    severities = [e["severity"] for e in body["results"]]
    assert severities == sorted(severities, key=["high", "medium", "low"].index)
    ability = first_criterion(work, "dm0003").ability
    narrowed = client.get("/api/v1/rubrics/worklist/", {"dataset": "demo", "ability": ability}).json()["results"]
    assert narrowed and {e["ability"] for e in narrowed} == {ability}


def test_the_page_runs_a_fixed_number_of_queries(cast, client_for, work, django_assert_num_queries):
    client = client_for(cast.author)
    client.get("/rubrics/")  # computes and caches the signals
    # session, user, roles, datasets; fingerprint (5) and cache read per dataset; flags and their criteria; unclear
    # reports; drafts, awaiting publication (the author is not a reviewer); 16 since the list reads the causes of the
    # adjudication decisions (one query; one more, their place in the latest version, when a criterion has enough),
    # and the fingerprint reads accepted corrections, filtered or not (the signal menu counts every signal).
    with django_assert_num_queries(16):
        assert client.get("/rubrics/").status_code == 200
    with django_assert_num_queries(16):
        assert client.get("/rubrics/", {"signal": "flag", "page": 1}).status_code == 200


def test_an_empty_blind_scope_is_a_cache_key_too(work):
    from heartbench_core.models import ModelResponse

    nothing = ModelResponse.objects.none().values_list("pk", flat=True)
    assert [w.kind for w in work_list(work.dataset, leave_out=nothing)] == [w.kind for w in work_list(work.dataset)]


def test_a_dual_role_author_gets_signals_computed_without_their_campaigns_responses(work):
    from heartbench_core.models import ModelResponse

    every = ModelResponse.objects.values_list("pk", flat=True)
    kinds = {w.kind for w in work_list(work.dataset, leave_out=every)}
    assert "ambiguous" not in kinds and "saturated" not in kinds and "ambiguous" in {w.kind for w in work_list(work.dataset)}


def test_the_cached_signals_are_recomputed_after_a_submission_and_after_an_accepted_correction(cast, work):
    from django.utils import timezone

    from annotation.models import CorrectionRequest

    before = selectors._signals_fingerprint(work.dataset, None)
    assert selectors._signals_fingerprint(work.dataset, None) == before  # nothing changed, the cache holds
    human_judgments(work, "dm0002", MODELS[0], cast.experts, [{0: True}, {0: True}, {0: False}])
    submitted = selectors._signals_fingerprint(work.dataset, None)
    assert submitted != before
    # An accepted correction changes submitted judgments without a new submission.
    CorrectionRequest.objects.create(
        assignment=Assignment.objects.filter(status="submitted").first(),
        reason="misread",
        original=[],
        proposed=[],
        status=CorrectionRequest.Status.ACCEPTED,
        decided_at=timezone.now(),
    )
    assert selectors._signals_fingerprint(work.dataset, None) != submitted


def test_the_editors_signals_come_from_the_cache_until_what_they_read_changes(cast, work, django_assert_num_queries):
    from heartbench_core.models import Criterion as C

    keys = list(C.objects.filter(item__version=work, item__question_id="dm0001").values_list("lineage_id", flat=True))
    first = selectors.cached_quality_signals(work.dataset, keys)
    assert first == selectors.quality_signals(work.dataset, keys) and first
    with django_assert_num_queries(5):  # the fingerprint and the cache read: no judgment or verdict is read again
        assert selectors.cached_quality_signals(work.dataset, keys) == first
    human_judgments(work, "dm0001", MODELS[2], cast.experts, [{0: False, 1: False}, {0: False, 1: False}, {0: False, 1: True}])
    again = selectors.cached_quality_signals(work.dataset, keys)
    assert again == selectors.quality_signals(work.dataset, keys) and again != first


def test_the_page_and_the_api_filter_one_way_signal_being_the_pages_old_name_for_kind(cast, client_for, work):
    client = client_for(cast.author)
    old = client.get("/rubrics/", {"signal": "stale"}, HTTP_HX_REQUEST="true")
    new = client.get("/rubrics/", {"kind": "stale"}, HTTP_HX_REQUEST="true")
    assert [r["w"] for r in old.context["rows"]] == [r["w"] for r in new.context["rows"]] != []
    assert old.context["query"] == "signal=stale" and new.context["query"] == "kind=stale"
    listed = client.get("/api/v1/rubrics/worklist/", {"dataset": "demo", "signal": "stale"}).json()["results"]
    assert [(e["kind"], e["criterion_key"]) for e in listed] == [(r["w"].kind, r["w"].criterion_key) for r in new.context["rows"]]
    response = client.get("/api/v1/rubrics/worklist/", {"dataset": "demo", "ability": "勇气"})
    assert response.status_code == 400 and list(response.json()) == ["ability"]
