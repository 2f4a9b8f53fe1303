"""Endpoints and judge prompt templates: create, change, and version them.

An endpoint stores where and how to call a chat service, never its key (only the name of the
environment variable holding it). A template's wording is a revision, written once; a change is a
new revision with a note saying what changed and why, as a rubric revision is.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import URLValidator
from django.db import IntegrityError, transaction
from django.db.models import Max
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from rest_framework import serializers

from heartbench_core.input_lines import JsonField, refuse
from heartbench_core.judging import endpoint_policy as policy
from heartbench_core.judging.models import Endpoint, JudgeTemplate, JudgeTemplateRevision
from heartbench_core.judging.services.llm import valid_env_name
from heartbench_core.lib.judge_prompt import DEFAULT_TEMPLATE, DEFAULT_TEMPLATE_NAME, PromptTemplate, check_placeholders
from heartbench_core.names import validate_model_name, validate_name

if TYPE_CHECKING:
    from heartbench_core.models import User

RESERVED_NAME = "new"  # /judging/endpoints/new/ and /judging/templates/new/ are the pages that add one


@dataclass(frozen=True)
class EndpointOutcome:
    endpoint: Endpoint
    created: bool
    changed: tuple[str, ...]  # the fields that changed (an update)


def save_endpoint(*, name: str, by: User | None = None, **values: Any) -> EndpointOutcome:
    """Create the endpoint NAME, or change the given fields of it; ValidationError naming every bad field.

    A field not given keeps its value (a new endpoint: its default). `requests_per_minute`, the
    prices and a blank `api_key_env` may be None / blank to mean "none".
    """
    unknown = sorted(set(values) - set(FIELDS))
    if unknown:
        raise ValidationError({f: _("unknown field") for f in unknown})
    name = (name or "").strip()
    validate_name(name, field="name", max_length=Endpoint._meta.get_field("name").max_length)
    if name == RESERVED_NAME:
        raise ValidationError({"name": _("%(name)r is reserved (it names the page that adds one)") % {"name": name}})
    cleaned = _clean_values(values)
    with transaction.atomic():
        endpoint = Endpoint.objects.select_for_update().filter(name=name).first()
        created = endpoint is None
        if endpoint is None:
            missing = [f for f in ("base_url", "model") if not cleaned.get(f)]
            if missing:
                raise ValidationError({f: _("required for a new endpoint") for f in missing})
            endpoint = Endpoint(name=name, created_by=by)
        changed = tuple(f for f, v in cleaned.items() if getattr(endpoint, f) != v)
        for field, value in cleaned.items():
            setattr(endpoint, field, value)
        try:
            endpoint.save()
        except IntegrityError as exc:  # another process created the same name between the check and the insert
            raise ValidationError({"name": _("an endpoint named %(name)r already exists") % {"name": name}}) from exc
    return EndpointOutcome(endpoint, created, () if created else changed)


def _clean_values(values: dict[str, Any]) -> dict[str, Any]:
    """The given settings checked by `EndpointSettings`, in the order given; ValidationError naming every bad one."""
    checked = EndpointSettings(data=values)
    if not checked.is_valid():
        raise ValidationError({f: " ".join(str(m) for m in messages) for f, messages in checked.errors.items()})
    return {f: checked.validated_data[f] for f in values}


def _base_url(value: str) -> None:
    URLValidator(schemes=["http", "https"], message=_("must be an http:// or https:// address"))(value)
    _obey_policy(policy.check_base_url, value)


def _model_name(value: str) -> None:
    try:
        validate_model_name(value, field="model")
    except ValidationError as exc:
        raise serializers.ValidationError(exc.messages) from None


def _key_variable(value: str) -> None:
    if not valid_env_name(value):
        raise serializers.ValidationError(
            _("must be the NAME of an environment variable (letters, digits, underscores), e.g. %(example)s — not the key itself")
            % {"example": f"{settings.ENDPOINT_KEY_PREFIX}OPENAI"}
        )
    _obey_policy(policy.check_key_variable, value)


def _obey_policy(check: Callable[[str], object], value: str) -> None:
    """ValidationError saying the rule (endpoint_policy) the value breaks, if any."""
    try:
        check(value)
    except policy.EndpointRefused as refused:
        raise serializers.ValidationError(refused.text()) from None


class _Setting(JsonField):
    """A setting as the page, API, command or demo give it (typed, or text); only the given ones are checked, None is blank."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(required=False, **kwargs)


class _Text(_Setting):
    """Text, stripped; `check` refuses a bad one, and `blank` says why a blank one is refused (none: blank is fine)."""

    def __init__(self, *, check: Callable[[str], None] | None = None, blank: Any = None) -> None:
        self.check, self.blank = check, blank
        super().__init__()

    def to_internal_value(self, data: Any) -> Any:
        value = "" if data is None else str(data).strip()
        if not value and self.blank is not None:
            raise refuse(self.blank)
        if value and self.check is not None:
            self.check(value)
        return value


class _Number(_Setting):
    """A number of KIND from LOW to HIGH, typed or as text (a whole float is an integer; a boolean is no number)."""

    def __init__(self, kind: type, low: float, high: float, *, blank_is_none: bool = False) -> None:
        self.kind, self.low, self.high, self.blank_is_none = kind, low, high, blank_is_none
        super().__init__()

    def to_internal_value(self, data: Any) -> Any:
        if data is None or data == "":
            if self.blank_is_none:
                return None
            raise refuse(gettext_lazy("a value is required"))
        number = _number(data, whole=self.kind is int)
        if number is None or not self.low <= number <= self.high:
            raise refuse(gettext_lazy("must be a number from %(low)s to %(high)s"), low=self.low, high=self.high)
        return number


def _number(raw: Any, *, whole: bool) -> float | int | None:
    """RAW as a finite number (a whole one when WHOLE), or None."""
    if isinstance(raw, bool):
        return None
    try:
        number = float(raw)
    except (TypeError, ValueError, OverflowError):
        return None
    if not math.isfinite(number):
        return None
    if whole:
        return int(number) if number == int(number) else None
    return number


class _Price(_Setting):
    """A price per million tokens from 0 to 999999, to the millionth; blank is none."""

    def to_internal_value(self, data: Any) -> Any:
        if data is None or data == "":
            return None
        try:
            price = Decimal(str(data))
        except InvalidOperation:
            raise refuse(gettext_lazy("must be a number")) from None
        if not price.is_finite() or price < 0 or price >= Decimal("1000000"):
            raise refuse(gettext_lazy("must be a number from 0 to 999999"))
        return price.quantize(Decimal("0.000001"))


class EndpointSettings(serializers.Serializer):
    """An endpoint's settable fields, however they are given; the SSRF and key rules of `endpoint_policy` are checked here."""

    base_url = _Text(check=_base_url, blank=gettext_lazy("a base URL is required"))
    model = _Text(check=_model_name, blank=gettext_lazy("a model name is required"))
    api_key_env = _Text(check=_key_variable)
    currency = _Text()
    note = _Text()
    temperature = _Number(float, 0.0, 2.0)
    max_tokens = _Number(int, 1, 1_000_000)
    concurrency = _Number(int, 1, 64)
    requests_per_minute = _Number(int, 1, 1_000_000, blank_is_none=True)
    max_retries = _Number(int, 0, 10)
    backoff_seconds = _Number(float, 0.0, 600.0)
    timeout_seconds = _Number(float, 0.1, 3600.0)
    price_input = _Price()
    price_output = _Price()


FIELDS = tuple(EndpointSettings().fields)


def default_template(*, by: User | None = None) -> JudgeTemplate:
    """The platform's default template (created, with its first revision, the first time it is needed)."""
    template, created = JudgeTemplate.objects.get_or_create(
        name=DEFAULT_TEMPLATE_NAME, defaults={"description": _("The platform's default judge prompt (Chinese)."), "created_by": by}
    )
    if created or not template.revisions.exists():
        JudgeTemplateRevision.objects.get_or_create(
            template=template,
            revision=1,
            defaults={
                "system": DEFAULT_TEMPLATE.system,
                "user": DEFAULT_TEMPLATE.user,
                "change_note": _("The platform's default template."),
                "created_by": by,
            },
        )
    return template


def latest_revision(template: JudgeTemplate) -> JudgeTemplateRevision:
    """The template's newest revision."""
    revision = template.revisions.order_by("-revision").first()
    if revision is None:
        raise ValidationError({"template": _("template %(name)r has no revision yet") % {"name": template.name}})
    return revision


def resolve_template(name: str | None, *, by: User | None = None) -> JudgeTemplateRevision:
    """The newest revision of the named template (the default template when no name is given)."""
    if not name:
        return latest_revision(default_template(by=by))
    template = JudgeTemplate.objects.filter(name=name).first()
    if template is None:
        if name == DEFAULT_TEMPLATE_NAME:
            return latest_revision(default_template(by=by))
        known = ", ".join(JudgeTemplate.objects.values_list("name", flat=True)) or DEFAULT_TEMPLATE_NAME
        raise ValidationError({"template": _("no template named %(name)r; known: %(known)s") % {"name": name, "known": known}})
    return latest_revision(template)


def check_template_text(system: str, user: str) -> None:
    """ValidationError naming what is wrong with a template's placeholders."""
    if not (user or "").strip():
        raise ValidationError({"user": _("the user message is required")})
    check = check_placeholders(PromptTemplate(system or "", user))
    errors = []
    if check.missing:
        errors.append(_("missing placeholders: %(names)s") % {"names": ", ".join(f"${n}" for n in check.missing)})
    if check.unknown:
        errors.append(
            _("unknown placeholders: %(names)s (write $$ for a dollar sign)") % {"names": ", ".join(f"${n}" for n in check.unknown)}
        )
    if check.malformed:
        errors.append(_("a $ that starts no placeholder (write $$ for a dollar sign)"))
    if errors:
        raise ValidationError({"user": errors})


def add_template_revision(
    *, name: str, system: str, user: str, change_note: str, by: User | None = None, description: str | None = None
) -> JudgeTemplateRevision:
    """A new revision of the named template (the template is created with its first); the wording must differ from the newest."""
    name = (name or "").strip()
    validate_name(name, field="name", max_length=JudgeTemplate._meta.get_field("name").max_length)
    if name == RESERVED_NAME:
        raise ValidationError({"name": _("%(name)r is reserved (it names the page that adds one)") % {"name": name}})
    system, user, change_note = (system or "").replace("\r\n", "\n"), (user or "").replace("\r\n", "\n"), (change_note or "").strip()
    check_template_text(system, user)
    if not change_note:
        raise ValidationError({"change_note": _("say what changed and why")})
    with transaction.atomic():
        if name == DEFAULT_TEMPLATE_NAME:
            default_template(by=by)
        template, _created = JudgeTemplate.objects.select_for_update().get_or_create(
            name=name, defaults={"description": description or "", "created_by": by}
        )
        if description is not None and description != template.description:
            template.description = description
            template.save(update_fields=["description"])
        newest = template.revisions.order_by("-revision").first()
        if newest is not None and (newest.system, newest.user) == (system, user):
            raise ValidationError({"user": _("the wording is the same as revision %(n)d: nothing to record") % {"n": newest.revision}})
        number = (template.revisions.aggregate(n=Max("revision"))["n"] or 0) + 1
        return JudgeTemplateRevision.objects.create(
            template=template, revision=number, system=system, user=user, change_note=change_note, created_by=by
        )
