import pytest
from django.urls import reverse

from tests.factories import demo_version

pytestmark = pytest.mark.django_db


@pytest.fixture
def version():
    return demo_version()


def urls(version):
    return [
        reverse("core:datasets"),
        reverse("core:dataset", args=["demo"]),
        reverse("core:version", args=["demo", version.label]),
        reverse("core:diff", args=["demo"]) + f"?a={version.label}&b={version.label}",
        reverse("core:item", args=["demo", version.label, "dm0006"]),
    ]


def test_staff_can_browse_datasets_versions_and_items(cast, client_for, version):
    for user in (cast.admin, cast.author, cast.reviewer):
        client = client_for(user)
        for url in urls(version):
            assert client.get(url).status_code == 200, (user, url)


def test_the_item_page_renders_the_dialogue_and_the_rubric(cast, client_for, version):
    body = client_for(cast.author).get(reverse("core:item", args=["demo", "v1", "dm0006"])).content.decode()
    assert "A · help-seeker" in body and "B · other party" in body
    assert "毕业一年了还没找到方向" in body
    assert body.count('class="criterion ') == 22
    assert "−" in body or "-10" in body


def test_experts_and_outsiders_cannot_see_the_dataset_browser(cast, client_for, version):
    for user in (cast.expert, cast.outsider):
        client = client_for(user)
        for url in urls(version):
            assert client.get(url).status_code == 403, (user, url)


def test_anonymous_users_are_sent_to_login(client, version):
    response = client.get(reverse("core:datasets"))
    assert response.status_code == 302 and reverse("login") in response["Location"]


def test_item_filter_returns_a_partial_for_htmx(cast, client_for, version):
    client = client_for(cast.admin)
    response = client.get(reverse("core:version", args=["demo", "v1"]), {"difficulty": "hard"}, HTTP_HX_REQUEST="true")
    body = response.content.decode()
    assert "<html" not in body
    assert body.count("<tr>") == 1 + 3  # header + the three hard demo items


def test_version_page_uses_a_fixed_number_of_queries(cast, client_for, version, django_assert_max_num_queries):
    client = client_for(cast.admin)
    with django_assert_max_num_queries(12):
        client.get(reverse("core:version", args=["demo", "v1"]))
