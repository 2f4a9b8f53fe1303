"""Small builders for tests: a dataset from the demo fixtures, responses for it."""

from pathlib import Path

from django.conf import settings

from heartbench_core.services.datasets import import_heartbench
from heartbench_core.services.responses import import_responses

FIXTURES = Path(settings.BASE_DIR) / "fixtures"
DEMO_ITEMS = FIXTURES / "demo_items.jsonl"


def demo_version(dataset_name: str = "demo"):
    """Import the demo items (written for this project) and return the version."""
    return import_heartbench(source=DEMO_ITEMS, dataset_name=dataset_name).version


def demo_responses(dataset_name: str = "demo", models=("demo-model-aurora", "demo-model-borealis", "demo-model-cirrus")):
    """Import the synthetic demo responses of the given fictional models."""
    for model in models:
        import_responses(source=FIXTURES / "responses" / f"{model}.jsonl", dataset_name=dataset_name, model_name=model)
