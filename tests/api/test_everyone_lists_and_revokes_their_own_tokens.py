"""Everyone with a role lists their own API tokens and revokes one, by API (a pipeline may revoke its own) and on a page; another's is a 404."""

import pytest
from django.urls import reverse

from heartbench_core.services.api_tokens import issue_token

pytestmark = pytest.mark.django_db


def test_an_expert_lists_their_own_tokens_and_no_one_elses(cast, client_for):
    mine = issue_token(user=cast.expert, name="phone")
    issue_token(user=cast.experts[1], name="theirs")
    client = client_for(cast.expert)
    body = client.get(reverse("api-my-token-list")).json()
    assert [(r["name"], r["prefix"]) for r in body["results"]] == [("phone", mine.token.prefix)]
    assert mine.text not in str(body)
    page = client.get(reverse("my-tokens")).content.decode()
    assert "phone" in page and mine.token.prefix in page and "theirs" not in page and mine.text not in page


def test_the_header_links_to_ones_own_tokens(cast, client_for):
    page = client_for(cast.expert).get(reverse("annotation:home")).content.decode()
    assert f'href="{reverse("my-tokens")}"' in page


def test_a_pipeline_revokes_the_token_it_uses(cast, client):
    issued = issue_token(user=cast.author, name="leaked")
    auth = {"HTTP_AUTHORIZATION": f"Token {issued.text}"}
    assert client.delete(reverse("api-my-token-detail", args=[issued.token.pk]), **auth).status_code == 204
    issued.token.refresh_from_db()
    assert issued.token.revoked_by == cast.author
    assert client.get(reverse("api-my-token-list"), **auth).status_code == 401


def test_a_user_revokes_their_own_on_the_page(cast, client_for):
    issued = issue_token(user=cast.expert, name="phone")
    response = client_for(cast.expert).post(reverse("my-tokens-revoke", args=[issued.token.pk]))
    assert response.status_code == 302 and response["Location"] == reverse("my-tokens")
    issued.token.refresh_from_db()
    assert issued.token.revoked_at is not None


def test_another_users_token_is_a_404_and_stays(cast, client_for):
    theirs = issue_token(user=cast.experts[1], name="theirs")
    client = client_for(cast.expert)
    assert client.get(reverse("api-my-token-detail", args=[theirs.token.pk])).status_code == 404
    assert client.delete(reverse("api-my-token-detail", args=[theirs.token.pk])).status_code == 404
    assert client.post(reverse("my-tokens-revoke", args=[theirs.token.pk])).status_code == 404
    theirs.token.refresh_from_db()
    assert theirs.token.revoked_at is None


def test_an_outsider_has_no_token_page(cast, client_for):
    client = client_for(cast.outsider)
    assert client.get(reverse("my-tokens")).status_code == 403
    assert client.get(reverse("api-my-token-list")).status_code == 403
