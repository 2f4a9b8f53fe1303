"""A dataset's release policy: only admins change it, always with a reason, and every change is audited."""

import io

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.management import CommandError, call_command

from tests.factories import demo_version
from validation.models import ReleasePolicy, ReleasePolicyChange
from validation.services.release import change_release_policy, policy_history, release_policy_of

EPS = {"alt_test_epsilon": 0.2}


@pytest.fixture
def dataset(db):
    return demo_version().dataset


class TestService:
    def test_a_dataset_without_a_stored_policy_has_the_defaults_and_nothing_is_written_to_read_them(self, cast, dataset):
        policy = release_policy_of(dataset)
        assert (policy.threshold, policy.min_pairs_per_dimension, policy.min_pairs_per_ability, policy.must_clear) == (
            0.75,
            30,
            10,
            "point",
        )
        assert policy.pk is None and not ReleasePolicy.objects.exists()

    def test_an_admin_changes_it_with_a_reason_and_the_change_is_audited_before_and_after(self, cast, dataset):
        change_release_policy(dataset=dataset, admin=cast.admin, reason="pilot with few items", threshold=0.8, must_clear="lower_bound")
        policy = ReleasePolicy.objects.get(dataset=dataset)
        assert (policy.threshold, policy.must_clear, policy.updated_by) == (0.8, "lower_bound", cast.admin)
        change = ReleasePolicyChange.objects.get()
        assert change.before == {
            "threshold": 0.75,
            "min_pairs_per_dimension": 30,
            "min_pairs_per_ability": 10,
            "must_clear": "point",
            **EPS,
        }
        assert change.after == {
            "threshold": 0.8,
            "min_pairs_per_dimension": 30,
            "min_pairs_per_ability": 10,
            "must_clear": "lower_bound",
            **EPS,
        }
        assert change.reason == "pilot with few items" and change.changed_by == cast.admin

    @pytest.mark.parametrize("who", ["author", "reviewer", "expert", "outsider"])
    def test_nobody_but_an_admin_may_change_it(self, cast, dataset, who):
        with pytest.raises(PermissionDenied):
            change_release_policy(dataset=dataset, admin=getattr(cast, who), reason="I would like it lower", threshold=0.5)
        assert not ReleasePolicy.objects.exists() and not ReleasePolicyChange.objects.exists()

    @pytest.mark.parametrize("reason", ["", "   ", None])
    def test_a_change_without_a_reason_is_refused_naming_the_reason(self, cast, dataset, reason):
        with pytest.raises(ValidationError) as exc:
            change_release_policy(dataset=dataset, admin=cast.admin, reason=reason, threshold=0.5)
        assert set(exc.value.message_dict) == {"reason"}
        assert not ReleasePolicyChange.objects.exists()

    def test_bad_values_are_refused_naming_each_field(self, cast, dataset):
        with pytest.raises(ValidationError) as exc:
            change_release_policy(
                dataset=dataset,
                admin=cast.admin,
                reason="r",
                threshold=1.5,
                min_pairs_per_dimension=-1,
                min_pairs_per_ability="ten",
                must_clear="upper_bound",
                seed=3,
            )
        assert set(exc.value.message_dict) == {"threshold", "min_pairs_per_dimension", "min_pairs_per_ability", "must_clear", "seed"}
        assert not ReleasePolicy.objects.exists()

    def test_a_change_to_the_values_it_already_has_is_refused_and_not_logged(self, cast, dataset):
        with pytest.raises(ValidationError, match="nothing to change"):
            change_release_policy(dataset=dataset, admin=cast.admin, reason="same again", threshold=0.75)
        assert not ReleasePolicyChange.objects.exists()

    def test_the_history_lists_every_change_newest_first_and_each_before_is_the_previous_after(self, cast, dataset):
        change_release_policy(dataset=dataset, admin=cast.admin, reason="first", threshold=0.8)
        change_release_policy(dataset=dataset, admin=cast.admin, reason="second", min_pairs_per_ability=20)
        change_release_policy(dataset=dataset, admin=cast.admin, reason="third", threshold=0.85)
        history = list(policy_history(dataset))
        assert [c.reason for c in history] == ["third", "second", "first"]
        assert history[0].before == history[1].after and history[1].before == history[2].after
        assert release_policy_of(dataset).threshold == 0.85 and release_policy_of(dataset).min_pairs_per_ability == 20


class TestPage:
    def test_staff_see_the_policy_and_its_history_without_the_form(self, cast, dataset, client_for):
        change_release_policy(dataset=dataset, admin=cast.admin, reason="pilot with few items", threshold=0.8)
        page = client_for(cast.author).get(f"/validation/datasets/{dataset.name}/release-policy/").content.decode()
        assert 'id="policy-history"' in page and "pilot with few items" in page and "0.8" in page
        assert 'name="reason"' not in page

    def test_an_admin_changes_it_from_the_page_with_a_reason(self, cast, dataset, client_for):
        client = client_for(cast.admin)
        response = client.post(
            f"/validation/datasets/{dataset.name}/release-policy/",
            {
                "threshold": "0.8",
                "min_pairs_per_dimension": "30",
                "min_pairs_per_ability": "5",
                "must_clear": "lower_bound",
                "reason": "methodologist's sign-off",
            },
        )
        assert response.status_code == 302
        policy = ReleasePolicy.objects.get(dataset=dataset)
        assert (policy.threshold, policy.min_pairs_per_ability, policy.must_clear) == (0.8, 5, "lower_bound")
        assert ReleasePolicyChange.objects.get().reason == "methodologist's sign-off"

    def test_the_page_refuses_a_change_without_a_reason_and_says_so(self, cast, dataset, client_for):
        response = client_for(cast.admin).post(f"/validation/datasets/{dataset.name}/release-policy/", {"threshold": "0.5"})
        assert response.status_code == 400 and "reason" in response.content.decode()
        assert not ReleasePolicy.objects.exists()

    def test_a_senior_reviewer_cannot_post_a_change(self, cast, dataset, client_for):
        response = client_for(cast.reviewer).post(
            f"/validation/datasets/{dataset.name}/release-policy/", {"threshold": "0.5", "reason": "lower please"}
        )
        assert response.status_code == 403 and not ReleasePolicy.objects.exists()

    def test_the_dataset_page_links_to_its_release_policy(self, cast, dataset, client_for):
        page = client_for(cast.author).get(f"/datasets/{dataset.name}/").content.decode()
        assert f'href="/validation/datasets/{dataset.name}/release-policy/"' in page


class TestApi:
    def test_get_shows_the_policy_by_name_or_id_with_its_history(self, cast, dataset, client_for):
        change_release_policy(dataset=dataset, admin=cast.admin, reason="pilot", min_pairs_per_dimension=5)
        client = client_for(cast.reviewer)
        by_name = client.get(f"/api/v1/validation/datasets/{dataset.name}/release-policy/").json()
        by_id = client.get(f"/api/v1/validation/datasets/{dataset.pk}/release-policy/").json()
        assert by_name == by_id
        assert by_name["min_pairs_per_dimension"] == 5 and by_name["is_default"] is False
        assert by_name["history"][0]["reason"] == "pilot" and by_name["history"][0]["changed_by"] == cast.admin.username

    def test_an_admin_puts_a_change_with_a_reason(self, cast, dataset, client_for):
        response = client_for(cast.admin).put(
            f"/api/v1/validation/datasets/{dataset.name}/release-policy/",
            {"threshold": 0.7, "must_clear": "lower_bound", "reason": "agreed with the methodologist"},
            content_type="application/json",
        )
        assert response.status_code == 200, response.content
        body = response.json()
        assert body["threshold"] == 0.7 and body["must_clear"] == "lower_bound" and len(body["history"]) == 1

    def test_a_put_without_a_reason_is_a_400_naming_it_and_changes_nothing(self, cast, dataset, client_for):
        response = client_for(cast.admin).put(
            f"/api/v1/validation/datasets/{dataset.name}/release-policy/", {"threshold": 0.5}, content_type="application/json"
        )
        assert response.status_code == 400 and "reason" in response.json()
        assert not ReleasePolicy.objects.exists()

    def test_a_non_admin_put_is_refused(self, cast, dataset, client_for):
        response = client_for(cast.author).put(
            f"/api/v1/validation/datasets/{dataset.name}/release-policy/",
            {"threshold": 0.5, "reason": "r"},
            content_type="application/json",
        )
        assert response.status_code == 403 and not ReleasePolicy.objects.exists()

    def test_an_unknown_dataset_is_a_404(self, cast, dataset, client_for):
        assert client_for(cast.admin).get("/api/v1/validation/datasets/nope/release-policy/").status_code == 404


class TestCommand:
    def test_without_change_flags_it_prints_the_policy_and_its_history(self, cast, dataset):
        change_release_policy(dataset=dataset, admin=cast.admin, reason="pilot with few items", threshold=0.8)
        out = io.StringIO()
        call_command("release_policy", "--dataset", dataset.name, stdout=out)
        text = out.getvalue()
        assert "threshold                 0.8" in text and "pilot with few items" in text and "0.75 → 0.8" in text

    def test_it_changes_the_policy_as_an_admin_with_a_reason(self, cast, dataset):
        call_command(
            "release_policy",
            "--dataset",
            dataset.name,
            "--must-clear",
            "lower_bound",
            "--min-pairs-per-ability",
            "12",
            "--reason",
            "signed off",
            "--as",
            cast.admin.username,
            stdout=io.StringIO(),
        )
        policy = ReleasePolicy.objects.get(dataset=dataset)
        assert (policy.must_clear, policy.min_pairs_per_ability) == ("lower_bound", 12)
        assert ReleasePolicyChange.objects.get().changed_by == cast.admin

    def test_it_refuses_a_non_admin_a_missing_reason_or_a_missing_user(self, cast, dataset):
        with pytest.raises(CommandError, match="admin"):
            call_command("release_policy", "--dataset", dataset.name, "--threshold", "0.5", "--reason", "r", "--as", cast.author.username)
        with pytest.raises(CommandError, match="reason"):
            call_command("release_policy", "--dataset", dataset.name, "--threshold", "0.5", "--as", cast.admin.username)
        with pytest.raises(CommandError, match="--as USER"):
            call_command("release_policy", "--dataset", dataset.name, "--threshold", "0.5", "--reason", "r")
        assert not ReleasePolicy.objects.exists()

    def test_a_name_that_looks_like_a_number_but_is_not_one_is_a_404_not_a_500(self, cast, dataset, client_for):
        client = client_for(cast.admin)
        assert client.get("/api/v1/validation/datasets/%C2%B2/release-policy/").status_code == 404
        assert client.get("/validation/datasets/%C2%B2/release-policy/").status_code == 404
