"""publish_revisions --dataset NAME [--version LABEL] [--note TEXT] [--as USER]: freeze approved revisions into a new version."""

from typing import Any

from django.core.exceptions import PermissionDenied
from django.core.management.base import CommandError, CommandParser
from django.utils.translation import gettext, gettext_lazy

from heartbench_core.management.commands._base import ImportCommand
from heartbench_core.models import Dataset, User
from heartbench_core.versioning import format_changelog
from rubrics.services import publish_revisions


class Command(ImportCommand):
    help = gettext_lazy("Publish every approved, unpublished rubric revision of a dataset as a new frozen version.")  # type: ignore[assignment]  # argparse gets it as a string (PlatformCommand.create_parser)

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--dataset", required=True)
        parser.add_argument("--version", dest="label", default=None, help=gettext("Label of the new version (default vN)."))
        parser.add_argument("--note", default="")
        parser.add_argument("--as", dest="username", required=True, help=gettext("Rubric author or admin publishing (audited)."))

    def handle(self, *args: Any, **opts: Any) -> None:
        dataset = Dataset.objects.filter(name=opts["dataset"]).first()
        if dataset is None:
            raise CommandError(gettext("no dataset named %(dataset)r") % {"dataset": opts["dataset"]})
        user = User.objects.filter(username=opts["username"]).first()
        if user is None:
            raise CommandError(gettext("no user named %(username)r") % {"username": opts["username"]})
        try:
            version = self.run_service(publish_revisions, dataset=dataset, user=user, label=opts["label"], note=opts["note"])
        except PermissionDenied as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(gettext("published %(version)s") % {"version": version})
        self.stdout.write(format_changelog(version.changelog))
