"""Input serializers of the People and API token APIs: they validate input (looking up whom it names); reads of what is shown are read models."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.utils.translation import gettext as _
from rest_framework import serializers

from heartbench_core.models import User
from heartbench_core.services import api_tokens as services


class IssueTokenSerializer(serializers.Serializer[Any]):
    username = serializers.CharField(max_length=150)
    name = serializers.CharField(max_length=services.NAME_MAX_CHARS, help_text="What the token is for, e.g. the pipeline using it.")
    days = serializers.IntegerField(
        required=False,
        min_value=1,
        max_value=settings.API_TOKEN_MAX_DAYS,
        help_text=f"Lifetime in days (default {settings.API_TOKEN_DAYS}, at most {settings.API_TOKEN_MAX_DAYS}).",
    )

    def validate_username(self, value: str) -> User:
        user = User.objects.filter(username=value).first()
        if user is None:
            raise serializers.ValidationError(_("no user named %(username)r") % {"username": value})
        if not user.is_active:
            raise serializers.ValidationError(_("user %(username)r is inactive") % {"username": value})
        return user
