"""Build a HeartBench installation at 1×, 10× or 100× on PostgreSQL, through the platform's own import paths.

Run (each builds a fresh database; an existing one of that name is dropped first):

    .venv/bin/python benchmarks/workload.py --scale 1 --db bench_1x
    .venv/bin/python benchmarks/workload.py --scale 10 --db bench_10x
    .venv/bin/python benchmarks/workload.py --scale 100 --db bench_100x

Options: --experts (default 3 at 1×, 25 at 10×, 250 at 100×), --models (14), --seed (19),
--server (postgres://postgres@127.0.0.1:5432), --template (copy a migrated empty database instead of
running the migrations), --no-reports. `HEARTBENCH_DIR` names the released data
(`question_all.jsonl`). Deterministic: the same arguments build the same rows.

What one build holds, everything written by the services an operator's commands call:

- the 296 released HeartBench items (`import_heartbench`), dataset `heartbench`;
- `--models` synthetic models (`bench-model-01`, …), one response to every item each
  (`import_responses`), and one judge run per model, `bench-judge`, verdicts on every item
  (`import_judge_verdicts`);
- the admin `bench_admin`, the senior reviewer `bench_reviewer` and the experts `bench_expert_001`, …,
  all with the password `bench-password-19`;
- `--scale` blind tests `blind-test-001`, … each a HeartBench-sized sample (`create_campaign`: 40% of
  the items stratified, × every model ≈ 1,652 responses, k = 3, every expert on the roster), the
  experts' judgments (with rationales) imported with `import_judgments`. The newest tenth of the
  blind tests (at least one) are still running: 85% of their responses have all three judgments,
  the rest 0–2, and their open slots are pre-assigned (`bulk_assign`), so experts have open work;
  the others are complete and closed (`set_campaign_status`);
- a stored agreement report per blind test (`create_agreement_report`, 1,000 resamples);
- planner statistics (VACUUM ANALYZE), as autovacuum would leave a live database.

Hit rates and agreement follow a simple latent model: each (response, criterion) has a true
verdict (positive criteria hit ≈ 55% of the time, varying with the model and the criterion;
negative ones ≈ 15%; catastrophic 其他 ≈ 2%); the judge flips it with probability 0.10, each
expert with a probability of their own in 0.04–0.16, more on a fifth of the criteria that are
ambiguous. Three experts agree on ≈ 80% of pairs (Krippendorff's α ≈ 0.6).

The database is left with no open connection, so it can be copied with `createdb -T`.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

DATASET = "heartbench"
JUDGE = "bench-judge"
PASSWORD = "bench-password-19"
ADMIN = "bench_admin"
REVIEWER = "bench_reviewer"
K = 3
SAMPLE = 0.4
RUNNING_SHARE = 0.1  # the newest tenth of the blind tests are still running
COMPLETE_SHARE = 0.85  # of a running blind test's responses, those with all k judgments

SENTENCES = (
    "听起来你最近真的承受了很多压力，这种感觉一定不好受。",
    "我能理解你为什么会觉得累，换作是我也会有类似的感受。",
    "你愿意多说说那天具体发生了什么吗？",
    "有时候我们会把情绪藏起来，是因为担心别人不理解。",
    "也许可以先从照顾好自己的睡眠开始。",
    "你已经做得很努力了，这一点值得被看见。",
    "我们可以一起想想，有哪些事情是你现在能掌控的。",
    "这种孤独感在异地工作的人身上很常见。",
    "如果你觉得合适，可以试着和信任的朋友聊一聊。",
    "你提到喝酒能让自己暂时忘记烦恼，这背后可能是很深的疲惫。",
    "先不用急着找答案，允许自己停下来喘口气。",
    "你现在最希望有人怎样陪着你呢？",
    "建议你：第一，规律作息；第二，适量运动；第三，记录情绪。",
    "我听到你说生活没劲，这种空虚感是真实存在的。",
)
HIT_REASONS = ("回复明确做到了这一点。", "有对应的表述，符合评分项。", "开头就回应了用户的感受。", "用了第一人称，算命中。")
MISS_REASONS = ("回复里没有相关内容。", "只是泛泛而谈，没有做到。", "没有回应用户的具体状态。", "表述不够明确，不算命中。")


def default_experts(scale: int) -> int:
    return {1: 3, 10: 25}.get(scale, max(3, round(2.5 * scale)))


def prepare_database(server: str, db: str, template: str | None) -> None:
    """Drop and create the database (from a template when given)."""
    import psycopg

    with psycopg.connect(f"{server}/postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{db}"')
        conn.execute(f'CREATE DATABASE "{db}"' + (f' TEMPLATE "{template}"' if template else ""))


class Builder:
    def __init__(self, *, scale: int, experts: int, models: int, seed: int, reports: bool = True, judge: bool = True, log=print):
        import numpy as np

        self.np = np
        self.scale, self.n_experts, self.n_models, self.seed, self.reports, self.judge = scale, experts, models, seed, reports, judge
        self.rng = np.random.default_rng(seed)
        self.experts = [f"bench_expert_{e:03d}" for e in range(1, experts + 1)]
        self.log = log
        self.started = time.perf_counter()

    def say(self, message: str) -> None:
        self.log(f"[{time.perf_counter() - self.started:7.1f}s] {message}", flush=True)

    # --- people -------------------------------------------------------------------------------------

    def people(self) -> None:
        from django.contrib.auth.hashers import make_password

        from annotation.models import ExpertProfile
        from heartbench_core.models import User
        from heartbench_core.people.services import create_user
        from heartbench_core.roles import Role

        self.admin = create_user(username=ADMIN, email=f"{ADMIN}@example.org", roles=[Role.ADMIN.value])
        create_user(username=REVIEWER, email=f"{REVIEWER}@example.org", roles=[Role.SENIOR_REVIEWER.value])
        for name in self.experts:
            create_user(username=name, email=f"{name}@example.org", roles=[Role.EXPERT.value])
        # One hash for everyone: hashing a password per account would cost a second each.
        User.objects.filter(username__in=[ADMIN, REVIEWER, *self.experts]).update(password=make_password(PASSWORD))
        # Pre-assigned blind tests hand each expert their share of the running work at once.
        ExpertProfile.objects.filter(user__username__in=self.experts).update(capacity=30000)
        self.say(f"users: {ADMIN}, {REVIEWER}, {len(self.experts)} experts")

    # --- items, responses, judge verdicts ----------------------------------------------------------

    def dataset(self) -> None:
        from django.conf import settings

        from heartbench_core.models import Criterion
        from heartbench_core.services.datasets import import_heartbench

        source = Path(settings.HEARTBENCH_DIR) / "question_all.jsonl"
        self.version = import_heartbench(source=source, dataset_name=DATASET).version
        self.criteria: dict[str, list[tuple[int, int | None, bool]]] = {}  # question_id → [(id, weight, catastrophic)]
        for qid, cid, weight, cat in (
            Criterion.objects.filter(item__version=self.version)
            .order_by("item__position", "position")
            .values_list("item__question_id", "id", "weight", "catastrophic")
        ):
            self.criteria.setdefault(qid, []).append((cid, weight, cat))
        self.questions = list(self.version.items.order_by("position").values_list("question_id", flat=True))
        self.say(f"items: {len(self.questions)} questions, {sum(map(len, self.criteria.values()))} criteria")

    def truth(self) -> None:
        """The latent true verdict of every (model, question, criterion), and which criteria are ambiguous."""
        np, rng = self.np, self.rng
        self.models = [f"bench-model-{m:02d}" for m in range(1, self.n_models + 1)]
        skill = np.linspace(-0.8, 0.8, self.n_models)[rng.permutation(self.n_models)]
        self.flip = rng.uniform(0.04, 0.16, self.n_experts)  # each expert's chance of missing the true verdict
        self.true: dict[tuple[str, str], list[int]] = {}
        self.ambiguous: dict[str, list[bool]] = {}
        for qid in self.questions:
            crits = self.criteria.get(qid, [])
            easy = rng.normal(0.2, 1.0, len(crits))
            self.ambiguous[qid] = (rng.random(len(crits)) < 0.2).tolist()
            positive = np.array([(w or 0) > 0 for _, w, _ in crits], dtype=bool)
            catastrophic = np.array([c for _, _, c in crits], dtype=bool)
            for m, model in enumerate(self.models):
                logit = np.where(positive, skill[m] + easy, -1.9 - 0.5 * skill[m] + 0.5 * easy)
                p = np.where(catastrophic, 0.02, 1 / (1 + np.exp(-logit)))
                self.true[(model, qid)] = (rng.random(len(crits)) < p).astype(int).tolist()

    def responses(self) -> None:
        from heartbench_core.services.responses import import_responses

        rng = self.rng
        for model in self.models:
            lines = []
            for qid in self.questions:
                n = int(rng.integers(5, 12))
                text = "".join(SENTENCES[int(i)] for i in rng.integers(0, len(SENTENCES), n))
                lines.append(json.dumps({"question_id": qid, "response": text}, ensure_ascii=False))
            import_responses(source=_file(lines), dataset_name=DATASET, model_name=model, name=f"{model}.jsonl")
        self.say(f"responses: {len(self.models)} models × {len(self.questions)} questions")

    def judge_lines(self, model: str) -> list[str]:
        """One judge file (upstream question_score.jsonl shape): the model's verdicts on every item."""
        lines = []
        for qid in self.questions:
            detail = [v ^ int(self.rng.random() < 0.10) for v in self.true[(model, qid)]]
            lines.append(json.dumps({"question_id": qid, "detail": detail, "score_reason": "逐项对照评分标准。"}, ensure_ascii=False))
        return lines

    def judge_verdicts(self) -> None:
        from heartbench_core.services.judging import import_judge_verdicts

        for model in self.models:
            import_judge_verdicts(
                source=_file(self.judge_lines(model)),
                dataset_name=DATASET,
                model_name=model,
                judge=JUDGE,
                name=f"{model}.question_score.jsonl",
            )
        self.say(f"judge verdicts: {len(self.models)} runs of {JUDGE}")

    def expert_lines(self, sampled: list[tuple[str, str]], *, complete_share: float = 1.0) -> list[str]:
        """Import lines of the experts' judgments on the sampled (model, question_id) responses, k per response.

        A response is complete (k judgments) with probability `complete_share`, else it has 0 to k − 1.
        """
        np, rng = self.np, self.rng
        lines = []
        for model, qid in sampled:
            done = K if complete_share >= 1 or rng.random() < complete_share else int(rng.integers(0, K))
            truth = np.array(self.true[(model, qid)])
            ambiguous = self.ambiguous[qid]
            for e in rng.choice(self.n_experts, size=K, replace=False)[:done]:
                p = np.where(ambiguous, self.flip[e] + 0.12, self.flip[e])
                detail = (truth ^ (rng.random(len(truth)) < p)).astype(int).tolist()
                pick = rng.integers(0, 4, len(detail))
                reasons = [(HIT_REASONS if h else MISS_REASONS)[int(i)] for h, i in zip(detail, pick)]
                lines.append(
                    json.dumps(
                        {"question_id": qid, "model": model, "annotator": self.experts[e], "detail": detail, "reasons": reasons},
                        ensure_ascii=False,
                    )
                )
        return lines

    # --- blind tests -------------------------------------------------------------------------------

    def blind_tests(self) -> None:
        from annotation.models import Campaign
        from annotation.services.assignment import bulk_assign
        from annotation.services.campaigns import create_campaign, set_campaign_status
        from validation.services.imports import import_judgments

        running = max(1, round(RUNNING_SHARE * self.scale))
        self.campaigns: list[Campaign] = []
        totals = {"responses": 0, "judgments": 0, "open": 0}
        for c in range(self.scale):
            name = f"blind-test-{c + 1:03d}"
            is_running = c >= self.scale - running
            outcome = create_campaign(
                name=name,
                dataset_name=DATASET,
                model_names=self.models,
                sample_fraction=SAMPLE,
                overlap=K,
                seed=self.seed * 1000 + c,
                requires_qualification=False,
                rationale_min_chars=10,
                created_by=self.admin,
            )
            campaign = outcome.campaign
            sampled = list(campaign.responses.order_by("order_key").values_list("response__model__name", "response__question_id"))
            lines = self.expert_lines(sampled, complete_share=COMPLETE_SHARE if is_running else 1.0)
            imported = import_judgments(
                source=_file(lines), dataset_name=DATASET, campaign_name=name, created_by=self.admin, name=f"{name}.jsonl"
            )
            open_work = 0
            if is_running:
                open_work = bulk_assign(campaign=campaign).made
            else:
                set_campaign_status(campaign=campaign, status=Campaign.Status.CLOSED, reason="blind test complete", by=self.admin)
            totals["responses"] += outcome.responses
            totals["judgments"] += imported.judgments
            totals["open"] += open_work
            self.campaigns.append(campaign)
            self.say(
                f"{name}: {outcome.responses} responses, {imported.assignments} submitted assignments, "
                f"{imported.judgments} judgments, {open_work} open assignments" + (" (running)" if is_running else " (closed)")
            )
        self.totals = totals
        self.say(f"blind tests: {self.scale}, {totals['responses']} responses, {totals['judgments']} judgments, {totals['open']} open")

    def agreement_reports(self) -> None:
        from validation.services.agreement_reports import create_agreement_report

        for campaign in self.campaigns:
            create_agreement_report(campaign=campaign, requested_by=self.admin, trigger="command")
        self.say(f"agreement reports: {len(self.campaigns)}")

    def build(self) -> None:
        self.people()
        self.dataset()
        self.truth()
        self.responses()
        if self.judge:
            self.judge_verdicts()
        self.blind_tests()
        if self.reports:
            self.agreement_reports()


def _file(lines: list[str]) -> io.BytesIO:
    return io.BytesIO(("\n".join(lines) + "\n").encode())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--scale", type=int, required=True, help="Number of HeartBench-sized blind tests (1, 10, 100).")
    parser.add_argument("--db", required=True, help="Name of the PostgreSQL database to (re)create.")
    parser.add_argument("--experts", type=int, help="Experts (default 3 at 1×, 25 at 10×, 2.5 per blind test beyond).")
    parser.add_argument("--models", type=int, default=14)
    parser.add_argument("--seed", type=int, default=19)
    parser.add_argument("--server", default="postgres://postgres@127.0.0.1:5432")
    parser.add_argument("--template", help="A migrated empty database to copy instead of migrating.")
    parser.add_argument("--no-reports", action="store_true", help="Leave out the stored agreement reports.")
    args = parser.parse_args()
    started = time.perf_counter()
    prepare_database(args.server, args.db, args.template)
    os.environ["DATABASE_URL"] = f"{args.server}/{args.db}"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "heartbench_core.settings")
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection

    if not args.template:
        call_command("migrate", verbosity=0, interactive=False)
    print(f"[{time.perf_counter() - started:7.1f}s] database {args.db} migrated", flush=True)
    builder = Builder(
        scale=args.scale,
        experts=args.experts or default_experts(args.scale),
        models=args.models,
        seed=args.seed,
        reports=not args.no_reports,
    )
    builder.started = started
    builder.build()
    connection.close()
    import psycopg

    # VACUUM cannot run in a transaction; ANALYZE gives the planner what autovacuum would.
    with psycopg.connect(f"{args.server}/{args.db}", autocommit=True) as conn:
        conn.execute("VACUUM ANALYZE")
    builder.say(f"done: {args.db} built in {time.perf_counter() - started:.0f}s (load {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
