"""A database error while submitting answers with a clear 503 and keeps the expert's draft."""

import pytest
from django.db import OperationalError, connection
from django.urls import reverse

from annotation.models import Assignment, Judgment
from tests.security.world import build_world

pytestmark = pytest.mark.django_db


class FailOnSubmit:
    """Raise OperationalError, as a dropped connection would, when the submission is written."""

    def __init__(self):
        self.fired = 0

    def __call__(self, execute, sql, params, many, context):
        if sql.lstrip().upper().startswith("UPDATE") and "annotation_assignment" in sql and "submitted" in [str(p) for p in (params or ())]:
            self.fired += 1
            raise OperationalError("server closed the connection unexpectedly")
        return execute(sql, params, many, context)


def judgments_for(world):
    criteria = world.objects["entry"].item.criteria.order_by("position")
    return [{"criterion": c.pk, "hit": i % 2 == 0, "rationale": f"Reasoned judgment number {i}."} for i, c in enumerate(criteria)]


def test_the_api_answers_503_with_a_retry_hint_and_the_draft_survives(client_for, cast):
    world = build_world(cast)
    assignment = world.objects["assignment"]
    sent = judgments_for(world)
    failure = FailOnSubmit()
    body = {"version": assignment.draft_version, "judgments": sent}
    with connection.execute_wrapper(failure):
        response = client_for(cast.expert).post(
            reverse("api-ws-submit", args=[assignment.public_id]), body, content_type="application/json"
        )
    assert failure.fired == 1
    assert response.status_code == 503
    assert response.json()["retry"] is True and "try again" in response.json()["detail"]
    assert response["Retry-After"] == "5"
    assignment.refresh_from_db()
    assert assignment.status == Assignment.Status.RESERVED
    kept = {j.criterion_id: (j.hit, j.rationale) for j in Judgment.objects.filter(assignment=assignment)}
    assert kept == {e["criterion"]: (e["hit"], e["rationale"]) for e in sent}

    # Once the database is back, the same submission goes through, exactly once (its draft, already saved, overwrites nothing).
    response = client_for(cast.expert).post(reverse("api-ws-submit", args=[assignment.public_id]), body, content_type="application/json")
    assert response.status_code == 200
    assert Judgment.objects.filter(assignment=assignment).count() == len(sent)


def test_the_page_answers_503_with_a_message_and_the_draft_survives(client_for, cast):
    world = build_world(cast)
    assignment = world.objects["assignment"]
    sent = judgments_for(world)
    form = {"version": str(assignment.draft_version)}
    for e in sent:
        form[f"rationale-{e['criterion']}"] = e["rationale"]
        form[f"hit-{e['criterion']}"] = "hit" if e["hit"] else "miss"
    with connection.execute_wrapper(FailOnSubmit()):
        response = client_for(cast.expert).post(reverse("annotation:judge_submit", args=[assignment.public_id]), form)
    assert response.status_code == 503
    assert "try again" in response.content.decode()
    assignment.refresh_from_db()
    assert assignment.status == Assignment.Status.RESERVED
    kept = {j.criterion_id: (j.hit, j.rationale) for j in Judgment.objects.filter(assignment=assignment)}
    assert kept == {e["criterion"]: (e["hit"], e["rationale"]) for e in sent}
