"""Demo data for a fresh installation: users for every role, a dataset, synthetic responses.

`seed_demo` calls `seed()` here, then the `seed(context)` of each app's `demo` module, so every
app adds its own demo data (judge verdicts, a campaign, judgments…) on top of the core's.
Everything is idempotent: running it twice changes nothing.
"""

import json
from dataclasses import dataclass, field
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group

from heartbench_core.models import DatasetVersion, LanguageModel
from heartbench_core.roles import Role
from heartbench_core.services.datasets import import_heartbench
from heartbench_core.services.responses import import_responses

DEMO_PASSWORD = "heartbench-demo"
FIXTURES = Path(settings.BASE_DIR) / "fixtures"
DEMO_MODELS = ("demo-model-aurora", "demo-model-borealis", "demo-model-cirrus")

DEMO_USERS: tuple[tuple[str, tuple[Role, ...], str], ...] = (
    ("admin", (Role.ADMIN,), "Administrator: campaigns, experts, agreement"),
    ("author", (Role.RUBRIC_AUTHOR,), "Rubric author"),
    ("reviewer1", (Role.SENIOR_REVIEWER, Role.EXPERT), "Senior reviewer (also an expert)"),
    ("reviewer2", (Role.SENIOR_REVIEWER,), "Senior reviewer"),
    ("reviewer3", (Role.SENIOR_REVIEWER,), "Senior reviewer"),
    ("reviewer4", (Role.SENIOR_REVIEWER,), "Senior reviewer"),
    ("expert1", (Role.EXPERT,), "Psychologist (expert annotator)"),
    ("expert2", (Role.EXPERT,), "Psychologist (expert annotator)"),
    ("expert3", (Role.EXPERT,), "Psychologist (expert annotator)"),
    ("expert4", (Role.EXPERT,), "Psychologist (expert annotator)"),
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
