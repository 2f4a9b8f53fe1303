"""API tokens for pipelines: an admin issues and revokes them, by API and on a small page.

A token authenticates as its user, with that user's roles. DRF keeps one token per user;
issuing again replaces the old token, so a leaked token is revoked by reissuing or revoking.
The key is shown once, when it is issued; lists show only its first characters.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST, require_safe
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.authtoken.models import Token
from rest_framework.request import Request
from rest_framework.response import Response

from heartbench_core.models import User
from heartbench_core.roles import Role, role_permission, role_required

KEY_PREFIX_CHARS = 6


def issue_token(*, user: User) -> Token:
    """Create a new token for the user, replacing (revoking) any token the user had."""
    if not user.is_active:
        from django.core.exceptions import ValidationError

        raise ValidationError({"username": _("user %(username)r is inactive") % {"username": user.get_username()}})
    with transaction.atomic():
        Token.objects.filter(user=user).delete()
        return Token.objects.create(user=user)


def revoke_token(*, user: User) -> bool:
    """Delete the user's token; True when there was one."""
    with transaction.atomic():
        deleted, _ = Token.objects.filter(user=user).delete()
    return bool(deleted)


def tokens_with_users() -> QuerySet[Token]:
    """Every issued token with its user, newest first."""
    return Token.objects.select_related("user").order_by("-created")


class TokenSerializer(serializers.ModelSerializer):
    user_id = serializers.IntegerField(source="user.pk", read_only=True)
    username = serializers.CharField(source="user.username", read_only=True)
    key_prefix = serializers.SerializerMethodField()

    class Meta:
        model = Token
        fields = ["user_id", "username", "key_prefix", "created"]

    def get_key_prefix(self, token: Token) -> str:
        return token.key[:KEY_PREFIX_CHARS]


class IssuedTokenSerializer(TokenSerializer):
    key = serializers.CharField(read_only=True, help_text="Shown only once, now.")

    class Meta(TokenSerializer.Meta):
        fields = [*TokenSerializer.Meta.fields, "key"]


class IssueTokenSerializer(serializers.Serializer):
    username = serializers.CharField(max_length=150)

    def validate_username(self, value: str) -> User:
        user = User.objects.filter(username=value).first()
        if user is None:
            raise serializers.ValidationError(_("no user named %(username)r") % {"username": value})
        if not user.is_active:
            raise serializers.ValidationError(_("user %(username)r is inactive") % {"username": value})
        return user


class TokenViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, mixins.DestroyModelMixin, viewsets.GenericViewSet[Token]):
    """Admins list, issue (POST: replaces any earlier token of the user) and revoke API tokens."""

    serializer_class = TokenSerializer
    permission_classes = [role_permission(Role.ADMIN)]
    lookup_field = "user_id"
    lookup_value_regex = r"\d+"
    ordering_fields = ["created"]

    def get_queryset(self) -> QuerySet[Token]:
        qs = tokens_with_users()
        if username := self.request.query_params.get("username"):
            qs = qs.filter(user__username=username)
        return qs

    @extend_schema(parameters=[OpenApiParameter("username", str, description="Only this user's token.")])
    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().list(request, *args, **kwargs)

    @extend_schema(request=IssueTokenSerializer, responses={201: IssuedTokenSerializer})
    def create(self, request: Request) -> Response:
        form = IssueTokenSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        token = issue_token(user=form.validated_data["username"])
        return Response(IssuedTokenSerializer(token).data, status=status.HTTP_201_CREATED)

    def perform_destroy(self, instance: Token) -> None:
        revoke_token(user=instance.user)


@require_safe
@never_cache
@role_required(Role.ADMIN)
def token_list(request: HttpRequest) -> HttpResponse:
    users = User.objects.filter(is_active=True).order_by("username").only("id", "username")
    return render(request, "registration/tokens.html", {"tokens": tokens_with_users(), "users": users})


@require_POST
@never_cache
@role_required(Role.ADMIN)
def token_issue(request: HttpRequest) -> HttpResponse:
    username = request.POST.get("username", "")
    user = User.objects.filter(username=username, is_active=True).first()
    users = User.objects.filter(is_active=True).order_by("username").only("id", "username")
    if user is None:
        context: dict[str, Any] = {
            "tokens": tokens_with_users(),
            "users": users,
            "error": _("No active user named %(username)r.") % {"username": username},
        }
        return render(request, "registration/tokens.html", context, status=400)
    token = issue_token(user=user)
    # Rendered, not redirected: the key is shown this once and never stored in a URL or session.
    context = {"tokens": tokens_with_users(), "users": users, "issued": token}
    return render(request, "registration/tokens.html", context)


@require_POST
@role_required(Role.ADMIN)
def token_revoke(request: HttpRequest, user_id: int) -> HttpResponse:
    user = get_object_or_404(User, pk=user_id)
    revoke_token(user=user)
    return redirect("tokens")
