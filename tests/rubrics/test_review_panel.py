import pytest
from django.core.exceptions import PermissionDenied, ValidationError

from rubrics import services
from rubrics.models import ReviewDecision
from tests.rubrics.conftest import edit

pytestmark = pytest.mark.django_db


@pytest.fixture
def submitted(cast, criterion):
    rev = edit(cast, criterion, weight=5, reason="the behaviour matters more than the weight says")
    return services.submit_revision(revision=rev, user=cast.author)


def test_only_the_author_can_submit_a_draft(cast, criterion):
    rev = edit(cast, criterion, weight=5)
    with pytest.raises(PermissionDenied):
        services.submit_revision(revision=rev, user=cast.author2)
    assert services.submit_revision(revision=rev, user=cast.author).status == "submitted"
    with pytest.raises(ValidationError):
        services.submit_revision(revision=rev, user=cast.author)


def test_approval_needs_every_seat_of_the_panel(cast, submitted, criterion):
    for reviewer in cast.reviewers[:3]:
        rev = services.review_revision(revision=submitted, reviewer=reviewer, verdict="approve")
        assert rev.status == "submitted"
    criterion.lineage.refresh_from_db()
    assert criterion.lineage.current_revision == 1
    rev = services.review_revision(revision=submitted, reviewer=cast.reviewers[3], verdict="approve")
    assert rev.status == "approved"
    criterion.lineage.refresh_from_db()
    assert (criterion.lineage.current_revision, criterion.lineage.meaning_revision) == (2, 2)


def test_the_panel_size_is_configurable_per_dataset(cast, submitted):
    submitted.dataset.review_panel_size = 2
    submitted.dataset.save()
    services.review_revision(revision=submitted, reviewer=cast.reviewers[0], verdict="approve")
    assert services.review_revision(revision=submitted, reviewer=cast.reviewers[1], verdict="approve").status == "approved"


def test_an_author_can_never_review_their_own_revision(cast, criterion):
    from heartbench_core.roles import Role
    from tests.conftest import make_user

    both = make_user("pat_both", Role.RUBRIC_AUTHOR, Role.SENIOR_REVIEWER)
    rev = edit(cast, criterion, weight=5, author=both)
    services.submit_revision(revision=rev, user=both)
    with pytest.raises(PermissionDenied, match="your own"):
        services.review_revision(revision=rev, reviewer=both, verdict="approve")
    assert not ReviewDecision.objects.exists()


def test_one_reject_sends_it_back_with_the_comment(cast, submitted, criterion):
    services.review_revision(revision=submitted, reviewer=cast.reviewers[0], verdict="approve")
    rev = services.review_revision(revision=submitted, reviewer=cast.reviewers[1], verdict="reject", comment="权重过高")
    assert rev.status == "rejected"
    assert rev.comments.get().body.endswith("权重过高")
    with pytest.raises(ValidationError):
        services.review_revision(revision=submitted, reviewer=cast.reviewers[2], verdict="approve")
    criterion.lineage.refresh_from_db()
    assert criterion.lineage.current_revision == 1
    # The author revises on top of the rejected revision.
    again = edit(cast, criterion, weight=4, base_revision=2)
    assert again.parent == rev and again.number == 3


def test_a_reject_needs_a_comment(cast, submitted):
    with pytest.raises(ValidationError) as exc:
        services.review_revision(revision=submitted, reviewer=cast.reviewer, verdict="reject", comment=" ")
    assert "comment" in exc.value.message_dict


def test_a_reviewer_decides_once_and_non_reviewers_not_at_all(cast, submitted):
    services.review_revision(revision=submitted, reviewer=cast.reviewer, verdict="approve")
    with pytest.raises(ValidationError):
        services.review_revision(revision=submitted, reviewer=cast.reviewer, verdict="approve")
    for user in (cast.author2, cast.expert, cast.outsider):
        with pytest.raises(PermissionDenied):
            services.review_revision(revision=submitted, reviewer=user, verdict="approve")


def test_drafts_are_not_reviewable(cast, criterion):
    rev = edit(cast, criterion, weight=5)
    with pytest.raises(ValidationError):
        services.review_revision(revision=rev, reviewer=cast.reviewer, verdict="approve")


def test_comments_thread_on_a_revision(cast, submitted):
    first = services.comment_on_revision(revision=submitted, author=cast.reviewer, body="为什么提高权重？")
    reply = services.comment_on_revision(revision=submitted, author=cast.author, body="见论文附录", reply_to=first)
    from rubrics.selectors import comment_thread

    assert [(c.pk, depth) for c, depth in comment_thread(submitted)] == [(first.pk, 0), (reply.pk, 1)]
    with pytest.raises(PermissionDenied):
        services.comment_on_revision(revision=submitted, author=cast.expert, body="?")
