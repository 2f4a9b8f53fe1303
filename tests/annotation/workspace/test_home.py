"""The expert's home: a queue per campaign with progress, drafts to resume, and their own completed work."""

from django.urls import reverse

from annotation.models import Assignment

from .conftest import judge_fully


def test_it_shows_progress_drafts_and_only_my_completed_work(workspace, cast, client_for):
    judge_fully(workspace.reserve(cast.expert, "dm0001"))
    draft = workspace.reserve(cast.expert, "dm0002")
    theirs = judge_fully(workspace.reserve(cast.experts[1], "dm0003"))
    body = client_for(cast.expert).get(reverse("annotation:home")).content.decode()
    assert "Blind test North" in body
    assert '<strong class="ws-done">1</strong>' in body and '<span class="ws-assigned">2</span>' in body
    assert '<span class="ws-total">18</span>' in body
    assert reverse("annotation:judge", args=[draft.public_id]) in body
    assert f'<link rel="prefetch" href="{reverse("annotation:judge", args=[draft.public_id])}">' in body
    assert theirs.public_id not in body and "dm0003" not in body
    assert reverse("annotation:next_response", args=[workspace.campaign.pk]) in body


def test_the_next_response_button_reserves_work_and_opens_it(workspace, cast, client_for):
    response = client_for(cast.expert).post(reverse("annotation:next_response", args=[workspace.campaign.pk]))
    assignment = Assignment.objects.get(expert=cast.expert)
    assert response.status_code == 302 and response.url == reverse("annotation:judge", args=[assignment.public_id])


def test_the_next_response_button_of_a_campaign_i_am_not_in_is_404(workspace, cast, client_for):
    from heartbench_core.roles import Role
    from tests.conftest import make_user

    stranger = make_user("ezra_expert", Role.EXPERT)
    assert client_for(stranger).post(reverse("annotation:next_response", args=[workspace.campaign.pk])).status_code == 404
    assert "Blind test North" not in client_for(stranger).get(reverse("annotation:home")).content.decode()


def test_the_home_page_query_count_does_not_grow_with_the_queue(workspace, cast, client_for, django_assert_max_num_queries):
    for qid in ("dm0001", "dm0002", "dm0003", "dm0004", "dm0005", "dm0006"):
        judge_fully(workspace.reserve(cast.expert, qid))
    client = client_for(cast.expert)
    client.get(reverse("annotation:home"))
    # 10: the list of work whose reservation lapsed while the expert had written on it is one query (it was 8); the first
    # drafts and the latest submissions are read apart, each no more than the page shows, since the home stopped loading all work (it was 9).
    with django_assert_max_num_queries(10):
        assert client.get(reverse("annotation:home")).status_code == 200
