"""Seeding the demo again (every `./scripts/start`) never touches a dataset that exists.

It used to re-import the released file over the dataset: a new latest version with the
original wording, silently undoing a published rubric revision.
"""

import pytest
from django.core.management import call_command

from heartbench_core.models import Dataset, DatasetVersion, JudgeRun, ModelResponse
from heartbench_core.services.datasets import import_heartbench
from rubrics import services
from rubrics.models import CriterionRevision
from tests.factories import DEMO_ITEMS

pytestmark = pytest.mark.django_db


def _publish_a_rewording(version, author, reviewers):
    from heartbench_core.models import Criterion

    criterion = Criterion.objects.select_related("lineage").filter(item__version=version).order_by("item__position", "position").first()
    revision = services.edit_criterion(
        author=author,
        key=criterion.lineage_id,
        base_revision=criterion.lineage.current_revision,
        text=criterion.text + "（修订）",
        ability=criterion.ability,
        weight=criterion.weight,
        reason="clarify",
    )
    services.submit_revision(revision=revision, user=author)
    for reviewer in reviewers[: version.dataset.review_panel_size]:
        services.review_revision(revision=revision, reviewer=reviewer, verdict="approve")
    return services.publish_revisions(dataset=version.dataset, user=author), criterion.text + "（修订）"


def test_seeding_again_after_a_published_revision_keeps_the_revised_version_latest(capsys):
    call_command("seed_demo")
    from heartbench_core.models import User

    author = User.objects.get(username="author")
    reviewers = [User.objects.get(username=f"reviewer{i}") for i in range(1, 5)]
    version = DatasetVersion.objects.filter(dataset__name="demo").order_by("-number").first()
    published, text = _publish_a_rewording(version, author, reviewers)
    counts = (DatasetVersion.objects.count(), ModelResponse.objects.count(), JudgeRun.objects.count(), CriterionRevision.objects.count())

    call_command("seed_demo")

    latest = DatasetVersion.objects.filter(dataset__name="demo").order_by("-number").first()
    assert latest == published
    assert latest.items.filter(criteria__text=text).exists()
    assert (
        DatasetVersion.objects.count(),
        ModelResponse.objects.count(),
        JudgeRun.objects.count(),
        CriterionRevision.objects.count(),
    ) == counts
    out = capsys.readouterr().out
    assert "Dataset 'demo' already exists: the demo leaves it" in out and "Demo logins" in out


def test_a_dataset_imported_by_hand_gets_no_demo_data(capsys):
    import_heartbench(source=DEMO_ITEMS, dataset_name="demo")
    call_command("seed_demo")
    dataset = Dataset.objects.get(name="demo")
    assert dataset.versions.count() == 1
    assert not ModelResponse.objects.exists() and not JudgeRun.objects.exists() and not CriterionRevision.objects.exists()
    assert "Demo logins" not in capsys.readouterr().out
