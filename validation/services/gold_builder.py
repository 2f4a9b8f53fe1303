"""Building a gold set or calibration set on a page: picked responses, with the verdicts closed blind tests settled.

A verdict is settled when a closed blind test on the same version holds it in its golden standard
as unanimous or adjudicated (a mere majority is not settled). Every criterion of a picked
response needs one, and every picked response must be free: held by no gold set, hidden gold
check or calibration set (the same response, or the same text to the same question). The set is
then written by the same services as an imported file (`create_gold_set`, `create_calibration`).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import timedelta

from django.core.exceptions import PermissionDenied, ValidationError
from django.utils.translation import gettext as _

from annotation.models import Campaign
from annotation.services.campaigns import CampaignOutcome, GoldRow, create_calibration, create_gold_set, labelled_holders
from heartbench_core.blindness import CLOSED_RESPONSE, blind_scope, record_exposures
from heartbench_core.models import Criterion, DatasetVersion, ModelResponse, User
from validation.models import GoldenLabel

SETTLED = (GoldenLabel.Provenance.UNANIMOUS, GoldenLabel.Provenance.ADJUDICATED)


@dataclass(frozen=True)
class SettledVerdict:
    """A criterion's verdict on a response as closed blind tests settled it."""

    hit: bool
    explanation: str  # the adjudication's reasoning; empty for a unanimous verdict
    provenance: str


def settled_verdicts(*, version: DatasetVersion, response_ids: list[int]) -> dict[int, dict[int, SettledVerdict]]:
    """{response: {criterion: verdict}} from the golden standard of the closed blind tests on `version` (one query).

    A criterion on which two closed blind tests settled opposite verdicts has none.
    """
    found: dict[tuple[int, int], set[bool]] = defaultdict(set)
    best: dict[tuple[int, int], SettledVerdict] = {}
    for response, criterion, hit, provenance, note in (
        GoldenLabel.objects.filter(
            campaign__kind=Campaign.Kind.BLIND_TEST,
            campaign__status=Campaign.Status.CLOSED,
            campaign__version=version,
            campaign_response__response_id__in=response_ids,
            provenance__in=SETTLED,
        )
        .order_by("updated_at", "pk")
        .values_list("campaign_response__response_id", "criterion_id", "hit", "provenance", "adjudication__note")
    ):
        key = (response, criterion)
        found[key].add(hit)
        if provenance == GoldenLabel.Provenance.ADJUDICATED or key not in best or not best[key].explanation:
            best[key] = SettledVerdict(hit=hit, explanation=note or "", provenance=provenance)
    out: dict[int, dict[int, SettledVerdict]] = defaultdict(dict)
    for (response, criterion), verdict in best.items():
        if len(found[(response, criterion)]) == 1:
            out[response][criterion] = verdict
    return dict(out)


@dataclass(frozen=True)
class BuiltSet:
    """What the builder asks for beyond the picks: the kind of set, and a calibration set's settings."""

    kind: str  # Campaign.Kind.GOLD_SET or Campaign.Kind.CALIBRATION
    name: str
    pass_threshold: float = 0.8
    max_attempts: int = 2
    retake_cooldown: timedelta = timedelta(days=1)
    sitting_size: int | None = None


def create_set_from_settled_verdicts(
    *, version: DatasetVersion, response_ids: list[int], spec: BuiltSet, created_by: User
) -> CampaignOutcome:
    """Create a gold set or calibration set of free picked responses, each criterion labelled with its settled verdict.

    Refused, naming the question and model, while a pick is not free or a criterion of it has no
    settled verdict; refused whole for an admin blind to the version's dataset.
    """
    if spec.kind not in (Campaign.Kind.GOLD_SET, Campaign.Kind.CALIBRATION):
        raise ValidationError({"kind": _("must be a gold set or a calibration set")})
    if blind_scope(created_by).hides_dataset(version.dataset_id):
        raise PermissionDenied(CLOSED_RESPONSE)
    ids = sorted(set(response_ids))
    if not ids:
        raise ValidationError({"responses": _("choose at least one response")})
    picked = {
        pk: (qid, model)
        for pk, qid, model in ModelResponse.objects.filter(dataset_id=version.dataset_id, pk__in=ids).values_list(
            "pk", "question_id", "model__name"
        )
    }
    unknown = [pk for pk in ids if pk not in picked]
    if unknown:
        raise ValidationError({"responses": _("no response %(ids)s on %(version)s") % {"ids": unknown, "version": version}})
    items = dict(version.items.filter(question_id__in={q for q, _m in picked.values()}).values_list("question_id", "pk"))
    criteria: dict[int, list[tuple[int, int]]] = defaultdict(list)
    for item_id, position, pk in (
        Criterion.objects.filter(item_id__in=list(items.values())).order_by("position").values_list("item_id", "position", "pk")
    ):
        criteria[item_id].append((position, pk))
    held = labelled_holders(ids, dataset_id=version.dataset_id)
    verdicts = settled_verdicts(version=version, response_ids=ids)
    problems: list[str] = []
    rows: list[GoldRow] = []
    for pk in ids:
        qid, model = picked[pk]
        where = f"{qid}/{model}"
        if qid not in items:
            problems.append(_("%(response)s: the question is not in %(version)s") % {"response": where, "version": version})
            continue
        if pk in held:
            names = ", ".join(name for _kind, name in held[pk])
            problems.append(_("%(response)s is not free: %(sets)s holds it") % {"response": where, "sets": names})
            continue
        mine = verdicts.get(pk, {})
        missing = [position for position, criterion in criteria[items[qid]] if criterion not in mine]
        if missing:
            problems.append(
                _("%(response)s has no settled verdict on criteria %(positions)s")
                % {"response": where, "positions": ", ".join(f"#{p + 1}" for p in missing)}
            )
            continue
        rows.append(
            (pk, items[qid], [(c, mine[c].hit, mine[c].explanation) for _p, c in criteria[items[qid]]]),
        )
    if problems:
        raise ValidationError({"responses": problems})
    dataset, label = version.dataset.name, version.label
    if spec.kind == Campaign.Kind.GOLD_SET:
        outcome = create_gold_set(name=spec.name, dataset_name=dataset, version_label=label, labels=rows, created_by=created_by)
    else:
        outcome = create_calibration(
            name=spec.name,
            dataset_name=dataset,
            version_label=label,
            labels=rows,
            pass_threshold=spec.pass_threshold,
            max_attempts=spec.max_attempts,
            retake_cooldown=spec.retake_cooldown,
            sitting_size=spec.sitting_size,
            created_by=created_by,
        )
        # The builder showed the admin these responses' verdicts: none of them may reach the admin blind.
        record_exposures(user=created_by, response_ids=ids, via="calibration_builder")
    return outcome
