"""The typed agreement report and its stored JSON: to_dict and from_dict round-trip, and reports stored by earlier versions load.

The payloads in stored_reports/ were produced by the report code of earlier revisions, run on
small arrays: the first stored reports (gate without a policy, intervals over responses), those
of the release policy (a post-discussion, exploratory one, intervals still over responses), the
last ones before the typed structure (intervals over items, schema version 1), and the last one
written field by field (schema 5: the alternative annotator test, human-calibrated scores, intervals
over items and experts). Reports are stored through the types since schema 6.
"""

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from heartbench_core.lib.agreement import NO_PAIRS
from heartbench_core.lib.agreement_report import (
    NO_GOLD_PAIRS,
    NO_RECENT_QUARTER,
    NO_SHARED_UNITS,
    NOT_RECORDED,
    SCHEMA_VERSION,
    Alert,
    Confusion,
    CriterionRow,
    ExpertOverlap,
    ExpertPair,
    ExpertRow,
    Figure,
    Gate,
    GatePolicy,
    GoldProvenance,
    GroupRow,
    Interval,
    ItemAgreement,
    JudgeExpertBaseline,
    McNemar,
    ModelScore,
    Parameters,
    PostDiscussion,
    ReportInputs,
    ReportResult,
    Resampling,
    ScoreImpact,
    TimePoint,
    UnitCounts,
    _alpha_reason,
    _criterion_interval,
    _expert_figure,
    alt_test_from_dict,
    calibrated_scores_from_dict,
    compute_report,
)
from tests.lib.synthetic_campaign import synthetic_campaign
from tests.lib.test_agreement_report import Arrays
from tests.lib.test_the_report_carries_the_human_calibrated_scores import population

STORED = Path(__file__).parent / "stored_reports"


def stored(name: str) -> dict:
    return json.loads((STORED / f"{name}.json").read_text())


def through_json(report: ReportResult) -> ReportResult:
    """What a report becomes once stored in a JSONField and read back."""
    return ReportResult.from_dict(json.loads(json.dumps(report.to_dict())))


# --- strategies: reports that hold the structure's invariants --------------------------------------

counts = st.integers(min_value=0, max_value=10**6)
values = st.floats(min_value=-1.0, max_value=1.0, allow_nan=False)
texts = st.text(max_size=12)
reasons = st.text(min_size=1, max_size=20)


@st.composite
def figures(draw, n=counts):
    count = draw(n)
    if draw(st.booleans()):
        return Figure(draw(values), count)
    return Figure(None, count, draw(reasons))


@st.composite
def intervals(draw, unit=None):
    resampled = Resampling(
        draw(st.sampled_from(["item", "response"]) if unit is None else unit),
        draw(counts),
        draw(counts),
        draw(st.sampled_from([0.9, 0.95])),
    )
    if draw(st.booleans()):
        low, high = sorted((draw(values), draw(values)))
        return Interval(low, high, resampled)
    return Interval(None, None, resampled, draw(reasons))


@st.composite
def group_rows(draw, criterion=False):
    pairs, items = draw(counts), draw(st.none() | counts)
    ci = _criterion_interval(items) if criterion else draw(intervals())
    common = (
        draw(texts),
        draw(texts),
        pairs,
        draw(counts),
        items,
        ItemAgreement(draw(figures(st.just(pairs))), ci),
        *(draw(figures(st.just(pairs))) for _ in range(4)),
        draw(figures()),
        draw(counts),
    )
    if criterion:
        return CriterionRow(*common, question_id=draw(texts), position=draw(counts), ability=draw(texts))
    return GroupRow(*common)


@st.composite
def expert_figures(draw, why):
    n = draw(counts)
    return _expert_figure(None if n == 0 or draw(st.booleans()) else draw(values), n, why)


@st.composite
def time_points(draw):
    pairs, alpha_units = draw(counts), draw(counts)
    rate = Figure(draw(values), pairs) if pairs else Figure(None, 0, NO_PAIRS)
    alpha = draw(values | st.none())
    return TimePoint(draw(texts), draw(counts), rate, Figure(alpha, alpha_units, None if alpha is not None else _alpha_reason(alpha_units)))


@st.composite
def baselines(draw):
    units = draw(counts)
    if draw(st.booleans()):
        why = draw(reasons)
        resampled = Resampling("item", 0, 0)
        return JudgeExpertBaseline(
            units, Figure(None, units, why), 0, Figure(None, units, why), 0, Figure(None, units, why), Interval(None, None, resampled, why)
        )
    return JudgeExpertBaseline(
        units,
        Figure(draw(values), units),
        draw(counts),
        Figure(draw(values), units),
        draw(counts),
        Figure(draw(values), units),
        draw(intervals(st.just("item"))),
    )


@st.composite
def score_impacts(draw):
    models = tuple(
        draw(
            st.lists(
                st.builds(
                    ModelScore,
                    texts,
                    counts,
                    values | st.none(),
                    values | st.none(),
                    counts,
                    counts,
                    st.integers(-20, 20),
                    values | st.none(),
                ),
                max_size=3,
            )
        )
    )
    tau = draw(figures())
    p = tau if not tau.defined else Figure(draw(values), tau.n)
    return ScoreImpact(draw(counts), models, tau, p)


@st.composite
def reports(draw):
    rate = draw(figures())
    ci95 = draw(intervals())
    headline = ItemAgreement(rate, ci95)
    confusion = Confusion(*(draw(counts) for _ in range(4)))
    mcnemar_p = draw(figures())
    policy = GatePolicy(draw(values), draw(counts), draw(counts), draw(st.sampled_from(["point", "lower_bound"])))
    rows = st.lists(group_rows(), max_size=3).map(tuple)
    return ReportResult(
        pairs=draw(counts),
        responses=draw(counts),
        items=draw(st.none() | counts),
        item_agreement=headline,
        cohen_kappa=draw(figures()),
        gwet_ac1=draw(figures()),
        judge_hit_rate=draw(figures()),
        human_hit_rate=draw(figures()),
        confusion=confusion,
        mcnemar=McNemar(mcnemar_p, draw(counts), confusion.fp, confusion.fn),
        krippendorff_alpha=draw(figures()),
        fleiss_kappa=draw(figures()),
        pairwise_percent_agreement=draw(figures()),
        judge_expert_baseline=draw(baselines()),
        gold_provenance=GoldProvenance(draw(counts), draw(counts), draw(counts)),
        units=UnitCounts(*(draw(counts) for _ in range(9))),
        excluded=draw(st.dictionaries(texts, counts, max_size=3)),
        by_ability=draw(rows),
        by_dimension=draw(rows),
        by_model=draw(rows),
        by_difficulty=draw(rows),
        by_primary_scene=draw(rows),
        by_criterion=tuple(draw(st.lists(group_rows(criterion=True), max_size=3))),
        by_expert=tuple(
            draw(
                st.lists(
                    st.builds(
                        ExpertRow,
                        texts,
                        counts,
                        expert_figures(NO_GOLD_PAIRS),
                        expert_figures(NO_RECENT_QUARTER),
                        expert_figures(NO_SHARED_UNITS),
                        st.lists(st.builds(ExpertOverlap, texts, expert_figures(NO_SHARED_UNITS)), max_size=2).map(tuple),
                    ),
                    max_size=2,
                )
            )
        ),
        expert_pairs=tuple(draw(st.lists(st.builds(ExpertPair, texts, texts, expert_figures(NO_SHARED_UNITS)), max_size=2))),
        over_time=tuple(draw(st.lists(time_points(), max_size=3))),
        score_impact=draw(score_impacts()),
        gate=Gate(policy, rate, ci95, draw(st.booleans()), tuple(draw(st.lists(texts, max_size=2)))),
        alerts=tuple(draw(st.lists(st.builds(Alert, texts, texts, texts), max_size=2))),
        parameters=draw(
            st.builds(
                Parameters, counts, counts, values, counts, counts, st.sampled_from(["point", "lower_bound"]), st.booleans(), st.booleans()
            )
        ),
        campaign=draw(texts),
        dataset=draw(texts),
        version=draw(texts),
        judge=draw(st.none() | texts),
        run=draw(st.none() | st.lists(texts, max_size=2).map(tuple)),
        no_judge_reason=draw(st.none() | reasons),
        exploratory=draw(st.booleans()),
        exploratory_reasons=tuple(draw(st.lists(texts, max_size=2))),
        post_discussion=draw(st.none() | st.builds(PostDiscussion, texts, counts, counts, counts)),
    )


class TestRoundTrip:
    @settings(max_examples=60, deadline=None)
    @given(reports())
    def test_any_report_survives_being_stored_as_json_and_read_back(self, report):
        assert through_json(report) == report

    def test_a_computed_report_survives_being_stored(self):
        for arrays, resamples in ((Arrays(), 200), (Arrays(k=2), 0)):
            report = compute_report(arrays, resamples=resamples)
            assert through_json(report) == report
            assert report.to_dict()["schema_version"] == SCHEMA_VERSION

    def test_the_stored_inputs_round_trip(self):
        data = {
            "campaign": {"id": 4, "name": "Spring", "version": "v1", "k": 3},
            "judge_runs": [{"id": 9, "judge": "j", "label": "r1", "model": "m", "version": "v1"}],
            "criterion_revisions": {"0b6c": 2},
            "judgments": 12,
            "last_judgment_at": None,
            "adjudications": 1,
            "computed_at": "2026-11-22T23:00:00+00:00",
        }
        assert ReportInputs.from_dict(data).to_dict() == data


class TestStoredReportsOfEarlierVersions:
    def test_the_last_untyped_reports_load_and_are_stored_again_in_the_typed_form(self):
        payload = stored("v1_items_resampled")
        report = ReportResult.from_dict(payload)
        assert report.item_agreement.rate == Figure(payload["item_agreement_rate"], payload["n"]["item_agreement_rate"])
        assert report.resampled == Resampling("item", payload["items"], 200)
        assert report.by_model[0].item_agreement.ci95.resampled.units == payload["by_model"][0]["items"]
        assert {name: f.value for name, f in report.figures().items()} == {name: payload[name] for name in report.figures()}
        assert [(row.key, row.pairs, row.item_agreement.rate.value) for row in report.by_model] == [
            (row["key"], row["pairs"], row["item_agreement_rate"]) for row in payload["by_model"]
        ]
        # Written again, it is stored through the types (schema 6) and reads back as the same report.
        again = json.loads(json.dumps(report.to_dict()))
        assert again["schema_version"] == SCHEMA_VERSION == 6 and "item_agreement_rate" not in again
        assert ReportResult.from_dict(again) == report

    def test_a_report_of_schema_5_reads_back_every_block_as_the_current_code_computes_it(self):
        """The last schema written field by field (by the code of that revision): its alternative annotator test,
        human-calibrated scores and intervals over items and experts read back as today's report of the same campaign."""
        payload = stored("v5_calibrated_and_alt_test")
        data = synthetic_campaign(0.3, items=16)
        expected = compute_report(data, resamples=30, seed=3, population=population(data))
        assert payload["schema_version"] == 5 and expected.alt_test is not None and expected.calibrated_scores is not None
        assert ReportResult.from_dict(payload) == expected
        # The leaderboard reads these two blocks alone.
        assert calibrated_scores_from_dict(payload["calibrated_scores"], schema=5) == expected.calibrated_scores
        assert alt_test_from_dict(payload["alt_test"]["overall"], schema=5) == expected.alt_test.overall

    def test_reports_from_before_items_say_their_intervals_resampled_responses(self):
        payload = stored("v1_release_policy_before_items")
        report = ReportResult.from_dict(payload)
        assert report.items is None and report.resampled == Resampling("response", payload["n"]["item_agreement_ci95"], 200)
        row = report.by_model[0]
        assert row.items is None and row.item_agreement.ci95.resampled == Resampling("response", row.responses, 200)
        assert report.judge_expert_baseline.difference_ci95.resampled == Resampling("response", 3, 200)
        assert report.gate.policy == GatePolicy(0.75, 30, 10, "lower_bound") and report.gate.ci_low == payload["gate"]["ci_low"]
        assert report.exploratory and report.post_discussion == PostDiscussion("post-discussion revisions included", 2, 5, 1)
        assert report.parameters.post_discussion is True

    def test_the_first_stored_reports_load_with_the_gate_they_were_decided_under(self):
        payload = stored("v1_first_reports")
        report = ReportResult.from_dict(payload)
        assert report.gate.policy == GatePolicy(threshold=0.75, min_pairs_per_dimension=30, min_pairs_per_ability=0, must_clear="point")
        assert report.gate.passed is payload["gate"]["passed"] and list(report.gate.reasons) == payload["gate"]["reasons"]
        assert report.parameters == Parameters(200, 0, 0.75, 30)
        assert not report.exploratory and report.post_discussion is None
        assert report.judge_expert_baseline.judge_expert == Figure(payload["judge_expert_baseline"]["judge_expert"]["value"], 5)
        # An over-time point's alpha had no count then: it says so rather than inventing one.
        point = report.over_time[0]
        assert point.krippendorff_alpha.n is None and point.item_agreement_rate.n == payload["over_time"][0]["pairs"]
        assert ReportResult.from_dict(json.loads(json.dumps(report.to_dict()))) == report

    def test_an_undefined_figure_keeps_its_stored_reason_and_one_without_gets_not_recorded(self):
        payload = stored("v1_first_reports")
        row = next(r for r in payload["by_criterion"] if r["cohen_kappa"] is None)
        report = ReportResult.from_dict(payload)
        typed = next(r for r in report.by_criterion if r.key == row["key"])
        assert typed.cohen_kappa == Figure(None, row["pairs"], row["undefined"]["cohen_kappa"])
        del row["undefined"]
        assert next(r for r in ReportResult.from_dict(payload).by_criterion if r.key == row["key"]).cohen_kappa.reason == NOT_RECORDED


class TestMalformedPayloads:
    def test_a_missing_field_is_named_with_where_it_was_missing(self):
        payload = stored("v1_items_resampled")
        del payload["by_model"][0]["alpha_units"]
        with pytest.raises(ValueError, match="by_model: missing field 'alpha_units'"):
            ReportResult.from_dict(payload)

    def test_a_report_stored_through_the_types_names_the_path_of_what_it_lacks_or_holds_wrongly(self):
        report = compute_report(Arrays(), resamples=0)
        payload = json.loads(json.dumps(report.to_dict()))
        del payload["by_model"][0]["item_agreement"]["rate"]["n"]
        with pytest.raises(ValueError, match=r"stored agreement report, by_model\[0\]\.item_agreement\.rate: missing field 'n'"):
            ReportResult.from_dict(payload)
        payload = {**json.loads(json.dumps(report.to_dict())), "pairs": "many"}
        with pytest.raises(ValueError, match="stored agreement report, pairs: expected int, got 'many'"):
            ReportResult.from_dict(payload)
        undefined = json.loads(json.dumps(report.to_dict()))
        undefined["cohen_kappa"] = {"value": None, "n": 3}
        with pytest.raises(ValueError, match="cohen_kappa: a figure has a reason exactly when it is undefined"):
            ReportResult.from_dict(undefined)

    def test_a_newer_schema_is_refused_rather_than_misread(self):
        with pytest.raises(ValueError, match="schema_version 99"):
            ReportResult.from_dict({**stored("v1_items_resampled"), "schema_version": 99})

    def test_an_undefined_figure_without_a_reason_cannot_be_built(self):
        with pytest.raises(ValueError, match="reason"):
            Figure(None, 3)
        with pytest.raises(ValueError, match="reason"):
            Interval(None, None, Resampling("item", 0, 0))
