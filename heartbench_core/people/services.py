"""Writes on people: invite, create, change roles, deactivate, reactivate. Every one is kept in the site's change log.

Pages, the API and the `create_user` command call these functions. The apps above the core hear
of role changes and deactivations through `heartbench_core.people.signals` (the annotation app
creates expert profiles and releases open work), so no import points out of the core.
"""

from __future__ import annotations

import smtplib
from collections.abc import Iterable
from dataclasses import dataclass

from django.conf import settings
from django.contrib.admin.models import ADDITION, CHANGE, LogEntry
from django.contrib.auth import SESSION_KEY
from django.contrib.auth.models import Group
from django.contrib.contenttypes.models import ContentType
from django.contrib.sessions.models import Session
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.mail import EmailMultiAlternatives
from django.core.validators import validate_email
from django.db import IntegrityError, transaction
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode
from django.utils.translation import gettext as _

from heartbench_core.language import supported
from heartbench_core.mail import mail_is_delivered
from heartbench_core.models import User
from heartbench_core.people.labels import ROLE_LABELS
from heartbench_core.people.signals import roles_changed, user_deactivated
from heartbench_core.people.tokens import invite_token_generator
from heartbench_core.roles import Role, has_role
from heartbench_core.services.api_tokens import revoke_tokens_of

# Change-log messages start with these, so the people selectors can find invitations (not shown translated: a log).
INVITE_LOG_PREFIX = "people.invite"


@dataclass(frozen=True)
class Invitation:
    """An invitation made: the invitee, and the one-time link when no mail server carried it ("" when it was e-mailed).

    The link is a credential: it is shown once, to whoever made the invitation, and stored nowhere.
    """

    user: User
    link: str = ""


def role_list(values: Iterable[str]) -> list[Role]:
    """The roles named by `values`, in the platform's order; an unknown name is an error naming the field."""
    names = list(values)
    known = {r.value for r in Role}
    unknown = [v for v in names if v not in known]
    if unknown:
        raise ValidationError(
            {
                "roles": _("Unknown role %(roles)s; the roles are %(known)s.")
                % {"roles": ", ".join(map(repr, unknown)), "known": ", ".join(known)}
            }
        )
    return [r for r in Role if r.value in names]


def group_roles(user: User) -> set[Role]:
    """The roles the user's groups grant (a superuser holds every role whatever these are)."""
    names = set(user.groups.values_list("name", flat=True))
    return {r for r in Role if r.value in names}


def is_invite_pending(user: User) -> bool:
    """True while the user has never set a password nor signed in (an invitation can be sent or re-sent)."""
    return user.is_active and not user.has_usable_password() and user.last_login is None


def invite_link(user: User, *, base_url: str) -> str:
    """The one-time link that lets the user set a password (dies once used, on a re-send or on deactivation)."""
    uid = urlsafe_base64_encode(force_bytes(user.pk))
    path = reverse("invite_accept", args=[uid, invite_token_generator.make_token(user)])
    return base_url.rstrip("/") + path


def invite_user(
    *,
    email: str,
    roles: Iterable[str],
    by: User,
    base_url: str,
    username: str = "",
    language: str = "",
    first_name: str = "",
    last_name: str = "",
) -> Invitation:
    """Create a user without a usable password holding `roles`, and e-mail them a link to set one (or hand it to `by`)."""
    _require_admin(by)
    roles = list(roles)
    user = _new_user(username=username or email, email=email, roles=roles, language=language, first_name=first_name, last_name=last_name)
    with transaction.atomic():
        user.set_unusable_password()
        _save_new(user)
        granted = _grant(user, role_list(roles), by=by)
        _log(
            by=by,
            user=user,
            flag=ADDITION,
            message=f"{INVITE_LOG_PREFIX}: {user.email}; roles: {_names(granted)}; language: {language or '-'}{_handed_over()}",
        )
        link = _send_invitation(user, by=by, base_url=base_url, language=language or translation.get_language() or settings.LANGUAGE_CODE)
    return Invitation(user=user, link=link)


def resend_invite(*, user: User, by: User, base_url: str) -> Invitation:
    """Send a fresh invitation link (or hand it to `by`); any earlier link stops working."""
    _require_admin(by)
    with transaction.atomic():
        locked = User.objects.select_for_update().get(pk=user.pk)
        if not locked.is_active:
            raise ValidationError({"user": _("%(username)s is inactive: reactivate them before inviting them again.") % _who(locked)})
        if not is_invite_pending(locked):
            raise ValidationError({"user": _("%(username)s has already set a password; there is nothing to re-send.") % _who(locked)})
        if not locked.email:
            raise ValidationError({"email": _("%(username)s has no e-mail address to send the invitation to.") % _who(locked)})
        locked.set_unusable_password()  # a new hash: the earlier link no longer matches
        locked.save(update_fields=["password"])
        _log(by=by, user=locked, flag=CHANGE, message=f"{INVITE_LOG_PREFIX}.resend: {locked.email}{_handed_over()}")
        link = _send_invitation(
            locked, by=by, base_url=base_url, language=locked.language or translation.get_language() or settings.LANGUAGE_CODE
        )
    return Invitation(user=locked, link=link)


def create_user(
    *, username: str, email: str, roles: Iterable[str], password: str | None = None, language: str = "", by: User | None = None
) -> User:
    """Create a user for scripts (the `create_user` command): with a password, or without one (to invite next)."""
    if by is not None:
        _require_admin(by)
    roles = list(roles)
    user = _new_user(username=username, email=email, roles=roles, language=language)
    with transaction.atomic():
        if password is None:
            user.set_unusable_password()
        else:
            from django.contrib.auth.password_validation import validate_password

            try:
                validate_password(password, user)
            except ValidationError as exc:
                raise ValidationError({"password": exc.messages}) from None
            user.set_password(password)
        _save_new(user)
        granted = _grant(user, role_list(roles), by=by)
        # The change log needs an actor: from the command line, the new user stands for the operator.
        _log(
            by=by or user,
            user=user,
            flag=ADDITION,
            message=f"people.create: roles: {_names(granted)}" + ("" if by else "; from the command line"),
        )
    return user


def send_first_invitation(*, user: User, base_url: str, language: str = "") -> Invitation:
    """E-mail a user just created without a password (the command's --invite) their invitation (or hand the link back)."""
    _log(by=user, user=user, flag=CHANGE, message=f"{INVITE_LOG_PREFIX}: {user.email}; from the command line{_handed_over('operator')}")
    link = _send_invitation(
        user, by=None, base_url=base_url, language=language or user.language or translation.get_language() or settings.LANGUAGE_CODE
    )
    return Invitation(user=user, link=link)


def set_roles(*, user: User, roles: Iterable[str], by: User) -> User:
    """Give the user exactly `roles`; an admin cannot take their own admin role away."""
    _require_admin(by)
    wanted = set(role_list(roles))
    with transaction.atomic():
        locked = User.objects.select_for_update().get(pk=user.pk)
        held = group_roles(locked)
        if locked.pk == by.pk and Role.ADMIN not in wanted:
            raise ValidationError({"roles": _("You cannot remove your own admin role; ask another admin to do it.")})
        granted, removed = wanted - held, held - wanted
        if granted or removed:
            locked.groups.set(_groups(wanted))
            locked._hb_roles = None
            roles_changed.send(sender=User, user=locked, granted=granted, removed=removed, by=by)
            _log(by=by, user=locked, flag=CHANGE, message=f"people.roles: {_names(held)} -> {_names(wanted)}")
    user._hb_roles = None
    return locked


def deactivate_user(*, user: User, by: User) -> int:
    """Refuse the user from now on: end their sessions, revoke their API tokens, release their open work; return how much was released."""
    _require_admin(by)
    if user.pk == by.pk:
        raise ValidationError({"user": _("You cannot deactivate yourself; ask another admin to do it.")})
    with transaction.atomic():
        locked = User.objects.select_for_update().get(pk=user.pk)
        if not locked.is_active:
            raise ValidationError({"user": _("%(username)s is already inactive.") % _who(locked)})
        locked.is_active = False
        if not locked.has_usable_password():
            locked.set_unusable_password()  # an unused invitation link dies for good, even after a reactivation
        locked.save(update_fields=["is_active", "password"])
        tokens = revoke_tokens_of(user=locked, by=by)
        sessions = _end_sessions(locked)
        replies = user_deactivated.send(sender=User, user=locked, by=by)
        answers: list[object] = [r for _receiver, r in replies]  # the receivers return how many assignments they released
        released = sum(r for r in answers if isinstance(r, int))
        _log(
            by=by,
            user=locked,
            flag=CHANGE,
            message=f"people.deactivate: {sessions} sessions ended, {tokens} API tokens revoked, {released} open assignments released",
        )
    return released


def reactivate_user(*, user: User, by: User) -> User:
    """Let a deactivated user sign in again, with the roles they held."""
    _require_admin(by)
    with transaction.atomic():
        locked = User.objects.select_for_update().get(pk=user.pk)
        if locked.is_active:
            raise ValidationError({"user": _("%(username)s is already active.") % _who(locked)})
        locked.is_active = True
        locked.save(update_fields=["is_active"])
        _log(by=by, user=locked, flag=CHANGE, message="people.reactivate")
    return locked


def record_invite_accepted(*, user: User) -> None:
    """Note in the change log that the user set their password from an invitation."""
    _log(by=user, user=user, flag=CHANGE, message=f"{INVITE_LOG_PREFIX}.accepted")


# --- helpers --------------------------------------------------------------------------------------


def _require_admin(by: User) -> None:
    if not has_role(by, Role.ADMIN):
        raise PermissionDenied(_("Only admins manage people."))


def _who(user: User) -> dict[str, str]:
    return {"username": user.get_username()}


def _names(roles: Iterable[Role]) -> str:
    return ",".join(r.value for r in Role if r in set(roles)) or "-"


def _new_user(*, username: str, email: str, roles: Iterable[str], language: str, first_name: str = "", last_name: str = "") -> User:
    """An unsaved user after checking every field, each error naming its field."""
    errors: dict[str, list[str]] = {}
    email = User.objects.normalize_email((email or "").strip())
    username = (username or "").strip()
    try:
        validate_email(email)
    except ValidationError:
        errors.setdefault("email", []).append(_("Enter a valid e-mail address."))
    else:
        if User.objects.filter(email__iexact=email).exists():
            errors.setdefault("email", []).append(_("A user with the e-mail address %(email)s already exists.") % {"email": email})
    username_field = User._meta.get_field("username")
    try:
        username_field.run_validators(username)
        if not username:
            raise ValidationError(_("Enter a username."))
        if len(username) > (username_field.max_length or 150):
            raise ValidationError(_("A username has at most %(n)d characters.") % {"n": username_field.max_length or 150})
    except ValidationError as exc:
        errors.setdefault("username", []).extend(exc.messages)
    else:
        if User.objects.filter(username__iexact=username).exists():
            errors.setdefault("username", []).append(_("A user named %(username)s already exists.") % {"username": username})
    if language and not supported(language):
        choices = ", ".join(code for code, _name in settings.LANGUAGES)
        errors.setdefault("language", []).append(
            _("Unknown language %(language)r; choose one of %(choices)s.") % {"language": language, "choices": choices}
        )
    try:
        role_list(roles)
    except ValidationError as exc:
        errors.setdefault("roles", []).extend(exc.messages)
    if errors:
        raise ValidationError(errors)
    return User(username=username, email=email, language=language, first_name=first_name[:150], last_name=last_name[:150])


def _save_new(user: User) -> None:
    """Insert the user; another request creating the same username meanwhile is an error on the field."""
    try:
        with transaction.atomic():
            user.save()
    except IntegrityError:
        raise ValidationError({"username": _("A user named %(username)s already exists.") % {"username": user.username}}) from None


def _groups(roles: Iterable[Role]) -> list[Group]:
    # The groups exist after `migrate` (migration 0005); get_or_create also covers a database restored from before it.
    return [Group.objects.get_or_create(name=r.value)[0] for r in Role if r in set(roles)]


def _grant(user: User, roles: list[Role], *, by: User | None) -> set[Role]:
    granted = set(roles)
    if granted:
        user.groups.add(*_groups(granted))
        user._hb_roles = None
        roles_changed.send(sender=User, user=user, granted=granted, removed=set(), by=by)
    return granted


def _end_sessions(user: User) -> int:
    """Delete the user's stored sessions (an inactive user is refused at the next request anyway; this keeps a
    reactivation from reviving them). Sessions live in the database by default; reading them is cheap at this scale."""
    if settings.SESSION_ENGINE != "django.contrib.sessions.backends.db":
        return 0
    ids = [
        s.pk
        for s in Session.objects.filter(expire_date__gt=timezone.now()).iterator()
        if str(s.get_decoded().get(SESSION_KEY)) == str(user.pk)
    ]
    Session.objects.filter(pk__in=ids).delete()
    return len(ids)


def _log(*, by: User, user: User, flag: int, message: str) -> None:
    """Keep the action in the site's change log (django.contrib.admin's LogEntry: who, when, what)."""
    LogEntry.objects.create(
        user=by,
        content_type=ContentType.objects.get_for_model(User),
        object_id=str(user.pk),
        object_repr=user.get_username()[:200],
        action_flag=flag,
        change_message=message,
    )


def _handed_over(to: str = "inviter") -> str:
    """What the change log adds to an invitation no mail server carried."""
    return "" if mail_is_delivered() else f"; not e-mailed (no mail server): the link was shown to the {to}"


def _send_invitation(user: User, *, by: User | None, base_url: str, language: str) -> str:
    """E-mail the invitation in `language`; return the link when no mail server carries it ("" when one does).

    A failure to send is an error naming the e-mail field (nothing is kept). Without a mail server the
    message still goes to the configured backend (console:// prints it for development; none drops it).
    """
    link = invite_link(user, base_url=base_url)
    with translation.override(language):
        context = {
            "user": user,
            "link": link,
            "inviter": (by.get_full_name() or by.get_username()) if by else _("The HeartBench validation team"),
            "roles": ", ".join(str(ROLE_LABELS[r]) for r in Role if r in group_roles(user)),
            "days": max(1, settings.INVITE_LINK_TIMEOUT // 86400),
        }
        subject = " ".join(render_to_string("emails/invite_subject.txt", context).split())
        text = render_to_string("emails/invite_body.txt", context)
        html = render_to_string("emails/invite_body.html", context)
    message = EmailMultiAlternatives(subject, text, to=[user.email])
    message.attach_alternative(html, "text/html")
    try:
        message.send()
    except (smtplib.SMTPException, OSError) as exc:
        raise ValidationError({"email": _("The invitation could not be sent (%(error)s); nothing was saved.") % {"error": exc}}) from None
    return "" if mail_is_delivered() else link
