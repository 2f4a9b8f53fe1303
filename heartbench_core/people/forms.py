"""Forms of the People pages: they parse input; the rules live in heartbench_core.people.services."""

from __future__ import annotations

from typing import Any

from django import forms
from django.conf import settings
from django.utils.translation import gettext_lazy as _

from heartbench_core.models import User
from heartbench_core.people.selectors import ROLE_LABELS
from heartbench_core.roles import Role
from heartbench_core.services import api_tokens as token_services

ROLE_CHOICES = [(r.value, ROLE_LABELS[r]) for r in Role]


class RolesField(forms.MultipleChoiceField):
    widget = forms.CheckboxSelectMultiple

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("choices", ROLE_CHOICES)
        kwargs.setdefault("label", _("Roles"))
        kwargs.setdefault("required", False)
        super().__init__(**kwargs)


class InviteForm(forms.Form):
    email = forms.EmailField(
        label=_("E-mail address"), max_length=254, widget=forms.TextInput(attrs={"inputmode": "email", "autocomplete": "off"})
    )
    username = forms.CharField(label=_("Username"), max_length=150, required=False, help_text=_("Leave blank to use the e-mail address."))
    first_name = forms.CharField(label=_("First name"), max_length=150, required=False)
    last_name = forms.CharField(label=_("Last name"), max_length=150, required=False)
    roles = RolesField(initial=[Role.EXPERT.value], help_text=_("Experts judge responses blind; a person may hold several roles."))
    language = forms.ChoiceField(
        label=_("Language of the invitation"),
        required=False,
        choices=[("", _("the language I am using now")), *settings.LANGUAGES],
        help_text=_("Also the invitee's language on the site; blank lets their browser decide."),
    )


class RolesForm(forms.Form):
    roles = RolesField()


class IssueTokenForm(forms.Form):
    username = forms.ModelChoiceField(
        queryset=User.objects.filter(is_active=True).order_by("username").only("id", "username"),
        to_field_name="username",
        label=_("User"),
        error_messages={"invalid_choice": _("No active user by that name.")},
    )
    name = forms.CharField(max_length=token_services.NAME_MAX_CHARS, label=_("Name"), help_text=_("What it is for."))
    days = forms.IntegerField(min_value=1, max_value=settings.API_TOKEN_MAX_DAYS, initial=settings.API_TOKEN_DAYS, label=_("Days"))
