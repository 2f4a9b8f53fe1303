import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from rubrics.models import CriterionRevision
from tests.factories import demo_responses
from tests.rubrics.conftest import approve_by_panel, edit, human_judgments

pytestmark = pytest.mark.django_db


def test_publish_revisions_command_prints_the_changelog_and_refuses_when_nothing_is_approved(cast, criterion, capsys):
    with pytest.raises(CommandError, match="no approved revisions"):
        call_command("publish_revisions", "--dataset", "demo", "--as", cast.author.username)
    approve_by_panel(edit(cast, criterion, weight=4), cast.reviewers)
    with pytest.raises(CommandError, match="Only rubric authors"):
        call_command("publish_revisions", "--dataset", "demo", "--as", cast.expert.username)
    call_command("publish_revisions", "--dataset", "demo", "--version", "v2", "--as", cast.author.username)
    out = capsys.readouterr().out
    assert "published demo@v2" in out and "1 reweighted" in out


def test_stale_judgments_command_lists_responses_to_recheck(cast, version, criterion, capsys):
    demo_responses()
    human_judgments(version, "dm0001", "demo-model-aurora", cast.experts[:2], [{0: True}, {0: False}])
    approve_by_panel(edit(cast, criterion, weight=-3), cast.reviewers)
    call_command("stale_judgments", "--dataset", "demo")
    out = capsys.readouterr().out
    assert out.startswith("1 responses to re-check: 2 judgments, 0 verdicts") and "demo-model" not in out


def test_seed_demo_adds_revisions_in_every_state_once(db):
    call_command("seed_demo")
    statuses = sorted(CriterionRevision.objects.values_list("status", flat=True))
    assert statuses == ["approved", "draft", "rejected", "submitted"]
    call_command("seed_demo")
    assert CriterionRevision.objects.count() == 4
