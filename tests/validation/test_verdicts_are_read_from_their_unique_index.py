"""On PostgreSQL the verdicts' unique index (run, criterion) carries what a report reads of them: response, hit, id.

A report reads every verdict of the judge's runs; with those columns in the index it never
touches the verdicts' rows (their rationale and output line). Uniqueness is the constraint's
as before.
"""

import pytest
from django.db import IntegrityError, connection, transaction

from heartbench_core.models import JudgeVerdict
from tests.conftest import postgres_only
from tests.validation.builders import blind_test
from validation.selectors import load_campaign_arrays, select_judge_runs

pytestmark = [postgres_only(), pytest.mark.postgres, pytest.mark.django_db]


def test_the_unique_index_includes_response_hit_and_id_and_still_refuses_a_second_verdict(cast):
    with connection.cursor() as cursor:
        cursor.execute("SELECT indexdef FROM pg_indexes WHERE indexname = 'uniq_verdict_per_criterion'")
        (definition,) = cursor.fetchone()
    assert "UNIQUE" in definition and "(run_id, criterion_id) INCLUDE (response_id, hit, id)" in definition
    blind_test(cast)
    verdict = JudgeVerdict.objects.first()
    with pytest.raises(IntegrityError), transaction.atomic():
        JudgeVerdict.objects.create(run=verdict.run, response=verdict.response, criterion=verdict.criterion, hit=not verdict.hit)


def test_a_report_reads_the_verdicts_from_the_index_alone(cast):
    campaign = blind_test(cast)
    runs = select_judge_runs(campaign)
    with connection.cursor() as cursor:
        # A small table is cheaper to read whole: ask the planner for the plan it takes at scale.
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute("SET LOCAL enable_bitmapscan = off")
        verdicts = (
            JudgeVerdict.objects.filter(run__in=[r.pk for r in runs]).order_by().values_list("response_id", "criterion_id", "hit", "id")
        )
        sql, params = verdicts.query.sql_with_params()
        cursor.execute("EXPLAIN " + sql, params)
        plan = "\n".join(row[0] for row in cursor.fetchall())
    assert "Index Only Scan using uniq_verdict_per_criterion" in plan, plan
    data = load_campaign_arrays(campaign, judge_runs=runs)
    assert (data.u_judge >= 0).sum() == JudgeVerdict.objects.filter(run__in=runs).count()
