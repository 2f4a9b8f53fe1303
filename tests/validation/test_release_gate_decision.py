"""The release decision of a version comes from its newest official report, decided under the dataset's policy.

A rerun with looser parameters (fewer pairs, a lower threshold, another seed) used to write its own
passing gate; now it is exploratory and leaves the version's decision alone.
"""

import io

import pytest
from django.core.management import call_command

from tests.validation.builders import blind_test
from validation.models import AgreementReport, ReleaseGate
from validation.selectors import latest_release_gate
from validation.services.agreement_reports import create_agreement_report
from validation.services.release import change_release_policy

LENIENT = {"threshold": 0.5, "min_pairs_per_dimension": 1, "min_pairs_per_ability": 1}


@pytest.fixture
def campaign(cast):
    return blind_test(cast)


def set_policy(cast, campaign, **fields):
    change_release_policy(dataset=campaign.version.dataset, admin=cast.admin, reason="agreed before the reports", **fields)


def run_command(*args) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command("agreement_report", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


class TestExploratoryReruns:
    def test_a_rerun_with_fewer_pairs_and_a_lower_threshold_is_exploratory_and_leaves_the_failed_gate(self, cast, campaign):
        official = create_agreement_report(campaign=campaign)  # the demo has < 30 pairs in three dimensions: fails
        assert latest_release_gate(campaign.version).report == official and not official.gate.passed
        out, err = run_command("--campaign", campaign.name, "--min-pairs", "1", "--min-pairs-per-ability", "1", "--threshold", "0.5")
        rerun = AgreementReport.objects.latest("id")
        assert rerun.exploratory and rerun.typed_result.gate.passed is True  # it would have passed on its own terms
        assert "exploratory" in err and "minimum pairs per dimension is 1 (the release policy says 30)" in err
        assert "EXPLORATORY" in out
        assert not ReleaseGate.objects.filter(report=rerun).exists()
        gate = latest_release_gate(campaign.version)
        assert gate.report == official and gate.passed is False

    def test_min_pairs_20_alone_makes_the_report_exploratory(self, cast, campaign):
        _, err = run_command("--campaign", campaign.name, "--min-pairs", "20")
        report = AgreementReport.objects.get()
        assert report.exploratory and report.typed_parameters.min_pairs_per_dimension == 20 and "exploratory" in err
        assert not ReleaseGate.objects.exists() and latest_release_gate(campaign.version) is None

    def test_a_lower_threshold_than_the_policy_cannot_turn_a_failed_gate_into_a_pass(self, cast, campaign):
        set_policy(cast, campaign, threshold=0.99, min_pairs_per_dimension=0, min_pairs_per_ability=0)
        official = create_agreement_report(campaign=campaign)
        assert official.gate.passed is False and "below the threshold 0.99" in official.gate.reasons[0]
        lower = create_agreement_report(campaign=campaign, threshold=0.5)
        assert lower.exploratory and lower.typed_result.gate.passed is True
        assert latest_release_gate(campaign.version).report == official

    @pytest.mark.parametrize("options", [{"seed": 7}, {"resamples": 200}, {"exclude_catastrophic": True}, {"must_clear": "lower_bound"}])
    def test_another_seed_resample_count_exclusion_or_criterion_is_exploratory(self, cast, campaign, options):
        report = create_agreement_report(campaign=campaign, **options)
        assert report.exploratory and report.typed_result.exploratory_reasons
        assert not ReleaseGate.objects.exists()

    def test_passing_the_policys_own_values_explicitly_is_still_official(self, cast, campaign):
        report = create_agreement_report(campaign=campaign, threshold=0.75, min_pairs_per_dimension=30, seed=0, resamples=1000)
        assert not report.exploratory and ReleaseGate.objects.get().report == report

    def test_the_official_gate_records_the_policy_it_was_decided_under_and_the_lower_bound(self, cast, campaign):
        set_policy(cast, campaign, **LENIENT)
        report = create_agreement_report(campaign=campaign)
        gate = ReleaseGate.objects.get(report=report)
        assert gate.passed and gate.policy == {**LENIENT, "must_clear": "point", "alt_test_epsilon": 0.2}
        assert gate.ci_low == report.typed_result.item_agreement.ci95.low < gate.agreement_rate


class TestTheGateUnderThePolicy:
    def test_a_lower_bound_policy_fails_a_report_whose_point_clears_but_whose_lower_bound_does_not(self, cast, campaign):
        probe = create_agreement_report(campaign=campaign, resamples=1000)
        low, rate = probe.typed_result.item_agreement.ci95.low, probe.typed_result.item_agreement.rate.value
        assert low < rate
        between = round((low + rate) / 2, 4)
        set_policy(cast, campaign, threshold=between, min_pairs_per_dimension=0, min_pairs_per_ability=0)
        on_point = create_agreement_report(campaign=campaign)
        assert on_point.gate.passed is True
        set_policy(cast, campaign, must_clear="lower_bound")
        on_bound = create_agreement_report(campaign=campaign)
        assert on_bound.gate.passed is False
        assert "lower bound" in on_bound.gate.reasons[0] and on_bound.gate.ci_low == low
        assert latest_release_gate(campaign.version).report == on_bound

    def test_each_ability_needs_its_minimum_of_compared_pairs(self, cast, campaign):
        set_policy(cast, campaign, threshold=0.5, min_pairs_per_dimension=0, min_pairs_per_ability=6)
        gate = create_agreement_report(campaign=campaign).gate
        thin = {row.key for row in gate.report.typed_result.by_ability if row.pairs < 6}
        assert thin and gate.passed is False
        assert all(any(f"({label}) has" in reason for reason in gate.reasons) for label in thin)


class TestShownOnTheVersion:
    @pytest.fixture
    def decided(self, cast, campaign):
        failed = create_agreement_report(campaign=campaign)
        set_policy(cast, campaign, **LENIENT)
        passed = create_agreement_report(campaign=campaign)
        exploratory = create_agreement_report(campaign=campaign, threshold=0.99)
        return failed, passed, exploratory

    def test_the_api_gives_the_newest_official_gate_with_its_report_and_policy(self, cast, campaign, decided, client_for):
        _, passed, _ = decided
        body = client_for(cast.author).get(f"/api/v1/validation/versions/{campaign.version.pk}/gate/").json()
        gate = body["gate"]
        assert gate["report"] == passed.pk and gate["passed"] is True
        assert gate["report_url"].endswith(f"/api/v1/validation/reports/{passed.pk}/")
        headline = passed.typed_result.item_agreement
        assert gate["ci_low"] == headline.ci95.low and gate["agreement_rate"] == headline.rate.value
        assert gate["ci_items"] == passed.typed_result.items
        assert gate["ci_experts"] == passed.typed_result.resampled.experts >= 2  # the CI resampled the experts as well
        assert gate["policy"] == {**LENIENT, "must_clear": "point", "alt_test_epsilon": 0.2} and body["policy_changed_since"] is False

    def test_the_api_says_so_when_the_policy_changed_since_the_decision(self, cast, campaign, decided, client_for):
        set_policy(cast, campaign, threshold=0.9)
        body = client_for(cast.admin).get(f"/api/v1/validation/versions/{campaign.version.pk}/gate/").json()
        assert body["policy_changed_since"] is True and body["current_policy"]["threshold"] == 0.9
        assert body["gate"]["policy"]["threshold"] == 0.5

    def test_a_version_without_an_official_report_has_no_gate(self, cast, campaign, client_for):
        create_agreement_report(campaign=campaign, seed=5)
        body = client_for(cast.admin).get(f"/api/v1/validation/versions/{campaign.version.pk}/gate/").json()
        assert body["gate"] is None
        page = client_for(cast.admin).get(f"/validation/versions/{campaign.version.pk}/gate/").content.decode()
        assert "No official agreement report" in page

    def test_the_version_page_loads_the_gate_from_validation_with_a_real_link(self, cast, campaign, decided, client_for):
        version = campaign.version
        page = client_for(cast.author).get(version.get_absolute_url()).content.decode()
        url = f"/validation/versions/{version.pk}/gate/"
        assert f'hx-get="{url}"' in page and f'href="{url}"' in page

    def test_the_gate_partial_shows_the_decision_its_lower_bound_reasons_report_and_policy(self, cast, campaign, decided, client_for):
        _failed, passed, exploratory = decided
        partial = client_for(cast.admin).get(f"/validation/versions/{campaign.version.pk}/gate/", HTTP_HX_REQUEST="true")
        body = partial.content.decode()
        assert "<html" not in body and "Passed" in body
        assert f"{passed.typed_result.item_agreement.ci95.low:.3f}" in body
        assert passed.get_absolute_url() in body and exploratory.get_absolute_url() not in body
        assert "threshold 0.5" in body
        assert f"{passed.typed_result.pairs} pairs, {passed.typed_result.responses} responses" in body
        experts = passed.typed_result.resampled.experts
        assert f"resampling the {passed.typed_result.items} items and the {experts} experts" in body

    def test_a_failed_decision_lists_its_reasons(self, cast, campaign, client_for):
        failed = create_agreement_report(campaign=campaign)
        body = client_for(cast.admin).get(f"/validation/versions/{campaign.version.pk}/gate/").content.decode()
        assert "Failed" in body and failed.gate.reasons[0].split(",")[0] in body

    def test_only_admins_get_a_link_to_the_report(self, cast, campaign, decided, client_for):
        _, passed, _ = decided
        body = client_for(cast.reviewer).get(f"/validation/versions/{campaign.version.pk}/gate/").content.decode()
        assert f"report #{passed.pk}" in body and passed.get_absolute_url() not in body

    def test_the_core_version_api_links_to_the_gate(self, cast, campaign, client_for):
        body = client_for(cast.author).get(f"/api/v1/versions/{campaign.version.pk}/").json()
        assert body["release_gate_url"].endswith(f"/api/v1/validation/versions/{campaign.version.pk}/gate/")


class TestExploratoryIsMarked:
    def test_the_dashboard_of_an_exploratory_report_says_it_does_not_set_the_gate(self, cast, campaign, client_for):
        report = create_agreement_report(campaign=campaign, threshold=0.6)
        page = client_for(cast.admin).get(report.get_absolute_url()).content.decode()
        assert (
            'id="exploratory"' in page and "it does not set the gate" in page and "threshold is 0.6 (the release policy says 0.75)" in page
        )

    def test_the_report_api_marks_an_exploratory_report(self, cast, campaign, client_for):
        official = create_agreement_report(campaign=campaign)
        exploratory = create_agreement_report(campaign=campaign, seed=3)
        client = client_for(cast.admin)
        rows = {r["id"]: r for r in client.get(f"/api/v1/validation/campaigns/{campaign.pk}/reports/").json()["results"]}
        assert rows[official.pk]["exploratory"] is False and rows[official.pk]["notice"] is None
        assert rows[official.pk]["passed"] is False
        assert rows[exploratory.pk]["exploratory"] is True and rows[exploratory.pk]["passed"] is None
        assert "does not set the gate" in rows[exploratory.pk]["notice"]
        detail = client.get(f"/api/v1/validation/reports/{exploratory.pk}/").json()
        assert detail["exploratory"] is True and detail["result"]["exploratory_reasons"] == ["seed 3 instead of the default 0"]

    def test_computing_through_the_api_without_gate_parameters_is_official(self, cast, campaign, client_for):
        response = client_for(cast.admin).post(
            f"/api/v1/validation/campaigns/{campaign.pk}/reports/", {"wait": True}, content_type="application/json"
        )
        assert response.status_code == 201 and response.json()["exploratory"] is False
        assert ReleaseGate.objects.get().report_id == response.json()["id"]

    def test_queueing_a_report_with_other_parameters_says_at_once_that_it_will_be_exploratory(self, cast, campaign, client_for):
        client = client_for(cast.admin)
        page = client.post(f"/validation/campaigns/{campaign.pk}/compute/", {"threshold": "0.6"}, HTTP_HX_REQUEST="true")
        assert page.status_code == 200 and "will be exploratory" in page.content.decode()
        api = client.post(f"/api/v1/validation/campaigns/{campaign.pk}/reports/", {"seed": 4}, content_type="application/json")
        assert api.status_code == 202 and api.json()["exploratory"] is True
        assert api.json()["exploratory_reasons"] == ["seed 4 instead of the default 0"]
        official = client.post(f"/api/v1/validation/campaigns/{campaign.pk}/reports/", {}, content_type="application/json")
        assert official.json()["exploratory"] is False

    def test_the_report_csv_says_whether_the_report_is_exploratory(self, cast, campaign):
        from validation.formatting import report_csv_rows

        official = create_agreement_report(campaign=campaign)
        exploratory = create_agreement_report(campaign=campaign, seed=9)
        assert ("gate", "", "exploratory", False, "") in list(report_csv_rows(official.typed_result))
        assert ("gate", "", "exploratory", True, "") in list(report_csv_rows(exploratory.typed_result))


class TestBlindDualRoles:
    def test_a_staff_member_who_is_an_expert_of_the_open_campaign_behind_the_decision_does_not_see_it(self, cast, campaign, client_for):
        from django.contrib.auth.models import Group

        from annotation.models import Campaign

        official = create_agreement_report(campaign=campaign)
        Campaign.objects.filter(pk=campaign.pk).update(status=Campaign.Status.ACTIVE)
        cast.reviewer.groups.add(Group.objects.get_or_create(name="expert")[0])
        campaign.experts.add(cast.reviewer)  # a senior reviewer who is also one of this open campaign's experts
        client = client_for(cast.reviewer)
        assert client.get(f"/api/v1/validation/versions/{campaign.version.pk}/gate/").status_code == 403
        body = client.get(f"/validation/versions/{campaign.version.pk}/gate/").content.decode()
        assert "until that campaign closes" in body or "closed to you" in body
        assert f"report #{official.pk}" not in body and "Failed" not in body
        assert client_for(cast.author).get(f"/api/v1/validation/versions/{campaign.version.pk}/gate/").status_code == 200
