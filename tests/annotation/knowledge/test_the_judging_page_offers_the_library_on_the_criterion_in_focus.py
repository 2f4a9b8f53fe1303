"""The judging page offers the library in a side panel loaded only when opened: the guidelines in force, the FAQ
entries and cases on the criterion in focus (by lineage key, so across dataset versions), and search. What the
expert opens, and whether it helped, is recorded; nothing of other raters."""

import json

import pytest
from django.urls import reverse

from annotation.knowledge.models import LibraryOpen
from annotation.models import Assignment
from annotation.services.campaigns import create_campaign
from annotation.services.guidelines import publish_dataset_guidelines
from heartbench_core.models import Criterion
from heartbench_core.services.datasets import import_heartbench
from tests.annotation.knowledge.conftest import MODELS, published_faq, written_case
from tests.factories import DEMO_ITEMS

pytestmark = pytest.mark.django_db


@pytest.fixture
def assignment(cast, library):
    return Assignment.objects.create(campaign_response=library.entry("dm0001"), expert=cast.expert)


def _panel(client, assignment, criterion=None, **params):
    query = {"criterion": criterion.pk} if criterion else {}
    return client.get(reverse("annotation:judge_library", args=[assignment.public_id]), {**query, **params}, HTTP_HX_REQUEST="true")


def test_the_judging_page_holds_only_the_panels_place_and_its_link(cast, library, assignment, client_for):
    published_faq(cast, library.dataset, question="一个不该预先加载的问题")
    page = client_for(cast.expert).get(reverse("annotation:judge", args=[assignment.public_id])).content.decode()
    url = reverse("annotation:judge_library", args=[assignment.public_id])
    assert f'data-url="{url}"' in page and f'href="{url}"' in page
    assert "一个不该预先加载的问题" not in page  # lazy: nothing of the library is read for the page itself


def test_the_panel_lists_the_entries_on_the_criterion_in_focus_and_on_its_ability(
    cast, library, assignment, client_for, django_assert_max_num_queries
):
    first = assignment.campaign_response.item.criteria.get(position=0)
    other = assignment.campaign_response.item.criteria.get(position=1)
    own = published_faq(cast, library.dataset, question="本条的问题", criteria=[first.lineage_id])
    by_ability = published_faq(cast, library.dataset, question="本能力的问题", abilities=[first.ability])
    elsewhere = published_faq(cast, library.dataset, question="别的条目的问题", criteria=[other.lineage_id])
    case = written_case(cast, first, title="本条的案例")
    client = client_for(cast.expert)
    _panel(client, assignment, first)  # the session is warm
    # Session, user, roles, the assignment; the criterion; the guidelines in force; the FAQ entries on it and on its ability;
    # the cases (with the blind scope).
    with django_assert_max_num_queries(11):
        body = _panel(client, assignment, first).content.decode()
    assert own.question in body and by_ability.question in body and case.title in body
    assert elsewhere.question not in body
    assert "<html" not in body
    moved = _panel(client, assignment, other).content.decode()
    assert elsewhere.question in moved and own.question not in moved and case.title not in moved


def test_the_panel_holds_the_guidelines_in_force(cast, library, assignment, client_for):
    publish_dataset_guidelines(dataset=library.dataset, body="**先写理由**，再判定。", author=cast.admin)
    body = _panel(client_for(cast.expert), assignment).content.decode()
    assert "<strong>先写理由</strong>" in body and "revision 1" in body


def test_the_panel_searches_with_the_guidelines_in_force_and_marks_the_matches(cast, library, assignment, client_for):
    publish_dataset_guidelines(dataset=library.dataset, body="# 共情\n说出用户的感受就是共情。", author=cast.admin)
    published_faq(cast, library.dataset, question="怎样算共情？")
    first = assignment.campaign_response.item.criteria.get(position=0)
    body = _panel(client_for(cast.expert), assignment, first, q="共情", part="results").content.decode()
    assert body.count("<mark>共情</mark>") >= 3  # the guidelines' heading and text, the FAQ entry's question
    assert 'id="library-q"' not in body  # only the results were swapped, the search box keeps its caret


def test_another_experts_assignment_or_a_foreign_criterion_answers_404(cast, library, assignment, client_for):
    foreign = Criterion.objects.filter(item__version=library.version).exclude(item=assignment.campaign_response.item).first()
    assert _panel(client_for(cast.experts[1]), assignment).status_code == 404
    assert _panel(client_for(cast.expert), assignment, foreign).status_code == 404
    assert client_for(cast.reviewer).get(reverse("annotation:judge_library", args=[assignment.public_id])).status_code == 403


def test_opening_an_entry_records_who_opened_what_from_which_campaign_and_criterion_and_whether_it_helped(
    cast, library, assignment, client_for
):
    first = assignment.campaign_response.item.criteria.get(position=0)
    entry = published_faq(cast, library.dataset, criteria=[first.lineage_id])
    case = written_case(cast, first)
    client = client_for(cast.expert)
    url = reverse("annotation:judge_library_entry", args=[assignment.public_id])
    opened = client.get(url, {"faq": entry.pk, "criterion": first.pk}, HTTP_HX_REQUEST="true").content.decode()
    assert entry.question in opened and "Did this help?" in opened
    client.get(url, {"case": case.pk}, HTTP_HX_REQUEST="true")
    row = LibraryOpen.objects.get(faq=entry)
    assert (row.user, row.campaign, row.lineage_id, row.helped) == (cast.expert, library.campaign, first.lineage_id, None)
    client.post(reverse("annotation:judge_library_helped", args=[assignment.public_id]), {"faq": entry.pk, "helped": "yes"})
    row.refresh_from_db()
    assert row.helped is True
    assert LibraryOpen.objects.filter(case=case, user=cast.expert, campaign=library.campaign).count() == 1
    assert client.get(url).status_code == 400  # no entry named
    assert client.get(url, {"faq": 999999}).status_code == 404


def test_entries_follow_their_criterion_into_a_new_dataset_version(cast, library, client_for, tmp_path):
    first = library.criterion("dm0001", 0)
    entry = published_faq(cast, library.dataset, question="跟随评分项的问题", criteria=[first.lineage_id])
    lines = [json.loads(line) for line in DEMO_ITEMS.read_text(encoding="utf-8").splitlines() if line.strip()]
    lines[0]["rubric"][0]["content"] += "（措辞更清楚）"
    reworded = tmp_path / "demo_v2.jsonl"
    reworded.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in lines) + "\n", encoding="utf-8")
    version2 = import_heartbench(source=reworded, dataset_name="demo").version
    campaign2 = create_campaign(
        name="Blind test on v2",
        dataset_name="demo",
        version_label=version2.label,
        model_names=MODELS,
        sample_fraction=1.0,
        overlap=1,
        expert_usernames=[cast.expert.username],
        requires_qualification=False,
    ).campaign
    entry2 = campaign2.responses.filter(item__question_id="dm0001").first()
    assignment = Assignment.objects.create(campaign_response=entry2, expert=cast.expert)
    snapshot = entry2.item.criteria.get(position=0)
    assert snapshot.pk != first.pk and snapshot.lineage_id == first.lineage_id and snapshot.text != first.text
    assert entry.question in _panel(client_for(cast.expert), assignment, snapshot).content.decode()
