"""Create a user with roles from a script: with a password read from the environment, or invited by e-mail."""

import os
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.management.base import CommandError, CommandParser
from django.db import transaction
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from heartbench_core.management.commands._base import PlatformCommand
from heartbench_core.people import services
from heartbench_core.roles import Role


class Command(PlatformCommand):
    help = gettext_lazy(  # type: ignore[assignment]  # Django prints it lazily, in the active language
        "Create a user holding the given roles. --password-from-env VAR reads the password from that environment variable; "
        "--invite e-mails a one-time link to set one instead, or prints it when no mail server is configured (SITE_URL is the address "
        "in the link)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("username", help=_("The new user's username."))
        parser.add_argument("--email", required=True, help=_("Their e-mail address."))
        parser.add_argument(
            "--role",
            action="append",
            default=[],
            dest="roles",
            metavar="ROLE",
            help=_("A role to hold (repeat for several): %(roles)s.") % {"roles": ", ".join(r.value for r in Role)},
        )
        how = parser.add_mutually_exclusive_group(required=True)
        how.add_argument("--password-from-env", metavar="VAR", help=_("Name of the environment variable holding the password."))
        how.add_argument("--invite", action="store_true", help=_("Create them without a password and e-mail an invitation."))
        parser.add_argument(
            "--language",
            default="",
            help=_("Their language (%(codes)s); also the invitation's.") % {"codes": ", ".join(c for c, _n in settings.LANGUAGES)},
        )
        parser.add_argument("--site-url", default=settings.SITE_URL, help=_("Address of the site for the invitation link."))

    def handle(self, *args: Any, **opts: Any) -> None:
        unknown = [r for r in opts["roles"] if r not in {role.value for role in Role}]
        if unknown:
            raise CommandError(
                _("--role: unknown role %(roles)s; the roles are %(known)s.")
                % {"roles": ", ".join(map(repr, unknown)), "known": ", ".join(r.value for r in Role)}
            )
        password = None
        if var := opts["password_from_env"]:
            password = os.environ.get(var)
            if not password:
                raise CommandError(_("--password-from-env: the environment variable %(var)s is not set or is empty.") % {"var": var})
        link = ""
        try:
            with transaction.atomic():
                user = services.create_user(
                    username=opts["username"], email=opts["email"], roles=opts["roles"], password=password, language=opts["language"]
                )
                if opts["invite"]:
                    link = services.send_first_invitation(user=user, base_url=opts["site_url"], language=opts["language"]).link
        except ValidationError as exc:
            raise CommandError(_("nothing was written: %(errors)s") % {"errors": "; ".join(_describe(exc))}) from None
        roles = ", ".join(r.value for r in Role if r.value in opts["roles"]) or _("no role")
        if opts["invite"] and link:
            # No mail server: the operator hands the link over (it is printed here once, and stored nowhere).
            self.stdout.write(
                _(
                    "Created %(username)s (%(roles)s). No mail server is configured (EMAIL_URL), so no e-mail was sent: "
                    "give them this one-time link yourself:"
                )
                % {"username": user.username, "roles": roles}
            )
            self.stdout.write(link)
        elif opts["invite"]:
            self.stdout.write(
                _("Created %(username)s (%(roles)s) and sent an invitation to %(email)s.")
                % {"username": user.username, "roles": roles, "email": user.email}
            )
        else:
            self.stdout.write(
                _("Created %(username)s (%(roles)s) with the password from %(var)s.")
                % {"username": user.username, "roles": roles, "var": opts["password_from_env"]}
            )


# The service's field names, as the command line spells them.
_ARGUMENTS = {"username": "USERNAME", "email": "--email", "roles": "--role", "language": "--language", "password": "--password-from-env"}


def _describe(exc: ValidationError) -> list[str]:
    if hasattr(exc, "error_dict"):
        return [f"{_ARGUMENTS.get(field, field)}: {m}" for field, msgs in exc.message_dict.items() for m in msgs]
    return list(exc.messages)
