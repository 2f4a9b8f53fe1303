"""API tokens for pipelines, by API and on pages: admins issue, list and revoke them; everyone lists and revokes their own.

A user may hold several tokens, each with a name. The token itself is shown once, in the answer
that issues it (page, API or the `issue_token` command), and never again: lists show its first
characters, when it was created, when it expires, when it was last used and whether it was
revoked. The writes are `heartbench_core.services.api_tokens`.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme, urlencode
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST, require_safe
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_field
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.request import Request
from rest_framework.response import Response

from heartbench_core.http import SignedInRequest, signed_in
from heartbench_core.models import ApiToken
from heartbench_core.people import read_models as people
from heartbench_core.people.forms import IssueTokenForm
from heartbench_core.people.serializers import IssueTokenSerializer
from heartbench_core.read_models import Viewer
from heartbench_core.roles import Role, role_permission, role_required
from heartbench_core.services import api_tokens as services

PAGE_SIZE = 50
STATES = [s.value for s in ApiToken.State]


# --- API -----------------------------------------------------------------------------------------


class ApiTokenSerializer(serializers.ModelSerializer[ApiToken]):
    user_id = serializers.IntegerField(source="user.pk", read_only=True)
    username = serializers.CharField(source="user.username", read_only=True)
    created_by = serializers.CharField(source="created_by.username", read_only=True, allow_null=True, default=None)
    revoked_by = serializers.CharField(source="revoked_by.username", read_only=True, allow_null=True, default=None)
    state = serializers.SerializerMethodField(help_text="active, expired or revoked, now.")

    class Meta:
        model = ApiToken
        fields = [
            "id",
            "user_id",
            "username",
            "name",
            "prefix",
            "created_at",
            "created_by",
            "expires_at",
            "last_used_at",
            "revoked_at",
            "revoked_by",
            "state",
        ]
        read_only_fields = fields

    @extend_schema_field(serializers.ChoiceField(choices=ApiToken.State.choices))
    def get_state(self, token: ApiToken) -> str:
        return token.current_state.value


class IssuedTokenSerializer(ApiTokenSerializer):
    """A token just issued, with the token itself (given in the context as `text`)."""

    token = serializers.SerializerMethodField(help_text="The token itself: shown only in this answer, never again.")

    class Meta(ApiTokenSerializer.Meta):
        fields = [*ApiTokenSerializer.Meta.fields, "token"]
        read_only_fields = fields

    def get_token(self, token: ApiToken) -> str:
        return str(self.context["text"])


class TokenViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, mixins.DestroyModelMixin, viewsets.GenericViewSet[ApiToken]):
    """Admins list every user's tokens, issue one for any active user (POST; the token is in this answer only) and revoke (DELETE)."""

    serializer_class = ApiTokenSerializer
    permission_classes = [role_permission(Role.ADMIN)]
    ordering_fields = ["created_at", "expires_at", "last_used_at"]

    def get_queryset(self) -> QuerySet[ApiToken]:
        params = self.request.query_params
        state = params.get("state") or None
        if state is not None and state not in STATES:
            raise serializers.ValidationError(
                {"state": [_("%(state)r is not one of %(states)s.") % {"state": state, "states": ", ".join(STATES)}]}
            )
        return people.tokens(Viewer.of(self.request), username=params.get("username") or None, state=state)

    @extend_schema(
        parameters=[
            OpenApiParameter("username", str, description="Only this user's tokens."),
            OpenApiParameter("state", str, enum=STATES, description="Only tokens in this state now."),
        ]
    )
    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().list(request, *args, **kwargs)

    @extend_schema(request=IssueTokenSerializer, responses={201: IssuedTokenSerializer})
    def create(self, request: Request) -> Response:
        form = IssueTokenSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        data = form.validated_data
        issued = services.issue_token(user=data["username"], name=data["name"], days=data.get("days"), by=signed_in(request))
        return Response(IssuedTokenSerializer(issued.token, context={"text": issued.text}).data, status=status.HTTP_201_CREATED)

    @extend_schema(description="Revoke the token (it keeps its row, saying when and by whom); revoking it again changes nothing.")
    def destroy(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        services.revoke_token(token=self.get_object(), by=signed_in(request))
        return Response(status=status.HTTP_204_NO_CONTENT)


class MyTokenViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, mixins.DestroyModelMixin, viewsets.GenericViewSet[ApiToken]):
    """The caller's own tokens: list them and revoke one (a pipeline may revoke the token it uses); another's is a 404."""

    serializer_class = ApiTokenSerializer
    ordering_fields = ["created_at", "expires_at", "last_used_at"]

    def get_queryset(self) -> QuerySet[ApiToken]:
        return people.own_tokens(Viewer.of(self.request))

    @extend_schema(description="Revoke one of your tokens; revoking it again changes nothing.")
    def destroy(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        services.revoke_token(token=self.get_object(), by=signed_in(request))
        return Response(status=status.HTTP_204_NO_CONTENT)


# --- pages ---------------------------------------------------------------------------------------


def _admin_page(
    request: HttpRequest, form: IssueTokenForm, *, issued: services.IssuedToken | None = None, status: int = 200
) -> HttpResponse:
    username = request.GET.get("user") or None
    page = Paginator(people.tokens(Viewer.of(request), username=username), PAGE_SIZE).get_page(request.GET.get("page"))
    context = {
        "form": form,
        "page": page,
        "issued": issued,
        "filtered_user": username,
        "query": urlencode({"user": username}) if username else "",
        "max_days": settings.API_TOKEN_MAX_DAYS,
    }
    return render(request, "registration/tokens.html", context, status=status)


@require_safe
@never_cache
@role_required(Role.ADMIN)
def token_list(request: SignedInRequest) -> HttpResponse:
    user = request.GET.get("user")
    return _admin_page(request, IssueTokenForm(initial={"username": user} if user else None))


@require_POST
@never_cache
@role_required(Role.ADMIN)
def token_issue(request: SignedInRequest) -> HttpResponse:
    form = IssueTokenForm(request.POST)
    if not form.is_valid():
        return _admin_page(request, form, status=400)
    data = form.cleaned_data
    try:
        issued = services.issue_token(user=data["username"], name=data["name"], days=data["days"], by=request.user)
    except ValidationError as exc:
        for field, messages in exc.message_dict.items():
            for message in messages:
                form.add_error(field if field in form.fields else None, message)
        return _admin_page(request, form, status=400)
    # Rendered, not redirected: the token is shown this once and never stored in a URL or the session.
    return _admin_page(request, IssueTokenForm(), issued=issued)


@require_POST
@role_required(Role.ADMIN)
def token_revoke(request: SignedInRequest, pk: int) -> HttpResponse:
    services.revoke_token(token=people.token(Viewer.of(request), pk), by=request.user)
    back = request.POST.get("next", "")
    if url_has_allowed_host_and_scheme(back, allowed_hosts={request.get_host()}, require_https=request.is_secure()):
        return redirect(back)
    return redirect("tokens")


@require_safe
@never_cache
@role_required(*Role)
def my_tokens(request: SignedInRequest) -> HttpResponse:
    context = {"tokens": people.own_tokens(Viewer.of(request))}
    return render(request, "registration/my_tokens.html", context)


@require_POST
@role_required(*Role)
def my_token_revoke(request: SignedInRequest, pk: int) -> HttpResponse:
    services.revoke_token(token=people.own_token(Viewer.of(request), pk), by=request.user)
    return redirect("my-tokens")
