"""Fixtures of the rubric tests: the demo dataset and helpers to walk a revision through review."""

import pytest

from heartbench_core.models import Criterion
from rubrics import services
from tests.factories import demo_version


@pytest.fixture
def version(db):
    return demo_version()


@pytest.fixture
def criterion(version):
    """dm0001's first criterion: 情绪感知 +3 "AI识别出用户的疲惫、倦怠或无力感"."""
    return Criterion.objects.select_related("lineage", "item").get(item__version=version, item__question_id="dm0001", position=0)


def approve_by_panel(revision, reviewers):
    """Submit (if needed) and have every panel member approve."""
    if revision.status == "draft":
        services.submit_revision(revision=revision, user=revision.author)
    for reviewer in reviewers:
        revision = services.review_revision(revision=revision, reviewer=reviewer, verdict="approve")
    return revision


def edit(cast, criterion, **changes):
    fields = {"text": criterion.text, "ability": criterion.ability, "weight": criterion.weight, "reason": "clarify wording"}
    fields.update(changes)
    base = fields.pop("base_revision", criterion.lineage.current_revision)
    return services.edit_criterion(author=fields.pop("author", cast.author), key=criterion.lineage_id, base_revision=base, **fields)
