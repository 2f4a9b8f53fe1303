"""Time the blind-test planner at HeartBench size: a pilot of 40% of the 296 released items × 14 models,
3 of 25 experts per response, and a grid of 5 shares × 2 rater counts, 1,000 simulated campaigns each.

Run:  .venv/bin/python benchmarks/planner.py [--runs 5] [--simulations 1000]

The pilot's rubric shape (criteria per item, their abilities and weights) is the released
question_all.jsonl's ($HEARTBENCH_DIR); its verdicts are simulated. Times the pure planner
(fit + simulate + price) in this process; prints min / median / max seconds and the load average.
"""

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from heartbench_core.lib import planner  # noqa: E402
from heartbench_core.lib.taxonomy import ABILITY_LABELS  # noqa: E402

MODELS, POOL, SHARE, RATERS = 14, 25, 0.4, 3


def released_rubrics() -> list[list[dict]]:
    path = Path(os.environ.get("HEARTBENCH_DIR", ROOT.parent / "shared" / "heartbench")) / "question_all.jsonl"
    return [json.loads(line)["rubric"] for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def pilot(rubrics: list[list[dict]], seed: int = 0) -> planner.PilotUnits:
    rng = np.random.default_rng(seed)
    index = {label: i for i, label in enumerate(ABILITY_LABELS)}
    items = rng.choice(len(rubrics), size=round(SHARE * len(rubrics)), replace=False)
    parts = {k: [] for k in ("response", "ability", "weight", "catastrophic")}
    response_item, response_model = [], []
    for position, item in enumerate(items):
        crit = rubrics[item]
        for model in range(MODELS):
            r = len(response_item)
            response_item.append(position)
            response_model.append(model)
            parts["response"].append(np.full(len(crit), r))
            parts["ability"].append(np.array([index.get(c["dimension"], len(ABILITY_LABELS)) for c in crit]))
            parts["weight"].append(np.array([np.nan if c["score"] is None else c["score"] for c in crit], float))
            parts["catastrophic"].append(np.array([c["dimension"] == "其他" for c in crit]))
    unit_response = np.concatenate(parts["response"])
    n = unit_response.size
    p = rng.beta(0.25, 0.2, size=n)
    judge = np.where(rng.random(n) < 0.87, p > 0.5, p <= 0.5)
    chosen = np.argsort(rng.random((len(response_item), POOL)), axis=1)[:, :RATERS]
    lenient = rng.normal(0, 0.5, POOL)
    logit = np.log(np.clip(p, 1e-4, 1 - 1e-4) / np.clip(1 - p, 1e-4, 1))
    verdicts = rng.random((n, RATERS)) < 1 / (1 + np.exp(-(logit[:, None] + lenient[chosen][unit_response])))
    return planner.PilotUnits(
        unit_response=unit_response,
        unit_judge=judge,
        unit_ability=np.concatenate(parts["ability"]),
        unit_weight=np.concatenate(parts["weight"]),
        unit_catastrophic=np.concatenate(parts["catastrophic"]),
        response_item=np.asarray(response_item),
        response_model=np.asarray(response_model),
        judgment_unit=np.repeat(np.arange(n), RATERS),
        judgment_expert=chosen[unit_response].ravel(),
        judgment_hit=verdicts.ravel(),
        n_abilities=len(ABILITY_LABELS) + 1,
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--simulations", type=int, default=1000)
    args = parser.parse_args()
    rubrics = released_rubrics()
    units = pilot(rubrics)
    costs = planner.Costs(seconds_per_criterion=20.0, criteria_per_item=float(np.mean([len(r) for r in rubrics])), piece_rate=3.0)
    times = []
    for run in range(args.runs):
        start = time.perf_counter()
        fitted = planner.fit_pilot(units, seed=run)
        plan = planner.plan(
            fitted,
            dataset_items=len(rubrics),
            models=MODELS,
            shares=(0.1, 0.2, 0.3, 0.4, 0.5),
            raters=(3, 5),
            pool=POOL,
            costs=costs,
            simulations=args.simulations,
            seed=run,
        )
        times.append(time.perf_counter() - start)
    print(f"pilot: {units.n_items} items, {units.response_item.size} responses, {units.unit_response.size} units, {POOL} experts")
    print(f"grid: {len(plan.designs)} designs × {plan.simulations} simulated campaigns (reduced: {plan.reduced})")
    print(f"seconds: min {min(times):.2f}  median {statistics.median(times):.2f}  max {max(times):.2f}  (load {os.getloadavg()[0]:.1f})")
    for d in plan.designs:
        print(
            f"  {d.share:.0%} × {d.raters}: ±{d.agreement_half_width * 100:.2f} points, ±{d.difference_half_width:.2f} score points, {d.expert_hours:.0f} h"
        )


if __name__ == "__main__":
    main()
