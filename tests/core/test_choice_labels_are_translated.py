"""The models' coded choices read in the reader's language: every label is a lazy translation on the choice itself."""

from io import StringIO

import pytest
from django.apps import apps
from django.core.management import call_command
from django.utils.functional import Promise
from django.utils.translation import override

from annotation.models import Campaign

PROJECT_APPS = ("heartbench_core", "annotation", "rubrics", "validation")


def _choice_fields() -> dict[str, object]:
    return {
        f"{model._meta.app_label}.{model.__name__}.{field.name}": field
        for model in apps.get_models()
        if model._meta.app_label in PROJECT_APPS
        for field in model._meta.concrete_fields
        if field.choices and field.name != "language"  # languages are named in their own language
    }


def test_every_coded_choice_of_every_model_is_a_lazy_translation_with_chinese():
    fields = _choice_fields()
    assert len(fields) >= 25  # the check reaches the models
    untranslated = []
    for key, field in fields.items():
        for value, label in field.choices:
            assert isinstance(label, Promise), f"{key}={value!r}: write the label as pgettext_lazy(context, English)"
            with override("en"):
                english = str(label)
            with override("zh-hans"):
                if str(label) == english:
                    untranslated.append(f"{key}={value!r} ({english})")
    assert not untranslated, "no zh-Hans translation: " + ", ".join(untranslated)


def test_labels_follow_the_active_language_and_values_stay_codes():
    campaign = Campaign(status=Campaign.Status.ACTIVE)
    with override("en"):
        assert campaign.get_status_display() == "Active"
    with override("zh-hans"):
        assert campaign.get_status_display() != "Active"
    assert campaign.status == "active"


def test_forms_reading_the_enum_get_the_same_translatable_labels():
    assert all(isinstance(label, Promise) for _value, label in Campaign.Status.choices)
    assert Campaign.Status.ACTIVE.label is dict(Campaign._meta.get_field("status").choices)["active"]
    with override("en"):
        assert dict(Campaign.Status.choices)["paused"] == "Paused"


@pytest.mark.django_db
def test_the_translated_labels_need_no_migration():
    out = StringIO()
    call_command("makemigrations", "--check", "--dry-run", stdout=out, stderr=out)
    assert "No changes detected" in out.getvalue()
