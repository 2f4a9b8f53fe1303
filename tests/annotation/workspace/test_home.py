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
    # 11: closed campaigns are read apart, the latest few and their count.
    with django_assert_max_num_queries(11):
        assert client.get(reverse("annotation:home")).status_code == 200


def _closed_campaigns(cast, names):
    from annotation.services.campaigns import set_campaign_status
    from tests.annotation.manage.helpers import demo_campaign

    for name in names:
        campaign = demo_campaign(cast, name=name, qualified=False, requires_qualification=False)
        set_campaign_status(campaign=campaign, status="closed", by=None)


def test_closed_campaigns_are_one_line_each_the_latest_few_and_a_count(workspace, cast, client_for):
    from annotation.workspace.selectors import FINISHED_SHOWN

    names = [f"Finished {i:02d}" for i in range(FINISHED_SHOWN + 3)]
    _closed_campaigns(cast, names)
    body = client_for(cast.expert).get(reverse("annotation:home")).content.decode()
    assert 'id="q-' + str(workspace.campaign.pk) + '"' in body  # the open campaign keeps its card
    listed = [n for n in names if n in body]
    assert listed == names[-FINISHED_SHOWN:]  # the newest ones
    assert "and 3 earlier finished campaigns" in body
    assert body.count('class="card ws-queue') == 1


def test_the_home_page_query_count_does_not_grow_with_closed_campaigns(workspace, cast, client_for, django_assert_num_queries):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    client = client_for(cast.expert)
    _closed_campaigns(cast, ["Finished A"])
    client.get(reverse("annotation:home"))
    with CaptureQueriesContext(connection) as few:
        client.get(reverse("annotation:home"))
    _closed_campaigns(cast, [f"Finished B{i}" for i in range(8)])
    with django_assert_num_queries(len(few)):
        assert client.get(reverse("annotation:home")).status_code == 200
