"""Expert profiles: admins edit credentials, specialties, capacity and tier; experts edit their availability."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from annotation.models import AdminAlert, ExpertProfile, Qualification, TierChange
from heartbench_core.lib.taxonomy import ABILITIES, ABILITY_BY_LABEL, DIMENSIONS
from heartbench_core.models import Item, User
from heartbench_core.roles import Role, has_role

ADMIN_FIELDS = ("degree", "years_practice", "credentials", "specialties", "languages", "capacity", "availability", "availability_reason")


def ensure_profile(user: User) -> ExpertProfile:
    """The user's expert profile, created with defaults on first use."""
    return ExpertProfile.objects.get_or_create(user=user)[0]


def ensure_expert_profiles() -> int:
    """Create the missing profiles of users holding the expert role (idempotent); return how many were made."""
    missing = User.objects.filter(groups__name=Role.EXPERT.value, expert_profile__isnull=True).values_list("pk", flat=True)
    made = ExpertProfile.objects.bulk_create([ExpertProfile(user_id=uid) for uid in set(missing)], ignore_conflicts=True)
    return len(made)


def _check_specialties(values: object) -> list[str]:
    if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
        raise ValidationError({"specialties": _("must be a list of ability labels, dimension names or scene names")})
    english = {a.name.lower(): a.label for a in ABILITIES}
    dims = {d.lower(): d for d in DIMENSIONS}
    out = []
    for v in (s.strip() for s in values):
        if not v:
            continue
        # English ability names and dimension names are stored in their canonical spelling; other text must be a scene.
        out.append(english.get(v.lower()) or dims.get(v.lower()) or v)
    out = list(dict.fromkeys(out))
    others = [v for v in out if v not in ABILITY_BY_LABEL and v not in DIMENSIONS]
    if others:
        scenes = {
            scene
            for pair in Item.objects.filter(Q(primary_scene__in=others) | Q(secondary_scene__in=others))
            .values_list("primary_scene", "secondary_scene")
            .distinct()
            for scene in pair
        }
        if unknown := [v for v in others if v not in scenes]:
            # Matching would silently ignore them: refuse, naming them.
            raise ValidationError(
                {
                    "specialties": _("unknown specialties: %(list)s (neither an ability, a dimension nor a scene of any dataset)")
                    % {"list": ", ".join(unknown)}
                }
            )
    return out


def update_profile(*, profile: ExpertProfile, by: User, **changes: Any) -> ExpertProfile:
    """Admin edit of a profile (credentials, specialties, languages, capacity, availability)."""
    if not has_role(by, Role.ADMIN):
        raise PermissionDenied(_("Only admins edit expert profiles."))
    unknown = set(changes) - set(ADMIN_FIELDS)
    if unknown:
        raise ValidationError(dict.fromkeys(sorted(unknown), _("cannot be edited here")))
    if "specialties" in changes:
        changes["specialties"] = _check_specialties(changes["specialties"])
    if "languages" in changes:
        langs = changes["languages"]
        if not isinstance(langs, list) or not all(isinstance(v, str) and v.strip() for v in langs):
            raise ValidationError({"languages": _('must be a list of language codes, e.g. ["zh", "en"]')})
        changes["languages"] = [v.strip() for v in langs]
    if "capacity" in changes and (not isinstance(changes["capacity"], int) or changes["capacity"] < 0):
        raise ValidationError({"capacity": _("must be a whole number ≥ 0")})
    if "availability" in changes and changes["availability"] not in ExpertProfile.Availability.values:
        raise ValidationError({"availability": _("must be one of %(choices)s") % {"choices": ", ".join(ExpertProfile.Availability.values)}})
    with transaction.atomic():
        locked = ExpertProfile.objects.select_for_update().get(pk=profile.pk)
        for k, v in changes.items():
            setattr(locked, k, v)
        if changes.get("availability") == ExpertProfile.Availability.ACTIVE and "availability_reason" not in changes:
            locked.availability_reason = ""
        locked.full_clean(exclude=["user"])
        locked.save()
    return locked


def set_own_availability(*, user: User, availability: str, reason: str = "") -> ExpertProfile:
    """An expert sets themself active or away. A pause by quality control is lifted only by an admin."""
    if availability not in (ExpertProfile.Availability.ACTIVE, ExpertProfile.Availability.AWAY):
        raise ValidationError({"availability": _("choose active or away")})
    with transaction.atomic():
        profile = ExpertProfile.objects.select_for_update().get(pk=ensure_profile(user).pk)
        if profile.availability == ExpertProfile.Availability.PAUSED:
            raise ValidationError({"availability": _("your work is paused by an admin; they will contact you to resume it")})
        profile.availability = availability
        profile.availability_reason = reason.strip()[:500] if availability == ExpertProfile.Availability.AWAY else ""
        profile.save(update_fields=["availability", "availability_reason", "updated_at"])
    return profile


def override_tier(*, profile: ExpertProfile, tier: int | None, reason: str, by: User) -> ExpertProfile:
    """Admin override of the computed tier (None clears it); a reason is required and kept in the history."""
    if not has_role(by, Role.ADMIN):
        raise PermissionDenied(_("Only admins override tiers."))
    reason = (reason or "").strip()
    if tier is not None and not (1 <= tier <= 5):
        raise ValidationError({"tier": _("must be between 1 and 5")})
    if not reason:
        raise ValidationError({"reason": _("say why the tier is overridden")})
    with transaction.atomic():
        locked = ExpertProfile.objects.select_for_update().get(pk=profile.pk)
        old = locked.effective_tier
        locked.tier_override = tier
        locked.tier_override_reason = reason if tier is not None else ""
        locked.save(update_fields=["tier_override", "tier_override_reason", "updated_at"])
        TierChange.objects.create(profile=locked, old_tier=old, new_tier=locked.effective_tier, override=True, reason=reason, changed_by=by)
    return locked


def grant_qualification(*, expert: User, dimension: str = "", reason: str, by: User) -> Qualification:
    """Admin qualification without calibration (e.g. a known senior clinician); the reason is kept."""
    if not has_role(by, Role.ADMIN):
        raise PermissionDenied(_("Only admins grant qualifications."))
    if dimension and dimension not in DIMENSIONS:
        raise ValidationError(
            {
                "dimension": _("unknown dimension %(dimension)r (one of %(known)s)")
                % {"dimension": dimension, "known": ", ".join(DIMENSIONS)}
            }
        )
    if not (reason or "").strip():
        raise ValidationError({"reason": _("say why the expert is qualified without calibration")})
    if not has_role(expert, Role.EXPERT):
        raise ValidationError({"expert": _("%(username)s does not hold the expert role") % {"username": expert.get_username()}})
    with transaction.atomic():
        ensure_profile(expert)
        q, _created = Qualification.objects.update_or_create(
            expert=expert, dimension=dimension, defaults={"source": Qualification.Source.ADMIN, "granted_by": by, "reason": reason.strip()}
        )
    return q


def revoke_qualification(*, expert: User, dimension: str = "", by: User) -> int:
    if not has_role(by, Role.ADMIN):
        raise PermissionDenied(_("Only admins revoke qualifications."))
    with transaction.atomic():
        return Qualification.objects.filter(expert=expert, dimension=dimension).delete()[0]


def resolve_alert(*, alert: AdminAlert, by: User) -> AdminAlert:
    if not has_role(by, Role.ADMIN):
        raise PermissionDenied(_("Only admins resolve alerts."))
    with transaction.atomic():
        AdminAlert.objects.filter(pk=alert.pk, resolved_at__isnull=True).update(resolved_at=timezone.now(), resolved_by=by)
    alert.refresh_from_db()
    return alert
