"""REST API of the judge and the models under test called from the platform (admins): endpoints, judge prompt templates
and their revisions, and runs (judging, answer generation) with progress, cancellation and retries.

Every write calls the same service as the pages and the commands. A run of a model whose responses
an open campaign of yours judges is left out of the lists and refused by id (403, with the reason).
"""

from __future__ import annotations

from decimal import Decimal
from operator import attrgetter
from typing import Any

from django.core.exceptions import ValidationError
from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema, extend_schema_field, extend_schema_view
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from heartbench_core.api import OutcomeFields, valid_body
from heartbench_core.api_changes import RefusesUnknownFields
from heartbench_core.http import signed_in
from heartbench_core.judging import read_models as judging
from heartbench_core.judging.filters import EndpointRunFilters, RunQuestionFilters
from heartbench_core.judging.models import Endpoint, EndpointRun, JudgeTemplate, JudgeTemplateRevision, RunQuestion
from heartbench_core.judging.run_display import describe_problem, describe_signal
from heartbench_core.judging.services import runs as run_services
from heartbench_core.judging.services.endpoints import add_template_revision, default_template, save_endpoint
from heartbench_core.judging.services.llm import ChatError, read_api_key
from heartbench_core.lib import prompt_injection
from heartbench_core.models import User
from heartbench_core.read_models import Viewer
from heartbench_core.roles import Role, role_permission

IsAdmin = role_permission(Role.ADMIN)
NAME_IN_PATH = "[^/]+"


# --- endpoints -------------------------------------------------------------------------------------


class EndpointSerializer(serializers.ModelSerializer):
    api_key_variable_set = serializers.SerializerMethodField(
        help_text="Whether the key's environment variable is set in the web process (null: the endpoint uses no key). The key is never shown."
    )
    refusals = serializers.SerializerMethodField(
        help_text="Why requests to the endpoint are refused (its key variable or address breaks the operator's rules); empty: usable, "
        "as far as can be told without resolving its host."
    )

    class Meta:
        model = Endpoint
        fields = [
            "name",
            "base_url",
            "model",
            "api_key_env",
            "api_key_variable_set",
            "refusals",
            "temperature",
            "max_tokens",
            "concurrency",
            "requests_per_minute",
            "max_retries",
            "backoff_seconds",
            "timeout_seconds",
            "price_input",
            "price_output",
            "currency",
            "note",
            "created_at",
            "updated_at",
        ]

    @extend_schema_field(serializers.ListField(child=serializers.CharField()))
    def get_refusals(self, endpoint: Endpoint) -> list[str]:
        return judging.refusals_of(endpoint)

    def get_api_key_variable_set(self, endpoint: Endpoint) -> bool | None:
        if not endpoint.api_key_env:
            return None
        try:
            read_api_key(endpoint.api_key_env)
        except ChatError:
            return False
        return True


class EndpointInputSerializer(RefusesUnknownFields):
    """An endpoint to create (name, base_url and model required) or the fields to change (PATCH)."""

    name = serializers.CharField(max_length=100, required=False)
    base_url = serializers.CharField(
        max_length=500,
        required=False,
        help_text="http(s), without user name or password; a public address unless the operator allows the host (ENDPOINT_ALLOWED_HOSTS).",
    )
    model = serializers.CharField(max_length=200, required=False)
    api_key_env = serializers.CharField(
        max_length=100,
        required=False,
        allow_blank=True,
        help_text="The NAME of the environment variable holding the key, never the key: one the operator designated "
        "(starting with ENDPOINT_KEY_PREFIX, by default HEARTBENCH_KEY_, or listed in ENDPOINT_KEY_VARIABLES).",
    )
    temperature = serializers.FloatField(required=False)
    max_tokens = serializers.IntegerField(required=False)
    concurrency = serializers.IntegerField(required=False)
    requests_per_minute = serializers.IntegerField(required=False, allow_null=True)
    max_retries = serializers.IntegerField(required=False)
    backoff_seconds = serializers.FloatField(required=False)
    timeout_seconds = serializers.FloatField(required=False)
    price_input = serializers.DecimalField(max_digits=12, decimal_places=6, required=False, allow_null=True)
    price_output = serializers.DecimalField(max_digits=12, decimal_places=6, required=False, allow_null=True)
    currency = serializers.CharField(max_length=8, required=False, allow_blank=True)
    note = serializers.CharField(required=False, allow_blank=True)


@extend_schema_view(
    create=extend_schema(request=EndpointInputSerializer, responses={201: EndpointSerializer}),
    partial_update=extend_schema(request=EndpointInputSerializer, responses={200: EndpointSerializer}),
)
class EndpointViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet[Endpoint]):
    """OpenAI-compatible chat endpoints (a judge, or a model under test); the same rules as `add_endpoint`."""

    serializer_class = EndpointSerializer
    permission_classes = [IsAdmin]
    lookup_field = "name"
    lookup_value_regex = NAME_IN_PATH

    def get_queryset(self) -> QuerySet[Endpoint]:
        return judging.endpoints(Viewer.of(self.request))

    def create(self, request: Request) -> Response:
        data = valid_body(EndpointInputSerializer, request)
        name = data.pop("name", "")
        if judging.endpoint_exists(Viewer.of(request), name):
            raise ValidationError({"name": "an endpoint with this name exists; PATCH it instead"})
        outcome = save_endpoint(name=name, by=signed_in(request), **data)
        return Response(EndpointSerializer(outcome.endpoint).data, status=status.HTTP_201_CREATED)

    def partial_update(self, request: Request, name: str | None = None) -> Response:
        endpoint = self.get_object()
        data = valid_body(EndpointInputSerializer, request, partial=True)
        if data.pop("name", endpoint.name) != endpoint.name:
            raise ValidationError({"name": "an endpoint keeps its name; create a new one under the other name"})
        outcome = save_endpoint(name=endpoint.name, by=signed_in(request), **data)
        return Response(EndpointSerializer(outcome.endpoint).data)


# --- templates -------------------------------------------------------------------------------------


class TemplateRevisionSerializer(serializers.ModelSerializer):
    created_by: serializers.StringRelatedField[User] = serializers.StringRelatedField(allow_null=True)

    class Meta:
        model = JudgeTemplateRevision
        fields = ["revision", "system", "user", "change_note", "created_by", "created_at"]


class JudgeTemplateSerializer(serializers.ModelSerializer):
    revisions = TemplateRevisionSerializer(many=True, read_only=True, help_text="Newest first.")

    class Meta:
        model = JudgeTemplate
        fields = ["name", "description", "created_at", "revisions"]


class TemplateRevisionInputSerializer(serializers.Serializer):
    system = serializers.CharField(required=False, allow_blank=True, trim_whitespace=False, default="")
    user = serializers.CharField(trim_whitespace=False, help_text="Must hold $dialogue, $response, $criteria and $count.")
    change_note = serializers.CharField(help_text="What changed, and why.")
    description = serializers.CharField(required=False, allow_blank=True)


class TemplateInputSerializer(TemplateRevisionInputSerializer):
    name = serializers.CharField(max_length=100)


@extend_schema_view(create=extend_schema(request=TemplateInputSerializer, responses={201: JudgeTemplateSerializer}))
class JudgeTemplateViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet[JudgeTemplate]):
    """Judge prompt templates with every revision (a revision is never changed: a change is a new revision)."""

    serializer_class = JudgeTemplateSerializer
    permission_classes = [IsAdmin]
    lookup_field = "name"
    lookup_value_regex = NAME_IN_PATH

    def get_queryset(self) -> QuerySet[JudgeTemplate]:
        default_template()
        return judging.templates(Viewer.of(self.request))

    def create(self, request: Request) -> Response:
        data = valid_body(TemplateInputSerializer, request)
        if judging.template_exists(Viewer.of(request), data["name"]):
            raise ValidationError({"name": "a template with this name exists; POST a revision to it instead"})
        revision = add_template_revision(by=signed_in(request), **data)
        created = judging.template(Viewer.of(request), revision.template.name)
        return Response(JudgeTemplateSerializer(created).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=TemplateRevisionInputSerializer, responses={201: TemplateRevisionSerializer})
    @action(detail=True, methods=["post"])
    def revisions(self, request: Request, name: str | None = None) -> Response:
        """Record a new revision of the template (its wording must differ from the newest)."""
        template = self.get_object()
        data = valid_body(TemplateRevisionInputSerializer, request)
        revision = add_template_revision(name=template.name, by=signed_in(request), **data)
        return Response(TemplateRevisionSerializer(revision).data, status=status.HTTP_201_CREATED)


# --- runs ------------------------------------------------------------------------------------------


class _Figure(serializers.IntegerField):
    """A figure of the run read with the runs (`judging.run_rows`, in the context): serialising queries nothing."""

    def __init__(self, figure: str, **kwargs: Any) -> None:
        self.figure = figure
        super().__init__(read_only=True, **kwargs)

    def get_attribute(self, run: EndpointRun) -> int:
        return attrgetter(self.figure)(self.context["rows"][run.pk])


class EndpointRunSerializer(serializers.ModelSerializer):
    dataset = serializers.CharField(source="version.dataset.name", read_only=True)
    version = serializers.CharField(source="version.label", read_only=True)
    model = serializers.CharField(source="model.name", read_only=True, help_text="The model under test.")
    endpoint = serializers.CharField(source="endpoint.name", read_only=True)
    judge = serializers.CharField(
        source="judge_run.judge", read_only=True, default=None, help_text="The judge run's judge (the endpoint's model)."
    )
    run = serializers.CharField(source="judge_run.label", read_only=True, default=None, help_text="The judge run's label.")
    judge_run_id = serializers.IntegerField(read_only=True, allow_null=True)
    template = serializers.CharField(source="template_revision.template.name", read_only=True, default=None)
    template_revision = serializers.IntegerField(source="template_revision.revision", read_only=True, default=None)
    requested_by: serializers.StringRelatedField[User] = serializers.StringRelatedField(allow_null=True)
    total = _Figure("progress.total")
    done = _Figure("progress.done")
    failed = _Figure("progress.failed")
    remaining = _Figure("progress.remaining")
    tokens_in = _Figure("progress.tokens_in")
    tokens_out = _Figure("progress.tokens_out")
    estimated_cost = serializers.SerializerMethodField(
        help_text="Tokens at the endpoint's per-million prices when the run was created; null without prices."
    )
    suspected_injections = _Figure(
        "suspected", help_text="Questions whose judged response looked like prompt injection (GET …/questions/?suspected=true lists them)."
    )

    class Meta:
        model = EndpointRun
        fields = [
            "id",
            "kind",
            "status",
            "cancel_requested",
            "dataset",
            "version",
            "model",
            "endpoint",
            "judge",
            "run",
            "judge_run_id",
            "template",
            "template_revision",
            "selection",
            "total",
            "done",
            "failed",
            "remaining",
            "tokens_in",
            "tokens_out",
            "estimated_cost",
            "currency",
            "suspected_injections",
            "attempts",
            "last_error",
            "requested_by",
            "trigger",
            "created_at",
            "started_at",
            "finished_at",
        ]

    @extend_schema_field(serializers.DecimalField(max_digits=20, decimal_places=4, allow_null=True))
    def get_estimated_cost(self, run: EndpointRun) -> Decimal | None:
        return self.context["rows"][run.pk].cost


class RunRequestSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=EndpointRun.Kind.choices)
    dataset = serializers.CharField(max_length=100)
    version = serializers.CharField(max_length=64, required=False, allow_blank=True)
    model = serializers.CharField(max_length=200, help_text="Judging: the model judged. Generation: the model the answers are stored as.")
    endpoint = serializers.CharField(max_length=100)
    template = serializers.CharField(max_length=100, required=False, allow_blank=True, help_text="Judging only (default heartbench-zh).")
    run = serializers.CharField(
        max_length=64, required=False, allow_blank=True, help_text="Judging only; an existing label resumes that run."
    )
    difficulty = serializers.ChoiceField(choices=run_services.DIFFICULTIES, required=False)
    scene = serializers.CharField(max_length=100, required=False, allow_blank=True)
    ability = serializers.CharField(max_length=40, required=False, allow_blank=True)
    questions = serializers.ListField(child=serializers.CharField(max_length=64), required=False, max_length=100_000)
    changed_since = serializers.IntegerField(required=False, min_value=1, help_text="Judging only: a judge run's id.")


class RunRequestedSerializer(OutcomeFields, EndpointRunSerializer):
    created = serializers.BooleanField(
        read_only=True, help_text="False: a run of the same label (or an unfinished generation run) was resumed."
    )
    added = serializers.IntegerField(read_only=True, help_text="Questions added to the run.")
    retried = serializers.IntegerField(read_only=True, help_text="Failed questions set to be asked again.")

    class Meta(EndpointRunSerializer.Meta):
        fields = [*EndpointRunSerializer.Meta.fields, "created", "added", "retried"]

    outcome_fields = ("created", "added", "retried")  # what became of the request


class RunOutputSerializer(serializers.Serializer):
    answer = serializers.CharField(allow_blank=True)
    finish_reason = serializers.CharField(allow_blank=True)
    problem = serializers.JSONField(allow_null=True, help_text="Why the answer was unusable: {code, ...}; null when it was used.")


class InjectionSignalSerializer(serializers.Serializer):
    code = serializers.ChoiceField(choices=prompt_injection.SIGNAL_CODES, help_text="header, fence, instruction or answer.")
    text = serializers.CharField(help_text="The text of the response that matched (data).")
    why = serializers.SerializerMethodField(help_text="What the response does, in the reader's language.")

    def get_why(self, signal: dict[str, Any]) -> str:
        return describe_signal(signal)


class RunQuestionSerializer(serializers.ModelSerializer):
    question_id = serializers.CharField(source="item.question_id", read_only=True)
    suspected_injection = serializers.SerializerMethodField(help_text="Whether the judged response looked like prompt injection.")
    injection_signals = InjectionSignalSerializer(
        many=True,
        read_only=True,
        allow_null=True,
        help_text="What in the judged response looked like prompt injection; null: not looked at.",
    )
    why = serializers.SerializerMethodField(help_text="Why it failed, in the reader's language.")
    outputs = RunOutputSerializer(many=True, read_only=True, help_text="Every raw answer, in order.")
    response = serializers.CharField(source="response.public_id", read_only=True, default=None, help_text="The answer stored (generation).")

    class Meta:
        model = RunQuestion
        fields = [
            "question_id",
            "status",
            "requests",
            "tokens_in",
            "tokens_out",
            "problem",
            "why",
            "outputs",
            "response",
            "duration_ms",
            "finished_at",
            "suspected_injection",
            "injection_signals",
        ]

    def get_why(self, q: RunQuestion) -> str:
        return describe_problem(q.problem)

    def get_suspected_injection(self, q: RunQuestion) -> bool:
        return bool(q.injection_signals)


@extend_schema_view(
    list=extend_schema(parameters=EndpointRunFilters.parameters()),
    create=extend_schema(request=RunRequestSerializer, responses={201: RunRequestedSerializer, 200: RunRequestedSerializer, 204: None}),
)
class EndpointRunViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet[EndpointRun]):
    """Runs of an endpoint: judging a model's responses, or generating its answers. POST starts one (or resumes the run of the same label)."""

    serializer_class = EndpointRunSerializer
    permission_classes = [IsAdmin]

    def get_queryset(self) -> QuerySet[EndpointRun]:
        return judging.runs(Viewer.of(self.request), self.request.query_params, by_id=True)

    def _context(self, runs: list[EndpointRun], **extra: Any) -> dict[str, Any]:
        """The serializer's context, with the runs' progress (one query for all of them)."""
        rows = judging.run_rows(Viewer.of(self.request), runs)
        return {**self.get_serializer_context(), "rows": {r.run.pk: r for r in rows}, **extra}

    def _one(self, run: EndpointRun) -> Response:
        return Response(EndpointRunSerializer(run, context=self._context([run])).data)

    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        page = self.paginate_queryset(self.get_queryset())
        runs = list(page if page is not None else self.get_queryset())
        data = EndpointRunSerializer(runs, many=True, context=self._context(runs)).data
        return self.get_paginated_response(data) if page is not None else Response(data)

    def retrieve(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return self._one(self.get_object())

    def get_object(self) -> EndpointRun:
        return judging.run(Viewer.of(self.request), int(self.kwargs["pk"]))

    def create(self, request: Request) -> Response:
        d = valid_body(RunRequestSerializer, request)
        judging.refuse_run_request(Viewer.of(request), dataset=d["dataset"], model=d["model"])
        outcome = run_services.request_run(**d, requested_by=signed_in(request), trigger="api")
        if outcome.run is None:
            return Response(status=status.HTTP_204_NO_CONTENT)
        body = RunRequestedSerializer(outcome.run, context=self._context([outcome.run], outcome=outcome)).data
        return Response(body, status=status.HTTP_201_CREATED if outcome.created else status.HTTP_200_OK)

    @extend_schema(request=None, responses={200: EndpointRunSerializer})
    @action(detail=True, methods=["post"])
    def cancel(self, request: Request, pk: str | None = None) -> Response:
        """Stop the run (at once when no worker holds it; else within seconds, answers in flight kept)."""
        return self._one(run_services.cancel_run(run=self.get_object(), by=signed_in(request)))

    @extend_schema(request=None, responses={200: EndpointRunSerializer})
    @action(detail=True, methods=["post"], url_path="retry-failed")
    def retry_failed(self, request: Request, pk: str | None = None) -> Response:
        """Ask the run's failed questions again (a worker takes them)."""
        run_services.retry_failed(run=self.get_object(), by=signed_in(request))
        return self._one(self.get_object())

    @extend_schema(request=None, responses={200: EndpointRunSerializer})
    @action(detail=True, methods=["post"])
    def resume(self, request: Request, pk: str | None = None) -> Response:
        """Hand a cancelled or stopped run to a worker again."""
        run_services.resume_run(run=self.get_object(), by=signed_in(request))
        return self._one(self.get_object())

    @extend_schema(parameters=RunQuestionFilters.parameters(), responses={200: RunQuestionSerializer(many=True)})
    @action(detail=True, methods=["get"], pagination_class=None)  # one document: a run holds at most its version's questions
    def questions(self, request: Request, pk: str | None = None) -> Response:
        """The run's questions in file order: status, requests, tokens, why one failed, every raw answer, signs of prompt injection."""
        questions = judging.run_questions(Viewer.of(request), self.get_object(), request.query_params)
        return Response(RunQuestionSerializer(questions, many=True).data)
