"""The golden standard: refresh the majority labels from judgments, and adjudicate."""

from __future__ import annotations

from contextlib import nullcontext
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

import numpy as np
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import connection, transaction
from django.db.models import Case, Value, When
from django.db.models.functions import Coalesce
from django.utils import timezone
from django.utils.translation import gettext as _

from annotation.models import Assignment, Campaign, CampaignResponse
from heartbench_core.bulk import copy_lines, copy_time, may_skip_row_triggers, references_hold, skipped_row_triggers
from heartbench_core.lib.agreement_report import PROVENANCE_NAMES, golden_standard, required_ratings
from heartbench_core.models import Criterion
from heartbench_core.roles import Role, has_role
from heartbench_core.services.stored_scores import forget_scores
from validation import dbguard
from validation.models import Adjudication, GoldenLabel, QueueUnit
from validation.selectors import CampaignArrays, QueueEntry, adjudication_units, int_rows, judged_arrays, load_campaign_arrays
from validation.services.queue_summary import record_decision

if TYPE_CHECKING:
    from heartbench_core.models import User


@dataclass(frozen=True)
class RefreshOutcome:
    created: int
    updated: int
    deleted: int
    labels: int


LABELS_PER_SLICE = 50_000
# The label table's guard fires on UPDATE only: the COPY of new labels (INSERT) has nothing of it to skip.
REPLACED_TRIGGERS = frozenset({(GoldenLabel._meta.db_table, dbguard.trigger_name(GoldenLabel._meta.db_table))})


def refresh_golden_labels(*, campaign: Campaign, data: CampaignArrays | None = None) -> RefreshOutcome:
    """Bring the stored golden labels in line with the submitted judgments and adjudications; writes only changes."""
    if data is None:
        data = load_campaign_arrays(campaign)
    hits, ratings = data.unit_counts()
    # Every blind verdict counts: a response given extra raters waits for k + 2 (`required_ratings`).
    label, provenance, _tie = golden_standard(hits, ratings, required_ratings(data), data.u_adjudicated)
    has = label >= 0
    # Per unit, the stored row as it should be: hit, provenance code, expert hits, ratings, decision (−1: none).
    wanted = np.stack([label, provenance, hits, ratings, data.u_adjudication_id], axis=1).astype(np.int64)
    codes = {name: code for code, name in PROVENANCE_NAMES.items()}
    with transaction.atomic():
        # One lock on the campaign serialises refreshes; locking thousands of label rows would cost more.
        Campaign.objects.select_for_update().filter(pk=campaign.pk).first()
        existing = int_rows(
            GoldenLabel.objects.filter(campaign=campaign)
            .order_by()
            .annotate(
                provenance_code=Case(*(When(provenance=name, then=Value(code)) for name, code in codes.items()), default=Value(-1)),
                decision=Coalesce("adjudication_id", Value(-1)),
            )
            .values_list(
                "id", "campaign_response_id", "criterion_id", "hit", "provenance_code", "expert_hits", "expert_ratings", "decision"
            ),
            8,
        )
        unit = data.unit_index(existing[:, 1], existing[:, 2])
        stored = unit >= 0
        stored[stored] = has[unit[stored]]
        changed = stored.copy()
        changed[stored] = (existing[stored, 3:] != wanted[unit[stored]]).any(axis=1)
        covered = np.zeros(data.n_units, dtype=bool)
        covered[unit[stored]] = True
        new_units = np.flatnonzero(has & ~covered)
        now = timezone.now()
        changed_ids = existing[changed, 0]
        changed_rows = wanted[unit[changed]]
        if connection.vendor == "postgresql":
            _copy_new_labels(campaign, data, new_units, wanted, now)
            _update_labels(changed_ids, changed_rows, now)
        else:
            _create_new_labels(campaign, data, new_units, wanted)
            _bulk_update_labels(changed_ids, changed_rows, now)
        delete = existing[~stored, 0].tolist()
        if delete:
            GoldenLabel.objects.filter(id__in=delete).delete()
        if new_units.size or changed_ids.size or delete:
            forget_scores(campaigns=[campaign.pk])  # the consensus scores were computed from the labels as they were
    return RefreshOutcome(int(new_units.size), int(changed_ids.size), len(delete), int(has.sum()))


_LABEL_COLUMNS = ("hit", "provenance", "expert_hits", "expert_ratings", "adjudication", "updated_at")


def _copy_new_labels(campaign: Campaign, data: CampaignArrays, units: np.ndarray, wanted: np.ndarray, now: datetime) -> None:
    """PostgreSQL: COPY the new labels (a campaign at 100× HeartBench has 1.7 million the first time).

    Where the role may, without the per-row foreign-key checks: they ran at COMMIT, three lookups
    a label, and took 12 of a 26-second first refresh at 100×. Their work is done set-based
    instead: the referenced responses, criteria and decisions are locked as the checks would lock
    them (the campaign already is), and a reference that is gone stops the refresh.
    """
    if not units.size:
        return
    fast = may_skip_row_triggers([GoldenLabel._meta.db_table], REPLACED_TRIGGERS)
    with skipped_row_triggers() if fast else nullcontext():
        if fast:
            decisions = wanted[units, 4]
            referenced = (
                (CampaignResponse, np.unique(data.cr_id[data.u_cr[units]]).tolist()),
                (Criterion, np.unique(data.crit_id[data.u_crit[units]]).tolist()),
                (Adjudication, np.unique(decisions[decisions >= 0]).tolist()),
            )
            if not references_hold(referenced):
                raise ValidationError(_("the campaign's data changed during the refresh; nothing was written, try again"))
        _copy_label_rows(campaign, data, units, wanted, now)


def _copy_label_rows(campaign: Campaign, data: CampaignArrays, units: np.ndarray, wanted: np.ndarray, now: datetime) -> None:
    stamp = copy_time(now)
    head = f"{campaign.pk}\t"
    copy_lines(
        GoldenLabel,
        (
            "campaign_id",
            "campaign_response_id",
            "criterion_id",
            "hit",
            "provenance",
            "expert_hits",
            "expert_ratings",
            "adjudication_id",
            "updated_at",
        ),
        (
            f"{head}{cr}\t{crit}\t{'t' if hit else 'f'}\t{PROVENANCE_NAMES[prov]}\t{h}\t{m}\t{adj if adj >= 0 else chr(92) + 'N'}\t{stamp}\n"
            for cr, crit, (hit, prov, h, m, adj) in zip(
                data.cr_id[data.u_cr[units]].tolist(), data.crit_id[data.u_crit[units]].tolist(), wanted[units].tolist()
            )
        ),
    )


def _update_labels(ids: np.ndarray, rows: np.ndarray, now: datetime) -> None:
    """PostgreSQL: change the labels whose values changed, in one statement over arrays."""
    if not ids.size:
        return
    table = connection.ops.quote_name(GoldenLabel._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {table} AS g SET hit = v.hit, provenance = v.provenance, expert_hits = v.expert_hits,"
            " expert_ratings = v.expert_ratings, adjudication_id = v.adjudication_id, updated_at = %s"
            " FROM unnest(%s::bigint[], %s::boolean[], %s::text[], %s::int[], %s::int[], %s::bigint[])"
            " AS v(id, hit, provenance, expert_hits, expert_ratings, adjudication_id) WHERE g.id = v.id",
            [
                now,
                ids.tolist(),
                [bool(h) for h in rows[:, 0].tolist()],
                [PROVENANCE_NAMES[p] for p in rows[:, 1].tolist()],
                rows[:, 2].tolist(),
                rows[:, 3].tolist(),
                [a if a >= 0 else None for a in rows[:, 4].tolist()],
            ],
        )


def _label_fields(hit: int, provenance: int, expert_hits: int, expert_ratings: int, decision: int) -> dict[str, Any]:
    """A label's stored values from its row of `wanted` (hit, provenance code, expert hits, ratings, decision or −1)."""
    return {
        "hit": bool(hit),
        "provenance": PROVENANCE_NAMES[provenance],
        "expert_hits": expert_hits,
        "expert_ratings": expert_ratings,
        "adjudication_id": decision if decision >= 0 else None,
    }


def _create_new_labels(campaign: Campaign, data: CampaignArrays, units: np.ndarray, wanted: np.ndarray) -> None:
    """Other databases: the new labels through the ORM, a slice at a time (a model instance each at once would take gigabytes)."""
    for lo in range(0, units.size, LABELS_PER_SLICE):
        part = units[lo : lo + LABELS_PER_SLICE]
        GoldenLabel.objects.bulk_create(
            [
                GoldenLabel(campaign=campaign, campaign_response_id=cr, criterion_id=crit, **_label_fields(*row))
                for cr, crit, row in zip(
                    data.cr_id[data.u_cr[part]].tolist(), data.crit_id[data.u_crit[part]].tolist(), wanted[part].tolist()
                )
            ],
            batch_size=2000,
        )


def _bulk_update_labels(ids: np.ndarray, rows: np.ndarray, now: datetime) -> None:
    """Other databases: the changed labels through the ORM, a slice at a time."""
    for lo in range(0, ids.size, LABELS_PER_SLICE):
        GoldenLabel.objects.bulk_update(
            [
                GoldenLabel(id=pk, updated_at=now, **_label_fields(*row))
                for pk, row in zip(ids[lo : lo + LABELS_PER_SLICE].tolist(), rows[lo : lo + LABELS_PER_SLICE].tolist())
            ],
            list(_LABEL_COLUMNS),
            batch_size=1000,
        )


# --- adjudication -----------------------------------------------------------------------------------


def adjudication_queue(campaign: Campaign, *, reviewer: User | None = None, data: CampaignArrays | None = None) -> list[QueueEntry]:
    """Units needing a senior reviewer's decision, lowest expert agreement first.

    The definition is `heartbench_core.lib.adjudication` (ties and criteria flagged ambiguous; never
    a 2-of-3 majority nor a unanimous verdict the judge contradicts); every compared unit is
    `validation.selectors.adjudication_units`. For a given reviewer, responses they rated are left out.
    """
    return [e for e in adjudication_units(campaign, reviewer=reviewer, data=data) if e.needs_decision]


def adjudicate(
    *,
    reviewer: User,
    campaign_response: CampaignResponse,
    criterion: Criterion,
    hit: bool,
    cause: str,
    note: str,
    flag_for_authors: bool = False,
) -> Adjudication:
    """Record a senior reviewer's decision as the golden label of one (response, criterion)."""
    if not has_role(reviewer, Role.SENIOR_REVIEWER, Role.ADMIN):
        raise PermissionDenied(_("Only a senior reviewer or an admin adjudicates."))
    errors: dict[str, str] = {}
    if cause not in Adjudication.Cause.values:
        errors["cause"] = _("choose one of %(causes)s") % {"causes": ", ".join(Adjudication.Cause.values)}
    if not (note or "").strip():
        errors["note"] = _("say why: the reasoning is part of the golden label's provenance")
    if criterion.item_id != campaign_response.item_id:
        errors["criterion"] = _("this criterion does not belong to the response's item")
    if errors:
        raise ValidationError(errors)
    if Assignment.objects.filter(campaign_response=campaign_response, expert=reviewer).exists():
        raise PermissionDenied(_("You rated this response yourself; another senior reviewer must adjudicate it."))
    campaign = campaign_response.campaign
    stored = (
        QueueUnit.objects.filter(
            summary__campaign=campaign, summary__stale=False, campaign_response_id=campaign_response.pk, criterion_id=criterion.pk
        )
        .values_list("triggers", "expert_hits", "expert_ratings", "judge_hit")
        .first()
    )
    if stored is not None:  # the stored queue is up to date: its unit says what computing the queue would (one query)
        codes, expert_hits, expert_ratings, judge_hit = stored
        triggers = [t for t in codes.split(",") if t]
    else:
        data = judged_arrays(campaign)
        entry = next(
            (
                e
                for e in adjudication_units(campaign, data=data)
                if e.campaign_response_id == campaign_response.pk and e.criterion_id == criterion.pk
            ),
            None,
        )
        hits, ratings = data.unit_counts()
        unit = np.flatnonzero((data.cr_id[data.u_cr] == campaign_response.pk) & (data.crit_id[data.u_crit] == criterion.pk))
        if unit.size == 0:
            raise ValidationError({"criterion": _("this criterion is stale or not part of the campaign's rubric")})
        u = int(unit[0])
        judge_hit = None if data.u_judge[u] < 0 else bool(data.u_judge[u])
        triggers, expert_hits, expert_ratings = list(entry.triggers) if entry else [], int(hits[u]), int(ratings[u])
    with transaction.atomic():
        decision = Adjudication.objects.create(
            campaign_response=campaign_response,
            criterion=criterion,
            hit=bool(hit),
            cause=cause,
            note=note.strip(),
            triggers=triggers,
            expert_hits=expert_hits,
            expert_ratings=expert_ratings,
            judge_hit=judge_hit,
            flagged_for_authors=bool(flag_for_authors),
            decided_by=reviewer,
        )
        GoldenLabel.objects.update_or_create(
            campaign_response=campaign_response,
            criterion=criterion,
            defaults={
                "campaign": campaign,
                "hit": bool(hit),
                "provenance": GoldenLabel.Provenance.ADJUDICATED,
                "expert_hits": expert_hits,
                "expert_ratings": expert_ratings,
                "adjudication": decision,
            },
        )
        forget_scores(campaigns=[campaign.pk])  # the decision changed a golden label
        # The stored queue takes the decision now (the unit leaves the queue at once), without recomputing the campaign.
        record_decision(campaign_id=campaign.pk, campaign_response_id=campaign_response.pk, criterion_id=criterion.pk)
        if flag_for_authors:
            flag_for_rubric_authors(decision)
    return decision


def flag_for_rubric_authors(decision: Adjudication) -> None:
    """Put the criterion on the rubric authors' work list."""
    from rubrics.services import flag_criterion

    flag_criterion(
        lineage=decision.criterion.lineage,
        reason=f"Adjudication ({decision.get_cause_display().lower()}): {decision.note}",
        source="adjudication",
        flagged_by=decision.decided_by,
    )
