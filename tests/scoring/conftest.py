import pytest

from heartbench_core.services.judging import import_judge_verdicts
from tests.factories import FIXTURES, demo_responses, demo_version

DEMO_MODELS = ("demo-model-aurora", "demo-model-borealis", "demo-model-cirrus")


@pytest.fixture
def judged_demo(db):
    """The demo version with the three fictional models' responses and their synthetic judge runs."""
    version = demo_version()
    demo_responses()
    for model in DEMO_MODELS:
        import_judge_verdicts(source=FIXTURES / "verdicts" / f"{model}.jsonl", dataset_name="demo", model_name=model, judge="demo-judge")
    return version
