"""Every assignment carries its response's campaign, however it was written, and a campaign's admin list reads its pages
from that column's index: no join to the campaign's responses, and as many queries deep in the list as on its first page."""

import importlib
import sqlite3

import pytest
from django.db import connection
from django.db.models import F
from django.test.utils import CaptureQueriesContext

from annotation.manage.selectors import assignment_overview_page
from annotation.models import Assignment, CampaignResponse
from annotation.services.assignment import assign_next_response, bulk_assign
from heartbench_core.blindness import blind_scope
from tests.factories import demo_responses, demo_version
from tests.validation.builders import as_file, judgment_lines
from validation.services.imports import import_judgments

from .helpers import demo_campaign

pytestmark = pytest.mark.django_db


def astray() -> list[int]:
    """Assignments whose campaign is not their response's."""
    return list(Assignment.objects.exclude(campaign_id=F("campaign_response__campaign_id")).values_list("pk", flat=True))


def test_pulled_and_bulk_assigned_work_carries_the_campaign(cast):
    campaign = demo_campaign(cast)
    assert assign_next_response(expert=cast.expert, campaign=campaign) is not None
    assert bulk_assign(campaign=campaign).made
    assert Assignment.objects.filter(campaign=campaign).count() == Assignment.objects.count() > 1
    assert astray() == []


def test_imported_judgments_carry_the_campaign(cast):
    demo_version()
    demo_responses()
    lines = judgment_lines([e.username for e in cast.experts])
    outcome = import_judgments(source=as_file(lines), dataset_name="demo", campaign_name="imported")
    assert Assignment.objects.filter(campaign=outcome.campaign).count() == len(lines)
    assert astray() == []


def test_assignments_written_without_it_get_it_from_their_response(cast):
    campaign = demo_campaign(cast)
    crs = list(CampaignResponse.objects.filter(campaign=campaign).order_by("pk")[:3])
    Assignment.objects.bulk_create([Assignment(campaign_response_id=crs[0].pk, expert=cast.expert)])
    Assignment.objects.bulk_create([Assignment(campaign_response=crs[1], expert=cast.expert)])
    Assignment.objects.create(campaign_response=crs[2], expert=cast.expert)
    assert Assignment.objects.filter(campaign=campaign).count() == 3 and astray() == []


def test_the_migration_fills_the_campaign_of_assignments_from_before(cast):
    fill = importlib.import_module("annotation.migrations.0024_assignments_carry_their_campaign").FILL
    if connection.vendor != "postgresql":
        # SQLite holds the column NOT NULL (the table was rebuilt): the fill runs on the two columns it reads and writes.
        scratch = sqlite3.connect(":memory:")
        scratch.executescript(
            "CREATE TABLE annotation_campaignresponse (id integer PRIMARY KEY, campaign_id integer NOT NULL);"
            "CREATE TABLE annotation_assignment (id integer PRIMARY KEY, campaign_response_id integer NOT NULL, campaign_id integer);"
            "INSERT INTO annotation_campaignresponse VALUES (1, 10), (2, 20);"
            "INSERT INTO annotation_assignment VALUES (1, 1, NULL), (2, 2, NULL), (3, 1, NULL), (4, 2, 20);"
        )
        scratch.execute(fill["sqlite"])
        assert scratch.execute("SELECT id, campaign_id FROM annotation_assignment ORDER BY id").fetchall() == [
            (1, 10),
            (2, 20),
            (3, 10),
            (4, 20),
        ]
        return
    campaign = demo_campaign(cast)
    bulk_assign(campaign=campaign)
    with connection.cursor() as cursor:
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")  # no deferred check may be pending when a table is altered
        cursor.execute("ALTER TABLE annotation_assignment ALTER COLUMN campaign_id DROP NOT NULL")
        cursor.execute("UPDATE annotation_assignment SET campaign_id = NULL")
        assert Assignment.objects.filter(campaign__isnull=True).count() == Assignment.objects.count() > 0
        cursor.execute(fill["postgresql"])
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        cursor.execute("ALTER TABLE annotation_assignment ALTER COLUMN campaign_id SET NOT NULL")
    assert not Assignment.objects.filter(campaign__isnull=True).exists() and astray() == []


def test_a_deep_page_reads_the_campaign_column_with_the_queries_of_the_first(cast):
    campaign = demo_campaign(cast)
    bulk_assign(campaign=campaign)
    scope = blind_scope(cast.admin)
    with CaptureQueriesContext(connection) as first:
        page = assignment_overview_page(campaign, number=1, scope=scope, per_page=5)
    while page.has_next():
        after, number = page.next_after, page.number + 1
        with CaptureQueriesContext(connection) as deep:
            page = assignment_overview_page(campaign, number=number, scope=scope, per_page=5, after=after)
    assert page.number > 3 and len(deep.captured_queries) == len(first.captured_queries)
    ids = [q["sql"] for q in deep.captured_queries if "ORDER BY" in q["sql"] and "annotation_assignment" in q["sql"]]
    assert ids and all("annotation_campaignresponse" not in sql for sql in ids[:1])
    assert f'"annotation_assignment"."campaign_id" = {campaign.pk}' in ids[0].replace("%s", str(campaign.pk))
