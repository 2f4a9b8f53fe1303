"""The People API (admins only), mirroring the People pages: list users, invite, change roles, deactivate, reactivate.

The same services as the pages (heartbench_core.people.services) do every write; their errors
become 400 (naming the field) or 403 answers through the project's exception handler.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db.models import QuerySet
from django.http import Http404
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from heartbench_core.http import signed_in
from heartbench_core.models import User
from heartbench_core.people import read_models as people
from heartbench_core.people import services
from heartbench_core.people.selectors import NO_ROLE, Person, Status
from heartbench_core.query_params import choice_param, enum_param
from heartbench_core.read_models import Viewer
from heartbench_core.roles import Role, role_permission

ROLE_VALUES = [r.value for r in Role]


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
        parameters=[
            enum_param("role", [*ROLE_VALUES, NO_ROLE], "Only users holding this role ('none': holding no role)."),
            enum_param("status", Status.values, "Only users of this status."),
        ],
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
        return people.people(
            Viewer.of(self.request),
            role=choice_param(self.request, "role", [*ROLE_VALUES, NO_ROLE]),
            status=choice_param(self.request, "status", Status.values),
        )

    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        page = self.paginate_queryset(self.get_queryset())
        rows = people.people_rows(Viewer.of(request), page or [])
        return self.get_paginated_response(PersonSerializer(rows, many=True).data)

    def retrieve(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return Response(PersonSerializer(_person(request, self.get_object())).data)

    @extend_schema(request=InviteSerializer, responses={201: InvitedPersonSerializer})
    def create(self, request: Request) -> Response:
        """Create a user without a password and e-mail them a one-time link to set one (without a mail server: answer it)."""
        form = InviteSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        invitation = services.invite_user(**form.validated_data, by=signed_in(request), base_url=request.build_absolute_uri("/"))
        return Response(_invited(request, invitation), status=status.HTTP_201_CREATED, headers={"Cache-Control": "no-store"})

    @extend_schema(request=RolesSerializer, responses={200: PersonSerializer})
    @action(detail=True, methods=["post"])
    def roles(self, request: Request, user_id: str | None = None) -> Response:
        """Give the user exactly these roles (an admin cannot remove their own admin role)."""
        form = RolesSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        user = services.set_roles(user=self.get_object(), roles=form.validated_data["roles"], by=signed_in(request))
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
