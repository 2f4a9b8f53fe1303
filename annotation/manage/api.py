"""REST API of campaign management: profiles, calibration, campaigns, assignments, alerts, dual roles.

Experts reach only `profiles/` (their own, availability editable) and `calibration-results/`
(their own). Nothing an expert can reach carries gold-check flags, measured gold accuracy,
tiers (which move with gold accuracy), models or other raters. Everything else is admin-only.
"""

import builtins
import dataclasses
from collections.abc import Sequence
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

from django.core.exceptions import ValidationError as DjangoValidationError
from django.db.models import QuerySet
from django.http import HttpResponse
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop
from drf_spectacular.utils import (
    PolymorphicProxySerializer,
    extend_schema,
    extend_schema_field,
    extend_schema_view,
)
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import NotFound, PermissionDenied
from rest_framework.pagination import CursorPagination
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.manage import read_models
from annotation.manage.alert_texts import alert_text
from annotation.manage.filters import AlertFilters, AssignmentFilters, CalibrationResultFilters, CampaignFilters
from annotation.manage.forms import calibration_kwargs, campaign_kwargs, gold_file_kwargs
from annotation.manage.selectors import Certificate, ExpertGoldAccuracy, ExpertProgress
from annotation.manage.views import payments_file
from annotation.models import (
    AdminAlert,
    Assignment,
    CalibrationResult,
    Campaign,
    ExpertProfile,
    ExpertQuality,
    Qualification,
    QualityPolicy,
    Skip,
)
from annotation.services import experts as expert_services
from annotation.services.assignment import UNFILLED_REASONS, bulk_assign, release_assignment
from annotation.services.campaigns import (
    CampaignOutcome,
    SettingsChange,
    create_calibration,
    create_campaign,
    create_gold_set,
    set_campaign_status,
    update_campaign_settings,
)
from annotation.services.payments import PaymentLine, decide_held_pay, payment_lines, update_pay_policy
from annotation.services.sampling import MAX_SEED
from annotation.services.split_extension import split_extension_state, switch_split_extension
from heartbench_core.api import ComputedListView, FileImportView, KeysetPagination, RecordsShown, valid_body
from heartbench_core.api_blind import ShowsResponses
from heartbench_core.api_changes import RefusesUnknownFields, unchangeable_field_errors
from heartbench_core.api_types import TypedSerializer, typed
from heartbench_core.http import signed_in
from heartbench_core.models import LanguageModel, User
from heartbench_core.paging import keyset_of
from heartbench_core.query_params import valid_query
from heartbench_core.read_models import Viewer
from heartbench_core.roles import Role, has_role, role_permission

IsAdmin = role_permission(Role.ADMIN)
IsAdminOrExpert = role_permission(Role.ADMIN, Role.EXPERT)

EXPERT_PAUSED_TEXT = gettext_noop("Your work is paused by an admin; they will contact you to resume it.")


# --- profiles ------------------------------------------------------------------------------------


class QualitySerializer(serializers.ModelSerializer):
    class Meta:
        model = ExpertQuality
        fields = ["calibration_score", "gold_accuracy", "gold_checks", "gold_criteria", "submitted", "certified_at"]


class QualificationSerializer(serializers.Serializer):
    dimension = serializers.CharField(help_text='A dimension of the taxonomy, or "general".')
    source = serializers.ChoiceField(choices=Qualification.Source.choices)  # type: ignore[assignment]  # the key is "source"; the metaclass takes it out of the class
    reason = serializers.CharField()


# What an admin and the expert alike see of a profile, before what only one of them sees.
PROFILE_FIELDS = (
    "username",
    "degree",
    "years_practice",
    "credentials",
    "specialties",
    "languages",
    "capacity",
    "availability",
    "availability_reason",
)


class AdminProfileSerializer(serializers.ModelSerializer):
    username = serializers.CharField(source="user.username", read_only=True)
    effective_tier = serializers.IntegerField(read_only=True)
    quality = serializers.SerializerMethodField()
    qualifications = serializers.SerializerMethodField()

    class Meta:
        model = ExpertProfile
        fields = [
            *PROFILE_FIELDS,
            "tier",
            "tier_override",
            "tier_override_reason",
            "effective_tier",
            "quality",
            "qualifications",
            "updated_at",
        ]
        read_only_fields = ["tier", "tier_override", "tier_override_reason", "updated_at"]

    @extend_schema_field(
        QualitySerializer(
            allow_null=True, help_text="Null before any figure, or for your own profile while you are an expert of an open campaign."
        )
    )
    def get_quality(self, obj: ExpertProfile) -> dict[str, Any] | None:
        # Withheld (read_models.profiles) from an admin who is an expert of an open campaign: their own gold figures would date their gold checks.
        if obj.quality_withheld:  # type: ignore[attr-defined]  # annotated by read_models.profiles
            return None
        q: ExpertQuality | None = getattr(obj, "quality", None)
        return QualitySerializer(q).data if q else None

    @extend_schema_field(QualificationSerializer(many=True))
    def get_qualifications(self, obj: ExpertProfile) -> list[Any]:
        rows = [
            {"dimension": q.dimension or "general", "source": q.source, "reason": q.reason}
            for q in obj.user.qualification_list  # type: ignore[attr-defined]  # prefetched by read_models.profiles
        ]
        return QualificationSerializer(rows, many=True).data  # type: ignore[return-value]  # many=True: a list; the stubs type .data as a dict


class OwnProfileSerializer(serializers.ModelSerializer):
    """What an expert sees of their own profile."""

    username = serializers.CharField(source="user.username", read_only=True)
    availability_reason = serializers.SerializerMethodField()
    qualified_for = serializers.SerializerMethodField()
    certified_at = serializers.SerializerMethodField()

    class Meta:
        model = ExpertProfile
        fields = [*PROFILE_FIELDS, "qualified_for", "certified_at"]

    def get_availability_reason(self, obj: ExpertProfile) -> str:
        return _(EXPERT_PAUSED_TEXT) if obj.availability == ExpertProfile.Availability.PAUSED else obj.availability_reason

    def get_qualified_for(self, obj: ExpertProfile) -> list[str]:
        return [q.dimension or "general" for q in obj.user.qualification_list]  # type: ignore[attr-defined]  # prefetched by read_models.profiles

    def get_certified_at(self, obj: ExpertProfile) -> datetime | None:
        quality: ExpertQuality | None = getattr(obj, "quality", None)
        return quality.certified_at if quality else None


class CertificateSerializer(serializers.Serializer):
    """An expert's own certificate: their own aggregate figures, never per gold check."""

    title = serializers.CharField()
    holder = serializers.CharField()
    campaign = serializers.CharField(source="campaign.name")
    campaign_id = serializers.IntegerField(source="campaign.pk")
    submitted = serializers.IntegerField(help_text="Responses the expert submitted in the campaign.")
    certified_at = serializers.DateTimeField()
    quality_bar = serializers.FloatField(help_text="The measured quality the certificate needs.")
    quality = serializers.FloatField(
        allow_null=True,
        help_text="Measured quality; null while the expert takes part in an open campaign (then it is at least quality_bar).",
    )
    quality_basis = serializers.ChoiceField(choices=["gold", "calibration"])
    gold_checks = serializers.IntegerField(help_text="Checks the quality is measured over (0 when withheld or from calibration).")
    code = serializers.CharField(help_text="Verification code.")
    url = serializers.SerializerMethodField(help_text="The printable page.")
    verify_url = serializers.SerializerMethodField()

    def get_url(self, cert: Certificate) -> str:
        return self.context["request"].build_absolute_uri(reverse("annotation:certificate", args=[cert.campaign.pk]))

    def get_verify_url(self, cert: Certificate) -> str:
        return self.context["request"].build_absolute_uri(reverse("annotation:certificate_verify", args=[cert.code]))


# What experts set themselves; "paused" is an admin's decision.
EXPERT_AVAILABILITY = [(a.value, a.label) for a in (ExpertProfile.Availability.ACTIVE, ExpertProfile.Availability.AWAY)]


class AvailabilitySerializer(serializers.Serializer):
    availability = serializers.ChoiceField(choices=EXPERT_AVAILABILITY)
    reason = serializers.CharField(required=False, allow_blank=True, default="", max_length=500)


class TierOverrideSerializer(serializers.Serializer):
    tier = serializers.IntegerField(min_value=1, max_value=5, allow_null=True)
    reason = serializers.CharField()


class QualifySerializer(serializers.Serializer):
    dimension = serializers.CharField(required=False, allow_blank=True, default="")
    reason = serializers.CharField()


def _profile_as_seen(*, many: bool = False) -> PolymorphicProxySerializer:
    """A profile as the caller sees it: an admin's view of any expert, or an expert's view of their own."""
    return PolymorphicProxySerializer(
        component_name="Profile", serializers=[AdminProfileSerializer, OwnProfileSerializer], resource_type_field_name=None, many=many
    )


def _profile_update() -> PolymorphicProxySerializer:
    """What a profile update takes: any editable field of an admin's view, or an expert's own availability."""
    return PolymorphicProxySerializer(
        component_name="ProfileUpdate", serializers=[AdminProfileSerializer, AvailabilitySerializer], resource_type_field_name=None
    )


@extend_schema_view(
    list=extend_schema(responses=_profile_as_seen(many=True)),
    retrieve=extend_schema(responses=_profile_as_seen()),
    update=extend_schema(request=_profile_update(), responses=_profile_as_seen()),
    partial_update=extend_schema(request=_profile_update(), responses=_profile_as_seen()),
)
class ProfileViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, mixins.UpdateModelMixin, viewsets.GenericViewSet[ExpertProfile]):
    """Expert profiles. Admins see and edit all; an expert sees only their own and edits only availability."""

    permission_classes = [IsAdminOrExpert]
    lookup_field = "user__username"
    lookup_url_kwarg = "username"
    lookup_value_regex = "[^/]+"

    def _is_admin(self) -> bool:
        return has_role(self.request.user, Role.ADMIN)

    def get_queryset(self) -> QuerySet[ExpertProfile]:
        if self._is_admin():
            expert_services.ensure_expert_profiles()
        else:
            expert_services.ensure_profile(signed_in(self.request))
        return read_models.profiles(Viewer.of(self.request))

    def get_serializer_class(self) -> type[serializers.ModelSerializer]:
        return AdminProfileSerializer if self._is_admin() else OwnProfileSerializer

    def _as_read(self) -> ExpertProfile:
        """The profile of the address as a service left it, read as the list reads it (what an admin's change answers)."""
        return read_models.profile(Viewer.of(self.request), self.kwargs[self.lookup_url_kwarg])

    def update(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        profile = self.get_object()
        if not self._is_admin():
            availability = valid_body(AvailabilitySerializer, request)
            extra = set(request.data) - {"availability", "reason"}
            if extra:
                raise PermissionDenied(_("You can change only your availability, not: %(fields)s.") % {"fields": ", ".join(sorted(extra))})
            expert_services.set_own_availability(user=signed_in(request), **availability)
            return Response(OwnProfileSerializer(read_models.own_profile(Viewer.of(request))).data)
        if errors := unchangeable_field_errors(request.data, list(expert_services.ADMIN_FIELDS)):
            raise serializers.ValidationError(errors)
        form = AdminProfileSerializer(profile, data=request.data, partial=True)
        form.is_valid(raise_exception=True)
        changes = {k: v for k, v in form.validated_data.items() if k in expert_services.ADMIN_FIELDS}
        expert_services.update_profile(profile=profile, by=signed_in(request), **changes)
        return Response(AdminProfileSerializer(self._as_read()).data)

    @extend_schema(responses={200: OwnProfileSerializer})
    @action(detail=False, methods=["get"])
    def me(self, request: Request) -> Response:
        """The requesting user's own profile, as an expert sees it."""
        expert_services.ensure_profile(signed_in(request))
        return Response(OwnProfileSerializer(read_models.own_profile(Viewer.of(request))).data)

    @extend_schema(responses={200: CertificateSerializer(many=True)})
    @action(detail=False, methods=["get"], pagination_class=None)
    def certificates(self, request: Request) -> Response:
        """The requesting expert's certificates, one per blind test they worked in, once the quality policy's thresholds are met."""
        rows = read_models.own_certificates(Viewer.of(request))
        return Response(CertificateSerializer(rows, many=True, context={"request": request}).data)

    @extend_schema(request=TierOverrideSerializer, responses={200: AdminProfileSerializer})
    @action(detail=True, methods=["post"], url_path="override-tier")
    def override_tier(self, request: Request, username: str | None = None) -> Response:
        """Admin: override the computed tier (tier null clears it); a reason is required."""
        if not self._is_admin():
            raise PermissionDenied(_("Only admins override tiers."))
        data = valid_body(TierOverrideSerializer, request)
        expert_services.override_tier(profile=self.get_object(), by=signed_in(request), **data)
        return Response(AdminProfileSerializer(self._as_read()).data)

    @extend_schema(request=QualifySerializer, responses={200: AdminProfileSerializer})
    @action(detail=True, methods=["post"])
    def qualify(self, request: Request, username: str | None = None) -> Response:
        """Admin: qualify an expert without calibration (general or for one dimension), with a reason."""
        if not self._is_admin():
            raise PermissionDenied(_("Only admins grant qualifications."))
        data = valid_body(QualifySerializer, request)
        expert_services.grant_qualification(expert=self.get_object().user, by=signed_in(request), **data)
        return Response(AdminProfileSerializer(self._as_read()).data)


# --- calibration ---------------------------------------------------------------------------------


class DimensionResultSerializer(serializers.Serializer):
    agreed = serializers.IntegerField()
    compared = serializers.IntegerField()
    score = serializers.FloatField()
    passed = serializers.BooleanField()


class CalibrationMissSerializer(serializers.Serializer):
    """A criterion the expert judged unlike gold, with gold's explanation."""

    position = serializers.IntegerField()
    ability = serializers.CharField()
    ability_name = serializers.CharField()
    dimension = serializers.CharField(help_text="Empty when the ability belongs to no dimension.")
    text = serializers.CharField()
    expert_hit = serializers.BooleanField(allow_null=True)
    gold_hit = serializers.BooleanField()
    explanation = serializers.CharField(allow_null=True)
    rationale = serializers.CharField(help_text="The expert's rationale.")


class CalibrationResultSerializer(serializers.ModelSerializer):
    campaign = serializers.CharField(source="campaign.name", read_only=True)
    expert = serializers.CharField(source="expert.username", read_only=True)
    per_dimension = serializers.DictField(
        child=DimensionResultSerializer(), read_only=True, help_text="The attempt per dimension, by its name."
    )
    misses = serializers.SerializerMethodField()

    class Meta:
        model = CalibrationResult
        fields = [
            "id",
            "campaign",
            "expert",
            "attempt",
            "score",
            "agreed",
            "compared",
            "threshold",
            "passed",
            "per_dimension",
            "completed_at",
            "misses",
        ]

    @extend_schema_field(CalibrationMissSerializer(many=True))
    def get_misses(self, obj: CalibrationResult) -> list[Any]:
        return CalibrationMissSerializer([row for row in obj.feedback if not row["agreed"]], many=True).data  # type: ignore[return-value]  # many=True: a list; the stubs type .data as a dict


@extend_schema_view(list=extend_schema(parameters=CalibrationResultFilters.parameters()))
class CalibrationResultViewSet(RecordsShown, viewsets.ReadOnlyModelViewSet[CalibrationResult]):
    """Finished calibration attempts with feedback on each miss: an expert's own, or all for admins."""

    serializer_class = CalibrationResultSerializer
    permission_classes = [IsAdminOrExpert]

    def get_queryset(self) -> QuerySet[CalibrationResult]:
        return read_models.calibration_results(Viewer.of(self.request), self.request.query_params)

    def get_object(self) -> CalibrationResult:
        result = super().get_object()
        self.record([result])
        return result

    def record(self, results: Sequence[CalibrationResult]) -> None:
        """Others' feedback shows gold verdicts of the calibration's responses: never serve those to the viewer blind."""
        read_models.calibration_results_shown(Viewer.of(self.request), results)


class GoldSetCreateSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=200)
    dataset = serializers.CharField(max_length=100)
    version = serializers.CharField(max_length=64, required=False, allow_blank=True)
    file = serializers.FileField()


class CalibrationCreateSerializer(GoldSetCreateSerializer):
    pass_threshold = serializers.FloatField(default=0.8)
    cooldown_days = serializers.FloatField(default=1.0, min_value=0)
    max_attempts = serializers.IntegerField(default=2, min_value=1)
    sitting_size = serializers.IntegerField(required=False, allow_null=True, default=None, min_value=1)
    experts = serializers.ListField(child=serializers.CharField(), required=False)


class CampaignSerializer(serializers.ModelSerializer):
    dataset = serializers.CharField(source="version.dataset.name", read_only=True)
    version = serializers.CharField(source="version.label", read_only=True)
    models: serializers.SlugRelatedField[LanguageModel] = serializers.SlugRelatedField(
        source="language_models", many=True, read_only=True, slug_field="name"
    )
    experts: serializers.SlugRelatedField[User] = serializers.SlugRelatedField(many=True, read_only=True, slug_field="username")
    responses = serializers.IntegerField(source="responses_n", read_only=True)  # counted with the rows (read_models.campaigns)
    gold_source = serializers.CharField(source="settings.gold_source.name", read_only=True, allow_null=True, default=None)
    max_attempts = serializers.IntegerField(source="settings.max_attempts", read_only=True, allow_null=True, default=None)
    sitting_size = serializers.IntegerField(source="settings.sitting_size", read_only=True, allow_null=True, default=None)
    retake_cooldown = serializers.DurationField(source="settings.retake_cooldown", read_only=True, allow_null=True, default=None)
    certificate_name = serializers.CharField(source="settings.certificate_name", read_only=True, allow_null=True, default=None)
    split_extension = serializers.BooleanField(
        source="settings.split_extension", read_only=True, default=False, help_text="Extra raters where the verdicts split: on or off."
    )
    split_extension_budget = serializers.IntegerField(
        source="settings.split_extension_budget", read_only=True, default=0, help_text="Most extra assignments (two per extended response)."
    )
    split_extension_min_share = serializers.FloatField(
        source="settings.split_extension_min_share",
        read_only=True,
        default=0.5,
        help_text="Share of a response's criteria split by one vote that extends it.",
    )
    seed = serializers.SerializerMethodField(
        help_text="The stored seed of the sample (drawn with the server's sampling key); null for a user who is an expert of the campaign."
    )

    class Meta:
        model = Campaign
        fields = [
            "id",
            "name",
            "kind",
            "status",
            "status_reason",
            "deadline",
            "certificate_name",
            "dataset",
            "version",
            "models",
            "sample_fraction",
            "overlap",
            "seed",
            "reservation_timeout",
            "experts",
            "gold_rate",
            "gold_source",
            "min_tier_for_hard",
            "piece_rate",
            "pass_threshold",
            "max_attempts",
            "sitting_size",
            "retake_cooldown",
            "rationale_min_chars",
            "show_weights",
            "split_extension",
            "split_extension_budget",
            "split_extension_min_share",
            "responses",
            "created_at",
        ]

    @extend_schema_field(serializers.IntegerField(allow_null=True))
    def get_seed(self, campaign: Campaign) -> int | None:
        # Read with the campaign (read_models.campaigns), for all a list gives in its one query; hidden unless read so.
        return None if getattr(campaign, "seed_hidden", True) else campaign.seed


@extend_schema_view(post=extend_schema(request=GoldSetCreateSerializer, responses={201: CampaignSerializer}))
class GoldSetCreateView(FileImportView[CampaignOutcome]):
    """Admin: create a gold set (the pool of hidden gold checks) from a gold-label JSONL file (same rules as `create_gold_set`)."""

    input_serializer = GoldSetCreateSerializer

    def run(self, d: dict[str, Any], user: User) -> CampaignOutcome:
        return create_gold_set(**gold_file_kwargs(d, dataset=d["dataset"], file=d["file"]), created_by=user)

    def respond(self, outcome: CampaignOutcome) -> Response:
        return Response(CampaignSerializer(read_models.campaign_as_listed(Viewer.of(self.request), outcome.campaign.pk)).data, status=201)


@extend_schema_view(post=extend_schema(request=CalibrationCreateSerializer, responses={201: CampaignSerializer}))
class CalibrationCreateView(GoldSetCreateView):
    """Admin: create a calibration set from a gold-label JSONL file (same rules as `create_calibration`)."""

    input_serializer = CalibrationCreateSerializer

    def run(self, d: dict[str, Any], user: User) -> CampaignOutcome:
        experts = calibration_kwargs(d, experts=d.get("experts") or [])
        return create_calibration(**gold_file_kwargs(d, dataset=d["dataset"], file=d["file"]), **experts, created_by=user)


# --- campaigns -----------------------------------------------------------------------------------


class CreatedCampaignSerializer(CampaignSerializer):
    """A new campaign, with what its sample drew."""

    gold_checks = serializers.SerializerMethodField(help_text="Hidden gold checks drawn into the campaign.")
    items = serializers.SerializerMethodField(help_text="Items the sample drew.")
    eligible_experts = serializers.SerializerMethodField(help_text="Experts who may take its work now.")

    class Meta(CampaignSerializer.Meta):
        fields = [*CampaignSerializer.Meta.fields, "gold_checks", "items", "eligible_experts"]

    def get_gold_checks(self, campaign: Campaign) -> int:
        return self.context["outcome"].gold

    def get_items(self, campaign: Campaign) -> int:
        return self.context["outcome"].items

    def get_eligible_experts(self, campaign: Campaign) -> int:
        return self.context["outcome"].eligible_experts


class CampaignCreateSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=200)
    dataset = serializers.CharField(max_length=100)
    version = serializers.CharField(max_length=64, required=False, allow_blank=True)
    models = serializers.ListField(child=serializers.CharField(), allow_empty=False)
    sample_fraction = serializers.FloatField(default=0.4)
    overlap = serializers.IntegerField(default=3)
    seed = serializers.IntegerField(
        required=False,
        allow_null=True,
        default=None,
        min_value=0,
        max_value=MAX_SEED,
        help_text="Empty: a random seed. Give one only to draw the same sample again (with the server's sampling key).",
    )
    reservation_timeout_minutes = serializers.IntegerField(default=120, min_value=1)
    experts = serializers.ListField(child=serializers.CharField(), required=False)
    requires_qualification = serializers.BooleanField(default=True)
    qualification_per_dimension = serializers.BooleanField(default=False)
    gold_source = serializers.CharField(required=False, allow_blank=True, help_text="Name of a gold set (never a calibration set).")
    gold_rate = serializers.FloatField(default=0.0)
    min_tier_for_hard = serializers.IntegerField(default=1, min_value=1)
    piece_rate = serializers.DecimalField(max_digits=8, decimal_places=2, default=Decimal("0"))
    split_extension = serializers.BooleanField(
        default=False, help_text="Offer a response whose k verdicts split to two more experts (k + 2), within the budget."
    )
    split_extension_budget = serializers.IntegerField(default=0, help_text="Extra assignments; at least 2 with the option on.")
    split_extension_min_share = serializers.FloatField(
        default=0.5, help_text="In (0, 1]: the share of a response's criteria split by one vote (a tie when k is even) that extends it."
    )


class SplitExtensionInputSerializer(serializers.Serializer):
    split_extension = serializers.BooleanField(help_text="On or off.")
    split_extension_budget = serializers.IntegerField(help_text="Extra assignments; at least 2 with the option on.")
    split_extension_min_share = serializers.FloatField(default=0.5, help_text="In (0, 1].")


class SplitExtensionResultSerializer(serializers.Serializer):
    split_extension = serializers.BooleanField(source="enabled")
    split_extension_budget = serializers.IntegerField(source="budget")
    split_extension_min_share = serializers.FloatField(source="min_share")
    spent = serializers.IntegerField(help_text="Extra assignments granted so far.")
    extended = serializers.IntegerField(help_text="Responses extended so far.")
    extended_now = serializers.IntegerField(help_text="Waiting responses this request extended (most split first).")


class StatusSerializer(serializers.Serializer):
    status = serializers.ChoiceField(choices=Campaign.Status.choices)
    reason = serializers.CharField(
        required=False, allow_blank=True, default="", max_length=2000, help_text="Why; required to pause or close. Experts read it."
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if attrs["status"] in (Campaign.Status.PAUSED, Campaign.Status.CLOSED) and not attrs["reason"].strip():
            raise serializers.ValidationError({"reason": _("Say why the campaign is paused or closed; its experts read it.")})
        return attrs


class CampaignSettingsUpdateSerializer(RefusesUnknownFields):
    """What may change while a campaign runs; every field optional (PATCH)."""

    rationale_min_chars = serializers.IntegerField(required=False, min_value=0, max_value=2000)
    deadline = serializers.DateTimeField(required=False, allow_null=True)
    show_weights = serializers.BooleanField(required=False)
    reservation_timeout_minutes = serializers.IntegerField(required=False, min_value=3, max_value=60 * 24 * 30)
    piece_rate = serializers.DecimalField(required=False, max_digits=8, decimal_places=2, min_value=Decimal("0"))
    certificate_name = serializers.CharField(required=False, allow_blank=True, max_length=200)
    guidelines = serializers.CharField(
        required=False, allow_blank=True, max_length=50_000, help_text="Markdown; a new revision when it differs."
    )
    change_note = serializers.CharField(required=False, allow_blank=True, max_length=300, help_text="What changed in the guidelines.")
    confirm = serializers.BooleanField(
        default=False,
        help_text="Needed to change show_weights, rationale_min_chars or the guidelines once experts have submitted work (else a 400 on confirm).",
    )


class CampaignSettingsResultSerializer(serializers.Serializer):
    campaign = CampaignSerializer()
    changed = typed(SettingsChange)(many=True)


class GuidelinesRevisionSerializer(serializers.Serializer):
    revision = serializers.IntegerField()
    body = serializers.CharField()
    change_note = serializers.CharField()
    author = serializers.CharField(source="author.username", allow_null=True, default=None)
    created_at = serializers.DateTimeField()


class RecordedChangeSerializer(serializers.Serializer):
    at = serializers.DateTimeField(source="action_time")
    by = serializers.CharField(source="user.username")
    change = serializers.CharField(source="change_message")


class SettingsHistorySerializer(serializers.Serializer):
    guidelines = GuidelinesRevisionSerializer(many=True, help_text="Every revision, newest first.")
    changes = RecordedChangeSerializer(many=True, help_text="Recorded changes of settings and status, newest first.")


class PaymentLineSerializer(TypedSerializer[PaymentLine]):
    rate = serializers.DecimalField(max_digits=8, decimal_places=2)
    amount = serializers.DecimalField(max_digits=12, decimal_places=2)
    decision = serializers.SerializerMethodField()

    class Meta:
        dataclass = PaymentLine
        exclude = ("expert_id",)

    @extend_schema_field(serializers.BooleanField(allow_null=True, help_text="The admin's decision on the held work; null when none."))
    def get_decision(self, line: PaymentLine) -> bool | None:
        return None if line.decision is None else line.decision.pay


class PaymentsSerializer(serializers.Serializer):
    paused_work_pay = serializers.ChoiceField(source="policy.paused_work_pay", choices=QualityPolicy.PausedWorkPay.choices)
    lines = PaymentLineSerializer(many=True)


class PayDecisionInputSerializer(serializers.Serializer):
    expert = serializers.CharField(max_length=150, help_text="Username.")
    pay = serializers.BooleanField()
    note = serializers.CharField(required=False, allow_blank=True, default="", max_length=2000, help_text="Required when not paid.")


class ExpertProgressSerializer(TypedSerializer[ExpertProgress]):
    class Meta:
        dataclass = ExpertProgress
        exclude = ("user_id",)


class GoldAccuracySerializer(serializers.Serializer):
    """One expert's agreement with the campaign's hidden gold checks; accuracy None (with the reason) when nothing was compared."""

    username = serializers.CharField()
    checks = serializers.IntegerField(help_text="Gold checks submitted.")
    compared = serializers.IntegerField(help_text="Gold-labelled criteria judged.")
    agreed = serializers.IntegerField()
    accuracy = serializers.FloatField(allow_null=True)
    reason = serializers.CharField(allow_null=True)

    def to_representation(self, row: ExpertGoldAccuracy) -> dict[str, Any]:
        return {**super().to_representation(row), "reason": row.reason or None}


class ProgressSerializer(serializers.Serializer):
    withheld = serializers.CharField(
        allow_null=True,
        help_text="Why the figures are null: the caller is an expert of this open campaign (they would tell which of "
        "their responses were hidden gold checks). Null when the figures are given.",
    )
    k = serializers.IntegerField()
    responses = serializers.IntegerField(allow_null=True)
    gold_responses = serializers.IntegerField(allow_null=True)
    by_submitted_judgments = serializers.DictField(child=serializers.IntegerField(), allow_null=True)
    complete = serializers.IntegerField(allow_null=True)
    reserved = serializers.IntegerField(allow_null=True)
    submitted = serializers.IntegerField(allow_null=True)
    target = serializers.IntegerField(allow_null=True)
    active_seconds = serializers.IntegerField(allow_null=True)
    pace_per_day = serializers.FloatField(allow_null=True)
    pace_reason = serializers.CharField(allow_null=True)
    projected_finish = serializers.DateField(allow_null=True)
    projected_reason = serializers.CharField(allow_null=True)
    experts = ExpertProgressSerializer(many=True)
    gold_accuracy = GoldAccuracySerializer(many=True, help_text="Hidden gold checks, reported on their own.")


class SkipCountSerializer(serializers.Serializer):
    key = serializers.CharField(help_text="The reason's code, or the expert's username.")
    text = serializers.CharField(source="label", help_text="The reason in the caller's language, or the username.")
    count = serializers.IntegerField()


class SkipRowSerializer(serializers.Serializer):
    assignment = serializers.CharField(help_text="The skipped assignment's public id (its draft is kept on it).")
    expert = serializers.CharField(source="username")
    campaign_response = serializers.IntegerField(source="campaign_response_id")
    question_id = serializers.CharField()
    is_gold = serializers.BooleanField(help_text="A hidden gold check (skipped like any response; the expert was told nothing).")
    reason = serializers.ChoiceField(choices=Skip.Reason.choices)
    reason_label = serializers.CharField()
    note = serializers.CharField()
    created_at = serializers.DateTimeField()


class StuckResponseSerializer(serializers.Serializer):
    campaign_response = serializers.IntegerField(source="campaign_response_id")
    question_id = serializers.CharField()
    need = serializers.IntegerField(help_text="Slots still open: k minus its live assignments.")
    left = serializers.IntegerField(help_text="Eligible experts who never had the response (fewer than need: it cannot reach k).")


class CampaignSkipsSerializer(serializers.Serializer):
    withheld = serializers.CharField(
        allow_null=True, help_text="Why nothing is given: the caller is an expert of this open campaign. Null when the skips are given."
    )
    total = serializers.IntegerField(allow_null=True)
    by_reason = SkipCountSerializer(many=True)
    by_expert = SkipCountSerializer(many=True)
    latest = SkipRowSerializer(many=True, help_text="The latest skips, newest first.")
    stuck = StuckResponseSerializer(many=True, help_text="Skipped responses that can no longer reach k, and why.")


class UnfilledSlotSerializer(serializers.Serializer):
    campaign_response = serializers.IntegerField(
        source="campaign_response_id", help_text="The campaign response (its id in this campaign)."
    )
    question_id = serializers.CharField()
    need = serializers.IntegerField(help_text="Open slots of this response no eligible expert can take.")
    reason = serializers.ChoiceField(choices=UNFILLED_REASONS)
    detail = serializers.CharField(help_text="The reason in words.")


class BulkAssignInputSerializer(serializers.Serializer):
    # A list of names (a bare string was read letter by letter); CharField refuses a NUL, which
    # PostgreSQL could not look up (a 500 before).
    experts = serializers.ListField(
        child=serializers.CharField(max_length=150),
        required=False,
        allow_empty=True,
        help_text="Only these experts (usernames); all eligible experts of the campaign when absent.",
    )


class BulkAssignResultSerializer(serializers.Serializer):
    assigned = serializers.IntegerField(source="made")
    open_slots = serializers.IntegerField(help_text="Open slots of ordinary responses before the pass (up to k each).")
    unfilled_slots = serializers.IntegerField(help_text="Open slots left unfilled, all reasons together.")
    summary = serializers.CharField(help_text='How many were left empty and why, per reason ("" when every slot was filled).')
    unfilled = UnfilledSlotSerializer(
        many=True, help_text="Each response left short, with why; empty for an admin who is an expert of this open campaign."
    )


@extend_schema_view(list=extend_schema(parameters=CampaignFilters.parameters()))
class CampaignViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, mixins.CreateModelMixin, viewsets.GenericViewSet[Campaign]):
    """Admin: campaigns, their settings while they run, progress, bulk pre-assignment, status and pay."""

    permission_classes = [IsAdmin]
    serializer_class = CampaignSerializer

    def get_queryset(self) -> QuerySet[Campaign]:
        return read_models.campaigns(Viewer.of(self.request), self.request.query_params)

    @extend_schema(request=CampaignCreateSerializer, responses={201: CreatedCampaignSerializer})
    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        d = valid_body(CampaignCreateSerializer, request)
        gold_source = None
        if d.get("gold_source"):
            gold_source = read_models.campaign_named(Viewer.of(request), d["gold_source"])
            if gold_source is None:
                raise DjangoValidationError({"gold_source": _("no campaign named %(name)r") % {"name": d["gold_source"]}})
        timeout = timedelta(minutes=d["reservation_timeout_minutes"])
        given = campaign_kwargs(d, dataset=d["dataset"], models=d["models"], experts=d.get("experts") or [], timeout=timeout)
        outcome = create_campaign(**given, gold_source=gold_source, created_by=signed_in(request))
        created = read_models.campaign_as_listed(Viewer.of(request), outcome.campaign.pk)
        return Response(CreatedCampaignSerializer(created, context={"outcome": outcome}).data, status=201)

    @extend_schema(request=CampaignSettingsUpdateSerializer, responses={200: CampaignSettingsResultSerializer})
    def partial_update(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        """Change settings while the campaign runs (same rules as its edit page); risky changes mid-test need confirm=true."""
        campaign = self.get_object()
        d = dict(valid_body(CampaignSettingsUpdateSerializer, request))
        confirm = d.pop("confirm")
        if "reservation_timeout_minutes" in d:
            d["reservation_timeout"] = timedelta(minutes=d.pop("reservation_timeout_minutes"))
        changed = update_campaign_settings(campaign=campaign, by=signed_in(request), confirm=confirm, **d)
        fresh = read_models.campaign_as_listed(Viewer.of(request), campaign.pk)
        return Response(CampaignSettingsResultSerializer({"campaign": fresh, "changed": changed}).data)

    @extend_schema(responses={200: SettingsHistorySerializer})
    @action(detail=True, methods=["get"], url_path="settings-history")
    def settings_history(self, request: Request, pk: str | None = None) -> Response:
        """Guidelines revisions (who, when, change note) and recorded changes of settings and status."""
        history = read_models.settings_history(Viewer.of(request), self.get_object())
        return Response(SettingsHistorySerializer(history).data)

    @extend_schema(responses={200: CampaignSkipsSerializer})
    @action(detail=True, methods=["get"])
    def skips(self, request: Request, pk: str | None = None) -> Response:
        """Responses experts skipped: counts per reason and per expert, the latest skips, and responses that can no longer reach k."""
        found = read_models.campaign_skips(Viewer.of(request), self.get_object())
        withheld: dict[str, Any] = {
            "withheld": str(read_models.PROGRESS_WITHHELD),
            "total": None,
            **{k: [] for k in ("by_reason", "by_expert", "latest", "stuck")},
        }
        return Response(CampaignSkipsSerializer({"withheld": None, **dataclasses.asdict(found)} if found else withheld).data)

    @extend_schema(responses={200: ProgressSerializer})
    @action(detail=True, methods=["get"])
    def progress(self, request: Request, pk: str | None = None) -> Response:
        """Responses by submitted judgments (0…k), per-expert work and time, pace and projected finish."""
        campaign = self.get_object()
        shown = read_models.campaign_figures(Viewer.of(request), campaign)
        p, same = shown.progress, ("responses", "gold_responses", "complete", "submitted", "target", "active_seconds", "pace_per_day")
        if p is None:
            figures = (*same, "by_submitted_judgments", "reserved", "pace_reason", "projected_finish", "projected_reason")
            return Response({"withheld": shown.reason, "k": campaign.overlap, **dict.fromkeys(figures), "experts": [], "gold_accuracy": []})
        return Response(
            {
                "withheld": None,
                "k": p.k,
                **{name: getattr(p, name) for name in same},
                "by_submitted_judgments": {str(i): n for i, n in enumerate(p.histogram)},
                "reserved": p.held,
                "pace_reason": p.pace_reason or None,
                "projected_finish": p.projected_finish,
                "projected_reason": p.projected_reason or None,
                "experts": ExpertProgressSerializer(p.experts, many=True).data,
                # Hidden gold checks, reported on their own: agreement statistics leave them out.
                "gold_accuracy": GoldAccuracySerializer(shown.gold or [], many=True).data,
            }
        )

    @extend_schema(request=BulkAssignInputSerializer, responses={200: BulkAssignResultSerializer})
    @action(detail=True, methods=["post"], url_path="bulk-assign")
    def bulk_assign(self, request: Request, pk: str | None = None) -> Response:
        """Pre-assign every open slot (k per response) among eligible experts; optional `experts` list of usernames."""
        campaign = self.get_object()
        names = valid_body(BulkAssignInputSerializer, request).get("experts")
        experts = None
        viewer = Viewer.of(request)
        if names:
            experts = read_models.users_named(viewer, names)
            missing = set(names) - {u.username for u in experts}
            if missing:
                raise DjangoValidationError({"experts": _("unknown user(s): %(users)s") % {"users": ", ".join(sorted(missing))}})
        result = bulk_assign(campaign=campaign, experts=experts)
        data = BulkAssignResultSerializer(result).data
        if not read_models.unfilled_shown(viewer, campaign.pk):
            data["unfilled"] = []  # which responses other experts hold: not for one of its experts
        return Response(data)

    @extend_schema(request=SplitExtensionInputSerializer, responses={200: SplitExtensionResultSerializer})
    @action(detail=True, methods=["post"], url_path="split-extension", url_name="split-extension")
    def split_extension(self, request: Request, pk: str | None = None) -> Response:
        """Turn extra raters where the verdicts split on or off, or change the budget; on, the waiting responses are extended."""
        campaign = self.get_object()
        done = switch_split_extension(campaign=campaign, by=signed_in(request), **valid_body(SplitExtensionInputSerializer, request))
        state = split_extension_state(read_models.campaign(Viewer.of(request), campaign.pk))  # as now stored, not as the view read it
        counts = {"spent": state.spent or 0, "extended": state.extended or 0, "extended_now": done.extended if done else 0}
        return Response(SplitExtensionResultSerializer({**vars(state), **counts}).data)

    @extend_schema(request=StatusSerializer, responses={200: CampaignSerializer})
    @action(detail=True, methods=["post"])
    def status(self, request: Request, pk: str | None = None) -> Response:
        """Set the campaign's status (draft, active, paused, closed)."""
        d = valid_body(StatusSerializer, request)
        campaign = set_campaign_status(campaign=self.get_object(), status=d["status"], reason=d["reason"], by=signed_in(request))
        return Response(CampaignSerializer(read_models.campaign_as_listed(Viewer.of(request), campaign.pk)).data)

    @extend_schema(responses={200: PaymentsSerializer})
    @action(detail=True, methods=["get"], url_path="payment-lines")
    def payment_lines(self, request: Request, pk: str | None = None) -> Response:
        """Pay per expert under the written policy: submitted, of which while paused, paid, held, withheld, amount."""
        return Response(PaymentsSerializer(read_models.payments(Viewer.of(request), self.get_object())).data)

    @extend_schema(request=PayDecisionInputSerializer, responses={200: PaymentLineSerializer})
    @action(detail=True, methods=["post"], url_path="pay-decision")
    def pay_decision(self, request: Request, pk: str | None = None) -> Response:
        """Decide whether an expert's work submitted while paused is paid (policy: held for an admin's decision)."""
        campaign = self.get_object()
        d = valid_body(PayDecisionInputSerializer, request)
        expert = read_models.user_named(Viewer.of(request), d["expert"])
        if expert is None:
            raise DjangoValidationError({"expert": _("unknown user %(name)r") % {"name": d["expert"]}})
        decide_held_pay(campaign=campaign, expert=expert, pay=d["pay"], note=d["note"], by=signed_in(request))
        line = next(p for p in payment_lines(campaign) if p.expert_id == expert.pk)
        return Response(PaymentLineSerializer(line).data)

    @extend_schema(responses={(200, "text/csv"): str})
    @action(detail=True, methods=["get"])
    def payments(self, request: Request, pk: str | None = None) -> HttpResponse:
        """Piece-rate payment export (CSV)."""
        return payments_file(self.get_object())


# --- assignments and alerts ------------------------------------------------------------------------


class AssignmentSerializer(serializers.ModelSerializer):
    campaign = serializers.IntegerField(source="campaign_response.campaign_id", read_only=True)
    expert = serializers.CharField(source="expert.username", read_only=True)
    question_id = serializers.CharField(source="campaign_response.item.question_id", read_only=True)
    response = serializers.CharField(source="campaign_response.response.public_id", read_only=True)
    model = serializers.CharField(source="campaign_response.response.model.name", read_only=True)
    is_gold = serializers.BooleanField(source="campaign_response.is_gold", read_only=True)

    class Meta:
        model = Assignment
        fields = [
            "public_id",
            "campaign",
            "expert",
            "question_id",
            "response",
            "model",
            "is_gold",
            "status",
            "reserved_at",
            "expires_at",
            "submitted_at",
            "active_seconds",
        ]


class AssignmentPagination(KeysetPagination):
    """Every assignment, continued by keyset as `next` gives it; under an `ordering` of the caller's choice, pages go by offset only."""

    def paginate_queryset(  # type: ignore[override]  # pages assignments only
        self, queryset: QuerySet[Assignment], request: Request, view: APIView | None = None
    ) -> list[Assignment] | None:
        after = request.query_params.get(self.after_query_param)
        self.here = request.build_absolute_uri()
        self.keyset = "ordering" not in request.query_params
        if after is None or not self.keyset:
            rows = super().paginate_queryset(queryset, request, view)
            self.rows = builtins.list(rows or [])
            return rows
        size = self.get_page_size(request) or 50
        raw = request.query_params.get(self.page_query_param, "2")
        found = read_models.assignments_after(Viewer.of(request), queryset, after, size=size)
        if found is None:
            raise NotFound(CursorPagination.invalid_cursor_message)
        self.page = None  # read by the links below instead
        return self.keyset_page(request, found, number=int(raw) if raw.isdecimal() and int(raw) > 1 else 2, count=queryset.count())

    def get_paginated_response(self, data: Any) -> Response:
        return super().get_paginated_response(data) if self.page is not None else self.keyset_response(data)

    def get_next_link(self) -> str | None:
        if self.page is None:
            return self.keyset_next(self.number + 1)
        link = super().get_next_link()
        if link is None or not self.keyset or not self.rows:
            return link
        return self.keyset_next_link(self.page.next_page_number(), keyset_of(self.rows[-1]))

    def get_previous_link(self) -> str | None:
        return super().get_previous_link() if self.page is not None else self.keyset_previous_link()


@extend_schema_view(list=extend_schema(parameters=AssignmentFilters.parameters()))
class AssignmentViewSet(ShowsResponses[Assignment], viewsets.ReadOnlyModelViewSet[Assignment]):
    """Admin: every assignment, filterable by ?campaign=ID&expert=USERNAME&status=... Blind and recorded (ShowsResponses)."""

    permission_classes = [IsAdmin]
    serializer_class = AssignmentSerializer
    pagination_class = AssignmentPagination
    lookup_field = "public_id"
    response_path = "campaign_response__response_id"
    exposure_via = "api-assignments"

    def get_queryset(self) -> QuerySet[Assignment]:
        return read_models.assignments(Viewer.of(self.request), self.request.query_params)

    def blind(self, qs: QuerySet[Assignment]) -> QuerySet[Assignment]:
        return qs  # read_models.assignments left out the datasets closed to the viewer

    def get_object(self) -> Assignment:
        # Refused with the reason when its dataset is closed to the viewer (release too).
        found = read_models.assignment(Viewer.of(self.request), self.kwargs[self.lookup_field], self.request.query_params)
        self.check_object_permissions(self.request, found)
        return found

    @extend_schema(request=None, responses={200: AssignmentSerializer})
    @action(detail=True, methods=["post"])
    def release(self, request: Request, public_id: str | None = None) -> Response:
        """Give an open assignment back to the pool."""
        assignment = self.get_object()
        release_assignment(assignment=assignment, by=signed_in(request))
        # The row as it now stands, whatever the list's filters.
        return Response(AssignmentSerializer(read_models.assignment(Viewer.of(request), assignment.public_id)).data)


class AlertSerializer(serializers.ModelSerializer):
    expert = serializers.CharField(source="expert.username", read_only=True, default=None)
    campaign = serializers.CharField(source="campaign.name", read_only=True, default=None)
    resolved_by = serializers.CharField(source="resolved_by.username", read_only=True, default=None)
    text = serializers.SerializerMethodField(help_text="The alert in the reader's language, from its kind and figures.")

    class Meta:
        model = AdminAlert
        fields = ["id", "kind", "expert", "campaign", "message", "text", "created_at", "last_seen_at", "resolved_at", "resolved_by"]

    def get_text(self, alert: AdminAlert) -> str:
        return alert_text(alert)


@extend_schema_view(list=extend_schema(parameters=AlertFilters.parameters()))
class AlertViewSet(viewsets.ReadOnlyModelViewSet[AdminAlert]):
    """Admin: alerts (open ones unless ?all=1)."""

    permission_classes = [IsAdmin]
    serializer_class = AlertSerializer

    def get_queryset(self) -> QuerySet[AdminAlert]:
        # Alerts about a campaign the admin is an expert of are not theirs to read (read_models.alerts).
        return read_models.alert_list(Viewer.of(self.request), self.request.query_params)

    @extend_schema(request=None, responses={200: AlertSerializer})
    @action(detail=True, methods=["post"])
    def resolve(self, request: Request, pk: str | None = None) -> Response:
        alert = read_models.alert(Viewer.of(request), pk or "")
        return Response(AlertSerializer(expert_services.resolve_alert(alert=alert, by=signed_in(request))).data, status=status.HTTP_200_OK)


# --- dual roles: who is expert and staff, and where their staff views are closed -----------------


class ConflictCampaignSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="campaign.pk")
    name = serializers.CharField(source="campaign.name")
    status = serializers.CharField(source="campaign.status")
    kind = serializers.CharField(source="campaign.kind")
    exposed = serializers.IntegerField(help_text="Responses of this campaign a staff view showed the user.")
    created_gold_source = serializers.BooleanField(
        help_text="The user imported the set its hidden gold checks come from: they know its labels."
    )


class DualRoleConflictSerializer(serializers.Serializer):
    username = serializers.CharField(source="user.username")
    staff_roles = serializers.ListField(child=serializers.CharField())
    superuser = serializers.BooleanField()
    campaigns = ConflictCampaignSerializer(many=True, help_text="Open campaigns the user is an expert of: their staff views are closed.")
    exposures = serializers.IntegerField(help_text="Every response a staff view showed the user.")


class DualRoleQuerySerializer(serializers.Serializer):
    campaign = serializers.IntegerField(required=False, help_text="Only the users who are experts of this open campaign (its id).")


class DualRoleConflictsView(ComputedListView):
    """Users holding the expert role and a staff role, the open campaigns they are experts of, and their exposures."""

    permission_classes = [IsAdmin]
    serializer_class = DualRoleConflictSerializer

    @extend_schema(parameters=[DualRoleQuerySerializer], responses=DualRoleConflictSerializer(many=True))
    def get(self, request: Request) -> Response:
        query = valid_query(DualRoleQuerySerializer, request)
        return self.paginated(read_models.dual_role_conflicts(Viewer.of(request), campaign=query.get("campaign")))


# --- the pay policy ------------------------------------------------------------------------------


class PayPolicySerializer(RefusesUnknownFields):
    paused_work_pay = serializers.ChoiceField(
        choices=QualityPolicy.PausedWorkPay.choices, help_text="Work submitted while paused or away: full, none, or review (held)."
    )
    pay_policy_text = serializers.CharField(allow_blank=True, max_length=20_000, help_text="Markdown; experts read it on their profile.")


class PayPolicyView(APIView):
    """Admin: how work submitted while paused is paid, and the written policy experts read (every campaign)."""

    permission_classes = [IsAdmin]

    @extend_schema(responses={200: PayPolicySerializer})
    def get(self, request: Request) -> Response:
        return Response(PayPolicySerializer(QualityPolicy.current()).data)

    @extend_schema(request=PayPolicySerializer, responses={200: PayPolicySerializer})
    def patch(self, request: Request) -> Response:
        current = QualityPolicy.current()
        d = valid_body(PayPolicySerializer, request, partial=True)
        policy = update_pay_policy(
            by=signed_in(request),
            paused_work_pay=d.get("paused_work_pay", current.paused_work_pay),
            pay_policy_text=d.get("pay_policy_text", current.pay_policy_text),
        )
        return Response(PayPolicySerializer(policy).data)
