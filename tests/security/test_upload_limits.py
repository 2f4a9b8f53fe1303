"""Uploads larger than MAX_UPLOAD_BYTES are refused with 413 before anything is read or written."""

import io

import pytest
from django.test import override_settings
from django.urls import reverse

from heartbench_core.models import Dataset, DatasetVersion
from tests.factories import DEMO_ITEMS

pytestmark = pytest.mark.django_db


def upload(client, payload: bytes, name="items.jsonl"):
    handle = io.BytesIO(payload)
    handle.name = name
    return client.post(reverse("api-import-heartbench"), {"file": handle, "dataset": "big"})


@override_settings(MAX_UPLOAD_BYTES=4096)
def test_an_oversized_import_upload_gets_413_with_the_limit_named_and_writes_nothing(client_for, cast):
    client = client_for(cast.admin)
    response = upload(client, DEMO_ITEMS.read_bytes())
    assert response.status_code == 413
    assert response.json()["limit_bytes"] == 4096
    assert "largest accepted upload is 4096 bytes" in response.json()["detail"]
    assert not Dataset.objects.filter(name="big").exists()


@override_settings(MAX_UPLOAD_BYTES=4096)
def test_an_oversized_page_post_gets_a_plain_413(client_for, cast):
    response = client_for(cast.admin).post(reverse("login"), {"username": "x" * 5000, "password": "y"})
    assert response.status_code == 413
    assert response["Content-Type"].startswith("text/plain")


def test_an_upload_within_the_limit_is_imported(client_for, cast, settings):
    assert DEMO_ITEMS.stat().st_size < settings.MAX_UPLOAD_BYTES
    response = upload(client_for(cast.admin), DEMO_ITEMS.read_bytes())
    assert response.status_code == 201, response.content
    assert DatasetVersion.objects.filter(dataset__name="big").count() == 1
