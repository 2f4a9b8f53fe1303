"""The People API and API tokens: admins list, invite, change roles, deactivate and reactivate users; tokens for pipelines.

People (admins only) mirrors the People pages: the same services as the pages
(heartbench_core.people.services) do every write; their errors become 400 (naming the field) or
403 answers through the project's exception handler.

API tokens, by API and on pages: admins issue, list and revoke them; everyone lists and revokes
their own. A user may hold several tokens, each with a name. The token itself is shown once, in
the answer that issues it (page, API or the `issue_token` command), and never again: lists show its
first characters, when it was created, when it expires, when it was last used and whether it was
revoked. The writes are `heartbench_core.services.api_tokens`.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.db.models import QuerySet
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST, require_safe
from drf_spectacular.utils import extend_schema, extend_schema_field, extend_schema_view
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from heartbench_core.api import valid_body
from heartbench_core.form_errors import errors_into
from heartbench_core.http import SignedInRequest, signed_in
from heartbench_core.models import ApiToken, User
from heartbench_core.people import read_models as people
from heartbench_core.people import services
from heartbench_core.people.filters import PeopleFilters, TokenFilters
from heartbench_core.people.forms import IssueTokenForm
from heartbench_core.people.selectors import Person, Status
from heartbench_core.people.serializers import IssueTokenSerializer
from heartbench_core.read_models import Viewer
from heartbench_core.roles import Role, role_permission, role_required
from heartbench_core.services import api_tokens as token_services

ROLE_VALUES = [r.value for r in Role]
PAGE_SIZE = 50


# --- people API ----------------------------------------------------------------------------------


class PersonSerializer(serializers.Serializer):
    """One user as admins see them."""

    id = serializers.IntegerField(source="user.pk")
    username = serializers.CharField(source="user.username")
    email = serializers.CharField(source="user.email")
    first_name = serializers.CharField(source="user.first_name")
    last_name = serializers.CharField(source="user.last_name")
    language = serializers.CharField(source="user.language", help_text="Their language on the site; blank follows the browser.")
    roles = serializers.ListField(
        child=serializers.ChoiceField(choices=ROLE_VALUES), help_text="The roles they hold (a superuser holds every role)."
    )
    superuser = serializers.BooleanField()
    is_active = serializers.BooleanField(source="user.is_active")
    status = serializers.ChoiceField(
        choices=list(Status.values), help_text="active; invited (no password set yet, never signed in); inactive (deactivated)."
    )
    invited_at = serializers.DateTimeField(allow_null=True, help_text="When the last invitation was sent (null: never).")
    last_login = serializers.DateTimeField(source="user.last_login", allow_null=True)
    date_joined = serializers.DateTimeField(source="user.date_joined")


class InvitedPersonSerializer(PersonSerializer):
    """The invitee, and the one-time link when no mail server carried it: in this answer only, never again."""

    invite_link = serializers.CharField(
        allow_blank=True,
        help_text=(
            "Empty when the invitation was e-mailed. When no mail server is configured (EMAIL_URL), the one-time link that sets "
            "their password, for the caller to hand over: it is a credential, stored nowhere and never shown again."
        ),
    )


def _invited(request: Request, invitation: services.Invitation) -> dict[str, Any]:
    return InvitedPersonSerializer({**_person(request, invitation.user).__dict__, "invite_link": invitation.link}).data


class DeactivatedPersonSerializer(PersonSerializer):
    released = serializers.IntegerField(help_text="Open (unsubmitted) assignments released back to their campaigns.")


class InviteSerializer(serializers.Serializer):
    email = serializers.EmailField(max_length=254)
    username = serializers.CharField(max_length=150, required=False, allow_blank=True, default="", help_text="Blank: the e-mail address.")
    first_name = serializers.CharField(max_length=150, required=False, allow_blank=True, default="")
    last_name = serializers.CharField(max_length=150, required=False, allow_blank=True, default="")
    roles = serializers.ListField(child=serializers.ChoiceField(choices=ROLE_VALUES), allow_empty=True, max_length=len(ROLE_VALUES))
    language = serializers.ChoiceField(
        choices=[code for code, _name in settings.LANGUAGES],
        required=False,
        allow_blank=True,
        default="",
        help_text="Language of the e-mail and of the site for them; blank: the caller's language, and their browser's on the site.",
    )


class RolesSerializer(serializers.Serializer):
    roles = serializers.ListField(
        child=serializers.ChoiceField(choices=ROLE_VALUES),
        allow_empty=True,
        max_length=len(ROLE_VALUES),
        help_text="Exactly the roles to hold.",
    )


def _person(request: Request, user: User) -> Person:
    found = people.person(Viewer.of(request), user.pk)
    if found is None:  # deleted meanwhile
        raise Http404
    return found


@extend_schema_view(
    list=extend_schema(
        parameters=PeopleFilters.parameters(),
        responses=PersonSerializer(many=True),
    ),
    retrieve=extend_schema(responses=PersonSerializer),
)
class PersonViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet[User]):
    """Admins: every user with roles and status; invite (POST), change roles, deactivate, reactivate, re-send an invitation."""

    permission_classes = [role_permission(Role.ADMIN)]
    serializer_class = PersonSerializer
    filter_backends: list[Any] = []  # filtered by `role` and `status`, ordered by username
    lookup_url_kwarg = "user_id"
    lookup_value_regex = r"\d+"

    def get_queryset(self) -> QuerySet[User]:
        if getattr(self, "swagger_fake_view", False):
            return people.no_people(Viewer.of(self.request))
        return people.people(Viewer.of(self.request), self.request.query_params, strict=True).users

    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        page = self.paginate_queryset(self.get_queryset())
        rows = people.people_rows(Viewer.of(request), page or [])
        return self.get_paginated_response(PersonSerializer(rows, many=True).data)

    def retrieve(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return Response(PersonSerializer(_person(request, self.get_object())).data)

    @extend_schema(request=InviteSerializer, responses={201: InvitedPersonSerializer})
    def create(self, request: Request) -> Response:
        """Create a user without a password and e-mail them a one-time link to set one (without a mail server: answer it)."""
        invitation = services.invite_user(
            **valid_body(InviteSerializer, request), by=signed_in(request), base_url=request.build_absolute_uri("/")
        )
        return Response(_invited(request, invitation), status=status.HTTP_201_CREATED, headers={"Cache-Control": "no-store"})

    @extend_schema(request=RolesSerializer, responses={200: PersonSerializer})
    @action(detail=True, methods=["post"])
    def roles(self, request: Request, user_id: str | None = None) -> Response:
        """Give the user exactly these roles (an admin cannot remove their own admin role)."""
        roles = valid_body(RolesSerializer, request)["roles"]
        user = services.set_roles(user=self.get_object(), roles=roles, by=signed_in(request))
        return Response(PersonSerializer(_person(request, user)).data)

    @extend_schema(request=None, responses={200: DeactivatedPersonSerializer})
    @action(detail=True, methods=["post"])
    def deactivate(self, request: Request, user_id: str | None = None) -> Response:
        """End their sessions, revoke their API tokens and release their open work; nobody deactivates themself."""
        user = self.get_object()
        released = services.deactivate_user(user=user, by=signed_in(request))
        person = _person(request, user)
        return Response(DeactivatedPersonSerializer({**person.__dict__, "released": released}).data)

    @extend_schema(request=None, responses={200: PersonSerializer})
    @action(detail=True, methods=["post"])
    def reactivate(self, request: Request, user_id: str | None = None) -> Response:
        user = services.reactivate_user(user=self.get_object(), by=signed_in(request))
        return Response(PersonSerializer(_person(request, user)).data)

    @extend_schema(request=None, responses={200: InvitedPersonSerializer})
    @action(detail=True, methods=["post"], url_path="resend-invite", url_name="resend-invite")
    def resend_invite(self, request: Request, user_id: str | None = None) -> Response:
        """Send a new invitation link to a user who has not set a password (without a mail server: answer it); earlier links stop working."""
        invitation = services.resend_invite(user=self.get_object(), by=signed_in(request), base_url=request.build_absolute_uri("/"))
        return Response(_invited(request, invitation), headers={"Cache-Control": "no-store"})


# --- token API -----------------------------------------------------------------------------------


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


class _Tokens(mixins.ListModelMixin, mixins.RetrieveModelMixin, mixins.DestroyModelMixin, viewsets.GenericViewSet[ApiToken]):
    serializer_class = ApiTokenSerializer
    ordering_fields = ["created_at", "expires_at", "last_used_at"]

    def destroy(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        token_services.revoke_token(token=self.get_object(), by=signed_in(request))
        return Response(status=status.HTTP_204_NO_CONTENT)


@extend_schema_view(
    list=extend_schema(parameters=TokenFilters.parameters()),
    destroy=extend_schema(description="Revoke the token (it keeps its row, saying when and by whom); revoking it again changes nothing."),
)
class TokenViewSet(_Tokens):
    """Admins list every user's tokens, issue one for any active user (POST; the token is in this answer only) and revoke (DELETE)."""

    permission_classes = [role_permission(Role.ADMIN)]

    def get_queryset(self) -> QuerySet[ApiToken]:
        return people.tokens(Viewer.of(self.request), self.request.query_params, strict=True).tokens

    @extend_schema(request=IssueTokenSerializer, responses={201: IssuedTokenSerializer})
    def create(self, request: Request) -> Response:
        data = valid_body(IssueTokenSerializer, request)
        issued = token_services.issue_token(user=data["username"], name=data["name"], days=data.get("days"), by=signed_in(request))
        return Response(IssuedTokenSerializer(issued.token, context={"text": issued.text}).data, status=status.HTTP_201_CREATED)


@extend_schema_view(destroy=extend_schema(description="Revoke one of your tokens; revoking it again changes nothing."))
class MyTokenViewSet(_Tokens):
    """The caller's own tokens: list them and revoke one (a pipeline may revoke the token it uses); another's is a 404."""

    def get_queryset(self) -> QuerySet[ApiToken]:
        return people.own_tokens(Viewer.of(self.request))


# --- pages ---------------------------------------------------------------------------------------


def _admin_page(
    request: HttpRequest, form: IssueTokenForm, *, issued: token_services.IssuedToken | None = None, status: int = 200
) -> HttpResponse:
    found = people.tokens(Viewer.of(request), request.GET)
    page, filters = Paginator(found.tokens, PAGE_SIZE).get_page(request.GET.get("page")), found.filters
    context = {
        "form": form,
        "page": page,
        "issued": issued,
        "filtered_user": filters.values.get("username"),
        "query": filters.query,
        "filter_errors": filters.messages,
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
        issued = token_services.issue_token(user=data["username"], name=data["name"], days=data["days"], by=request.user)
    except ValidationError as exc:
        errors_into(form, exc)
        return _admin_page(request, form, status=400)
    # Rendered, not redirected: the token is shown this once and never stored in a URL or the session.
    return _admin_page(request, IssueTokenForm(), issued=issued)


@require_POST
@role_required(Role.ADMIN)
def token_revoke(request: SignedInRequest, pk: int) -> HttpResponse:
    token_services.revoke_token(token=people.token(Viewer.of(request), pk), by=request.user)
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
    token_services.revoke_token(token=people.own_token(Viewer.of(request), pk), by=request.user)
    return redirect("my-tokens")
