"""Agreement reports: the contract of the command, immutability, undefined figures, the gate, the background job."""

import io
import json
from dataclasses import asdict

import numpy as np
import pytest
from django.core.exceptions import ValidationError
from django.core.management import CommandError, call_command
from django.db import connection

from annotation.models import Judgment
from heartbench_core.lib import agreement as st
from heartbench_core.lib.agreement_report import NO_CRITERION_INTERVAL, ReportResult
from heartbench_core.models import JudgeVerdict
from tests.validation.builders import JUDGE, blind_test
from validation.models import AgreementReport, GoldenLabel, ReleaseGate
from validation.services.agreement_reports import create_agreement_report

CONTRACT_KEYS = {
    "schema_version",
    "pairs",
    "responses",
    "item_agreement",
    "cohen_kappa",
    "gwet_ac1",
    "confusion",
    "judge_hit_rate",
    "human_hit_rate",
    "mcnemar",
    "krippendorff_alpha",
    "fleiss_kappa",
    "pairwise_percent_agreement",
    "gold_provenance",
    "by_ability",
    "by_dimension",
    "by_model",
    "by_difficulty",
    "by_expert",
    "gate",
}


def report_json(*args) -> dict:
    out = io.StringIO()
    call_command("agreement_report", *args, "--format", "json", stdout=out)
    return json.loads(out.getvalue())


def direct_pairs(campaign):
    """(judge, gold) per compared unit, computed independently with plain Python."""
    votes = {}
    for _cr, resp, crit, hit in Judgment.objects.filter(assignment__campaign_response__campaign=campaign).values_list(
        "assignment__campaign_response_id", "assignment__campaign_response__response_id", "criterion_id", "hit"
    ):
        votes.setdefault((resp, crit), []).append(hit)
    verdicts = {(r, c): h for r, c, h in JudgeVerdict.objects.values_list("response_id", "criterion_id", "hit")}
    pairs = [(verdicts[k], sum(v) >= 2) for k, v in votes.items() if k in verdicts]
    return np.array(pairs, dtype=bool)


def pairs_by_question_and_model(campaign) -> dict[tuple[str, str], list[int]]:
    """[agreeing, compared] (judge vs majority of 3) per (question id, model), computed with plain Python."""
    votes, where = {}, {}
    for resp, qid, model, crit, hit in Judgment.objects.filter(assignment__campaign_response__campaign=campaign).values_list(
        "assignment__campaign_response__response_id",
        "assignment__campaign_response__response__question_id",
        "assignment__campaign_response__response__model__name",
        "criterion_id",
        "hit",
    ):
        votes.setdefault((resp, crit), []).append(hit)
        where[(resp, crit)] = (qid, model)
    verdicts = {(r, c): h for r, c, h in JudgeVerdict.objects.values_list("response_id", "criterion_id", "hit")}
    out: dict[tuple[str, str], list[int]] = {}
    for key, v in votes.items():
        if key in verdicts:
            cell = out.setdefault(where[key], [0, 0])
            cell[0] += verdicts[key] == (sum(v) >= 2)
            cell[1] += 1
    return out


def item_order(campaign) -> list[str]:
    """Question ids in the order of the report's item arrays (the order its draws follow)."""
    from validation.selectors import load_campaign_arrays, select_judge_runs

    return list(load_campaign_arrays(campaign, judge_runs=select_judge_runs(campaign)).item_question)


def wilson_on_items(num, den) -> tuple[list[float], float]:
    """The Wilson interval (t on items − 1 df) on the design-effect sample of a rate over items, through statsmodels."""
    import statsmodels.api as sm
    from scipy import stats as sps
    from statsmodels.stats.proportion import proportion_confint

    keep = den > 0
    num, den = num[keep], den[keep]
    values = np.concatenate([np.r_[np.ones(int(a)), np.zeros(int(n - a))] for a, n in zip(num, den)])
    cluster = np.repeat(np.arange(num.size), den.astype(int))
    fit = sm.OLS(values, np.ones((values.size, 1))).fit(cov_type="cluster", cov_kwds={"groups": cluster}, use_t=True)
    p = values.mean()
    effective = min(p * (1 - p) / float(fit.bse[0]) ** 2, values.size)
    alpha = 2 * sps.norm.sf(sps.t.ppf(0.975, num.size - 1))
    return list(proportion_confint(p * effective, effective, alpha=alpha, method="wilson")), effective


def percentile_interval(num, den, draws) -> list[float]:
    """The 2.5% and 97.5% quantiles of sum(num)/sum(den) over resamples of clusters (rows)."""
    w = np.concatenate(draws)
    with np.errstate(invalid="ignore"):
        ratios = (w @ num) / (w @ den)
    return np.nanquantile(ratios, [0.025, 0.975]).tolist()


class TestCommand:
    def test_json_output_holds_the_contract_and_matches_a_direct_computation(self, cast):
        campaign = blind_test(cast, flip=0.25)
        stored = report_json("--campaign", campaign.name, "--judge", JUDGE)
        # The printed JSON is the stored contract, read by key; the figures are checked on the typed report.
        assert set(stored) >= CONTRACT_KEYS
        assert set(stored["gate"]) >= {"policy", "agreement_rate", "passed"} and "threshold" in stored["gate"]["policy"]
        assert set(stored["item_agreement"]["rate"]) >= {"value", "n"} and "resampled" in stored["item_agreement"]["ci95"]
        assert all({"pairs", "responses"} <= set(row) for row in stored["by_ability"])
        r = ReportResult.from_dict(stored)
        pairs = direct_pairs(campaign)
        assert r.pairs == len(pairs)
        assert r.item_agreement.rate.value == pytest.approx((pairs[:, 0] == pairs[:, 1]).mean())
        assert r.cohen_kappa.value == pytest.approx(st.cohen_kappa(pairs[:, 0], pairs[:, 1]).value)
        assert r.confusion.tp == int((pairs[:, 0] & pairs[:, 1]).sum())
        low, high = r.item_agreement.ci95.low, r.item_agreement.ci95.high
        assert low <= r.item_agreement.rate.value <= high
        assert sum(asdict(r.gold_provenance).values()) == r.units.with_golden_label
        assert {row.key for row in r.by_model} == {"demo-model-aurora", "demo-model-borealis", "demo-model-cirrus"}
        assert r.krippendorff_alpha.n > 0

    def test_the_same_inputs_and_seed_give_the_same_numbers_in_a_new_report(self, cast):
        campaign = blind_test(cast)
        a = report_json("--campaign", campaign.name)
        b = report_json("--campaign", campaign.name)
        assert a["report_id"] != b["report_id"]
        assert ReportResult.from_dict(a).item_agreement.ci95 == ReportResult.from_dict(b).item_agreement.ci95
        assert AgreementReport.objects.count() == 2

    def test_the_table_format_prints_the_headline_and_the_gate(self, cast):
        campaign = blind_test(cast)
        out = io.StringIO()
        call_command("agreement_report", "--campaign", campaign.name, "--resamples", "200", stdout=out)
        assert "item agreement rate" in out.getvalue() and "Release gate" in out.getvalue()

    def test_exclude_catastrophic_leaves_out_the_catastrophic_criteria(self, cast):
        campaign = blind_test(cast)
        full = ReportResult.from_dict(report_json("--campaign", campaign.name, "--resamples", "50"))
        without = ReportResult.from_dict(report_json("--campaign", campaign.name, "--resamples", "50", "--exclude-catastrophic"))
        catastrophic = next(row for row in full.by_ability if row.key == "其他")
        assert without.pairs == full.pairs - catastrophic.pairs
        assert "其他" not in {row.key for row in without.by_ability}

    def test_an_unknown_campaign_or_judge_is_a_clean_error(self, cast):
        campaign = blind_test(cast)
        with pytest.raises(CommandError, match="no campaign named"):
            call_command("agreement_report", "--campaign", "nope")
        with pytest.raises(CommandError, match="judge 'gpt-judge' .*has no verdicts"):
            call_command("agreement_report", "--campaign", campaign.name, "--judge", "gpt-judge")
        assert not AgreementReport.objects.exists()


class TestUndefined:
    def test_figures_undefined_on_their_data_are_null_with_a_reason(self, cast):
        campaign = blind_test(cast, constant=1)
        JudgeVerdict.objects.update(hit=True)
        r = create_agreement_report(campaign=campaign, resamples=50).typed_result
        assert r.krippendorff_alpha.value is None and "same value" in r.krippendorff_alpha.reason
        assert r.fleiss_kappa.value is None and "fleiss_kappa" in r.undefined
        assert r.human_hit_rate.value == 1.0
        assert r.cohen_kappa.value is None and "cohen_kappa" in r.undefined
        assert r.gwet_ac1.value is not None

    def test_a_campaign_without_judge_verdicts_reports_the_experts_and_says_why_the_rest_is_missing(self, cast):
        campaign = blind_test(cast, with_judge=False)
        r = create_agreement_report(campaign=campaign, resamples=50).typed_result
        assert r.pairs == 0 and r.item_agreement.rate.value is None and r.item_agreement.ci95.pair() is None
        assert "judge" in r.undefined and "item_agreement_rate" in r.undefined
        assert r.krippendorff_alpha.value is not None
        assert r.gate.passed is False

    def test_mcnemar_without_compared_pairs_says_there_are_none_not_that_they_never_disagree(self, cast):
        campaign = blind_test(cast, with_judge=False)
        r = create_agreement_report(campaign=campaign, resamples=50).typed_result
        assert r.mcnemar.p.value is None and r.mcnemar.p.n == 0
        assert "no compared pairs" in r.mcnemar.p.reason and "disagree" not in r.mcnemar.p.reason
        assert r.item_agreement.ci95.reason == st.NO_PAIRS


class TestIntervalsResampleItems:
    """Every model answers every item, so an item's responses go together in every resample."""

    def test_the_headline_interval_takes_items_as_the_unit_with_all_their_responses(self, cast):
        # Six demo items: fewer than 50, so the Wilson interval on the design-effect sample of the items.
        campaign = blind_test(cast, flip=0.25)
        r = create_agreement_report(campaign=campaign, resamples=400, seed=5).typed_result
        cells = pairs_by_question_and_model(campaign)
        questions = [q for q in item_order(campaign) if any(k[0] == q for k in cells)]
        num = np.array([sum(v[0] for k, v in cells.items() if k[0] == q) for q in questions], float)
        den = np.array([sum(v[1] for k, v in cells.items() if k[0] == q) for q in questions], float)
        assert r.items == len(questions) >= 2 and r.responses == len(cells)
        expected, effective = wilson_on_items(num, den)
        assert r.item_agreement.ci95.pair() == pytest.approx(expected)
        assert asdict(r.resampled) == {
            "unit": "item",
            "units": len(questions),
            "resamples": 0,
            "level": 0.95,
            "method": "wilson_design_effect",
            "effective_n": pytest.approx(effective, abs=1e-3),
            "experts": r.units.experts,  # resampled with the items: here every expert rated every item alike
        }
        assert r.to_dict()["item_agreement"]["ci95"]["resampled"]["units"] == len(questions)

    def test_each_model_s_interval_takes_its_own_items_and_says_how_many(self, cast):
        campaign = blind_test(cast, flip=0.25)
        r = create_agreement_report(campaign=campaign, resamples=300, seed=2).typed_result
        cells = pairs_by_question_and_model(campaign)
        questions = [q for q in item_order(campaign) if any(k[0] == q for k in cells)]
        for row in r.by_model:
            num = np.array([cells.get((q, row.key), [0, 0])[0] for q in questions], float)
            den = np.array([cells.get((q, row.key), [0, 0])[1] for q in questions], float)
            assert row.items == int((den > 0).sum()) == row.item_agreement.ci95.resampled.units >= 2
            rates = num[den > 0] / den[den > 0]
            if np.ptp(rates) > 0:  # items that differ: the design effect is the row's own
                assert row.item_agreement.ci95.pair() == pytest.approx(wilson_on_items(num, den)[0])
        for rows in (r.by_ability, r.by_dimension, r.by_difficulty, r.by_primary_scene):
            for row in rows:
                resampled = row.item_agreement.ci95.resampled
                assert (resampled.unit, resampled.units, resampled.resamples, resampled.method) == (
                    "item",
                    row.items,
                    0,
                    "wilson_design_effect",
                )
                assert (row.item_agreement.ci95.pair() is None) == (row.items < 2)
                assert row.item_agreement.ci95.pair() is None or row.item_agreement.ci95.low < row.item_agreement.ci95.high
        # A criterion has no interval: nothing was resampled for it, and the stored row says why there is none.
        assert all(row.item_agreement.ci95.resampled.resamples == 0 and row.items == 1 for row in r.by_criterion)
        stored = r.to_dict()["by_criterion"]
        assert all(
            row["item_agreement"]["ci95"]["reason"] == NO_CRITERION_INTERVAL and row["item_agreement"]["ci95"]["low"] is None
            for row in stored
        )
        baseline = r.judge_expert_baseline.difference_ci95.resampled
        assert (baseline.unit, baseline.method, baseline.resamples) == ("item", "t", 0)

    def test_a_group_on_a_single_item_has_no_interval_and_says_why(self, cast):
        from heartbench_core.lib.agreement_report import compute_report
        from validation.selectors import load_campaign_arrays, select_judge_runs

        campaign = blind_test(cast)
        data = load_campaign_arrays(campaign, judge_runs=select_judge_runs(campaign))
        data.item_scene = ["only here" if i == 0 else "elsewhere" for i in range(len(data.item_scene))]
        r = compute_report(data, resamples=100)
        row = next(row for row in r.by_primary_scene if row.key == "only here")
        assert row.items == 1 and row.responses == 3 and row.item_agreement.ci95.pair() is None
        assert row.item_agreement.ci95.reason == "fewer than 2 items with pairs: no interval by resampling items"

    def test_the_page_the_table_and_the_csv_say_what_was_resampled(self, cast, client_for):
        campaign = blind_test(cast)
        report = create_agreement_report(campaign=campaign, resamples=1000)
        r = report.typed_result
        items = r.items
        page = client_for(cast.admin).get(f"/validation/campaigns/{campaign.pk}/").content.decode()
        effective = f"{r.resampled.effective_n:.1f}"
        experts = r.resampled.experts  # resampled with the items: the few-items intervals add their variance
        wilson = f"95% CI: Wilson interval on a design-effect sample of {effective} pairs over the {items} items, with the variance between the {experts} experts added"
        assert wilson in page
        baseline = r.judge_expert_baseline.difference_ci95.resampled
        assert (
            f"by the cluster-robust t interval over the {baseline.units} items, with the variance between the {baseline.experts} experts added</div>"
            in page
        )
        assert 'class="ci-method" title="Wilson interval on a design-effect sample of' in page  # each breakdown row says its method
        out = io.StringIO()
        call_command("agreement_report", "--campaign", campaign.name, "--resamples", "1000", stdout=out)
        assert wilson in out.getvalue()
        from validation.formatting import report_csv_rows

        rows = list(report_csv_rows(r))
        assert ("overall", "", "item_agreement_ci95_low", r.item_agreement.ci95.low, items) in rows


class TestStorage:
    def test_a_report_is_immutable_and_records_its_inputs(self, cast):
        campaign = blind_test(cast)
        report = create_agreement_report(campaign=campaign, resamples=100, seed=3)
        assert report.typed_parameters.resamples == 100 and report.typed_parameters.seed == 3
        assert report.typed_inputs.judge_runs and report.typed_inputs.judgments == Judgment.objects.count()
        assert len(report.typed_inputs.criterion_revisions) == campaign.version.criterion_count
        report.result = {}
        with pytest.raises(ValidationError):
            report.save()
        assert AgreementReport.objects.get(pk=report.pk).typed_result.pairs > 0

    def test_the_gate_is_recorded_on_the_dataset_version_under_its_release_policy(self, cast):
        from validation.services.release import change_release_policy

        campaign = blind_test(cast)
        dataset = campaign.version.dataset

        def official(**policy):
            change_release_policy(dataset=dataset, admin=cast.admin, reason="test", **policy)
            return create_agreement_report(campaign=campaign)

        strict = official(threshold=0.99, min_pairs_per_dimension=0, min_pairs_per_ability=0)
        lenient = official(threshold=0.5, min_pairs_per_dimension=1, min_pairs_per_ability=1)
        sparse = official(min_pairs_per_dimension=10_000)
        gates = {g.report_id: g for g in ReleaseGate.objects.filter(version=campaign.version)}
        assert gates[strict.pk].passed is False and "below the threshold" in gates[strict.pk].reasons[0]
        assert gates[lenient.pk].passed is True and gates[lenient.pk].reasons == []
        assert gates[sparse.pk].passed is False and all("dimension" in r for r in gates[sparse.pk].reasons)

    def test_bad_parameters_are_refused_before_anything_is_written(self, cast):
        campaign = blind_test(cast)
        with pytest.raises(ValidationError) as exc:
            create_agreement_report(campaign=campaign, resamples=-1, threshold=2)
        assert set(exc.value.message_dict) == {"resamples", "threshold"}
        assert not AgreementReport.objects.exists() and not GoldenLabel.objects.exists()

    def test_the_background_job_computes_a_report_after_commit(self, cast, monkeypatch, django_capture_on_commit_callbacks):
        from django_q.conf import Conf

        from validation.services.agreement_reports import request_agreement_report

        monkeypatch.setattr(Conf, "SYNC", True)  # run the job inline instead of in a worker
        campaign = blind_test(cast)
        with django_capture_on_commit_callbacks(execute=True):
            request_agreement_report(campaign=campaign, requested_by=cast.admin, resamples=30)
        report = AgreementReport.objects.get()
        assert report.trigger == "page" and report.requested_by == cast.admin and report.typed_parameters.resamples == 30

    def test_loading_a_campaign_takes_a_fixed_number_of_queries(self, cast, django_assert_max_num_queries):
        from validation.selectors import load_campaign_arrays, select_judge_runs

        campaign = blind_test(cast)
        runs = select_judge_runs(campaign)
        # 9, and on PostgreSQL one more: how to find the campaign's assignments (by index or by join) is decided by its share.
        with django_assert_max_num_queries(10 if connection.vendor == "postgresql" else 9):
            load_campaign_arrays(campaign, judge_runs=runs)

    def test_judgments_and_verdicts_on_a_criterion_whose_meaning_changed_are_counted_and_left_out(self, cast):
        from heartbench_core.models import CriterionLineage
        from validation.selectors import load_campaign_arrays, select_judge_runs

        campaign = blind_test(cast)
        judged = Judgment.objects.filter(assignment__campaign_response__campaign=campaign).first().criterion
        CriterionLineage.objects.filter(pk=judged.lineage_id).update(current_revision=2, meaning_revision=2)
        data = load_campaign_arrays(campaign, judge_runs=select_judge_runs(campaign))
        assert data.excluded["stale_judgments"] == Judgment.objects.filter(criterion=judged).count() > 0
        assert data.excluded["stale_verdicts"] == JudgeVerdict.objects.filter(criterion=judged).count() > 0
        assert judged.pk not in data.crit_id[data.u_crit].tolist()

    def test_refreshing_unchanged_golden_labels_reads_them_once_and_writes_nothing(self, cast, django_assert_max_num_queries):
        from validation.selectors import load_campaign_arrays
        from validation.services.golden import refresh_golden_labels

        campaign = blind_test(cast)
        refresh_golden_labels(campaign=campaign)
        data = load_campaign_arrays(campaign)
        with django_assert_max_num_queries(4):  # savepoint, campaign lock, stored labels, release
            outcome = refresh_golden_labels(campaign=campaign, data=data)
        assert (outcome.created, outcome.updated, outcome.deleted) == (0, 0, 0)
