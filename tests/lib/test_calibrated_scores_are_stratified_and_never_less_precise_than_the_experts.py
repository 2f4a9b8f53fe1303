"""Strata combine ppi-python's estimates of each stratum by the stratum's share; pooled strata and a useless judge
still leave the corrected interval no wider than the experts-only one."""

import numpy as np
import pytest

from heartbench_core.lib import calibrated_scores as cs

ppi = pytest.importorskip("ppi_py", reason="ppi-python is a test dependency (pyproject.toml, extra 'test')")


def test_strata_combine_each_stratum_s_ppi_estimate_and_variance_by_its_share():
    rng = np.random.default_rng(3)
    sizes_u, sizes_l = [300, 120, 60], [40, 25, 12]
    f_u, y, f_l, s_u, s_l = [], [], [], [], []
    for h, (nu, nl) in enumerate(zip(sizes_u, sizes_l)):
        truth = rng.normal(50 + 10 * h, 12, nu + nl)
        guess = truth + 5 - 2 * h + rng.normal(0, 6, nu + nl)
        f_u.append(guess[:nu]), y.append(truth[nu:]), f_l.append(guess[nu:])
        s_u.append(np.full(nu, h)), s_l.append(np.full(nl, h))
    weights = np.array(sizes_u) / sum(sizes_u)
    lam = 0.6
    r = cs.stratified_ppi(
        f_unlabelled=np.concatenate(f_u),
        stratum_unlabelled=np.concatenate(s_u),
        y=np.concatenate(y),
        f_labelled=np.concatenate(f_l),
        stratum_labelled=np.concatenate(s_l),
        shared=np.zeros(sum(sizes_l), bool),
        weights=weights,
        lam=lam,
        ddof=0,
    )
    z = cs.z_value()
    estimates, variances = [], []
    for h in range(3):
        low, high = (float(np.ravel(v)[0]) for v in ppi.ppi_mean_ci(y[h], f_l[h], f_u[h], alpha=0.05, lam=lam))
        estimates.append((low + high) / 2)
        variances.append(((high - low) / (2 * z)) ** 2)
    assert r.estimate[0] == pytest.approx(float(weights @ np.array(estimates)), abs=1e-6)
    assert r.se[0] == pytest.approx(float(np.sqrt((weights**2) @ np.array(variances))), abs=1e-6)


def test_strata_with_too_few_labelled_items_are_pooled():
    stratum = np.array([0] * 10 + [1] * 10 + [2] * 10 + [3] * 10)
    labelled = np.zeros(40, bool)
    labelled[[0, 1, 2, 10, 20, 21, 30]] = True  # strata 1 and 3 hold one labelled item each
    codes = cs.collapse_strata(stratum, np.ones(40, bool), labelled)
    assert len(set(codes[:10])) == 1 and len(set(codes[20:30])) == 1 and codes[0] != codes[20]
    assert set(codes[10:20]) == set(codes[30:40]) and codes[10] not in (codes[0], codes[20])  # pooled together
    lonely = np.zeros(40, bool)
    lonely[[0, 10]] = True  # no stratum holds two: one stratum for all
    assert set(cs.collapse_strata(stratum, np.ones(40, bool), lonely)) == {0}


@pytest.mark.parametrize("seed", range(12))
def test_the_corrected_interval_is_never_wider_than_the_experts_only_one(seed):
    rng = np.random.default_rng(seed)
    models, items, abilities = 3, int(rng.integers(30, 120)), 4
    present = rng.random((items, abilities)) < 0.5
    present[:, 0] = True
    experts = rng.uniform(0, 100, (models, items, abilities))
    # From a good judge to a useless or contrary one.
    kind = seed % 3
    judge = {0: experts + rng.normal(0, 5, experts.shape), 1: rng.uniform(0, 100, experts.shape), 2: 100 - experts}[kind]
    sampled = rng.random(items) < 0.35
    nan = np.where(present, 0.0, np.nan)
    r = cs.calibrate(
        judge_norm=judge + nan,
        gold_norm=experts + nan,
        scored=np.ones((models, items), bool),
        labelled=np.repeat(sampled[None, :], models, axis=0),
        present=present,
        stratum=rng.integers(0, 6, items),
        sampled=sampled,
        ability_dimension=np.array([0, 0, 1, 1]),
        n_dimensions=2,
        resamples=0,
    )
    defined = np.isfinite(r.low)
    assert defined[:, 0].all()
    width, experts_width = (r.high - r.low)[defined], (r.experts_high - r.experts_low)[defined]
    assert (width <= experts_width + 1e-9).all()
    assert ((r.lam[defined] >= 0) & (r.lam[defined] <= 1)).all()
    if kind == 2:  # a contrary judge is no help: the experts alone
        assert (r.lam[defined] == 0).all()
