"""Demo data for a fresh installation: users for every role, a dataset, synthetic responses.

`seed_demo` calls `seed()` here, then the `seed(context)` of each app's `demo` module, so every
app adds its own demo data (judge verdicts, a campaign, judgments…) on top of the core's.
Everything is idempotent: running it twice changes nothing.
"""

import io
import json
from dataclasses import dataclass, field
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.utils.translation import gettext_noop

from heartbench_core.models import DatasetVersion, LanguageModel
from heartbench_core.roles import Role
from heartbench_core.services.datasets import import_heartbench
from heartbench_core.services.responses import import_responses

DEMO_PASSWORD = "heartbench-demo"
FIXTURES = Path(settings.BASE_DIR) / "fixtures"
DEMO_MODELS = ("demo-model-aurora", "demo-model-borealis", "demo-model-cirrus")

# Username, roles, and what the user is (marked for translation here, translated when printed).
DEMO_USERS: tuple[tuple[str, tuple[Role, ...], str], ...] = (
    ("admin", (Role.ADMIN,), gettext_noop("Administrator: campaigns, experts, agreement")),
    ("author", (Role.RUBRIC_AUTHOR,), gettext_noop("Rubric author")),
    ("reviewer1", (Role.SENIOR_REVIEWER, Role.EXPERT), gettext_noop("Senior reviewer (also an expert)")),
    ("reviewer2", (Role.SENIOR_REVIEWER,), gettext_noop("Senior reviewer")),
    ("reviewer3", (Role.SENIOR_REVIEWER,), gettext_noop("Senior reviewer")),
    ("reviewer4", (Role.SENIOR_REVIEWER,), gettext_noop("Senior reviewer")),
    ("expert1", (Role.EXPERT,), gettext_noop("Psychologist (expert annotator)")),
    ("expert2", (Role.EXPERT,), gettext_noop("Psychologist (expert annotator)")),
    ("expert3", (Role.EXPERT,), gettext_noop("Psychologist (expert annotator)")),
    ("expert4", (Role.EXPERT,), gettext_noop("Psychologist (expert annotator)")),
)


@dataclass
class DemoContext:
    version: DatasetVersion
    users: dict
    models: list[LanguageModel]
    real_data: bool
    log: list[str] = field(default_factory=list)


def seed(*, heartbench: Path | None = None) -> DemoContext:
    """Create demo users, the demo (or real HeartBench) dataset and synthetic responses."""
    users = _users()
    if heartbench is not None:
        outcome = import_heartbench(source=heartbench, dataset_name="heartbench", note="released HeartBench benchmark")
        version = outcome.version
        for model in DEMO_MODELS:
            _import_synthetic(version, model)
    else:
        version = import_heartbench(source=FIXTURES / "demo_items.jsonl", dataset_name="demo", note="demo items").version
        for model in DEMO_MODELS:
            import_responses(source=FIXTURES / "responses" / f"{model}.jsonl", dataset_name="demo", model_name=model)
    models = list(LanguageModel.objects.filter(name__in=DEMO_MODELS).order_by("name"))
    ctx = DemoContext(version=version, users=users, models=models, real_data=heartbench is not None)
    ctx.log.append(f"dataset {version} with {version.item_count} items, responses of {len(models)} fictional models")
    _seed_judge_runs(ctx)
    _seed_judging(ctx)
    return ctx


def _users() -> dict:
    User = get_user_model()
    users = {}
    for username, roles, _ in DEMO_USERS:
        user, created = User.objects.get_or_create(username=username, defaults={"email": f"{username}@demo.invalid"})
        if created:
            user.set_password(DEMO_PASSWORD)
            if Role.ADMIN in roles:
                user.is_staff = user.is_superuser = True
            user.save()
        for role in roles:
            user.groups.add(Group.objects.get_or_create(name=role.value)[0])
        users[username] = user
    return users


_TEMPLATES = {
    "demo-model-aurora": "（合成示例回答）我听到你说“{last}”。这听起来不容易，我想多了解一点：这件事里最让你难受的是什么？",
    "demo-model-borealis": "（合成示例回答）建议你：1. 早睡早起 2. 多运动 3. 和朋友聊聊 4. 写日记 5. 必要时寻求专业帮助。",
    "demo-model-cirrus": "（合成示例回答）谢谢你愿意说出来。关于“{last}”，我们可以一起慢慢看，你希望先从哪里说起？",
}


def _import_synthetic(version: DatasetVersion, model: str) -> None:
    """Write clearly synthetic answers for every item of a real dataset and import them."""
    import io

    lines = []
    for item in version.items.order_by("position").only("question_id", "dialogue"):
        last = item.dialogue[-1]["content"]
        text = _TEMPLATES[model].format(last=last[:40] + ("…" if len(last) > 40 else ""))
        lines.append(json.dumps({"question_id": item.question_id, "response": text, "synthetic": True}, ensure_ascii=False))
    source = io.BytesIO(("\n".join(lines) + "\n").encode("utf-8"))
    import_responses(source=source, dataset_name=version.dataset.name, model_name=model, name=f"synthetic-{model}.jsonl")


DEMO_JUDGE = "demo-judge"
# Synthetic hit tendencies per fictional model: P(hit) for a reward criterion, for a penalty.
_DEMO_JUDGE_PROFILES = {"demo-model-aurora": (0.75, 0.1), "demo-model-borealis": (0.35, 0.6), "demo-model-cirrus": (0.6, 0.2)}


def _seed_judge_runs(ctx: DemoContext) -> None:
    """One synthetic judge run per fictional model: the committed files on the demo items, seeded draws on real data."""
    from heartbench_core.services.judging import import_judge_verdicts

    for model in DEMO_MODELS:
        source: Path | io.BytesIO
        name: str | None
        if ctx.real_data:
            source, name = _synthetic_verdicts(ctx.version, model), f"synthetic-verdicts-{model}.jsonl"
        else:
            source, name = FIXTURES / "verdicts" / f"{model}.jsonl", None
        import_judge_verdicts(
            source=source,
            dataset_name=ctx.version.dataset.name,
            version_label=ctx.version.label,
            model_name=model,
            judge=DEMO_JUDGE,
            note="synthetic demo verdicts, not a real judge",
            name=name,
        )
    ctx.log.append(f"synthetic judge runs ({DEMO_JUDGE}) for {len(DEMO_MODELS)} fictional models")


def _synthetic_verdicts(version: DatasetVersion, model: str) -> io.BytesIO:
    """Deterministic, clearly synthetic verdict lines in the upstream question_score.jsonl format."""
    import zlib

    import numpy as np

    from heartbench_core.models import Criterion

    rng = np.random.default_rng(zlib.crc32(f"{DEMO_JUDGE}:{model}".encode()))
    reward, penalty = _DEMO_JUDGE_PROFILES[model]
    rubric: dict[str, list[tuple[int | None, bool]]] = {}
    for qid, weight, catastrophic in (
        Criterion.objects.filter(item__version=version)
        .order_by("item__position", "position")
        .values_list("item__question_id", "weight", "catastrophic")
    ):
        rubric.setdefault(qid, []).append((weight, catastrophic))
    lines = []
    for qid, criteria in rubric.items():
        draws = rng.random(len(criteria))
        hits = [0 if cat else int(d < (reward if (w or 0) > 0 else penalty)) for (w, cat), d in zip(criteria, draws)]
        reason = f"（合成示例评语，非真实评审）{DEMO_JUDGE} 的随机判定：命中 {sum(hits)} 条，共 {len(hits)} 条。"
        lines.append(
            json.dumps({"question_id": qid, "score_detail": str(hits), "score_reason": reason, "synthetic": True}, ensure_ascii=False)
        )
    return io.BytesIO(("\n".join(lines) + "\n").encode("utf-8"))


DEMO_ENDPOINT = "demo-offline-judge"
DEMO_ENDPOINT_NOTE = (
    "Demo only: this endpoint points at nothing (127.0.0.1 port 9, the discard port), so every question of a run on it "
    "fails with 'cannot be reached' and no request leaves this machine. Point it at a real OpenAI-compatible service "
    "(add_endpoint demo-offline-judge --base-url URL --model MODEL --api-key-env HEARTBENCH_KEY_…) to judge for real."
)


def _seed_judging(ctx: DemoContext) -> None:
    """An endpoint clearly labelled as pointing at nothing, the default judge template, and one small run on it.

    A worker takes the run and fails its two questions (the endpoint cannot be reached): the run's page
    shows what a failed question looks like and offers to ask it again. Nothing is sent over the network.
    Endpoints reach this machine only when the operator allows it (ENDPOINT_ALLOWED_HOSTS=127.0.0.1, which
    `scripts/start` sets for a demo served on loopback); otherwise the demo goes without its endpoint.
    """
    from django.core.exceptions import ValidationError

    from heartbench_core.judging.services.endpoints import default_template, save_endpoint
    from heartbench_core.judging.services.runs import Selection, request_judge_run
    from heartbench_core.models import JudgeRun

    try:
        endpoint = save_endpoint(
            name=DEMO_ENDPOINT,
            base_url="http://127.0.0.1:9/v1",
            model=DEMO_ENDPOINT,
            concurrency=2,
            max_retries=0,
            timeout_seconds=5,
            note=DEMO_ENDPOINT_NOTE,
        ).endpoint
    except ValidationError:
        ctx.log.append(f"endpoint {DEMO_ENDPOINT} left out: endpoints may not reach 127.0.0.1 here (ENDPOINT_ALLOWED_HOSTS)")
        return
    default_template()
    model = ctx.models[0]
    if not JudgeRun.objects.filter(version=ctx.version, model=model, judge=endpoint.model).exists():
        first = tuple(ctx.version.items.order_by("position").values_list("question_id", flat=True)[:2])
        request_judge_run(
            dataset_name=ctx.version.dataset.name,
            version_label=ctx.version.label,
            model_name=model.name,
            endpoint_name=endpoint.name,
            run_label="offline-demo",
            selection=Selection(questions=first),
            requested_by=ctx.users.get("admin"),
            trigger="command",
        )
    ctx.log.append(f"endpoint {DEMO_ENDPOINT} (points at nothing: its demo run fails, to show a failed question)")
