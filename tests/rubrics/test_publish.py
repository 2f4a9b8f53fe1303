import pytest
from django.core.exceptions import ValidationError

from heartbench_core.models import Criterion
from heartbench_core.services.datasets import export_lines
from rubrics import services
from tests.rubrics.conftest import approve_by_panel, edit

pytestmark = pytest.mark.django_db


def test_publishing_freezes_approved_revisions_into_a_new_version_with_a_changelog(cast, version, criterion):
    reworded = approve_by_panel(edit(cast, criterion, text="AI识别出用户的疲惫或倦怠"), cast.reviewers)
    other = Criterion.objects.get(item__version=version, item__question_id="dm0002", position=1)
    reweighted = approve_by_panel(edit(cast, other, weight=5, reason="core skill"), cast.reviewers)
    retire_me = Criterion.objects.get(item__version=version, item__question_id="dm0003", position=0)
    approve_by_panel(
        services.retire_criterion(author=cast.author, key=retire_me.lineage_id, reason="saturated", base_revision=1), cast.reviewers
    )
    added = approve_by_panel(
        services.add_criterion(
            author=cast.author,
            dataset=version.dataset,
            question_id="dm0001",
            text="AI邀请用户描述身体感受",
            ability="情绪感知",
            weight=2,
            reason="gap",
        ),
        cast.reviewers,
    )
    draft = edit(cast, Criterion.objects.get(item__version=version, item__question_id="dm0004", position=0), weight=1)

    new = services.publish_revisions(dataset=version.dataset, user=cast.author, label="v2-rubric", note="first rubric round")
    assert (new.label, new.parent, new.note) == ("v2-rubric", version, "first rubric round")
    s = new.changelog["summary"]
    assert (s["criteria_reworded"], s["criteria_reweighted"], s["criteria_removed"], s["criteria_added"]) == (1, 1, 1, 1)
    # The new snapshots pin the approved revisions and continue their lineages.
    snap = Criterion.objects.get(item__version=new, lineage=criterion.lineage)
    assert (snap.text, snap.revision, snap.position) == ("AI识别出用户的疲惫或倦怠", reworded.number, 0)
    assert Criterion.objects.get(item__version=new, lineage=other.lineage).weight == 5
    assert not Criterion.objects.filter(item__version=new, lineage=retire_me.lineage).exists()
    last = Criterion.objects.filter(item__version=new, item__question_id="dm0001").order_by("-position").first()
    assert (last.lineage_id, last.revision, last.text) == (added.lineage_id, 1, "AI邀请用户描述身体感受")
    # Unchanged criteria keep their lineage and revision; the draft is not published.
    kept = Criterion.objects.get(item__version=new, item__question_id="dm0004", position=0)
    assert (kept.lineage_id, kept.revision) == (draft.lineage_id, 1)
    for rev in (reworded, reweighted, added):
        rev.refresh_from_db()
        assert rev.published_in == new
    draft.refresh_from_db()
    assert draft.published_in is None
    # A wording change publishes without touching the meaning revision.
    criterion.lineage.refresh_from_db()
    assert (criterion.lineage.current_revision, criterion.lineage.meaning_revision) == (2, 1)
    assert len(export_lines(new)) == 6


def test_publishing_with_nothing_approved_is_refused(cast, version, criterion):
    edit(cast, criterion, weight=4)
    with pytest.raises(ValidationError, match="no approved revisions"):
        services.publish_revisions(dataset=version.dataset, user=cast.author)
    assert version.dataset.versions.count() == 1


def test_only_authors_and_admins_publish(cast, client_for, version, criterion):
    approve_by_panel(edit(cast, criterion, weight=4), cast.reviewers)
    for user in (cast.reviewer, cast.expert, cast.outsider):
        assert client_for(user).post("/api/v1/rubrics/publish/", {"dataset": "demo"}).status_code == 403
    response = client_for(cast.admin).post("/api/v1/rubrics/publish/", {"dataset": "demo", "label": "v2"})
    assert response.status_code == 201 and response.json()["changelog"]["summary"]["criteria_reweighted"] == 1
    assert client_for(cast.admin).post("/api/v1/rubrics/publish/", {"dataset": "demo"}).status_code == 400
