import pytest
from django.urls import reverse

from rubrics import services
from rubrics.models import CriterionRevision
from tests.rubrics.conftest import edit

pytestmark = pytest.mark.django_db


def page_urls(criterion, rev):
    return [
        reverse("rubrics:index"),
        reverse("rubrics:dataset", args=["demo"]),
        reverse("rubrics:editor", args=["demo", "dm0001"]),
        reverse("rubrics:history", args=[criterion.lineage_id]),
        reverse("rubrics:revision", args=[rev.pk]),
        reverse("rubrics:audit"),
        reverse("rubrics:stale", args=["demo"]),
    ]


def test_staff_see_the_rubric_pages_and_experts_and_outsiders_do_not(cast, client_for, criterion):
    rev = edit(cast, criterion, weight=4)
    for user in (cast.admin, cast.author, cast.reviewer):
        for url in page_urls(criterion, rev):
            assert client_for(user).get(url).status_code == 200, (user, url)
    for user in (cast.expert, cast.outsider):
        for url in [*page_urls(criterion, rev), reverse("rubrics:review")]:
            assert client_for(user).get(url).status_code == 403, (user, url)


def test_the_editor_shows_the_dialogue_beside_the_criteria_with_edit_links_for_authors(cast, client_for, criterion):
    body = client_for(cast.author).get(reverse("rubrics:editor", args=["demo", "dm0006"])).content.decode()
    assert "A · help-seeker" in body and body.count('class="criterion rb-row') == 22
    assert reverse("rubrics:edit", args=[criterion.lineage_id]).rsplit("/", 3)[0] in body and "hx-get" in body
    reviewer_body = client_for(cast.reviewer).get(reverse("rubrics:editor", args=["demo", "dm0006"])).content.decode()
    assert "/edit/" not in reviewer_body


def test_the_editor_uses_a_bounded_number_of_queries(cast, client_for, criterion, django_assert_max_num_queries):
    client = client_for(cast.author)
    with django_assert_max_num_queries(20):
        client.get(reverse("rubrics:editor", args=["demo", "dm0006"]))


def test_an_inline_edit_saves_a_draft_and_returns_the_row(cast, client_for, criterion):
    client = client_for(cast.author)
    url = reverse("rubrics:edit", args=[criterion.lineage_id])
    form = client.get(url, HTTP_HX_REQUEST="true").content.decode()
    assert "<html" not in form and 'name="base_revision" value="1"' in form
    response = client.post(
        url,
        {"text": "AI识别出用户的疲惫感", "ability": "情绪感知", "weight": "3", "reason": "更简洁", "base_revision": "1"},
        HTTP_HX_REQUEST="true",
    )
    body = response.content.decode()
    assert response.status_code == 200 and "Draft · r2" in body and '<del class="diff-del">、倦怠或无力</del>' in body
    assert CriterionRevision.objects.get().text == "AI识别出用户的疲惫感"


def test_bad_input_on_the_page_shows_field_errors_and_writes_nothing(cast, client_for, criterion):
    client = client_for(cast.author)
    url = reverse("rubrics:edit", args=[criterion.lineage_id])
    response = client.post(url, {"text": "", "ability": "勇气", "weight": "12", "reason": "", "base_revision": "1"})
    body = response.content.decode()
    assert response.status_code == 400
    assert "may not be empty" in body and "Unknown ability label" in body and "between -10 and 10" in body and "Say why" in body
    assert not CriterionRevision.objects.exists()


def test_a_concurrent_edit_is_refused_with_a_conflict_and_keeps_the_users_text(cast, client_for, criterion):
    edit(cast, criterion, text="AI识别出用户的疲惫或无力感")  # someone else saved first
    client = client_for(cast.author2)
    url = reverse("rubrics:edit", args=[criterion.lineage_id])
    data = {"text": "我的版本：AI识别出用户的倦怠", "ability": "情绪感知", "weight": "3", "reason": "mine", "base_revision": "1"}
    response = client.post(url, data, HTTP_HX_REQUEST="true")
    body = response.content.decode()
    assert "Conflict" in body and "我的版本：AI识别出用户的倦怠" in body and 'name="base_revision" value="2"' in body
    assert CriterionRevision.objects.count() == 1
    assert client.post(url, data).status_code == 409  # full page: 409
    data["base_revision"] = "2"
    assert client.post(url, data, HTTP_HX_REQUEST="true").status_code == 200
    assert CriterionRevision.objects.filter(status="draft").get().text == "我的版本：AI识别出用户的倦怠"


def test_the_history_page_shows_a_character_level_diff_between_any_two_revisions(cast, client_for, criterion):
    edit(cast, criterion, text="AI识别出用户的疲惫或无力感")
    edit(cast, criterion, text="AI识别出用户的疲惫、无力感和孤独", base_revision=2)
    client = client_for(cast.reviewer)
    url = reverse("rubrics:history", args=[criterion.lineage_id])
    body = client.get(url, {"a": 1, "b": 3}).content.decode()
    assert "AI识别出用户的疲惫" in body and '<del class="diff-del">倦怠或</del>' in body
    assert '<ins class="diff-ins">和孤独</ins>' in body
    partial = client.get(url, {"a": 2, "b": 3}, HTTP_HX_REQUEST="true").content.decode()
    assert "<html" not in partial and '<del class="diff-del">或</del>' in partial
    assert client.get(url, {"a": 1, "b": 9}).status_code == 404


def test_the_review_queue_lists_submitted_revisions_of_others_and_records_decisions(cast, client_for, criterion):
    rev = services.submit_revision(revision=edit(cast, criterion, weight=4), user=cast.author)
    client = client_for(cast.reviewer)
    body = client.get(reverse("rubrics:review")).content.decode()
    assert "dm0001 · revision 2" in body and "0/4 approvals" in body
    client.post(reverse("rubrics:review-revision", args=[rev.pk]), {"verdict": "reject", "comment": "不清楚"})
    rev.refresh_from_db()
    assert rev.status == "rejected"
    assert "dm0001 · revision 2" not in client.get(reverse("rubrics:review")).content.decode()
    author_page = client_for(cast.author).get(rev.get_absolute_url()).content.decode()
    assert "不清楚" in author_page and "Revise" in author_page


def test_comments_post_through_htmx_and_return_the_thread(cast, client_for, criterion):
    rev = edit(cast, criterion, weight=4)
    client = client_for(cast.reviewer)
    body = client.post(reverse("rubrics:comment", args=[rev.pk]), {"body": "请解释"}, HTTP_HX_REQUEST="true").content.decode()
    assert "请解释" in body and "<html" not in body
    empty = client.post(reverse("rubrics:comment", args=[rev.pk]), {"body": ""}, HTTP_HX_REQUEST="true").content.decode()
    assert "The comment is empty." in empty
