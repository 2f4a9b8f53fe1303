"""The judging page: conversation, response, criteria told apart, weights hidden, fixed query count."""

import re

import pytest
from django.urls import reverse

from annotation.models import Campaign


def page_of(client, assignment):
    return client.get(reverse("annotation:judge", args=[assignment.public_id]))


def test_it_shows_the_dialogue_with_labelled_speakers_then_the_response_then_the_criteria(workspace, cast, client_for):
    assignment = workspace.reserve(cast.expert, "dm0001")
    body = page_of(client_for(cast.expert), assignment).content.decode()
    assert "A · help-seeker" in body and "B · other party" in body
    dialogue, response, rubric = body.index('id="dialogue-h"'), body.index('id="response-h"'), body.index('id="rubric-h"')
    assert dialogue < response < rubric
    assert assignment.campaign_response.response.text.splitlines()[0][:20] in body
    criteria = list(assignment.campaign_response.item.criteria.all())
    for c in criteria:
        assert f'name="rationale-{c.pk}"' in body and f'name="hit-{c.pk}"' in body
        assert f'<label for="rationale-{c.pk}">' in body


def test_it_tells_rewards_penalties_and_the_catastrophic_criterion_apart(workspace, cast, client_for):
    assignment = workspace.reserve(cast.expert, "dm0001")
    body = page_of(client_for(cast.expert), assignment).content.decode()
    assert body.count("criterion-card reward") == 4
    assert body.count("criterion-card penalty") == 1
    assert body.count("criterion-card catastrophic") == 1
    assert "Penalty: hit = the problem is present, even slightly." in body
    assert "speaks as the user" in body


def test_it_hides_numeric_weights_unless_the_campaign_shows_them(workspace, cast, client_for):
    assignment = workspace.reserve(cast.expert, "dm0001")
    client = client_for(cast.expert)
    assert 'class="weight"' not in page_of(client, assignment).content.decode()
    Campaign.objects.filter(pk=workspace.campaign.pk).update(show_weights=True)
    body = page_of(client, assignment).content.decode()
    assert body.count('class="weight"') == 6  # the catastrophic criterion shows — for its missing weight
    assert ">+3<" in body and ">-3<" in body


def test_it_configures_the_rationale_minimum_per_campaign(workspace, cast, client_for):
    Campaign.objects.filter(pk=workspace.campaign.pk).update(rationale_min_chars=25)
    assignment = workspace.reserve(cast.expert, "dm0001")
    body = page_of(client_for(cast.expert), assignment).content.decode()
    assert 'data-min-chars="25"' in body
    assert "at least 25 characters" in body


@pytest.mark.parametrize("question_id, criteria", [("dm0001", 6), ("dm0006", 22)])
def test_it_runs_the_same_number_of_queries_whatever_the_item_size(
    workspace, cast, client_for, django_assert_num_queries, question_id, criteria
):
    assignment = workspace.reserve(cast.expert, question_id)
    client = client_for(cast.expert)
    page_of(client, assignment)  # warm the session
    # 12: the campaign's current guidelines are one query (it was 11); the header's unread replies cost
    # nothing while no reply came since the expert last opened their reports (the user row says when one did).
    with django_assert_num_queries(12):
        response = page_of(client, assignment)
    assert response.status_code == 200
    assert len(re.findall(r'class="criterion-card ', response.content.decode())) == criteria


def test_it_answers_404_to_every_other_user_even_an_admin(workspace, cast, client_for):
    assignment = workspace.reserve(cast.expert, "dm0001")
    assert page_of(client_for(cast.experts[1]), assignment).status_code == 404
    assert page_of(client_for(cast.admin), assignment).status_code == 403  # not an expert at all
    assert page_of(client_for(cast.outsider), assignment).status_code == 403
