"""Which open campaigns a person is an expert of, whatever their other roles; and the admins' view of dual roles.

The rule (docs/validation.md, "Dual roles"): a user is an expert of campaign C when

- C is not closed (draft, active or paused) and C is a campaign experts judge in (a blind test or
  a calibration set; a gold set is a pool nobody judges directly: its responses enter blind tests
  as hidden gold checks, and are covered there), and
- the user holds the expert role, and
- C lists them among its experts, or they hold an assignment in C (whatever became of it), or C
  lists no experts (an unrestricted campaign admits every expert: they may pull work from it at
  any time, so they are in it). This membership is `Campaign.objects.taking_part`, which the
  workspace reads too (new work is given by the narrower `Campaign.objects.admitting`).

A superuser holds every role for permissions, but is an expert of C only when C lists them or they
hold an assignment in it: otherwise every operator would be shut out of every unrestricted
campaign. Whatever such an operator sees is recorded as an exposure, and never served to them blind.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from django.db.models import Count, Q, QuerySet
from django.utils.translation import gettext_lazy as _

from annotation.models import Campaign, CampaignResponse
from heartbench_core.blindness import BlindScopeSource, blind_scope
from heartbench_core.models import StaffExposure, User
from heartbench_core.roles import STAFF_ROLES, Role, roles_of

if TYPE_CHECKING:
    from django.contrib.auth.models import AnonymousUser

JUDGED_KINDS = (Campaign.Kind.BLIND_TEST, Campaign.Kind.CALIBRATION)

# The progress of a campaign leaves its gold checks out: to one of its experts, a submission that
# did not move the figures would be a gold check. They are withheld until the campaign closes.
PROGRESS_WITHHELD = _(
    "You are an expert in this campaign: its progress figures are withheld from you until it closes, "
    "since whether a submission of yours moved them would tell you which of your responses were hidden gold checks."
)


def in_expert_group(user: User) -> bool:
    """Explicitly holds the expert role (a group), as opposed to holding it only as a superuser."""
    if not user.is_superuser:
        return Role.EXPERT in roles_of(user)  # cached for the request: no query
    cached = getattr(user, "_hb_expert_group", None)
    if cached is None:
        cached = user.groups.filter(name=Role.EXPERT.value).exists()
        user._hb_expert_group = cached
    return cached


def open_campaigns_as_expert(user: User) -> QuerySet[Campaign]:
    """The open campaigns the user is an expert of (see the module docstring for the rule)."""
    if not getattr(user, "is_authenticated", False) or not user.is_active:
        return Campaign.objects.none()
    explicit = in_expert_group(user)
    if not explicit and not user.is_superuser:
        return Campaign.objects.none()
    # A superuser outside the expert group is not in a campaign merely because it is unrestricted.
    return Campaign.objects.taking_part(user, unrestricted=explicit).filter(kind__in=JUDGED_KINDS).exclude(status=Campaign.Status.CLOSED)


def open_campaign_ids_as_expert(user: User) -> frozenset[int]:
    return frozenset(open_campaigns_as_expert(user).values_list("pk", flat=True))


def responses_of_campaigns(campaign_ids: frozenset[int]) -> QuerySet[CampaignResponse, int]:
    """ModelResponse ids sampled into these campaigns (a subquery): the same response in another campaign is the same response."""
    return CampaignResponse.objects.filter(campaign_id__in=campaign_ids).values_list("response_id", flat=True)


def datasets_of_campaigns(campaign_ids: frozenset[int]) -> frozenset[int]:
    return frozenset(Campaign.objects.filter(pk__in=campaign_ids).order_by().values_list("version__dataset_id", flat=True).distinct())


def campaigns_on_datasets(dataset_ids: frozenset[int]) -> frozenset[int]:
    return frozenset(Campaign.objects.filter(version__dataset_id__in=dataset_ids).values_list("pk", flat=True))


def campaigns_whose_seed_is_hidden(user: User | AnonymousUser | None) -> QuerySet[Campaign]:
    """Campaigns whose stored seed the user may not read: every campaign they are an expert of, open or closed.

    The seed alone does not recompute the sample (that needs the server's sampling key), but it is
    shown only to staff outside the campaign all the same. Nobody signed in: every campaign.
    """
    if user is None or not isinstance(user, User) or not user.is_authenticated:
        return Campaign.objects.all()
    explicit = in_expert_group(user)
    if not explicit and not user.is_superuser:
        return Campaign.objects.none()
    return Campaign.objects.taking_part(user, unrestricted=explicit)


def may_read_seed(user: User | AnonymousUser | None, campaign: Campaign) -> bool:
    """Whether the user may read the campaign's stored seed (one query)."""
    return not campaigns_whose_seed_is_hidden(user).filter(pk=campaign.pk).exists()


BLIND_SCOPE_SOURCE = BlindScopeSource(
    campaign_ids=open_campaign_ids_as_expert,
    dataset_ids=datasets_of_campaigns,
    campaigns_on=campaigns_on_datasets,
    response_ids=responses_of_campaigns,
)


# --- the admins' view of dual roles ------------------------------------------------------------


@dataclass
class ConflictCampaign:
    campaign: Campaign
    exposed: int  # responses of this campaign a staff view showed the user
    created_gold_source: bool = False  # they imported the gold set (or calibration set) its hidden gold checks come from


@dataclass
class DualRoleConflict:
    user: User
    staff_roles: list[str]
    superuser: bool
    campaigns: list[ConflictCampaign] = field(default_factory=list)
    exposures: int = 0  # every response any staff view showed them


def dual_role_users() -> QuerySet[User]:
    """Active users who hold the expert role and a staff role (superusers hold every role)."""
    staff = [r.value for r in STAFF_ROLES]
    experts = User.objects.filter(is_active=True, groups__name=Role.EXPERT.value)
    return (
        User.objects.filter(is_active=True)
        .filter(Q(is_superuser=True) | (Q(pk__in=experts) & Q(groups__name__in=staff)))
        .distinct()
        .order_by("username")
    )


def _created_gold_source(campaign: Campaign, user: User) -> bool:
    settings = getattr(campaign, "settings", None)  # a campaign created without settings has none
    source = settings.gold_source if settings is not None else None
    return source is not None and source.created_by_id == user.pk


def dual_role_conflicts() -> list[DualRoleConflict]:
    """Who is both expert and staff, the open campaigns they are experts of, and how many of their responses they were shown."""
    rows: list[DualRoleConflict] = []
    for user in dual_role_users().prefetch_related("groups"):
        campaigns = list(open_campaigns_as_expert(user).select_related("version__dataset", "settings__gold_source").order_by("name"))
        exposed = (
            dict(
                StaffExposure.objects.filter(user=user, response__campaign_entries__campaign__in=campaigns)
                .order_by()
                .values("response__campaign_entries__campaign_id")
                .annotate(n=Count("response_id", distinct=True))
                .values_list("response__campaign_entries__campaign_id", "n")
            )
            if campaigns
            else {}
        )
        rows.append(
            DualRoleConflict(
                user=user,
                staff_roles=[r.value for r in STAFF_ROLES if r in roles_of(user)],
                superuser=user.is_superuser,
                campaigns=[
                    ConflictCampaign(campaign=c, exposed=exposed.get(c.pk, 0), created_gold_source=_created_gold_source(c, user))
                    for c in campaigns
                ],
                exposures=StaffExposure.objects.filter(user=user).count(),
            )
        )
    return rows


def own_quality_hidden(viewer: User | AnonymousUser) -> str:
    """The viewer's username when their own measured gold quality must not be shown to them, else "".

    An admin who is an expert of an open campaign would see their gold checks counted as they submit them.
    """
    return viewer.get_username() if blind_scope(viewer) else ""
