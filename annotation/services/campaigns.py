"""Creating campaigns: blind tests sampled from a dataset version; calibration sets and gold sets with gold labels.

Gold sets and calibration sets are kept disjoint: an expert sees the gold verdict of every
calibration response they missed, so a hidden gold check drawn from a calibration set would be
recognised (same question, byte-identical text) and its whole gold vector known.

A blind test's hidden gold checks sit in its sample, each in place of one chosen model's answer
to its question: every sampled item carries one response per chosen model that answers it, gold
or not. Neither membership of the sample (drawn with the server's key, `sampling`) nor how often
an item comes round tells an expert which responses are gold.
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import IO, Any, TypeAlias

import numpy as np
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.db.models import Q
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from annotation.knowledge.services.quotes import fingerprint_soon
from annotation.models import (
    Campaign,
    CampaignResponse,
    CampaignSettings,
    ExpertProfile,
    GoldLabel,
    Qualification,
)
from annotation.services.assignment import admits
from annotation.services.sampling import MAX_SEED, keyed_seed, new_seed
from annotation.services.split_extension import option_errors
from heartbench_core.blindness import record_exposures
from heartbench_core.jsonl import ErrorCollector
from heartbench_core.lib.jsonl import read_jsonl, source_name, type_name
from heartbench_core.models import Criterion, DatasetVersion, LanguageModel, ModelResponse, User
from heartbench_core.roles import Role, has_role
from heartbench_core.services.datasets import get_version

# A gold-labelled response: (response, item, [(criterion, hit, explanation)]).
GoldRow: TypeAlias = tuple[int, int, list[tuple[int, bool, str]]]
# Where gold labels are read from: a path, or an open text or binary file.
GoldSource: TypeAlias = str | Path | IO[str] | IO[bytes]


@dataclass(frozen=True)
class CampaignOutcome:
    campaign: Campaign
    responses: int  # every response of the campaign, its hidden gold checks included
    gold: int
    items: int
    eligible_experts: int


def stratum_quotas(strata: dict[tuple, list[int]], fraction: float, seed: int) -> dict[tuple, int]:
    """How many ids `stratified_sample` takes from each stratum for this fraction and seed."""
    return _quotas(strata, fraction, np.random.default_rng(seed))


def _quotas(strata: dict[tuple, list[int]], fraction: float, rng: np.random.Generator) -> dict[tuple, int]:
    keys = sorted(strata, key=repr)
    sizes = np.array([len(strata[k]) for k in keys], dtype=float)
    total = round(fraction * sizes.sum())
    exact = sizes * fraction
    quota = np.floor(exact).astype(int)
    short = total - int(quota.sum())
    if short > 0:
        remainders = exact - quota
        order = np.lexsort((rng.random(len(keys)), -remainders))
        for idx in order[:short]:
            quota[idx] += 1
    return {key: int(n) for key, n in zip(keys, quota)}


def stratified_sample(strata: dict[tuple, list[int]], fraction: float, seed: int, forced: Collection[int] = ()) -> list[int]:
    """Pick round(fraction × N) ids, allotted to strata by largest remainder, deterministic for a seed.

    Every stratum gets floor(fraction × size); the remaining picks go to the strata with the
    largest fractional parts (ties broken by the seeded generator), so each difficulty × scene
    cell keeps its share of the whole. The `forced` ids (the items of hidden gold checks) are
    taken first and count in their stratum's allotment; the generator fills the rest of it. A
    stratum given more forced ids than its allotment, or a forced id in no stratum, is a ValueError.
    """
    rng = np.random.default_rng(seed)
    quota = _quotas(strata, fraction, rng)
    must = set(forced)
    picked: list[int] = []
    for key, n in quota.items():
        ids = sorted(strata[key])
        fixed = [i for i in ids if i in must]
        if len(fixed) > n:
            raise ValueError(f"{len(fixed)} forced ids in stratum {key!r}, whose allotment is {n}")
        must.difference_update(fixed)
        picked.extend(fixed)
        rest = [i for i in ids if i not in fixed] if fixed else ids
        if n - len(fixed) > 0:
            picked.extend(int(i) for i in rng.choice(rest, size=min(n - len(fixed), len(rest)), replace=False))
    if must:
        raise ValueError(f"forced ids in no stratum: {sorted(must)}")
    return sorted(picked)


def eligible_experts(pool: list[User], *, requires_qualification: bool, per_dimension: bool = False) -> list[User]:
    """Experts of the pool who can take work now: expert role, active account and availability, qualified if required.

    Qualified as serving decides (`assignment.admits`): the general qualification, or, when the campaign
    qualifies per dimension, one of a dimension.
    """
    ids = [u.pk for u in pool if u.is_active and has_role(u, Role.EXPERT)]
    inactive = set(
        ExpertProfile.objects.filter(user_id__in=ids)
        .exclude(availability=ExpertProfile.Availability.ACTIVE)
        .values_list("user_id", flat=True)
    )
    ids = [i for i in ids if i not in inactive]
    if requires_qualification:
        held: dict[int, set[str]] = defaultdict(set)
        for expert_id, dimension in Qualification.objects.filter(expert_id__in=ids).values_list("expert_id", "dimension"):
            held[expert_id].add(dimension)
        ids = [i for i in ids if admits(held[i], per_dimension=per_dimension)]
    return [u for u in pool if u.pk in set(ids)]


def resolve_expert_pool(usernames: list[str] | None) -> list[User]:
    """The named experts, or every active user with the expert role; errors name unknown or non-expert users."""
    if not usernames:
        return list(User.objects.filter(is_active=True, groups__name=Role.EXPERT.value).distinct().order_by("username"))
    found = {u.username: u for u in User.objects.filter(username__in=usernames)}
    unknown = [n for n in usernames if n not in found]
    if unknown:
        raise ValidationError({"experts": _("unknown user(s): %(users)s") % {"users": ", ".join(sorted(unknown))}})
    not_experts = [n for n in usernames if not has_role(found[n], Role.EXPERT)]
    if not_experts:
        raise ValidationError({"experts": _("not expert(s): %(users)s (they lack the expert role)") % {"users": ", ".join(not_experts)}})
    return [found[n] for n in dict.fromkeys(usernames)]


def _resolve_models(version: DatasetVersion, model_names: list[str]) -> list[LanguageModel]:
    names = [n.strip() for n in model_names if n and n.strip()]
    if not names:
        raise ValidationError({"models": _("name at least one model")})
    found = {m.name: m for m in LanguageModel.objects.filter(name__in=names)}
    unknown = [n for n in names if n not in found]
    if unknown:
        known = ", ".join(LanguageModel.objects.order_by("name").values_list("name", flat=True)[:20]) or _("none")
        raise ValidationError(
            {"models": _("unknown model(s): %(models)s (known: %(known)s)") % {"models": ", ".join(unknown), "known": known}}
        )
    without = [n for n in names if not ModelResponse.objects.filter(dataset=version.dataset, model=found[n]).exists()]
    if without:
        raise ValidationError(
            {
                "models": _("no responses to dataset %(dataset)r from: %(models)s")
                % {"dataset": version.dataset.name, "models": ", ".join(without)}
            }
        )
    return [found[n] for n in dict.fromkeys(names)]


def create_campaign(
    *,
    name: str,
    dataset_name: str,
    model_names: list[str],
    version_label: str | None = None,
    sample_fraction: float = 0.4,
    overlap: int = 3,
    seed: int | None = None,
    reservation_timeout: timedelta = timedelta(hours=2),
    expert_usernames: list[str] | None = None,
    requires_qualification: bool = True,
    qualification_per_dimension: bool = False,
    gold_source: Campaign | None = None,
    gold_rate: float = 0.0,
    min_tier_for_hard: int = 1,
    piece_rate: Decimal | float = 0,
    rationale_min_chars: int = 10,
    show_weights: bool = False,
    deadline: datetime | None = None,
    certificate_name: str = "",
    split_extension: bool = False,
    split_extension_budget: int = 0,
    split_extension_min_share: float = 0.5,
    created_by: User | None = None,
) -> CampaignOutcome:
    """Create a blind-test campaign: a stratified sample of items × the chosen models' responses; atomic.

    `split_extension` (off by default) offers a response whose k verdicts split on at least
    `split_extension_min_share` of its criteria to two more experts, within `split_extension_budget`
    extra assignments (`annotation.services.split_extension`).

    `seed` None draws a random one. The sample, the hidden gold checks and the order are drawn from
    seeds derived from it with the server's sampling key (`annotation.services.sampling`).
    """
    name = (name or "").strip()
    seed = new_seed() if seed is None else seed
    errors = _creation_errors(name, seed, sample_fraction, overlap, gold_rate, reservation_timeout, gold_source)
    errors.update(_settings_errors({"deadline": deadline, "certificate_name": certificate_name}))
    errors.update(option_errors(enabled=split_extension, budget=split_extension_budget, min_share=split_extension_min_share))
    if errors:
        raise ValidationError(errors)
    version = get_version(dataset_name, version_label)
    models = _resolve_models(version, model_names)
    pool, eligible = _pool_for(expert_usernames, overlap, requires_qualification, qualification_per_dimension)
    rows, sampled = _sample(version, models, seed=seed, fraction=sample_fraction, gold_rate=gold_rate, gold_source=gold_source)
    order = np.random.default_rng(keyed_seed(seed, "order")).permutation(len(rows))
    with transaction.atomic():
        campaign = Campaign.objects.create(
            name=name,
            kind=Campaign.Kind.BLIND_TEST,
            version=version,
            sample_fraction=sample_fraction,
            overlap=overlap,
            seed=seed,
            reservation_timeout=reservation_timeout,
            gold_rate=gold_rate,
            min_tier_for_hard=min_tier_for_hard,
            piece_rate=Decimal(str(piece_rate)),
            rationale_min_chars=rationale_min_chars,
            show_weights=show_weights,
            deadline=deadline,
            created_by=created_by,
        )
        campaign.language_models.set(models)
        campaign.experts.set(pool)
        CampaignSettings.objects.create(
            campaign=campaign,
            requires_qualification=requires_qualification,
            qualification_per_dimension=qualification_per_dimension,
            gold_source=gold_source,
            certificate_name=certificate_name.strip(),
            split_extension=split_extension,
            split_extension_budget=split_extension_budget,
            split_extension_min_share=float(split_extension_min_share),
        )
        _write_sample(campaign, rows, order)
    gold_count = sum(gold is not None for _resp, _item, gold in rows)
    return CampaignOutcome(campaign, len(rows), gold_count, len(sampled), len(eligible))


def _creation_errors(
    name: str,
    seed: Any,
    sample_fraction: float,
    overlap: int,
    gold_rate: float,
    reservation_timeout: timedelta,
    gold_source: Campaign | None,
) -> dict[str, str]:
    """What is wrong with a new campaign's own settings, per field."""
    errors: dict[str, str] = {}
    if isinstance(seed, bool) or not isinstance(seed, int) or not (0 <= seed <= MAX_SEED):
        errors["seed"] = _("must be a whole number from 0 to %(max)d, or empty for a random one") % {"max": MAX_SEED}
    if not name:
        errors["name"] = _("a campaign needs a name")
    elif Campaign.objects.filter(name=name).exists():
        errors["name"] = _("a campaign named %(name)r already exists") % {"name": name}
    if not (0 < sample_fraction <= 1):
        errors["sample_fraction"] = _("must be in (0, 1], not %(value)s") % {"value": sample_fraction}
    if overlap < 1:
        errors["overlap"] = _("k must be at least 1, not %(value)s") % {"value": overlap}
    if not (0 <= gold_rate < 1):
        errors["gold_rate"] = _("must be in [0, 1), not %(value)s") % {"value": gold_rate}
    if reservation_timeout <= timedelta(0):
        errors["reservation_timeout"] = _("must be positive")
    if gold_rate > 0 and gold_source is None:
        errors["gold_source"] = _("a gold rate needs a gold set to draw hidden gold checks from")
    return errors


def _pool_for(
    usernames: list[str] | None, overlap: int, requires_qualification: bool, per_dimension: bool
) -> tuple[list[User], list[User]]:
    """The campaign's expert pool and those of it eligible to work; ValidationError when they are fewer than k."""
    pool = resolve_expert_pool(usernames)
    if not pool:
        raise ValidationError({"experts": _("the expert pool is empty: no active user holds the expert role")})
    eligible = eligible_experts(pool, requires_qualification=requires_qualification, per_dimension=per_dimension)
    if overlap > len(eligible):
        why = _("active and qualified") if requires_qualification else _("active")
        raise ValidationError(
            {
                "overlap": _(
                    "k=%(overlap)d is larger than the number of eligible experts: %(eligible)d of the %(pool)d in the pool are %(why)s"
                )
                % {"overlap": overlap, "eligible": len(eligible), "pool": len(pool), "why": why}
            }
        )
    return pool, eligible


def _sample(
    version: DatasetVersion,
    models: list[LanguageModel],
    *,
    seed: int,
    fraction: float,
    gold_rate: float,
    gold_source: Campaign | None,
) -> tuple[list[tuple[int, int, GoldRow | None]], list[int]]:
    """The campaign's rows (response, item, gold row or None) and its sampled items: a stratified sample, gold checks placed in it."""
    gold_rows = _gold_rows(gold_source, version) if gold_source is not None else []
    strata: dict[tuple, list[int]] = defaultdict(list)
    stratum_of: dict[int, tuple] = {}
    for pk, diff, scene in version.items.values_list("pk", "difficulty", "primary_scene"):
        strata[(diff, scene)].append(pk)
        stratum_of[pk] = (diff, scene)
    answers = _answers(version, models)
    sample_seed = keyed_seed(seed, "sample")
    quotas = stratum_quotas(strata, fraction, sample_seed)
    placed: dict[int, dict[int, GoldRow]] = {}
    if gold_rate > 0 and gold_source is not None:
        # The share of the campaign's responses that are gold is the share of gold in each expert's work:
        # gold checks are served exactly like ordinary work, k experts each.
        expected = sum(quotas[key] * sum(len(answers.get(i, [])) for i in ids) / len(ids) for key, ids in strata.items())
        wanted = max(1, round(gold_rate * expected))
        placed = _place_gold(gold_rows, answers, stratum_of, quotas, wanted=wanted, seed=keyed_seed(seed, "gold"))
        if not placed:
            raise ValidationError(
                {
                    "gold_source": _(
                        "none of %(name)r's responses can be a hidden gold check: a gold check takes the place of one of the "
                        "chosen models' answers to its question, so another chosen model must answer that question too"
                    )
                    % {"name": gold_source.name}
                }
            )
    sampled_items = stratified_sample(strata, fraction, sample_seed, forced=placed.keys())
    # Every sampled item carries one response per chosen model that answers it; on a gold item some
    # of them are gold checks in place of that model's answer, so neither whether an item is in the
    # sample nor how often it comes round tells a gold check.
    rows: list[tuple[int, int, GoldRow | None]] = []
    for item in sampled_items:
        instead = placed.get(item, {})
        for resp in answers.get(item, []):
            gold = instead.get(resp)
            rows.append((gold[0], item, gold) if gold is not None else (resp, item, None))
    if not rows:
        raise ValidationError({"models": _("the sample holds no response of the chosen models")})
    return rows, sampled_items


def _write_sample(campaign: Campaign, rows: list[tuple[int, int, GoldRow | None]], order: Any) -> None:
    """The campaign's responses in their drawn order, and the gold labels of its hidden gold checks."""
    created = CampaignResponse.objects.bulk_create(
        [
            CampaignResponse(campaign=campaign, response_id=resp, item_id=item, is_gold=gold is not None, order_key=int(order[i]))
            for i, (resp, item, gold) in enumerate(rows)
        ],
        batch_size=1000,
    )
    labels = [
        GoldLabel(campaign_response=cr, criterion_id=crit, hit=hit, explanation=expl)
        for cr, (_resp, _item, gold) in zip(created, rows)
        if gold is not None
        for crit, hit, expl in gold[2]
    ]
    GoldLabel.objects.bulk_create(labels, batch_size=1000)
    fingerprint_soon()  # the library's quote check reads them (annotation.knowledge.services.quotes)


def _answers(version: DatasetVersion, models: list[LanguageModel]) -> dict[int, list[int]]:
    """Per item of the version, the chosen models' responses to it (by model name)."""
    items = dict(version.items.values_list("question_id", "pk"))
    out: dict[int, list[int]] = defaultdict(list)
    for pk, qid in (
        ModelResponse.objects.filter(dataset=version.dataset, model__in=models)
        .order_by("question_id", "model__name")
        .values_list("pk", "question_id")
    ):
        if qid in items:
            out[items[qid]].append(pk)
    return dict(out)


def _place_gold(
    gold_rows: list[GoldRow],
    answers: dict[int, list[int]],
    stratum_of: dict[int, tuple],
    quotas: dict[tuple, int],
    *,
    wanted: int,
    seed: int,
) -> dict[int, dict[int, GoldRow]]:
    """Up to `wanted` gold checks, each in place of one chosen model's answer to its item: {item: {answer replaced: gold row}}.

    Gold responses are taken in a keyed order. A gold response that is itself one of the chosen
    models' answers simply stays in its place, held as gold; another takes the place of an answer
    with the same text if there is one (it must never sit beside a word-for-word copy of itself),
    else of an answer drawn by the keyed generator. Each gold item keeps at least one ordinary
    answer, and a stratum takes no more gold items than the sample's allotment for it.
    """
    rng = np.random.default_rng(seed)
    gold_ids = {g[0] for g in gold_rows}
    texts = dict(
        ModelResponse.objects.filter(pk__in=gold_ids | {r for g in gold_rows for r in answers.get(g[1], [])}).values_list("pk", "text")
    )
    room = dict(quotas)
    placed: dict[int, dict[int, GoldRow]] = defaultdict(dict)
    count = 0
    for idx in rng.permutation(len(gold_rows)):
        if count >= wanted:
            break
        gold = gold_rows[int(idx)]
        resp, item = gold[0], gold[1]
        here = placed[item]
        own = answers.get(item, [])
        if len(here) >= len(own) - 1 or (not here and room.get(stratum_of.get(item, ()), 0) <= 0):
            continue
        if any(texts[g[0]] == texts[resp] for g in here.values()) or any(g[0] == resp for g in here.values()):
            continue
        free = [a for a in own if a not in here]
        same = [a for a in free if a == resp or texts[a] == texts[resp]]
        if len(same) > 1 or (resp in own and resp not in free):
            continue  # two answers with its text, or its own place is taken: it would be seen twice
        if same:
            target = same[0]
        else:
            plain = [a for a in free if a not in gold_ids] or free
            target = plain[int(rng.integers(len(plain)))]
        if not here:
            room[stratum_of[item]] -= 1
        here[target] = gold
        count += 1
    return {item: here for item, here in placed.items() if here}


def _gold_rows(source: Campaign, version: DatasetVersion) -> list[GoldRow]:
    """(response, item, [(criterion, hit, explanation)]) of a gold set on the same version, disjoint from every calibration set."""
    if source.kind == Campaign.Kind.CALIBRATION:
        raise ValidationError(
            {
                "gold_source": _(
                    "%(name)r is a calibration set: hidden gold checks come from a gold set of their own, never from "
                    "calibration responses, whose gold verdicts experts see in their feedback"
                )
                % {"name": source.name}
            }
        )
    if source.kind != Campaign.Kind.GOLD_SET:
        raise ValidationError({"gold_source": _("%(name)r is not a gold set") % {"name": source.name}})
    if source.version_id != version.pk:
        raise ValidationError(
            {"gold_source": _("%(name)r is on %(on)s, not %(version)s") % {"name": source.name, "on": source.version, "version": version}}
        )
    labels: dict[int, list[tuple[int, bool, str]]] = defaultdict(list)
    for cr_id, crit, hit, expl in GoldLabel.objects.filter(campaign_response__campaign=source).values_list(
        "campaign_response_id", "criterion_id", "hit", "explanation"
    ):
        labels[cr_id].append((crit, hit, expl))
    rows = [
        (resp, item, labels[cr_id])
        for cr_id, resp, item in CampaignResponse.objects.filter(campaign=source)
        .order_by("order_key")
        .values_list("pk", "response_id", "item_id")
        if labels[cr_id]
    ]
    _refuse_overlap([r[0] for r in rows], version=version, other=Campaign.Kind.CALIBRATION, field="gold_source", what=source.name)
    return rows


def gold_overlap(response_ids: list[int], *, version: DatasetVersion, other: str) -> dict[tuple[str, str], int]:
    """Campaigns on the version's dataset sharing a response with these: {(kind, name): responses shared}.

    `other` is CALIBRATION (calibration sets) or GOLD_SET (gold sets, and the hidden gold checks
    blind tests copied from them, which outlive their gold set). Shared means the same
    ModelResponse, or byte-identical text to the same question (a re-imported or duplicated
    answer is recognised as easily as the original).
    """
    shared: dict[tuple[str, str], set[tuple[str, str]]] = defaultdict(set)
    for _response, key, holder in _labelled_matches(response_ids, dataset_id=version.dataset_id, kinds=(other,)):
        shared[holder].add(key)
    return {key: len(v) for key, v in sorted(shared.items())}


def labelled_holders(response_ids: Collection[int], *, dataset_id: int) -> dict[int, list[tuple[str, str]]]:
    """Which gold sets, hidden gold checks and calibration sets hold each response: {response: [(kind, name)]}.

    A response none of them holds (by the same ModelResponse or the same text to the same question)
    is free: it may go into a new gold set or calibration set.
    """
    holders: dict[int, set[tuple[str, str]]] = defaultdict(set)
    for response, _key, holder in _labelled_matches(
        response_ids, dataset_id=dataset_id, kinds=(Campaign.Kind.CALIBRATION, Campaign.Kind.GOLD_SET)
    ):
        holders[response].add(holder)
    return {response: sorted(h) for response, h in holders.items()}


def _labelled_matches(
    response_ids: Collection[int], *, dataset_id: int, kinds: Collection[str]
) -> list[tuple[int, tuple[str, str], tuple[str, str]]]:
    """(response given, its (question, text), (kind, name) of the campaign holding it) for every labelled match on the dataset."""
    mine = list(ModelResponse.objects.filter(pk__in=list(response_ids)).values_list("pk", "question_id", "text"))
    if not mine:
        return []
    by_id = {pk: (qid, text) for pk, qid, text in mine}
    by_text: dict[tuple[str, str], list[int]] = defaultdict(list)
    for pk, qid, text in mine:
        by_text[(qid, text)].append(pk)
    scope = Q(pk__in=[])
    if Campaign.Kind.CALIBRATION in kinds:
        scope |= Q(campaign__kind=Campaign.Kind.CALIBRATION)
    if Campaign.Kind.GOLD_SET in kinds:
        scope |= Q(is_gold=True)
    out: list[tuple[int, tuple[str, str], tuple[str, str]]] = []
    for kind, name, resp, qid, text in (
        CampaignResponse.objects.filter(scope, campaign__version__dataset_id=dataset_id)
        .filter(Q(response_id__in=list(by_id)) | Q(response__question_id__in={q for q, _text in by_id.values()}))
        .values_list("campaign__kind", "campaign__name", "response_id", "response__question_id", "response__text")
    ):
        matched = set(by_text.get((qid, text), ()))
        if resp in by_id:
            matched.add(resp)
        out.extend((pk, by_id[pk], (kind, name)) for pk in matched)
    return out


def _refuse_overlap(response_ids: list[int], *, version: DatasetVersion, other: str, field: str, what: str) -> None:
    overlap = gold_overlap(response_ids, version=version, other=other)
    if not overlap:
        return
    labels: dict[str, str] = {
        Campaign.Kind.CALIBRATION: _("calibration set %(name)r"),
        Campaign.Kind.GOLD_SET: _("gold set %(name)r"),
        Campaign.Kind.BLIND_TEST: _("the hidden gold checks of campaign %(name)r"),
    }
    parts = ", ".join(_("%(n)d with %(set)s") % {"n": n, "set": labels[kind] % {"name": name}} for (kind, name), n in overlap.items())
    kind = _("calibration set") if other == Campaign.Kind.CALIBRATION else _("gold set")
    raise ValidationError(
        {
            field: _(
                "%(what)s shares responses (the same response, or the same text to the same question) with a %(kind)s: %(parts)s. "
                "Gold checks and calibration responses must be disjoint, or calibration feedback reveals the hidden gold checks."
            )
            % {"what": what, "kind": kind, "parts": parts}
        }
    )


# --- calibration sets ---------------------------------------------------------------------------


def parse_gold_file(source: GoldSource, *, version: DatasetVersion, name: str | None = None) -> list[GoldRow]:
    """Read gold labels: one line per response, `{"question_id", "model", "labels": [{"position", "hit", "explanation"?}]}`."""
    errors = ErrorCollector(name or source_name(source))
    items = {qid: pk for pk, qid in version.items.values_list("pk", "question_id")}
    criteria: dict[int, dict[int, int]] = defaultdict(dict)
    for item_id, position, pk in Criterion.objects.filter(item__version=version).values_list("item_id", "position", "pk"):
        criteria[item_id][position] = pk
    responses = {
        (qid, model): pk
        for pk, qid, model in ModelResponse.objects.filter(dataset=version.dataset).values_list("pk", "question_id", "model__name")
    }
    out: list[GoldRow] = []
    seen: dict[tuple[str, str], int] = {}
    for line, record in read_jsonl(source, errors):
        qid, model, labels = record.get("question_id"), record.get("model"), record.get("labels")
        if not isinstance(qid, str):
            errors.add(line, "question_id", "missing key" if qid is None else f"must be a string, found {type_name(qid)}")
            continue
        if qid not in items:
            errors.add(line, "question_id", f"unknown question_id {qid!r} in {version}")
            continue
        if not isinstance(model, str):
            errors.add(line, "model", "missing key" if model is None else f"must be a string, found {type_name(model)}")
            continue
        if (qid, model) not in responses:
            errors.add(line, "model", f"no response of model {model!r} to {qid!r}")
            continue
        if (qid, model) in seen:
            errors.add(line, "question_id", f"duplicate response {qid!r}/{model!r} (first on line {seen[(qid, model)]})")
            continue
        seen[(qid, model)] = line
        if not isinstance(labels, list) or not labels:
            errors.add(line, "labels", "must be a non-empty list of {position, hit}")
            continue
        rows: list[tuple[int, bool, str]] = []
        positions: set[int] = set()
        bad = False
        for i, label in enumerate(labels):
            field = f"labels[{i}]"
            if not isinstance(label, dict):
                errors.add(line, field, f"must be an object, found {type_name(label)}")
                bad = True
                continue
            # JSON values, each checked below before it is used.
            pos: Any = label.get("position")
            hit: Any = label.get("hit")
            expl: Any = label.get("explanation", "")
            if not isinstance(pos, int) or isinstance(pos, bool) or pos not in criteria[items[qid]]:
                errors.add(line, f"{field}.position", f"no criterion at position {pos!r} of {qid!r} (it has {len(criteria[items[qid]])})")
                bad = True
            elif pos in positions:
                errors.add(line, f"{field}.position", f"position {pos} labelled twice")
                bad = True
            if not isinstance(hit, bool):
                errors.add(line, f"{field}.hit", f"must be true or false, found {type_name(hit)}")
                bad = True
            if not isinstance(expl, str):
                errors.add(line, f"{field}.explanation", f"must be a string, found {type_name(expl)}")
                bad = True
            if not bad:
                positions.add(pos)
                rows.append((criteria[items[qid]][pos], hit, expl))
        if not bad:
            out.append((responses[(qid, model)], items[qid], rows))
    if not out and not errors:
        errors.add(None, None, "the file holds no gold labels")
    errors.raise_if_any()
    return out


def create_calibration(
    *,
    name: str,
    dataset_name: str,
    source: GoldSource | None = None,
    labels: list[GoldRow] | None = None,
    version_label: str | None = None,
    pass_threshold: float = 0.8,
    retake_cooldown: timedelta = timedelta(days=1),
    max_attempts: int = 2,
    sitting_size: int | None = None,
    expert_usernames: list[str] | None = None,
    file_name: str | None = None,
    created_by: User | None = None,
) -> CampaignOutcome:
    """Create a calibration set from a gold-label file or from `labels` built on a page: each attempt is a sitting of `sitting_size` responses.

    `sitting_size` None: all. An expert may make `max_attempts` attempts, each after `retake_cooldown` from the last;
    a file sharing a response with a gold set is refused (calibration feedback shows gold verdicts).
    """
    name = (name or "").strip()
    errors: dict[str, str] = {}
    if not name:
        errors["name"] = _("a calibration needs a name")
    elif Campaign.objects.filter(name=name).exists():
        errors["name"] = _("a campaign named %(name)r already exists") % {"name": name}
    if not (0 < pass_threshold <= 1):
        errors["pass_threshold"] = _("must be in (0, 1], not %(value)s") % {"value": pass_threshold}
    if retake_cooldown < timedelta(0):
        errors["retake_cooldown"] = _("must not be negative")
    if not isinstance(max_attempts, int) or max_attempts < 1:
        errors["max_attempts"] = _("must be at least 1, not %(value)s") % {"value": max_attempts}
    if sitting_size is not None and sitting_size < 1:
        errors["sitting_size"] = _("must be at least 1 (or empty for the whole set), not %(value)s") % {"value": sitting_size}
    if errors:
        raise ValidationError(errors)
    version = get_version(dataset_name, version_label)
    gold = _gold_of(source, labels, version=version, file_name=file_name)
    if sitting_size is not None and sitting_size > len(gold):
        raise ValidationError(
            {"sitting_size": _("a sitting of %(size)d is larger than the set's %(n)d responses") % {"size": sitting_size, "n": len(gold)}}
        )
    what = _("The calibration file") if labels is None else _("The chosen responses")
    _refuse_overlap([g[0] for g in gold], version=version, other=Campaign.Kind.GOLD_SET, field="source", what=what)
    pool = resolve_expert_pool(expert_usernames)
    if not pool:
        raise ValidationError({"experts": _("the expert pool is empty: no active user holds the expert role")})
    with transaction.atomic():
        campaign = _labelled_set(
            name=name, kind=Campaign.Kind.CALIBRATION, version=version, gold=gold, pass_threshold=pass_threshold, created_by=created_by
        )
        campaign.experts.set(pool)
        CampaignSettings.objects.create(
            campaign=campaign,
            requires_qualification=False,
            retake_cooldown=retake_cooldown,
            max_attempts=max_attempts,
            sitting_size=sitting_size,
        )
    return CampaignOutcome(campaign, len(gold), len(gold), len({g[1] for g in gold}), len(pool))


def create_gold_set(
    *,
    name: str,
    dataset_name: str,
    source: GoldSource | None = None,
    labels: list[GoldRow] | None = None,
    version_label: str | None = None,
    file_name: str | None = None,
    created_by: User | None = None,
) -> CampaignOutcome:
    """Create a gold set (responses with known verdicts) that blind tests draw hidden gold checks from; nobody works in it.

    Same file format as a calibration set, or `labels` built on a page; responses shared with a calibration set are refused.
    """
    name = (name or "").strip()
    if not name:
        raise ValidationError({"name": _("a gold set needs a name")})
    if Campaign.objects.filter(name=name).exists():
        raise ValidationError({"name": _("a campaign named %(name)r already exists") % {"name": name}})
    version = get_version(dataset_name, version_label)
    gold = _gold_of(source, labels, version=version, file_name=file_name)
    what = _("The gold file") if labels is None else _("The chosen responses")
    _refuse_overlap([g[0] for g in gold], version=version, other=Campaign.Kind.CALIBRATION, field="source", what=what)
    with transaction.atomic():
        campaign = _labelled_set(name=name, kind=Campaign.Kind.GOLD_SET, version=version, gold=gold, created_by=created_by)
        CampaignSettings.objects.create(campaign=campaign, requires_qualification=False)
        if created_by is not None:
            # Whoever imports a gold set knows its answers: none of its checks may ever reach them blind.
            record_exposures(user=created_by, response_ids=[g[0] for g in gold], via="gold_set_import")
    return CampaignOutcome(campaign, len(gold), len(gold), len({g[1] for g in gold}), 0)


def _gold_of(source: GoldSource | None, labels: list[GoldRow] | None, *, version: DatasetVersion, file_name: str | None) -> list[GoldRow]:
    """The gold rows of a file, or the given rows checked against the version: one of the two, never both."""
    if (source is None) == (labels is None):
        raise ValidationError({"source": _("give either a gold file or chosen responses with their verdicts, not both or neither")})
    if source is not None:
        return parse_gold_file(source, version=version, name=file_name)
    assert labels is not None
    if not labels:
        raise ValidationError({"responses": _("choose at least one response")})
    responses = dict(
        ModelResponse.objects.filter(dataset_id=version.dataset_id, pk__in=[g[0] for g in labels]).values_list("pk", "question_id")
    )
    items = dict(version.items.filter(pk__in=[g[1] for g in labels]).values_list("pk", "question_id"))
    criteria: dict[int, set[int]] = defaultdict(set)
    for item_id, pk in Criterion.objects.filter(item_id__in=list(items)).values_list("item_id", "pk"):
        criteria[item_id].add(pk)
    seen: set[int] = set()
    for resp, item, rows in labels:
        if resp in seen:
            raise ValidationError({"responses": _("response %(id)d is chosen twice") % {"id": resp}})
        seen.add(resp)
        if item not in items or responses.get(resp) != items[item]:
            raise ValidationError(
                {"responses": _("response %(id)d does not answer a question of %(version)s") % {"id": resp, "version": version}}
            )
        labelled = [c for c, _hit, _expl in rows]
        if not rows or len(set(labelled)) != len(labelled) or not set(labelled) <= criteria[item]:
            raise ValidationError(
                {
                    "labels": _("the verdicts of response %(id)d are not one per criterion of %(question)s")
                    % {"id": resp, "question": items[item]}
                }
            )
    return labels


def _labelled_set(
    *, name: str, kind: str, version: DatasetVersion, gold: list[GoldRow], created_by: User | None, pass_threshold: float = 0.8
) -> Campaign:
    """A campaign holding the gold-labelled responses of a parsed file (inside the caller's transaction)."""
    order = np.random.default_rng(0).permutation(len(gold))
    campaign = Campaign.objects.create(
        name=name,
        kind=kind,
        version=version,
        sample_fraction=1.0,
        overlap=1,
        pass_threshold=pass_threshold,
        reservation_timeout=timedelta(days=1),
        created_by=created_by,
    )
    campaign.language_models.set(LanguageModel.objects.filter(responses__in=[g[0] for g in gold]).distinct())
    created = CampaignResponse.objects.bulk_create(
        [
            CampaignResponse(
                campaign=campaign, response_id=resp, item_id=item, is_gold=kind == Campaign.Kind.GOLD_SET, order_key=int(order[i])
            )
            for i, (resp, item, _rows) in enumerate(gold)
        ]
    )
    GoldLabel.objects.bulk_create(
        [
            GoldLabel(campaign_response=cr, criterion_id=c, hit=h, explanation=e)
            for cr, (_resp, _item, rows) in zip(created, gold)
            for c, h, e in rows
        ]
    )
    return campaign


STOPPING_STATUSES = (Campaign.Status.PAUSED, Campaign.Status.CLOSED)


def set_campaign_status(*, campaign: Campaign, status: str, reason: str = "", by: User | None = None) -> Campaign:
    """Open, pause or close a campaign; the reason of a pause or close is kept for its experts to read.

    Pausing or closing stops its pre-assigned work from being served (`assignment.work_stopped`),
    and work submitted meanwhile is paid as the quality policy says. Reactivating clears the reason.
    The change is recorded (who, when, from what, why) when `by` is given.
    """
    if status not in Campaign.Status.values:
        raise ValidationError(
            {"status": _("unknown status %(status)r (one of %(known)s)") % {"status": status, "known": ", ".join(Campaign.Status.values)}}
        )
    reason = (reason or "").strip()
    if len(reason) > STATUS_REASON_MAX_CHARS:
        raise ValidationError({"reason": _("at most %(n)d characters") % {"n": STATUS_REASON_MAX_CHARS}})
    with transaction.atomic():
        locked = Campaign.objects.select_for_update().get(pk=campaign.pk)
        before = locked.status
        stored_reason = reason if status in STOPPING_STATUSES else ""
        Campaign.objects.filter(pk=campaign.pk).update(status=status, status_reason=stored_reason)
        if by is not None and before != status:
            _record(
                campaign=locked,
                by=by,
                message=_("status: %(before)s → %(after)s") % {"before": before, "after": status}
                + (_("; reason: %(reason)s") % {"reason": reason} if reason else ""),
            )
    campaign.status = status
    campaign.status_reason = stored_reason
    return campaign


STATUS_REASON_MAX_CHARS = 2000

# --- editing a campaign while it runs -------------------------------------------------------------

# Settings an expert's judging depends on: changed after experts have submitted work, the work
# before and after the change was done under different conditions, so the change needs a
# confirmation and is recorded as such.
BIAS_RISK_FIELDS = ("show_weights", "rationale_min_chars", "guidelines")
EDITABLE_FIELDS = (
    "rationale_min_chars",
    "deadline",
    "show_weights",
    "reservation_timeout",
    "piece_rate",
    "certificate_name",
    "guidelines",
)
CERTIFICATE_NAME_MAX_CHARS = 200
# How people read each editable setting's name.
FIELD_LABELS = {
    "rationale_min_chars": gettext_lazy("the rationale minimum"),
    "deadline": gettext_lazy("the deadline"),
    "show_weights": gettext_lazy("whether criterion weights are shown"),
    "reservation_timeout": gettext_lazy("the reservation timeout"),
    "piece_rate": gettext_lazy("the piece rate"),
    "certificate_name": gettext_lazy("the certificate title"),
    "guidelines": gettext_lazy("the guidelines"),
}


@dataclass(frozen=True)
class SettingsChange:
    """One setting changed by `update_campaign_settings`, as recorded."""

    field: str
    before: str
    after: str
    bias_risk: bool = dataclasses.field(metadata={"help_text": "Changed how experts judge after they had submitted work (confirmed)."})


def has_started(campaign: Campaign) -> bool:
    """Whether experts have submitted work in the campaign (a change of how they judge would split it)."""
    from annotation.models import Assignment

    return Assignment.objects.filter(campaign_response__campaign=campaign).submitted().exists()


def _settings_errors(changes: dict[str, Any]) -> dict[str, str]:
    errors: dict[str, str] = {}
    unknown = sorted(set(changes) - set(EDITABLE_FIELDS) - {"change_note"})
    for name in unknown:
        errors[name] = _("cannot be changed here (editable: %(fields)s)") % {"fields": ", ".join(EDITABLE_FIELDS)}
    if "rationale_min_chars" in changes:
        v = changes["rationale_min_chars"]
        if not isinstance(v, int) or isinstance(v, bool) or not (0 <= v <= 2000):
            errors["rationale_min_chars"] = _("must be a whole number from 0 to 2000, not %(value)r") % {"value": v}
    if "show_weights" in changes and not isinstance(changes["show_weights"], bool):
        errors["show_weights"] = _("must be true or false")
    if "reservation_timeout" in changes:
        v = changes["reservation_timeout"]
        if not isinstance(v, timedelta) or v <= timedelta(0):
            errors["reservation_timeout"] = _("must be a positive duration")
    if "piece_rate" in changes:
        v = changes["piece_rate"]
        try:
            rate = Decimal(str(v))
        except ArithmeticError:
            rate = None
        if rate is None or not rate.is_finite() or rate < 0 or rate >= Decimal("1000000"):
            errors["piece_rate"] = _("must be an amount from 0 to 999999.99, not %(value)r") % {"value": v}
    if "certificate_name" in changes:
        v = changes["certificate_name"]
        if not isinstance(v, str) or len(v.strip()) > CERTIFICATE_NAME_MAX_CHARS:
            errors["certificate_name"] = _("must be text of at most %(n)d characters") % {"n": CERTIFICATE_NAME_MAX_CHARS}
    if "deadline" in changes:
        v = changes["deadline"]
        if v is not None and not (isinstance(v, datetime) and v.tzinfo is not None):
            errors["deadline"] = _("must be a date and time with its time zone, or empty")
    if "guidelines" in changes and not isinstance(changes["guidelines"], str):
        errors["guidelines"] = _("must be Markdown text")
    return errors


def _revision_name(revision: int | None) -> str:
    return _("none") if revision is None else _("revision %(n)d") % {"n": revision}


def _shown(value: object) -> str:
    if value is None:
        return "—"
    if isinstance(value, datetime):
        return value.isoformat(timespec="minutes")
    return str(value)


def update_campaign_settings(*, campaign: Campaign, by: User, confirm: bool = False, **changes: Any) -> list[SettingsChange]:
    """Change what may change while a campaign runs; return what changed (nothing when nothing did).

    Editable: `EDITABLE_FIELDS` (`guidelines` publishes a new revision, with `change_note`). A change
    of `BIAS_RISK_FIELDS` after experts have submitted work needs `confirm=True` (else a
    ValidationError on "confirm" naming them). Every change is recorded: who, when, before and after.
    """
    if not has_role(by, Role.ADMIN):
        raise PermissionDenied(_("Only admins change a campaign's settings."))
    if errors := _settings_errors(changes):
        raise ValidationError(errors)
    change_note = str(changes.pop("change_note", "") or "").strip()
    from annotation.services.guidelines import current_guidelines

    with transaction.atomic():
        locked = Campaign.objects.select_for_update().get(pk=campaign.pk)
        cfg = CampaignSettings.objects.get_or_create(campaign=locked, defaults={"requires_qualification": False})[0]
        current = current_guidelines(locked)
        changes = _normalised(changes)
        started = locked.kind == Campaign.Kind.BLIND_TEST and has_started(locked)
        changed = _setting_changes(changes, _settings_now(locked, cfg, current), current, started=started)
        _refuse_unconfirmed(changed, confirm)
        if not changed:
            return []
        campaign_fields = [c.field for c in changed if c.field not in ("certificate_name", "guidelines")]
        for name in campaign_fields:
            setattr(locked, name, changes[name])
        if campaign_fields:
            locked.save(update_fields=campaign_fields)
        if any(c.field == "certificate_name" for c in changed):
            cfg.certificate_name = changes["certificate_name"]
            cfg.save(update_fields=["certificate_name"])
        if any(c.field == "guidelines" for c in changed):
            _publish(locked, changes["guidelines"], change_note, by)
        _record(campaign=locked, by=by, message="; ".join(_said(c) for c in changed))
    for name in campaign_fields:
        setattr(campaign, name, changes[name])
    return changed


def _settings_now(campaign: Campaign, cfg: CampaignSettings, current: Any) -> dict[str, Any]:
    """Each editable setting's value before the change."""
    return {
        "rationale_min_chars": campaign.rationale_min_chars,
        "deadline": campaign.deadline,
        "show_weights": campaign.show_weights,
        "reservation_timeout": campaign.reservation_timeout,
        "piece_rate": campaign.piece_rate,
        "certificate_name": cfg.certificate_name,
        "guidelines": current.body if current is not None else "",
    }


def _normalised(changes: dict[str, Any]) -> dict[str, Any]:
    """The checked changes as they are stored: a rate to the cent, a stripped name, guidelines with plain line ends."""
    if "piece_rate" in changes:
        changes["piece_rate"] = Decimal(str(changes["piece_rate"])).quantize(Decimal("0.01"))
    if "certificate_name" in changes:
        changes["certificate_name"] = changes["certificate_name"].strip()
    if "guidelines" in changes:
        changes["guidelines"] = changes["guidelines"].replace("\r\n", "\n").strip()
    return changes


def _setting_changes(changes: dict[str, Any], before: dict[str, Any], current: Any, *, started: bool) -> list[SettingsChange]:
    """The changes that change something, each with its before and after (guidelines: their revisions) and its bias risk."""
    revision = current.revision if current else None
    return [
        SettingsChange(
            field=name,
            before=_shown(before[name]) if name != "guidelines" else _revision_name(revision),
            after=_shown(value) if name != "guidelines" else _revision_name(revision + 1 if revision is not None else 1),
            bias_risk=started and name in BIAS_RISK_FIELDS,
        )
        for name, value in changes.items()
        if value != before[name]
    ]


def _refuse_unconfirmed(changed: list[SettingsChange], confirm: bool) -> None:
    """A change that risks biasing work already submitted needs confirming."""
    risky = [c.field for c in changed if c.bias_risk]
    if risky and not confirm:
        raise ValidationError(
            {
                "confirm": _(
                    "Experts have already submitted work in this campaign: changing %(fields)s now means work before and after "
                    "the change was done under different conditions. Confirm to change it anyway; the change is recorded."
                )
                % {"fields": ", ".join(str(FIELD_LABELS[f]) for f in risky)}
            },
            code="needs_confirmation",
        )


def _publish(campaign: Campaign, body: str, change_note: str, by: User) -> None:
    """New guidelines as the campaign's next revision."""
    from annotation.services.guidelines import publish_guidelines

    try:
        publish_guidelines(campaign=campaign, body=body, change_note=change_note, author=by)
    except ValidationError as exc:
        # The form calls the body "guidelines".
        raise ValidationError({"guidelines" if k == "body" else k: v for k, v in exc.message_dict.items()}) from None


def _said(change: SettingsChange) -> str:
    """A change as the campaign's log records it."""
    confirmed = " " + _("(confirmed: experts had submitted work)") if change.bias_risk else ""
    return f"{change.field}: {change.before} → {change.after}{confirmed}"


def _record(*, campaign: Campaign, by: User, message: str) -> None:
    """Keep a change of the campaign in the site's change log (who, when, what): `selectors.campaign_changes` reads it."""
    from django.contrib.admin.models import CHANGE, LogEntry
    from django.contrib.contenttypes.models import ContentType

    LogEntry.objects.create(
        user=by,
        content_type=ContentType.objects.get_for_model(Campaign),
        object_id=str(campaign.pk),
        object_repr=str(campaign)[:200],
        action_flag=CHANGE,
        change_message=message,
    )
