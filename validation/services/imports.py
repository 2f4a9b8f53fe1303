"""Import human judgments made elsewhere (an earlier blind test kept in spreadsheets).

The import runs in four steps: find the campaign (or the version a new one will use), load
what the lines refer to, check every line (collecting all errors, writing nothing), then write
everything in one transaction.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import IO, NamedTuple

from django.contrib.auth.models import Group
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext

from annotation.models import Assignment, Campaign, CampaignResponse, ExpertProfile, Judgment
from heartbench_core.jsonl import ErrorCollector, type_name
from heartbench_core.lib.jsonl import read_jsonl, source_name
from heartbench_core.models import DatasetVersion, ModelResponse, User
from heartbench_core.roles import Role, has_role
from heartbench_core.services.datasets import get_version


@dataclass(frozen=True)
class JudgmentImportOutcome:
    campaign: Campaign
    campaign_created: bool
    responses_added: int
    assignments: int
    judgments: int
    experts_created: list[str]


class _Rubric(NamedTuple):
    """A question's item and its criteria, in rubric order."""

    item_id: int
    criterion_ids: list[int]


@dataclass
class _References:
    """Everything the lines of a file may name, loaded before the first line is read."""

    version: DatasetVersion
    rubrics: dict[str, _Rubric]  # by question_id
    responses: dict[tuple[str, str], int]  # (question_id, model name) → response id
    known_models: set[str]
    users: dict[str, User]  # active users by username
    judged: set[tuple[int, str]]  # (response id, username) already judged in the campaign


class _JudgmentLine(NamedTuple):
    """One checked line: an annotator's verdict on every rubric item of one response."""

    line: int
    question_id: str
    model: str
    annotator: str
    response_id: int
    item_id: int
    criterion_ids: list[int]
    detail: list[int]
    reasons: list[str]


def import_judgments(
    *,
    source: str | Path | IO,
    dataset_name: str,
    campaign_name: str,
    version_label: str | None = None,
    create_experts: bool = False,
    created_by: User | None = None,
    name: str | None = None,
) -> JudgmentImportOutcome:
    """Import `{"question_id", "model", "annotator", "detail": [0, 1, …], "reasons"?}` lines; atomic.

    `detail` covers every rubric item of the question in order (其他 included). The campaign is
    created from the imported responses when it does not exist. Any bad line is an error naming
    it, and nothing is written.
    """
    campaign_name = (campaign_name or "").strip()
    campaign, version = _find_campaign(campaign_name, dataset_name, version_label)
    refs = _load_references(version, campaign)
    errors = ErrorCollector(name or source_name(source))
    judged, new_experts = _read_judgment_lines(source, errors, refs, campaign_name=campaign_name, create_experts=create_experts)
    if not judged and not errors:
        errors.add(None, None, gettext("the file holds no judgments"))
    errors.raise_if_any()
    with transaction.atomic():
        created_names = _create_experts(new_experts, refs.users)
        campaign_created = campaign is None
        if campaign is None:
            campaign = _create_campaign(campaign_name, version, judged, created_by)
        responses_added, in_campaign = _add_campaign_responses(campaign, judged)
        campaign.experts.add(*{refs.users[j.annotator].pk for j in judged})
        assignments, judgments = _write_submitted_judgments(judged, in_campaign, refs.users)
    return JudgmentImportOutcome(
        campaign=campaign,
        campaign_created=campaign_created,
        responses_added=responses_added,
        assignments=assignments,
        judgments=judgments,
        experts_created=created_names,
    )


# --- before reading the file ---------------------------------------------------------------------


def _find_campaign(campaign_name: str, dataset_name: str, version_label: str | None) -> tuple[Campaign | None, DatasetVersion]:
    """The named campaign if it exists (checked against the dataset and version asked for), and its version."""
    if not campaign_name:
        raise ValidationError({"campaign": gettext("a campaign name is required")})
    campaign = Campaign.objects.filter(name=campaign_name).select_related("version__dataset").first()
    if campaign is None:
        return None, get_version(dataset_name, version_label)
    if campaign.version.dataset.name != dataset_name:
        raise ValidationError(
            {
                "campaign": gettext("campaign %(campaign)r belongs to dataset %(dataset)r, not %(asked)r")
                % {"campaign": campaign_name, "dataset": campaign.version.dataset.name, "asked": dataset_name}
            }
        )
    if version_label and campaign.version.label != version_label:
        raise ValidationError(
            {
                "version": gettext("campaign %(campaign)r uses version %(version)r, not %(asked)r")
                % {"campaign": campaign_name, "version": campaign.version.label, "asked": version_label}
            }
        )
    return campaign, campaign.version


def _load_references(version: DatasetVersion, campaign: Campaign | None) -> _References:
    """Load the version's rubrics, the dataset's responses, the active users and the campaign's judged pairs."""
    rubrics: dict[str, _Rubric] = {}
    for row in version.items.order_by("position", "criteria__position").values_list("id", "question_id", "criteria__id", named=True):
        rubric = rubrics.setdefault(row.question_id, _Rubric(row.id, []))
        if row.criteria__id is not None:
            rubric.criterion_ids.append(row.criteria__id)
    responses = {
        (row.question_id, row.model__name): row.id
        for row in ModelResponse.objects.filter(dataset=version.dataset).values_list("id", "question_id", "model__name", named=True)
    }
    users = {u.username: u for u in User.objects.filter(is_active=True).prefetch_related("groups")}
    judged: set[tuple[int, str]] = set()
    if campaign is not None:
        judged = set(
            Assignment.objects.filter(campaign_response__campaign=campaign).values_list(
                "campaign_response__response_id", "expert__username"
            )
        )
    return _References(version, rubrics, responses, {model for _, model in responses}, users, judged)


# --- checking the lines --------------------------------------------------------------------------


def _read_judgment_lines(
    source: str | Path | IO, errors: ErrorCollector, refs: _References, *, campaign_name: str, create_experts: bool
) -> tuple[list[_JudgmentLine], set[str]]:
    """Check every line of the file; return the good ones and the annotators to create as experts."""
    judged: list[_JudgmentLine] = []
    first_line: dict[tuple[int, str], int] = {}  # (response id, annotator) → the line that judged it
    new_experts: set[str] = set()
    for line, record in read_jsonl(source, errors):
        entry = _check_line(line, record, errors, refs, create_experts, new_experts)
        if entry is None or not _is_first_judgment(entry, errors, refs, first_line, campaign_name):
            continue
        first_line[(entry.response_id, entry.annotator)] = line
        judged.append(entry)
    return judged, new_experts


def _check_line(
    line: int, record: dict, errors: ErrorCollector, refs: _References, create_experts: bool, new_experts: set[str]
) -> _JudgmentLine | None:
    """Record every problem of one line; return it checked and resolved, or None when anything is wrong."""
    names = _required_names(line, record, errors)
    qid, model, annotator = names.get("question_id"), names.get("model"), names.get("annotator")
    ok = len(names) == 3
    ok &= _check_question_and_model(line, qid, model, errors, refs)
    ok &= _check_annotator(line, annotator, errors, refs, create_experts, new_experts)
    known = refs.rubrics.get(qid) if qid is not None else None
    ok &= _check_detail(line, record, errors, qid, None if known is None else len(known.criterion_ids))
    ok &= _check_reasons(line, record, errors)
    if not ok:
        return None
    qid, model, annotator = names["question_id"], names["model"], names["annotator"]
    rubric, detail = refs.rubrics[qid], record["detail"]
    return _JudgmentLine(
        line=line,
        question_id=qid,
        model=model,
        annotator=annotator,
        response_id=refs.responses[(qid, model)],
        item_id=rubric.item_id,
        criterion_ids=rubric.criterion_ids,
        detail=detail,
        reasons=record.get("reasons") or [""] * len(detail),
    )


def _required_names(line: int, record: dict, errors: ErrorCollector) -> dict[str, str]:
    """The stripped question_id, model and annotator of a line; each missing or blank one is an error."""
    names = {}
    for key in ("question_id", "model", "annotator"):
        value = record.get(key)
        if key not in record:
            errors.add(line, key, gettext("missing key"))
        elif not isinstance(value, str) or not value.strip():
            errors.add(line, key, gettext("must be a non-empty string, found %(found)s") % {"found": type_name(value)})
        else:
            names[key] = value.strip()
    return names


def _check_question_and_model(line: int, qid: str | None, model: str | None, errors: ErrorCollector, refs: _References) -> bool:
    """The question must be in the version, and the model must have a response to it."""
    ok = True
    if qid is not None and qid not in refs.rubrics:
        errors.add(
            line,
            "question_id",
            gettext("unknown question_id %(question_id)r in %(version)s") % {"question_id": qid, "version": refs.version},
        )
        ok = False
    if model is not None and model not in refs.known_models:
        errors.add(line, "model", gettext("unknown model %(model)r: import its responses first") % {"model": model})
        ok = False
    elif model is not None and qid in refs.rubrics and (qid, model) not in refs.responses:
        errors.add(
            line, "model", gettext("model %(model)r has no response to question %(question_id)r") % {"model": model, "question_id": qid}
        )
        ok = False
    return ok


def _check_annotator(
    line: int, annotator: str | None, errors: ErrorCollector, refs: _References, create_experts: bool, new_experts: set[str]
) -> bool:
    """The annotator must be an expert, or be unknown with `create_experts` (then it joins `new_experts`)."""
    if annotator is None:
        return True
    user = refs.users.get(annotator)
    if user is None and not create_experts:
        errors.add(
            line,
            "annotator",
            gettext("unknown annotator %(annotator)r (pass --create-experts to create expert accounts)") % {"annotator": annotator},
        )
        return False
    if user is not None and not has_role(user, Role.EXPERT):
        errors.add(line, "annotator", gettext("user %(annotator)r is not an expert") % {"annotator": annotator})
        return False
    if user is None:
        new_experts.add(annotator)
    return True


def _check_detail(line: int, record: dict, errors: ErrorCollector, qid: str | None, expected: int | None) -> bool:
    """`detail` must be a list of 0/1 with one value per rubric item of the question (when it is known)."""
    detail = record.get("detail")
    if "detail" not in record:
        errors.add(line, "detail", gettext("missing key"))
        return False
    if not isinstance(detail, list):
        errors.add(line, "detail", gettext("must be a list of 0/1, found %(found)s") % {"found": type_name(detail)})
        return False
    ok = True
    for i, v in enumerate(detail):
        if isinstance(v, bool) or v not in (0, 1):
            errors.add(line, f"detail[{i}]", gettext("must be 0 or 1, found %(value)r") % {"value": v})
            ok = False
            break
    if expected is not None and len(detail) != expected:
        errors.add(
            line,
            "detail",
            gettext("has %(values)d values but question %(question_id)r has %(criteria)d rubric items")
            % {"values": len(detail), "question_id": qid, "criteria": expected},
        )
        ok = False
    return ok


def _check_reasons(line: int, record: dict, errors: ErrorCollector) -> bool:
    """Optional `reasons` must be strings, one per `detail` value (when `detail` is a list)."""
    reasons, detail = record.get("reasons"), record.get("detail")
    if reasons is None:
        return True
    if not isinstance(reasons, list) or not all(isinstance(r, str) for r in reasons):
        errors.add(line, "reasons", gettext("must be a list of strings"))
        return False
    if isinstance(detail, list) and len(reasons) != len(detail):
        errors.add(
            line, "reasons", gettext("has %(entries)d entries but detail has %(values)d") % {"entries": len(reasons), "values": len(detail)}
        )
        return False
    return True


def _is_first_judgment(
    entry: _JudgmentLine, errors: ErrorCollector, refs: _References, first_line: dict[tuple[int, str], int], campaign_name: str
) -> bool:
    """An annotator judges a response once: not twice in the file, and not again in the campaign."""
    key = (entry.response_id, entry.annotator)
    if key in first_line:
        errors.add(
            entry.line,
            "annotator",
            f"{entry.annotator!r} already judged this response (model {entry.model!r}, question {entry.question_id!r}) on line {first_line[key]}",
        )
        return False
    if key in refs.judged:
        errors.add(entry.line, "annotator", f"{entry.annotator!r} already judged this response in campaign {campaign_name!r}")
        return False
    return True


# --- writing (inside one transaction) ------------------------------------------------------------


def _create_experts(usernames: set[str], users: dict[str, User]) -> list[str]:
    """Create an expert account (no usable password) per username, add it to `users`; return the names."""
    created = []
    expert_group, _ = Group.objects.get_or_create(name=Role.EXPERT.value)
    for username in sorted(usernames):
        user = User(username=username)
        user.set_unusable_password()
        user.save()
        user.groups.add(expert_group)
        ExpertProfile.objects.get_or_create(user=user)
        users[username] = user
        created.append(username)
    return created


def _create_campaign(campaign_name: str, version: DatasetVersion, judged: list[_JudgmentLine], created_by: User | None) -> Campaign:
    """A closed blind test whose overlap is the most common number of judgments per response."""
    per_response = Counter(j.response_id for j in judged)
    overlap = Counter(per_response.values()).most_common(1)[0][0]
    return Campaign.objects.create(
        name=campaign_name,
        kind=Campaign.Kind.BLIND_TEST,
        status=Campaign.Status.CLOSED,
        version=version,
        overlap=overlap,
        created_by=created_by,
    )


def _add_campaign_responses(campaign: Campaign, judged: list[_JudgmentLine]) -> tuple[int, dict[int, int]]:
    """Add the judged responses the campaign lacks, and their models; return (added, response id → campaign response id)."""
    in_campaign = dict(CampaignResponse.objects.filter(campaign=campaign).values_list("response_id", "id"))
    # Seeded by the campaign and its size, so a re-run of the same import gives the same order.
    rng = random.Random(f"{campaign.pk}:{len(in_campaign)}")
    item_of_new: dict[int, int] = {}  # a dict keeps first-seen order, so each draw goes to the same response as before
    for j in judged:
        if j.response_id not in in_campaign and j.response_id not in item_of_new:
            item_of_new[j.response_id] = j.item_id
    new_crs = [
        CampaignResponse(campaign=campaign, response_id=rid, item_id=item_id, order_key=rng.randrange(2**31))
        for rid, item_id in item_of_new.items()
    ]
    CampaignResponse.objects.bulk_create(new_crs, batch_size=2000)
    in_campaign = dict(CampaignResponse.objects.filter(campaign=campaign).values_list("response_id", "id"))
    model_ids = set(ModelResponse.objects.filter(id__in=in_campaign).values_list("model_id", flat=True))
    campaign.language_models.add(*model_ids)
    return len(new_crs), in_campaign


def _write_submitted_judgments(judged: list[_JudgmentLine], in_campaign: dict[int, int], users: dict[str, User]) -> tuple[int, int]:
    """Create one assignment per line with its judgments, then submit them all; return (assignments, judgments)."""
    assignments = [
        Assignment(campaign_response_id=in_campaign[j.response_id], expert=users[j.annotator], status=Assignment.Status.RESERVED)
        for j in judged
    ]
    Assignment.objects.bulk_create(assignments, batch_size=2000)
    assignment_of = {(a.campaign_response_id, a.expert_id): a.pk for a in assignments}  # pks set by bulk_create
    judgments = [
        Judgment(
            assignment_id=assignment_of[(in_campaign[j.response_id], users[j.annotator].pk)],
            criterion_id=cid,
            hit=bool(v),
            rationale=reason,
        )
        for j in judged
        for cid, v, reason in zip(j.criterion_ids, j.detail, j.reasons)
    ]
    Judgment.objects.bulk_create(judgments, batch_size=5000)
    # Submitting last: the database refuses new judgments on a submitted assignment.
    Assignment.objects.filter(id__in=list(assignment_of.values())).update(status=Assignment.Status.SUBMITTED, submitted_at=timezone.now())
    return len(assignments), len(judgments)
