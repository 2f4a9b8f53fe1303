"""Many experts asking for work at the same moment on PostgreSQL: never past k, never twice."""

import threading
from collections import Counter

import pytest
from django.db import connection
from django.utils import timezone

from annotation.models import Assignment, Campaign
from annotation.services.assignment import assign_next_response
from tests.conftest import postgres_only

from .helpers import demo_campaign, more_experts, qualify

pytestmark = [postgres_only(), pytest.mark.postgres]

ROUNDS = 8


def _worker(expert_id, campaign_id, barrier, errors, got):
    from heartbench_core.models import User

    try:
        expert = User.objects.get(pk=expert_id)
        campaign = Campaign.objects.get(pk=campaign_id)
        for _ in range(ROUNDS):
            barrier.wait(timeout=30)
            a = assign_next_response(expert=expert, campaign=campaign)
            if a is not None:
                got.append((a.campaign_response_id, expert_id))
                Assignment.objects.filter(pk=a.pk).update(status=Assignment.Status.SUBMITTED, submitted_at=timezone.now())
    except Exception as exc:
        errors.append(repr(exc))
        barrier.abort()
    finally:
        connection.close()


def test_parallel_experts_never_push_a_response_past_k_nor_get_one_twice(transactional_db, cast):
    experts = [*cast.experts, *more_experts(9)]
    qualify(*experts)
    campaign = demo_campaign(cast, overlap=3, experts=experts)
    barrier = threading.Barrier(len(experts))
    errors, got = [], []
    threads = [threading.Thread(target=_worker, args=(e.pk, campaign.pk, barrier, errors, got)) for e in experts]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not errors
    per_response = Counter(cr for cr, _ in got)
    assert len(got) == len(set(got)), "an expert got the same response twice"
    assert max(per_response.values()) <= 3
    rows = Counter(Assignment.objects.filter(campaign_response__campaign=campaign).values_list("campaign_response_id", flat=True))
    assert max(rows.values()) == 3
    # 12 experts × 8 rounds ask for 96 slots; the campaign has exactly 18 × 3 = 54, and all are filled.
    assert sum(rows.values()) == 54
