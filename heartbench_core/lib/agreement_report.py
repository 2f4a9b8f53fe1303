"""The whole agreement report from a campaign's arrays: pure computation, no Django.

`compute_report` takes a campaign's data as flat NumPy arrays (`ReportData`; the validation app
loads them from the database as its `CampaignArrays`) and returns a `ReportResult`: typed, frozen
parts whose every figure (`Figure`) carries the number of units it compared and, when undefined,
its reason (the value is then None, never 0), and whose every interval (`Interval`) says what it
resampled. `ReportResult.to_dict()` is the JSON stored in an `AgreementReport`, written from the
types themselves (`heartbench_core.lib.typed_json`); `ReportResult.from_dict()` reads it back, and
reads a report stored by an earlier version (schemas 1 to 5, written field by field) once
`upgrade_stored_report` has turned it into that JSON. The statistics are those of
`heartbench_core.lib.agreement`, the golden standard's majority is its `MajorityRule`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any, Protocol, TypeVar

import numpy as np

from heartbench_core.lib import agreement as st
from heartbench_core.lib import alt_test as alt
from heartbench_core.lib import calibrated_scores as cal
from heartbench_core.lib import crossed as cx
from heartbench_core.lib import scoring
from heartbench_core.lib.reasons import Reason
from heartbench_core.lib.split_extension import GoldChange, first_k_counts, gold_change
from heartbench_core.lib.taxonomy import ABILITY_BY_LABEL, ABILITY_LABELS, CATASTROPHIC_LABEL, DIMENSIONS, english_name
from heartbench_core.lib.typed_json import TypedJsonError, from_json, to_json

PROVENANCE_NONE, PROVENANCE_UNANIMOUS, PROVENANCE_MAJORITY, PROVENANCE_ADJUDICATED = 0, 1, 2, 3
PROVENANCE_NAMES = {PROVENANCE_UNANIMOUS: "unanimous", PROVENANCE_MAJORITY: "majority", PROVENANCE_ADJUDICATED: "adjudicated"}

T = TypeVar("T")

DRIFT_DROP = 0.10
DRIFT_MIN_PAIRS = 30
MAX_CRITERION_ALERTS = 20
MAX_TIME_POINTS = 30


class ReportData(Protocol):
    """What the report reads of a campaign: flat arrays, `u_*` with one entry per unit (response, criterion)."""

    k: int  # ratings per unit the golden standard waits for (the campaign's overlap)
    cr_id: np.ndarray
    cr_model: np.ndarray
    cr_item: np.ndarray
    model_names: list[str]
    item_question: list[str]
    item_difficulty: list[str]
    item_scene: list[str]
    crit_id: np.ndarray
    crit_ability: list[str]
    crit_weight: np.ndarray
    crit_catastrophic: np.ndarray
    crit_lineage: list[str]
    crit_position: np.ndarray
    crit_item: np.ndarray
    u_cr: np.ndarray
    u_crit: np.ndarray
    j_unit: np.ndarray
    j_expert: np.ndarray
    j_hit: np.ndarray
    j_time: np.ndarray
    expert_ids: list[int]
    expert_names: list[str]
    u_judge: np.ndarray
    u_adjudicated: np.ndarray
    excluded: dict

    @property
    def n_units(self) -> int: ...

    def unit_counts(self) -> tuple[np.ndarray, np.ndarray]: ...


@dataclass(frozen=True)
class GatePolicy:
    """The rules a release gate is decided by: a plain copy of a dataset's `ReleasePolicy`."""

    threshold: float = 0.75
    min_pairs_per_dimension: int = 30
    min_pairs_per_ability: int = 10
    must_clear: str = "point"  # "point": the agreement rate; "lower_bound": the lower end of its 95% CI
    alt_test_epsilon: float = field(
        default=alt.DEFAULT_EPSILON, metadata={"help_text": "The alternative annotator test's margin ε (it decides no gate)."}
    )

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class ReportDefaults:
    """The resamples and seed of an official report (any others make it exploratory), and the default gate rules."""

    resamples: int = 1000
    seed: int = 0
    threshold: float = GatePolicy.threshold
    min_pairs_per_dimension: int = GatePolicy.min_pairs_per_dimension


DEFAULTS = ReportDefaults()


# --- the report's typed structure -------------------------------------------------------------
#
# `compute_report` returns a `ReportResult`; `ReportResult.to_dict()` is the JSON stored in an
# `AgreementReport` (`typed_json.to_json` of the result, plus `schema_version`), and
# `ReportResult.from_dict()` reads every stored version back (the older ones upgraded first).

SCHEMA_VERSION = 6  # 2: schema_version itself, and an over-time point's alpha_units; 3: the alternative annotator test;
# 4: the human-calibrated scores; 5: their intervals resample the experts too (their `resampled.experts` is set);
# 6: written from the typed result itself (every figure with its n and reason, every interval with what it resampled)
TYPED_SCHEMA = 6  # the first schema stored through the types; `upgrade_stored_report` turns the ones before into it
NOT_RECORDED = Reason("not_recorded")
NO_CRITERION_INTERVAL = Reason("no_criterion_interval")
NO_RESAMPLES = Reason("no_bootstrap_resamples")


@dataclass(frozen=True, slots=True)
class Figure:
    """A statistic, the number of units it compared, and why it is undefined (then its value is None, never 0)."""

    value: float | None = field(metadata={"help_text": "The statistic; null when it is undefined on the data (see reason)."})
    n: int | None = field(
        metadata={
            "help_text": "How many units it compared (pairs, units, judgments, models: the figure's own unit). Null only where a report stored before this count was recorded lacks it."
        }
    )
    reason: str | None = field(default=None, metadata={"help_text": "Why it is undefined; null when it is defined."})

    def __post_init__(self) -> None:
        if (self.value is None) != bool(self.reason):
            raise ValueError(f"a figure has a reason exactly when it is undefined: {self.value!r}, {self.reason!r}")

    @classmethod
    def of(cls, stat: st.Stat) -> Figure:
        """The figure of an agreement statistic."""
        return cls(stat.value, stat.n, stat.reason or None if stat.value is None else None)

    @classmethod
    def stored(cls, value: float | None, n: int | None, reason: str | None) -> Figure:
        """A figure as a report stored it: a reason it left out becomes NOT_RECORDED."""
        return cls(value, n, (reason or NOT_RECORDED) if value is None else None)

    @property
    def defined(self) -> bool:
        return self.value is not None


@dataclass(frozen=True, slots=True)
class Resampling:
    """What an interval resampled: its unit (the item; "response" in reports from before), how many, how often."""

    unit: str = field(
        metadata={"help_text": "What was resampled: 'item' (all of an item's responses together); 'response' in reports from before."}
    )
    units: int = field(metadata={"help_text": "How many of them."})
    resamples: int = field(metadata={"help_text": "Bootstrap resamples drawn (0: none, for the t and Wilson intervals)."})
    level: float = 0.95
    method: str = field(
        default=st.PERCENTILE,
        metadata={
            "help_text": "'percentile' (bootstrap, 50 items or more), 'wilson_design_effect' (Wilson on the design-effect sample: a rate over fewer than 50 items, or whose items all have the same rate), 't' (cluster-robust t: a difference over fewer than 50 items) or 'ppi_clt' (the analytic PPI++ interval of a human-calibrated score)."
        },
    )
    effective_n: float | None = field(
        default=None, metadata={"help_text": "The Wilson interval's design-effect sample size, in pairs; null for the other methods."}
    )
    experts: int | None = field(
        default=None,
        metadata={
            "help_text": "Experts resampled with the items (all of an expert's votes together; the t and Wilson intervals add the variance between them); null when the items alone were resampled, as in reports from before."
        },
    )


@dataclass(frozen=True, slots=True)
class Interval:
    """A 95% confidence interval (None bounds and a reason when undefined) and what it resampled."""

    low: float | None
    high: float | None
    resampled: Resampling
    reason: str | None = field(default=None, metadata={"help_text": "Why there is no interval; null when there is one."})

    def __post_init__(self) -> None:
        if (self.low is None) != (self.high is None) or (self.low is None) != bool(self.reason):
            raise ValueError(f"an interval has both bounds, or neither and a reason: {self.low!r}, {self.high!r}, {self.reason!r}")

    @classmethod
    def from_pair(cls, pair: list[float] | None, resampled: Resampling, reason: str | None) -> Interval:
        """An interval from a stored [low, high] (None: undefined, for `reason`)."""
        if pair is None:
            return cls(None, None, resampled, reason)
        return cls(float(pair[0]), float(pair[1]), resampled, None)

    @property
    def defined(self) -> bool:
        return self.low is not None

    def pair(self) -> list[float] | None:
        """[low, high] as stored, or None."""
        return None if self.low is None or self.high is None else [self.low, self.high]


@dataclass(frozen=True, slots=True)
class ItemAgreement:
    """Judge against golden standard: the share of compared pairs where they agree, and its interval."""

    rate: Figure
    ci95: Interval


@dataclass(frozen=True, slots=True)
class Confusion:
    """2×2 counts with the golden standard as truth: tp = judge hit and gold hit, fp = judge hit and gold miss."""

    tp: int
    fp: int
    fn: int
    tn: int


@dataclass(frozen=True, slots=True)
class McNemar:
    """The exact McNemar test: are judge-only hits (fp) as frequent as human-only hits (fn)?"""

    p: Figure
    discordant: int
    judge_only_hits: int
    human_only_hits: int


@dataclass(frozen=True, slots=True)
class JudgeExpertBaseline:
    """Judge–expert pair agreement against expert–expert pair agreement, on units with a verdict and ≥ 2 ratings."""

    units: int
    judge_expert: Figure
    judge_expert_pairs: int  # (judge, expert) rating pairs compared
    expert_expert: Figure
    expert_expert_pairs: int  # (expert, other expert) rating pairs compared
    difference: Figure  # judge–expert minus expert–expert
    difference_ci95: Interval


@dataclass(frozen=True, slots=True)
class GoldProvenance:
    """How the units' golden labels were reached."""

    unanimous: int
    majority: int
    adjudicated: int


@dataclass(frozen=True, slots=True)
class UnitCounts:
    """(response, criterion) units of the campaign and what they have."""

    total: int
    rated: int
    complete: int
    with_golden_label: int
    ties: int
    incomplete: int
    with_judge_verdict: int
    judgments: int
    experts: int


@dataclass(frozen=True, slots=True)
class GroupRow:
    """One group of a breakdown (an ability, dimension, model, difficulty or scene): its pairs and figures."""

    key: str
    label: str
    pairs: int  # judge–gold pairs compared (the n of every judge–gold figure)
    responses: int
    items: int | None = field(metadata={"help_text": "Null in reports from before items were counted."})
    item_agreement: ItemAgreement
    cohen_kappa: Figure
    gwet_ac1: Figure
    judge_hit_rate: Figure
    human_hit_rate: Figure
    krippendorff_alpha: Figure  # among the experts; n = units rated by two or more
    ratings: int


@dataclass(frozen=True, slots=True)
class CriterionRow(GroupRow):
    """One criterion (key: its lineage) of the report, where it was asked and under which ability; no interval."""

    question_id: str
    position: int
    ability: str


@dataclass(frozen=True, slots=True)
class ExpertOverlap:
    """An expert's agreement with another expert on the units both rated (n)."""

    expert: str
    agreement: Figure


@dataclass(frozen=True, slots=True)
class ExpertRow:
    """One expert: agreement with the golden standard (overall and on the latest quarter) and with the other experts."""

    expert: str
    judgments: int
    gold_agreement: Figure
    recent_gold_agreement: Figure = field(metadata={"help_text": "On the expert's latest quarter of compared judgments (drift)."})
    expert_agreement: Figure
    with_experts: tuple[ExpertOverlap, ...]


@dataclass(frozen=True, slots=True)
class ExpertPair:
    """Two experts' agreement on the units both rated (n)."""

    a: str
    b: str
    agreement: Figure


@dataclass(frozen=True, slots=True)
class TimePoint:
    """Agreement at the end of a day with submissions, on the judgments received by then."""

    date: str = field(metadata={"format": "date"})
    judgments: int
    item_agreement_rate: Figure  # n: judge–gold pairs compared
    krippendorff_alpha: Figure  # n: units rated by two or more experts


@dataclass(frozen=True, slots=True)
class ModelScore:
    """A model's score under the judge and under the golden standard, on its fully labelled responses."""

    model: str
    responses: int
    judge_score: float | None
    gold_score: float | None
    judge_rank: int
    gold_rank: int
    rank_change: int = field(metadata={"help_text": "Positive: the golden standard ranks the model higher than the judge."})
    score_difference: float | None


@dataclass(frozen=True, slots=True)
class ScoreImpact:
    """Leaderboards under the judge and under the golden standard on the same fully labelled responses."""

    responses: int = field(metadata={"help_text": "Responses with a judge verdict and a golden label on every criterion."})
    models: tuple[ModelScore, ...]
    kendall_tau: Figure  # n: models ranked by both
    kendall_tau_p: Figure


@dataclass(frozen=True, slots=True)
class AltTestExpert:
    """One left-out expert of the alternative annotator test: the responses compared, the win shares, the test."""

    expert: str
    responses: int = field(metadata={"help_text": "Responses the expert, the judge and another expert all rated."})
    judge_wins: float = field(
        metadata={"help_text": "Share of those responses where the judge matched the other experts at least as well."}
    )
    expert_wins: float = field(metadata={"help_text": "Share where the expert matched the other experts at least as well as the judge."})
    p: float = field(metadata={"help_text": "One-sided t-test, H1: mean(W_expert − W_judge) < ε."})
    p_adjusted: float = field(metadata={"help_text": "Benjamini–Yekutieli adjusted over the tested experts."})
    judge_beats: bool = field(metadata={"help_text": "The adjusted p is at most q: the judge is as good as this expert, up to ε."})


@dataclass(frozen=True, slots=True)
class AltTest:
    """Can the judge replace an expert? The alternative annotator test (Calderon, Reichart & Dror, ACL 2025).

    n of both figures: the experts tested. Undefined (with the reason) when no expert could be tested.
    """

    winning_rate: Figure = field(metadata={"help_text": "Share of the tested experts the judge beats (n: experts tested)."})
    advantage_probability: Figure = field(
        metadata={"help_text": "Mean over the tested experts of the share of their responses the judge wins (n: experts tested)."}
    )
    passed: bool | None = field(metadata={"help_text": "Winning rate ≥ 0.5: the judge can replace an expert; null when undefined."})
    epsilon: float = field(metadata={"help_text": "The cost–benefit margin ε of the release policy."})
    q: float = field(metadata={"help_text": "The false discovery rate of the Benjamini–Yekutieli procedure."})
    min_responses: int = field(metadata={"help_text": "Responses an expert needs to be tested."})
    experts_tested: int
    experts_left_out: int = field(metadata={"help_text": "Experts with fewer than min_responses responses to compare."})
    responses: int = field(metadata={"help_text": "Responses on which some expert was compared with the judge."})
    experts: tuple[AltTestExpert, ...]

    def __post_init__(self) -> None:
        if self.passed != passes(self.winning_rate.value):
            raise ValueError(f"passed must say whether the winning rate {self.winning_rate.value!r} is at least 0.5")


def passes(winning_rate: float | None) -> bool | None:
    """Whether a winning rate lets the judge replace an expert (None: undefined)."""
    return None if winning_rate is None else winning_rate >= alt.PASSING_WINNING_RATE


@dataclass(frozen=True, slots=True)
class AltTestRow:
    """The alternative annotator test on one ability's or dimension's criteria."""

    key: str
    label: str
    test: AltTest


@dataclass(frozen=True, slots=True)
class AltTestBlock:
    """The alternative annotator test on every criterion, and per dimension and per ability."""

    overall: AltTest
    by_dimension: tuple[AltTestRow, ...]
    by_ability: tuple[AltTestRow, ...]


PPI_CLT = "ppi_clt"  # the analytic PPI++ interval (no resamples), stratified by difficulty and scene


@dataclass(frozen=True, slots=True)
class CalibratedScore:
    """One score of a model three ways: the judge's, the experts' sample's, and the judge's corrected by the experts' (PPI++)."""

    key: str = field(metadata={"help_text": "'overall', a dimension's name or an ability's label."})
    label: str
    judge: Figure = field(metadata={"help_text": "The judge alone on every item it scored (the leaderboard's score); n: items scored."})
    experts: Figure = field(
        metadata={
            "help_text": "The golden labels alone, on the sampled items, each difficulty × scene stratum weighted by its share; n: labelled items."
        }
    )
    experts_ci95: Interval
    corrected: Figure = field(
        metadata={"help_text": "The judge's score on every item corrected by its error on the labelled ones (PPI++); n: labelled items."}
    )
    corrected_ci95: Interval = field(
        metadata={"help_text": "Analytic PPI++ interval over items, stratified; never wider than the experts'."}
    )
    lam: float | None = field(metadata={"help_text": "The power-tuning λ used: 0 is the experts alone, 1 plain PPI."})


@dataclass(frozen=True, slots=True)
class CalibratedModel:
    """A model's human-calibrated scores, its ranks by the judge alone and corrected, and the counts they rest on."""

    model: str
    scored_items: int
    labelled_items: int
    strata: int = field(metadata={"help_text": "Difficulty × scene strata weighted, after pooling those with fewer than 2 labelled items."})
    judge_rank: int
    corrected_rank: int
    rank_change: int = field(metadata={"help_text": "Positive: the corrected score ranks the model higher than the judge's."})
    overall: CalibratedScore
    by_dimension: tuple[CalibratedScore, ...]
    by_ability: tuple[CalibratedScore, ...]


@dataclass(frozen=True, slots=True)
class ModelDifference:
    """The corrected overall of one model minus the next one's in the corrected ranking, with its interval over the same item draws."""

    model: str
    other: str
    difference: Figure = field(metadata={"help_text": "Corrected overall of `model` minus `other`'s; n: items both were scored on."})
    ci95: Interval = field(metadata={"help_text": "Percentile interval over the same resamples of items for both models."})


@dataclass(frozen=True, slots=True)
class CalibratedScores:
    """Every model's human-calibrated scores (prediction-powered inference, PPI++) and how they reorder the judge's leaderboard."""

    items: int = field(metadata={"help_text": "Items of the version."})
    sampled_items: int = field(metadata={"help_text": "Of them, in the campaign's sample."})
    models: tuple[CalibratedModel, ...]
    differences: tuple[ModelDifference, ...]
    kendall_tau: Figure = field(metadata={"help_text": "Kendall's tau between the judge-only and the corrected overall; n: models."})
    reason: str | None = field(default=None, metadata={"help_text": "Why no model could be calibrated; null when some could."})


@dataclass(frozen=True, slots=True)
class Gate:
    """The release decision under a policy, with the agreement and interval it was decided on and why it failed."""

    policy: GatePolicy
    agreement_rate: Figure
    ci95: Interval
    passed: bool
    reasons: tuple[str, ...]

    @property
    def threshold(self) -> float:
        return self.policy.threshold

    @property
    def min_pairs_per_dimension(self) -> int:
        return self.policy.min_pairs_per_dimension

    @property
    def min_pairs_per_ability(self) -> int:
        return self.policy.min_pairs_per_ability

    @property
    def must_clear(self) -> str:
        return self.policy.must_clear

    @property
    def ci_low(self) -> float | None:
        """The lower bound of the agreement's 95% CI (always reported, whatever must clear the threshold)."""
        return self.ci95.low


@dataclass(frozen=True, slots=True)
class Alert:
    """A risk worth a look: an outlying or drifting expert, a criterion the experts disagree on, a model the judge gets wrong."""

    kind: str  # one of ALERT_KINDS
    subject: str
    message: str


# low_alpha_criterion: reports from before the split signal (alpha below 0.4 over 5 or more responses).
ALERT_KINDS = ("expert_outlier", "expert_drift", "split_criterion", "low_alpha_criterion", "judge_model_disagreement")


@dataclass(frozen=True, slots=True)
class Parameters:
    """What a report was computed with: resamples, seed, the gate's rules and what was left out or overlaid."""

    resamples: int
    seed: int
    threshold: float
    min_pairs_per_dimension: int
    min_pairs_per_ability: int = 0  # 0: the reports from before ability minimums had none
    must_clear: str = "point"
    exclude_catastrophic: bool = False
    post_discussion: bool = False
    alt_test_epsilon: float = field(
        default=alt.DEFAULT_EPSILON, metadata={"help_text": "The alternative annotator test's margin ε, from the release policy."}
    )

    @property
    def gate_policy(self) -> GatePolicy:
        return GatePolicy(self.threshold, self.min_pairs_per_dimension, self.min_pairs_per_ability, self.must_clear, self.alt_test_epsilon)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Parameters:
        """Stored parameters (`AgreementReport.parameters`); a rule held as None takes its default."""
        return _typed(cls, _part("parameters", _parameters, data, {}), where="parameters")


@dataclass(frozen=True, slots=True)
class PostDiscussion:
    """A post-discussion view: how many accepted revisions replaced blind verdicts."""

    note: str
    assignments: int
    judgments: int
    changed_verdicts: int


@dataclass(frozen=True, slots=True)
class ReportResult:
    """Every figure of one agreement report, what it was computed on and with, and the gate it decides."""

    # Judge against the golden standard, on the pairs with both a verdict and a golden label.
    pairs: int = field(metadata={"help_text": "(response, criterion) pairs with both a judge verdict and a golden label."})
    responses: int
    items: int | None = field(metadata={"help_text": "Items of the compared pairs; null in reports from before items were counted."})
    item_agreement: ItemAgreement
    cohen_kappa: Figure
    gwet_ac1: Figure
    judge_hit_rate: Figure
    human_hit_rate: Figure
    confusion: Confusion
    mcnemar: McNemar
    # Among the experts.
    krippendorff_alpha: Figure
    fleiss_kappa: Figure
    pairwise_percent_agreement: Figure
    judge_expert_baseline: JudgeExpertBaseline
    gold_provenance: GoldProvenance
    units: UnitCounts
    excluded: dict[str, int] = field(metadata={"help_text": "What was left out, and how many."})
    by_ability: tuple[GroupRow, ...]
    by_dimension: tuple[GroupRow, ...]
    by_model: tuple[GroupRow, ...]
    by_difficulty: tuple[GroupRow, ...]
    by_primary_scene: tuple[GroupRow, ...]
    by_criterion: tuple[CriterionRow, ...]
    by_expert: tuple[ExpertRow, ...]
    expert_pairs: tuple[ExpertPair, ...]
    over_time: tuple[TimePoint, ...]
    score_impact: ScoreImpact
    gate: Gate
    alerts: tuple[Alert, ...]
    parameters: Parameters
    # What was compared: set by the service that stores the report.
    campaign: str = ""
    dataset: str = ""
    version: str = ""
    judge: str | None = None
    run: tuple[str, ...] | None = None
    no_judge_reason: str | None = field(
        default=None, metadata={"help_text": "Why nothing was compared with a judge; null when a judge's verdicts were found."}
    )
    exploratory: bool = False
    exploratory_reasons: tuple[str, ...] = ()
    post_discussion: PostDiscussion | None = None
    alt_test: AltTestBlock | None = field(
        default=None, metadata={"help_text": "Can the judge replace an expert; null in a report computed before the test existed."}
    )
    calibrated_scores: CalibratedScores | None = field(
        default=None, metadata={"help_text": "Human-calibrated model scores; null in a report computed before them, or without a judge."}
    )
    split_extension: GoldChange | None = field(
        default=None,
        metadata={"help_text": "Extra raters where the verdicts split: what they did to the gold; null when no response was extended."},
    )

    @property
    def resampled(self) -> Resampling:
        """What the report's intervals resampled (every breakdown row resamples the same draws)."""
        return self.item_agreement.ci95.resampled

    @property
    def breakdowns(self) -> tuple[tuple[str, tuple[GroupRow, ...]], ...]:
        """(name, rows) of each breakdown with intervals, in the report's order."""
        return tuple((name, getattr(self, name)) for name in BREAKDOWNS)

    def figures(self) -> dict[str, Figure]:
        """The report-wide figures by their stored names."""
        return {
            "item_agreement_rate": self.item_agreement.rate,
            "cohen_kappa": self.cohen_kappa,
            "gwet_ac1": self.gwet_ac1,
            "judge_hit_rate": self.judge_hit_rate,
            "human_hit_rate": self.human_hit_rate,
            "mcnemar_p": self.mcnemar.p,
            "krippendorff_alpha": self.krippendorff_alpha,
            "fleiss_kappa": self.fleiss_kappa,
            "pairwise_percent_agreement": self.pairwise_percent_agreement,
        }

    @property
    def undefined(self) -> dict[str, str]:
        """Why each undefined report-wide figure is undefined, by its stored name."""
        reasons = {name: f.reason for name, f in self.figures().items() if f.reason}
        if self.item_agreement.ci95.reason:
            reasons["item_agreement_ci95"] = self.item_agreement.ci95.reason
        if self.no_judge_reason:
            reasons["judge"] = self.no_judge_reason
        return reasons

    def to_dict(self) -> dict[str, Any]:
        """The JSON stored in an `AgreementReport` (and printed by `agreement_report --format json`)."""
        return {"schema_version": SCHEMA_VERSION, **to_json(self)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ReportResult:
        """A stored report of any schema version (`upgrade_stored_report`); raises ValueError naming the field a malformed one lacks."""
        return _typed(ReportResult, upgrade_stored_report(data))


BREAKDOWNS = ("by_ability", "by_dimension", "by_model", "by_difficulty", "by_primary_scene")


@dataclass(frozen=True, slots=True)
class InputsCampaign:
    """The campaign a report was computed on, with its k."""

    id: int
    name: str
    version: str
    k: int


@dataclass(frozen=True, slots=True)
class JudgeRunInput:
    """A judge run whose verdicts the report compared."""

    id: int
    judge: str
    label: str
    model: str
    version: str


@dataclass(frozen=True, slots=True)
class ReportInputs:
    """What a report read: the campaign, judge runs, criterion revisions, judgment and adjudication counts."""

    campaign: InputsCampaign
    judge_runs: tuple[JudgeRunInput, ...]
    criterion_revisions: dict[str, int] = field(metadata={"help_text": "Criterion lineage → the revision compared."})
    judgments: int
    last_judgment_at: str | None = field(metadata={"format": "date-time"})  # ISO 8601
    adjudications: int
    computed_at: str = field(metadata={"format": "date-time"})  # ISO 8601

    def to_dict(self) -> dict[str, Any]:
        """The JSON stored in `AgreementReport.inputs`."""
        return to_json(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ReportInputs:
        """Stored inputs (those from before adjudications were counted too); raises ValueError naming the field a malformed one lacks."""
        with _reading("inputs"):
            data = {"last_judgment_at": None, "adjudications": 0, **data}
        return _typed(cls, data, where="inputs")


def golden_standard(
    hits: np.ndarray, ratings: np.ndarray, k: int | np.ndarray, adjudicated: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(label −1/0/1, provenance code, tie) per unit: the strict majority of all its ratings once it has k, overridden by adjudication.

    `k` is one number, or one per unit (`required_ratings`: k + 2 on a response given extra raters
    because its verdicts split, which waits for all of them).
    """
    if np.ndim(k) == 0:
        label, unanimous, tie = st.majority_labels(hits, ratings, st.MajorityRule(min_ratings=int(k)))
    else:
        label, unanimous, tie = st.majority_labels(hits, ratings, st.MajorityRule(min_ratings=1))
        waiting = np.asarray(ratings, np.int64) < np.maximum(np.asarray(k, np.int64), 1)
        label = np.where(waiting, st.NO_LABEL, label).astype(np.int8)
        unanimous, tie = unanimous & ~waiting, tie & ~waiting
    provenance = np.where(label >= 0, np.where(unanimous, PROVENANCE_UNANIMOUS, PROVENANCE_MAJORITY), PROVENANCE_NONE)
    adjudicated = np.asarray(adjudicated)
    decided = adjudicated >= 0
    label = np.where(decided, adjudicated, label).astype(np.int8)
    provenance = np.where(decided, PROVENANCE_ADJUDICATED, provenance).astype(np.int8)
    return label, provenance, tie & ~decided


def two_rater_from_counts(tp: np.ndarray, fp: np.ndarray, fn: np.ndarray, tn: np.ndarray) -> dict[str, np.ndarray]:
    """Vectorised agreement rate, Cohen's kappa, Gwet's AC1 and hit rates from 2×2 counts (NaN where undefined)."""
    tp, fp, fn, tn = (np.asarray(x, np.float64) for x in (tp, fp, fn, tn))
    n = tp + fp + fn + tn
    with np.errstate(invalid="ignore", divide="ignore"):
        po = (tp + tn) / n
        pj = (tp + fp) / n
        pg = (tp + fn) / n
        pe_k = pj * pg + (1 - pj) * (1 - pg)
        kappa = np.where(pe_k < 1, (po - pe_k) / (1 - pe_k), np.nan)
        pi = (pj + pg) / 2
        pe_a = 2 * pi * (1 - pi)
        ac1 = (po - pe_a) / (1 - pe_a)
    return {"rate": po, "kappa": kappa, "ac1": ac1, "judge_hit_rate": pj, "human_hit_rate": pg}


def _rounded(values: np.ndarray) -> list:
    """Round to 12 places and turn NaN into None, for a whole column at once."""
    values = np.round(np.asarray(values, dtype=np.float64), 12)
    return [None if v != v else v for v in values.tolist()]


def _num(x: Any) -> float | None:
    return None if x is None or not math.isfinite(x) else float(round(float(x), 12))


class _Groups:
    """Integer codes for a per-unit grouping, with the names of the groups."""

    def __init__(self, codes: np.ndarray, names: list[str], labels: list[str] | None = None) -> None:
        self.codes = np.asarray(codes, np.intp)
        self.names = names
        self.labels = labels or names

    @classmethod
    def from_values(
        cls, values: list[str], index: np.ndarray, order: list[str] | None = None, label: Callable[[str], str] | None = None
    ) -> _Groups:
        """Groups of units by `values[index[u]]` (values per criterion or per item, index per unit)."""
        index = np.asarray(index, np.intp)
        used = sorted({values[i] for i in st.sorted_unique(index).tolist()}) if index.size else []
        uniq = [u for u in dict.fromkeys(order or []) if u in set(used)] + [u for u in used if u not in set(order or [])]
        lookup = {u: i for i, u in enumerate(uniq)}
        per_value = np.array([lookup.get(v, -1) for v in values], dtype=np.intp)
        return cls(per_value[index] if index.size else np.zeros(0, np.intp), uniq, [label(u) if label else u for u in uniq])


@dataclass(frozen=True)
class _Compared:
    """The judge–gold pairs of a campaign: what the report and the alignment page compute every figure from."""

    hits: np.ndarray
    ratings: np.ndarray
    label: np.ndarray
    provenance: np.ndarray
    tie: np.ndarray
    judge: np.ndarray
    both: np.ndarray  # units with a judge verdict and a golden label
    jv: np.ndarray
    gv: np.ndarray
    clusters: np.ndarray
    item_of_unit: np.ndarray
    items: np.ndarray  # the item of each compared unit
    n_items: int
    draws: list[np.ndarray] | None
    rate: Figure
    ci95: Interval
    item_index: np.ndarray  # per compared unit, its item among the drawn ones (0 … n_items − 1)
    left_out: cx.LeftOut  # what leaving out each expert's vote changes, for the intervals over items and experts
    crossed_draws: list[cx.CrossedDraw] | None  # the item draws with the experts' drawn alongside

    def with_experts(self, ci: st.ClusteredIntervals, group: np.ndarray | None = None, n_groups: int = 1) -> st.ClusteredIntervals:
        """An interval of agreement over the compared units' items (per group), resampling the experts as well."""
        return cx.with_experts(ci, self.jv == self.gv, self.item_index, group, n_groups, self.left_out, self.crossed_draws)


def _split_extension(data: ReportData, hits: np.ndarray, ratings: np.ndarray) -> GoldChange | None:
    """On the responses given extra raters: the majority of their first k ratings against the majority of all (None: none was)."""
    need = required_ratings(data)
    if not isinstance(need, np.ndarray):
        return None
    first_hits, first_ratings = first_k_counts(data.j_unit, data.j_hit, data.j_time, data.n_units, data.k)
    none = np.full(data.n_units, -1)
    before = golden_standard(first_hits, first_ratings, data.k, none)[0]
    after = golden_standard(hits, ratings, need, none)[0]
    return gold_change(data.u_cr, np.asarray(getattr(data, "cr_extra", None)), before, after, ratings, need)


def required_ratings(data: ReportData) -> int | np.ndarray:
    """The ratings each unit's golden label waits for: k, or per unit k plus its response's extra raters when any were granted."""
    extra = getattr(data, "cr_extra", None)  # absent from data of campaigns before extra raters
    if extra is None or not np.size(extra) or not np.any(extra):
        return data.k
    return data.k + np.asarray(extra, np.int64)[data.u_cr]


def _compared(data: ReportData, *, resamples: int, seed: int, resample_experts: bool = True) -> _Compared:
    """Golden labels, judge verdicts, their pairs, and the headline agreement with its interval over items (and experts)."""
    hits, ratings = data.unit_counts()
    label, provenance, tie = golden_standard(hits, ratings, required_ratings(data), data.u_adjudicated)
    judge = data.u_judge
    both = (label >= 0) & (judge >= 0)
    jv, gv = judge[both] == 1, label[both] == 1
    clusters = data.u_cr[both]
    # The statistical unit of every interval is the item (question): each sampled item is
    # answered by every model, so its responses share the item's and its criteria's effects on
    # agreement and are not independent (docs/validation.md, "What is resampled").
    item_of_unit = data.cr_item[data.u_cr]
    items = item_of_unit[both]
    n_items = int(st.sorted_unique(items).size)
    rate = Figure.of(st.item_agreement_rate(jv, gv))
    # One set of draws over the items serves the headline, every breakdown and the baseline; the
    # experts are drawn alongside (docs/validation.md, "Items and experts").
    draws = st.cluster_draws(n_items, resamples, seed)
    _, item_index = st.sorted_unique_inverse(items)
    n_experts = len(data.expert_ids)
    crossed_draws = cx.crossed_draws(n_items, n_experts, resamples, seed, item_draws=draws) if resample_experts else None
    # What leaving out each vote changes; with nothing to resample, no vote is looked at.
    compared_units = np.flatnonzero(both) if crossed_draws is not None else np.zeros(0, np.int64)
    left_out = cx.leave_one_out(
        compared_units,
        (jv == gv)[: compared_units.size],
        jv[: compared_units.size],
        (data.u_adjudicated[both] >= 0)[: compared_units.size],
        hits,
        ratings,
        data.j_unit,
        data.j_expert,
        data.j_hit,
        n_experts,
    )
    if compared_units.size:  # summed once per (criterion, expert): every breakdown but the models' sums those cells
        left_out = cx.with_base_cells(left_out, data.u_crit[compared_units])
    headline = cx.with_experts(
        st.clustered_mean_ci(jv == gv, items, resamples=resamples, seed=seed, weights=draws),
        jv == gv,
        item_index,
        None,
        1,
        left_out,
        crossed_draws,
    )
    pair = headline.pair()
    ci95 = Interval.from_pair(
        pair,
        resampled=Resampling(**headline.resampled()),
        reason=None if pair else (st.NO_PAIRS if not both.any() else headline.group_reason()),
    )
    return _Compared(
        hits,
        ratings,
        label,
        provenance,
        tie,
        judge,
        both,
        jv,
        gv,
        clusters,
        item_of_unit,
        items,
        n_items,
        draws,
        rate,
        ci95,
        item_index,
        left_out,
        crossed_draws,
    )


def _ability_groups(data: ReportData) -> _Groups:
    return _Groups.from_values(list(data.crit_ability), data.u_crit, order=[*ABILITY_LABELS, CATASTROPHIC_LABEL], label=english_name)


def _dimension_groups(data: ReportData) -> _Groups:
    crit_dim = [dimension_label(a) for a in data.crit_ability]
    return _Groups.from_values(crit_dim, data.u_crit, order=[*DIMENSIONS, "Catastrophic"])


def alt_test_block(data: ReportData, *, epsilon: float = alt.DEFAULT_EPSILON) -> AltTestBlock:
    """The alternative annotator test of the judge on a campaign: on every criterion, per dimension and per ability."""
    names = list(data.expert_names)

    def typed(r: alt.AltTestResult) -> AltTest:
        n = r.experts_tested
        return AltTest(
            winning_rate=Figure(_num(r.winning_rate), n, r.reason),
            advantage_probability=Figure(_num(r.advantage_probability), n, r.reason),
            passed=passes(_num(r.winning_rate)),
            epsilon=r.epsilon,
            q=r.q,
            min_responses=r.min_responses,
            experts_tested=n,
            experts_left_out=r.experts_left_out,
            responses=r.responses,
            experts=tuple(
                AltTestExpert(
                    expert=names[e.expert],
                    responses=e.responses,
                    judge_wins=round(e.judge_wins, 12),
                    expert_wins=round(e.expert_wins, 12),
                    p=round(e.p, 12),
                    p_adjusted=round(e.p_adjusted, 12),
                    judge_beats=e.judge_beats,
                )
                for e in r.experts
            ),
        )

    dimensions, abilities = _dimension_groups(data), _ability_groups(data)
    (overall,), by_dimension, by_ability = alt.alt_tests_by(
        j_unit=data.j_unit,
        j_expert=data.j_expert,
        j_hit=data.j_hit,
        u_judge=data.u_judge,
        u_cr=data.u_cr,
        n_experts=len(names),
        groupings=[(None, 1), (dimensions.codes, len(dimensions.names)), (abilities.codes, len(abilities.names))],
        epsilon=epsilon,
    )
    rows: dict[str, tuple[AltTestRow, ...]] = {
        name: tuple(AltTestRow(key, label, typed(r)) for key, label, r in zip(groups.names, groups.labels, results))
        for name, groups, results in (("by_dimension", dimensions, by_dimension), ("by_ability", abilities, by_ability))
    }
    return AltTestBlock(overall=typed(overall), by_dimension=rows["by_dimension"], by_ability=rows["by_ability"])


@dataclass(frozen=True)
class JudgeAlignment:
    """One judge's agreement with a campaign's golden standard: the figures the alignment page compares across judge versions.

    Computed exactly as the agreement report computes them (same pairs, same item resampling).
    """

    pairs: int  # judge–gold pairs compared
    responses: int
    items: int
    units_with_judge: int
    units_with_gold: int
    item_agreement: ItemAgreement
    cohen_kappa: Figure
    gwet_ac1: Figure
    judge_hit_rate: Figure
    human_hit_rate: Figure
    by_ability: tuple[GroupRow, ...]
    alt_test: AltTestBlock | None = None  # can the judge replace an expert, overall, per dimension and per ability
    calibrated_scores: CalibratedScores | None = field(
        default=None,
        metadata={"help_text": "The models' human-calibrated scores under this judge version; null when its runs have no scores."},
    )


def judge_alignment(
    data: ReportData,
    *,
    resamples: int = DEFAULTS.resamples,
    seed: int = DEFAULTS.seed,
    alt_test_epsilon: float = alt.DEFAULT_EPSILON,
    resample_experts: bool = True,
    population: ScoringPopulation | None = None,
) -> JudgeAlignment:
    """The headline and per-ability judge–gold agreement of one judge on one campaign (intervals resample items and experts), its
    alt-test, and with `population` (the judge's scores on every item) the human-calibrated scores, as the report computes them."""
    c = _compared(data, resamples=resamples, seed=seed, resample_experts=resample_experts)
    by_ability = _breakdown(
        _ability_groups(data),
        c.both,
        c.jv,
        c.gv,
        c.hits,
        c.ratings,
        data.u_cr,
        c.items,
        resamples=resamples,
        seed=seed,
        draws=c.draws,
        compared=c,
    )
    no_pairs = st.Stat.undefined(0, st.NO_PAIRS)
    return JudgeAlignment(
        pairs=int(c.both.sum()),
        responses=int(st.sorted_unique(c.clusters).size),
        items=c.n_items,
        units_with_judge=int((c.judge >= 0).sum()),
        units_with_gold=int((c.label >= 0).sum()),
        item_agreement=ItemAgreement(c.rate, c.ci95),
        cohen_kappa=Figure.of(st.cohen_kappa(c.jv, c.gv)),
        gwet_ac1=Figure.of(st.gwet_ac1(c.jv, c.gv)),
        judge_hit_rate=Figure.of(st.hit_rate(c.jv) if c.jv.size else no_pairs),
        human_hit_rate=Figure.of(st.hit_rate(c.gv) if c.gv.size else no_pairs),
        by_ability=by_ability,
        alt_test=alt_test_block(data, epsilon=alt_test_epsilon),
        calibrated_scores=None
        if population is None
        else calibrated_scores_block(
            data, c.label, population, resamples=resamples, seed=seed, counts=(c.hits, c.ratings) if resample_experts else None
        ),
    )


NO_COMMON_PAIRS = Reason("no_common_pairs")


@dataclass(frozen=True)
class AgreementChange:
    """How much one judge's agreement with the golden standard moved from another's, on the units both judged."""

    difference: Figure  # agreement of `current` minus that of `previous`, on the common pairs (n)
    ci95: Interval  # resamples items
    previous_rate: Figure
    current_rate: Figure


def agreement_change(
    previous: ReportData, current: ReportData, *, resamples: int = DEFAULTS.resamples, seed: int = DEFAULTS.seed
) -> AgreementChange:
    """Paired change in judge–gold agreement between two judges on one campaign (same units), resampling items."""
    if previous.n_units != current.n_units or not np.array_equal(previous.u_crit, current.u_crit):
        raise ValueError("both judges must be compared on the same campaign's units")
    hits, ratings = previous.unit_counts()
    label, _provenance, _tie = golden_standard(hits, ratings, required_ratings(previous), previous.u_adjudicated)
    common = (label >= 0) & (previous.u_judge >= 0) & (current.u_judge >= 0)
    gold = label[common] == 1
    before = (previous.u_judge[common] == 1) == gold
    after = (current.u_judge[common] == 1) == gold
    items = previous.cr_item[previous.u_cr][common]
    n = int(common.sum())
    if not n:
        undefined = Figure(None, 0, NO_COMMON_PAIRS)
        return AgreementChange(undefined, Interval(None, None, Resampling("item", 0, resamples), NO_COMMON_PAIRS), undefined, undefined)
    ci = st.clustered_mean_ci(after.astype(np.float64) - before, items, resamples=resamples, seed=seed, proportion=False)
    pair = ci.pair()
    return AgreementChange(
        difference=Figure(_num(float(after.mean() - before.mean())), n),
        ci95=Interval.from_pair(pair, resampled=Resampling(**ci.resampled()), reason=None if pair else ci.group_reason()),
        previous_rate=Figure.of(st.item_agreement_rate(previous.u_judge[common] == 1, gold)),
        current_rate=Figure.of(st.item_agreement_rate(current.u_judge[common] == 1, gold)),
    )


def compute_report(
    data: ReportData,
    *,
    resamples: int = DEFAULTS.resamples,
    seed: int = DEFAULTS.seed,
    threshold: float = DEFAULTS.threshold,
    min_pairs_per_dimension: int = DEFAULTS.min_pairs_per_dimension,
    gate_policy: GatePolicy | None = None,
    resample_experts: bool = True,
    population: ScoringPopulation | None = None,
) -> ReportResult:
    """Every statistic of the agreement report for one campaign (and judge).

    Its intervals resample items and experts (`resample_experts`; False: the items alone, as
    reports did before). population: the judge's scores on every item of the version; without it
    the report has no calibrated scores.
    """
    c = _compared(data, resamples=resamples, seed=seed, resample_experts=resample_experts)
    hits, ratings, label, provenance, tie, judge = c.hits, c.ratings, c.label, c.provenance, c.tie, c.judge
    both, jv, gv, clusters, item_of_unit, items, n_items, draws = (
        c.both,
        c.jv,
        c.gv,
        c.clusters,
        c.item_of_unit,
        c.items,
        c.n_items,
        c.draws,
    )
    rate, ci95 = c.rate, c.ci95
    confusion = st.confusion(jv, gv)
    mcnemar = st.mcnemar_exact(jv, gv)
    judged = judge >= 0
    complete = ratings >= np.maximum(required_ratings(data), 1)

    # Breakdowns.
    groups = {
        "by_ability": _ability_groups(data),
        "by_dimension": _dimension_groups(data),
        "by_model": _Groups(data.cr_model[data.u_cr], list(data.model_names)),
        "by_difficulty": _Groups.from_values(list(data.item_difficulty), item_of_unit, order=["hard", "normal"]),
        "by_primary_scene": _Groups.from_values(list(data.item_scene), item_of_unit),
    }
    terms = st.alpha_terms(hits, ratings)  # shared by every breakdown
    rows = {
        name: _breakdown(
            g, both, jv, gv, hits, ratings, data.u_cr, items, resamples=resamples, seed=seed, draws=draws, alpha_terms=terms, compared=c
        )
        for name, g in groups.items()
    }
    crit_groups = _Groups(data.u_crit, [str(i) for i in range(len(data.crit_id))])
    by_criterion = _breakdown(
        crit_groups, both, jv, gv, hits, ratings, data.u_cr, items, resamples=0, seed=seed, criteria=data, alpha_terms=terms
    )
    by_expert, expert_pairs = _by_expert(data, label)
    policy = gate_policy or GatePolicy(threshold=threshold, min_pairs_per_dimension=min_pairs_per_dimension)
    item_agreement = ItemAgreement(rate, ci95)
    gate = _gate(item_agreement, by_dimension=rows["by_dimension"], by_ability=rows["by_ability"], policy=policy)
    return ReportResult(
        pairs=int(both.sum()),
        responses=int(st.sorted_unique(clusters).size),
        items=n_items,
        item_agreement=item_agreement,
        cohen_kappa=Figure.of(st.cohen_kappa(jv, gv)),
        gwet_ac1=Figure.of(st.gwet_ac1(jv, gv)),
        judge_hit_rate=Figure.of(st.hit_rate(jv) if jv.size else st.Stat.undefined(0, st.NO_PAIRS)),
        human_hit_rate=Figure.of(st.hit_rate(gv) if gv.size else st.Stat.undefined(0, st.NO_PAIRS)),
        confusion=Confusion(**confusion),
        mcnemar=McNemar(Figure.of(mcnemar), int(mcnemar.extra.get("discordant", 0)), confusion["fp"], confusion["fn"]),
        krippendorff_alpha=Figure.of(st.krippendorff_alpha_nominal(hits, ratings)),
        fleiss_kappa=Figure.of(st.fleiss_kappa(hits, ratings, data.k)),
        pairwise_percent_agreement=Figure.of(st.pairwise_percent_agreement(hits, ratings)),
        judge_expert_baseline=from_json(
            JudgeExpertBaseline,
            _stored_baseline(
                st.judge_expert_baseline(
                    hits[judged],
                    ratings[judged],
                    judge[judged] == 1,
                    item_of_unit[judged],
                    resamples=resamples,
                    seed=seed,
                    weights=draws,
                    expert_part=_baseline_expert_part(data, c, hits, ratings),
                ),
                resamples,
            ),
        ),
        gold_provenance=GoldProvenance(**{name: int((provenance == code).sum()) for code, name in PROVENANCE_NAMES.items()}),
        units=UnitCounts(
            total=data.n_units,
            rated=int((ratings > 0).sum()),
            complete=int(complete.sum()),
            with_golden_label=int((label >= 0).sum()),
            ties=int(tie.sum()),
            incomplete=int(((ratings > 0) & ~complete & (provenance == PROVENANCE_NONE)).sum()),
            with_judge_verdict=int(judged.sum()),
            judgments=int(data.j_unit.size),
            experts=len(data.expert_ids),
        ),
        excluded={str(k): int(v) for k, v in data.excluded.items()},
        by_ability=rows["by_ability"],
        by_dimension=rows["by_dimension"],
        by_model=rows["by_model"],
        by_difficulty=rows["by_difficulty"],
        by_primary_scene=rows["by_primary_scene"],
        by_criterion=by_criterion,  # type: ignore[arg-type]  # criteria= makes every row a CriterionRow
        by_expert=by_expert,
        expert_pairs=expert_pairs,
        over_time=_over_time(data, judge),
        score_impact=_score_impact(data, label, judge),
        gate=gate,
        alerts=_alerts(
            item_agreement,
            by_expert=by_expert,
            by_criterion=by_criterion,
            by_model=rows["by_model"],
            splits=st.criterion_splits(hits, ratings, data.u_crit, len(data.crit_id), min_ratings=data.k),
        ),
        parameters=Parameters(
            resamples=resamples,
            seed=seed,
            threshold=policy.threshold,
            min_pairs_per_dimension=policy.min_pairs_per_dimension,
            min_pairs_per_ability=policy.min_pairs_per_ability,
            must_clear=policy.must_clear,
            alt_test_epsilon=policy.alt_test_epsilon,
        ),
        alt_test=alt_test_block(data, epsilon=policy.alt_test_epsilon),
        split_extension=_split_extension(data, hits, ratings),
        calibrated_scores=None
        if population is None
        else calibrated_scores_block(
            data,
            label,
            population,
            resamples=resamples,
            seed=seed,
            counts=(hits, ratings) if resample_experts else None,
        ),
    )


def _baseline_expert_part(data: ReportData, c: _Compared, hits: np.ndarray, ratings: np.ndarray) -> tuple[np.ndarray, float, int] | None:
    """The experts' part of the judge–expert baseline's resamples (None when fewer than 2 experts or nothing is resampled)."""
    units = np.flatnonzero((c.judge >= 0) & (ratings >= 2))
    if c.crossed_draws is None or c.left_out.experts_rated < 2 or not units.size:
        return None
    return cx.baseline_expert_part(
        units,
        c.judge[units] == 1,
        c.item_of_unit[units],
        hits,
        ratings,
        data.j_unit,
        data.j_expert,
        data.j_hit,
        len(data.expert_ids),
        c.crossed_draws,
    )


def dimension_label(label: str) -> str:
    """The dimension a criterion's label belongs to: "Catastrophic" for 其他, "Other" outside the taxonomy."""
    if label == CATASTROPHIC_LABEL:
        return "Catastrophic"
    ability = ABILITY_BY_LABEL.get(label)
    return ability.dimension if ability else "Other"


# Why a figure of a breakdown row is undefined.
NO_KAPPA = Reason("kappa_constant_pairs")
NO_ALPHA_UNITS = Reason("no_alpha_units")
NO_ALPHA_VARIATION = Reason("alpha_constant_ratings")


def _alpha_reason(units: int | None) -> str:
    if units is None:
        return NOT_RECORDED
    return NO_ALPHA_UNITS if not units else NO_ALPHA_VARIATION


def _breakdown(
    groups: _Groups,
    both: np.ndarray,
    jv: np.ndarray,
    gv: np.ndarray,
    hits: np.ndarray,
    ratings: np.ndarray,
    u_cr: np.ndarray,
    items: np.ndarray,
    *,
    resamples: int,
    seed: int,
    draws: list[np.ndarray] | None = None,
    criteria: ReportData | None = None,
    alpha_terms: st.AlphaTerms | None = None,
    compared: _Compared | None = None,
) -> tuple[GroupRow, ...]:
    """One row per group; its interval resamples items (`items`: the item of each compared unit) with the report's draws.

    With `compared` (the report's pairs), the experts are resampled with the items.

    With `criteria` (the report's data), the groups are its criteria and the rows `CriterionRow`s, without intervals.
    """
    g_all = groups.codes
    n_groups = len(groups.names)
    g = g_all[both]
    # The 2×2 counts of every group in one pass: cell 4·group + 2·judge + gold (tn, fn, fp, tp).
    cell_2x2 = g.astype(np.int64) * 4
    cell_2x2 += 2 * jv
    cell_2x2 += gv
    tn, fn, fp, tp = np.bincount(cell_2x2, minlength=4 * n_groups).reshape(n_groups, 4).T.astype(np.float64)
    pairs = (tp + fp + fn + tn).astype(np.int64)
    figures = two_rater_from_counts(tp, fp, fn, tn)
    clusters = u_cr[both]
    cell = st.sorted_unique(clusters.astype(np.int64) * n_groups + g)
    responses = np.bincount(cell % n_groups, minlength=n_groups)
    item_cell = st.sorted_unique(np.asarray(items, np.int64) * n_groups + g)
    items_per_group = np.bincount(item_cell % n_groups, minlength=n_groups)
    alpha, alpha_units, alpha_ratings = st.binary_alpha_by_group(hits, ratings, g_all, n_groups, terms=alpha_terms)
    ci = None
    if resamples > 0 and pairs.sum() > 0:
        ci = st.clustered_mean_ci(jv == gv, items, g, n_groups, resamples=resamples, seed=seed, weights=draws)
        if compared is not None:
            ci = compared.with_experts(ci, g, n_groups)
        low, high = ci.low, ci.high
    else:
        low = high = np.full(n_groups, np.nan)
    rate, kappa, ac1, jhr, hhr, alpha_l = (
        _rounded(x)
        for x in (figures["rate"], figures["kappa"], figures["ac1"], figures["judge_hit_rate"], figures["human_hit_rate"], alpha)
    )
    low_l, high_l = low.tolist(), high.tolist()
    pairs_l, responses_l, units_l, ratings_l = pairs.tolist(), responses.tolist(), alpha_units.tolist(), alpha_ratings.tolist()
    items_l = items_per_group.tolist()
    rows: list[GroupRow] = []
    no_pairs = Figure(None, 0, st.NO_PAIRS)  # frozen: one instance serves every group without pairs
    for i, (key, shown) in enumerate(zip(groups.names, groups.labels)):
        n = pairs_l[i]
        if n > 0:  # on pairs the rates are defined; kappa is undefined when judge and gold are one constant
            kappa_f = Figure(kappa[i], n, None if kappa[i] is not None else NO_KAPPA)
            rate_f, ac1_f, jhr_f, hhr_f = Figure(rate[i], n), Figure(ac1[i], n), Figure(jhr[i], n), Figure(hhr[i], n)
        else:
            rate_f = kappa_f = ac1_f = jhr_f = hhr_f = no_pairs
        alpha_fig = Figure(alpha_l[i], units_l[i], None if alpha_l[i] is not None else _alpha_reason(units_l[i]))
        if criteria is not None:
            c = int(key)
            question = criteria.item_question[criteria.crit_item[c]]
            position = int(criteria.crit_position[c])
            interval = _criterion_interval(items_l[i])
            rows.append(
                CriterionRow(
                    criteria.crit_lineage[c],
                    f"{question} #{position + 1}",
                    n,
                    responses_l[i],
                    items_l[i],
                    ItemAgreement(rate_f, interval),
                    kappa_f,
                    ac1_f,
                    jhr_f,
                    hhr_f,
                    alpha_fig,
                    ratings_l[i],
                    question_id=question,
                    position=position,
                    ability=criteria.crit_ability[c],
                )
            )
            continue
        pair = st.ci_pair(low_l[i], high_l[i]) if items_l[i] >= 2 else None
        if ci is not None:
            resampled = Resampling(**ci.resampled(i))
            why = None if pair else (ci.group_reason(i) if n > 0 else st.NO_PAIRS)
        else:
            resampled = Resampling("item", items_l[i], 0)
            why = NO_RESAMPLES if resamples <= 0 else st.NO_PAIRS
        interval = Interval.from_pair(pair, resampled=resampled, reason=why)
        rows.append(
            GroupRow(
                key,
                shown,
                n,
                responses_l[i],
                items_l[i],
                ItemAgreement(rate_f, interval),
                kappa_f,
                ac1_f,
                jhr_f,
                hhr_f,
                alpha_fig,
                ratings_l[i],
            )
        )
    return tuple(rows)


@lru_cache(maxsize=256)
def _criterion_interval(items: int | None) -> Interval:
    """The interval a criterion row has: none (frozen, so rows with as many items share one)."""
    return Interval(None, None, Resampling("item", items or 0, 0), NO_CRITERION_INTERVAL)


NO_GOLD_PAIRS = Reason("no_gold_pairs")
NO_RECENT_QUARTER = Reason("no_recent_quarter")
NO_SHARED_UNITS = Reason("no_shared_units")


def _expert_figure(value: float | None, n: int, why: str) -> Figure:
    """An expert's agreement over n compared judgments or units; undefined only when there are none."""
    return Figure(value, n, None if value is not None else (why if n == 0 else NOT_RECORDED))


def _by_expert(data: ReportData, label: np.ndarray) -> tuple[tuple[ExpertRow, ...], tuple[ExpertPair, ...]]:
    n_experts = len(data.expert_ids)
    if n_experts == 0:
        return (), ()
    gold = label[data.j_unit]
    compared = gold >= 0
    agree = compared & ((gold == 1) == data.j_hit)
    every = bool(compared.all())  # every judgment on a labelled unit: no copies of the judgments
    n_judg = np.bincount(data.j_expert, minlength=n_experts)
    n_cmp = n_judg if every else np.bincount(data.j_expert[compared], minlength=n_experts)
    n_agree = np.bincount(data.j_expert[agree], minlength=n_experts)
    shared, same = st.rater_pair_counts(data.j_unit, data.j_expert, data.j_hit, n_experts)
    rates = np.where(n_cmp > 0, n_agree / np.maximum(n_cmp, 1), np.nan)
    if every:
        recent_rate, recent_n = _latest_quarter(data.j_expert, data.j_time, agree, n_experts)
    else:
        recent_rate, recent_n = _latest_quarter(data.j_expert[compared], data.j_time[compared], agree[compared], n_experts)
    rows, pairs = [], []
    shared_l, same_l = shared.tolist(), same.tolist()  # Python floats: the same divisions, without NumPy scalars
    names = list(data.expert_names)
    seen: dict[tuple[int, int], Figure] = {}  # both counts are symmetric: (o, e) is (e, o), one frozen figure for both
    for e, name in enumerate(names):
        others = []
        for o, (n_shared, n_same) in enumerate(zip(shared_l[e], same_l[e])):
            if o == e or n_shared == 0:
                continue
            if o < e:
                agreement = seen.pop((o, e))
            else:
                agreement = seen[e, o] = _expert_figure(_num(n_same / n_shared), int(n_shared), NO_SHARED_UNITS)
                pairs.append(ExpertPair(name, names[o], agreement))
            others.append(ExpertOverlap(names[o], agreement))
        shared_total = int(shared[e].sum() - shared[e, e])
        same_total = same[e].sum() - same[e, e]
        rows.append(
            ExpertRow(
                expert=name,
                judgments=int(n_judg[e]),
                gold_agreement=_expert_figure(_num(rates[e]), int(n_cmp[e]), NO_GOLD_PAIRS),
                recent_gold_agreement=_expert_figure(_num(recent_rate[e]), int(recent_n[e]), NO_RECENT_QUARTER),
                expert_agreement=_expert_figure(_num(same_total / shared_total) if shared_total else None, shared_total, NO_SHARED_UNITS),
                with_experts=tuple(others),
            )
        )
    return tuple(rows), tuple(pairs)


def _latest_quarter(expert: np.ndarray, time: np.ndarray, agree: np.ndarray, n_experts: int) -> tuple[np.ndarray, np.ndarray]:
    """Per expert: agreement with the golden standard on the latest quarter of their compared judgments, and its size.

    "Latest" orders by time, then by position (judgments of one submission share its time). Each
    expert's quarter is found by a partition of their times, not a sort of everyone's.
    """
    rate = np.full(n_experts, np.nan)
    size = np.zeros(n_experts, dtype=np.int64)
    # A stable sort by expert alone (a radix sort for fewer than 32,768 experts) keeps each expert's judgments in position order.
    order = np.argsort(expert.astype(np.int16) if n_experts < 2**15 else expert, kind="stable")
    bounds = np.searchsorted(expert[order], np.arange(n_experts + 1))
    for e in range(n_experts):
        mine = order[bounds[e] : bounds[e + 1]]
        n, q = mine.size, mine.size // 4
        if q < 1:
            continue
        t = time[mine]
        threshold = np.partition(t, n - q)[n - q]  # the q-th latest time
        later = t > threshold
        # The rest of the quarter shares the threshold time: the last of those in position order.
        at = np.flatnonzero(t == threshold)[-(q - int(later.sum())) :]
        size[e] = q
        rate[e] = (int(agree[mine[later]].sum()) + int(agree[mine[at]].sum())) / q
    return rate, size


def _over_time(data: ReportData, judge: np.ndarray) -> tuple[TimePoint, ...]:
    """Agreement as judgments arrived: at the end of each day with submissions (at most 30 points).

    Each point counts the judgments received before its day ended. Walking the points in order,
    only the units that received judgments since the previous point are relabelled and their
    counts moved; the disagreement of alpha is summed over every unit in unit order at each
    point, as `binary_alpha_by_group` sums it (or, while its terms are whole numbers, moved by
    the changed terms: the same total), so every figure is what recomputing it from scratch at
    that point gives.
    """
    if data.j_time.size == 0:
        return ()
    days = _days_with_judgments(data.j_time)
    if days.size > MAX_TIME_POINTS:
        days = days[np.linspace(0, days.size - 1, MAX_TIME_POINTS).round().astype(int)]
    # The point from which on each judgment counts: the first whose day ends after it.
    entry = np.searchsorted((days + 1) * 86400.0, data.j_time, side="right")
    # Few points: their numbers fit 8 bits, which NumPy's stable sort orders by radix.
    order = np.argsort(entry.astype(np.uint8) if days.size < 256 else entry, kind="stable")
    bounds = np.searchsorted(entry[order], np.arange(days.size + 1))
    j_unit, j_hit = data.j_unit[order], data.j_hit[order]
    n = data.n_units
    hits, ratings = np.zeros(n), np.zeros(n, np.int64)
    need = required_ratings(data)
    label = golden_standard(hits, ratings, need, data.u_adjudicated)[0]  # adjudicated units have a label before any judgment
    disagreement = np.zeros(n)  # h(m − h)/(m − 1) of each unit rated twice or more, 0 otherwise
    # Their sum while every term is a whole number (as with up to three ratings a unit): then any
    # order of adding gives the same total, so it is kept up to date rather than summed anew.
    whole: float | None = 0.0
    zeros = np.zeros(n, np.intp)
    judged, judge_hit = judge >= 0, judge == 1
    compared = agreeing = pairable = n1 = n_all = 0

    def tally(units: np.ndarray, sign: int) -> None:
        nonlocal compared, agreeing, pairable, n1, n_all
        both = (label[units] >= 0) & judged[units]
        compared += sign * int(both.sum())
        agreeing += sign * int((both & ((label[units] == 1) == judge_hit[units])).sum())
        ok = ratings[units] >= 2
        pairable += sign * int(ok.sum())
        n1 += sign * int(hits[units][ok].sum())
        n_all += sign * int(ratings[units][ok].sum())

    tally(np.arange(n), 1)
    points = []
    for p, day in enumerate(days.tolist()):
        u, h = j_unit[bounds[p] : bounds[p + 1]], j_hit[bounds[p] : bounds[p + 1]]
        changed, at = st.sorted_unique_inverse(u)
        tally(changed, -1)
        hits[changed] += np.bincount(at, weights=h, minlength=changed.size)
        ratings[changed] += np.bincount(at, minlength=changed.size)
        label[changed] = golden_standard(
            hits[changed], ratings[changed], need[changed] if isinstance(need, np.ndarray) else need, data.u_adjudicated[changed]
        )[0]
        ok = st.alpha_terms(hits[changed], ratings[changed])
        moved = changed[ok.pairable]
        if whole is not None:  # every term a whole number so far: the total moves by the changed terms, exactly
            if np.array_equal(ok.disagreement, np.floor(ok.disagreement)):
                whole += float(ok.disagreement.sum()) - float(disagreement[moved].sum())
            if whole >= 2**52 or not np.array_equal(ok.disagreement, np.floor(ok.disagreement)):
                whole = None
        disagreement[moved] = ok.disagreement
        tally(changed, 1)
        o01 = np.array([whole]) if whole is not None else np.bincount(zeros, weights=disagreement, minlength=1)
        alpha = st.binary_alpha_from_sums(o01, np.array([float(n1)]), np.array([float(n_all)]))
        value = _num(alpha[0])
        points.append(
            TimePoint(
                date=datetime.fromtimestamp(day * 86400.0, tz=UTC).date().isoformat(),
                judgments=int(bounds[p + 1]),
                item_agreement_rate=Figure.of(st.agreement_rate_of_counts(agreeing, compared)),
                krippendorff_alpha=Figure(value, pairable, None if value is not None else _alpha_reason(pairable)),
            )
        )
    return tuple(points)


def _days_with_judgments(j_time: np.ndarray) -> np.ndarray:
    """The distinct days (POSIX seconds // 86400, as floats) with a judgment, in order."""
    day = np.floor(j_time / 86400.0)
    first, last = float(day.min()), float(day.max())
    if not np.isfinite(first) or not np.isfinite(last) or last - first > 10_000_000:
        return st.sorted_unique(day)
    present = np.bincount((day - first).astype(np.int64)) > 0
    return first + np.flatnonzero(present).astype(np.float64)


NO_FULLY_LABELLED = Reason("no_fully_labelled")


def _score_impact(data: ReportData, label: np.ndarray, judge: np.ndarray) -> ScoreImpact:
    """Leaderboards under the judge and under the golden standard on the same fully labelled responses."""
    both = (label >= 0) & (judge >= 0)
    n_clusters = len(data.cr_id)
    units_per = np.bincount(data.u_cr, minlength=n_clusters)
    both_per = np.bincount(data.u_cr[both], minlength=n_clusters)
    eligible = (units_per > 0) & (both_per == units_per)
    use = eligible[data.u_cr]
    if not use.any():
        none = Figure(None, 0, NO_FULLY_LABELLED)
        return ScoreImpact(responses=0, models=(), kendall_tau=none, kendall_tau_p=none)
    labels = list(ABILITY_LABELS) + sorted({a for a in data.crit_ability if a not in ABILITY_BY_LABEL and a != CATASTROPHIC_LABEL})
    a_index = {a: i for i, a in enumerate(labels)}
    crit_ab = np.array([a_index.get(a, 0) for a in data.crit_ability], dtype=np.intp)
    uc = data.u_crit[use]
    common = {
        "question": data.u_cr[use],
        "ability": crit_ab[uc],
        "weight": data.crit_weight[uc],
        "catastrophic": data.crit_catastrophic[uc],
        "n_questions": n_clusters,
        "n_abilities": len(labels),
    }
    by_judge, by_gold = scoring.score_questions_each(hits=[judge[use] == 1, label[use] == 1], **common)
    n_models = len(data.model_names)
    responses = np.bincount(data.cr_model[eligible], minlength=n_models)
    overall_j = _overall_by_group(by_judge, data.cr_model, eligible, n_models)
    overall_g = _overall_by_group(by_gold, data.cr_model, eligible, n_models)
    scored = [
        (name, int(responses[m]), _num(overall_j[m]), _num(overall_g[m])) for m, name in enumerate(data.model_names) if responses[m] > 0
    ]
    j = np.array([np.nan if s[2] is None else s[2] for s in scored])
    g = np.array([np.nan if s[3] is None else s[3] for s in scored])
    rj, rg = st.ranks(j), st.ranks(g)
    models = [
        ModelScore(
            model=name,
            responses=responses,
            judge_score=js,
            gold_score=gs,
            judge_rank=int(a),
            gold_rank=int(b),
            rank_change=int(a - b),
            score_difference=_num(js - gs) if js is not None and gs is not None else None,
        )
        for (name, responses, js, gs), a, b in zip(scored, rj, rg)
    ]
    models.sort(key=lambda r: r.gold_rank)
    tau = st.kendall_tau(j, g)
    p_value = tau.extra.get("p_value")
    return ScoreImpact(
        responses=int(eligible.sum()),
        models=tuple(models),
        kendall_tau=Figure.of(tau),
        kendall_tau_p=Figure(p_value, tau.n) if tau.value is not None else Figure.of(tau),
    )


@dataclass(frozen=True)
class ScoringPopulation:
    """The judge's per-question scores of the campaign's models on every item of its version: what the calibrated scores correct.

    Built by the validation app from the judge runs' stored scores (the leaderboard's), in the version's question order.
    """

    question_ids: tuple[str, ...]
    stratum: np.ndarray  # (Q,) code of the item's (difficulty, primary scene)
    abilities: tuple[str, ...]  # ability labels of the norm columns
    present: np.ndarray  # (Q, A) the question's rubric holds the ability
    criteria: np.ndarray  # (Q,) criteria of the question's rubric, the catastrophic ones included
    judge_norm: dict[str, np.ndarray]  # model name → (Q, A) the judge's per-(question, ability) norm
    scored: dict[str, np.ndarray]  # model name → (Q,) the judge gave a verdict on every criterion of the response
    reason: str | None = None  # why the scores cannot be calibrated (then the rest may be empty)


NO_POPULATION_MODEL = Reason("no_population_model")
CALIBRATED_LEVEL = 0.95


def _ability_dimension(abilities: tuple[str, ...]) -> np.ndarray:
    index = {d: i for i, d in enumerate(DIMENSIONS)}
    return np.array([index[ABILITY_BY_LABEL[a].dimension] if a in ABILITY_BY_LABEL else -1 for a in abilities], dtype=np.intp)


def _undefined_calibration(items: int, sampled: int, reason: str) -> CalibratedScores:
    return CalibratedScores(
        items=items, sampled_items=sampled, models=(), differences=(), kendall_tau=Figure(None, 0, reason), reason=reason
    )


@dataclass(frozen=True)
class _GoldNorms:
    """The golden standard's per-(question, ability) norms of each model's labelled responses, as the scorer computes them."""

    models: list[str]
    item_q: np.ndarray  # each campaign item's question in the population (-1: not in it)
    sampled: np.ndarray  # (questions,) sampled into the campaign
    crit_ability: np.ndarray  # each criterion's ability in the population (-1: none)
    response_model: np.ndarray  # each campaign response's model among `models` (-1: none)
    response_question: np.ndarray  # each campaign response's question (-1: none)
    complete: np.ndarray  # each campaign response: every criterion of its question has a golden label
    norm: np.ndarray  # (models, questions, abilities), NaN where not labelled
    labelled: np.ndarray  # (models, questions)


def _sampled_questions(data: ReportData, population: ScoringPopulation) -> tuple[np.ndarray, np.ndarray]:
    q_index = {qid: i for i, qid in enumerate(population.question_ids)}
    item_q = np.array([q_index.get(qid, -1) for qid in data.item_question], dtype=np.intp)
    sampled = np.zeros(len(population.question_ids), bool)
    sampled[item_q[item_q >= 0]] = True
    return item_q, sampled


def _gold_norms(
    data: ReportData, label: np.ndarray, population: ScoringPopulation, models: list[str], item_q: np.ndarray, sampled: np.ndarray
) -> _GoldNorms:
    """Score each complete labelled response from its golden labels, exactly as the scorer scores the judge's verdicts."""
    n_q, n_a = len(population.question_ids), len(population.abilities)
    a_index = {a: i for i, a in enumerate(population.abilities)}
    crit_ab = np.array([a_index.get(a, -1) for a in data.crit_ability], dtype=np.intp)
    n_cr = len(data.cr_id)
    cr_q = item_q[data.cr_item] if n_cr else np.zeros(0, np.intp)
    unknown = np.bincount(data.u_cr[(crit_ab[data.u_crit] < 0) & ~data.crit_catastrophic[data.u_crit]], minlength=n_cr) > 0
    units_per = np.bincount(data.u_cr, minlength=n_cr)
    gold_per = np.bincount(data.u_cr[label >= 0], minlength=n_cr)
    expected = np.where(cr_q >= 0, population.criteria[np.maximum(cr_q, 0)], -1)
    complete = (units_per > 0) & (gold_per == units_per) & (units_per == expected) & ~unknown
    use = complete[data.u_cr]
    uc = data.u_crit[use]
    gold_scores = scoring.score_questions(
        question=data.u_cr[use],
        ability=np.maximum(crit_ab[uc], 0),
        weight=data.crit_weight[uc],
        hit=label[use] == 1,
        catastrophic=data.crit_catastrophic[uc],
        n_questions=n_cr,
        n_abilities=n_a,
    )
    m_index = {name: i for i, name in enumerate(models)}
    cr_m = np.array([m_index.get(data.model_names[m], -1) for m in data.cr_model.tolist()], dtype=np.intp)
    norm = np.full((len(models), n_q, n_a), np.nan)
    labelled = np.zeros((len(models), n_q), bool)
    keep = complete & (cr_m >= 0)
    norm[cr_m[keep], cr_q[keep]] = gold_scores.norm[keep]
    labelled[cr_m[keep], cr_q[keep]] = True
    return _GoldNorms(models, item_q, sampled, crit_ab, cr_m, cr_q, keep, norm, labelled)


def _gold_votes(
    data: ReportData, label: np.ndarray, gold: _GoldNorms, counts: tuple[np.ndarray, np.ndarray] | None, n_abilities: int
) -> Any:
    """How leaving each expert's vote out moves the golden norms (None: the items alone are resampled)."""
    n_experts = len(data.expert_ids)
    if counts is None or n_experts <= 1:
        return None
    return cal.gold_vote_changes(
        vote_unit=data.j_unit,
        vote_expert=data.j_expert,
        vote_hit=data.j_hit,
        unit_response=data.u_cr,
        unit_criterion=data.u_crit,
        label=label,
        fixed=data.u_adjudicated >= 0,
        hits=counts[0],
        ratings=counts[1],
        crit_ability=gold.crit_ability,
        crit_weight=data.crit_weight,
        crit_catastrophic=data.crit_catastrophic,
        response_model=np.maximum(gold.response_model, 0),
        response_question=np.maximum(gold.response_question, 0),
        include=gold.complete,
        n_abilities=n_abilities,
        n_experts=n_experts,
    )


def calibrated_scores_block(
    data: ReportData,
    label: np.ndarray,
    population: ScoringPopulation,
    *,
    resamples: int,
    seed: int,
    counts: tuple[np.ndarray, np.ndarray] | None = None,
) -> CalibratedScores:
    """Every model's HeartBench scores from the judge's verdicts on all items corrected by the golden labels of the sampled ones.

    Hidden gold checks never enter (the campaign's arrays hold none); a response counts as labelled
    when every criterion of its question has a golden label. counts: each unit's (hits, ratings),
    the votes its golden label was counted from: the intervals then resample the experts with the
    items (`calibrated_scores.gold_vote_changes`); None: the items alone.
    """
    n_q = len(population.question_ids)
    item_q, sampled = _sampled_questions(data, population)
    if population.reason:
        return _undefined_calibration(n_q, int(sampled.sum()), population.reason)
    models = [m for m in data.model_names if m in population.judge_norm]
    if not models:
        return _undefined_calibration(n_q, int(sampled.sum()), NO_POPULATION_MODEL)
    gold = _gold_norms(data, label, population, models, item_q, sampled)
    r = cal.calibrate(
        judge_norm=np.stack([population.judge_norm[m] for m in models]),
        gold_norm=gold.norm,
        scored=np.stack([population.scored[m] for m in models]),
        labelled=gold.labelled,
        present=population.present,
        stratum=population.stratum,
        sampled=sampled,
        ability_dimension=_ability_dimension(population.abilities),
        n_dimensions=len(DIMENSIONS),
        resamples=resamples,
        seed=seed,
        level=CALIBRATED_LEVEL,
        votes=_gold_votes(data, label, gold, counts, len(population.abilities)),
    )
    return CalibratedScores(
        items=n_q,
        sampled_items=int(sampled.sum()),
        models=tuple(_calibrated_models(r, models, population)),
        differences=tuple(_calibrated_differences(r, models, population)),
        kendall_tau=Figure.of(r.kendall_tau),
    )


def _calibrated_models(r: cal.Calibration, models: list[str], population: ScoringPopulation) -> list[CalibratedModel]:
    """Each model's judge-only, experts-only and corrected scores with their intervals, best corrected rank first."""
    n_a = len(population.abilities)
    n_scored = [int(x) for x in r.scored_items]
    n_lab = [int(x) for x in r.labelled_items]
    keys = [("overall", "Overall"), *((d, d) for d in DIMENSIONS), *((a, english_name(a)) for a in population.abilities)]
    # Every figure rounded as `_num` rounds it, a list at a time (1,400 models × 21 scores × 8 figures at 100×),
    # inline: the values are floats already, and a call per value cost half the time.
    finite = math.isfinite
    v = {
        name: [[round(x, 12) if finite(x) else None for x in row] for row in getattr(r, name).tolist()]
        for name in ("judge", "experts", "experts_low", "experts_high", "corrected", "low", "high", "lam")
    }
    clts = [Resampling("item", n_lab[m], 0, CALIBRATED_LEVEL, PPI_CLT, experts=int(r.rater_experts[m]) or None) for m in range(len(models))]

    def score(m: int, e: int) -> CalibratedScore:
        why = r.reason[m][e]
        clt = clts[m]

        def interval(low: float | None, high: float | None) -> Interval:
            return Interval(low, high, clt, None) if why is None else Interval(None, None, clt, why)

        judge_value = v["judge"][m][e]
        return CalibratedScore(
            key=keys[e][0],
            label=keys[e][1],
            judge=Figure(judge_value, n_scored[m], None if judge_value is not None else (why or cal.NO_SCORED)),
            experts=Figure(v["experts"][m][e] if why is None else None, n_lab[m], why),
            experts_ci95=interval(v["experts_low"][m][e], v["experts_high"][m][e]),
            corrected=Figure(v["corrected"][m][e] if why is None else None, n_lab[m], why),
            corrected_ci95=interval(v["low"][m][e], v["high"][m][e]),
            lam=v["lam"][m][e] if why is None else None,
        )

    d_count = len(DIMENSIONS)
    rows = [
        CalibratedModel(
            model=name,
            scored_items=n_scored[m],
            labelled_items=n_lab[m],
            strata=int(r.strata[m]),
            judge_rank=int(r.judge_rank[m]),
            corrected_rank=int(r.corrected_rank[m]),
            rank_change=int(r.judge_rank[m] - r.corrected_rank[m]),
            overall=score(m, 0),
            by_dimension=tuple(score(m, 1 + d) for d in range(d_count)),
            by_ability=tuple(score(m, 1 + d_count + a) for a in range(n_a) if population.present[:, a].any()),
        )
        for m, name in enumerate(models)
    ]
    rows.sort(key=lambda row: (row.corrected_rank, row.judge_rank, row.model))
    return rows


def _calibrated_differences(r: cal.Calibration, models: list[str], population: ScoringPopulation) -> list[ModelDifference]:
    """The corrected difference of every pair of models, with its interval over resampled items (and experts)."""
    boot = Resampling("item", len(population.question_ids), r.resamples, CALIBRATED_LEVEL, experts=r.difference_experts or None)
    differences = []
    for (i, j), value, low, high in zip(r.pairs.tolist(), r.difference, r.difference_low, r.difference_high):
        n_both = int((population.scored[models[i]] & population.scored[models[j]]).sum())
        ci_reason = r.difference_reason
        differences.append(
            ModelDifference(
                model=models[i],
                other=models[j],
                difference=Figure(_num(value), n_both, None),
                ci95=Interval(None, None, boot, ci_reason) if ci_reason else Interval(_num(low), _num(high), boot, None),
            )
        )
    return differences


def _overall_by_group(scores: scoring.QuestionScores, group: np.ndarray, selected: np.ndarray, n_groups: int) -> np.ndarray:
    """`scoring.aggregate(scores, selected=selected & (group == g)).overall` for every group g, in one pass over the questions.

    An ability's sum runs over the group's selected questions in question order, as the
    aggregate's column sum does, so every score is the same to the last bit.
    """
    n_abilities = scores.present.shape[1]
    present = scores.present[selected]
    # One (group, ability) cell per question and ability, row by row: each cell adds its questions in question order.
    cell = (np.asarray(group, np.intp)[selected][:, None] * n_abilities + np.arange(n_abilities)).ravel()
    size = n_groups * n_abilities
    counts = np.bincount(cell, weights=present.ravel(), minlength=size).reshape(n_groups, n_abilities)
    sums = np.bincount(cell, weights=np.where(present, scores.norm[selected], 0.0).ravel(), minlength=size)
    sums = sums.reshape(n_groups, n_abilities)
    with np.errstate(invalid="ignore", divide="ignore"):
        ability_score = np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)
    scored = counts > 0
    # Each group's overall is the mean of its scored abilities, taken as `aggregate` takes it.
    return np.array([float(ability_score[i][scored[i]].mean()) if scored[i].any() else np.nan for i in range(n_groups)])


def _gate(
    item_agreement: ItemAgreement, *, by_dimension: tuple[GroupRow, ...], by_ability: tuple[GroupRow, ...], policy: GatePolicy
) -> Gate:
    """The release decision under a policy: the agreement (or its CI's lower bound) clears the threshold
    and every dimension and every ability has enough compared pairs. The lower bound is always reported."""
    reasons = []
    threshold = policy.threshold
    rate = item_agreement.rate.value
    ci = item_agreement.ci95
    ci_low = ci.low
    if rate is None:
        reasons.append(Reason("no_agreement_rate"))
    elif policy.must_clear == "lower_bound":
        if ci_low is None:
            reasons.append(Reason("gate_low_undefined", why=ci.reason or Reason("no_interval")))
        elif ci_low < threshold:
            reasons.append(Reason("gate_low_below", low=f"{ci_low:.3f}", rate=f"{rate:.3f}", threshold=f"{threshold:.2f}"))
    elif rate < threshold:
        reasons.append(Reason("gate_rate_below", rate=f"{rate:.3f}", threshold=f"{threshold:.2f}"))
    by_dim = {r.key: r.pairs for r in by_dimension}
    for dim in DIMENSIONS:
        if by_dim.get(dim, 0) < policy.min_pairs_per_dimension:
            reasons.append(Reason("gate_dimension_pairs", dimension=dim, pairs=by_dim.get(dim, 0), minimum=policy.min_pairs_per_dimension))
    pairs_by_ability = {r.key: r.pairs for r in by_ability}
    for ability in ABILITY_LABELS:
        if pairs_by_ability.get(ability, 0) < policy.min_pairs_per_ability:
            pairs = pairs_by_ability.get(ability, 0)
            reasons.append(
                Reason(
                    "gate_ability_pairs",
                    ability_en=english_name(ability),
                    ability=ability,
                    pairs=pairs,
                    minimum=policy.min_pairs_per_ability,
                )
            )
    return Gate(policy=policy, agreement_rate=item_agreement.rate, ci95=ci, passed=not reasons, reasons=tuple(reasons))


def _split_alerts(by_criterion: tuple[GroupRow, ...], splits: st.CriterionSplits) -> list[Alert]:
    """The criteria the experts split on more often than on the others, strongest evidence first (at most 20, then a count)."""
    flagged = np.flatnonzero(splits.flagged)
    flagged = flagged[np.lexsort((-splits.split[flagged], splits.p_value[flagged]))]
    alerts = []
    for c in flagged[:MAX_CRITERION_ALERTS].tolist():
        row = by_criterion[c]
        ability = row.ability if isinstance(row, CriterionRow) else row.key
        alerts.append(
            Alert(
                "split_criterion",
                row.key,
                Reason(
                    "split_criterion",
                    label=row.label,
                    ability_en=english_name(ability),
                    split=int(splits.split[c]),
                    n=int(splits.units[c]),
                    rate=f"{splits.others_rate[c]:.0%}",
                    others=int(splits.others_units[c]),
                    p=f"{splits.p_value[c]:.3f}",
                ),
            )
        )
    if flagged.size > MAX_CRITERION_ALERTS:
        more = flagged.size - MAX_CRITERION_ALERTS
        alerts.append(Alert("split_criterion", "", Reason("more_split_criteria", n=more)))
    return alerts


def _alerts(
    item_agreement: ItemAgreement,
    *,
    by_expert: tuple[ExpertRow, ...],
    by_criterion: tuple[GroupRow, ...],
    by_model: tuple[GroupRow, ...],
    splits: st.CriterionSplits | None = None,
) -> tuple[Alert, ...]:
    alerts = []
    experts = [r for r in by_expert if r.gold_agreement.value is not None and (r.gold_agreement.n or 0) >= DRIFT_MIN_PAIRS]
    if experts:
        median = float(np.median([r.gold_agreement.value for r in experts]))
        for r in experts:
            gold, gold_pairs = r.gold_agreement.value or 0.0, r.gold_agreement.n
            if gold < median - DRIFT_DROP:
                alerts.append(
                    Alert(
                        "expert_outlier",
                        r.expert,
                        Reason("expert_outlier", expert=r.expert, gold=f"{gold:.0%}", pairs=gold_pairs, median=f"{median:.0%}"),
                    )
                )
            recent, recent_pairs = r.recent_gold_agreement.value, r.recent_gold_agreement.n or 0
            if recent is not None and recent_pairs >= DRIFT_MIN_PAIRS and recent < gold - DRIFT_DROP:
                alerts.append(
                    Alert(
                        "expert_drift",
                        r.expert,
                        Reason("expert_drift", expert=r.expert, recent=f"{recent:.0%}", pairs=recent_pairs, gold=f"{gold:.0%}"),
                    )
                )
    if splits is not None:
        alerts += _split_alerts(by_criterion, splits)
    overall = item_agreement.rate.value
    if overall is not None:
        for m in by_model:
            ci = m.item_agreement.ci95
            if ci.high is not None and ci.high < overall and m.item_agreement.rate.value is not None:
                said = {"model": m.key, "rate": f"{m.item_agreement.rate.value:.0%}", "pairs": m.pairs, "items": m.items}
                said |= {"high": f"{ci.high:.0%}", "overall": f"{overall:.0%}"}
                if ci.resampled.experts is None:
                    message = Reason("judge_model_disagreement", **said)
                else:
                    message = Reason("judge_model_disagreement_experts", experts=ci.resampled.experts, **said)
                alerts.append(Alert("judge_model_disagreement", m.key, message))
    return tuple(alerts)


# --- the stored JSON ----------------------------------------------------------------------------
#
# Reports are stored through the types (`to_dict`, schema 6) and read back by one typed reader.
# A report stored before (schemas 1 to 5, written field by field: figures flat with their n and
# reasons in side tables, intervals as bare [low, high]) is first turned into that JSON by
# `upgrade_stored_report`, a pure JSON-to-JSON step, whatever brings it (the database, an archive).


class StoredReportError(ValueError):
    """A stored report (or its inputs) that cannot be read: the message names where, and which field."""


@contextmanager
def _reading(where: str) -> Iterator[None]:
    """Turn a missing or malformed field of a stored report into a StoredReportError that names where it is."""
    try:
        yield
    except StoredReportError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        detail = f"missing field {exc.args[0]!r}" if isinstance(exc, KeyError) else str(exc)
        raise StoredReportError(f"stored agreement report, {where}: {detail}") from exc


def _typed(cls: type[T], data: Any, *, where: str = "") -> T:
    """A report, or a part of one, read through the types; a malformed one raises StoredReportError naming the path."""
    try:
        return from_json(cls, data, path=where)
    except TypedJsonError as exc:
        raise StoredReportError(f"stored agreement report, {exc}") from exc


def _schema_of(data: Any) -> int:
    """The schema a stored report was written with (1: before it was recorded); refuses one newer than this code."""
    with _reading("top level"):
        if not isinstance(data, dict):
            raise ValueError(f"expected an object, got {type(data).__name__}")
        version = int(data.get("schema_version", 1))
        if version > SCHEMA_VERSION:
            raise ValueError(f"schema_version {version} is newer than this code reads ({SCHEMA_VERSION})")
        return version


def stored_agreement_rate(data: dict[str, Any]) -> Figure:
    """The judge–gold agreement rate of a stored report, read without building the whole report (for lists of reports)."""
    typed = _schema_of(data) >= TYPED_SCHEMA
    with _reading("top level"):
        if typed:
            rate = data["item_agreement"]["rate"]
        else:
            name = "item_agreement_rate"
            rate = _figure(data[name], (data.get("n") or {}).get(name), (data.get("undefined") or {}).get(name))
    return _typed(Figure, rate, where="item_agreement.rate")


def calibrated_scores_from_dict(d: dict[str, Any], *, schema: int) -> CalibratedScores:
    """The stored human-calibrated scores of a report (its `calibrated_scores` key) of schema `schema`."""
    if schema < TYPED_SCHEMA:
        d = _part("calibrated_scores", _stored_calibrated, d)
    return _typed(CalibratedScores, d, where="calibrated_scores")


def alt_test_from_dict(t: dict[str, Any], *, schema: int) -> AltTest:
    """A stored alternative annotator test (the `overall` of a report's `alt_test` key) of schema `schema`."""
    if schema < TYPED_SCHEMA:
        t = _part("alt_test", _stored_alt_test, t)
    return _typed(AltTest, t, where="alt_test.overall")


def upgrade_stored_report(data: Any) -> dict[str, Any]:
    """A stored report of any schema as the JSON the types read (schema 6): one of schema 6 as it is, one of 1 to 5 upgraded.

    JSON in, JSON out. Keys the types do not read may stay (they are ignored); a figure left
    undefined without its reason gets NOT_RECORDED, an interval from before items were the unit
    says it resampled responses. Raises StoredReportError naming where a field it needs is missing.
    """
    if _schema_of(data) >= TYPED_SCHEMA:
        return data
    with _reading("top level"):
        d, n, why, gate = data, data.get("n") or {}, data.get("undefined") or {}, data["gate"]

        def figure(name: str) -> dict[str, Any]:
            return _figure(d.get(name), n.get(name), why.get(name))

        parameters = _part("parameters", _parameters, d["parameters"], gate)
        resamples = parameters.get("resamples", 0)
        resampled = d["resampled"] if "resampled" in d else _responses(n.get("item_agreement_ci95", d["responses"]), resamples)
        ci95 = _interval(d.get("item_agreement_ci95"), resampled, why.get("item_agreement_ci95"))
        item_agreement = {"rate": figure("item_agreement_rate"), "ci95": ci95}
        fp, fn = d["confusion"]["fp"], d["confusion"]["fn"]
        post, alt_test, calibrated = d.get("post_discussion"), d.get("alt_test"), d.get("calibrated_scores")
        flat = "cohen_kappa gwet_ac1 judge_hit_rate human_hit_rate krippendorff_alpha fleiss_kappa pairwise_percent_agreement"
        return {
            **d,
            **{name: figure(name) for name in flat.split()},
            **{name: _part(name, _stored_rows, d[name], resamples, name == "by_criterion") for name in (*BREAKDOWNS, "by_criterion")},
            "schema_version": TYPED_SCHEMA,
            "items": d.get("items"),
            "item_agreement": item_agreement,
            "mcnemar": {
                "discordant": fp + fn,
                "judge_only_hits": fp,
                "human_only_hits": fn,
                **(d.get("mcnemar") or {}),
                "p": figure("mcnemar_p"),
            },
            "judge_expert_baseline": _part("judge_expert_baseline", _stored_baseline, d["judge_expert_baseline"], resamples),
            "excluded": d.get("excluded") or {},
            "by_expert": _part("by_expert", lambda: [_stored_expert(e) for e in d["by_expert"]]),
            "expert_pairs": _part(
                "by_expert", lambda: [{**x, "agreement": _agreement(x, "agreement", "units")} for x in d.get("expert_pairs", [])]
            ),
            "over_time": _part("over_time", lambda: [_stored_time_point(t) for t in d.get("over_time", [])]),
            "score_impact": _part("score_impact", _stored_score_impact, d["score_impact"]),
            "gate": _part("gate", _stored_gate, gate, item_agreement),
            "alerts": d.get("alerts", []),
            "parameters": parameters,
            "no_judge_reason": why.get("judge"),
            "post_discussion": None if post is None else {"note": "", "assignments": 0, "judgments": 0, "changed_verdicts": 0, **post},
            "alt_test": None if alt_test is None else _part("alt_test", _stored_alt_test_block, alt_test),
            "calibrated_scores": None if calibrated is None else _part("calibrated_scores", _stored_calibrated, calibrated),
        }


def _part(where: str, upgrade: Callable[..., T], *args: Any) -> T:
    """`upgrade(*args)`, a missing or malformed field named as being in `where`."""
    with _reading(where):
        return upgrade(*args)


def _figure(value: Any, n: Any, reason: Any = None) -> dict[str, Any]:
    """A figure as the types store it; undefined without its reason, it gets NOT_RECORDED (`Figure.stored`)."""
    return to_json(Figure.stored(value, n, reason))


def _interval(pair: list[float] | None, resampled: dict[str, Any], reason: Any) -> dict[str, Any]:
    """A stored [low, high] as the types store an interval; without one, undefined for `reason` (else NOT_RECORDED)."""
    if pair:
        return {"low": pair[0], "high": pair[1], "resampled": resampled}
    return {"low": None, "high": None, "resampled": resampled, "reason": reason or NOT_RECORDED}


def _responses(units: Any, resamples: Any) -> dict[str, Any]:
    """What an interval resampled before items were the unit: the responses."""
    return {"unit": "response", "units": units, "resamples": resamples}


def _parameters(data: dict[str, Any], gate: dict[str, Any]) -> dict[str, Any]:
    """Stored parameters, a gate rule they lack read from the report's gate; a rule held as None takes its default."""
    rules = {name: gate[name] for name in ("threshold", "min_pairs_per_dimension", "alt_test_epsilon") if gate.get(name) is not None}
    return rules | {name: value for name, value in data.items() if value is not None}


def _stored_rows(rows: list[dict[str, Any]], resamples: int, criterion: bool) -> list[dict[str, Any]]:
    """A breakdown's rows: figures flat beside their `undefined` reasons, each n the row's pairs (alpha's: its alpha_units)."""
    out = []
    for d in rows:
        why, pairs, items = d.get("undefined") or {}, int(d["pairs"]), d.get("items")
        if criterion:
            ci = to_json(_criterion_interval(items))
        else:
            if "resampled" in d:
                resampled = d["resampled"]
            elif items is not None:
                resampled = {"unit": "item", "units": items, "resamples": 0}
            else:  # before items were the unit, a row's interval resampled its responses
                resampled = _responses(d["responses"], resamples)
            ci = _interval(d.get("item_agreement_ci95"), resampled, why.get("item_agreement_ci95"))
        row = {name: _figure(d.get(name), pairs, why.get(name)) for name in ("cohen_kappa", "gwet_ac1", "judge_hit_rate", "human_hit_rate")}
        rate = _figure(d.get("item_agreement_rate"), pairs, why.get("item_agreement_rate"))
        alpha = _figure(d.get("krippendorff_alpha"), int(d["alpha_units"]), why.get("krippendorff_alpha"))
        out.append({**d, **row, "items": items, "item_agreement": {"rate": rate, "ci95": ci}, "krippendorff_alpha": alpha})
    return out


def _stored_baseline(b: dict[str, Any], resamples: int) -> dict[str, Any]:
    """The JSON of a judge-vs-expert baseline as `agreement.judge_expert_baseline` gives it (and reports stored it
    before schema 6; before items were the unit, its interval resampled responses) as the types read it."""
    units, reason, pair = int(b["units"]), b.get("reason"), b.get("difference_ci95")
    resampled = b["resampled"] if "resampled" in b else _responses(b.get("responses", 0), resamples if pair else 0)
    out = {"units": units, "difference": _figure(b.get("difference"), units, reason), "difference_ci95": _interval(pair, resampled, reason)}
    for side in ("judge_expert", "expert_expert"):
        f = b[side]
        out |= {side: _figure(f["value"], int(f["n"]), f.get("reason") or reason), f"{side}_pairs": f.get("pairs", 0)}
    return out


def _agreement(d: dict[str, Any], name: str, count: str, why: str = NO_SHARED_UNITS) -> dict[str, Any]:
    """An expert's agreement stored beside its count, undefined for the reason `_expert_figure` gives."""
    return to_json(_expert_figure(d[name], int(d[count]), why))


def _stored_expert(e: dict[str, Any]) -> dict[str, Any]:
    return {
        **e,
        "gold_agreement": _agreement(e, "gold_agreement", "gold_pairs", NO_GOLD_PAIRS),
        "recent_gold_agreement": _agreement(e, "recent_gold_agreement", "recent_gold_pairs", NO_RECENT_QUARTER),
        "expert_agreement": _agreement(e, "expert_agreement", "expert_pairs"),
        "with_experts": [{**o, "agreement": _agreement(o, "agreement", "units")} for o in e.get("with_experts", [])],
    }


def _stored_time_point(t: dict[str, Any]) -> dict[str, Any]:
    pairs, units = int(t["pairs"]), t.get("alpha_units")
    rate = _figure(t["item_agreement_rate"], pairs, st.NO_PAIRS if not pairs else None)
    return {**t, "item_agreement_rate": rate, "krippendorff_alpha": _figure(t["krippendorff_alpha"], units, _alpha_reason(units))}


def _stored_score_impact(s: dict[str, Any]) -> dict[str, Any]:
    n = int(s.get("kendall_tau_n", 0))
    tau = _figure(s.get("kendall_tau"), n, s.get("reason"))
    p = tau if tau["value"] is None else _figure(s.get("kendall_tau_p"), n)  # undefined for the same reason as tau
    models = [{"judge_score": None, "gold_score": None, "score_difference": None, **m} for m in s.get("models", [])]
    return {**s, "models": models, "kendall_tau": tau, "kendall_tau_p": p}


def _stored_gate(g: dict[str, Any], item_agreement: dict[str, Any]) -> dict[str, Any]:
    """A gate stored with its rules beside its decision; decided on the report's agreement rate and interval."""
    policy = {
        "threshold": g["threshold"],
        "min_pairs_per_dimension": g["min_pairs_per_dimension"],
        "min_pairs_per_ability": g.get("min_pairs_per_ability") or 0,
        "must_clear": g.get("must_clear") or "point",
        "alt_test_epsilon": g.get("alt_test_epsilon", alt.DEFAULT_EPSILON),
    }
    decided_on = {"agreement_rate": item_agreement["rate"], "ci95": item_agreement["ci95"]}
    return {"policy": policy, **decided_on, "passed": g["passed"], "reasons": g.get("reasons", [])}


def _stored_alt_test(t: dict[str, Any]) -> dict[str, Any]:
    """A test stored flat: its two figures' n the experts tested, their reason the test's."""
    tested, reason = int(t["experts_tested"]), t.get("reason")
    figures = {name: _figure(t[name], tested, reason) for name in ("winning_rate", "advantage_probability")}
    return {**t, **figures, "passed": passes(t["winning_rate"]), "experts": t.get("experts", [])}


def _stored_alt_test_block(b: dict[str, Any]) -> dict[str, Any]:
    rows = {
        name: [{"key": r["key"], "label": r["label"], "test": _stored_alt_test(r)} for r in b.get(name, [])]
        for name in ("by_dimension", "by_ability")
    }
    return {"overall": _stored_alt_test(b["overall"]), **rows}


def _stored_calibrated(d: dict[str, Any]) -> dict[str, Any]:
    """Human-calibrated scores, their figures stored with null reasons and their intervals as `ci95` pairs."""

    def figure(f: dict[str, Any]) -> dict[str, Any]:
        return _figure(f.get("value"), f.get("n"), f.get("reason"))

    def interval(i: dict[str, Any]) -> dict[str, Any]:
        return _interval(i.get("ci95"), i["resampled"], i.get("reason"))

    def score(s: dict[str, Any]) -> dict[str, Any]:
        intervals = {name: interval(s[name]) for name in ("experts_ci95", "corrected_ci95")}
        return {**s, **{name: figure(s[name]) for name in ("judge", "experts", "corrected")}, **intervals, "lam": _num(s.get("lam"))}

    def model(m: dict[str, Any]) -> dict[str, Any]:
        return {**m, "overall": score(m["overall"]), **{name: [score(x) for x in m[name]] for name in ("by_dimension", "by_ability")}}

    differences = [{**x, "difference": figure(x["difference"]), "ci95": interval(x["ci95"])} for x in d["differences"]]
    return {**d, "kendall_tau": figure(d["kendall_tau"]), "models": [model(m) for m in d["models"]], "differences": differences}
