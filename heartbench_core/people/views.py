"""The People pages (admins only): every user with roles and status; invite, change roles, deactivate, reactivate.

Every action is two POSTs: the first shows what will happen and asks to confirm, the second (with
`confirm`) does it and says what was done. The invitee's page to set a password is `InviteAcceptView`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import views as auth_views
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse, reverse_lazy
from django.utils.cache import add_never_cache_headers
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from heartbench_core.form_errors import errors_into, messages_of
from heartbench_core.http import SignedInRequest
from heartbench_core.mail import mail_is_delivered
from heartbench_core.people import read_models as people
from heartbench_core.people import services
from heartbench_core.people.forms import InviteForm, RolesForm
from heartbench_core.people.labels import ROLE_LABELS
from heartbench_core.people.read_models import Person
from heartbench_core.people.tokens import invite_token_generator
from heartbench_core.read_models import Viewer
from heartbench_core.roles import Role, role_required

PAGE_SIZE = 50
admin_only = role_required(Role.ADMIN)


def _person_or_404(request: HttpRequest, user_id: int) -> Person:
    found = people.person(Viewer.of(request), user_id)
    if found is None:
        raise Http404(_("No such user."))
    return found


def _confirm(
    request: HttpRequest, *, title: str, lines: list[str], action: str, button: str, back: str, fields: list[tuple[str, str]] | None = None
) -> HttpResponse:
    context = {"title": title, "lines": lines, "action": action, "fields": fields or [], "button": button, "back": back}
    return render(request, "heartbench_core/people_confirm.html", context)


@require_safe
@admin_only
def people_list(request: SignedInRequest) -> HttpResponse:
    viewer = Viewer.of(request)
    found = people.people(viewer, request.GET)
    page = Paginator(found.users, PAGE_SIZE).get_page(request.GET.get("page"))
    context = {"filters": found.filters.form, "page": page, "rows": people.people_rows(viewer, page), "query": found.filters.query}
    status = 400 if found.filters.messages else 200
    template = "heartbench_core/partials/people_table.html" if request.htmx else "heartbench_core/people.html"
    return render(request, template, context, status=status)


@require_safe
@admin_only
def person_detail(request: SignedInRequest, user_id: int) -> HttpResponse:
    return _detail_page(request, _person_or_404(request, user_id))


def _detail_page(request: SignedInRequest, person: Person, *, invite_link: str = "") -> HttpResponse:
    """A person's page; with `invite_link`, the one-time link no mail server carried, for the inviting admin to hand over."""
    shown = people.person_page(Viewer.of(request), person)
    form = RolesForm(initial={"roles": [r.value for r in shown.held_roles]})
    context = {
        **vars(shown),
        "form": form,
        "me": person.user.pk == request.user.pk,
        "mail_delivered": mail_is_delivered(),
        "invite_link": invite_link,
        "link_days": max(1, _link_days()),
    }
    response = render(request, "heartbench_core/people_detail.html", context)
    if invite_link:
        add_never_cache_headers(response)  # a credential: no cache, no back-button copy
    return response


def _invited(request: SignedInRequest, invitation: services.Invitation, *, sent: str) -> HttpResponse:
    """After an invitation: e-mailed, say so on the person's page; else show its link there, this once.

    The link is rendered into this answer, never redirected to: it is kept in no URL, session or message.
    """
    if invitation.link:
        return _detail_page(request, _person_or_404(request, invitation.user.pk), invite_link=invitation.link)
    messages.success(request, sent)
    return redirect("people:person", user_id=invitation.user.pk)


@require_http_methods(["GET", "HEAD", "POST"])
@admin_only
def invite(request: SignedInRequest) -> HttpResponse:
    form = InviteForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        d = form.cleaned_data
        if request.POST.get("confirm"):
            try:
                invitation = services.invite_user(**d, by=request.user, base_url=request.build_absolute_uri("/"))
            except ValidationError as exc:
                errors_into(form, exc)
            else:
                sent = _("Invitation sent to %(email)s. %(username)s appears as invited until they set a password.") % {
                    "email": invitation.user.email,
                    "username": invitation.user.username,
                }
                return _invited(request, invitation, sent=sent)
        else:
            roles = ", ".join(str(ROLE_LABELS[r]) for r in services.role_list(d["roles"])) or _("no role")
            fields = [(k, v) for k in ("email", "username", "first_name", "last_name", "language") if (v := d[k])]
            fields += [("roles", r) for r in d["roles"]]
            return _confirm(
                request,
                title=_("Invite %(email)s?") % {"email": d["email"]},
                lines=[
                    _("Username: %(username)s") % {"username": d["username"] or d["email"]},
                    _("Roles: %(roles)s") % {"roles": roles},
                    _invite_line(days=max(1, _link_days())),
                ],
                action=reverse("people:invite"),
                fields=fields,
                button=_("Send the invitation") if mail_is_delivered() else _("Make the invitation"),
                back=reverse("people:list"),
            )
    status = 400 if form.errors else 200
    return render(request, "heartbench_core/people_invite.html", {"form": form, "mail_delivered": mail_is_delivered()}, status=status)


def _invite_line(*, days: int) -> str:
    if mail_is_delivered():
        return _("An e-mail with a one-time link to set a password is sent now; the link works for %(days)d days.") % {"days": days}
    return _(
        "No mail server is configured, so no e-mail is sent: the next page shows the one-time link, once, "
        "for you to give them; it works for %(days)d days."
    ) % {"days": days}


def _link_days() -> int:
    return int(settings.INVITE_LINK_TIMEOUT // 86400)


@require_POST
@admin_only
def person_roles(request: SignedInRequest, user_id: int) -> HttpResponse:
    person = _person_or_404(request, user_id)
    form = RolesForm(request.POST)
    back = reverse("people:person", args=[user_id])
    if not form.is_valid():
        for m in (str(m) for msgs in form.errors.values() for m in msgs):
            messages.error(request, m)
        return redirect(back)
    wanted = services.role_list(form.cleaned_data["roles"])
    if not request.POST.get("confirm"):
        held = people.held_roles(Viewer.of(request), person)
        lines = [
            _("Roles now: %(roles)s") % {"roles": _labels(held)},
            _("Roles after: %(roles)s") % {"roles": _labels(wanted)},
        ]
        if Role.EXPERT in set(wanted) - set(held):
            lines.append(_("As an expert they get an expert profile and can be given work in campaigns."))
        if person.superuser:
            lines.append(_("This user is a superuser and holds every role whatever is ticked."))
        return _confirm(
            request,
            title=_("Change the roles of %(username)s?") % {"username": person.user.username},
            lines=lines,
            action=reverse("people:roles", args=[user_id]),
            fields=[("roles", r.value) for r in wanted],
            button=_("Change roles"),
            back=back,
        )

    def act() -> str:
        services.set_roles(user=person.user, roles=[r.value for r in wanted], by=request.user)
        return _("The roles of %(username)s are now: %(roles)s.") % {"username": person.user.username, "roles": _labels(wanted)}

    return _done(request, act, back)


def _done(request: SignedInRequest, act: Callable[[], str], back: str) -> HttpResponse:
    """Do a confirmed action and say what was done (what `act` returns), or why it was refused; back to the person's page."""
    try:
        said = act()
    except ValidationError as exc:
        for m in messages_of(exc):
            messages.error(request, m)
    else:
        messages.success(request, said)
    return redirect(back)


def _labels(roles: list[Role]) -> str:
    return ", ".join(str(ROLE_LABELS[r]) for r in roles) or _("no role")


@require_POST
@admin_only
def person_deactivate(request: SignedInRequest, user_id: int) -> HttpResponse:
    person = _person_or_404(request, user_id)
    back = reverse("people:person", args=[user_id])
    if not request.POST.get("confirm"):
        return _confirm(
            request,
            title=_("Deactivate %(username)s?") % {"username": person.user.username},
            lines=[
                _("They can no longer sign in; their open sessions end and their API tokens are revoked."),
                _("Their open (unsubmitted) work in campaigns is released, so other experts can take it; submitted work stays."),
                _("You can reactivate them later, with the same roles."),
            ],
            action=reverse("people:deactivate", args=[user_id]),
            button=_("Deactivate"),
            back=back,
        )

    def act() -> str:
        released = services.deactivate_user(user=person.user, by=request.user)
        message = _("%(username)s is deactivated; %(released)d open assignments were released.")
        return message % {"username": person.user.username, "released": released}

    return _done(request, act, back)


@require_POST
@admin_only
def person_reactivate(request: SignedInRequest, user_id: int) -> HttpResponse:
    person = _person_or_404(request, user_id)
    back = reverse("people:person", args=[user_id])
    if not request.POST.get("confirm"):
        return _confirm(
            request,
            title=_("Reactivate %(username)s?") % {"username": person.user.username},
            lines=[_("They can sign in again, with the roles shown on their page.")],
            action=reverse("people:reactivate", args=[user_id]),
            button=_("Reactivate"),
            back=back,
        )

    def act() -> str:
        services.reactivate_user(user=person.user, by=request.user)
        return _("%(username)s can sign in again.") % {"username": person.user.username}

    return _done(request, act, back)


@require_POST
@admin_only
def person_resend(request: SignedInRequest, user_id: int) -> HttpResponse:
    person = _person_or_404(request, user_id)
    back = reverse("people:person", args=[user_id])
    if not request.POST.get("confirm"):
        return _confirm(
            request,
            title=(
                _("Send a new invitation to %(username)s?") if mail_is_delivered() else _("Make a new invitation link for %(username)s?")
            )
            % {"username": person.user.username},
            lines=[
                _("A new one-time link goes to %(email)s; any earlier link stops working.") % {"email": person.user.email or "—"}
                if mail_is_delivered()
                else _(
                    "No mail server is configured: a new one-time link is made and shown to you on the next page, once; "
                    "any earlier link stops working."
                ),
            ],
            action=reverse("people:resend", args=[user_id]),
            button=_("Send a new invitation") if mail_is_delivered() else _("Make a new invitation link"),
            back=back,
        )
    try:
        invitation = services.resend_invite(user=person.user, by=request.user, base_url=request.build_absolute_uri("/"))
    except ValidationError as exc:
        for m in messages_of(exc):
            messages.error(request, m)
        return redirect(back)
    return _invited(request, invitation, sent=_("A new invitation was sent to %(email)s.") % {"email": person.user.email})


class InviteAcceptView(auth_views.PasswordResetConfirmView):
    """The invitee sets a password (Django's SetPasswordForm) from their one-time link and is signed in."""

    token_generator = invite_token_generator
    template_name = "registration/invite_accept.html"
    post_reset_login = True
    success_url = reverse_lazy("home")

    def form_valid(self, form: Any) -> HttpResponse:
        response = super().form_valid(form)
        services.record_invite_accepted(user=form.user)
        messages.success(
            self.request, _("Welcome, %(username)s: your password is set and you are signed in.") % {"username": form.user.get_username()}
        )
        return response
