"""The agreement report carries every model's human-calibrated scores: judge-only, experts-only and corrected, stored and read back.

The estimator is checked against ppi-python and by simulation in the other test_calibrated_scores_* modules;
here, that the report feeds it the campaign's golden labels and the judge's scores on every item, with counts and reasons.
"""

import json
from pathlib import Path

import numpy as np

from heartbench_core.lib import calibrated_scores as cal
from heartbench_core.lib import scoring
from heartbench_core.lib.agreement_report import ReportResult, ScoringPopulation, compute_report, golden_standard
from heartbench_core.lib.taxonomy import ABILITY_LABELS, DIMENSIONS
from tests.lib.synthetic_campaign import synthetic_campaign

STORED = Path(__file__).parent / "stored_reports"
EXTRA = 60  # items of the version outside the campaign's sample


def campaign():
    return synthetic_campaign(0.3, items=40)


def population(data, *, seed: int = 1) -> ScoringPopulation:
    """The judge's scores of every model on the sampled items (from its verdicts) and on EXTRA more items."""
    rng = np.random.default_rng(seed)
    labels = tuple(ABILITY_LABELS)
    a_index = {a: i for i, a in enumerate(labels)}
    n_items, n_a = len(data.item_question), len(labels)
    qids = tuple(data.item_question) + tuple(f"X{i:03d}" for i in range(EXTRA))
    crit_ab = np.array([a_index.get(a, 0) for a in data.crit_ability])
    per_response = scoring.score_questions(
        question=data.u_cr,
        ability=crit_ab[data.u_crit],
        weight=data.crit_weight[data.u_crit],
        hit=data.u_judge == 1,
        catastrophic=data.crit_catastrophic[data.u_crit],
        n_questions=len(data.cr_id),
        n_abilities=n_a,
    )
    present = np.zeros((len(qids), n_a), bool)
    present[data.cr_item, :] = per_response.present
    present[n_items:] = rng.random((EXTRA, n_a)) < 0.3
    present[n_items:, 0] = True
    criteria = np.zeros(len(qids), np.int64)
    criteria[:n_items] = np.bincount(data.crit_item, minlength=n_items)
    norms, scored = {}, {}
    for m, name in enumerate(data.model_names):
        norm = np.full((len(qids), n_a), np.nan)
        mine = data.cr_model == m
        norm[data.cr_item[mine]] = per_response.norm[mine]
        norm[n_items:] = np.where(present[n_items:], rng.uniform(20, 90, (EXTRA, n_a)), np.nan)
        norms[name], scored[name] = norm, np.ones(len(qids), bool)
    stratum = np.array([int(d == "hard") for d in data.item_difficulty] + [i % 2 for i in range(EXTRA)])  # difficulty
    return ScoringPopulation(qids, stratum, labels, present, criteria, norms, scored)


def test_every_model_gets_a_corrected_overall_with_counts_and_an_interval_no_wider_than_the_experts():
    data = campaign()
    block = compute_report(data, resamples=200, population=population(data)).calibrated_scores
    assert block is not None and block.reason is None
    assert (block.items, block.sampled_items) == (40 + EXTRA, 40)
    assert [m.model for m in sorted(block.models, key=lambda m: m.model)] == data.model_names
    for m in block.models:
        assert (m.scored_items, m.labelled_items) == (40 + EXTRA, 40)
        for s in (m.overall, *m.by_dimension, *m.by_ability):
            if not s.corrected.defined:
                assert s.corrected.reason and s.corrected_ci95.reason
                continue
            assert s.corrected.n == 40 and s.judge.n == 100
            width = s.corrected_ci95.high - s.corrected_ci95.low
            assert width <= s.experts_ci95.high - s.experts_ci95.low + 1e-9
            assert s.corrected_ci95.low <= s.corrected.value <= s.corrected_ci95.high
            assert s.corrected_ci95.resampled.unit == "item" and s.corrected_ci95.resampled.method == "ppi_clt"
        assert [s.key for s in m.by_dimension] == list(DIMENSIONS)


def test_the_judge_only_score_is_the_scorer_s_on_every_item():
    data = campaign()
    pop = population(data)
    block = compute_report(data, resamples=0, population=pop).calibrated_scores
    ability_dimension = np.array(
        [DIMENSIONS.index(d) for d in ("Personality",) * 7 + ("Emotion",) * 4 + ("Social",) * 2 + ("Motivation", "Morality")]
    )
    for m in block.models:
        norm = pop.judge_norm[m.model]
        agg = scoring.aggregate(
            scoring.QuestionScores(norm, np.zeros_like(norm), pop.present, np.zeros(len(norm)), np.zeros(len(norm), bool)),
            selected=pop.scored[m.model],
            ability_dimension=ability_dimension,
            n_dimensions=len(DIMENSIONS),
        )
        assert abs(m.overall.judge.value - agg.overall) < 1e-9


def test_the_experts_only_score_rests_on_the_golden_labels():
    data = campaign()
    pop = population(data)
    hits, ratings = data.unit_counts()
    label, _, _ = golden_standard(hits, ratings, data.k, data.u_adjudicated)
    flipped = data.__class__(**{**data.__dict__, "j_hit": ~data.j_hit})  # every expert verdict reversed
    a = compute_report(data, resamples=0, population=pop).calibrated_scores
    b = compute_report(flipped, resamples=0, population=pop).calibrated_scores
    assert (label >= 0).all()
    assert a.models[0].overall.judge == next(m for m in b.models if m.model == a.models[0].model).overall.judge
    assert {m.model: m.overall.experts.value for m in a.models} != {m.model: m.overall.experts.value for m in b.models}


def test_differences_between_models_are_paired_over_the_same_item_draws():
    data = campaign()
    block = compute_report(data, resamples=300, population=population(data)).calibrated_scores
    n = len(block.models)
    assert len(block.differences) == n - 1
    for d in block.differences:
        assert d.ci95.defined and d.ci95.resampled.resamples == 300 and d.ci95.resampled.units == 100
        assert d.ci95.low <= d.difference.value + 1e-9 and d.difference.value - 1e-9 <= d.ci95.high
    assert block.kendall_tau.n == n


def test_ranks_say_how_the_correction_reorders_the_judge_s_leaderboard():
    data = campaign()
    block = compute_report(data, resamples=0, population=population(data)).calibrated_scores
    assert sorted(m.corrected_rank for m in block.models) == list(range(1, len(block.models) + 1))
    for m in block.models:
        assert m.rank_change == m.judge_rank - m.corrected_rank


def test_a_model_without_golden_labels_is_undefined_with_the_reason_never_zero():
    data = campaign()
    drop = data.cr_model[data.u_cr[data.j_unit]] == 0  # no expert rated model 0's responses
    data.j_unit, data.j_expert, data.j_hit, data.j_time = (x[~drop] for x in (data.j_unit, data.j_expert, data.j_hit, data.j_time))
    block = compute_report(data, resamples=0, population=population(data)).calibrated_scores
    first = next(m for m in block.models if m.model == data.model_names[0])
    assert first.labelled_items == 0
    assert first.overall.corrected.value is None and first.overall.corrected.reason == cal.NO_LABELLED
    assert first.overall.judge.defined
    assert all(m.overall.corrected.defined for m in block.models if m is not first)
    assert first.corrected_rank == len(block.models)  # undefined last, never scored 0


def test_it_is_stored_and_read_back_unchanged():
    data = campaign()
    report = compute_report(data, resamples=100, population=population(data))
    stored = json.loads(json.dumps(report.to_dict()))
    assert ReportResult.from_dict(stored) == report
    assert stored["schema_version"] >= 4 and stored["calibrated_scores"]["models"]


def test_without_the_judge_s_scores_there_is_no_block_and_a_reason_says_why():
    data = campaign()
    assert compute_report(data, resamples=0).calibrated_scores is None
    pop = population(data)
    why = "the catastrophic criteria are left out"
    block = compute_report(
        data,
        resamples=0,
        population=ScoringPopulation(pop.question_ids, pop.stratum, pop.abilities, pop.present, pop.criteria, {}, {}, why),
    ).calibrated_scores
    assert block.reason == why and block.models == () and block.kendall_tau.reason == why


def test_a_report_stored_before_the_calibrated_scores_loads_without_them():
    for name in ("v1_first_reports", "v1_items_resampled", "v1_release_policy_before_items"):
        report = ReportResult.from_dict(json.loads((STORED / f"{name}.json").read_text()))
        assert report.calibrated_scores is None and "calibrated_scores" not in report.to_dict()
