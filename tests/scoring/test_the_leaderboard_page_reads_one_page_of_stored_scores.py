"""The leaderboard page ranks from the stored overall scores and reads only its page's runs: its pages together are the
ranking every run's figures give (ranks, colours, scores), with or without a search, and rows stored before the
overall columns are filled on first use."""

import pytest

from heartbench_core.leaderboard import read_models, selectors
from heartbench_core.models import JudgeRun, StoredScores
from heartbench_core.read_models import Viewer
from heartbench_core.services.judging import import_judge_verdicts
from tests.factories import FIXTURES
from tests.scoring.conftest import DEMO_MODELS


def cells(rows) -> list[tuple]:
    return [(r.rank, r.run.pk, r.colour, r.all.overall, r.hard.overall, r.normal.overall, r.calibrated_reason) for r in rows]


def every_page(viewer, *, search: str = "", mode: str = "paper") -> list[tuple]:
    rows, number = [], 1
    while True:
        shown = read_models.leaderboard_page(viewer, "demo", "v1", {"catastrophic": mode, "q": search, "page": str(number)})
        rows += cells(shown.rows)
        if not shown.page.has_next():
            return rows
        number += 1


@pytest.mark.parametrize("mode", ["paper", "upstream"])
def test_the_pages_are_the_ranking_of_every_run(judged_demo, cast, monkeypatch, mode):
    for judge in ("b-judge", "a-judge"):
        for model in DEMO_MODELS:
            import_judge_verdicts(source=FIXTURES / "verdicts" / f"{model}.jsonl", dataset_name="demo", model_name=model, judge=judge)
    monkeypatch.setattr(selectors, "ROWS_PER_PAGE", 4)
    viewer = Viewer(cast.admin)
    whole = cells(selectors.leaderboard(judged_demo, mode=mode))
    assert every_page(viewer, mode=mode) == whole
    cirrus = set(JudgeRun.objects.filter(version=judged_demo, model__name="demo-model-cirrus").values_list("pk", flat=True))
    assert every_page(viewer, search="CIRRUS", mode=mode) == [row for row in whole if row[1] in cirrus]


def test_rows_stored_before_the_overall_columns_are_filled_on_first_use(judged_demo, cast):
    viewer = Viewer(cast.admin)
    before = every_page(viewer)
    StoredScores.objects.update(overall=None, overall_hard=None, overall_normal=None, overalls_stored=False)
    assert every_page(viewer) == before
    assert not StoredScores.objects.filter(overalls_stored=False).exists()
