"""The margin ε of the alternative annotator test is a rule of the release policy: 0.2 by default, set by an admin with a reason, audited."""

import io

import pytest
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.db import IntegrityError, transaction

from tests.factories import demo_version
from validation.models import ReleasePolicy, ReleasePolicyChange
from validation.services.release import change_release_policy, release_policy_of


@pytest.fixture
def dataset(db):
    return demo_version().dataset


def test_it_is_0_2_until_an_admin_changes_it(dataset):
    assert release_policy_of(dataset).alt_test_epsilon == 0.2


def test_an_admin_changes_it_with_a_reason_and_the_history_keeps_before_and_after(cast, dataset):
    change_release_policy(dataset=dataset, admin=cast.admin, reason="judges cost a tenth of an expert", alt_test_epsilon=0.15)
    assert ReleasePolicy.objects.get(dataset=dataset).alt_test_epsilon == 0.15
    change = ReleasePolicyChange.objects.get()
    assert (change.before["alt_test_epsilon"], change.after["alt_test_epsilon"]) == (0.2, 0.15)
    assert change.reason == "judges cost a tenth of an expert"


@pytest.mark.parametrize("value", [-0.1, 1, 1.5, "0.2", True])
def test_a_value_outside_0_to_1_is_refused_naming_the_field(cast, dataset, value):
    with pytest.raises(ValidationError) as exc:
        change_release_policy(dataset=dataset, admin=cast.admin, reason="r", alt_test_epsilon=value)
    assert set(exc.value.message_dict) == {"alt_test_epsilon"}
    assert not ReleasePolicyChange.objects.exists()


def test_the_database_refuses_a_margin_of_1(dataset):
    with pytest.raises(IntegrityError), transaction.atomic():
        ReleasePolicy.objects.create(dataset=dataset, alt_test_epsilon=1.0)


def test_the_page_shows_it_and_an_admin_changes_it_there(cast, dataset, client_for):
    client = client_for(cast.admin)
    page = client.get(f"/validation/datasets/{dataset.name}/release-policy/").content.decode()
    assert 'id="policy-alt-test-epsilon"' in page and 'name="alt_test_epsilon"' in page
    response = client.post(f"/validation/datasets/{dataset.name}/release-policy/", {"alt_test_epsilon": "0.1", "reason": "cheap judge"})
    assert response.status_code == 302
    assert ReleasePolicy.objects.get(dataset=dataset).alt_test_epsilon == 0.1


def test_the_page_names_the_field_of_a_margin_of_1(cast, dataset, client_for):
    response = client_for(cast.admin).post(f"/validation/datasets/{dataset.name}/release-policy/", {"alt_test_epsilon": "1", "reason": "r"})
    assert response.status_code == 400 and "alt_test_epsilon" in response.content.decode()
    assert not ReleasePolicy.objects.exists()


def test_the_api_gives_it_and_an_admin_puts_it_with_a_reason(cast, dataset, client_for):
    url = f"/api/v1/validation/datasets/{dataset.name}/release-policy/"
    assert client_for(cast.reviewer).get(url).json()["alt_test_epsilon"] == 0.2
    response = client_for(cast.admin).put(url, {"alt_test_epsilon": 0.3, "reason": "agreed"}, content_type="application/json")
    assert response.status_code == 200, response.content
    assert response.json()["alt_test_epsilon"] == 0.3 and response.json()["history"][0]["after"]["alt_test_epsilon"] == 0.3
    bad = client_for(cast.admin).put(url, {"alt_test_epsilon": 1.0, "reason": "agreed"}, content_type="application/json")
    assert bad.status_code == 400 and "alt_test_epsilon" in bad.json()["errors"]


def test_the_command_changes_and_prints_it(cast, dataset):
    out = io.StringIO()
    call_command(
        "release_policy",
        "--dataset",
        dataset.name,
        "--alt-test-epsilon",
        "0.25",
        "--reason",
        "signed off",
        "--as",
        cast.admin.username,
        stdout=out,
    )
    assert ReleasePolicy.objects.get(dataset=dataset).alt_test_epsilon == 0.25
    assert "0.25" in out.getvalue()
