"""Issue an API token for a user from a script: the token is printed once, on standard output, and never stored."""

from typing import Any

from django.core.exceptions import ValidationError
from django.core.management.base import CommandError, CommandParser
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from heartbench_core.management.commands._base import PlatformCommand
from heartbench_core.models import User
from heartbench_core.services import api_tokens


class Command(PlatformCommand):
    help = gettext_lazy(  # type: ignore[assignment]  # Django prints it lazily, in the active language
        "Issue an API token for an active user. The token alone is printed on standard output, once: "
        "only its digest is stored. What it is and when it expires goes to standard error."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("username", help=_("The user the token acts as."))
        parser.add_argument("--name", required=True, help=_("What the token is for, e.g. the pipeline using it."))
        parser.add_argument(
            "--days",
            type=int,
            default=None,
            help=_("Its lifetime in days (default: the API_TOKEN_DAYS setting; at most API_TOKEN_MAX_DAYS)."),
        )

    def handle(self, *args: Any, **opts: Any) -> None:
        user = User.objects.filter(username=opts["username"]).first()
        if user is None:
            raise CommandError(_("no user named %(username)r") % {"username": opts["username"]})
        try:
            issued = api_tokens.issue_token(user=user, name=opts["name"], days=opts["days"])
        except ValidationError as exc:
            arguments = {"username": "USERNAME", "name": "--name", "days": "--days"}
            problems = [f"{arguments.get(field, field)}: {m}" for field, msgs in exc.message_dict.items() for m in msgs]
            raise CommandError(_("nothing was written: %(errors)s") % {"errors": "; ".join(problems)}) from None
        self.stdout.write(issued.text)
        self.stderr.write(
            _("Token %(prefix)s… (%(name)s) for %(username)s, expires %(when)s. It is shown only now.")
            % {
                "prefix": issued.token.prefix,
                "name": issued.token.name,
                "username": user.username,
                "when": api_tokens.utc_text(issued.token.expires_at),
            },
            style_func=lambda text: text,  # information, not an error
        )
