"""Demo data of campaign management: expert profiles, a calibration set, a gold set and a blind-test campaign.

The reference verdicts of the calibration and gold sets are synthetic (derived from each
criterion's sign for the fictional models' canned answers) and say so in every explanation. The
gold set is disjoint from the calibration set and holds every model's answer to its questions, so
the blind test's hidden gold checks look like any other response. Idempotent.
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
# Questions whose answers become gold checks: on the demo items, those left out of the blind test's sample.
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
            # On the 6 demo items, 4 are sampled; the gold set's answers to the other questions are the gold checks.
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
            f"(about {GOLD_RATE:.0%} of each queue, at random positions), k=3, "
            f"{outcome.eligible_experts} eligible experts (expert4 must pass {CALIBRATION!r} first)"
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
