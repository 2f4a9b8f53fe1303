"""HEAD answers like GET without a body; OPTIONS describes no API endpoint to anyone.

The permission matrix walks both methods on every URL for every role; these tests pin what
the answers carry.
"""

import pytest
from django.urls import reverse

from tests.security.world import build_world

pytestmark = pytest.mark.django_db


def test_head_of_a_page_answers_as_get_with_no_body(client_for, cast):
    client = client_for(cast.admin)
    get = client.get(reverse("validation:index"))
    head = client.head(reverse("validation:index"))
    assert get.status_code == head.status_code == 200
    assert head.content == b"" and head["Content-Type"] == get["Content-Type"]


def test_head_is_refused_to_whoever_get_is_refused_to(client_for, cast):
    assert client_for(cast.expert).head(reverse("validation:index")).status_code == 403


@pytest.mark.parametrize("who", ["admin", "expert"])
def test_options_on_the_api_answers_405_and_describes_nothing(client_for, cast, who):
    world = build_world(cast)
    user = getattr(cast, who)
    paths = [reverse("api-ws-draft", args=[world.objects["assignment"].public_id]), reverse("api-ws-next"), reverse("api-token-list")]
    for path in paths:
        response = client_for(user).options(path)
        assert response.status_code in (403, 404, 405), path
        body = response.content.decode()
        assert "actions" not in body and "judgments" not in body and "parses" not in body, path
