import pytest
from django.core.exceptions import ValidationError
from django.db import DatabaseError, transaction

from rubrics import services
from rubrics.models import CriterionRevision
from tests.rubrics.conftest import approve_by_panel, edit

pytestmark = pytest.mark.django_db


def test_an_edit_creates_a_draft_revision_numbered_after_the_imported_one(cast, criterion):
    rev = edit(cast, criterion, text="AI识别出用户的疲惫、倦怠或无力感。")
    assert (rev.number, rev.status, rev.change_kind) == (2, "draft", "wording")
    assert rev.edited_from == criterion and rev.question_id == "dm0001" and rev.author == cast.author
    criterion.lineage.refresh_from_db()
    assert criterion.lineage.current_revision == 1  # nothing changes until the panel approves


def test_weight_ability_and_declared_meaning_changes_are_semantic(cast, criterion):
    assert edit(cast, criterion, weight=4).change_kind == "semantic"
    assert edit(cast, criterion, weight=-3, base_revision=2).change_kind == "semantic"
    assert edit(cast, criterion, ability="情绪理解", base_revision=3).change_kind == "semantic"
    assert edit(cast, criterion, text="AI看出用户很累", meaning_changed=True, base_revision=4).change_kind == "semantic"


def test_a_new_edit_supersedes_the_open_draft(cast, criterion):
    first = edit(cast, criterion, text="AI识别出用户的疲惫或无力感")
    second = edit(cast, criterion, text="AI识别出用户的疲惫、无力感", base_revision=2, author=cast.author2)
    first.refresh_from_db()
    assert first.status == "superseded" and second.parent == first and second.number == 3


def test_a_save_based_on_an_old_revision_is_refused_as_a_conflict(cast, criterion):
    edit(cast, criterion, text="AI识别出用户的疲惫或无力感")
    with pytest.raises(services.ConflictError) as exc:
        edit(cast, criterion, text="AI识别出用户的倦怠", author=cast.author2, base_revision=1)
    assert "changed by rita_author" in str(exc.value) and "now revision 2" in str(exc.value)
    assert CriterionRevision.objects.count() == 1


@pytest.mark.parametrize(
    "changes, field",
    [
        ({"text": "   "}, "text"),
        ({"weight": 11}, "weight"),
        ({"weight": -11}, "weight"),
        ({"weight": 0}, "weight"),
        ({"weight": None}, "weight"),
        ({"ability": "勇气"}, "ability"),
        ({"reason": ""}, "reason"),
        ({}, "text"),  # nothing changed
    ],
)
def test_bad_input_is_refused_with_a_field_error_and_writes_nothing(cast, criterion, changes, field):
    with pytest.raises(ValidationError) as exc:
        edit(cast, criterion, **changes) if changes else edit(cast, criterion, reason="no change")
    assert field in exc.value.message_dict
    assert CriterionRevision.objects.count() == 0


def test_a_catastrophic_criterion_may_have_no_weight(cast, version):
    from heartbench_core.models import Criterion

    c = Criterion.objects.select_related("lineage").get(item__version=version, item__question_id="dm0001", ability="其他")
    rev = edit(cast, c, text=c.text + "。")
    assert rev.weight is None and rev.catastrophic and rev.change_kind == "wording"


def test_experts_and_reviewers_cannot_edit(cast, criterion):
    from django.core.exceptions import PermissionDenied

    for user in (cast.expert, cast.reviewer, cast.outsider):
        with pytest.raises(PermissionDenied):
            edit(cast, criterion, text="x" + criterion.text, author=user)


def test_revision_content_cannot_be_changed_or_deleted_in_the_database(cast, criterion):
    rev = edit(cast, criterion, text="AI识别出用户的疲惫或无力感")
    with pytest.raises(DatabaseError), transaction.atomic():
        CriterionRevision.objects.filter(pk=rev.pk).update(text="tampered")
    with pytest.raises(DatabaseError), transaction.atomic():
        CriterionRevision.objects.filter(pk=rev.pk).update(weight=9)
    with pytest.raises(DatabaseError), transaction.atomic():
        CriterionRevision.objects.filter(pk=rev.pk).delete()
    rev.refresh_from_db()
    assert rev.text == "AI识别出用户的疲惫或无力感"
    CriterionRevision.objects.filter(pk=rev.pk).update(status="submitted")  # workflow state may move
    rev.refresh_from_db()
    assert rev.status == "submitted"


def test_an_addition_creates_a_lineage_with_nothing_approved(cast, version):
    rev = services.add_criterion(
        author=cast.author,
        dataset=version.dataset,
        question_id="dm0001",
        text="AI邀请用户说出感受",
        ability="好奇心",
        weight=2,
        reason="missing curiosity criterion",
    )
    assert rev.change_kind == "addition" and rev.number == 1
    assert (rev.lineage.current_revision, rev.lineage.meaning_revision) == (0, 0)
    approve_by_panel(rev, cast.reviewers)
    rev.lineage.refresh_from_db()
    assert (rev.lineage.current_revision, rev.lineage.meaning_revision) == (1, 1)


def test_retirement_is_a_revision_that_retires_the_lineage_on_approval(cast, criterion):
    rev = services.retire_criterion(author=cast.author, key=criterion.lineage_id, reason="saturated", base_revision=1)
    assert rev.change_kind == "retirement" and rev.text == criterion.text
    approve_by_panel(rev, cast.reviewers)
    criterion.lineage.refresh_from_db()
    assert criterion.lineage.retired and criterion.lineage.current_revision == 2
