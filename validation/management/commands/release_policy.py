from typing import Any

from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied
from django.core.management.base import CommandError, CommandParser
from django.utils.translation import gettext, gettext_lazy

from heartbench_core.management.commands._base import ImportCommand
from heartbench_core.models import Dataset
from validation.services.release import change_release_policy, policy_history, policy_snapshot, release_policy_of

CHANGE_FLAGS = ("threshold", "min_pairs_per_dimension", "min_pairs_per_ability", "must_clear", "alt_test_epsilon")


class Command(ImportCommand):
    help = gettext_lazy(  # type: ignore[assignment]  # argparse gets it as a string (PlatformCommand.create_parser)
        "Print a dataset's release policy and its history; with change flags, change it (an admin, with a reason; the change is audited)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--dataset", required=True)
        parser.add_argument("--threshold", type=float, help=gettext("Agreement the judge must reach (0 to 1)."))
        parser.add_argument("--min-pairs-per-dimension", type=int, help=gettext("Compared pairs needed in each of the five dimensions."))
        parser.add_argument("--min-pairs-per-ability", type=int, help=gettext("Compared pairs needed in each of the fifteen abilities."))
        parser.add_argument(
            "--must-clear",
            choices=["point", "lower_bound"],
            help=gettext("What must clear the threshold: the point estimate or its 95%% CI's lower bound."),
        )
        parser.add_argument(
            "--alt-test-epsilon",
            type=float,
            help=gettext("Margin ε of the alternative annotator test (0 up to, not including, 1)."),
        )
        parser.add_argument("--reason", help=gettext("Why the policy changes (required with a change; kept in its history)."))
        parser.add_argument("--as", dest="username", metavar="USER", help=gettext("The admin making the change."))

    def handle(self, *args: Any, **opts: Any) -> None:
        dataset = Dataset.objects.filter(name=opts["dataset"]).first()
        if dataset is None:
            raise CommandError(gettext("no dataset named %(dataset)r") % {"dataset": opts["dataset"]})
        changes = {name: opts[name] for name in CHANGE_FLAGS if opts[name] is not None}
        if changes:
            if not opts["username"]:
                raise CommandError(gettext("--as USER is required to change a release policy: the admin making the change"))
            user = get_user_model().objects.filter(username=opts["username"]).first()
            if user is None:
                raise CommandError(gettext("no user named %(username)r") % {"username": opts["username"]})
            try:
                self.run_service(change_release_policy, dataset=dataset, admin=user, reason=opts["reason"] or "", **changes)
            except PermissionDenied as exc:
                raise CommandError(gettext("nothing was written:") + f" {exc}") from None
            self.stdout.write(gettext("release policy of %(dataset)s changed") % {"dataset": dataset.name})
        elif opts["reason"] or opts["username"]:
            raise CommandError(
                gettext(
                    "nothing to change: give at least one of --threshold, --min-pairs-per-dimension, --min-pairs-per-ability, --must-clear"
                )
            )
        self._print(dataset)

    def _print(self, dataset: Dataset) -> None:
        policy = release_policy_of(dataset)
        rules = policy_snapshot(policy)
        if rules["must_clear"] == "lower_bound":
            clears = gettext("the lower bound of the 95% CI")
        else:
            clears = gettext("the point estimate (lower bound shown)")
        if policy.pk is None:
            self.stdout.write(gettext("Release policy of %(dataset)s (defaults: never changed)") % {"dataset": dataset.name})
        else:
            self.stdout.write(gettext("Release policy of %(dataset)s") % {"dataset": dataset.name})
        rows = (
            (gettext("threshold"), rules["threshold"]),
            (gettext("must clear it"), clears),
            (gettext("min pairs per dimension"), rules["min_pairs_per_dimension"]),
            (gettext("min pairs per ability"), rules["min_pairs_per_ability"]),
            (gettext("alt-test margin ε"), rules["alt_test_epsilon"]),
        )
        for label, value in rows:
            self.stdout.write(f"  {label:<26}{value}")
        history = list(policy_history(dataset))
        self.stdout.write("")
        self.stdout.write(gettext("History") if history else gettext("History: no change yet"))
        for change in history:
            diff = ", ".join(
                f"{k} {(change.before or {}).get(k)} → {v}" for k, v in change.after.items() if (change.before or {}).get(k) != v
            )
            who = change.changed_by.username if change.changed_by else "—"
            self.stdout.write(f"  {change.changed_at:%Y-%m-%d %H:%M} {who}: {diff} — {change.reason}")
