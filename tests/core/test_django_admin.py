"""Every model of the platform is in the Django admin, and every list page renders with data."""

import pytest
from django.apps import apps
from django.contrib import admin
from django.core.management import call_command
from django.urls import reverse

pytestmark = pytest.mark.django_db

OURS = ("heartbench_core", "annotation", "rubrics", "validation")


def test_every_model_of_the_platform_is_registered():
    missing = [m._meta.label for m in apps.get_models() if m._meta.app_label in OURS and m not in admin.site._registry]
    assert missing == []


def test_every_list_page_renders_on_the_demo_data(client):
    call_command("seed_demo", verbosity=0)
    from heartbench_core.models import User

    client.force_login(User.objects.get(username="admin"))
    for model in admin.site._registry:
        if model._meta.app_label not in OURS:
            continue
        url = reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist")
        assert client.get(url).status_code == 200, url
