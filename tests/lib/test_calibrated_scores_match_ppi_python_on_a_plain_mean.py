"""On a plain mean (one stratum, labelled and unlabelled samples apart) the calibrated score is ppi-python's `ppi_mean_ci`."""

import numpy as np
import pytest

from heartbench_core.lib import calibrated_scores as cs

ppi = pytest.importorskip("ppi_py", reason="ppi-python is a test dependency (pyproject.toml, extra 'test')")


def _sample(seed: int, n: int, big_n: int, noise: float, bias: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    truth = rng.normal(60, 15, n + big_n)
    guess = truth + bias + rng.normal(0, noise, n + big_n)
    return truth[:n], guess[:n], guess[n:]


CASES = [(0, 40, 400, 5.0, 4.0), (1, 120, 300, 30.0, -2.0), (2, 15, 2000, 1.0, 10.0), (3, 60, 60, 80.0, 0.0)]


@pytest.mark.parametrize(("seed", "n", "big_n", "noise", "bias"), CASES)
def test_the_power_tuned_estimate_and_interval_are_ppi_python_s(seed: int, n: int, big_n: int, noise: float, bias: float) -> None:
    y, yhat, yu = _sample(seed, n, big_n, noise, bias)
    ours = cs.ppi_mean_ci(y, yhat, yu, level=0.95)
    low, high = ppi.ppi_mean_ci(y, yhat, yu, alpha=0.05)
    point = ppi.ppi_mean_pointestimate(y, yhat, yu)
    assert ours.estimate == pytest.approx(float(np.ravel(point)[0]), abs=1e-6)
    assert (ours.low, ours.high) == pytest.approx((float(np.ravel(low)[0]), float(np.ravel(high)[0])), abs=1e-6)


@pytest.mark.parametrize(("seed", "n", "big_n", "noise", "bias"), CASES)
@pytest.mark.parametrize("lam", [1.0, 0.0, 0.37])
def test_a_fixed_lambda_gives_ppi_python_s_interval(seed: int, n: int, big_n: int, noise: float, bias: float, lam: float) -> None:
    y, yhat, yu = _sample(seed, n, big_n, noise, bias)
    ours = cs.ppi_mean_ci(y, yhat, yu, level=0.9, lam=lam)
    low, high = ppi.ppi_mean_ci(y, yhat, yu, alpha=0.1, lam=lam)
    assert (ours.low, ours.high) == pytest.approx((float(np.ravel(low)[0]), float(np.ravel(high)[0])), abs=1e-6)
    assert ours.lam == lam


def test_the_tuned_lambda_is_the_one_ppi_python_computes() -> None:
    y, yhat, yu = _sample(7, 50, 500, 10.0, 3.0)
    ours = cs.ppi_mean_ci(y, yhat, yu)
    grads_at = float(np.ravel(ppi.ppi_mean_pointestimate(y, yhat, yu, lam=1))[0])
    theirs = ppi.ppi.__dict__["_calc_lam_glm"](y - grads_at, yhat - grads_at, yu - grads_at, np.eye(1), clip=True)
    assert 0 < ours.lam < 1
    assert ours.lam == pytest.approx(float(theirs), abs=1e-9)


def test_a_useless_judge_is_tuned_away() -> None:
    rng = np.random.default_rng(11)
    y = rng.normal(50, 10, 80)
    yhat, yu = rng.normal(0, 10, 80), rng.normal(0, 10, 800)  # unrelated to y
    ours = cs.ppi_mean_ci(y, yhat, yu)
    classical = cs.ppi_mean_ci(y, yhat, yu, lam=0.0)
    assert ours.lam < 0.2
    assert ours.high - ours.low < (classical.high - classical.low) * 1.05
