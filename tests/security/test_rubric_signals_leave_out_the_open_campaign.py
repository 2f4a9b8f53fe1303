"""Rubric-quality signals do not count the responses of the dataset of an open campaign their viewer is an expert of.

A criterion "hit by every judged response" tells whoever reads it the judge's verdict on each of
them: an author or reviewer who is also an expert of the campaign must not learn it there. And
leaving out only the campaign's responses would tell, by how many were left out of each
criterion's count, which items and how many models the campaign holds: the whole dataset is left out.
"""

import pytest
from django.test import Client

from tests.security.dual_role_world import build_dual_role_world

pytestmark = pytest.mark.django_db


def _hit_rate_counts(user, question_id) -> dict[str, int]:
    client = Client()
    client.force_login(user)
    body = client.get(f"/api/v1/rubrics/quality/?dataset=demo&question_id={question_id}").json()
    return {key: s["hit_rate"]["n"] for key, s in body["criteria"].items()}


def test_a_dual_role_author_sees_signals_without_any_response_of_the_open_campaigns_dataset(cast):
    world = build_dual_role_world(cast)
    question = world.c_entries[0].item.question_id
    plain = _hit_rate_counts(cast.author, question)
    dual = _hit_rate_counts(world.users["expert+author"], question)
    assert plain and set(plain) == set(dual)
    # Three models judged; none counted for the dual-role author (counting cirrus alone would say C holds the other two).
    assert set(plain.values()) == {3} and set(dual.values()) == {0}


def test_the_work_list_does_not_call_a_criterion_saturated_on_the_open_campaigns_verdicts(cast):
    world = build_dual_role_world(cast)
    question = world.c_entries[0].item.question_id

    def saturated(user):
        client = Client()
        client.force_login(user)
        body = client.get(f"/api/v1/rubrics/worklist/?dataset=demo&kind=saturated&question_id={question}").json()
        return body["count"]

    # The judge hit every even-position criterion for all three models: saturated, seen with everything counted.
    assert saturated(cast.author) > 0
    assert saturated(world.users["expert+author"]) == 0


def test_the_editor_page_and_work_list_page_render_for_a_dual_role_author(cast):
    world = build_dual_role_world(cast)
    client = Client()
    client.force_login(world.users["expert+author"])
    question = world.c_entries[0].item.question_id
    assert client.get(f"/rubrics/d/demo/items/{question}/").status_code == 200
    assert client.get("/rubrics/").status_code == 200


def test_the_work_list_leaves_out_other_raters_unclear_reports_on_the_open_campaigns_responses(cast):
    from annotation.models import Assignment, UnclearCriterionReport

    world = build_dual_role_world(cast)
    theirs = Assignment.objects.filter(campaign_response=world.c_entries[0]).exclude(expert__in=world.users.values()).first()
    criterion = world.c_entries[0].item.criteria.order_by("position").first()
    UnclearCriterionReport.objects.create(assignment=theirs, criterion=criterion, comment="UNCLEAR-NOTE-OF-ANOTHER-RATER")

    def unclear(user):
        client = Client()
        client.force_login(user)
        return client.get("/api/v1/rubrics/worklist/?dataset=demo&kind=unclear").content.decode()

    assert "UNCLEAR-NOTE-OF-ANOTHER-RATER" in unclear(cast.author)
    assert "UNCLEAR-NOTE-OF-ANOTHER-RATER" not in unclear(world.users["expert+author"])
