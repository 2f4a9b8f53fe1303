import json

import pytest
from django.urls import reverse

from heartbench_core.models import Criterion
from heartbench_core.services.datasets import export_lines, import_heartbench
from rubrics import services
from tests.rubrics.conftest import approve_by_panel

pytestmark = [pytest.mark.django_db, pytest.mark.heartbench]


def test_a_revision_round_on_the_released_benchmark(cast, client_for, heartbench_all, django_assert_max_num_queries):
    version = import_heartbench(source=heartbench_all, dataset_name="heartbench").version
    target = Criterion.objects.select_related("lineage", "item").filter(item__version=version, weight__isnull=False).order_by("id").first()
    qid = target.item.question_id
    client = client_for(cast.author)
    with django_assert_max_num_queries(17):  # a first view: the signals, their fingerprint, the cache read and write
        page = client.get(reverse("rubrics:editor", args=["heartbench", qid]))
    assert page.status_code == 200 and target.text in page.content.decode()
    rev = services.edit_criterion(
        author=cast.author,
        key=target.lineage_id,
        text=target.text,
        ability=target.ability,
        weight=-target.weight,
        reason="sign check",
        base_revision=1,
    )
    assert rev.change_kind == "semantic"
    approve_by_panel(rev, cast.reviewers)
    new = services.publish_revisions(dataset=version.dataset, user=cast.author)
    assert new.changelog["summary"]["criteria_reweighted"] == 1 and new.changelog["summary"]["items_changed"] == 1
    lines = export_lines(new)
    assert len(lines) == 296
    record = next(json.loads(line) for line in lines if json.loads(line)["question_id"] == qid)
    assert record["rubric"][target.position]["score"] == -target.weight
    assert Criterion.objects.filter(item__version=new).count() == Criterion.objects.filter(item__version=version).count()
