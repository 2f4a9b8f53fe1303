"""A safe method never writes: HEAD with a body on an endpoint that also takes POST reads, and skips no CSRF check to write."""

import pytest
from django.test import Client

from rubrics import services
from rubrics.models import RevisionComment
from tests.rubrics.conftest import edit

pytestmark = pytest.mark.django_db


def test_head_with_a_body_on_the_comments_of_a_revision_creates_no_comment(cast, criterion):
    revision = edit(cast, criterion, weight=4)
    services.submit_revision(revision=revision, user=cast.author)
    before = RevisionComment.objects.count()
    client = Client(enforce_csrf_checks=True)
    client.force_login(cast.reviewer)
    url = f"/api/v1/rubrics/revisions/{revision.pk}/comments/"
    head = client.generic("HEAD", url, '{"body": "written by HEAD"}', content_type="application/json")
    assert head.status_code == 200
    assert RevisionComment.objects.count() == before
    post = client.post(url, {"body": "without a CSRF token"}, content_type="application/json")
    assert post.status_code == 403
    assert RevisionComment.objects.count() == before


def test_posting_a_comment_still_works_with_the_csrf_token(cast, criterion):
    revision = edit(cast, criterion, weight=4)
    client = Client()
    client.force_login(cast.reviewer)
    posted = client.post(f"/api/v1/rubrics/revisions/{revision.pk}/comments/", {"body": "补充说明"}, content_type="application/json")
    assert posted.status_code == 201
    assert client.get(f"/api/v1/rubrics/revisions/{revision.pk}/comments/").json()[0]["body"] == "补充说明"
