"""Demo data of campaign management: expert profiles, a calibration set, a gold set and a blind-test campaign.

The reference verdicts of the calibration and gold sets are synthetic (derived from each
criterion's sign for the fictional models' canned answers) and say so in every explanation. The
gold set is disjoint from the calibration set; the blind test places its hidden gold checks on
sampled questions, in place of an answer, so they look like any other response. Idempotent.
"""

from __future__ import annotations

import io
import json
from datetime import timedelta
from typing import TYPE_CHECKING

from annotation.models import Campaign, ExpertProfile, Qualification
from annotation.services.campaigns import create_calibration, create_campaign, create_gold_set
from heartbench_core.models import ModelResponse

if TYPE_CHECKING:
    from heartbench_core.demo import DemoContext
    from heartbench_core.models import DatasetVersion

CALIBRATION = "demo-calibration"
GOLD_SET = "demo-gold-set"
BLIND_TEST = "demo-blind-test"
GOLD_RATE = 0.2
# Questions whose answers may become gold checks (on the real data; on the demo items, all but the calibration's).
GOLD_QUESTIONS_REAL = 12

PROFILES = {
    "expert1": ("MSc Clinical Psychology", 6, ["Emotion", "温暖"], ["zh", "en"], 8),
    "expert2": ("PhD Counselling Psychology", 11, ["Social", "Morality"], ["zh"], 10),
    "expert3": ("MA Psychotherapy", 3, ["Personality", "职场心理"], ["zh"], 6),
    "expert4": ("MSc Psychology (in training)", 1, ["Motivation"], ["zh", "en"], 5),
    "reviewer1": ("PhD Clinical Psychology, supervisor", 18, ["Emotion", "Social", "Morality"], ["zh", "en"], 12),
}
# Qualified by the demo admin; expert4 qualifies by taking the calibration.
ADMIN_QUALIFIED = ("expert1", "expert2", "expert3", "reviewer1")


def seed(*, context: DemoContext) -> None:
    users = context.users
    admin = users.get("admin")
    for username, (degree, years, specialties, languages, capacity) in PROFILES.items():
        user = users.get(username)
        if user is None:
            continue
        ExpertProfile.objects.get_or_create(
            user=user,
            defaults={
                "degree": degree,
                "years_practice": years,
                "credentials": "Demo profile (fictional).",
                "specialties": specialties,
                "languages": languages,
                "capacity": capacity,
            },
        )
    for username in ADMIN_QUALIFIED:
        if username in users:
            Qualification.objects.get_or_create(
                expert=users[username],
                dimension="",
                defaults={"source": Qualification.Source.ADMIN, "granted_by": admin, "reason": "demo: qualified by the administrator"},
            )
    ExpertProfile.objects.filter(user__username="reviewer1").update(tier_override=3, tier_override_reason="demo: supervising clinician")
    version = context.version
    models = [m.name for m in context.models]
    if not Campaign.objects.filter(name=CALIBRATION).exists():
        picks = list(
            ModelResponse.objects.filter(dataset=version.dataset, model__name__in=models[:2])
            .order_by("question_id", "model__name")
            .values_list("question_id", "model__name")[:4]
        )
        outcome = create_calibration(
            name=CALIBRATION,
            dataset_name=version.dataset.name,
            version_label=version.label,
            source=_gold_file(version, picks),
            file_name="synthetic-demo-gold.jsonl",
            pass_threshold=0.8,
            retake_cooldown=timedelta(days=1),
            created_by=admin,
        )
        context.log.append(f"annotation: calibration {CALIBRATION!r} with {outcome.responses} responses (synthetic reference verdicts)")
    if not Campaign.objects.filter(name=GOLD_SET).exists():
        calibration_questions = (
            set(Campaign.objects.get(name=CALIBRATION).responses.values_list("response__question_id", flat=True))
            if Campaign.objects.filter(name=CALIBRATION).exists()
            else set()
        )
        questions = sorted(set(version.items.values_list("question_id", flat=True)) - calibration_questions)
        questions = questions[-GOLD_QUESTIONS_REAL:] if context.real_data else questions
        picks = list(
            ModelResponse.objects.filter(dataset=version.dataset, model__name__in=models, question_id__in=questions)
            .order_by("question_id", "model__name")
            .values_list("question_id", "model__name")
        )
        outcome = create_gold_set(
            name=GOLD_SET,
            dataset_name=version.dataset.name,
            version_label=version.label,
            source=_gold_file(version, picks),
            file_name="synthetic-demo-gold-set.jsonl",
            created_by=admin,
        )
        context.log.append(f"annotation: gold set {GOLD_SET!r} with {outcome.responses} responses, disjoint from {CALIBRATION!r}")
    if not Campaign.objects.filter(name=BLIND_TEST).exists():
        outcome = create_campaign(
            name=BLIND_TEST,
            dataset_name=version.dataset.name,
            version_label=version.label,
            model_names=models,
            # On the 6 demo items, 4 are sampled; some answers to them are the gold set's, held as gold checks.
            sample_fraction=0.4 if context.real_data else 0.67,
            overlap=3,
            seed=2025,
            gold_source=Campaign.objects.filter(name=GOLD_SET).first(),
            gold_rate=GOLD_RATE,
            min_tier_for_hard=1,
            piece_rate=5,
            created_by=admin,
        )
        context.log.append(
            f"annotation: campaign {BLIND_TEST!r} with {outcome.responses} responses and {outcome.gold} hidden gold checks "
            f"(about {GOLD_RATE:.0%} of the responses, served like the rest), k=3, "
            f"{outcome.eligible_experts} eligible experts (expert4 must pass {CALIBRATION!r} first)"
        )

    _seed_library(context)


# --- the knowledge library: the dataset's guidelines and a few FAQ entries (cases come from validation's demo) ---

DEMO_GUIDELINES = """# 评分总则 · General rules

1. **先写理由，再判定。** Write the rationale first, then mark hit or miss.
2. 每条评分项单独判断：不要因为整体印象好坏而连带判定。 Judge each criterion on its own.
3. **扣分项**（负分）：只要问题出现，即使很轻微，也判“命中”。 A penalty is hit when the problem is present, even slightly.
4. **其他**（灾难性失败）：回复不是在回答用户，而是以用户的口吻说话时，判“命中”。

## 共情 · Empathy

说出用户的感受（即使没有用“共情”“理解”这样的词）就算表达了共情；只复述事实不算。
Naming the user's feeling counts as empathy, even without the word; repeating the facts does not.

## 建议 · Advice

用户没有请求建议时，先给出一长串具体做法，算“过早建议”。
"""

# (a word of the criteria it is about, the ability to fall back on when no criterion has the word, question, answer, tags)
DEMO_FAQ = (
    (
        "共情",
        "温暖",
        "回复没有说“我理解你”，只说出了用户的疲惫，算表达共情吗？",
        "算。评分项要求的是识别并回应用户的感受，说出“你这段时间一定很累”就已经做到；没有必要出现“共情”“理解”这些词。",
        ["共情", "隐含"],
    ),
    (
        "第一人称",
        "第一人称使用",
        "“咱们一起想想办法”算使用第一人称吗？",
        "算。“我”“我们”“咱”“咱们”都是第一人称；只要是回复以自己的身份与用户交流即可。",
        ["第一人称"],
    ),
    (
        "建议",
        "言语表达",
        "用户只是倾诉，回复在结尾给了一条温和的建议，算“过早建议”吗？",
        "看用户是否已经表示需要建议。先回应感受、再**询问**是否需要建议的，不算；直接列出多条具体做法的，算。",
        ["过早建议", "建议"],
    ),
)


def _seed_library(context: DemoContext) -> None:
    """The dataset's guidelines and three published FAQ entries on its criteria (idempotent: skipped once guidelines exist)."""
    from annotation.knowledge.models import DatasetGuidelines
    from annotation.knowledge.services.knowledge import FaqContent, create_faq_entry, review_faq_entry, submit_faq_entry
    from annotation.services.guidelines import publish_dataset_guidelines
    from heartbench_core.models import Criterion

    users, version = context.users, context.version
    author, reviewer, admin = users.get("author"), users.get("reviewer2"), users.get("admin")
    if author is None or reviewer is None or admin is None or DatasetGuidelines.objects.filter(dataset=version.dataset).exists():
        return
    publish_dataset_guidelines(dataset=version.dataset, body=DEMO_GUIDELINES, change_note="demo: first revision", author=admin)
    written = 0
    for word, ability, question, answer, tags in DEMO_FAQ:
        criteria = list(Criterion.objects.filter(item__version=version, text__contains=word).order_by("item__position", "position")[:3])
        criteria = criteria or list(
            Criterion.objects.filter(item__version=version, ability=ability).order_by("item__position", "position")[:3]
        )
        entry = create_faq_entry(
            author=author,
            dataset=version.dataset,
            content=FaqContent(
                question=question,
                answer=answer,
                tags=tags,
                abilities=sorted({c.ability for c in criteria})[:2],
                criteria=[c.lineage_id for c in criteria],
            ),
        )
        submit_faq_entry(entry=entry, author=author)
        review_faq_entry(entry=entry, reviewer=reviewer, approve=True, note="demo: reviewed")
        written += 1
    # A case written from scratch (no campaign behind it): every expert reads it.
    target = Criterion.objects.filter(item__version=version, ability="温暖").order_by("item__position", "position").first()
    if target is not None and reviewer is not None:
        from annotation.knowledge.services.knowledge import CaseContent, create_case

        create_case(
            author=reviewer,
            criterion=target,
            content=CaseContent(
                title="只复述事实，不算表达理解",
                excerpt="（虚构的回复）你说你已经连续加班三个月了。",
                hit=False,
                reasoning="回复只重复了用户说的事实，没有回应其中的感受（疲惫、委屈），所以不算表达理解和体谅。",
                tags=["demo", "共情"],
            ),
            publish=True,
        )
    # One more waits in the review queue, as a writer's would.
    waiting = create_faq_entry(
        author=author,
        dataset=version.dataset,
        content=FaqContent(question="回复用了网络流行语，算“言语表达”问题吗？", answer="视语境而定：待审阅。", tags=["言语表达"]),
    )
    submit_faq_entry(entry=waiting, author=author)
    context.log.append(
        f"annotation: dataset guidelines r1, {written} published FAQ entries, 1 waiting for review, 1 case written from scratch"
    )


def _gold_file(version: DatasetVersion, picks: list[tuple[str, str]]) -> io.BytesIO:
    """Reference verdicts for the fictional models' canned answers: a rule, stated in each explanation."""
    lines = []
    items = {i.question_id: i for i in version.items.filter(question_id__in={q for q, _ in picks}).prefetch_related("criteria")}
    for qid, model in picks:
        labels = []
        for c in items[qid].criteria.all():
            advice_list = "borealis" in model
            if c.catastrophic:
                hit = False
            elif c.weight is not None and c.weight < 0:
                hit = advice_list
            else:
                hit = not advice_list
            labels.append(
                {
                    "position": c.position,
                    "hit": hit,
                    "explanation": "Synthetic demo reference: "
                    + (
                        "this answer lists advice without exploring the user's feelings."
                        if advice_list
                        else "this answer reflects and explores the user's feelings."
                    ),
                }
            )
        lines.append(json.dumps({"question_id": qid, "model": model, "labels": labels}, ensure_ascii=False))
    f = io.BytesIO(("\n".join(lines) + "\n").encode())
    f.name = "synthetic-demo-gold.jsonl"
    return f
