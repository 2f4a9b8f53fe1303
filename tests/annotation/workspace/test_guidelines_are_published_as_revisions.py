"""Campaign guidelines: each publication is a new revision, the latest is current, and the Markdown renders sanitised."""

import pytest
from django.core.exceptions import PermissionDenied, ValidationError

from annotation.models import CampaignGuidelines
from annotation.services.guidelines import current_guidelines, publish_guidelines, render_guidelines

pytestmark = pytest.mark.django_db


def test_a_campaign_without_guidelines_has_none(workspace):
    assert current_guidelines(workspace.campaign) is None


def test_each_publication_is_a_new_revision_and_the_old_one_stays(workspace, cast):
    first = publish_guidelines(
        campaign=workspace.campaign, body="# Rules\n\nJudge the **response** only.", change_note="", author=cast.admin
    )
    second = publish_guidelines(
        campaign=workspace.campaign, body="# Rules\n\nJudge the response only; ignore B.", change_note="B is context", author=cast.admin
    )
    assert (first.revision, second.revision) == (1, 2)
    assert current_guidelines(workspace.campaign).pk == second.pk
    first.refresh_from_db()
    assert first.body == "# Rules\n\nJudge the **response** only."
    assert CampaignGuidelines.objects.filter(campaign=workspace.campaign).count() == 2


def test_the_current_revision_is_read_in_one_query(workspace, cast, django_assert_num_queries):
    publish_guidelines(campaign=workspace.campaign, body="One", author=cast.admin)
    publish_guidelines(campaign=workspace.campaign, body="Two", author=cast.admin)
    with django_assert_num_queries(1):
        assert current_guidelines(workspace.campaign).body == "Two"


def test_only_an_admin_publishes(workspace, cast):
    for user in (cast.expert, cast.author, cast.reviewer):
        with pytest.raises(PermissionDenied):
            publish_guidelines(campaign=workspace.campaign, body="Anything", author=user)
    assert not CampaignGuidelines.objects.exists()


def test_an_empty_body_or_a_long_note_is_refused_naming_the_field(workspace, cast):
    with pytest.raises(ValidationError) as empty:
        publish_guidelines(campaign=workspace.campaign, body="   ", author=cast.admin)
    assert "body" in empty.value.message_dict
    with pytest.raises(ValidationError) as long_note:
        publish_guidelines(campaign=workspace.campaign, body="Fine", change_note="x" * 301, author=cast.admin)
    assert "change_note" in long_note.value.message_dict


def test_publishing_the_same_body_again_changes_nothing_and_is_refused(workspace, cast):
    publish_guidelines(campaign=workspace.campaign, body="Same", author=cast.admin)
    with pytest.raises(ValidationError) as same:
        publish_guidelines(campaign=workspace.campaign, body="Same\n", author=cast.admin)
    assert "body" in same.value.message_dict
    assert CampaignGuidelines.objects.count() == 1


def test_markdown_renders_and_anything_active_is_stripped():
    html = render_guidelines(
        "## Hit\n\n* a **hit** means [see](https://example.org)\n\n<script>alert(1)</script>"
        '<img src=x onerror="alert(2)"><a href="javascript:alert(3)">x</a><p style="color:red" onclick="x()">styled</p>'
    )
    assert "<h2>Hit</h2>" in html
    assert "<strong>hit</strong>" in html
    assert 'href="https://example.org"' in html
    assert 'rel="noopener noreferrer nofollow"' in html
    for bad in ("<script", "onerror", "javascript:", "<img", "style=", "onclick"):
        assert bad not in html
