"""Verdicts landing at the same moment on PostgreSQL: the budget is never exceeded, and no extension is granted twice or missed."""

import threading

import pytest
from django.db import connection

from annotation.models import Assignment, CampaignResponse
from annotation.services.split_extension import granted
from tests.conftest import postgres_only

from .split_helpers import criteria_of, responses, split_campaign, split_verdicts, submit

pytestmark = [postgres_only(), pytest.mark.postgres]


def _run_together(jobs):
    """Run each (expert id, assignment id, hits) submission in its own thread and connection, released at once."""
    from heartbench_core.models import User

    barrier = threading.Barrier(len(jobs))
    errors = []

    def work(expert_id, assignment_id, hits):
        try:
            expert = User.objects.get(pk=expert_id)
            a = Assignment.objects.select_related("campaign_response").get(pk=assignment_id)
            barrier.wait(timeout=30)
            submit(expert, a.campaign_response, hits, assignment=a)
        except Exception as exc:
            errors.append(repr(exc))
            barrier.abort()
        finally:
            connection.close()

    threads = [threading.Thread(target=work, args=job) for job in jobs]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not errors


def _two_rated(experts, cr):
    """Two verdicts in, split on every criterion; the third of each expert reserved. Returns the third's (expert, assignment, hits)."""
    rows = split_verdicts(len(criteria_of(cr)), len(criteria_of(cr)))
    submit(experts[0], cr, rows[0])
    submit(experts[1], cr, rows[1])
    third = Assignment.objects.create(campaign_response=cr, expert=experts[2])
    return experts[2].pk, third.pk, rows[2]


def test_two_kth_verdicts_at_once_never_pass_the_budget(transactional_db, cast):
    campaign, experts = split_campaign(cast, budget=2)  # room for one extension only
    first, second = responses(campaign)[:2]
    jobs = [_two_rated(experts, first), _two_rated(experts, second)]
    _run_together(jobs)
    extended = CampaignResponse.objects.filter(campaign=campaign, extra_raters__gt=0).count()
    assert extended == 1 and granted(campaign.pk) == 2


def test_the_last_two_verdicts_of_one_response_at_once_extend_it_exactly_once(transactional_db, cast):
    campaign, experts = split_campaign(cast, budget=10)
    cr = responses(campaign)[0]
    rows = split_verdicts(len(criteria_of(cr)), len(criteria_of(cr)))
    submit(experts[0], cr, rows[0])
    jobs = []
    for expert, hits in zip(experts[1:3], rows[1:], strict=True):
        jobs.append((expert.pk, Assignment.objects.create(campaign_response=cr, expert=expert).pk, hits))
    _run_together(jobs)
    cr.refresh_from_db()
    # Neither submission saw the other's before the lock: the second to take it counts both, and extends.
    assert cr.extra_raters == 2 and granted(campaign.pk) == 2
