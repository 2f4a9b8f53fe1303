import pytest
from django.urls import reverse

from annotation.models import Judgment
from heartbench_core.models import JudgeVerdict
from heartbench_core.selectors import stale_q
from rubrics.selectors import stale_rows
from tests.factories import demo_responses
from tests.rubrics.conftest import approve_by_panel, edit, human_judgments, judge

pytestmark = pytest.mark.django_db


@pytest.fixture
def judged(cast, version, criterion):
    demo_responses()
    judge(version, "dm0001", {"demo-model-aurora": {0: True, 1: False}, "demo-model-cirrus": {0: False}})
    human_judgments(version, "dm0001", "demo-model-aurora", cast.experts, [{0: True, 1: True}, {0: True, 1: False}, {0: False, 1: False}])
    return version


def stale_counts():
    return Judgment.objects.filter(stale_q("criterion")).count(), JudgeVerdict.objects.filter(stale_q("criterion")).count()


def test_a_wording_change_marks_nothing_stale(cast, criterion, judged):
    approve_by_panel(edit(cast, criterion, text="AI识别出用户的疲惫、倦怠或者无力感"), cast.reviewers)
    criterion.lineage.refresh_from_db()
    assert (criterion.lineage.current_revision, criterion.lineage.meaning_revision) == (2, 1)
    assert stale_counts() == (0, 0)
    assert stale_rows(judged.dataset) == []


@pytest.mark.parametrize(
    "change",
    [
        {"weight": 4},
        {"weight": -3},
        {"ability": "情绪理解"},
        {"ability": "其他", "weight": None},
        {"text": "AI识别出用户的愤怒", "meaning_changed": True},
    ],
)
def test_a_semantic_change_marks_older_judgments_and_verdicts_stale(cast, criterion, judged, change):
    approve_by_panel(edit(cast, criterion, **change), cast.reviewers)
    assert stale_counts() == (3, 2)  # three experts and two judge verdicts on criterion 0; criterion 1 untouched
    rows = stale_rows(judged.dataset)
    assert {r["response"] for r in rows} == set(
        JudgeVerdict.objects.filter(criterion=criterion).values_list("response__public_id", flat=True)
    )
    assert sum(r["judgments"] for r in rows) == 3 and sum(r["verdicts"] for r in rows) == 2
    assert all(r["judged_revision"] == 1 and r["meaning_revision"] == 2 for r in rows)


def test_a_semantic_change_still_in_review_marks_nothing_stale(cast, criterion, judged):
    edit(cast, criterion, weight=6)
    assert stale_counts() == (0, 0)


def test_the_stale_list_is_on_a_staff_page_and_in_the_api_without_model_names(cast, client_for, criterion, judged):
    approve_by_panel(edit(cast, criterion, weight=4), cast.reviewers)
    page = client_for(cast.admin).get(reverse("rubrics:stale", args=["demo"]))
    body = page.content.decode()
    assert page.status_code == 200 and "demo-model" not in body
    assert "<strong>3</strong> expert judgments" in body
    api = client_for(cast.author).get("/api/v1/rubrics/stale/?dataset=demo").json()
    assert (api["responses"], api["judgments"], api["verdicts"]) == (2, 3, 2)
    assert "demo-model" not in str(api)
    for user in (cast.expert, cast.outsider):
        assert client_for(user).get(reverse("rubrics:stale", args=["demo"])).status_code == 403
        assert client_for(user).get("/api/v1/rubrics/stale/?dataset=demo").status_code == 403


def test_the_stale_list_is_empty_for_an_author_who_is_an_expert_of_an_open_campaign_on_the_dataset(cast, client_for, criterion, judged):
    """Which responses carry experts' judgments tells which were sampled: the whole dataset is left out for them."""
    from annotation.services.campaigns import create_campaign
    from heartbench_core.roles import Role
    from tests.conftest import make_user

    approve_by_panel(edit(cast, criterion, weight=4), cast.reviewers)
    dual = make_user("stale_dual", Role.RUBRIC_AUTHOR, Role.EXPERT)
    models = ["demo-model-aurora", "demo-model-cirrus"]
    create_campaign(name="open", dataset_name="demo", model_names=models, sample_fraction=1.0, overlap=1,
                    expert_usernames=[dual.username], requires_qualification=False)  # fmt: skip
    assert client_for(cast.author).get("/api/v1/rubrics/stale/?dataset=demo").json()["responses"] == 2
    api = client_for(dual).get("/api/v1/rubrics/stale/?dataset=demo").json()
    assert (api["responses"], api["judgments"], api["verdicts"]) == (0, 0, 0)
    page = client_for(dual).get(reverse("rubrics:stale", args=["demo"]))
    assert page.status_code == 200 and "<strong>3</strong> expert judgments" not in page.content.decode()
