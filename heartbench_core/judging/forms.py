"""Forms of the judging pages; every rule is the services' (they raise ValidationError naming the field)."""

from __future__ import annotations

from typing import Any, cast

from django import forms
from django.utils.translation import gettext_lazy as _

from heartbench_core.judging.models import Endpoint, EndpointRun, JudgeTemplate
from heartbench_core.models import Dataset, LanguageModel


class EndpointForm(forms.Form):
    name = forms.CharField(label=_("Name"), max_length=100)
    base_url = forms.CharField(
        label=_("Base URL"),
        max_length=500,
        help_text=_(
            "e.g. https://api.example.com/v1. Only public addresses, unless the operator allows the host in ENDPOINT_ALLOWED_HOSTS."
        ),
        widget=forms.TextInput(attrs={"size": 60}),
    )
    model = forms.CharField(
        label=_("Model"), max_length=200, help_text=_("The model name sent with each request; a judge's runs are named after it.")
    )
    api_key_env = forms.CharField(
        label=_("API key variable"),
        max_length=100,
        required=False,
        help_text=_(
            "Name of the environment variable holding the API key: one the operator designated (starting with ENDPOINT_KEY_PREFIX, "
            "by default HEARTBENCH_KEY_, e.g. HEARTBENCH_KEY_OPENAI, or listed in ENDPOINT_KEY_VARIABLES). "
            "The key itself is never stored or shown."
        ),
    )
    temperature = forms.FloatField(label=_("Temperature"), initial=0.0)
    max_tokens = forms.IntegerField(label=_("Max tokens"), initial=4096)
    concurrency = forms.IntegerField(label=_("Concurrency"), initial=4, help_text=_("Requests in flight at once."))
    requests_per_minute = forms.IntegerField(label=_("Requests per minute"), required=False, help_text=_("Blank: no limit."))
    max_retries = forms.IntegerField(label=_("Retries"), initial=3)
    backoff_seconds = forms.FloatField(label=_("Backoff (seconds)"), initial=2.0, help_text=_("Wait before the first retry; it doubles."))
    timeout_seconds = forms.FloatField(label=_("Timeout (seconds)"), initial=120.0)
    price_input = forms.DecimalField(label=_("Price per million input tokens"), required=False, max_digits=12, decimal_places=6)
    price_output = forms.DecimalField(label=_("Price per million output tokens"), required=False, max_digits=12, decimal_places=6)
    currency = forms.CharField(label=_("Currency"), max_length=8, required=False, initial="USD")
    note = forms.CharField(label=_("Note"), required=False, widget=forms.Textarea(attrs={"rows": 2}))

    @classmethod
    def of(cls, endpoint: Endpoint) -> EndpointForm:
        return cls(initial={f: getattr(endpoint, f) for f in cls.base_fields})


class TemplateRevisionForm(forms.Form):
    name = forms.CharField(label=_("Template name"), max_length=100)
    description = forms.CharField(label=_("Description"), required=False, widget=forms.Textarea(attrs={"rows": 2}))
    system = forms.CharField(label=_("System message"), required=False, strip=False, widget=forms.Textarea(attrs={"rows": 4}))
    user = forms.CharField(
        label=_("User message"),
        strip=False,
        widget=forms.Textarea(attrs={"rows": 24}),
        help_text=_(
            "Placeholders: $dialogue, $response, $criteria and $count (each must appear); $fence, the token of the data fences "
            "(without it the platform adds its notice that fenced text is data, never instructions); write $$ for a dollar sign."
        ),
    )
    change_note = forms.CharField(label=_("What changed, and why"), widget=forms.Textarea(attrs={"rows": 2}))


class RunForm(forms.Form):
    kind = forms.ChoiceField(label=_("Kind"), choices=EndpointRun.Kind.choices)
    dataset = forms.ChoiceField(label=_("Dataset"))
    version = forms.CharField(label=_("Version"), required=False, help_text=_("Blank: the latest."))
    model = forms.CharField(
        label=_("Model under test"),
        max_length=200,
        help_text=_("Judging: the model whose responses are judged. Generation: the model the answers are stored as."),
    )
    endpoint = forms.ChoiceField(label=_("Endpoint"), help_text=_("Judging: its model is the judge. Generation: it answers."))
    template = forms.ChoiceField(label=_("Template"), required=False, help_text=_("Judging only; its newest revision is used."))
    run = forms.CharField(
        label=_("Run label"),
        max_length=64,
        required=False,
        help_text=_("Judging only. Blank: the template and its revision. An existing label resumes that run."),
    )
    difficulty = forms.ChoiceField(
        label=_("Difficulty"), required=False, choices=[("", _("all")), ("hard", _("hard")), ("normal", _("normal"))]
    )
    scene = forms.CharField(label=_("Primary scene"), required=False)
    ability = forms.CharField(
        label=_("Ability"), required=False, help_text=_("Questions with a criterion of this ability label, e.g. 情绪感知.")
    )
    questions = forms.CharField(label=_("Question ids"), required=False, help_text=_("Comma-separated; blank: every question."))
    changed_since = forms.IntegerField(
        label=_("Changed since judge run"),
        required=False,
        min_value=1,
        help_text=_("Judging only: the questions whose criteria changed since that judge run (its id)."),
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        cast(forms.ChoiceField, self.fields["dataset"]).choices = [(n, n) for n in Dataset.objects.values_list("name", flat=True)]
        cast(forms.ChoiceField, self.fields["endpoint"]).choices = [(n, n) for n in Endpoint.objects.values_list("name", flat=True)]
        cast(forms.ChoiceField, self.fields["template"]).choices = [
            ("", _("default (heartbench-zh)")),
            *((n, n) for n in JudgeTemplate.objects.values_list("name", flat=True)),
        ]
        self.model_names = list(LanguageModel.objects.values_list("name", flat=True))
