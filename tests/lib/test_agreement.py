"""The agreement statistics against hand-computed cases, the reference libraries, and undefined data."""

import krippendorff
import numpy as np
import pytest
from scipy import stats as sps
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss_kappa

from heartbench_core.lib import agreement as st


def random_ratings(seed, units=300, raters=5, p_missing=0.3):
    """A raters × units matrix of 0/1 with NaN for missing, correlated through a latent truth."""
    rng = np.random.default_rng(seed)
    truth = rng.random(units) < 0.6
    flips = rng.random((raters, units)) < 0.2
    data = (truth[None, :] ^ flips).astype(float)
    data[rng.random((raters, units)) < p_missing] = np.nan
    return data


def counts_of(data):
    hits = np.nansum(data, axis=0)
    ratings = (~np.isnan(data)).sum(axis=0)
    return hits, ratings


class TestJudgeAgainstGold:
    def test_the_agreement_rate_and_confusion_match_a_hand_count(self):
        judge = np.array([1, 1, 0, 0, 1, 0, 1, 1], bool)
        gold = np.array([1, 0, 0, 1, 1, 0, 1, 0], bool)
        assert st.confusion(judge, gold) == {"tp": 3, "fp": 2, "fn": 1, "tn": 2}
        rate = st.item_agreement_rate(judge, gold)
        assert rate.value == pytest.approx(5 / 8) and rate.n == 8

    def test_cohen_kappa_matches_a_hand_computation(self):
        judge = np.array([1, 1, 0, 0, 1, 0, 1, 1], bool)
        gold = np.array([1, 0, 0, 1, 1, 0, 1, 0], bool)
        po, pe = 5 / 8, (5 / 8) * (4 / 8) + (3 / 8) * (4 / 8)
        assert st.cohen_kappa(judge, gold).value == pytest.approx((po - pe) / (1 - pe))

    def test_gwet_ac1_matches_a_hand_computation(self):
        judge = np.array([1, 1, 0, 0, 1, 0, 1, 1], bool)
        gold = np.array([1, 0, 0, 1, 1, 0, 1, 0], bool)
        pi = (5 / 8 + 4 / 8) / 2
        pe = 2 * pi * (1 - pi)
        assert st.gwet_ac1(judge, gold).value == pytest.approx((5 / 8 - pe) / (1 - pe))

    @pytest.mark.parametrize("seed", range(8))
    def test_cohen_kappa_equals_scikit_learn_on_random_data(self, seed):
        rng = np.random.default_rng(seed)
        a = rng.random(500) < rng.uniform(0.1, 0.9)
        b = np.where(rng.random(500) < 0.8, a, ~a)
        assert st.cohen_kappa(a, b).value == pytest.approx(cohen_kappa_score(a, b), abs=1e-10)

    def test_ac1_stays_high_where_kappa_collapses_when_nearly_everything_is_a_hit(self):
        judge = np.ones(100, bool)
        gold = np.ones(100, bool)
        gold[0] = False
        assert st.cohen_kappa(judge, gold).value == pytest.approx(0.0)
        assert st.gwet_ac1(judge, gold).value > 0.98

    def test_kappa_is_undefined_when_both_raters_always_say_hit(self):
        k = st.cohen_kappa(np.ones(10, bool), np.ones(10, bool))
        assert k.value is None and k.n == 10 and "chance agreement is 1" in k.reason
        assert st.gwet_ac1(np.ones(10, bool), np.ones(10, bool)).value == pytest.approx(1.0)

    def test_everything_is_undefined_without_pairs(self):
        empty = np.array([], bool)
        for stat in (st.item_agreement_rate(empty, empty), st.cohen_kappa(empty, empty), st.gwet_ac1(empty, empty)):
            assert stat.value is None and stat.n == 0 and stat.reason

    def test_mcnemar_is_the_exact_binomial_test_on_discordant_pairs(self):
        judge = np.array([1] * 10 + [0] * 2 + [1] * 5, bool)
        gold = np.array([0] * 10 + [1] * 2 + [1] * 5, bool)
        result = st.mcnemar_exact(judge, gold)
        assert result.value == pytest.approx(sps.binomtest(10, 12, 0.5).pvalue)
        assert result.extra == {"discordant": 12, "judge_only_hits": 10, "human_only_hits": 2}

    def test_mcnemar_is_undefined_without_discordant_pairs(self):
        x = np.array([1, 0, 1], bool)
        result = st.mcnemar_exact(x, x)
        assert result.value is None and result.n == 3
        assert "no discordant pairs" in result.reason and "all 3 compared pairs" in result.reason

    def test_mcnemar_without_compared_pairs_says_there_are_none_rather_than_that_nobody_disagrees(self):
        empty = np.array([], bool)
        result = st.mcnemar_exact(empty, empty)
        assert result.value is None and result.n == 0
        assert "no compared pairs" in result.reason
        assert "disagree" not in result.reason and "discordant" not in result.reason


class TestBootstrap:
    def test_the_interval_is_reproducible_with_a_fixed_seed_and_brackets_the_estimate(self):
        rng = np.random.default_rng(1)
        den = rng.integers(5, 15, 200).astype(float)
        num = rng.binomial(den.astype(int), 0.8).astype(float)
        low, high, reason = st.bootstrap_ratio_ci(num, den, resamples=1000, seed=7)
        again = st.bootstrap_ratio_ci(num, den, resamples=1000, seed=7)
        assert reason is None
        assert (low[0], high[0]) == (again[0][0], again[1][0])
        assert low[0] < num.sum() / den.sum() < high[0]

    def test_the_interval_agrees_with_scipy_percentile_bootstrap_over_responses(self):
        rng = np.random.default_rng(2)
        den = rng.integers(5, 15, 300).astype(float)
        num = rng.binomial(den.astype(int), 0.75).astype(float)
        low, high, _ = st.bootstrap_ratio_ci(num, den, resamples=4000, seed=3)
        ref = sps.bootstrap(
            (num, den),
            lambda a, b, axis: a.sum(axis) / b.sum(axis),
            paired=True,
            vectorized=True,
            n_resamples=4000,
            method="percentile",
            rng=np.random.default_rng(3),
        ).confidence_interval
        assert low[0] == pytest.approx(ref.low, abs=0.004)
        assert high[0] == pytest.approx(ref.high, abs=0.004)

    def test_groups_are_resampled_together_and_match_one_group_at_a_time(self):
        rng = np.random.default_rng(4)
        den = rng.integers(0, 6, (100, 3)).astype(float)
        num = np.minimum(den, rng.integers(0, 6, (100, 3))).astype(float)
        low, high, _ = st.bootstrap_ratio_ci(num, den, resamples=500, seed=5)
        for g in range(3):
            lg, hg, _ = st.bootstrap_ratio_ci(num[:, g], den[:, g], resamples=500, seed=5)
            assert (low[g], high[g]) == (lg[0], hg[0])

    def test_chunking_does_not_change_the_draws(self):
        a = np.concatenate(list(st.resample_weights(50, 30, 9, chunk_cells=50 * 7)))
        b = np.concatenate(list(st.resample_weights(50, 30, 9)))
        assert a.shape == (30, 50) and (a.sum(axis=1) == 50).all()
        # Different chunking draws different numbers, but each resample still draws 50 responses.
        assert (b.sum(axis=1) == 50).all()

    def test_one_cluster_gives_no_interval_and_says_which_unit_is_missing(self):
        low, high, reason = st.bootstrap_ratio_ci(np.array([3.0]), np.array([4.0]))
        assert np.isnan(low[0]) and np.isnan(high[0]) and reason == "fewer than 2 items: no interval by resampling items"
        assert st.ci_pair(low[0], high[0]) is None


class TestClusteredIntervals:
    """`clustered_mean_ci`, the interval of the agreement report: per-unit values, whole clusters resampled."""

    def test_it_equals_scipy_percentile_bootstrap_of_the_per_cluster_sums(self):
        rng = np.random.default_rng(12)
        cluster = rng.integers(0, 80, 3000)
        values = rng.random(3000) < np.where(cluster % 3 == 0, 0.6, 0.9)
        ci = st.clustered_mean_ci(values, cluster, resamples=4000, seed=3)
        num = np.bincount(cluster, weights=values, minlength=80)
        den = np.bincount(cluster, minlength=80).astype(float)
        ref = sps.bootstrap(
            (num, den),
            lambda a, b, axis: a.sum(axis) / b.sum(axis),
            paired=True,
            vectorized=True,
            n_resamples=4000,
            method="percentile",
            rng=np.random.default_rng(3),
        ).confidence_interval
        assert ci.pair() == pytest.approx([ref.low, ref.high], abs=0.005)
        assert ci.n_clusters == 80 and ci.clusters.tolist() == [80]

    def test_all_units_of_a_cluster_move_together(self):
        # Each cluster is all agreement or all disagreement: resampling clusters sees 40 draws
        # (wide), resampling the 4,000 units as if independent would see 4,000 (narrow).
        cluster = np.repeat(np.arange(40), 100)
        values = np.repeat(np.arange(40) % 4 != 0, 100)
        by_cluster = st.clustered_mean_ci(values, cluster, resamples=2000, seed=1)
        by_unit = st.clustered_mean_ci(values, np.arange(4000), resamples=2000, seed=1)
        low, high = by_cluster.pair()
        assert high - low > 0.2  # ≈ 2 × 1.96 × sqrt(0.75 · 0.25 / 40) ≈ 0.27
        assert np.subtract(*by_unit.pair()[::-1]) < 0.04

    def test_the_order_and_numbering_of_clusters_do_not_matter(self):
        rng = np.random.default_rng(5)
        cluster = rng.integers(0, 30, 600)
        values = rng.random(600) < 0.7
        renamed = np.array([1000 + 7 * c for c in cluster])
        order = rng.permutation(600)
        a = st.clustered_mean_ci(values, cluster, resamples=300, seed=2)
        b = st.clustered_mean_ci(values[order], renamed[order], resamples=300, seed=2)
        assert a.pair() == b.pair()

    def test_groups_share_the_draws_and_each_counts_its_own_clusters(self):
        rng = np.random.default_rng(6)
        cluster = rng.integers(0, 50, 2000)
        group = rng.integers(0, 2, 2000)
        group[np.flatnonzero(cluster == 7)[:5]] = 2  # group 2 lives in one cluster only
        values = rng.random(2000) < 0.8
        draws = st.cluster_draws(50, 400, 11)
        ci = st.clustered_mean_ci(values, cluster, group, 3, resamples=400, seed=11, weights=draws)
        num = np.zeros((50, 3))
        den = np.zeros((50, 3))
        np.add.at(num, (cluster, group), values)
        np.add.at(den, (cluster, group), 1)
        low, high, _ = st.bootstrap_ratio_ci(num, den, weights=draws)
        assert (ci.low[:2], ci.high[:2]) == (pytest.approx(low[:2]), pytest.approx(high[:2]))
        assert ci.clusters.tolist() == [int((den[:, g] > 0).sum()) for g in range(3)]
        assert ci.clusters[2] == 1 and ci.pair(2) is None
        assert ci.group_reason(2) == "fewer than 2 items with pairs: no interval by resampling items"
        assert ci.group_reason(0) is None

    def test_it_says_what_it_resampled_and_how_many(self):
        cluster = np.repeat(np.arange(12), 5)
        group = np.tile([0, 1, 1, 1, 1], 12)
        group[cluster >= 9] = 1  # group 0 only in clusters 0–8
        ci = st.clustered_mean_ci(np.ones(60), cluster, group, 2, resamples=250, seed=0)
        # Every pair agrees: the Wilson interval on the design-effect sample (here ρ = 1: each item counts once).
        assert ci.resampled(0) == {
            "unit": "item",
            "units": 9,
            "resamples": 0,
            "level": 0.95,
            "method": "wilson_design_effect",
            "effective_n": 9.0,
        }
        assert ci.resampled(1)["units"] == 12 and ci.resampled(1)["effective_n"] == pytest.approx(51 / (219 / 51), abs=1e-3)
        many = np.repeat(np.arange(60), 3)
        varied = st.clustered_mean_ci(many % 7 != 0, many, resamples=250, seed=0)
        assert varied.resampled() == {"unit": "item", "units": 60, "resamples": 250, "level": 0.95, "method": "percentile"}

    def test_without_units_or_resamples_there_is_no_interval_and_a_reason(self):
        empty = st.clustered_mean_ci(np.array([]), np.array([], int))
        assert empty.pair() is None and empty.group_reason() == "no units to resample" and empty.n_clusters == 0
        none = st.clustered_mean_ci(np.ones(10), np.arange(10), resamples=0)
        assert none.pair() is None and none.group_reason() == "no bootstrap resamples requested"
        assert none.resampled()["resamples"] == 0


class TestAmongExperts:
    @pytest.mark.parametrize("seed", range(6))
    def test_alpha_equals_the_krippendorff_package_on_raw_reliability_data(self, seed):
        data = random_ratings(seed)
        hits, ratings = counts_of(data)
        ours = st.krippendorff_alpha_nominal(hits, ratings)
        ref = krippendorff.alpha(reliability_data=data, level_of_measurement="nominal")
        assert ours.value == pytest.approx(ref, abs=1e-10)
        assert ours.n == int((ratings >= 2).sum())

    @pytest.mark.parametrize("seed", range(4))
    def test_the_grouped_alpha_equals_the_package_within_each_group(self, seed):
        data = random_ratings(seed, units=400)
        hits, ratings = counts_of(data)
        group = np.random.default_rng(seed).integers(0, 4, 400)
        alpha, units, _ = st.binary_alpha_by_group(hits, ratings, group, 4)
        for g in range(4):
            ref = krippendorff.alpha(reliability_data=data[:, group == g], level_of_measurement="nominal")
            assert alpha[g] == pytest.approx(ref, abs=1e-10)
            assert units[g] == int(((ratings >= 2) & (group == g)).sum())

    def test_alpha_is_undefined_when_every_rating_is_the_same(self):
        result = st.krippendorff_alpha_nominal(np.array([3, 3, 2]), np.array([3, 3, 2]))
        assert result.value is None and result.n == 3 and "same value" in result.reason
        alpha, units, _ = st.binary_alpha_by_group(np.array([3, 3]), np.array([3, 3]), np.array([0, 0]), 1)
        assert np.isnan(alpha[0]) and units[0] == 2

    def test_alpha_is_undefined_when_no_unit_has_two_ratings(self):
        result = st.krippendorff_alpha_nominal(np.array([1, 0]), np.array([1, 1]))
        assert result.value is None and result.n == 0

    def test_alpha_matches_a_hand_computed_coincidence_matrix(self):
        # Units: (h, m) = (3,3), (2,3), (0,2). o01 = 0 + 2·1/2 + 0 = 1; n1 = 5, n0 = 3, n = 8.
        result = st.krippendorff_alpha_nominal(np.array([3, 2, 0]), np.array([3, 3, 2]))
        assert result.value == pytest.approx(1 - 7 * 1 / (3 * 5))

    @pytest.mark.parametrize("seed", range(6))
    def test_fleiss_kappa_equals_statsmodels_on_units_with_exactly_k_ratings(self, seed):
        data = random_ratings(seed, raters=4, p_missing=0.15)
        hits, ratings = counts_of(data)
        exact = ratings == 4
        table = np.stack([4 - hits[exact], hits[exact]], axis=1)
        ours = st.fleiss_kappa(hits, ratings, 4)
        assert ours.value == pytest.approx(sm_fleiss_kappa(table, method="fleiss"), abs=1e-10)
        assert ours.n == int(exact.sum())
        assert ours.extra["left_out"] == int(((ratings >= 1) & ~exact).sum())

    def test_fleiss_kappa_is_undefined_without_complete_units_or_variation(self):
        assert st.fleiss_kappa(np.array([1]), np.array([2]), 3).reason == "no unit has exactly 3 ratings"
        assert st.fleiss_kappa(np.array([0, 0]), np.array([3, 3]), 3).value is None

    def test_pairwise_agreement_pools_every_pair_of_experts(self):
        # (3 of 3 hit): 3 agreeing pairs of 3; (2 of 3): 1 of 3; (1 of 2): 0 of 1.
        result = st.pairwise_percent_agreement(np.array([3, 2, 1]), np.array([3, 3, 2]))
        assert result.value == pytest.approx(4 / 7) and result.n == 3 and result.extra["pairs"] == 7

    def test_pairwise_agreement_equals_a_brute_force_count_on_random_data(self):
        data = random_ratings(11, units=60, raters=4)
        agree = pairs = 0
        for u in range(data.shape[1]):
            col = data[:, u][~np.isnan(data[:, u])]
            for i in range(len(col)):
                for j in range(i + 1, len(col)):
                    pairs += 1
                    agree += col[i] == col[j]
        hits, ratings = counts_of(data)
        assert st.pairwise_percent_agreement(hits, ratings).value == pytest.approx(agree / pairs)

    def test_the_baseline_compares_judge_expert_pairs_with_expert_expert_pairs(self):
        hits = np.array([3, 2, 0])
        ratings = np.array([3, 3, 3])
        judge = np.array([1, 0, 1], bool)
        out = st.judge_expert_baseline(hits, ratings, judge, np.array([0, 1, 2]), resamples=200)
        # judge agrees with 3 + 1 + 0 of 9 experts; experts agree in 3 + 1 + 3 of 9 pairs.
        assert out["judge_expert"]["value"] == pytest.approx(4 / 9)
        assert out["expert_expert"]["value"] == pytest.approx(7 / 9)
        assert out["difference"] == pytest.approx(-3 / 9)
        low, high = out["difference_ci95"]
        assert low <= -3 / 9 <= high
        # Three items: fewer than 50, so the t interval of the linearised difference (nothing resampled).
        assert out["resampled"] == {"unit": "item", "units": 3, "resamples": 0, "level": 0.95, "method": "t"}

    def test_the_baseline_gives_the_same_interval_with_the_report_s_shared_draws(self):
        rng = np.random.default_rng(4)
        ratings = np.full(60, 3)
        hits = rng.integers(0, 4, 60)
        judge = rng.random(60) < 0.5
        cluster = np.repeat(np.arange(20), 3)
        own = st.judge_expert_baseline(hits, ratings, judge, cluster, resamples=300, seed=9)
        shared = list(st.resample_weights(20, 300, 9))
        assert st.judge_expert_baseline(hits, ratings, judge, cluster, resamples=300, seed=9, weights=shared) == own
        other = list(st.resample_weights(19, 300, 9))  # drawn over other responses: not reused
        assert st.judge_expert_baseline(hits, ratings, judge, cluster, resamples=300, seed=9, weights=other) == own

    def test_the_baseline_is_undefined_without_doubly_rated_units(self):
        out = st.judge_expert_baseline(np.array([1]), np.array([1]), np.array([True]), np.array([0]))
        assert out["difference"] is None and out["units"] == 0 and out["reason"]


class TestGoldenStandard:
    def test_a_strict_majority_of_three_decides_and_ties_and_incomplete_units_do_not(self):
        hits = np.array([3, 2, 1, 0, 1, 2, 1])
        ratings = np.array([3, 3, 3, 3, 2, 2, 1])
        label, unanimous, tie = st.majority_labels(hits, ratings, st.MajorityRule(min_ratings=3))
        # (1, 2) is incomplete under k = 3 so it is no tie yet.
        assert label.tolist() == [1, 1, 0, 0, -1, -1, -1]
        assert unanimous.tolist() == [True, False, False, True, False, False, False]
        assert tie.tolist() == [False] * 7

    def test_an_even_k_can_tie(self):
        label, unanimous, tie = st.majority_labels(np.array([2, 3, 4]), np.array([4, 4, 4]), st.MajorityRule(min_ratings=4))
        assert label.tolist() == [-1, 1, 1] and tie.tolist() == [True, False, False]
        assert unanimous.tolist() == [False, False, True]


class TestMajorityRule:
    def test_the_default_is_the_blind_test_rule_at_least_two_of_three(self):
        assert st.MajorityRule() == st.BLIND_TEST and st.BLIND_TEST.min_ratings == 3
        label, _, _ = st.majority_labels(np.array([2, 1, 2, 2]), np.array([3, 3, 2, 4]))
        # 2 of 3 and 1 of 3 decide; 2 of 2 waits for the third rating; 2 of 4 is a tie.
        assert label.tolist() == [1, 0, -1, -1]

    def test_judge_agreement_leaves_out_ties_and_incomplete_units_and_counts_them(self):
        judge = np.array([True, False, True, True, False])
        hits, ratings = np.array([2, 2, 2, 2, 0]), np.array([3, 3, 4, 2, 0])
        s = st.judge_majority_agreement(judge, hits, ratings)
        assert (s.value, s.n) == (0.5, 2)
        assert s.extra == {"ties": 1, "incomplete": 1, "without_majority": 2}

    def test_the_rule_is_an_argument_a_lower_minimum_labels_units_the_blind_test_waits_for(self):
        judge, hits, ratings = np.array([True, True]), np.array([2, 0]), np.array([3, 2])
        assert st.judge_majority_agreement(judge, hits, ratings).value == 1.0
        two = st.judge_majority_agreement(judge, hits, ratings, st.MajorityRule(min_ratings=2))
        assert (two.value, two.n, two.extra["without_majority"]) == (0.5, 2, 0)

    def test_without_any_majority_the_agreement_is_undefined_and_says_which_rule(self):
        s = st.judge_majority_agreement(np.array([True]), np.array([1]), np.array([2]))
        assert s.value is None and s.n == 0 and "at least 3 expert ratings" in s.reason and s.extra["incomplete"] == 1


class TestStat:
    def test_as_dict_always_holds_the_reason_null_when_the_figure_is_defined(self):
        assert st.Stat(0.5, 4, extra={"pairs": 6}).as_dict() == {"value": 0.5, "n": 4, "reason": None, "pairs": 6}
        assert st.Stat.undefined(0, "no units").as_dict() == {"value": None, "n": 0, "reason": "no units"}


class TestRankings:
    def test_kendall_tau_matches_scipy_and_counts_models(self):
        a, b = np.array([70.0, 60, 50, 40]), np.array([65.0, 66, 40, 41])
        result = st.kendall_tau(a, b)
        assert result.value == pytest.approx(sps.kendalltau(a, b).statistic) and result.n == 4

    def test_kendall_tau_is_undefined_for_one_model_or_a_constant_ranking(self):
        assert st.kendall_tau(np.array([1.0]), np.array([2.0])).value is None
        assert "same score" in st.kendall_tau(np.array([1.0, 1.0]), np.array([2.0, 3.0])).reason

    def test_ranks_put_the_highest_score_first(self):
        assert st.ranks(np.array([50.0, 70.0, 50.0, np.nan])).tolist() == [2, 1, 2, 4]


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.uint16, np.float64])
def test_sorted_unique_is_numpys_unique(dtype):
    """In each of its ways: a narrow range marked, values in order, a wide range sorted."""
    rng = np.random.default_rng(3)
    wide = 2**15 - 1 if dtype is np.uint16 else 10**9
    for values in (
        rng.integers(0 if dtype is np.uint16 else -50, 50, 1000).astype(dtype),
        np.zeros(0, dtype),
        np.array([7], dtype),
        np.sort(rng.integers(0, 9, 99)).astype(dtype),
        np.array([wide, 0, wide, 3], dtype) if dtype is np.uint16 else rng.integers(-wide, wide, 1000).astype(dtype),
        np.sort(rng.integers(0, wide, 1000)).astype(dtype),
    ):
        assert np.array_equal(st.sorted_unique(values), np.unique(values))
        if dtype is not np.float64:
            distinct, inverse = st.sorted_unique_inverse(values)
            expected, expected_inverse = np.unique(values, return_inverse=True)
            assert np.array_equal(distinct, expected) and np.array_equal(inverse, expected_inverse.reshape(-1))


def test_rater_pair_counts_are_the_products_of_the_rating_matrices():
    """shared = RᵀR and same = HᵀH + MᵀM, also with units out of order and a rater rating a unit twice."""
    from scipy import sparse

    rng = np.random.default_rng(4)
    unit = rng.integers(0, 60, 400)
    rater = rng.integers(0, 7, 400)
    hit = rng.random(400) < 0.6
    rated = sparse.csr_matrix((np.ones(400), (unit, rater)), shape=(60, 7))
    hits = sparse.csr_matrix((hit.astype(float), (unit, rater)), shape=(60, 7))
    misses = rated - hits
    shared, same = st.rater_pair_counts(unit, rater, hit, 7)
    assert np.array_equal(shared, (rated.T @ rated).toarray())
    assert np.array_equal(same, (hits.T @ hits + misses.T @ misses).toarray())
    empty = st.rater_pair_counts(np.zeros(0, int), np.zeros(0, int), np.zeros(0, bool), 2)
    assert not empty[0].any() and not empty[1].any()
