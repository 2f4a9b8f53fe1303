"""A blind test's report arrays at HeartBench size × scale, generated in memory (no database).

Used by the benchmarks (`benchmarks/agreement.py`, `benchmarks/plain_agreement.py`) and by the
tests that compare the report with its oracle (`tests/lib/report_oracle`).

`synthetic_campaign(scale)` returns the flat arrays `compute_report` reads (the `ReportData`
protocol) for a campaign shaped like the workload's installations: 40% of HeartBench's 296
items (118) answered by 14 × scale models (1,652 responses at 1×, 165,200 at 100×), 4–23
criteria per item (mean ≈ 10.5, abilities and weights drawn with the released data's
frequencies, one catastrophic criterion per item), three expert ratings per (response,
criterion) from a pool of experts, a hit rate ≈ 0.6, pairwise agreement among experts ≈ 0.85,
and a judge verdict on every pair. Submissions are spread over 60 days.

`messy=True` adds what a live campaign has and the clean generator lacks: k = 4 with ratings
missing (incomplete units and ties), pairs without a verdict, adjudicated units, an expert
with a handful of judgments, an ability outside the taxonomy, null weights, and 90 days.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

ITEMS = 296
SAMPLED_ITEMS = 118  # 40% of the items, as the workload samples them
MODELS_AT_SCALE_1 = 14
K = 3
DAYS = 60
# The released rubric's ability labels and weights with their frequencies (question_all.jsonl).
ABILITIES = {
    "言语表达": 565,
    "情绪应对": 390,
    "好奇心": 367,
    "情绪理解": 309,
    "温暖": 305,
    "第一人称使用": 295,
    "情绪感知": 284,
    "主动性": 79,
    "动机": 42,
    "自主性": 37,
    "幽默": 36,
    "情绪反应": 32,
    "自我认知": 29,
    "关系构建": 25,
    "道德": 23,
}
WEIGHTS = {3: 935, 2: 414, -10: 290, 5: 282, 4: 273, -3: 241, 6: 152, 1: 57, 7: 45, -2: 35, 8: 26, -5: 25, -4: 21}


@dataclass
class SyntheticCampaign:
    """The `ReportData` arrays of one generated campaign."""

    k: int
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
    excluded: dict = field(default_factory=dict)

    @property
    def n_units(self) -> int:
        return int(self.u_cr.size)

    def unit_counts(self) -> tuple[np.ndarray, np.ndarray]:
        hits = np.bincount(self.j_unit, weights=self.j_hit, minlength=self.n_units).astype(np.int64)
        return hits, np.bincount(self.j_unit, minlength=self.n_units).astype(np.int64)


def synthetic_campaign(
    scale: float,
    *,
    seed: int = 0,
    items: int = SAMPLED_ITEMS,
    models: int | None = None,
    experts: int | None = None,
    messy: bool = False,
) -> SyntheticCampaign:
    """A campaign of `items` items × (14 × scale) models, three expert ratings and a judge verdict per pair."""
    rng = np.random.default_rng(seed)
    n_models = models or max(1, round(MODELS_AT_SCALE_1 * scale))
    k = K + 1 if messy else K
    n_experts = experts or max(k, round(2.5 * scale))
    days = 90 if messy else DAYS
    # Items and their criteria (criterion ids in item order, as the database's are).
    n_crit = np.clip(np.round(rng.gamma(4.0, 2.6, ITEMS)).astype(int), 4, 23)
    crit_item = np.repeat(np.arange(ITEMS), n_crit)
    crit_position = np.concatenate([np.arange(n) for n in n_crit])
    labels, freq = list(ABILITIES), np.array(list(ABILITIES.values()), float)
    crit_ability = [labels[i] for i in rng.choice(len(labels), size=crit_item.size, p=freq / freq.sum())]
    w_values, w_freq = np.array(list(WEIGHTS), float), np.array(list(WEIGHTS.values()), float)
    crit_weight = rng.choice(w_values, size=crit_item.size, p=w_freq / w_freq.sum())
    last = np.cumsum(n_crit) - 1  # every item's last criterion is its catastrophic one
    crit_catastrophic = np.zeros(crit_item.size, bool)
    crit_catastrophic[last] = True
    crit_weight[last] = np.nan
    for c in last.tolist():
        crit_ability[c] = "其他"
    if messy:  # a label a dataset declared outside the taxonomy, and weights left null
        crit_ability[1] = "共情深度"
        crit_weight[rng.random(crit_weight.size) < 0.03] = np.nan
    chosen = np.sort(rng.choice(ITEMS, size=min(items, ITEMS), replace=False))
    keep = np.isin(crit_item, chosen)
    old_to_new = np.full(ITEMS, -1)
    old_to_new[chosen] = np.arange(chosen.size)
    crit_ids = np.flatnonzero(keep)
    crit_item_new = old_to_new[crit_item[keep]]
    # Responses: every model answers every sampled item (response ids in model, item order).
    cr_model = np.repeat(np.arange(n_models), chosen.size)
    cr_item = np.tile(np.arange(chosen.size), n_models)
    per_item = np.bincount(crit_item_new, minlength=chosen.size)
    first = np.concatenate([[0], np.cumsum(per_item)[:-1]])
    u_per = per_item[cr_item]
    u_cr = np.repeat(np.arange(cr_item.size), u_per)
    u_crit = np.repeat(first[cr_item], u_per) + (np.arange(u_cr.size) - np.repeat(np.cumsum(u_per) - u_per, u_per))
    n_units = u_cr.size
    cat = crit_catastrophic[keep][u_crit]
    truth = rng.random(n_units) < np.where(cat, 0.05, 0.64)
    # Three distinct experts per response, each with a skill (flip rate) of their own.
    skill = rng.uniform(0.04, 0.12, n_experts)
    raters = np.argsort(rng.random((cr_item.size, n_experts)), axis=1)[:, :k] if n_experts > k else np.tile(np.arange(k), (cr_item.size, 1))
    j_unit = np.repeat(np.arange(n_units), k)
    j_expert = raters[u_cr].ravel()
    j_hit = truth[j_unit] ^ (rng.random(j_unit.size) < skill[j_expert])
    day = rng.integers(0, days, cr_item.size)
    # A submission's judgments share its time: ties that "latest" must break by position.
    submitted = 86400.0 * (20_000 + day[:, None]) + rng.uniform(0, 86_000, (cr_item.size, k))
    j_time = submitted[u_cr[j_unit], np.tile(np.arange(k), n_units)]
    u_judge = (truth ^ (rng.random(n_units) < 0.12)).astype(np.int8)
    u_adjudicated = np.full(n_units, -1, np.int8)
    if messy:
        # Some ratings not (yet) given, verdicts missing, adjudications, and an expert who judged a few units only.
        kept = rng.random(j_unit.size) > 0.08
        j_unit, j_expert, j_hit, j_time = j_unit[kept], j_expert[kept], j_hit[kept], j_time[kept]
        u_judge[rng.random(n_units) < 0.03] = -1
        decided = rng.random(n_units) < 0.02
        u_adjudicated[decided] = rng.integers(0, 2, int(decided.sum()))
        j_expert[rng.choice(j_expert.size, size=5, replace=False)] = n_experts
        n_experts += 1
    difficulty = ["hard" if i % 4 == 0 else "normal" for i in range(chosen.size)]
    scenes = [f"scene {i % 9}" for i in range(chosen.size)]
    return SyntheticCampaign(
        k=k,
        cr_id=np.arange(1, cr_item.size + 1, dtype=np.int64),
        cr_model=cr_model,
        cr_item=cr_item,
        model_names=[f"model-{m:04d}" for m in range(n_models)],
        item_question=[f"Q{int(q):03d}" for q in chosen],
        item_difficulty=difficulty,
        item_scene=scenes,
        crit_id=crit_ids + 1,
        crit_ability=[crit_ability[c] for c in crit_ids.tolist()],
        crit_weight=crit_weight[keep],
        crit_catastrophic=crit_catastrophic[keep],
        crit_lineage=[f"L{c}" for c in crit_ids.tolist()],
        crit_position=crit_position[keep],
        crit_item=crit_item_new,
        u_cr=u_cr,
        u_crit=u_crit,
        j_unit=j_unit,
        j_expert=j_expert.astype(np.int64),
        j_hit=j_hit,
        j_time=j_time,
        expert_ids=list(range(1, n_experts + 1)),
        expert_names=[f"expert{e:03d}" for e in range(n_experts)],
        u_judge=u_judge,
        u_adjudicated=u_adjudicated,
    )
