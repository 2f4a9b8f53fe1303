"""The models' coded choices read in the reader's language, without a migration and without drifting from the models."""

from io import StringIO

import pytest
from django.apps import apps
from django.core.management import call_command
from django.utils.functional import Promise
from django.utils.translation import override

from annotation.models import Campaign
from heartbench_core.choice_labels import CHOICE_LABELS, DECLARED

PROJECT_APPS = ("heartbench_core", "annotation", "rubrics", "validation")


def _choice_fields() -> dict[str, object]:
    return {
        f"{model._meta.app_label}.{model.__name__}.{field.name}": field
        for model in apps.get_models()
        if model._meta.app_label in PROJECT_APPS
        for field in model._meta.concrete_fields
        if field.choices and field.name != "language"  # languages are named in their own language
    }


def test_every_coded_choice_of_every_model_has_a_translatable_label():
    fields = _choice_fields()
    assert sorted(fields) == sorted(CHOICE_LABELS), "add the new field's labels to heartbench_core/choice_labels.py"
    for key, field in fields.items():
        values = [value for value, _label in field.choices]
        assert sorted(values) == sorted(CHOICE_LABELS[key]), key
        assert all(isinstance(label, Promise) for _value, label in field.choices), key


def test_the_english_of_each_label_is_the_models_own():
    with override("en"):
        for key, declared in DECLARED.items():
            assert [(value, str(CHOICE_LABELS[key][value])) for value, _label in declared] == declared, key


def test_labels_follow_the_active_language_and_values_stay_codes():
    campaign = Campaign(status=Campaign.Status.ACTIVE)
    with override("en"):
        assert campaign.get_status_display() == "Active"
    assert campaign.status == "active"
    with override("zh-hans"):
        # The label is looked up in the catalogue at display time (a missing entry falls back to English).
        assert isinstance(dict(Campaign._meta.get_field("status").choices)["active"], Promise)


def test_forms_reading_the_enum_get_the_same_translatable_labels():
    assert all(isinstance(label, Promise) for _value, label in Campaign.Status.choices)
    assert Campaign.Status.ACTIVE.label is CHOICE_LABELS["annotation.Campaign.status"]["active"]
    with override("en"):
        assert dict(Campaign.Status.choices)["paused"] == "Paused"


@pytest.mark.django_db
def test_the_translated_labels_need_no_migration():
    out = StringIO()
    call_command("makemigrations", "--check", "--dry-run", stdout=out, stderr=out)
    assert "No changes detected" in out.getvalue()
