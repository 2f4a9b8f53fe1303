"""The golden standard follows the experts' submissions without anyone asking for a report."""

import pytest

from annotation.models import Assignment
from annotation.services.assignment import assign_next_response
from annotation.services.workspace import DraftEntry, save_draft, submit_assignment
from heartbench_core.models import Criterion
from tests.annotation.manage.helpers import demo_campaign
from validation.models import GoldenLabel

pytestmark = pytest.mark.django_db


@pytest.fixture
def sync_jobs(monkeypatch):
    from django_q.conf import Conf

    monkeypatch.setattr(Conf, "SYNC", True)  # run queued jobs inline instead of in a worker


def judge(expert, campaign, hit_of):
    assignment = assign_next_response(expert=expert, campaign=campaign)
    criteria = Criterion.objects.filter(item_id=assignment.campaign_response.item_id).order_by("position")
    entries = [DraftEntry(criterion_id=c.pk, rationale="因为回答里确实如此。" * 2, hit=hit_of(c)) for c in criteria]
    save_draft(assignment=assignment, expert=expert, entries=entries)
    submit_assignment(assignment=assignment, expert=expert)
    return assignment


def test_a_response_gets_golden_labels_when_its_last_judgment_is_submitted(cast, sync_jobs, django_capture_on_commit_callbacks):
    from django.core.cache import cache

    cache.clear()
    campaign = demo_campaign(cast, overlap=3)
    with django_capture_on_commit_callbacks(execute=True):
        first = judge(cast.experts[0], campaign, lambda c: c.position % 2 == 0)
        entry = first.campaign_response
        for expert, rule in ((cast.experts[1], lambda c: c.position % 2 == 0), (cast.experts[2], lambda c: True)):
            a = assign_next_response(expert=expert, campaign=campaign)
            assert a.campaign_response_id == entry.pk  # nearer completion first
            criteria = Criterion.objects.filter(item_id=entry.item_id).order_by("position")
            save_draft(assignment=a, expert=expert, entries=[DraftEntry(c.pk, "因为回答里确实如此。" * 2, rule(c)) for c in criteria])
            if expert == cast.experts[1]:
                submit_assignment(assignment=a, expert=expert)
                assert not GoldenLabel.objects.exists()  # two of three: no golden standard yet
            else:
                submit_assignment(assignment=a, expert=expert)
    labels = {g.criterion.position: g for g in GoldenLabel.objects.select_related("criterion")}
    n = Criterion.objects.filter(item_id=entry.item_id).count()
    assert sorted(labels) == list(range(n))
    assert all(labels[p].hit == (p % 2 == 0) for p in labels)  # the majority of 2 against 1
    assert {labels[p].provenance for p in labels if p % 2 == 0} == {"unanimous"}
    assert {labels[p].provenance for p in labels if p % 2 == 1} == {"majority"}


def test_only_one_refresh_per_campaign_waits_in_the_queue(cast, monkeypatch, django_capture_on_commit_callbacks):
    from validation import tasks
    from validation.models import BackgroundJob

    queued = []
    monkeypatch.setattr("django_q.tasks.async_task", lambda *args, **kwargs: queued.append(args))
    campaign = demo_campaign(cast, overlap=1)
    for _ in range(3):
        a = judge(cast.expert, campaign, lambda c: True)
        with django_capture_on_commit_callbacks(execute=True):
            assert tasks.queue_golden_refresh(sender=Assignment, assignment=a) is (_ == 0)
    job = BackgroundJob.objects.get(campaign=campaign)
    assert (job.kind, job.status) == ("golden_refresh", "pending")
    assert queued == [("validation.tasks.run_background_job", job.pk)]
