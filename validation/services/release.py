"""The release policy of a dataset: read it (or its defaults) and change it, as an admin, with a reason.

The policy is fixed before the reports and applies to all of them: a report computed with other
parameters is exploratory and cannot set the release gate (`validation.services.agreement_reports`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.db.models import QuerySet
from django.utils.translation import gettext as _

from heartbench_core.models import Dataset
from heartbench_core.roles import Role, has_role
from validation.models import ReleasePolicy, ReleasePolicyChange

if TYPE_CHECKING:
    from heartbench_core.models import User

POLICY_FIELDS = ("threshold", "min_pairs_per_dimension", "min_pairs_per_ability", "must_clear", "alt_test_epsilon")


def release_policy_of(dataset: Dataset) -> ReleasePolicy:
    """The dataset's stored policy, or an unsaved one with the defaults when none was ever set."""
    policy = ReleasePolicy.objects.filter(dataset=dataset).select_related("updated_by").first()
    return policy if policy is not None else ReleasePolicy(dataset=dataset)


def policy_snapshot(policy: ReleasePolicy) -> dict[str, Any]:
    """The rules of a policy as plain JSON (what a gate records as the policy it was decided under)."""
    return {
        "threshold": float(policy.threshold),
        "min_pairs_per_dimension": int(policy.min_pairs_per_dimension),
        "min_pairs_per_ability": int(policy.min_pairs_per_ability),
        "must_clear": str(policy.must_clear),
        "alt_test_epsilon": float(policy.alt_test_epsilon),
    }


def policy_differs_from(recorded: dict[str, Any], current: dict[str, Any]) -> bool:
    """Whether the policy differs from one a gate recorded (a gate from before a rule existed had its default)."""
    return {**policy_snapshot(ReleasePolicy()), **recorded} != current


def clean_policy_fields(fields: dict[str, Any]) -> dict[str, Any]:
    """Check new policy values; raise ValidationError naming each bad field."""
    errors: dict[str, str] = {}
    unknown = sorted(set(fields) - set(POLICY_FIELDS))
    for name in unknown:
        errors[name] = _("not a release-policy field (fields: %(fields)s)") % {"fields": ", ".join(POLICY_FIELDS)}
    clean: dict[str, Any] = {}
    if "threshold" in fields:
        value = fields["threshold"]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
            errors["threshold"] = _("must be a number from 0 to 1")
        else:
            clean["threshold"] = float(value)
    for name in ("min_pairs_per_dimension", "min_pairs_per_ability"):
        if name in fields:
            value = fields[name]
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 1_000_000:
                errors[name] = _("must be a whole number from 0 to 1,000,000")
            else:
                clean[name] = value
    if "alt_test_epsilon" in fields:
        value = fields["alt_test_epsilon"]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < 1:
            errors["alt_test_epsilon"] = _("must be a number from 0 up to, but not including, 1")
        else:
            clean["alt_test_epsilon"] = float(value)
    if "must_clear" in fields:
        if fields["must_clear"] not in ReleasePolicy.Clears.values:
            errors["must_clear"] = _("choose one of: %(choices)s") % {"choices": ", ".join(ReleasePolicy.Clears.values)}
        else:
            clean["must_clear"] = fields["must_clear"]
    if errors:
        raise ValidationError(errors)
    return clean


def change_release_policy(*, dataset: Dataset, admin: User, reason: str, **fields: Any) -> ReleasePolicy:
    """Change a dataset's release policy (admins only, with a reason); the change is audited with before and after."""
    if not has_role(admin, Role.ADMIN):
        raise PermissionDenied(_("Only an admin changes a release policy."))
    errors: dict[str, list[str]] = {}
    try:
        clean = clean_policy_fields(fields)
    except ValidationError as exc:
        errors.update(exc.message_dict)
        clean = {}
    if not (reason or "").strip():
        errors["reason"] = [_("say why the policy changes: the reason is kept in its history")]
    if not fields and not errors:
        errors["threshold"] = [_("give at least one of: %(fields)s") % {"fields": ", ".join(POLICY_FIELDS)}]
    if errors:
        raise ValidationError(errors)
    with transaction.atomic():
        ReleasePolicy.objects.get_or_create(dataset=dataset)
        # Lock the row: two admins changing at once must each see the other's change as "before".
        policy = ReleasePolicy.objects.select_for_update().get(dataset=dataset)
        before = policy_snapshot(policy)  # a policy never set holds the defaults, which were in force
        after = {**before, **clean}
        if after == before:
            raise ValidationError({next(iter(clean), "threshold"): _("the policy already has these values: nothing to change")})
        for name, value in clean.items():
            setattr(policy, name, value)
        policy.updated_by = admin
        policy.save()
        ReleasePolicyChange.objects.create(policy=policy, before=before, after=after, reason=reason.strip(), changed_by=admin)
    return policy


def policy_history(dataset: Dataset) -> QuerySet[ReleasePolicyChange]:
    """The audited changes of a dataset's release policy, newest first."""
    return ReleasePolicyChange.objects.filter(policy__dataset=dataset).select_related("changed_by").order_by("-changed_at", "-id")
