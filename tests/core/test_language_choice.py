"""Each reader's language: the browser's until they choose, then their stored choice; English by default."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from annotation.models import Assignment, CampaignResponse
from annotation.services.campaigns import create_campaign
from tests.factories import demo_responses, demo_version

ZH = "zh-Hans"


def html_lang(body: str) -> str:
    start = body.index('<html lang="') + len('<html lang="')
    return body[start : body.index('"', start)]


@pytest.fixture
def assignment(cast) -> Assignment:
    """One response of a blind-test campaign reserved for the expert."""
    demo_version()
    demo_responses()
    campaign = create_campaign(
        name="Blind test North",
        dataset_name="demo",
        model_names=["demo-model-aurora", "demo-model-borealis", "demo-model-cirrus"],
        sample_fraction=1.0,
        overlap=3,
        expert_usernames=[e.username for e in cast.experts],
        requires_qualification=False,
        rationale_min_chars=10,
    ).campaign
    response = CampaignResponse.objects.filter(campaign=campaign, item__question_id="dm0001").order_by("order_key").first()
    return Assignment.objects.create(campaign_response=response, expert=cast.expert, expires_at=timezone.now() + timedelta(hours=2))


@pytest.mark.django_db
def test_english_is_the_default_without_an_accept_language_header(client):
    response = client.get(reverse("login"))
    body = response.content.decode()
    assert html_lang(body) == "en" and response["Content-Language"] == "en"
    assert "<h1>Log in</h1>" in body and "登录" not in body


@pytest.mark.django_db
@pytest.mark.parametrize("header", ["zh-Hans", "zh-CN,zh;q=0.9,en;q=0.8", "zh"])
def test_the_browser_language_decides_before_a_choice(client, header):
    body = client.get(reverse("login"), HTTP_ACCEPT_LANGUAGE=header).content.decode()
    assert html_lang(body) == "zh-hans"
    assert "<h1>登录</h1>" in body and "用户名" in body and "密码" in body


@pytest.mark.django_db
def test_an_english_browser_gets_english(client):
    body = client.get(reverse("login"), HTTP_ACCEPT_LANGUAGE="en-GB,en;q=0.9").content.decode()
    assert html_lang(body) == "en" and "<h1>Log in</h1>" in body


def test_a_signed_in_users_stored_choice_wins_over_the_browser(cast, client_for):
    cast.expert.language = "zh-hans"
    cast.expert.save()
    body = client_for(cast.expert).get(reverse("annotation:home"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert html_lang(body) == "zh-hans" and "<h1>我的工作</h1>" in body


def test_a_stored_english_choice_wins_over_a_chinese_browser(cast, client_for):
    cast.expert.language = "en"
    cast.expert.save()
    body = client_for(cast.expert).get(reverse("annotation:home"), HTTP_ACCEPT_LANGUAGE=ZH).content.decode()
    assert html_lang(body) == "en" and "<h1>My work</h1>" in body


def test_a_blank_choice_follows_the_browser(cast, client_for):
    assert cast.expert.language == ""
    client = client_for(cast.expert)
    assert "<h1>我的工作</h1>" in client.get(reverse("annotation:home"), HTTP_ACCEPT_LANGUAGE=ZH).content.decode()
    assert "<h1>My work</h1>" in client.get(reverse("annotation:home"), HTTP_ACCEPT_LANGUAGE="en").content.decode()


def test_the_switcher_stores_the_choice_on_the_signed_in_user(cast, client_for):
    client = client_for(cast.expert)
    home = reverse("annotation:home")
    # The switcher posts no "next": Django's set_language returns to the page the browser names as Referer.
    response = client.post(
        reverse("set_language"), {"language": "zh-hans"}, HTTP_REFERER=f"http://testserver{home}", HTTP_ACCEPT="text/html"
    )
    assert response.status_code == 302 and response["Location"] == f"http://testserver{home}"
    cast.expert.refresh_from_db()
    assert cast.expert.language == "zh-hans"
    # On another device (no cookie), with an English browser, the stored choice still holds.
    client.cookies.clear()
    client.force_login(cast.expert)
    assert "<h1>我的工作</h1>" in client.get(home, HTTP_ACCEPT_LANGUAGE="en").content.decode()


def test_the_switcher_ignores_an_unknown_language(cast, client_for):
    client = client_for(cast.expert)
    response = client.post(reverse("set_language"), {"language": "xx", "next": "/"})
    assert response.status_code == 302
    cast.expert.refresh_from_db()
    assert cast.expert.language == ""


@pytest.mark.django_db
def test_the_switcher_sets_the_cookie_for_a_visitor_who_is_not_signed_in(client):
    response = client.post(reverse("set_language"), {"language": "zh-hans", "next": reverse("login")})
    assert response.status_code == 302 and response.cookies["django_language"].value == "zh-hans"
    assert "<h1>登录</h1>" in client.get(reverse("login")).content.decode()


@pytest.mark.django_db
def test_the_switcher_accepts_only_post(client):
    assert client.get(reverse("set_language")).status_code == 405


def assert_has_switcher(body: str) -> None:
    assert f'<form class="language-switcher" method="post" action="{reverse("set_language")}">' in body
    assert 'name="language" value="zh-hans" lang="zh-hans"' in body and ">简体中文</button>" in body
    assert 'name="language" value="en" lang="en"' in body and ">English</button>" in body


@pytest.mark.django_db
def test_the_header_switcher_renders_on_the_login_page(client):
    body = client.get(reverse("login")).content.decode()
    assert_has_switcher(body)
    assert 'value="en" lang="en" class="link" aria-current="true"' in body


def test_the_header_switcher_renders_on_a_signed_in_page(cast, client_for):
    body = client_for(cast.expert).get(reverse("annotation:home"), HTTP_ACCEPT_LANGUAGE=ZH).content.decode()
    assert_has_switcher(body)
    assert 'value="zh-hans" lang="zh-hans" class="link" aria-current="true"' in body
    assert 'name="next"' not in body  # set_language returns to the Referer; the address is not echoed into the page


def test_the_experts_home_page_in_chinese(cast, client_for, assignment):
    body = client_for(cast.expert).get(reverse("annotation:home"), HTTP_ACCEPT_LANGUAGE=ZH).content.decode()
    assert "<h1>我的工作</h1>" in body and "已完成的工作" in body and "退出登录" in body


def test_the_judging_page_in_chinese(cast, client_for, assignment):
    url = reverse("annotation:judge", args=[assignment.public_id])
    body = client_for(cast.expert).get(url, HTTP_ACCEPT_LANGUAGE=ZH).content.decode()
    assert "评判回复" in body and "评分标准" in body and "待评回复" in body
    assert "命中" in body and "未命中" in body and "理由" in body


@pytest.mark.django_db
def test_an_api_error_follows_accept_language(client):
    url = reverse("api-token-list")
    chinese = client.get(url, HTTP_ACCEPT_LANGUAGE=ZH)
    assert chinese["Content-Language"] == "zh-hans"
    assert chinese.json()["detail"] == "身份认证信息未提供。"
    english = client.get(url)
    assert english.json()["detail"] == "Authentication credentials were not provided."
