"""An agreement interval never collapses to a point, and with few items it is not the percentile bootstrap.

`agreement.clustered_mean_ci` picks each group's interval by the items it holds: from 50 on, the
percentile bootstrap over items; below 50, the Wilson interval on the group's design-effect sample
size with Student's t on items − 1 degrees of freedom (Korn and Graubard); a group whose items all
have the same rate (every pair agrees, or none) gets that Wilson interval whatever its size, its
design effect read from the intra-cluster correlation of all the units given. Differences (the
judge-vs-expert baseline, the change between judges) get the cluster-robust t interval below 50
items. Each is checked here against statsmodels; their coverage is in test_agreement_ci_coverage.py.
"""

import numpy as np
import pytest
import statsmodels.api as sm
from scipy import stats as sps
from statsmodels.stats.proportion import proportion_confint

from heartbench_core.lib import agreement as st


def korn_graubard_wilson(count, nobs, items):
    """statsmodels' Wilson interval with the normal quantile replaced by t on items − 1 degrees of freedom."""
    alpha = 2 * sps.norm.sf(sps.t.ppf(0.975, items - 1))
    return proportion_confint(count, nobs, alpha=alpha, method="wilson")


def cluster_robust_variance(values, cluster):
    """The variance of the mean with the clusters' sandwich, from statsmodels' OLS on a constant."""
    fit = sm.OLS(np.asarray(values, float), np.ones((len(values), 1))).fit(cov_type="cluster", cov_kwds={"groups": cluster}, use_t=True)
    return float(fit.bse[0]) ** 2, fit


def clustered_agreement(seed, items, per_item=12, rate=0.8):
    rng = np.random.default_rng(seed)
    cluster = np.repeat(np.arange(items), per_item)
    item_rate = np.clip(rate + rng.normal(0, 0.1, items), 0.05, 0.99)
    return (rng.random(cluster.size) < item_rate[cluster]).astype(float), cluster


class TestEveryPairAgrees:
    def test_a_group_where_every_pair_agrees_gets_an_interval_below_one(self):
        values, cluster = clustered_agreement(1, 60)
        group = (cluster % 3 == 0).astype(int)
        values[group == 1] = 1.0  # group 1: 20 items, every pair agrees
        ci = st.clustered_mean_ci(values, cluster, group, 2, resamples=300, seed=0)
        low, high = ci.pair(1)
        assert high == 1.0 and low < 1.0  # the percentile bootstrap gave [1.0, 1.0]
        assert ci.group_method(1) == "wilson_design_effect" and ci.flat[1]
        assert ci.resampled(1)["method"] == "wilson_design_effect" and ci.resampled(1)["resamples"] == 0
        assert ci.resampled(1)["effective_n"] == pytest.approx(ci.effective_n[1], abs=1e-3)

    def test_its_effective_sample_is_the_pairs_over_the_design_effect_of_all_the_units(self):
        values, cluster = clustered_agreement(2, 60, per_item=10)
        group = (cluster >= 40).astype(int)
        values[group == 1] = 1.0
        ci = st.clustered_mean_ci(values, cluster, group, 2, resamples=200, seed=0)
        # Kish: deff = cluster-robust variance / binomial variance of the mean of every unit, ρ = (deff − 1) / (m − 1).
        variance, _fit = cluster_robust_variance(values, cluster)
        p, n = values.mean(), values.size
        rho = (variance / (p * (1 - p) / n) - 1) / (10 - 1)
        assert st.intra_cluster_correlation(np.bincount(cluster, weights=values), np.bincount(cluster)) == pytest.approx(rho)
        effective = 200 / (1 + (10 - 1) * rho)  # group 1: 20 items of 10 pairs
        assert ci.effective_n[1] == pytest.approx(effective)
        assert ci.pair(1) == pytest.approx(list(korn_graubard_wilson(effective, effective, 20)))

    def test_when_nothing_varies_at_all_the_items_count_as_the_sample(self):
        # Every unit agrees: the data say nothing of the correlation, so ρ = 1 and each item counts once.
        cluster = np.repeat(np.arange(8), 25)
        ci = st.clustered_mean_ci(np.ones(200), cluster, resamples=200, seed=0)
        assert ci.effective_n[0] == pytest.approx(8)
        assert ci.pair() == pytest.approx(list(korn_graubard_wilson(8, 8, 8)))
        assert ci.low[0] < 0.7

    def test_a_group_where_no_pair_agrees_gets_an_interval_above_zero(self):
        values, cluster = clustered_agreement(3, 70)
        group = (cluster < 10).astype(int)
        values[group == 1] = 0.0
        low, high = st.clustered_mean_ci(values, cluster, group, 2, resamples=200, seed=0).pair(1)
        assert low == 0.0 and high > 0.0

    def test_a_difference_without_spread_between_items_has_no_interval_and_says_why(self):
        cluster = np.repeat(np.arange(10), 4)
        ci = st.clustered_mean_ci(np.zeros(40), cluster, resamples=200, seed=0, proportion=False)
        assert ci.pair() is None
        assert ci.group_reason() == "every item has the same mean difference: no spread between items to estimate an interval from"


class TestFewItems:
    @pytest.mark.parametrize("items", [5, 20, 49])
    def test_below_50_items_a_rate_gets_the_wilson_interval_on_its_design_effect_sample(self, items):
        values, cluster = clustered_agreement(items, items)
        ci = st.clustered_mean_ci(values, cluster, resamples=300, seed=0)
        variance, _fit = cluster_robust_variance(values, cluster)
        p = values.mean()
        effective = min(p * (1 - p) / variance, values.size)
        assert ci.group_method() == "wilson_design_effect"
        assert ci.effective_n[0] == pytest.approx(effective)
        assert ci.pair() == pytest.approx(list(korn_graubard_wilson(p * effective, effective, items)))
        assert ci.resampled() == {
            "unit": "item",
            "units": items,
            "resamples": 0,
            "level": 0.95,
            "method": "wilson_design_effect",
            "effective_n": pytest.approx(effective, abs=1e-3),  # stored to three decimals
        }

    def test_from_50_items_on_it_stays_the_percentile_bootstrap(self):
        values, cluster = clustered_agreement(7, 50)
        ci = st.clustered_mean_ci(values, cluster, resamples=300, seed=4)
        num, den = np.bincount(cluster, weights=values), np.bincount(cluster).astype(float)
        low, high, _ = st.bootstrap_ratio_ci(num, den, resamples=300, seed=4)
        assert ci.pair() == [pytest.approx(low[0]), pytest.approx(high[0])]
        assert ci.resampled() == {"unit": "item", "units": 50, "resamples": 300, "level": 0.95, "method": "percentile"}

    def test_each_group_is_given_the_method_of_its_own_item_count(self):
        values, cluster = clustered_agreement(8, 80)
        group = (cluster >= 60).astype(int)  # 60 items and 20 items
        ci = st.clustered_mean_ci(values, cluster, group, 2, resamples=300, seed=0)
        assert ci.method == ("percentile", "wilson_design_effect")
        assert [ci.resampled(g)["units"] for g in (0, 1)] == [60, 20]

    def test_below_50_items_a_difference_gets_the_cluster_robust_t_interval(self):
        rng = np.random.default_rng(9)
        cluster = np.repeat(np.arange(25), 8)
        diff = rng.choice([-1.0, 0.0, 0.0, 1.0], cluster.size)
        ci = st.clustered_mean_ci(diff, cluster, resamples=300, seed=0, proportion=False)
        _variance, fit = cluster_robust_variance(diff, cluster)
        assert ci.group_method() == "t" and ci.resampled()["resamples"] == 0
        assert ci.pair() == pytest.approx(list(fit.conf_int(alpha=0.05)[0]))

    def test_the_judge_expert_baseline_below_50_items_is_a_t_interval_of_its_linearised_difference(self):
        rng = np.random.default_rng(10)
        units = 240
        cluster = np.repeat(np.arange(30), 8)
        ratings = np.full(units, 3)
        truth = rng.random(units) < 0.6
        hits = np.array([sum(t ^ (rng.random() < 0.2) for _ in range(3)) for t in truth])
        judge = truth ^ (rng.random(units) < 0.25)
        out = st.judge_expert_baseline(hits, ratings, judge, cluster, resamples=300, seed=0)
        agree_je = np.where(judge, hits, ratings - hits).astype(float)
        agree_ee, pairs_ee = st.agreeing_pairs(hits, ratings)
        je, ee = agree_je.sum() / ratings.sum(), agree_ee.sum() / pairs_ee.sum()
        # The same difference as a regression on unit-level scores: its influence per unit, clustered by item.
        score = (agree_je - je * ratings) / ratings.mean() - (agree_ee - ee * pairs_ee) / pairs_ee.mean() + (je - ee)
        _variance, fit = cluster_robust_variance(score, cluster)
        assert out["resampled"]["method"] == "t" and out["resampled"]["units"] == 30
        assert out["difference_ci95"] == pytest.approx(list(fit.conf_int(alpha=0.05)[0]))
