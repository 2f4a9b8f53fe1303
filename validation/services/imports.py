"""Import human judgments made elsewhere (an earlier blind test kept in spreadsheets).

The import runs in four steps: find the campaign (or the version a new one will use), load
what the lines refer to, check every line (collecting all errors, writing nothing), then write
everything in one transaction.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import IO, NamedTuple, TypeAlias, TypeVar, cast

import numpy as np
from django.contrib.auth.models import Group
from django.core.exceptions import ValidationError
from django.db import connection, transaction
from django.utils import timezone
from django.utils.translation import gettext

from annotation.models import Assignment, Campaign, CampaignResponse, ExpertProfile, Judgment
from annotation.services import tallies
from heartbench_core.bulk import copy_lines, copy_text, copy_time, may_skip_row_triggers, next_ids, references_hold, skipped_row_triggers
from heartbench_core.jsonl import ErrorCollector, InputFileError, type_name
from heartbench_core.lib.jsonl import LineError, read_jsonl, source_name
from heartbench_core.models import Criterion, DatasetVersion, Item, LanguageModel, ModelResponse, User, new_public_id
from heartbench_core.roles import Role, has_role
from heartbench_core.services.datasets import get_version

T = TypeVar("T")


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
    experts: set[str]  # the usernames in `users` that hold the expert role
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


@dataclass
class _Judged:
    """The checked lines of every file, column by column: one entry per line, and the flat verdicts of all lines.

    Columns rather than an object per line: a blind test at a hundred times HeartBench's size
    has 500,000 lines and five million verdicts.
    """

    files: list[str]  # file name per line
    lines: list[int]  # line number per line
    response_ids: list[int]
    item_ids: list[int]
    annotators: list[str]
    criterion_ids: list[list[int]]  # the rubric of each line's question (shared lists, not copies)
    detail: list  # every line's values, one after the other: 0/1 once checked
    reasons: list  # as many rationales as values
    first_line: dict[tuple[int, str], tuple[str, int]]  # (response id, annotator) → (file, line) that judged it
    models: set[str]  # the models whose responses the lines judge

    def __len__(self) -> int:
        return len(self.lines)


Source: TypeAlias = str | Path | IO


def import_judgments(
    *,
    source: Source | Sequence[Source],
    dataset_name: str,
    campaign_name: str,
    version_label: str | None = None,
    create_experts: bool = False,
    created_by: User | None = None,
    name: str | None = None,
) -> JudgmentImportOutcome:
    """Import `{"question_id", "model", "annotator", "detail": [0, 1, …], "reasons"?}` lines; atomic.

    `source` is one file or a list of files, imported together: every file is checked, and any
    bad line in any of them is an error naming its file, line and field, and nothing is written.
    `detail` covers every rubric item of the question in order (其他 included). The campaign is
    created from the imported responses when it does not exist. `name` names a single source.
    """
    campaign_name = (campaign_name or "").strip()
    campaign, version = _find_campaign(campaign_name, dataset_name, version_label)
    refs = _load_references(version, campaign)
    sources: list[Source] = list(source) if isinstance(source, (list, tuple)) else [cast(Source, source)]
    names = [name or source_name(s) for s in sources] if len(sources) == 1 else [source_name(s) for s in sources]
    collectors = [ErrorCollector(n) for n in names]
    judged = _Judged([], [], [], [], [], [], [], [], {}, set())
    new_experts: set[str] = set()
    for src, errors in zip(sources, collectors):
        _read_judgment_lines(src, errors, refs, judged, new_experts, campaign_name=campaign_name, create_experts=create_experts)
    _check_values(judged, collectors)
    problems = sorted((e for c in collectors for e in c.errors), key=lambda e: (names.index(e.file), e.line or 0))
    if not len(judged) and not problems:
        problems = [LineError(names[0] if len(names) == 1 else ", ".join(names), None, None, gettext("the file holds no judgments"))]
    if problems:
        raise InputFileError(problems)
    with transaction.atomic():
        created_names = _create_experts(new_experts, refs.users)
        campaign_created = campaign is None
        if campaign is None:
            campaign = _create_campaign(campaign_name, version, judged, created_by)
        user_ids = [refs.users[a].pk for a in judged.annotators]
        campaign.experts.add(*set(user_ids))
        campaign.language_models.add(*LanguageModel.objects.filter(name__in=judged.models).values_list("pk", flat=True))
        fast = may_skip_row_triggers(_WRITTEN_TABLES, _REPLACED_TRIGGERS)
        with skipped_row_triggers() if fast else nullcontext():
            if fast:
                _lock_references(campaign, judged, user_ids)
            responses_added, in_campaign, new_entries = _add_campaign_responses(campaign, judged)
            assignments, judgments, assignment_ids = _write_submitted_judgments(campaign.pk, judged, in_campaign, user_ids)
        if fast:
            tallies.count_inserted(campaign_response_ids=new_entries, assignment_ids=assignment_ids)
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
    experts = {username for username, user in users.items() if has_role(user, Role.EXPERT)}
    judged: set[tuple[int, str]] = set()
    if campaign is not None:
        judged = set(
            Assignment.objects.filter(campaign_response__campaign=campaign).values_list(
                "campaign_response__response_id", "expert__username"
            )
        )
    return _References(version, rubrics, responses, {model for _, model in responses}, users, experts, judged)


# --- checking the lines --------------------------------------------------------------------------


def _read_judgment_lines(
    source: Source,
    errors: ErrorCollector,
    refs: _References,
    judged: _Judged,
    new_experts: set[str],
    *,
    campaign_name: str,
    create_experts: bool,
) -> None:
    """Check every line of one file; add the good ones to `judged` and the annotators to create to `new_experts`.

    A line whose names all resolve and whose lists have the rubric's length takes the quick path:
    its values are checked later, all files' at once (`_check_values`). Any other line goes through
    the checks that name each problem.
    """
    file = errors.file
    rubrics, responses, experts, users = refs.rubrics, refs.responses, refs.experts, refs.users
    first_line, already = judged.first_line, refs.judged
    for line, record in read_jsonl(source, errors):
        qid, model, annotator = record.get("question_id"), record.get("model"), record.get("annotator")
        detail, reasons = record.get("detail"), record.get("reasons")
        if type(qid) is str and type(model) is str and type(annotator) is str and type(detail) is list:
            qid, model, annotator = qid.strip(), model.strip(), annotator.strip()
            rubric = rubrics.get(qid)
            response_id = responses.get((qid, model))
            known = annotator in experts or (create_experts and annotator and annotator not in users)
            if (
                rubric is not None
                and response_id is not None
                and known
                and len(detail) == len(rubric.criterion_ids)
                and (reasons is None or (type(reasons) is list and len(reasons) == len(detail)))
                and (response_id, annotator) not in first_line
                and (response_id, annotator) not in already
            ):
                if annotator not in users:
                    new_experts.add(annotator)
                judged.models.add(model)
                _add(judged, file, line, response_id, rubric, annotator, detail, reasons)
                continue
        entry = _check_line(line, record, errors, refs, create_experts, new_experts)
        if entry is None or not _is_first_judgment(entry, errors, refs, judged, campaign_name):
            continue
        judged.models.add(entry.model)
        _add(judged, file, line, entry.response_id, refs.rubrics[entry.question_id], entry.annotator, entry.detail, entry.reasons)


def _add(
    judged: _Judged, file: str, line: int, response_id: int, rubric: _Rubric, annotator: str, detail: list, reasons: list | None
) -> None:
    judged.files.append(file)
    judged.lines.append(line)
    judged.response_ids.append(response_id)
    judged.item_ids.append(rubric.item_id)
    judged.annotators.append(annotator)
    judged.criterion_ids.append(rubric.criterion_ids)
    judged.detail.extend(detail)
    judged.reasons.extend([""] * len(detail) if reasons is None else reasons)
    judged.first_line[(response_id, annotator)] = (file, line)


def _check_values(judged: _Judged, collectors: list[ErrorCollector]) -> None:
    """Check every value of every `detail` (0 or 1, not a boolean) and every rationale (a string), all lines at once.

    The common case, nothing wrong, costs a few passes in C over the flat lists; only otherwise
    are the lines at fault looked for, each named with its first wrong value, as the line-by-line
    checks would. Values are left as ints 0 and 1.
    """
    types = set(map(type, judged.detail))
    values_ok = types <= {int}
    if values_ok and judged.detail:
        flat = np.fromiter(judged.detail, dtype=np.int64, count=len(judged.detail))
        values_ok = bool(((flat == 0) | (flat == 1)).all())
    reasons_ok = set(map(type, judged.reasons)) <= {str}
    if values_ok and reasons_ok:
        return
    by_file = {c.file: c for c in collectors}
    start = 0
    for i, criteria in enumerate(judged.criterion_ids):
        end = start + len(criteria)
        errors = by_file[judged.files[i]]
        for position, value in enumerate(judged.detail[start:end]):
            if isinstance(value, bool) or value not in (0, 1):
                errors.add(judged.lines[i], f"detail[{position}]", gettext("must be 0 or 1, found %(value)r") % {"value": value})
                break
        if not all(type(r) is str for r in judged.reasons[start:end]):
            errors.add(judged.lines[i], "reasons", gettext("must be a list of strings"))
        start = end
    if types != {int}:  # 0.0 and 1.0 are read as 0 and 1
        judged.detail = [int(v) if not isinstance(v, bool) and v in (0, 1) else v for v in judged.detail]


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


def _is_first_judgment(entry: _JudgmentLine, errors: ErrorCollector, refs: _References, judged: _Judged, campaign_name: str) -> bool:
    """An annotator judges a response once: not twice in the files, and not again in the campaign."""
    key = (entry.response_id, entry.annotator)
    if key in judged.first_line:
        file, first = judged.first_line[key]
        where = f"on line {first}" if file == errors.file else f"on line {first} of {file}"
        errors.add(
            entry.line,
            "annotator",
            f"{entry.annotator!r} already judged this response (model {entry.model!r}, question {entry.question_id!r}) {where}",
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


def _create_campaign(campaign_name: str, version: DatasetVersion, judged: _Judged, created_by: User | None) -> Campaign:
    """A closed blind test whose overlap is the most common number of judgments per response."""
    per_response = Counter(judged.response_ids)
    overlap = Counter(per_response.values()).most_common(1)[0][0]
    return Campaign.objects.create(
        name=campaign_name,
        kind=Campaign.Kind.BLIND_TEST,
        status=Campaign.Status.CLOSED,
        version=version,
        overlap=overlap,
        created_by=created_by,
    )


def _add_campaign_responses(campaign: Campaign, judged: _Judged) -> tuple[int, dict[int, int], list[int]]:
    """Add the judged responses the campaign lacks; return (added, response id → campaign response id, the new ids)."""
    in_campaign = dict(CampaignResponse.objects.filter(campaign=campaign).values_list("response_id", "id"))
    # Seeded by the campaign and its size, so a re-run of the same import gives the same order.
    rng = random.Random(f"{campaign.pk}:{len(in_campaign)}")
    item_of_new: dict[int, int] = {}  # a dict keeps first-seen order, so each draw goes to the same response as before
    for response_id, item_id in zip(judged.response_ids, judged.item_ids):
        if response_id not in in_campaign and response_id not in item_of_new:
            item_of_new[response_id] = item_id
    order_keys = [rng.randrange(2**31) for _ in item_of_new]
    if connection.vendor == "postgresql" and item_of_new:
        ids = next_ids(CampaignResponse, len(item_of_new))
        now = copy_time(timezone.now())
        copy_lines(
            CampaignResponse,
            ("id", "campaign_id", "response_id", "item_id", "is_gold", "order_key", "created_at"),
            (
                f"{pk}\t{campaign.pk}\t{rid}\t{item_id}\tf\t{key}\t{now}\n"
                for pk, (rid, item_id), key in zip(ids, item_of_new.items(), order_keys)
            ),
        )
    else:
        new_crs = [
            CampaignResponse(campaign=campaign, response_id=rid, item_id=item_id, order_key=key)
            for (rid, item_id), key in zip(item_of_new.items(), order_keys)
        ]
        CampaignResponse.objects.bulk_create(new_crs, batch_size=2000)
        ids = [cr.pk for cr in new_crs]
    in_campaign.update(zip(item_of_new, ids))
    return len(item_of_new), in_campaign, ids


# Written by COPY without triggers when the role may: every trigger on them is one the import does the work of.
_WRITTEN_TABLES = (CampaignResponse._meta.db_table, Assignment._meta.db_table, Judgment._meta.db_table)
_REPLACED_TRIGGERS = tallies.REPLACED_BY_COUNTING | {
    (Judgment._meta.db_table, "annotation_judgment_immutable"),
    (Judgment._meta.db_table, "annotation_judgment_immutable_insert"),
}


def _lock_references(campaign: Campaign, judged: _Judged, user_ids: list[int]) -> None:
    """Without triggers, the foreign-key checks made here, set-based.

    Every row the new rows will reference is locked as a foreign-key check would lock it, and
    must still exist. The tallies are counted afterwards (`tallies.count_inserted`); the guard on
    submitted judgments has nothing to guard: the assignments written are this transaction's own.
    """
    criteria = {c for rubric in {id(c): c for c in judged.criterion_ids}.values() for c in rubric}
    existing = CampaignResponse.objects.filter(campaign=campaign).values_list("pk", flat=True)
    referenced = (
        (Campaign, [campaign.pk]),
        (ModelResponse, judged.response_ids),
        (Item, judged.item_ids),
        (User, user_ids),
        (Criterion, criteria),
        (CampaignResponse, list(existing)),
    )
    if not references_hold(referenced):
        raise ValidationError(gettext("the data changed during the import; nothing was written, try again"))


def _write_submitted_judgments(
    campaign_id: int, judged: _Judged, in_campaign: dict[int, int], user_ids: list[int]
) -> tuple[int, int, list[int]]:
    """Create one submitted assignment per line with its judgments; return (assignments, judgments, the assignments' ids)."""
    cr_ids = [in_campaign[rid] for rid in judged.response_ids]
    if connection.vendor == "postgresql":
        ids = _copy_submitted_judgments(campaign_id, judged, cr_ids, user_ids)
        return len(cr_ids), len(judged.detail), ids
    assignments = [
        Assignment(campaign_response_id=cr, campaign_id=campaign_id, expert_id=user, status=Assignment.Status.RESERVED)
        for cr, user in zip(cr_ids, user_ids)
    ]
    Assignment.objects.bulk_create(assignments, batch_size=2000)
    judgments = [
        Judgment(assignment_id=a.pk, criterion_id=cid, hit=bool(v), rationale=reason)
        for a, cid, v, reason in zip(_repeat_per_value(assignments, judged), _flat_criteria(judged), judged.detail, judged.reasons)
    ]
    Judgment.objects.bulk_create(judgments, batch_size=5000)
    # Submitting last: the database refuses new judgments on a submitted assignment.
    ids = [a.pk for a in assignments]
    Assignment.objects.filter(id__in=ids).update(status=Assignment.Status.SUBMITTED, submitted_at=timezone.now())
    return len(assignments), len(judgments), ids


def _copy_submitted_judgments(campaign_id: int, judged: _Judged, cr_ids: list[int], user_ids: list[int]) -> list[int]:
    """PostgreSQL: COPY the judgments, then their assignments, submitted; return the assignments' ids.

    The assignments' ids are drawn first and the judgments written before them: the foreign keys
    are checked at commit, and the guard on submitted judgments finds no submitted assignment of
    theirs (it checks each INSERT once, over its rows), so the assignments are written submitted
    straight away, with or without triggers, and never updated.
    """
    stamp = copy_time(timezone.now())
    ids = next_ids(Assignment, len(cr_ids))
    copy_lines(Judgment, ("assignment_id", "criterion_id", "hit", "rationale", "updated_at"), _judgment_rows(judged, ids, stamp))
    status = Assignment.Status.SUBMITTED
    copy_lines(
        Assignment,
        (
            "id",
            "public_id",
            "campaign_response_id",
            "campaign_id",
            "expert_id",
            "status",
            "reserved_at",
            "submitted_at",
            "active_seconds",
            "submitted_while_paused",
        ),
        (
            f"{pk}\t{new_public_id()}\t{cr}\t{campaign_id}\t{user}\t{status}\t{stamp}\t{stamp}\t0\tf\n"
            for pk, cr, user in zip(ids, cr_ids, user_ids)
        ),
    )
    return ids


def _judgment_rows(judged: _Judged, assignment_ids: list[int], stamp: str) -> Iterator[str]:
    """COPY lines of every judgment, one string per assignment; the rationales are escaped only where a line needs it."""
    hits = ("f", "t")
    suffix = f"\t{stamp}\n"
    cells: dict[int, list[str]] = {}  # per rubric (the lists are shared by the lines of a question): "\t<criterion>\t"
    detail, reasons = judged.detail, judged.reasons
    start = 0
    for pk, criteria in zip(assignment_ids, judged.criterion_ids):
        end = start + len(criteria)
        columns = cells.get(id(criteria))
        if columns is None:
            columns = cells[id(criteria)] = [f"\t{c}\t" for c in criteria]
        texts = reasons[start:end]
        joined = "".join(texts)
        if "\\" in joined or "\t" in joined or "\n" in joined or "\r" in joined:
            texts = [copy_text(t) for t in texts]
        head = str(pk)
        yield "".join([f"{head}{c}{hits[v]}\t{t}{suffix}" for c, v, t in zip(columns, detail[start:end], texts)])
        start = end


def _repeat_per_value(per_line: Sequence[T], judged: _Judged) -> Iterator[T]:
    """Each line's entry once per value of its `detail`."""
    for entry, criteria in zip(per_line, judged.criterion_ids):
        for _ in criteria:
            yield entry


def _flat_criteria(judged: _Judged) -> Iterator[int]:
    """The criterion of every value, line after line."""
    for criteria in judged.criterion_ids:
        yield from criteria
