"""An id or number too large for the database is a 404/400, never a 500."""

import pytest
from django.urls import reverse

pytestmark = pytest.mark.django_db


def test_an_id_past_64_bits_in_the_url_is_not_found(client_for, cast):
    response = client_for(cast.admin).get(reverse("api-token-detail", args=[10**30]))
    assert response.status_code == 404  # SQLite overflows (answered by the middleware); PostgreSQL finds no row


def test_an_ordinary_missing_id_is_still_not_found(client_for, cast):
    assert client_for(cast.admin).get(reverse("api-token-detail", args=[999999])).status_code == 404
