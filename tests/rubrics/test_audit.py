import csv
import io

import pytest
from django.db import DatabaseError, transaction
from django.urls import reverse

from rubrics import services
from rubrics.models import AuditEntry
from tests.rubrics.conftest import approve_by_panel, edit

pytestmark = pytest.mark.django_db


def actions():
    return list(AuditEntry.objects.order_by("id").values_list("action", flat=True))


def test_every_rubric_action_leaves_an_audit_entry(cast, version, criterion):
    edit(cast, criterion, text="AI识别出用户的疲惫感", reason="shorter")
    second = edit(cast, criterion, weight=4, reason="weigh it higher", base_revision=2)
    services.submit_revision(revision=second, user=cast.author)
    services.comment_on_revision(revision=second, author=cast.reviewer, body="理由？")
    services.review_revision(revision=second, reviewer=cast.reviewer, verdict="reject", comment="too high")
    third = edit(cast, criterion, weight=2, reason="lower instead", base_revision=3)
    approve_by_panel(third, cast.reviewers)
    added = services.add_criterion(
        author=cast.author,
        dataset=version.dataset,
        question_id="dm0002",
        text="AI询问用户的感受",
        ability="好奇心",
        weight=2,
        reason="missing",
    )
    services.retire_criterion(author=cast.author, key=criterion.lineage_id, reason="saturated", base_revision=4)
    flag = services.flag_criterion(lineage=criterion.lineage, reason="judges disagree", source="adjudication")
    services.resolve_flag(flag=flag, user=cast.author)
    approve_by_panel(added, cast.reviewers)
    services.publish_revisions(dataset=version.dataset, user=cast.author)
    assert actions() == [
        "edited",
        "superseded",
        "edited",
        "submitted",
        "commented",
        "reviewed",
        "rejected",
        "edited",
        "submitted",
        "reviewed",
        "reviewed",
        "reviewed",
        "reviewed",
        "approved",
        "created",
        "retired",
        "flagged",
        "resolved",
        "submitted",
        "reviewed",
        "reviewed",
        "reviewed",
        "reviewed",
        "approved",
        "published",
        "published",
        "published",
    ]
    approved = AuditEntry.objects.filter(action="approved").order_by("id").first()
    assert approved.actor_name and approved.before["lineage"]["current_revision"] == 1
    assert approved.after["lineage"] == {"current_revision": 4, "meaning_revision": 4, "retired": False}
    edited = AuditEntry.objects.filter(action="edited").order_by("id").first()
    assert edited.reason == "shorter" and edited.before["text"] == criterion.text and edited.after["text"] == "AI识别出用户的疲惫感"
    assert edited.question_id == "dm0001" and edited.criterion_key == criterion.lineage_id and edited.revision_number == 2


def test_audit_entries_cannot_be_updated_or_deleted_in_the_database(cast, criterion):
    edit(cast, criterion, weight=4)
    entry = AuditEntry.objects.get()
    with pytest.raises(DatabaseError), transaction.atomic():
        AuditEntry.objects.filter(pk=entry.pk).update(reason="rewritten history")
    with pytest.raises(DatabaseError), transaction.atomic():
        AuditEntry.objects.filter(pk=entry.pk).delete()
    with pytest.raises(DatabaseError), transaction.atomic():
        entry.reason = "rewritten"
        entry.save()
    entry.refresh_from_db()
    assert entry.reason == "clarify wording" and AuditEntry.objects.count() == 1


def test_the_audit_page_filters_by_item_criterion_person_action_and_date(cast, client_for, version, criterion):
    edit(cast, criterion, weight=4)
    services.add_criterion(
        author=cast.author2,
        dataset=version.dataset,
        question_id="dm0002",
        text="AI询问用户的感受",
        ability="好奇心",
        weight=2,
        reason="missing",
    )
    client = client_for(cast.reviewer)
    url = reverse("rubrics:audit")
    assert client.get(url).content.decode().count('<span class="tag">') == 2
    assert client.get(url, {"person": "raj_author"}).content.decode().count('<span class="tag">') == 1
    assert client.get(url, {"item": "dm0001"}).content.decode().count('<span class="tag">') == 1
    assert client.get(url, {"criterion": str(criterion.lineage_id)[:8]}).content.decode().count('<span class="tag">') == 1
    assert client.get(url, {"action": "created"}).content.decode().count('<span class="tag">') == 1
    assert client.get(url, {"since": "2000-01-01", "until": "2000-12-31"}).content.decode().count('<span class="tag">') == 0
    partial = client.get(url, {"action": "edited"}, HTTP_HX_REQUEST="true").content.decode()
    assert "<html" not in partial and partial.count('<span class="tag">') == 1


def test_the_audit_log_exports_as_csv(cast, client_for, criterion):
    edit(cast, criterion, text="AI识别出用户的疲惫感", reason="更简洁")
    response = client_for(cast.admin).get(reverse("rubrics:audit"), {"format": "csv", "item": "dm0001"})
    assert response["Content-Type"].startswith("text/csv")
    rows = list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode("utf-8-sig"))))
    assert rows[0][:3] == ["time", "person", "action"] and len(rows) == 2
    assert rows[1][1:3] == ["rita_author", "edited"] and rows[1][8] == "更简洁" and "疲惫感" in rows[1][10]


def test_the_audit_api_is_read_only_and_filterable(cast, client_for, criterion):
    edit(cast, criterion, weight=4)
    client = client_for(cast.admin)
    body = client.get("/api/v1/rubrics/audit/", {"action": "edited"}).json()
    assert body["count"] == 1 and body["results"][0]["person"] == "rita_author"
    entry = body["results"][0]["id"]
    assert client.delete(f"/api/v1/rubrics/audit/{entry}/").status_code == 405
    assert client.post("/api/v1/rubrics/audit/", {}).status_code == 405
    assert client_for(cast.expert).get("/api/v1/rubrics/audit/").status_code == 403
