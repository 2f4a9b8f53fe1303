"""A real campaign, built as the platform builds one: seeded, judged through the workspace, corrected, adjudicated, reported."""

import json

from django.apps import apps
from django.core import serializers
from django.core.management import call_command

from heartbench_core.backup import _campaign_querysets

CAMPAIGN = "demo-blind-test"
RATIONALE = "The response reflects the user's feeling before advising."


def _work_through(assignment, expert, *, submit: bool = True):
    from annotation.services.workspace import DraftEntry, save_draft, submit_assignment
    from heartbench_core.models import Criterion

    criteria = Criterion.objects.filter(item_id=assignment.campaign_response.item_id).order_by("position")
    entries = [
        DraftEntry(criterion_id=c.pk, rationale=f"{RATIONALE} ({expert.username}, {c.position})", hit=(c.position + expert.pk) % 3 != 0)
        for c in criteria
    ]
    save_draft(assignment=assignment, expert=expert, entries=entries[: len(entries) // 2], active_seconds=30)
    if submit:
        save_draft(assignment=assignment, expert=expert, entries=entries, active_seconds=45)
        submit_assignment(assignment=assignment, expert=expert, active_seconds=5)
    return entries


def build_real_campaign() -> dict:
    """seed_demo, then experts' submitted work, a draft, corrections, discussion, an adjudication, a calibration, reports."""
    from annotation.models import Assignment, Campaign
    from annotation.services.assignment import assign_next_response
    from annotation.services.workspace import (
        DraftEntry,
        cast_vote,
        decide_correction,
        mark_discussion_seen,
        post_comment,
        request_correction,
    )
    from heartbench_core.blindness import record_exposures
    from heartbench_core.models import User
    from validation.services.agreement_reports import create_agreement_report
    from validation.services.golden import adjudicate
    from validation.services.release import change_release_policy

    call_command("seed_demo", verbosity=0)
    users = {u.username: u for u in User.objects.all()}
    campaign = Campaign.objects.get(name=CAMPAIGN)
    experts = [users["expert1"], users["expert2"], users["expert3"]]
    for _round in range(4):
        for expert in experts:
            assignment = assign_next_response(expert=expert, campaign=campaign)
            if assignment is not None:
                _work_through(assignment, expert)
    # A draft in progress.
    draft = assign_next_response(expert=experts[2], campaign=campaign)
    assert draft is not None
    _work_through(draft, experts[2], submit=False)
    # A response all three submitted: its discussion is open.
    submitted = Assignment.objects.filter(campaign_response__campaign=campaign, status="submitted")
    shared = next(
        cr
        for cr in submitted.values_list("campaign_response_id", flat=True).order_by("campaign_response_id")
        if submitted.filter(campaign_response_id=cr).count() == 3
    )
    first, _second, _third = (submitted.get(campaign_response_id=shared, expert=e) for e in experts)
    criterion_ids = _criteria(first)
    mark_discussion_seen(assignment=first, expert=experts[0])
    post_comment(assignment=first, expert=experts[0], body="I read criterion 1 differently.", criterion_id=criterion_ids[0])
    cast_vote(assignment=first, expert=experts[0], criterion_id=criterion_ids[0], hit=True)
    # An accepted post-discussion revision (the blind verdict stays) …
    first.refresh_from_db()
    after = request_correction(
        assignment=first,
        expert=experts[0],
        reason="The discussion convinced me.",
        entries=[
            DraftEntry(
                criterion_id=criterion_ids[0], rationale="After the discussion: it does explore.", hit=not _hit(first, criterion_ids[0])
            )
        ],
    )
    assert after.after_discussion
    decide_correction(correction=after, admin=users["admin"], accept=True, note="recorded")
    # … and an accepted pre-discussion correction, applied to the submitted judgments.
    other = submitted.filter(expert=experts[1]).exclude(campaign_response_id=shared).first()
    changed = _criteria(other)[0]
    before = request_correction(
        assignment=other,
        expert=experts[1],
        reason="I misread the criterion.",
        entries=[DraftEntry(criterion_id=changed, rationale="Corrected: I misread it at first.", hit=not _hit(other, changed))],
    )
    assert not before.after_discussion
    decide_correction(correction=before, admin=users["admin"], accept=True, note="fine")
    # An adjudication by a senior reviewer who did not rate the response.
    reviewer = next(
        users[r]
        for r in ("reviewer4", "reviewer3", "reviewer2")
        if not Assignment.objects.filter(campaign_response_id=shared, expert=users[r]).exists()
    )
    adjudicate(
        reviewer=reviewer,
        campaign_response=first.campaign_response,
        criterion=first.campaign_response.item.criteria.get(pk=criterion_ids[1]),
        hit=True,
        cause="ambiguous_criterion",
        note="The criterion reads both ways; the response does explore.",
    )
    # expert4 takes the calibration.
    calibration = Campaign.objects.get(name="demo-calibration")
    while (assignment := assign_next_response(expert=users["expert4"], campaign=calibration)) is not None:
        _work_through(assignment, users["expert4"])
    # An admin saw some responses unblinded.
    record_exposures(
        user=users["admin"], response_ids=list(campaign.responses.values_list("response_id", flat=True)[:3]), via="adjudication"
    )
    change_release_policy(dataset=campaign.version.dataset, admin=users["admin"], reason="pilot sized", min_pairs_per_ability=2)
    create_agreement_report(campaign=campaign)  # under the release policy: it sets the gate
    create_agreement_report(campaign=campaign, resamples=50, exclude_catastrophic=True)  # exploratory
    return {"campaign": campaign, "users": users, "shared": shared}


def _criteria(assignment) -> list[int]:
    return list(assignment.judgments.order_by("criterion__position").values_list("criterion_id", flat=True))


def _hit(assignment, criterion_id) -> bool:
    return bool(assignment.judgments.get(criterion_id=criterion_id).hit)


def snapshot(campaign_name: str) -> dict[str, list]:
    """Every exported row as data, users named by username, so two installations compare equal."""
    campaign = apps.get_model("annotation", "Campaign").objects.get(name=campaign_name)
    return {
        label: [
            _sorted_many_to_many(qs.model, json.loads(json.dumps(r, default=str)))
            for r in serializers.serialize("python", qs, use_natural_foreign_keys=True)
        ]
        for label, qs in _campaign_querysets(campaign.name)
    }


def _sorted_many_to_many(model, record: dict) -> dict:
    """Many-to-many members come back in no particular order (PostgreSQL): compare them as sets."""
    for field in model._meta.many_to_many:
        if field.name in record["fields"]:
            record["fields"][field.name] = sorted(record["fields"][field.name], key=json.dumps)
    return record


def report_without_times(report) -> dict:
    """A report's result and inputs, minus what differs between two computations of the same data."""
    inputs = {k: v for k, v in report.inputs.items() if k != "computed_at"}
    return {"result": report.result, "inputs": inputs, "parameters": report.parameters, "exploratory": report.exploratory}
