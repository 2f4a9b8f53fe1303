"""The campaign app's tables a campaign archive carries, and how a campaign's name becomes the archive's scope."""

from django.core.exceptions import ValidationError
from django.db.models import Q
from django.utils.translation import gettext as _

from annotation.models import Assignment, Campaign, CampaignSettings
from heartbench_core.campaign_archive import ArchivedTable, ArchiveScope, CampaignSource, HeldBack
from heartbench_core.models import User


def campaign_scope(name: str) -> ArchiveScope:
    """The campaign, the gold set its gold checks came from and the dataset's calibration sets (parents first), and their experts."""
    campaign = Campaign.objects.select_related("version__dataset").filter(name=name).first()
    if campaign is None:
        known = ", ".join(Campaign.objects.order_by("name").values_list("name", flat=True)[:20]) or _("none")
        raise ValidationError({"campaign": _("no campaign named %(name)r (known: %(known)s)") % {"name": name, "known": known}})
    dataset = campaign.version.dataset
    ids = list(
        Campaign.objects.filter(version__dataset=dataset, kind=Campaign.Kind.CALIBRATION)
        .exclude(pk=campaign.pk)
        .order_by("pk")
        .values_list("pk", flat=True)
    )
    gold_source = CampaignSettings.objects.filter(campaign=campaign).values_list("gold_source_id", flat=True).first()
    if gold_source and gold_source not in ids:
        ids.append(gold_source)
    ids.append(campaign.pk)
    experts = Q(assignments__campaign_response__campaign__in=ids) | Q(eligible_campaigns__in=ids)
    user_ids = tuple(User.objects.filter(experts).order_by("pk").values_list("pk", flat=True).distinct())
    return ArchiveScope(campaign.name, dataset.pk, dataset.name, tuple(ids), user_ids)


SOURCE = CampaignSource(scope=campaign_scope, exists=lambda name: Campaign.objects.filter(name=name).exists())


def _in_campaigns(scope: ArchiveScope) -> Q:
    return Q(campaign_response__campaign__in=scope.campaign_ids)


def _of_assignments(scope: ArchiveScope) -> Q:
    return Q(assignment__campaign_response__campaign__in=scope.campaign_ids)


CAMPAIGN_ARCHIVE = (
    ArchivedTable("annotation.ExpertProfile", lambda s: Q(user__in=s.user_ids), person="user_id"),
    ArchivedTable("annotation.ExpertQuality", lambda s: Q(profile__user__in=s.user_ids)),
    ArchivedTable("annotation.TierChange", lambda s: Q(profile__user__in=s.user_ids)),
    ArchivedTable("annotation.Campaign", lambda s: Q(pk__in=s.campaign_ids), many_to_many=("language_models", "experts")),
    ArchivedTable("annotation.CampaignSettings", lambda s: Q(campaign__in=s.campaign_ids)),
    ArchivedTable("annotation.CampaignGuidelines", lambda s: Q(campaign__in=s.campaign_ids)),
    ArchivedTable("annotation.CampaignResponse", lambda s: Q(campaign__in=s.campaign_ids)),
    ArchivedTable("annotation.GoldLabel", _in_campaigns),
    # The judgment guard refuses judgments of a submitted assignment: they go in while it is still
    # reserved, and the assignments become submitted once every judgment is in, as they were.
    ArchivedTable(
        "annotation.Assignment",
        _in_campaigns,
        held_back=HeldBack(column="status", value=Assignment.Status.SUBMITTED, meanwhile=Assignment.Status.RESERVED),
        copied=(("campaign_id", "campaign_response_id", "campaign_id"),),  # archives from before assignments carried it
    ),
    ArchivedTable("annotation.Judgment", _of_assignments),
    ArchivedTable("annotation.UnclearCriterionReport", _of_assignments),
    ArchivedTable("annotation.ItemProblemReport", _of_assignments),
    ArchivedTable("annotation.CorrectionRequest", _of_assignments),
    ArchivedTable("annotation.Skip", _of_assignments),
    ArchivedTable("annotation.DiscussionComment", _in_campaigns),
    ArchivedTable("annotation.DiscussionVote", _in_campaigns),
    ArchivedTable("annotation.CalibrationResult", lambda s: Q(campaign__in=s.campaign_ids)),
    ArchivedTable("annotation.Qualification", lambda s: Q(expert__in=s.user_ids), person="expert_id"),
    ArchivedTable("annotation.AdminAlert", lambda s: Q(campaign__in=s.campaign_ids)),
    ArchivedTable("annotation.PayDecision", lambda s: Q(campaign__in=s.campaign_ids)),
)
