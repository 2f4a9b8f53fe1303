"""Import human judgments made elsewhere (an earlier blind test kept in spreadsheets)."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from annotation.models import Assignment, Campaign, CampaignResponse, ExpertProfile, Judgment
from heartbench_core.jsonl import ErrorCollector
from heartbench_core.lib.jsonl import read_jsonl, source_name, type_name
from heartbench_core.models import ModelResponse
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


def import_judgments(
    *,
    source: str | Path | IO,
    dataset_name: str,
    campaign_name: str,
    version_label: str | None = None,
    create_experts: bool = False,
    created_by=None,
    name: str | None = None,
) -> JudgmentImportOutcome:
    """Import `{"question_id", "model", "annotator", "detail": [0, 1, …], "reasons"?}` lines; atomic.

    `detail` covers every rubric item of the question in order (其他 included). The campaign is
    created from the imported responses when it does not exist. Any bad line is an error naming
    it, and nothing is written.
    """
    campaign_name = (campaign_name or "").strip()
    if not campaign_name:
        raise ValidationError({"campaign": "a campaign name is required"})
    campaign = Campaign.objects.filter(name=campaign_name).select_related("version__dataset").first()
    if campaign is not None:
        if campaign.version.dataset.name != dataset_name:
            raise ValidationError({"campaign": f"campaign {campaign_name!r} belongs to dataset {campaign.version.dataset.name!r}, not {dataset_name!r}"})
        if version_label and campaign.version.label != version_label:
            raise ValidationError({"version": f"campaign {campaign_name!r} uses version {campaign.version.label!r}, not {version_label!r}"})
        version = campaign.version
    else:
        version = get_version(dataset_name, version_label)

    file_name = name or source_name(source)
    errors = ErrorCollector(file_name)
    criteria = {}
    for item_id, qid, cid in version.items.values_list("id", "question_id", "criteria__id").order_by("position", "criteria__position"):
        entry = criteria.setdefault(qid, (item_id, []))
        if cid is not None:
            entry[1].append(cid)
    responses = {
        (qid, model): rid
        for rid, qid, model in ModelResponse.objects.filter(dataset=version.dataset).values_list("id", "question_id", "model__name")
    }
    known_models = {model for _, model in responses}
    User = get_user_model()
    users = {u.username: u for u in User.objects.filter(is_active=True).prefetch_related("groups")}
    existing_pairs = set()
    if campaign is not None:
        existing_pairs = set(
            Assignment.objects.filter(campaign_response__campaign=campaign).values_list(
                "campaign_response__response_id", "expert__username"
            )
        )

    rows = []
    seen: dict[tuple[int, str], int] = {}
    new_experts: set[str] = set()
    for line, record in read_jsonl(source, errors):
        bad = False
        values = {}
        for key in ("question_id", "model", "annotator"):
            value = record.get(key)
            if key not in record:
                errors.add(line, key, "missing key")
                bad = True
            elif not isinstance(value, str) or not value.strip():
                errors.add(line, key, f"must be a non-empty string, found {type_name(value)}")
                bad = True
            else:
                values[key] = value.strip()
        qid, model, annotator = values.get("question_id"), values.get("model"), values.get("annotator")
        if qid is not None and qid not in criteria:
            errors.add(line, "question_id", f"unknown question_id {qid!r} in {version}")
            bad = True
        if model is not None and model not in known_models:
            errors.add(line, "model", f"unknown model {model!r}: import its responses first")
            bad = True
        elif model is not None and qid in criteria and (qid, model) not in responses:
            errors.add(line, "model", f"model {model!r} has no response to question {qid!r}")
            bad = True
        if annotator is not None:
            user = users.get(annotator)
            if user is None and not create_experts:
                errors.add(line, "annotator", f"unknown annotator {annotator!r} (pass --create-experts to create expert accounts)")
                bad = True
            elif user is not None and not has_role(user, Role.EXPERT):
                errors.add(line, "annotator", f"user {annotator!r} is not an expert")
                bad = True
            elif user is None:
                new_experts.add(annotator)
        detail = record.get("detail")
        expected = len(criteria[qid][1]) if qid in criteria else None
        if "detail" not in record:
            errors.add(line, "detail", "missing key")
            bad = True
        elif not isinstance(detail, list):
            errors.add(line, "detail", f"must be a list of 0/1, found {type_name(detail)}")
            bad = True
        else:
            for i, v in enumerate(detail):
                if isinstance(v, bool) or v not in (0, 1):
                    errors.add(line, f"detail[{i}]", f"must be 0 or 1, found {v!r}")
                    bad = True
                    break
            if expected is not None and len(detail) != expected:
                errors.add(line, "detail", f"has {len(detail)} values but question {qid!r} has {expected} rubric items")
                bad = True
        reasons = record.get("reasons")
        if reasons is not None:
            if not isinstance(reasons, list) or not all(isinstance(r, str) for r in reasons):
                errors.add(line, "reasons", "must be a list of strings")
                bad = True
            elif isinstance(detail, list) and len(reasons) != len(detail):
                errors.add(line, "reasons", f"has {len(reasons)} entries but detail has {len(detail)}")
                bad = True
        if bad:
            continue
        rid = responses[(qid, model)]
        key = (rid, annotator)
        if key in seen:
            errors.add(line, "annotator", f"{annotator!r} already judged this response (model {model!r}, question {qid!r}) on line {seen[key]}")
            continue
        if key in existing_pairs:
            errors.add(line, "annotator", f"{annotator!r} already judged this response in campaign {campaign_name!r}")
            continue
        seen[key] = line
        rows.append((rid, criteria[qid][0], annotator, detail, reasons or [""] * len(detail), criteria[qid][1]))
    if not rows and not errors:
        errors.add(None, None, "the file holds no judgments")
    errors.raise_if_any()

    with transaction.atomic():
        created_names = []
        expert_group, _ = Group.objects.get_or_create(name=Role.EXPERT.value)
        for username in sorted(new_experts):
            user = User(username=username)
            user.set_unusable_password()
            user.save()
            user.groups.add(expert_group)
            ExpertProfile.objects.get_or_create(user=user)
            users[username] = user
            created_names.append(username)
        campaign_created = campaign is None
        if campaign_created:
            per_response = Counter(rid for rid, *_ in rows)
            overlap = Counter(per_response.values()).most_common(1)[0][0]
            campaign = Campaign.objects.create(
                name=campaign_name,
                kind=Campaign.Kind.BLIND_TEST,
                status=Campaign.Status.CLOSED,
                version=version,
                overlap=overlap,
                created_by=created_by,
            )
        in_campaign = dict(CampaignResponse.objects.filter(campaign=campaign).values_list("response_id", "id"))
        rng = random.Random(f"{campaign.pk}:{len(in_campaign)}")
        new_crs = []
        for rid, item_id, *_ in rows:
            if rid not in in_campaign and all(cr.response_id != rid for cr in new_crs):
                new_crs.append(CampaignResponse(campaign=campaign, response_id=rid, item_id=item_id, order_key=rng.randrange(2**31)))
        CampaignResponse.objects.bulk_create(new_crs, batch_size=2000)
        in_campaign = dict(CampaignResponse.objects.filter(campaign=campaign).values_list("response_id", "id"))
        model_ids = set(ModelResponse.objects.filter(id__in=in_campaign).values_list("model_id", flat=True))
        campaign.language_models.add(*model_ids)
        campaign.experts.add(*{users[a].pk for _, _, a, *_ in rows})

        assignments = [
            Assignment(campaign_response_id=in_campaign[rid], expert=users[annotator], status=Assignment.Status.RESERVED)
            for rid, _, annotator, *_ in rows
        ]
        Assignment.objects.bulk_create(assignments, batch_size=2000)
        a_ids = {(a.campaign_response_id, a.expert_id): a.pk for a in assignments}  # pks set by bulk_create
        judgments = []
        for rid, _, annotator, detail, reasons, crit_ids in rows:
            aid = a_ids[(in_campaign[rid], users[annotator].pk)]
            judgments.extend(
                Judgment(assignment_id=aid, criterion_id=cid, hit=bool(v), rationale=reason)
                for cid, v, reason in zip(crit_ids, detail, reasons)
            )
        Judgment.objects.bulk_create(judgments, batch_size=5000)
        # Submitting last: the database refuses new judgments on a submitted assignment.
        now = timezone.now()
        Assignment.objects.filter(id__in=list(a_ids.values())).update(status=Assignment.Status.SUBMITTED, submitted_at=now)
    return JudgmentImportOutcome(
        campaign=campaign,
        campaign_created=campaign_created,
        responses_added=len(new_crs),
        assignments=len(assignments),
        judgments=len(judgments),
        experts_created=created_names,
    )
