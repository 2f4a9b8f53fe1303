from __future__ import annotations

from typing import ClassVar, Protocol

from django import forms
from django.contrib import admin
from django.contrib.auth.admin import UserAdmin
from django.core.exceptions import ValidationError
from django.db.models import Model, QuerySet
from django.http import HttpRequest

from heartbench_core.judging.models import Endpoint, EndpointRun, JudgeTemplate, JudgeTemplateRevision, RunQuestion
from heartbench_core.models import (
    ApiToken,
    Criterion,
    CriterionLineage,
    Dataset,
    DatasetVersion,
    Item,
    JudgeRun,
    JudgeVerdict,
    LanguageModel,
    ModelResponse,
    StaffExposure,
    StoredScores,
    User,
)
from heartbench_core.names import validate_model_name, validate_name


@admin.register(User)
class PlatformUserAdmin(UserAdmin):
    list_display = ("username", "email", "first_name", "last_name", "is_active", "is_staff", "group_list")
    list_filter = ("is_active", "is_staff", "groups")

    @admin.display(description="Roles")
    def group_list(self, obj: User) -> str:
        return ", ".join(g.name for g in obj.groups.all())

    def get_queryset(self, request: HttpRequest) -> QuerySet[User]:
        return super().get_queryset(request).prefetch_related("groups")


class _NameValidator(Protocol):
    def __call__(self, value: str, *, field: str, max_length: int | None) -> None: ...


class _NameForm(forms.ModelForm):
    """A name that ends up in URLs, headers and file names, checked as the services check it (unless left unchanged)."""

    validate: ClassVar[_NameValidator] = staticmethod(validate_name)

    def clean_name(self) -> str:
        name = self.cleaned_data["name"]
        if not (self.instance.pk and name == self.instance.name):
            try:
                self.validate(name, field="name", max_length=self._meta.model._meta.get_field("name").max_length)
            except ValidationError as exc:
                raise ValidationError(exc.message_dict["name"]) from None
        return name


class DatasetForm(_NameForm):
    class Meta:
        model = Dataset
        fields = ["name", "description", "extra_labels", "review_panel_size"]


class LanguageModelForm(_NameForm):
    validate = staticmethod(validate_model_name)

    class Meta:
        model = LanguageModel
        fields = ["name", "notes"]


@admin.register(Dataset)
class DatasetAdmin(admin.ModelAdmin):
    form = DatasetForm
    list_display = ("name", "review_panel_size", "created_at")
    search_fields = ("name",)


class FrozenAdminMixin:
    """Versions and their content are immutable: the admin shows them read-only."""

    def has_change_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False

    def has_add_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False


class ReadOnlyAdmin(FrozenAdminMixin, admin.ModelAdmin):
    """Records written only by the platform's services (history, immutable content): shown, never changed here."""

    def has_delete_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False


@admin.register(CriterionLineage)
class CriterionLineageAdmin(ReadOnlyAdmin):
    list_display = ("key", "dataset", "current_revision", "meaning_revision", "retired")
    list_filter = ("dataset", "retired")
    search_fields = ("key",)


@admin.register(DatasetVersion)
class DatasetVersionAdmin(FrozenAdminMixin, admin.ModelAdmin):
    list_display = ("dataset", "label", "number", "parent", "item_count", "criterion_count", "frozen", "created_by", "created_at")
    list_filter = ("dataset", "frozen")
    search_fields = ("label", "note", "content_hash")


@admin.register(Item)
class ItemAdmin(FrozenAdminMixin, admin.ModelAdmin):
    list_display = ("question_id", "version", "position", "difficulty", "primary_scene", "secondary_scene")
    list_filter = ("version__dataset", "version", "difficulty", "primary_scene")
    search_fields = ("question_id",)
    list_select_related = ("version__dataset",)


@admin.register(Criterion)
class CriterionAdmin(FrozenAdminMixin, admin.ModelAdmin):
    list_display = ("item", "position", "ability", "weight", "catastrophic", "revision", "short_text")
    list_filter = ("item__version__dataset", "ability", "catastrophic")
    search_fields = ("text", "item__question_id")
    list_select_related = ("item",)

    @admin.display(description="Text")
    def short_text(self, obj: Criterion) -> str:
        return obj.text[:60]


@admin.register(LanguageModel)
class LanguageModelAdmin(admin.ModelAdmin):
    form = LanguageModelForm
    list_display = ("name", "created_at")
    search_fields = ("name",)


@admin.register(ModelResponse)
class ModelResponseAdmin(admin.ModelAdmin):
    list_display = ("public_id", "dataset", "question_id", "model", "created_at")
    list_filter = ("dataset", "model")
    search_fields = ("public_id", "question_id")
    list_select_related = ("dataset", "model")
    readonly_fields = ("public_id",)


@admin.register(JudgeRun)
class JudgeRunAdmin(FrozenAdminMixin, admin.ModelAdmin):
    list_display = ("version", "model", "judge", "label", "question_count", "verdict_count", "source", "created_at")
    list_filter = ("version__dataset", "judge")
    search_fields = ("judge", "label", "model__name", "source")
    list_select_related = ("version__dataset", "model")


@admin.register(JudgeVerdict)
class JudgeVerdictAdmin(FrozenAdminMixin, admin.ModelAdmin):
    list_display = ("run", "criterion", "hit")
    list_filter = ("run__judge", "hit")
    list_select_related = ("run__model", "run__version__dataset", "criterion__item")
    raw_id_fields = ("run", "response", "criterion")


@admin.register(StaffExposure)
class StaffExposureAdmin(ReadOnlyAdmin):
    list_display = ("user", "response", "via", "first_seen_at")
    list_filter = ("via",)
    list_select_related = ("user", "response")


# Endpoints, templates and runs are changed through their pages, the API and the commands (the services check
# every field and keep the key out of the database); the operators' admin shows them.


@admin.register(Endpoint)
class EndpointAdmin(ReadOnlyAdmin):
    list_display = ("name", "model", "base_url", "api_key_env", "concurrency", "max_retries", "timeout_seconds")
    search_fields = ("name", "model", "base_url")


@admin.register(JudgeTemplate)
class JudgeTemplateAdmin(ReadOnlyAdmin):
    list_display = ("name", "created_by", "created_at")
    search_fields = ("name",)


@admin.register(JudgeTemplateRevision)
class JudgeTemplateRevisionAdmin(ReadOnlyAdmin):
    list_display = ("template", "revision", "change_note", "created_by", "created_at")
    list_filter = ("template",)
    list_select_related = ("template", "created_by")


@admin.register(EndpointRun)
class EndpointRunAdmin(ReadOnlyAdmin):
    list_display = ("pk", "kind", "status", "version", "model", "endpoint", "template_revision", "attempts", "created_at")
    list_filter = ("kind", "status", "endpoint")
    list_select_related = ("version__dataset", "model", "endpoint", "template_revision__template")


@admin.register(RunQuestion)
class RunQuestionAdmin(ReadOnlyAdmin):
    list_display = ("run", "item", "status", "requests", "tokens_in", "tokens_out", "finished_at")
    list_filter = ("status",)
    raw_id_fields = ("run", "item", "response")
    list_select_related = ("run", "item")


@admin.register(StoredScores)
class StoredScoresAdmin(ReadOnlyAdmin):
    """Scores kept for the leaderboards, forgotten when what they came from changes; the services write them."""

    list_display = ("version", "key", "mode", "stamp", "computed_at")
    list_filter = ("mode",)
    exclude = ("arrays",)  # binary NumPy arrays
    list_select_related = ("version__dataset",)


@admin.register(ApiToken)
class ApiTokenAdmin(ReadOnlyAdmin):
    """API tokens are issued and revoked on their pages, the API and `issue_token` (the token is shown once); shown here, digest left out."""

    list_display = ("prefix", "name", "user", "created_at", "expires_at", "last_used_at", "revoked_at")
    list_filter = ("revoked_at",)
    search_fields = ("prefix", "name", "user__username")
    exclude = ("digest",)
    list_select_related = ("user",)
