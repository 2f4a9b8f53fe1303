"""A realistic blind test with hidden gold checks, and the attacks an expert can run on what they see.

The campaign is on the released HeartBench items (296, with the demo's three fictional models'
synthetic answers), like `seed_demo --heartbench`: a gold set holding every model's answer to
some questions, a blind test sampling a share of the items with a gold rate. What an expert sees
is what the assignment API gives them: each assignment's `question_id`, in the order received.
"""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from dataclasses import dataclass

from django.utils import timezone

from annotation.models import Assignment, Campaign
from annotation.services.assignment import assign_next_response
from annotation.services.campaigns import create_campaign, create_gold_set, stratified_sample
from heartbench_core.models import DatasetVersion, ModelResponse
from tests.annotation.manage.helpers import gold_file, qualify
from tests.conftest import heartbench_file

MODELS = ("demo-model-aurora", "demo-model-borealis", "demo-model-cirrus")
DEFAULT_SEEDS = range(0, 101)


def heartbench_version() -> DatasetVersion:
    """The released items with the three fictional models' synthetic answers to every one."""
    from heartbench_core.demo import _import_synthetic
    from heartbench_core.services.datasets import import_heartbench

    version = import_heartbench(source=heartbench_file(), dataset_name="heartbench").version
    for model in MODELS:
        _import_synthetic(version, model)
    return version


def heartbench_gold_set(version: DatasetVersion, *, questions: int = 60) -> Campaign:
    """A gold set holding every model's answer to `questions` questions drawn with a fixed generator."""
    chosen = random.Random(7).sample(sorted(version.items.values_list("question_id", flat=True)), questions)
    picks = [(qid, model) for qid in sorted(chosen) for model in MODELS]
    return create_gold_set(name="HeartBench gold", dataset_name="heartbench", source=gold_file(version, picks=picks)).campaign


def heartbench_blind_test(experts, *, overlap: int, sample: float = 0.4, gold_rate: float = 0.1, **kwargs) -> Campaign:
    """A blind test on the released items with hidden gold checks; `seed` as the admin gave it (default: none given)."""
    version = DatasetVersion.objects.filter(dataset__name="heartbench").first() or heartbench_version()
    pool = Campaign.objects.filter(name="HeartBench gold").first() or heartbench_gold_set(version)
    qualify(*experts)
    return create_campaign(
        name=kwargs.pop("name", "HeartBench blind test"),
        dataset_name="heartbench",
        model_names=list(MODELS),
        sample_fraction=sample,
        overlap=overlap,
        gold_source=pool,
        gold_rate=gold_rate,
        expert_usernames=[e.username for e in experts],
        **kwargs,
    ).campaign


def public_strata(version: DatasetVersion) -> dict[tuple, list[int]]:
    """The strata `create_campaign` samples from, rebuilt from public data (difficulty and scene of each released item)."""
    strata: dict[tuple, list[int]] = defaultdict(list)
    for pk, diff, scene in version.items.values_list("pk", "difficulty", "primary_scene"):
        strata[(diff, scene)].append(pk)
    return strata


@dataclass(frozen=True)
class Guess:
    """Responses an attacker flags as gold, judged against the truth."""

    flagged: int
    right: int
    base_rate: float  # the share of gold among the responses they chose from: what guessing blindly scores
    population: int  # how many responses they chose from

    @property
    def precision(self) -> float:
        return self.right / self.flagged if self.flagged else 0.0


def score(flagged: set[int], gold: set[int], population: set[int]) -> Guess:
    return Guess(len(flagged), len(flagged & gold), len(gold & population) / len(population), len(population))


def rerun_sampler(campaign: Campaign, seen: dict[int, int], seeds) -> Guess:
    """Rerun the public sampler with each seed, keep the one whose sample best explains the items seen, flag the rest as gold.

    `seen` maps each response the attacker judged to its item. On the old code, gold checks came
    only from items outside the sample, and the sample was `stratified_sample(strata, fraction, seed)`.
    """
    strata = public_strata(campaign.version)
    items = set(seen.values())
    best = max(seeds, key=lambda s: len(items & set(stratified_sample(strata, campaign.sample_fraction, s))))
    sample = set(stratified_sample(strata, campaign.sample_fraction, best))
    flagged = {cr for cr, item in seen.items() if item not in sample}
    gold = set(campaign.responses.filter(is_gold=True).values_list("pk", flat=True))
    return score(flagged, gold, set(seen))


def work_through(campaign: Campaign, experts) -> dict[int, list[tuple[int, int, bool]]]:
    """Every expert pulls in turn and judges until nothing is left for anybody: {expert: [(response, item, gold)] in order}."""
    received: dict[int, list[tuple[int, int, bool]]] = {e.pk: [] for e in experts}
    active = list(experts)
    while active:
        for expert in list(active):
            pulled = assign_next_response(expert=expert, campaign=campaign)
            if pulled is None:
                active.remove(expert)
                continue
            cr = pulled.campaign_response
            received[expert.pk].append((cr.pk, cr.item_id, cr.is_gold))
            # Submitted as the judging page would leave it (the verdicts themselves play no part here).
            Assignment.objects.filter(pk=pulled.pk).update(status=Assignment.Status.SUBMITTED, submitted_at=timezone.now())
    return received


def item_counts(work: list[tuple[int, int, bool]]) -> Counter:
    """What one expert can count: how often they met each item."""
    return Counter(item for _cr, item, _gold in work)


def flag_items(work: list[tuple[int, int, bool]], items: set[int]) -> Guess:
    """Flag as gold every response the expert met on these items, judged against the truth.

    Judged per response, as the attacker wants to know which of their responses were gold: one
    who met an item twice is more likely to have met a gold check on it, but no more likely that
    either of the two was one.
    """
    flagged = {cr for cr, item, _gold in work if item in items}
    gold = {cr for cr, _item, is_gold in work if is_gold}
    return score(flagged, gold, {cr for cr, _item, _gold in work})


def responses_per_item(campaign: Campaign) -> Counter:
    """How many responses each item of the campaign carries."""
    return Counter(campaign.responses.values_list("item_id", flat=True))


def answers_per_item(campaign: Campaign) -> Counter:
    """How many of the campaign's models answer each item of its version."""
    items = dict(campaign.version.items.values_list("question_id", "pk"))
    return Counter(
        items[qid]
        for qid in ModelResponse.objects.filter(dataset=campaign.version.dataset, model__in=campaign.language_models.all()).values_list(
            "question_id", flat=True
        )
        if qid in items
    )
