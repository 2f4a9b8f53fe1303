"""Pages of the blind workspace: the expert's home, the judging page, reports, corrections, discussion.

An expert reaches only their own work: every read goes through `workspace.read_models`, which
finds an assignment by public id and owner, so another expert's id answers 404, exactly like an
id that does not exist.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.forms import Form
from django.http import Http404, HttpResponse, QueryDict
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from annotation.models import Assignment, Campaign, Skip
from annotation.services import workspace as services
from annotation.services.assignment import assign_next_response, next_response_if_any
from annotation.workspace import forms, held_text, read_models
from heartbench_core.form_errors import messages_of
from heartbench_core.http import SignedInRequest
from heartbench_core.read_models import Viewer
from heartbench_core.roles import Role, role_required

# The header of an autosave's answer that confirms the save, with the draft's new version (workspace.js reads it).
DRAFT_VERSION_HEADER = "HB-Draft-Version"
# The header of an autosave's 409 when the draft changed in another tab (the page keeps the text for its next load).
DRAFT_CONFLICT_HEADER = "HB-Draft-Conflict"
# The judging page's state (editable, submitted, lapsed) and the draft version it shows: a page the browser
# restored from its back/forward cache asks for them (a HEAD) to learn whether it is still current. (Not
# HB-Draft-Version, which confirms a save and nothing else.)
WORK_STATE_HEADER = "HB-Work-State"
PAGE_VERSION_HEADER = "HB-Page-Draft-Version"
expert_only = role_required(Role.EXPERT)
# A draft or submission posted once the session has ended is kept over the sign-in, which returns to the judging page.
expert_keeping_text = role_required(Role.EXPERT, keep_post_for="annotation:judge")
admin_only = role_required(Role.ADMIN)
# The skip form's fields, whose errors the skip card shows.
SKIP_FIELDS = ("reason", "note")
# What a tab whose draft changed in another tab is told: its text stays on the page, nothing is overwritten.
CHANGED_ELSEWHERE = gettext_lazy(
    "Changed in another tab — your text is kept here; reload to see the other version (or save again to keep yours)."
)


@require_safe
@expert_only
def home(request: SignedInRequest) -> HttpResponse:
    # After "Next response" found nothing, the campaign's card says why and what to do (`?why=<campaign id>`).
    screen = read_models.expert_home(Viewer.of(request), why=request.GET.get("why", ""))
    context = {"home": screen.home, "prefetch": screen.prefetch, "stranded": screen.stranded}
    return render(request, "annotation/workspace/home.html", {**context, "work_prefix": _work_prefix()})


@require_safe
@expert_only
def completed(request: SignedInRequest) -> HttpResponse:
    """The expert's completed work, newest first, a page at a time (`?after=` continues where a page ended)."""
    page = read_models.completed_work(Viewer.of(request), after=request.GET.get("after", ""))
    context = {"page": page, "first_page": not request.GET.get("after"), "work_prefix": _work_prefix()}
    return render(request, "annotation/workspace/completed.html", context)


def _work_prefix() -> str:
    """One reverse() for the page instead of one per row: the judging page of work `x` is `<prefix>x/`."""
    return reverse("annotation:judge", args=["x"])[: -len("x/")]


@require_POST
@expert_only
def next_response(request: SignedInRequest, campaign_id: int) -> HttpResponse:
    campaign = read_models.expert_campaign(Viewer.of(request), campaign_id)
    if campaign.status != Campaign.Status.ACTIVE:
        messages.info(request, _("“%(name)s” is not taking work at the moment.") % {"name": campaign.name})
        return redirect("annotation:home")
    try:
        assignment = assign_next_response(expert=request.user, campaign=campaign)
    except (ValidationError, PermissionDenied) as exc:
        for message in messages_of(exc) if isinstance(exc, ValidationError) else [str(exc)]:
            messages.info(request, message)
        return redirect("annotation:home")
    if assignment is None:
        # The campaign's card on the home page says the real reason and what to do about it.
        return redirect(f"{reverse('annotation:home')}?why={campaign.pk}#q-{campaign.pk}")
    return redirect("annotation:judge", public_id=assignment.public_id)


def _render_judge(
    request: SignedInRequest,
    page: read_models.JudgingPage,
    *,
    errors: dict[str, list[str]] | None = None,
    posted: list[services.DraftEntry] | None = None,
    status: int = 200,
    skip_form: QueryDict | None = None,
) -> HttpResponse:
    """The judging page; `posted` puts text that was not saved back into its criteria, so nothing typed is lost."""
    _attach_unclear_urls(page)
    for row in page.rows:
        row.errors = (errors or {}).get(services.criterion_error_key(row.criterion.pk), [])
    _fill(page, {e.criterion_id: (e.rationale, e.hit) for e in posted or []})
    response = render(
        request,
        "annotation/workspace/judge.html",
        {
            "page": page,
            "errors": errors or {},
            # The skip form's own fields say their errors beside them, not under "Not submitted yet".
            "error_list": [m for key, msgs in (errors or {}).items() if skip_form is None or key not in SKIP_FIELDS for m in msgs],
            # A refused skip opens its form again with the reason and note as they were posted.
            "skip_form": skip_form,
            "skip_reasons": Skip.Reason.choices,
            **_guidelines_news(request, page),
        },
        status=status,
    )
    response[WORK_STATE_HEADER] = "submitted" if page.submitted else "lapsed" if page.lapsed else "editable"
    response[PAGE_VERSION_HEADER] = str(page.assignment.draft_version)
    return response


def _fill(page: read_models.JudgingPage, judged: dict[int, tuple[str, bool | None]]) -> None:
    """Put judgments (posted but not saved, or a standing revision) into the page's criteria."""
    for row in page.rows:
        if row.criterion.pk in judged:
            row.rationale, row.hit = judged[row.criterion.pk]


def _refused(
    request: SignedInRequest,
    assignment: Assignment,
    exc: ValidationError,
    posted: list[services.DraftEntry],
    skip_form: QueryDict | None = None,
) -> HttpResponse:
    """The judging page again after a refused write, with the posted text: changed in another tab (409), or what was wrong (400)."""
    page = read_models.judging_page(Viewer.of(request), assignment, reread=True)
    if isinstance(exc, services.DraftConflict):
        return _render_judge(request, page, errors={"__all__": [str(CHANGED_ELSEWHERE)]}, posted=posted, status=409)
    return _render_judge(
        request,
        page,
        errors=exc.message_dict if hasattr(exc, "error_dict") else {"__all__": exc.messages},
        posted=posted,
        status=400,
        skip_form=skip_form,
    )


def _guidelines_news(request: SignedInRequest, page: read_models.JudgingPage) -> dict[str, bool]:
    """Whether the guidelines are new to this expert (never shown, or changed since they last had them on a judging page).

    Remembered in their session: the panel opens the first time and after a change, and says
    "updated" only after a change.
    """
    if page.guidelines is None:
        return {"guidelines_open": False, "guidelines_updated": False}
    key = f"hb-guidelines-seen-{page.campaign.pk}"
    seen = request.session.get(key)
    # A prefetch (the home page and the judging page prefetch the next response) is not a look.
    prefetch = "prefetch" in request.headers.get("Sec-Purpose", "") or request.headers.get("Purpose") == "prefetch"
    # A campaign's own revision is remembered by its number (as before dataset guidelines existed), the dataset's by its marker.
    shown = page.guidelines.revision if page.guidelines.source == "campaign" else page.guidelines.marker
    if seen != shown and not prefetch:
        request.session[key] = shown
    return {
        "guidelines_open": seen != shown,
        "guidelines_updated": seen is not None and seen != shown,
    }


def _attach_unclear_urls(page: read_models.JudgingPage) -> None:
    # One reverse() for the page instead of one per criterion.
    prefix = reverse("annotation:judge_unclear", args=[page.assignment.public_id, 0])[: -len("0/")]
    for row in page.rows:
        row.unclear_url = f"{prefix}{row.criterion.pk}/"


@require_safe
@expert_only
def judge(request: SignedInRequest, public_id: str) -> HttpResponse:
    # The expert's own lapsed work opens too: their text stays readable, and they may take it back.
    page = read_models.judging_screen(Viewer.of(request), public_id)
    # Text posted while signed out that could not go into the draft at sign-in is shown once, here (a HEAD, a
    # restored page asking for the state, shows nothing and leaves it for the page).
    held = held_text.take_held(request, public_id) if request.method != "HEAD" else None
    if held is not None:
        return _render_judge(request, page, errors={"__all__": [held.reason]}, posted=held.entries)
    return _render_judge(request, page)


@require_POST
@expert_only
def reclaim(request: SignedInRequest, public_id: str) -> HttpResponse:
    """Take back a response whose reservation lapsed, with the draft, if its slot is still open."""
    assignment = read_models.own_work(Viewer.of(request), public_id, lapsed_too=True)
    try:
        services.reclaim_assignment(assignment=assignment, expert=request.user)
    except ValidationError as exc:
        for message in messages_of(exc):
            messages.error(request, message)
        messages.info(request, _("Your text is kept below, readable, so nothing you wrote is lost."))
    else:
        messages.success(request, _("The response is yours again, with your draft."))
    return redirect("annotation:judge", public_id=public_id)


@require_POST
@expert_keeping_text
def save_draft(request: SignedInRequest, public_id: str) -> HttpResponse:
    """Autosave (htmx: the save-status partial) or the page's "Save draft" button (redirect).

    Based on the form's `version`: a draft changed meanwhile in another tab is not overwritten
    (409: htmx gets the conflict partial, a plain form the page again with the posted text). A
    confirmed save, and only that, carries the `HB-Draft-Version` header the page's script reads.
    """
    assignment = read_models.own_work_ref(Viewer.of(request), public_id)
    posted: list[services.DraftEntry] = []
    try:
        posted = forms.draft_entries(request.POST)
        saved = services.save_draft(
            assignment=assignment,
            expert=request.user,
            entries=posted,
            active_seconds=forms.active_seconds(request.POST),
            cursor=forms.cursor(request.POST),
            based_on=forms.based_on(request.POST),
        )
    except services.DraftConflict:
        if request.htmx:
            response = render(
                request, "annotation/workspace/partials/save_status.html", {"state": "conflict", "message": CHANGED_ELSEWHERE}, status=409
            )
            response[DRAFT_CONFLICT_HEADER] = "1"
            return response
        full = read_models.judging_screen(Viewer.of(request), public_id)
        return _render_judge(request, full, errors={"__all__": [str(CHANGED_ELSEWHERE)]}, posted=posted, status=409)
    except ValidationError as exc:
        if request.htmx:
            return render(
                request,
                "annotation/workspace/partials/save_status.html",
                {"state": "error", "message": " ".join(messages_of(exc))},
                status=409,
            )
        for message in messages_of(exc):
            messages.error(request, message)
        return redirect("annotation:judge", public_id=public_id)
    if request.htmx:
        response = render(
            request,
            "annotation/workspace/partials/save_status.html",
            {"state": "saved", "saved_at": saved.draft_saved_at, "version": saved.draft_version},
        )
        response[DRAFT_VERSION_HEADER] = str(saved.draft_version)
        return response
    messages.success(request, _("Draft saved."))
    return redirect("annotation:judge", public_id=public_id)


# These two answer a NUL in a rationale themselves, as an error on its criterion card
# (heartbench_core.input_text.RefuseUnstorableTextMiddleware leaves a NUL to them).
save_draft.refuses_nul_itself = True  # type: ignore[attr-defined]


@require_POST
@expert_only
def record_time(request: SignedInRequest, public_id: str) -> HttpResponse:
    """Time on task reported by the page (also by navigator.sendBeacon when the tab is hidden)."""
    assignment = read_models.own_work_ref(Viewer.of(request), public_id)
    try:
        services.record_active_time(assignment=assignment, expert=request.user, seconds=forms.active_seconds(request.POST))
    except ValidationError:
        return HttpResponse(status=409)
    return HttpResponse(status=204)


@require_POST
@expert_keeping_text
def submit(request: SignedInRequest, public_id: str) -> HttpResponse:
    assignment = read_models.own_work(Viewer.of(request), public_id)
    posted: list[services.DraftEntry] = []
    try:
        posted = forms.draft_entries(request.POST)
        seconds, based_on = forms.active_seconds(request.POST), forms.based_on(request.POST)
        services.submit_with_draft(assignment=assignment, expert=request.user, entries=posted, active_seconds=seconds, based_on=based_on)
    except ValidationError as exc:  # changed in another tab (neither saved nor submitted), or refused
        return _refused(request, assignment, exc, posted)
    campaign = assignment.campaign_response.campaign
    # Reserve the next response now, so moving on costs one redirect.
    following = next_response_if_any(expert=request.user, campaign=campaign)
    progress = read_models.own_progress(Viewer.of(request), campaign)
    messages.success(
        request,
        _("Submitted. %(done)d of %(assigned)d done in “%(name)s”.")
        % {"done": progress.done, "assigned": progress.assigned, "name": campaign.name},
    )
    if following is not None:
        return redirect("annotation:judge", public_id=following.public_id)
    if (finished := read_models.attempt_finished_by(Viewer.of(request), assignment)) is not None:
        # The last response of a calibration attempt: its result at once, with what follows.
        return redirect("annotation:calibration_feedback", result_id=finished.pk)
    return redirect("annotation:home")


submit.refuses_nul_itself = True  # type: ignore[attr-defined]


@require_POST
@expert_keeping_text
def skip(request: SignedInRequest, public_id: str) -> HttpResponse:
    """Skip a response the expert cannot judge, with a reason; the text on the page is saved with it first, then the next is served."""
    assignment = read_models.own_work(Viewer.of(request), public_id)
    posted: list[services.DraftEntry] = []
    try:
        posted = forms.draft_entries(request.POST)
        if posted:
            # The draft stays with the skipped work: what was typed since the last autosave is kept too.
            services.save_draft(assignment=assignment, expert=request.user, entries=posted, based_on=forms.based_on(request.POST))
        services.skip_assignment(
            assignment=assignment, expert=request.user, reason=request.POST.get("reason", ""), note=request.POST.get("note", "")
        )
    except ValidationError as exc:
        return _refused(request, assignment, exc, posted, skip_form=request.POST)
    following = next_response_if_any(expert=request.user, campaign=assignment.campaign_response.campaign)
    messages.success(request, _("Skipped. The response goes to another expert; you will not be given it again. Your draft is kept."))
    if following is not None:
        return redirect("annotation:judge", public_id=following.public_id)
    return redirect("annotation:home")


skip.refuses_nul_itself = True  # type: ignore[attr-defined]


@require_POST
@expert_only
def report_unclear(request: SignedInRequest, public_id: str, criterion_id: int) -> HttpResponse:
    return _report(
        request,
        public_id,
        lambda assignment, comment: services.report_unclear_criterion(
            assignment=assignment, expert=request.user, criterion_id=criterion_id, comment=comment
        ),
        missing=_("Say what is unclear about the criterion."),
        thanks=_("Thank you — the rubric authors will look at this criterion."),
    )


@require_POST
@expert_only
def report_problem(request: SignedInRequest, public_id: str) -> HttpResponse:
    return _report(
        request,
        public_id,
        lambda assignment, comment: services.report_item_problem(assignment=assignment, expert=request.user, comment=comment),
        missing=_("Describe the problem."),
        thanks=_("Thank you — the problem was reported."),
    )


def _report(
    request: SignedInRequest, public_id: str, write: Callable[[Assignment, str], object], *, missing: str, thanks: str
) -> HttpResponse:
    """An expert's report on their own work (`write` takes its comment): htmx gets the outcome's partial, a plain form the page."""
    assignment = read_models.own_work(Viewer.of(request), public_id)
    form = forms.CommentForm(request.POST)
    try:
        if not form.is_valid():
            raise ValidationError(list(form.errors.get("comment", [missing])))
        write(assignment, form.cleaned_data["comment"])
    except ValidationError as exc:
        ok, message = False, " ".join(messages_of(exc))
    else:
        ok, message = True, thanks
    if request.htmx:
        return render(
            request, "annotation/workspace/partials/report_outcome.html", {"ok": ok, "message": message}, status=200 if ok else 400
        )
    (messages.success if ok else messages.error)(request, message)
    return redirect("annotation:judge", public_id=public_id)


@require_http_methods(["GET", "HEAD", "POST"])
@expert_only
def correction(request: SignedInRequest, public_id: str) -> HttpResponse:
    """Request a correction of submitted judgments: the form starts from the submitted version."""
    assignment = read_models.own_work(Viewer.of(request), public_id)
    if assignment.status != assignment.Status.SUBMITTED:
        return redirect("annotation:judge", public_id=public_id)
    form = forms.CorrectionReasonForm(request.POST or None)
    errors: dict[str, list[str]] = {}
    if request.method == "POST":
        try:
            if not form.is_valid():
                raise ValidationError({"reason": form.errors.get("reason", [_("Give a reason for the correction.")])})
            requested = services.request_correction(
                assignment=assignment, expert=request.user, reason=form.cleaned_data["reason"], entries=forms.draft_entries(request.POST)
            )
        except ValidationError as exc:
            errors = exc.message_dict if hasattr(exc, "error_dict") else {"__all__": exc.messages}
        else:
            if requested.after_discussion:
                messages.success(
                    request,
                    _(
                        "Correction requested. You had seen the discussion, so if an admin accepts it, it is kept as a "
                        "post-discussion revision: your blind verdict stays as you submitted it and is what the golden "
                        "standard and the statistics use."
                    ),
                )
            else:
                messages.success(request, _("Correction requested. An admin will accept or refuse it; your submitted version is kept."))
            return redirect("annotation:judge", public_id=public_id)
    page = read_models.judging_page(Viewer.of(request), assignment, with_guidelines=False)
    post_discussion = services.is_post_discussion(assignment)
    revision = services.standing_revision(assignment) if post_discussion else None
    # A further revision starts from the standing one, as the service does.
    _fill(page, {row["criterion"]: (row["rationale"], row["hit"]) for row in revision or []})
    if request.method == "POST":
        _fill(page, {e.criterion_id: (e.rationale, e.hit) for e in forms.draft_entries(request.POST)})
    return render(
        request,
        "annotation/workspace/correction.html",
        {
            "page": page,
            "form": form,
            "errors": errors,
            "error_list": [m for msgs in errors.values() for m in msgs],
            "post_discussion": post_discussion,
            "from_revision": revision is not None,
        },
        status=400 if errors else 200,
    )


def _seen_thread(request: SignedInRequest, assignment: Assignment) -> read_models.Discussion:
    """The expert's thread, recorded as seen (it shows other raters' stances); 404 while it is closed."""
    thread = read_models.discussion(Viewer.of(request), assignment)
    services.mark_discussion_seen(assignment=assignment, expert=request.user)
    return thread


@require_safe
@expert_only
def discussion(request: SignedInRequest, public_id: str) -> HttpResponse:
    assignment = read_models.own_work(Viewer.of(request), public_id)
    thread = _seen_thread(request, assignment)
    template = "annotation/workspace/partials/discussion_thread.html" if request.htmx else "annotation/workspace/discussion.html"
    return render(request, template, {"thread": thread, "page": thread.page, "form": forms.DiscussionCommentForm()})


@require_POST
@expert_only
def discussion_comment(request: SignedInRequest, public_id: str) -> HttpResponse:
    def comment(assignment: Assignment, d: dict[str, Any]) -> None:
        services.post_comment(assignment=assignment, expert=request.user, body=d["body"], criterion_id=d.get("criterion"))

    form = forms.DiscussionCommentForm(request.POST)
    return _in_thread(request, public_id, comment, form, refused=list(form.errors.get("body", [_("Write a comment.")])))


@require_POST
@expert_only
def discussion_vote(request: SignedInRequest, public_id: str) -> HttpResponse:
    def vote(assignment: Assignment, d: dict[str, Any]) -> None:
        services.cast_vote(assignment=assignment, expert=request.user, criterion_id=d["criterion"], hit=d["stance"] == "hit")

    return _in_thread(request, public_id, vote, forms.DiscussionVoteForm(request.POST), refused=[_("Choose hit or miss for a criterion.")])


def _in_thread(
    request: SignedInRequest, public_id: str, write: Callable[[Assignment, dict[str, Any]], None], form: Form, *, refused: list[Any]
) -> HttpResponse:
    """A comment or a vote in the expert's thread (`write` takes the valid form's data; `refused`: what an invalid form says)."""
    assignment = read_models.own_work(Viewer.of(request), public_id)
    try:
        if not form.is_valid():
            raise ValidationError(refused)
        write(assignment, form.cleaned_data)
    except ValidationError as exc:
        return _back_to_thread(request, assignment, public_id, refused=exc)
    return _back_to_thread(request, assignment, public_id)


def _back_to_thread(
    request: SignedInRequest, assignment: Assignment, public_id: str, refused: ValidationError | None = None
) -> HttpResponse:
    """The thread after a comment or a vote (404 when it was refused because the discussion is closed)."""
    if refused is not None:
        if not services.discussion_open_for(assignment):
            raise Http404(_("No such discussion.")) from None
        for message in messages_of(refused):
            messages.error(request, message)
    if request.htmx:
        thread = _seen_thread(request, assignment)
        return render(
            request,
            "annotation/workspace/partials/discussion_thread.html",
            {"thread": thread, "page": thread.page, "form": forms.DiscussionCommentForm()},
        )
    return redirect("annotation:discussion", public_id=public_id)


# --- admins: corrections ---------------------------------------------------------------------


@require_safe
@admin_only
def corrections(request: SignedInRequest) -> HttpResponse:
    # An admin who is an expert of an open campaign does not see its raters' judgments (heartbench_core.blindness).
    pending = read_models.pending_corrections(Viewer.of(request))
    return render(request, "annotation/workspace/corrections.html", {"pending": pending, "form": forms.DecisionForm()})


@require_POST
@admin_only
def decide_correction(request: SignedInRequest, correction_id: int) -> HttpResponse:
    correction = read_models.correction_to_decide(Viewer.of(request), correction_id)
    form = forms.DecisionForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Choose accept or refuse."))
        return redirect("annotation:corrections")
    try:
        services.decide_correction(
            correction=correction, admin=request.user, accept=form.cleaned_data["decision"] == "accept", note=form.cleaned_data["note"]
        )
    except ValidationError as exc:
        for message in messages_of(exc):
            messages.error(request, message)
    else:
        if form.cleaned_data["decision"] != "accept":
            messages.success(request, _("Correction %(id)s refused.") % {"id": correction.pk})
        elif correction.after_discussion:
            messages.success(
                request,
                _("Correction %(id)s accepted as a post-discussion revision; the blind verdict is unchanged.") % {"id": correction.pk},
            )
        else:
            messages.success(request, _("Correction %(id)s accepted.") % {"id": correction.pk})
    return redirect(reverse("annotation:corrections"))
