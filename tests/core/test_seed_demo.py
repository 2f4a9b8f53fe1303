import pytest
from django.core.management import call_command

from heartbench_core.models import DatasetVersion, ModelResponse, User
from tests.conftest import heartbench_file

pytestmark = pytest.mark.django_db


def test_seed_demo_loads_users_items_and_synthetic_responses_idempotently(capsys):
    call_command("seed_demo")
    call_command("seed_demo")
    out = capsys.readouterr().out
    assert "Demo logins" in out and "expert1" in out
    assert DatasetVersion.objects.filter(dataset__name="demo").count() == 1
    assert ModelResponse.objects.count() == 18
    assert User.objects.filter(username="admin", is_superuser=True).exists()


def test_seed_demo_can_load_the_released_benchmark():
    path = heartbench_file()
    call_command("seed_demo", "--heartbench", str(path))
    version = DatasetVersion.objects.get(dataset__name="heartbench")
    assert version.item_count == 296
    responses = ModelResponse.objects.filter(dataset__name="heartbench")
    assert responses.count() == 3 * 296
    assert all(r.metadata == {"synthetic": True} and r.text.startswith("（合成示例回答）") for r in responses[:20])
