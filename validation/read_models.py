"""What each validation screen reads, with the viewer's blind scope applied inside (heartbench_core.read_models).

One read model per screen, called by its page and by its API alike: the agreement dashboard and the
reports, the adjudication queue and its units, the golden labels, the exports, judge–expert
alignment, the release policy and gate, the gold-set builder and the planner. Each finds what the
screen shows, refuses what the viewer's blind scope closes (with the reason), and records as shown
what it shows with other raters' judgments or the judge's verdict. The selectors and
validation.blindness stay the query builders these use.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypedDict

from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import QuerySet
from django.http import Http404
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from annotation.models import Campaign, CampaignResponse, Judgment
from heartbench_core.models import Criterion, Dataset, DatasetVersion, JudgeVerdict
from heartbench_core.read_models import Viewer, one, read_model
from heartbench_core.roles import Role, has_role
from validation import selectors
from validation.alignment import DatasetAlignment, dataset_alignment
from validation.blindness import CLOSED_ALIGNMENT, hidden_entry_ids, record_entry_exposures, visible_entries, without_model_names
from validation.exports import csv_lines, export_chunks, judgment_filter
from validation.filters import AlignmentFilters, DashboardFilters, GoldenLabelFilters, QueueFilters
from validation.formatting import report_csv_rows
from validation.gold_builder import builder_versions
from validation.gold_builder import gold_candidates as gold_candidates  # the gold-set builder's read models, with its list
from validation.gold_builder import gold_draft_sheets as gold_draft_sheets
from validation.gold_builder import gold_drafts as gold_drafts
from validation.models import Adjudication, AgreementReport, BackgroundJob, GoldDraft, GoldenLabel, ReleaseGate, ReleasePolicy
from validation.planner import (
    PlanView,
    design_sentence,
    make_plan,
    pilot_campaigns,
    pilot_sentence,
    plan_json,
    plan_request,
)
from validation.selectors import QueueCounts, QueueEntry, UnitDiscussion
from validation.services.queue_summary import StoredQueue, head_entries, queue_summary, stored_queue
from validation.services.release import policy_differs_from, policy_history, policy_snapshot, release_policy_of

if TYPE_CHECKING:
    from django.core.paginator import Page

    from validation.models import QueueSummary, ReleasePolicyChange

# Why a unit is refused to the senior reviewer who rated its response, by what they came to do.
RATED_IT = {
    "adjudicate": gettext_lazy("You rated this response yourself; another senior reviewer must adjudicate it."),
    "case": gettext_lazy("You rated this response yourself; another senior reviewer writes its case."),
}


@read_model
def entries_shown(viewer: Viewer, entry_ids: Iterable[int], *, via: str) -> int:
    """Record the responses of these campaign entries as shown to the viewer (a page of a list the view paginated)."""
    return record_entry_exposures(user=viewer.user, entry_ids=entry_ids, via=via)


# --- the agreement reports: their list, the dashboard, one report, its job --------------------------------------


@dataclass(frozen=True)
class ReportIndex:
    page: Page
    closed_to_you: frozenset[int]


@read_model
def report_index(viewer: Viewer, page_number: str | int | None) -> ReportIndex:
    """A page of the campaigns with reports; those closed to the viewer are named (and marked) without figures."""
    return ReportIndex(page=selectors.campaigns_with_reports(number=page_number), closed_to_you=viewer.scope.closed_campaign_ids)


class QueueRow(TypedDict):
    """An adjudication-queue entry as a page lists it: the entry, its criterion and where to decide it."""

    entry: QueueEntry
    criterion: Criterion | None
    url: str
    triggers: list[tuple[str, str]]  # (code, label in the reader's language) of why the unit is listed
    judge_reason: str  # the judge's reason for its verdict ('' when it gave none)


@dataclass(frozen=True)
class Dashboard:
    """A campaign's agreement dashboard, or the part of it an htmx poll asks for (`jobs`, `history`)."""

    campaign: Campaign
    report: AgreementReport | None
    report_jobs: QuerySet[BackgroundJob]
    part: str | None  # the part asked for, else the whole page
    every_model: bool  # every model of the per-model tables, not the first ones
    history: QuerySet[AgreementReport] | None = None
    policy: ReleasePolicy | None = None
    summary: QueueSummary | None = None
    queue: list[QueueRow] = field(default_factory=list)


@read_model
def dashboard(viewer: Viewer, campaign_id: int, report_id: int | None, params: Mapping[str, Any], *, htmx: bool) -> Dashboard:
    """The dashboard of a campaign's reports (closed whole while they count responses the viewer judges blind), or the part
    an htmx poll asks for (`DashboardFilters`).

    The polled parts need neither the report's figures nor the adjudication queue (nor record its
    exposures). The report is read without its JSON (1.5 MB for a campaign of 250 experts): the
    page decodes it on first use, when its cached section is not there.
    """
    campaign = campaign_of(viewer, campaign_id)  # the reports break agreement down by criterion and model
    asked = DashboardFilters(params).values
    part, every_model = asked.get("part") if htmx else None, asked.get("models") == "all"
    reports = campaign.agreement_reports.defer(*AgreementReport.LARGE)
    report = one(reports, pk=report_id) if report_id else reports.order_by("-created_at", "-id").first()
    # Read only by the part that shows them; the last 20 reports from their listed columns (the stored agreement figure).
    jobs = campaign.background_jobs.unfinished_reports().select_related("requested_by")[:10]
    history = reports.select_related("gate", "requested_by").order_by("-created_at", "-id")[:20]
    if part in ("jobs", "history"):
        return Dashboard(campaign, report, jobs, part, every_model, history=history)
    policy = release_policy_of(campaign.version.dataset)
    # The queue's figures as stored (computing the queue reads every judgment); the queue page itself is live.
    summary = queue_summary(campaign)
    # The refusal above closed the campaign to anyone it hides an entry from; left out here all the same.
    head = visible_entries(viewer.user, campaign, head_entries(summary))[:10]
    rows = queue_rows(viewer, campaign.pk, head, via="adjudication-queue")
    return Dashboard(campaign, report, jobs, part, every_model, history=history, policy=policy, summary=summary, queue=rows)


@read_model
def campaign_of(viewer: Viewer, campaign_id: int) -> Campaign:
    """A campaign whose reports, queue or exports are asked for: refused whole to an expert of it or of one on its dataset."""
    found = one(Campaign.objects.select_related("version__dataset"), pk=campaign_id)
    viewer.refuse_campaign(found.pk)
    return found


@read_model
def campaign_reports(viewer: Viewer, campaign_id: int) -> QuerySet[AgreementReport]:
    """A campaign's reports, newest first (none of an unknown campaign; refused when closed to the viewer)."""
    viewer.refuse_campaign(campaign_id)
    return AgreementReport.objects.filter(campaign_id=campaign_id).select_related("campaign", "gate").order_by("-created_at", "-id")


@read_model
def report(viewer: Viewer, report_id: int) -> AgreementReport:
    """One report with every figure (refused while its campaign is closed to the viewer)."""
    found = one(AgreementReport.objects.select_related("campaign", "gate"), pk=report_id)
    viewer.refuse_campaign(found.campaign_id)
    return found


@read_model
def background_job(viewer: Viewer, job_id: int) -> BackgroundJob:
    """One requested report or refresh (refused like the reports of its campaign)."""
    job = one(BackgroundJob.objects.select_related("campaign", "requested_by"), pk=job_id)
    viewer.refuse_campaign(job.campaign_id)
    return job


# --- the golden standard and the exports ---------------------------------------------------------------------------


@read_model
def golden_labels(viewer: Viewer, campaign_id: int, params: Mapping[str, Any] | None = None) -> QuerySet[GoldenLabel]:
    """The stored golden standard of a campaign, filtered by `GoldenLabelFilters` (the view records the page it serves as shown, via `entries_shown`)."""
    viewer.refuse_campaign(campaign_id)  # a closed campaign is a 403 whatever is asked; then the filter is checked
    qs = (
        GoldenLabelFilters(params)
        .check()
        .narrow(
            GoldenLabel.objects.filter(campaign_id=campaign_id)
            .select_related("campaign_response__response", "campaign_response__item", "criterion", "adjudication__decided_by")
            .order_by("campaign_response_id", "criterion__position")
        )
    )
    campaign = Campaign.objects.filter(pk=campaign_id).first()
    if campaign is not None and (hidden := hidden_entry_ids(viewer.user, campaign)):
        qs = qs.exclude(campaign_response_id__in=hidden)
    return qs


@read_model
def export_stream(viewer: Viewer, campaign: Campaign, what: str, fmt: str, params: Mapping[str, Any]) -> Iterator[str] | Iterator[bytes]:
    """The judgments (filtered as `params` ask: BadFilter before anything is sent) or golden labels, streamed in chunks.

    COPY on PostgreSQL for the judgments' CSV; each batch of entries is recorded as shown just before
    its rows go, without the entries the viewer must not see.
    """
    only = judgment_filter(params)
    return export_chunks(viewer.person(), campaign, what, fmt, only=only)


@read_model
def report_export(viewer: Viewer, campaign: Campaign, fmt: str) -> str | Iterator[str] | None:
    """The newest report as one JSON line (`jsonl`) or CSV lines; None when none was computed."""
    viewer.refuse_campaign(campaign.pk)
    found = selectors.latest_report(campaign)
    if found is None:
        return None
    if fmt == "jsonl":
        stored = {"report_id": found.pk, "inputs": found.typed_inputs.to_dict(), **found.typed_result.to_dict()}
        return json.dumps(stored, ensure_ascii=False) + "\n"
    return csv_lines(report_csv_rows(found.typed_result))


# --- the adjudication queue and its units ----------------------------------------------------------------------


class CampaignToAdjudicate(TypedDict):
    """A line of the senior reviewers' adjudication page: a campaign, and its counts unless it is closed to the viewer."""

    campaign: Campaign
    counts: QueueCounts | None


@read_model
def campaigns_to_adjudicate(viewer: Viewer) -> list[CampaignToAdjudicate]:
    """The campaigns with units to decide, most to decide first; one closed to the viewer is named without figures."""
    user = viewer.person()
    closed = viewer.scope.closed_campaign_ids
    rows: list[CampaignToAdjudicate] = []
    for campaign in selectors.campaigns_with_judgments():
        if campaign.pk in closed:  # named without figures: its judgments are closed to a rater of it
            rows.append({"campaign": campaign, "counts": None})
            continue
        # The stored queue's figures, less the responses the reviewer rated (their units only are read).
        stored = stored_queue(campaign, viewer=user, reviewer=user)
        rows.append({"campaign": campaign, "counts": QueueCounts(*stored.counts())})
    rows.sort(key=lambda r: -(r["counts"].needs_decision if r["counts"] else -1))
    return rows


@dataclass(frozen=True)
class Queue:
    entries: StoredQueue
    counts: QueueCounts
    filters: QueueFilters  # what was asked for, a bad value with its error


@read_model
def adjudication_queue(viewer: Viewer, campaign: Campaign, params: Mapping[str, Any], *, strict: bool = False) -> Queue:
    """The stored queue (decisions applied at once), less the responses the viewer rated, filtered by `QueueFilters` (a bad
    value: ignored with its error, or with `strict` an `InvalidFilters`, the API's 400); the view takes a page of it."""
    user = viewer.person()
    filters = QueueFilters(params, campaign=campaign)
    wanted = (filters.check() if strict else filters).values
    entries = stored_queue(
        campaign, viewer=user, reviewer=user, show=filters.shown, trigger=wanted.get("trigger", ""), criterion=wanted.get("criterion")
    )
    return Queue(entries=entries, counts=QueueCounts(*entries.counts()), filters=filters)


@read_model
def shown_queue_entries(viewer: Viewer, entries: Iterable[QueueEntry], *, via: str) -> dict[int, str]:
    """Record a page of queue entries as shown; the judge's reasons behind their verdicts, by verdict id (no model names)."""
    entries = list(entries)
    verdicts = JudgeVerdict.objects.filter(pk__in={e.judge_verdict_id for e in entries if e.judge_verdict_id is not None})
    reasons = without_model_names(dict(verdicts.values_list("pk", "rationale")))
    record_entry_exposures(user=viewer.user, entry_ids={e.campaign_response_id for e in entries}, via=via)
    return reasons


@read_model
def queue_rows(viewer: Viewer, campaign_id: int, entries: Iterable[QueueEntry], *, via: str) -> list[QueueRow]:
    """A page of queue entries with their criterion, where to decide them and the judge's reason, recorded as shown."""
    entries = list(entries)
    crit = {c.pk: c for c in Criterion.objects.filter(pk__in={e.criterion_id for e in entries}).select_related("item")}
    reasons = shown_queue_entries(viewer, entries, via=via)
    labels = {value: str(label) for value, label in Adjudication.Trigger.choices}
    return [
        {
            "entry": e,
            "criterion": crit.get(e.criterion_id),
            "url": reverse("validation:adjudicate", args=[campaign_id, e.campaign_response_id, e.criterion_id]),
            "triggers": [(t, labels.get(t, t)) for t in e.triggers],
            "judge_reason": reasons.get(e.judge_verdict_id, "") if e.judge_verdict_id is not None else "",
        }
        for e in entries
    ]


@dataclass(frozen=True)
class Unit:
    """A unit (a response of a campaign, one criterion) the viewer may adjudicate."""

    campaign: Campaign
    entry: CampaignResponse
    criterion: Criterion


@read_model
def adjudication_unit(viewer: Viewer, campaign_id: int, entry_id: int, criterion_id: int, *, rated_it: str = "adjudicate") -> Unit:
    """A unit the viewer may adjudicate: not of a campaign they rate in, nor a response they rated (`rated_it`: what they came to do, said in the refusal), else 403/404."""
    campaign = campaign_of(viewer, campaign_id)
    entry = one(CampaignResponse.objects.select_related("response", "item", "campaign"), pk=entry_id, campaign=campaign)
    viewer.refuse_response(entry.response_id)
    criterion = one(Criterion.objects.select_related("lineage", "item"), pk=criterion_id, item_id=entry.item_id)
    if entry.assignments.filter(expert=viewer.person()).exists():
        raise PermissionDenied(str(RATED_IT[rated_it]))
    return Unit(campaign, entry, criterion)


def _submitted_judgments(unit: Unit) -> QuerySet[Judgment]:
    """The experts' submitted judgments of a unit, by their names (numbered in this order: Rater 1, 2, …)."""
    return Judgment.objects.filter(
        assignment__campaign_response=unit.entry, assignment__status="submitted", criterion=unit.criterion
    ).order_by("assignment__expert__username")


@dataclass(frozen=True)
class UnitPage:
    """What the adjudication page shows of a unit: the experts' verdicts, the judge's, the discussion and the decisions."""

    judgments: list[Judgment]
    verdicts: list[JudgeVerdict]
    verdict: JudgeVerdict | None
    discussion: UnitDiscussion
    history: QuerySet[Adjudication]


@read_model
def unit_page(viewer: Viewer, unit: Unit) -> UnitPage:
    """The unit with the submitted judgments, the judge's verdicts (no model names in their reasons), recorded as shown."""
    entry, criterion = unit.entry, unit.criterion
    judgments = list(_submitted_judgments(unit).select_related("assignment__expert"))
    verdicts = list(
        JudgeVerdict.objects.filter(response_id=entry.response_id, criterion__lineage_id=criterion.lineage_id)
        .select_related("run__version", "criterion__lineage", "run__endpoint_run__template_revision__template")
        .order_by("-run__created_at", "-run_id")
    )
    reasons = without_model_names({v.pk: v.rationale for v in verdicts})
    for v in verdicts:
        v.rationale = reasons[v.pk]
    verdict = next((v for v in verdicts if v.criterion_id == criterion.pk), verdicts[0] if verdicts else None)
    # The experts' discussion after independence, with their names as on this page (Rater 1, 2, …).
    discussion = selectors.unit_discussion(entry, criterion, [(j.assignment.expert_id, j.hit) for j in judgments])
    record_entry_exposures(user=viewer.user, entry_ids=[entry.pk], via="adjudication")
    history = Adjudication.objects.filter(campaign_response=entry, criterion=criterion).select_related("decided_by")
    return UnitPage(judgments=judgments, verdicts=verdicts, verdict=verdict, discussion=discussion, history=history)


@read_model
def unit_discussion(viewer: Viewer, unit: Unit) -> UnitDiscussion:
    """The discussion of a unit after independence for its adjudicator (raters numbered as on the page), recorded as shown."""
    raters = list(_submitted_judgments(unit).values_list("assignment__expert_id", "hit"))
    record_entry_exposures(user=viewer.user, entry_ids=[unit.entry.pk], via="api-unit-discussion")
    return selectors.unit_discussion(unit.entry, unit.criterion, raters)


@dataclass(frozen=True)
class UnitCase:
    unit: Unit
    decision: Adjudication | None  # the unit's newest decision, which a case is written from (None before any)


@read_model
def unit_case(viewer: Viewer, campaign_id: int, entry_id: int, criterion_id: int, *, rated_it: str = "adjudicate") -> UnitCase:
    """A unit the viewer may write a case from, with its newest decision."""
    unit = adjudication_unit(viewer, campaign_id, entry_id, criterion_id, rated_it=rated_it)
    decision = Adjudication.objects.filter(campaign_response=unit.entry, criterion=unit.criterion).select_related("criterion").first()
    return UnitCase(unit, decision)


@read_model
def decision_unit(viewer: Viewer, entry_id: int, criterion_id: int) -> tuple[CampaignResponse, Criterion]:
    """The entry and criterion a decision is posted for (not of a campaign the viewer rates in, nor a response they judge blind)."""
    entry = one(CampaignResponse.objects.all(), pk=entry_id)
    viewer.refuse_campaign(entry.campaign_id)
    viewer.refuse_response(entry.response_id)
    return entry, one(Criterion.objects.all(), pk=criterion_id)


# --- judge–expert alignment, the release policy and the gate -------------------------------------------------------------


def _dataset(ref: str, *, or_id: bool = True) -> Dataset:
    """A dataset by name, or by id when no dataset has that name (`or_id`)."""
    dataset = Dataset.objects.filter(name=ref).first()
    if dataset is None and or_id and ref.isdecimal():
        dataset = Dataset.objects.filter(pk=int(ref)).first()
    if dataset is None:
        raise Http404(_("No such dataset."))
    return dataset


@dataclass(frozen=True)
class Alignment:
    dataset: Dataset
    page: DatasetAlignment
    threshold: float | None  # the release policy's, for the page's charts
    before: str  # the two judge versions asked for ('' when not)
    after: str


@read_model
def alignment(viewer: Viewer, ref: str, params: Mapping[str, Any], *, api: bool = False) -> Alignment:
    """Every judge version of a dataset against a blind test's golden standard (`AlignmentFilters`): closed to an expert of
    an open one. The API names the dataset by its name only, needs no threshold and refuses two versions that cannot be
    compared (a ValidationError by parameter); the page shows why beside the choice."""
    dataset = _dataset(ref, or_id=not api)
    viewer.refuse_dataset(dataset.pk, str(CLOSED_ALIGNMENT))
    asked = AlignmentFilters(params).values
    before, after = asked.get("before", ""), asked.get("after", "")
    page = dataset_alignment(dataset, campaign_id=asked.get("campaign"), before=before, after=after)
    if api and page.campaigns and page.campaigns[0].comparison_errors:
        raise ValidationError(page.campaigns[0].comparison_errors)
    threshold = None if api else release_policy_of(dataset).threshold
    return Alignment(dataset=dataset, page=page, threshold=threshold, before=before, after=after)


@read_model
def policy_dataset(viewer: Viewer, ref: str, *, to_change: bool = False) -> Dataset:
    """The dataset whose release policy is read (staff) or changed (`to_change`: admins only, refused before the lookup)."""
    if to_change and not has_role(viewer.user, Role.ADMIN):
        raise PermissionDenied(_("Only an admin changes a release policy."))
    return _dataset(ref)


@dataclass(frozen=True)
class PolicyScreen:
    policy: ReleasePolicy
    history: list[ReleasePolicyChange]
    can_edit: bool


@read_model
def release_policy(viewer: Viewer, dataset: Dataset, *, policy: ReleasePolicy | None = None) -> PolicyScreen:
    """A dataset's release policy (`policy` when a change just returned it) and every change of it, newest first."""
    return PolicyScreen(
        policy=policy or release_policy_of(dataset),
        history=list(policy_history(dataset)),
        can_edit=has_role(viewer.user, Role.ADMIN),
    )


@dataclass(frozen=True)
class VersionGate:
    version: DatasetVersion
    gate: ReleaseGate | None
    closed: str | None  # why the gate is not shown: its report counts responses the viewer judges blind
    policy: dict[str, Any]
    policy_changed: bool
    can_see_report: bool


@read_model
def version_gate(viewer: Viewer, version_id: int) -> VersionGate:
    """The release decision of a dataset version: the gate of its newest official report, unless that report is closed to the viewer."""
    version = one(DatasetVersion.objects.select_related("dataset"), pk=version_id)
    gate = selectors.latest_release_gate(version)
    closed = None
    if gate is not None:
        try:  # the decision summarises a report: closed while that report counts responses the viewer judges blind
            viewer.refuse_campaign(gate.campaign.pk)
        except PermissionDenied as exc:
            closed, gate = str(exc), None
    policy = policy_snapshot(release_policy_of(version.dataset))
    return VersionGate(
        version=version,
        gate=gate,
        closed=closed,
        policy=policy,
        policy_changed=gate is not None and policy_differs_from(gate.policy, policy),
        can_see_report=has_role(viewer.user, Role.ADMIN),
    )


# --- the gold-set builder and its drafts -------------------------------------------------------------------------------


@dataclass(frozen=True)
class BuilderVersions:
    versions: QuerySet[DatasetVersion]  # those the viewer may build from
    version: DatasetVersion | None  # the one listed
    target: DatasetVersion | None  # the one posted (among all: the service refuses a closed one, saying why), else the listed one


@read_model
def gold_builder_versions(viewer: Viewer, asked: str | None, posted: str | None) -> BuilderVersions:
    """The versions the viewer may build from (datasets their blind scope leaves open), the one asked for and the one posted."""
    versions = builder_versions(viewer.person())
    version = versions.filter(pk=asked or 0).first() or versions.first()
    target = DatasetVersion.objects.filter(pk=posted or 0).first() or version
    return BuilderVersions(versions=versions, version=version, target=target)


@read_model
def gold_draft(viewer: Viewer, draft_id: int) -> GoldDraft:
    """A draft of a gold or calibration set (its sheets leave out what the viewer is blind to: `gold_draft_sheets`)."""
    viewer.person()
    return one(GoldDraft.objects.select_related("version__dataset", "campaign"), pk=draft_id)


# --- the planner ----------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PlannerChoices:
    versions: QuerySet[DatasetVersion]
    pilots: QuerySet[Campaign]


@read_model
def planner_choices(viewer: Viewer) -> PlannerChoices:
    """The versions and pilot blind tests the viewer may plan from (datasets their blind scope leaves open)."""
    user = viewer.person()
    return PlannerChoices(versions=builder_versions(user), pilots=pilot_campaigns(user))


@dataclass(frozen=True)
class Plan:
    view: PlanView
    sentences: list[str]  # each design as an admin reads it, in the plan's order
    pilot_text: str
    json: dict[str, Any]  # the API's body (an undefined half-width is null)


@read_model
def blind_test_plan(viewer: Viewer, cleaned: dict[str, Any], *, agreement_in_points: bool) -> Plan:
    """A plan of a blind test from the page's or the API's cleaned input (ValidationError naming the field when it cannot be made)."""
    view = make_plan(plan_request(cleaned, agreement_in_points=agreement_in_points), user=viewer.person())
    return Plan(
        view=view,
        sentences=[design_sentence(view, design) for design in view.plan.designs],
        pilot_text=pilot_sentence(view),
        json=plan_json(view),
    )
