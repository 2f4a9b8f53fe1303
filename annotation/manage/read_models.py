"""What the campaign-management screens read, with the viewer's blind scope applied inside.

One read model per screen, called by its page and by its API alike: the campaign list and a
campaign's page, its progress and skips (withheld from an admin who is one of its experts), its
assignments (closed to its experts, recorded as shown), the expert roster and an expert's page,
alerts (none about a campaign the admin is an expert of), dual roles, payments, the needs-action
home and the expert reports it opens, certificates and calibration feedback. The selectors (`annotation.manage.selectors`, `needs_action_selectors`) stay
the query builders these use; the blindness checks the views made live here
(`annotation.blindness`, `heartbench_core.blindness` through the `Viewer`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.contrib.admin.models import LogEntry
from django.core.paginator import Page
from django.db.models import BooleanField, Count, Exists, ExpressionWrapper, OuterRef, Prefetch, Q, QuerySet, Subquery, Value
from django.db.models.functions import Coalesce
from django.http import Http404
from django.utils import timezone
from django.utils.translation import gettext_lazy

from annotation.blindness import (
    PROGRESS_WITHHELD,
    DualRoleConflict,
    campaigns_whose_seed_is_hidden,
    may_read_seed,
    own_quality_hidden,
)
from annotation.blindness import dual_role_conflicts as _dual_role_conflicts
from annotation.manage import selectors
from annotation.manage.filters import AlertFilters, AssignmentFilters, CalibrationResultFilters, CampaignFilters
from annotation.manage.needs_action_selectors import DIGEST_GROUP, AlertRow, NeedsActionHome, alert_rows, needs_action_home, visible_alerts
from annotation.manage.selectors import CampaignListPage, CampaignProgress, CampaignSkips, Certificate, ExpertGoldAccuracy, ProfileHistory
from annotation.models import (
    AdminAlert,
    Assignment,
    CalibrationResult,
    Campaign,
    CampaignGuidelines,
    CampaignResponse,
    ExpertProfile,
    ItemProblemReport,
    Qualification,
    QualityPolicy,
    TierChange,
    UnclearCriterionReport,
)
from annotation.services.assignment import CalibrationState, calibration_state
from annotation.services.payments import PaymentLine, payment_line_count, payment_lines
from annotation.services.reports import REPORT_KINDS, own_problem_reports, own_unclear_reports
from annotation.services.split_extension import SplitExtensionState, split_extension_state
from annotation.workspace.selectors import CalibrationOutcome, calibration_outcome
from heartbench_core.models import User
from heartbench_core.read_models import Viewer, one, read_model
from heartbench_core.roles import Role, has_role

# --- campaigns ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class CampaignList:
    listing: CampaignListPage
    filters: CampaignFilters  # what the page asked for, a bad value with its error
    alerts: list[AlertRow]


@read_model
def campaign_list(viewer: Viewer, params: Mapping[str, Any], *, number: str | int | None) -> CampaignList:
    """The campaigns page: a page of `campaigns` (progress withheld where the viewer is one of the experts), its filters and the latest open alerts they may read."""
    user = viewer.require(Role.ADMIN)
    filters = CampaignFilters(params)
    return CampaignList(
        listing=selectors.campaign_list_page(
            filters.narrow(Campaign.objects.select_related("version__dataset")), number=number, scope=viewer.scope
        ),
        filters=filters,
        # Their text in the reader's language from their figures, not the English stored with them.
        alerts=alert_rows(visible_alerts(user, AdminAlert.objects.filter(resolved_at__isnull=True))[:5]),
    )


@read_model
def campaigns(viewer: Viewer, params: Mapping[str, Any] | None = None) -> QuerySet[Campaign]:
    """The API's campaigns, filtered as the page filters them, newest first, with their number of responses and marked `seed_hidden` where the viewer may not read the seed."""
    qs: QuerySet[Campaign] = (
        CampaignFilters(params)
        .check()
        .narrow(
            Campaign.objects.select_related("version__dataset", "settings__gold_source")
            .prefetch_related("language_models", "experts")
            .order_by("-created_at")
        )
    )
    sampled = CampaignResponse.objects.filter(campaign=OuterRef("pk")).order_by().values("campaign").annotate(n=Count("pk")).values("n")
    qs = qs.annotate(responses_n=Coalesce(Subquery(sampled), 0))
    hidden = campaigns_whose_seed_is_hidden(viewer.user)
    if hidden.query.is_empty():
        return qs.annotate(seed_hidden=Value(False, output_field=BooleanField()))
    return qs.annotate(seed_hidden=Exists(hidden.filter(pk=OuterRef("pk"))))


@read_model
def campaign_as_listed(viewer: Viewer, campaign_id: int) -> Campaign:
    """One campaign as `campaigns` gives it (after a service changed it: what the API answers)."""
    return one(campaigns(viewer), pk=campaign_id)


@read_model
def campaign(viewer: Viewer, campaign_id: int | str) -> Campaign:
    """The campaign an admin acts on (status, assignment, pay, extra raters), or 404."""
    viewer.require(Role.ADMIN)
    return one(Campaign.objects.all(), pk=campaign_id)


@read_model
def campaign_named(viewer: Viewer, name: str) -> Campaign | None:
    """The campaign of that name (a new campaign's gold source), or None."""
    viewer.require(Role.ADMIN)
    return Campaign.objects.filter(name=name).first()


@read_model
def campaign_for_edit(viewer: Viewer, campaign_id: int) -> Campaign:
    viewer.require(Role.ADMIN)
    return one(Campaign.objects.select_related("version__dataset"), pk=campaign_id)


@read_model
def open_preassigned(viewer: Viewer, campaign: Campaign) -> int:
    """Pre-assigned work still open (no expiry): what pausing or closing the campaign stops."""
    viewer.require(Role.ADMIN)
    return Assignment.objects.filter(campaign=campaign, expires_at__isnull=True).open(timezone.now()).count()


@dataclass(frozen=True)
class CampaignFigures:
    """A campaign's progress and its experts' gold accuracy, or why they are withheld from the viewer."""

    campaign: Campaign
    withheld: bool  # the viewer is an expert of this open campaign
    progress: CampaignProgress | None
    gold: list[ExpertGoldAccuracy] | None  # None: not a blind test (no gold checks)

    @property
    def reason(self) -> str:
        return str(PROGRESS_WITHHELD) if self.withheld else ""


@read_model
def campaign_figures(viewer: Viewer, campaign: Campaign) -> CampaignFigures:
    """Progress of the campaign (its page's polled table and the API's `progress`).

    An admin who is also an expert of this open campaign sees its settings but not its figures:
    the totals leave gold checks out, so a submission of theirs that did not move them was gold.
    """
    viewer.require(Role.ADMIN)
    withheld = viewer.hides_campaign(campaign.pk)
    progress = None if withheld else selectors.campaign_progress(campaign)
    gold = ([] if withheld else selectors.campaign_gold_accuracy(campaign)) if campaign.kind == Campaign.Kind.BLIND_TEST else None
    return CampaignFigures(campaign, withheld, progress, gold)


@read_model
def campaign_skips(viewer: Viewer, campaign: Campaign) -> CampaignSkips | None:
    """What its experts skipped and what can no longer finish; None for an admin who is an expert of this open campaign."""
    viewer.require(Role.ADMIN)
    return None if viewer.hides_campaign(campaign.pk) else selectors.campaign_skips(campaign)


@dataclass(frozen=True)
class CampaignPage:
    figures: CampaignFigures
    split_extension: SplitExtensionState | None
    # The rest of the page (None for its polled progress table).
    show_seed: bool = False
    models: list[str] | None = None  # the first MODELS_SHOWN by name, or every one when asked
    models_total: int = 0
    results: QuerySet[CalibrationResult] | None = None
    payments: list[PaymentLine] | None = None
    payments_total: int = 0
    skips: CampaignSkips | None = None

    @property
    def campaign(self) -> Campaign:
        return self.figures.campaign


# Models named on a campaign's page unless all are asked for: a blind test of a thousand models would name them all.
MODELS_SHOWN = 20


@read_model
def campaign_page(
    viewer: Viewer, campaign_id: int, *, everyone: bool, rows: int, progress_only: bool = False, every_model: bool = False
) -> CampaignPage:
    """A campaign's page: settings, figures (withheld from its own experts), results, payments and skips.

    `everyone` false: the per-expert tables hold their first `rows` experts only; `every_model` false: the first
    MODELS_SHOWN models are named, with how many there are.
    """
    viewer.require(Role.ADMIN)
    found = one(Campaign.objects.select_related("version__dataset", "created_by", "settings"), pk=campaign_id)
    figures = campaign_figures(viewer, found)
    blind_test = found.kind == Campaign.Kind.BLIND_TEST
    # The option and what it granted; the counts are figures of the campaign, withheld like its progress.
    extension = split_extension_state(found, counts=not figures.withheld) if blind_test else None
    if progress_only:
        return CampaignPage(figures, extension)
    payments = payment_lines(found, limit=None if everyone else rows)
    models = found.language_models.order_by("name").values_list("name", flat=True)
    named = list(models if every_model else models[:MODELS_SHOWN])
    return CampaignPage(
        figures,
        extension,
        # Its experts never read the seed, even an admin among them.
        show_seed=may_read_seed(viewer.user, found),
        models=named,
        models_total=len(named) if every_model or len(named) < MODELS_SHOWN else models.count(),
        results=CalibrationResult.objects.filter(campaign=found).select_related("expert")
        if found.kind == Campaign.Kind.CALIBRATION
        else None,
        payments=payments,
        payments_total=len(payments) if everyone or len(payments) < rows else payment_line_count(found),
        # Admins only: an admin who is an expert of this open campaign does not learn of others' skips.
        skips=campaign_skips(viewer, found) if blind_test else None,
    )


@read_model
def unfilled_shown(viewer: Viewer, campaign_id: int) -> bool:
    """Whether a bulk assignment may say which responses stayed short: not to one of the campaign's experts."""
    return not viewer.hides_campaign(campaign_id)


@dataclass(frozen=True)
class SettingsHistory:
    guidelines: list[CampaignGuidelines]
    changes: list[LogEntry]


@read_model
def settings_history(viewer: Viewer, campaign: Campaign) -> SettingsHistory:
    """Guidelines revisions and recorded changes of settings and status, newest first (its edit page and the API)."""
    viewer.require(Role.ADMIN)
    revisions = CampaignGuidelines.objects.filter(campaign=campaign).select_related("author").order_by("-revision")
    return SettingsHistory(list(revisions), selectors.campaign_changes(campaign))


# --- pay -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Payments:
    policy: QualityPolicy
    lines: list[PaymentLine]


@read_model
def payments(viewer: Viewer, campaign: Campaign) -> Payments:
    """Pay per expert under the written policy (its page and the API)."""
    viewer.require(Role.ADMIN)
    policy = QualityPolicy.current()
    return Payments(policy, payment_lines(campaign, policy))


@read_model
def user_named(viewer: Viewer, username: str) -> User | None:
    """The user of that name (an expert an admin decides on), or None."""
    viewer.require(Role.ADMIN)
    return User.objects.filter(username=username).first()


@read_model
def users_named(viewer: Viewer, names: Sequence[str]) -> list[User]:
    viewer.require(Role.ADMIN)
    return list(User.objects.filter(username__in=names))


# --- assignments ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class AssignmentsPage:
    campaign: Campaign
    page: Page
    filters: AssignmentFilters
    experts: QuerySet[User, str]


@read_model
def assignments_page(
    viewer: Viewer, campaign_id: int, params: Mapping[str, Any], *, number: str | None, after: str, before: str
) -> AssignmentsPage:
    """One page of a campaign's assignments, filtered as the API filters them (by keyset when `after` / `before` is given), recorded as shown.

    The models and gold flags of its responses are closed to its experts (refused with the reason).
    """
    viewer.require(Role.ADMIN)
    found = one(Campaign.objects.all(), pk=campaign_id)
    viewer.refuse_campaign(found.pk)
    filters = AssignmentFilters(params)
    wanted = filters.values
    page = selectors.assignment_overview_page(
        found, number=number, scope=viewer.scope, status=wanted.get("status"), expert=wanted.get("expert"), after=after, before=before
    )
    # Each row names a response by its item and model (and gold flag): shown, so never served to this admin blind.
    viewer.shown([a.campaign_response.response.pk for a in page.object_list], via="assignments")
    return AssignmentsPage(found, page, filters, found.experts.order_by("username").values_list("username", flat=True))


def _assignment_rows(params: Mapping[str, Any] | None) -> QuerySet[Assignment]:
    qs: QuerySet[Assignment] = Assignment.objects.select_related(
        "expert", "campaign_response__item", "campaign_response__response__model"
    ).order_by("-reserved_at", "-id")
    return AssignmentFilters(params).check().narrow(qs)


@read_model
def assignments(viewer: Viewer, params: Mapping[str, Any] | None = None) -> QuerySet[Assignment]:
    """The API's assignments, filtered as a campaign's page filters them, newest first, without those of datasets closed to the viewer (whole, never response by response)."""
    return viewer.visible_responses(_assignment_rows(params), "campaign_response__response_id")


@read_model
def assignments_after(viewer: Viewer, rows: QuerySet[Assignment], cursor: str, *, size: int) -> tuple[list[Assignment], bool] | None:
    """Up to `size` rows of `assignments` after the cursor's row, and whether more follow (`selectors.from_cursor`, as the page continues)."""
    return selectors.from_cursor(viewer.visible_responses(rows, "campaign_response__response_id"), cursor, size=size)


@read_model
def assignment(viewer: Viewer, public_id: str, params: Mapping[str, Any] | None = None) -> Assignment:
    """One of the API's assignments (to show or release), or 404; refused with the reason when its dataset is closed to the viewer."""
    found = one(_assignment_rows(params), public_id=public_id)
    viewer.refuse_response(found.campaign_response.response_id)
    return found


@read_model
def assignment_to_release(viewer: Viewer, public_id: str) -> Assignment:
    """The assignment an admin releases from the campaign's page (with what its confirmation shows), or 404."""
    viewer.require(Role.ADMIN)
    return one(Assignment.objects.select_related("campaign_response__campaign", "campaign_response__item", "expert"), public_id=public_id)


# --- calibration results -----------------------------------------------------------------------


@read_model
def calibration_results(viewer: Viewer, params: Mapping[str, Any] | None = None) -> QuerySet[CalibrationResult]:
    """Finished calibration attempts: every one for an admin (filtered by `CalibrationResultFilters`), else the viewer's own.

    Others' feedback is the answer key: closed to an admin who is an expert of the (open) calibration.
    """
    qs = CalibrationResult.objects.select_related("campaign", "expert").order_by("-completed_at")
    if not viewer.user.is_authenticated:  # the schema generator asks without a user
        return qs.none()
    if has_role(viewer.user, Role.ADMIN):
        qs = CalibrationResultFilters(params).check().narrow(qs)
        if closed := viewer.scope.closed_campaign_ids:
            qs = qs.exclude(Q(campaign_id__in=closed) & ~Q(expert_id=viewer.user_id))
        return qs
    return qs.filter(expert_id=viewer.user_id)


@read_model
def calibration_results_shown(viewer: Viewer, results: Sequence[CalibrationResult]) -> None:
    """Others' feedback shows gold verdicts of the calibration's responses: record them as shown, never to be served blind."""
    campaign_ids = {r.campaign_id for r in results if r.expert_id != viewer.user_id}
    if campaign_ids:
        responses = CampaignResponse.objects.filter(campaign_id__in=campaign_ids).values_list("response_id", flat=True)
        viewer.shown(list(responses), via="api-calibration-results")


@read_model
def calibration_feedback(viewer: Viewer, result_id: int) -> CalibrationOutcome:
    """One of the viewer's own finished calibration attempts; another expert's answers 404, like one that does not exist."""
    if not viewer.user.is_authenticated:
        raise Http404
    return calibration_outcome(viewer.user, result_id)


# --- experts -------------------------------------------------------------------------------------


def _with_quality(qs: QuerySet[ExpertProfile], viewer: Viewer) -> QuerySet[ExpertProfile]:
    """Profiles with their quality, qualifications (`user.qualification_list`) and `quality_withheld` read with them.

    An admin who is an expert of an open campaign does not see their own gold figures: they would date their gold checks.
    """
    hidden = own_quality_hidden(viewer.user)
    withheld = ExpressionWrapper(Q(user__username=hidden), output_field=BooleanField()) if hidden else Value(False)
    return (
        qs.select_related("user", "quality")
        .prefetch_related(
            Prefetch("user__qualifications", queryset=Qualification.objects.order_by("dimension"), to_attr="qualification_list")
        )
        .annotate(quality_withheld=withheld)
    )


@read_model
def profiles(viewer: Viewer) -> QuerySet[ExpertProfile]:
    """Expert profiles by username: every one for an admin, the viewer's own for an expert."""
    qs = _with_quality(ExpertProfile.objects.order_by("user__username"), viewer)
    if has_role(viewer.user, Role.ADMIN):
        return qs
    return qs.filter(user=viewer.user) if isinstance(viewer.user, User) else qs.none()


@read_model
def profile(viewer: Viewer, username: str) -> ExpertProfile:
    """One profile as `profiles` gives it (after a service changed it: what the API answers)."""
    return one(profiles(viewer), user__username=username)


@dataclass(frozen=True)
class ExpertRoster:
    page: Page
    hide_quality_of: str  # the viewer's username while their own quality is withheld from them, else ""


@read_model
def expert_roster(viewer: Viewer, *, number: str | None) -> ExpertRoster:
    """The roster page: a page of `profiles` (what the API lists), with each expert's workload."""
    viewer.require(Role.ADMIN)
    listed = profiles(viewer).prefetch_related(None)  # the page shows no qualification
    return ExpertRoster(selectors.expert_profiles_page(listed, number=number), own_quality_hidden(viewer.user))


@read_model
def expert(viewer: Viewer, username: str) -> User:
    """The user an admin looks at (their profile page), or 404."""
    viewer.require(Role.ADMIN)
    return one(User.objects.all(), username=username)


@dataclass(frozen=True)
class ExpertPage:
    history: ProfileHistory
    tier_changes: QuerySet[TierChange]
    alerts: list[AlertRow]
    hide_quality_of: str


@read_model
def expert_page(viewer: Viewer, profile: ExpertProfile) -> ExpertPage:
    """An expert's page for admins: their history, tier changes and the alerts about them."""
    viewer.require(Role.ADMIN)
    return ExpertPage(
        history=selectors.profile_history(profile),
        tier_changes=TierChange.objects.filter(profile=profile).select_related("changed_by")[:20],
        alerts=alert_rows(AdminAlert.objects.filter(expert_id=profile.user_id).order_by("-created_at")[:10]),
        hide_quality_of=own_quality_hidden(viewer.user),
    )


@read_model
def dual_role_conflicts(viewer: Viewer, *, campaign: int | None = None) -> list[DualRoleConflict]:
    """Who is expert and staff, the open campaigns they are experts of (staff views closed), what they were shown.

    `campaign`: only the users who are experts of that open campaign.
    """
    viewer.require(Role.ADMIN)
    rows = _dual_role_conflicts()
    if campaign is not None:
        rows = [r for r in rows if any(c.campaign.pk == campaign for c in r.campaigns)]
    return rows


# --- alerts --------------------------------------------------------------------------------------


@read_model
def alerts(viewer: Viewer, filters: AlertFilters) -> QuerySet[AdminAlert]:
    """Alerts newest first, open ones unless `all` (`AlertFilters`); none about a campaign the viewer is an expert of (its gold, agreement, judge)."""
    qs = AdminAlert.objects.select_related("expert", "campaign", "resolved_by").order_by("-created_at")
    if not isinstance(viewer.user, User):  # the schema generator asks without a user
        return qs.none()
    return filters.narrow(visible_alerts(viewer.user, qs))


@read_model
def alert_list(viewer: Viewer, params: Mapping[str, Any]) -> QuerySet[AdminAlert]:
    """The API's alerts: `alerts`, a bad filter value an `InvalidFilters` (400)."""
    return alerts(viewer, AlertFilters(params).check())


@dataclass(frozen=True)
class AlertPage:
    rows: list[AlertRow]
    filters: AlertFilters  # what the page asked for, a bad value with its error


@read_model
def alert_page(viewer: Viewer, params: Mapping[str, Any], *, limit: int = 200) -> AlertPage:
    """The alerts page: `alerts` with their text and kind in the reader's language (a bad filter value is ignored, with its error)."""
    viewer.require(Role.ADMIN)
    filters = AlertFilters(params)
    return AlertPage(alert_rows(alerts(viewer, filters)[:limit]), filters)


@read_model
def alert(viewer: Viewer, alert_id: int | str) -> AdminAlert:
    """An alert the viewer may read (to resolve it), or 404."""
    return one(visible_alerts(viewer.require(Role.ADMIN)), pk=alert_id)


# --- the expert's own profile and certificates -------------------------------------------------------


@read_model
def own_profile(viewer: Viewer) -> ExpertProfile:
    """The viewer's own profile as `profiles` gives it (their qualifications and certification with it)."""
    return one(_with_quality(ExpertProfile.objects.all(), viewer), user=viewer.person())


@dataclass(frozen=True)
class OwnProfilePage:
    history: ProfileHistory
    retakes: dict[int, CalibrationState]
    certificates: list[Certificate]  # what the API's `certificates` gives (`own_certificates`)
    policy: QualityPolicy


@read_model
def own_profile_page(viewer: Viewer, profile: ExpertProfile) -> OwnProfilePage:
    """An expert's own profile page: their history, the retakes of failed calibrations, certificates, the policy."""
    holder = viewer.person()
    if profile.user_id != holder.pk:
        raise Http404
    history = selectors.profile_history(profile)
    retakes = {r.campaign_id: calibration_state(expert=holder, campaign=r.campaign) for r in history.calibrations if not r.passed}
    policy = QualityPolicy.current()
    # The certificates `own_certificates` gives (the API's), from the quality and policy read here; the list shows no figure.
    certified = history.quality is not None and history.quality.certified_at is not None
    certificates = selectors.certificates_of(holder, show_exact_quality=False, quality=history.quality, policy=policy) if certified else []
    return OwnProfilePage(
        history=history,
        retakes=retakes,
        certificates=certificates,
        policy=policy,
    )


@read_model
def own_certificate(viewer: Viewer, campaign_id: int) -> Certificate | None:
    """The viewer's certificate for the campaign (404 for no campaign), or None until the policy's thresholds are met.

    The exact quality only once no open campaign counts the viewer's gold checks (annotation.blindness).
    """
    holder = viewer.person()
    found = one(Campaign.objects.all(), pk=campaign_id)
    return selectors.certificate(holder, found, show_exact_quality=not own_quality_hidden(holder))


@read_model
def own_certificates(viewer: Viewer) -> list[Certificate]:
    """Every certificate of the viewer, one per blind test they worked in (exact quality as in `own_certificate`)."""
    holder = viewer.person()
    return selectors.certificates_of(holder, show_exact_quality=not own_quality_hidden(holder))


@read_model
def verified_certificate(viewer: Viewer, code: str) -> Certificate | None:
    """The certificate a genuine code names (its holder still active), else None; never with the exact quality.

    Anyone holding a code may check it, signed in or not: the answer is the same whoever the viewer is.
    """
    del viewer  # the same for everyone: nothing in it is blind, nothing is recorded as shown
    parsed = selectors.parse_certificate_code(code)
    if parsed is None:
        return None
    found = Campaign.objects.filter(pk=parsed[0]).first()
    holder = User.objects.filter(pk=parsed[1], is_active=True).first()
    if found is None or holder is None:
        return None
    return selectors.certificate(holder, found, show_exact_quality=False)


# --- needs action --------------------------------------------------------------------------------


@dataclass(frozen=True)
class NeedsAction:
    home: NeedsActionHome
    digest_opted_in: bool


@read_model
def needs_action(viewer: Viewer, *, with_digest: bool = False) -> NeedsAction:
    """The "needs action" home (its page and the API), with the same blindness rules: nothing a staff view of one of the viewer's open campaigns would close.

    `with_digest`: also whether the viewer gets the risk digest by e-mail (the page's toggle).
    """
    user = viewer.require(Role.ADMIN)
    home = needs_action_home(user)
    return NeedsAction(home, with_digest and user.groups.filter(name=DIGEST_GROUP).exists())


@read_model
def expert_report(viewer: Viewer, kind: str, report_id: int) -> ItemProblemReport | UnclearCriterionReport:
    """One expert's report with its context (to reply), or 404; refused with the reason when its response is closed to the viewer.

    Another rater's note on a response the admin judges blind is closed, like the corrections page.
    """
    viewer.require(Role.ADMIN)
    if kind not in REPORT_KINDS:
        raise Http404(gettext_lazy("Unknown kind of report."))
    related = ["assignment__expert", "assignment__campaign_response__campaign", "assignment__campaign_response__item", "resolved_by"]
    related += ["assignment__campaign_response__response__model"]
    found: ItemProblemReport | UnclearCriterionReport = (
        one(UnclearCriterionReport.objects.select_related(*related, "criterion"), pk=report_id)
        if kind == "unclear"
        else one(ItemProblemReport.objects.select_related(*related), pk=report_id)
    )
    viewer.refuse_response(found.assignment.campaign_response.response_id)
    return found


@read_model
def own_reports(viewer: Viewer) -> list[tuple[str, ItemProblemReport | UnclearCriterionReport]]:
    """The viewer's own reports of both kinds with their kind, newest first (their page and the API)."""
    user = viewer.person()
    rows: list[tuple[str, ItemProblemReport | UnclearCriterionReport]] = [("problem", r) for r in own_problem_reports(user)]
    rows += [("unclear", r) for r in own_unclear_reports(user)]
    return sorted(rows, key=lambda kr: (kr[1].created_at, kr[1].pk), reverse=True)


@read_model
def expert_report_shown(viewer: Viewer, found: ItemProblemReport | UnclearCriterionReport) -> None:
    """The report's page shows the response it is about: recorded, never served to the viewer blind."""
    viewer.shown([found.assignment.campaign_response.response_id], via="report")
