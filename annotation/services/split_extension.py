"""Extra raters where the verdicts split: grant a response two more experts when its k blind verdicts split.

The campaign option (`CampaignSettings.split_extension`, off by default) has a budget in extra
assignments and a threshold: when a response's k-th verdict lands and at least that share of its
criteria are split by one vote (a tie when k is even), the response is offered to two more experts
(k → k + 2), while the budget lasts. What is granted is a target, not an assignment: the response
goes back to the pool with k + 2 slots, and serving fills them exactly as it fills any slot (the
same ranking, matching, exposures, one assignment per expert and response). Nothing an expert sees
changes: the extra rater is served a response, like any other.

The decision reads the experts' blind verdicts only, never the judge's: an extension chosen where
the judge disagrees with the experts would move the gold toward the judge (the simulation in
`tests/lib/test_split_extension.py`). Hidden gold checks are never extended (their labels are known).

Concurrency: the campaign's settings row is locked before the response's row (every path takes
them in that order; the backlog pass takes the campaign's row before both, as the bulk
pre-assignment does before the responses'), so the budget is read and spent by one transaction at a time and two
submissions of one response never both grant, nor both miss, its extension; the grant is a
conditional UPDATE (`extra_raters = 0`), so a response is extended at most once.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import numpy as np
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.db.models import Count, Sum
from django.utils import timezone
from django.utils.translation import gettext as _

from annotation.models import Assignment, Campaign, CampaignResponse, CampaignSettings, Judgment
from annotation.services.assignment import campaign_settings, keyed_uniform
from heartbench_core.lib.split_extension import EXTRA_RATERS, SplitShare, extension_order, split_share
from heartbench_core.models import User
from heartbench_core.roles import Role, has_role

DEFAULT_MIN_SHARE = 0.5
MAX_BUDGET = 1_000_000  # far beyond any campaign (HeartBench's whole blind test is 12,000 assignments); keeps the column's range


def option_errors(*, enabled: Any, budget: Any, min_share: Any) -> dict[str, str]:
    """What is wrong with the option's values, by field ({} when they are fine)."""
    errors: dict[str, str] = {}
    if not isinstance(enabled, bool):
        errors["split_extension"] = _("must be true or false")
    if isinstance(budget, bool) or not isinstance(budget, int):
        errors["split_extension_budget"] = _("must be a whole number of extra assignments, not %(value)r") % {"value": budget}
    elif budget < 0:
        errors["split_extension_budget"] = _("must not be negative, not %(value)d") % {"value": budget}
    elif budget > MAX_BUDGET:
        errors["split_extension_budget"] = _("must be at most %(max)d extra assignments, not %(value)d") % {
            "max": MAX_BUDGET,
            "value": budget,
        }
    elif enabled is True and budget < EXTRA_RATERS:
        errors["split_extension_budget"] = _(
            "with extra raters on, the budget must be at least %(n)d extra assignments (each extended response takes two), not %(value)d"
        ) % {"n": EXTRA_RATERS, "value": budget}
    if isinstance(min_share, bool) or not isinstance(min_share, int | float) or not math.isfinite(min_share):
        errors["split_extension_min_share"] = _("must be a number in (0, 1], not %(value)r") % {"value": min_share}
    elif not 0 < min_share <= 1:
        errors["split_extension_min_share"] = _("must be in (0, 1], not %(value)s") % {"value": min_share}
    return errors


def set_split_extension(
    *, campaign: Campaign, enabled: bool, budget: int, min_share: float = DEFAULT_MIN_SHARE, by: User | None = None
) -> CampaignSettings:
    """Turn the option on or off, or change its budget or threshold (admins, or the command line with `by` None; blind tests only).

    A budget below what was already granted is refused: granted extra raters are not taken back.
    """
    if by is not None and not has_role(by, Role.ADMIN):
        raise PermissionDenied(_("Only admins change a campaign's settings."))
    if errors := option_errors(enabled=enabled, budget=budget, min_share=min_share):
        raise ValidationError(errors)
    if campaign.kind != Campaign.Kind.BLIND_TEST:
        raise ValidationError({"split_extension": _("extra raters are an option of blind tests only")})
    with transaction.atomic():
        cfg = CampaignSettings.objects.get_or_create(campaign_id=campaign.pk, defaults={"requires_qualification": False})[0]
        cfg = CampaignSettings.objects.select_for_update().get(pk=cfg.pk)
        spent = granted(campaign.pk)
        if budget < spent:
            raise ValidationError(
                {
                    "split_extension_budget": _("%(spent)d extra assignments were already granted; the budget cannot go below that")
                    % {"spent": spent}
                }
            )
        cfg.split_extension, cfg.split_extension_budget, cfg.split_extension_min_share = enabled, budget, float(min_share)
        cfg.save(update_fields=["split_extension", "split_extension_budget", "split_extension_min_share"])
    return cfg


@dataclass(frozen=True)
class SplitExtensionState:
    """The option as set, and (when asked) what it has granted so far."""

    enabled: bool
    budget: int
    min_share: float
    spent: int | None  # extra assignments granted; None when not counted
    extended: int | None  # responses extended; None when not counted


def split_extension_state(campaign: Campaign, *, counts: bool = True) -> SplitExtensionState:
    """The campaign's option (defaults when it has no settings); with `counts`, one aggregate query for what was granted."""
    cfg = campaign_settings(campaign)  # the campaign's own row, read once per instance
    enabled = cfg.split_extension
    spent = extended = None
    if counts and enabled:
        row = CampaignResponse.objects.filter(campaign_id=campaign.pk, extra_raters__gt=0).aggregate(
            n=Count("pk"), spent=Sum("extra_raters")
        )
        spent, extended = int(row["spent"] or 0), int(row["n"])
    return SplitExtensionState(
        enabled=enabled,
        budget=cfg.split_extension_budget,
        min_share=cfg.split_extension_min_share,
        spent=spent,
        extended=extended,
    )


def granted(campaign_id: int) -> int:
    """Extra assignments the campaign has granted (two per extended response)."""
    return int(CampaignResponse.objects.filter(campaign_id=campaign_id).aggregate(n=Sum("extra_raters"))["n"] or 0)


def response_split(campaign_response_id: int, k: int) -> SplitShare:
    """How split the first k submitted verdicts of one response are (by submission time)."""
    first = list(
        Assignment.objects.filter(campaign_response_id=campaign_response_id, status=Assignment.Status.SUBMITTED)
        .order_by("submitted_at", "id")
        .values_list("pk", flat=True)[:k]
    )
    return _shares(first, k).get(campaign_response_id, SplitShare(0, 0))


def _shares(assignment_ids: list[int], k: int) -> dict[int, SplitShare]:
    """Split shares per campaign response, from the verdicts of the given assignments (the first k of each)."""
    rows = list(
        Judgment.objects.filter(assignment_id__in=assignment_ids, hit__isnull=False)
        .order_by()
        .values_list("assignment__campaign_response_id", "criterion_id", "hit")
    )
    by_response: dict[int, dict[int, list[int]]] = {}
    for cr_id, criterion_id, hit in rows:
        votes = by_response.setdefault(cr_id, {}).setdefault(criterion_id, [0, 0])
        votes[0] += int(bool(hit))
        votes[1] += 1
    out = {}
    for cr_id, per_criterion in by_response.items():
        counts = np.array(list(per_criterion.values()), np.int64).reshape(-1, 2)
        # A criterion counts once all k verdicts on it are in (a criterion added since has fewer).
        complete = counts[:, 1] >= k
        out[cr_id] = split_share(counts[complete, 0], counts[complete, 1])
    return out


def after_submit(*, assignment: Assignment) -> bool:
    """Called in the transaction that submits `assignment`: extend its response if this was its k-th verdict and it split.

    True when the response was extended. Does nothing (and locks nothing) unless the campaign's
    option is on and the response is an ordinary one not yet extended.
    """
    cr = assignment.campaign_response
    campaign = cr.campaign
    if campaign.kind != Campaign.Kind.BLIND_TEST or cr.is_gold or cr.extra_raters or not campaign_settings(campaign).split_extension:
        return False
    cfg = CampaignSettings.objects.filter(campaign_id=campaign.pk, split_extension=True).select_for_update().first()
    if cfg is None:  # turned off meanwhile
        return False
    # Settings first, then the response: every path locks them in this order.
    locked = CampaignResponse.objects.select_for_update(no_key=True, of=("self",)).get(pk=cr.pk)
    if locked.extra_raters:
        return False
    k = max(campaign.overlap, 1)
    submitted = Assignment.objects.filter(campaign_response_id=cr.pk).submitted().count()
    if submitted != k:
        return False
    if not response_split(cr.pk, k).reaches(cfg.split_extension_min_share):
        return False
    return bool(_grant(cfg, [cr.pk], timezone.now()))


def _grant(cfg: CampaignSettings, ordered: list[int], now: datetime) -> list[int]:
    """Extend the given responses in order while the budget lasts (the settings row is locked); the ids extended."""
    left = cfg.split_extension_budget - granted(cfg.campaign_id)
    done = []
    for cr_id in ordered:
        if left < EXTRA_RATERS:
            break
        if CampaignResponse.objects.filter(pk=cr_id, extra_raters=0).update(extra_raters=EXTRA_RATERS, extended_at=now):
            done.append(cr_id)
            left -= EXTRA_RATERS
    return done


@dataclass(frozen=True)
class ExtensionPass:
    """What one pass over a campaign's finished responses found and granted."""

    candidates: int  # responses with k verdicts, not yet extended, whose split share reaches the threshold
    extended: int  # of them, extended now
    budget: int
    spent: int  # extra assignments granted, now included
    already: int  # responses extended before this pass


def extend_split_responses(*, campaign: Campaign) -> ExtensionPass:
    """Extend every waiting response whose k verdicts split, most split first, while the budget lasts.

    For responses that reached k before the option was turned on or the budget was raised: the
    same rule as at submission, over the whole backlog at once (equal shares in a keyed random
    order, never the order of models or of submission).
    """
    if campaign.kind != Campaign.Kind.BLIND_TEST:
        raise ValidationError({"campaign": _("extra raters are an option of blind tests only")})
    k = max(campaign.overlap, 1)
    with transaction.atomic():
        # The campaign first, as the bulk pre-assignment takes it before the responses' rows: the two
        # run one after the other instead of locking rows in two orders.
        Campaign.objects.select_for_update().filter(pk=campaign.pk).first()
        cfg = CampaignSettings.objects.filter(campaign_id=campaign.pk).select_for_update().first()
        if cfg is None or not cfg.split_extension:
            raise ValidationError({"split_extension": _("extra raters are off for this campaign: turn them on with a budget first")})
        already = CampaignResponse.objects.filter(campaign_id=campaign.pk, extra_raters__gt=0).count()
        firsts: dict[int, list[int]] = {}
        for cr_id, pk in (
            Assignment.objects.filter(
                campaign_response__campaign_id=campaign.pk,
                campaign_response__is_gold=False,
                campaign_response__extra_raters=0,
                status=Assignment.Status.SUBMITTED,
            )
            .order_by("campaign_response_id", "submitted_at", "id")
            .values_list("campaign_response_id", "pk")
        ):
            firsts.setdefault(cr_id, []).append(pk)
        ready = {cr: ids[:k] for cr, ids in firsts.items() if len(ids) >= k}
        shares = _shares([pk for ids in ready.values() for pk in ids], k)
        candidates = sorted(cr for cr, s in shares.items() if s.reaches(cfg.split_extension_min_share))
        share = np.array([shares[cr].share or 0.0 for cr in candidates], np.float64)
        tiebreak = np.array([keyed_uniform("split", campaign.seed, cr) for cr in candidates], np.float64)
        ordered = [candidates[i] for i in extension_order(share, tiebreak).tolist()]
        # The responses' rows, in id order, after the settings row.
        list(CampaignResponse.objects.filter(pk__in=ordered).order_by("pk").select_for_update(no_key=True, of=("self",)))
        done = _grant(cfg, ordered, timezone.now())
        return ExtensionPass(
            candidates=len(candidates), extended=len(done), budget=cfg.split_extension_budget, spent=granted(campaign.pk), already=already
        )


def switch_split_extension(
    *, campaign: Campaign, by: User, split_extension: bool, split_extension_budget: int, split_extension_min_share: float
) -> ExtensionPass | None:
    """The option as a campaign's page and the API change it (named as their fields): set, then, when on, the waiting responses extended."""
    set_split_extension(
        campaign=campaign, by=by, enabled=split_extension, budget=split_extension_budget, min_share=split_extension_min_share
    )
    return extend_split_responses(campaign=campaign) if split_extension else None
