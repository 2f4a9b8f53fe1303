"""What a page shows from stored data reads in the reader's language: changes as sentences, durations, times, roles, alerts.

Each test reads a page in zh-Hans (and, where the two differ in form, in English) and asserts both on
what it says and on what must never show: a raw "field: a → b", "1 day, 0:00:00", "27 分钟 前",
a role's code, "paid" for nothing, English stored by the platform.
"""

from __future__ import annotations

import re
from datetime import timedelta
from decimal import Decimal

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone, translation

from annotation.models import AdminAlert, Assignment, CampaignResponse, DiscussionComment, ExpertProfile, PayDecision, QualityPolicy
from annotation.services.workspace import post_comment
from heartbench_core.change_sentences import change_sentences
from heartbench_core.durations import ago_text, duration_text
from heartbench_core.roles import Role
from rubrics import services as rubric_services
from rubrics.audit_text import AUDIT_VOCABULARY
from tests.annotation.manage.helpers import demo_campaign
from tests.annotation.workspace.conftest import judge_fully, workspace  # noqa: F401  (a fixture)
from tests.conftest import make_user
from tests.rubrics.conftest import criterion, edit, version  # noqa: F401  (fixtures)
from validation.policy_text import POLICY_VOCABULARY
from validation.services.release import change_release_policy

pytestmark = pytest.mark.django_db


def page(user, url, language="zh-hans", **params) -> str:
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    client.force_login(user)
    response = client.get(url, params)
    assert response.status_code == 200, (url, response.status_code)
    return response.content.decode()


# --- durations and relative times -------------------------------------------------------------


@pytest.mark.parametrize(
    "value, english, chinese",
    [
        (timedelta(days=1), "1 day", "1天"),
        (timedelta(hours=2), "2 hours", "2小时"),
        (timedelta(hours=2, minutes=30), "2 hours 30 minutes", "2小时30分钟"),
        (timedelta(days=3, hours=4, minutes=5), "3 days 4 hours", "3天4小时"),
        (timedelta(days=1, minutes=5), "1 day", "1天"),
        (90, "1 minute 30 seconds", "1分钟30秒"),
    ],
)
def test_a_duration_reads_as_people_write_it_in_both_languages(value, english, chinese):
    with translation.override("en"):
        assert duration_text(value) == english
    with translation.override("zh-hans"):
        assert duration_text(value) == chinese


def test_a_time_ago_has_no_space_before_its_chinese_suffix():
    now = timezone.now()
    with translation.override("zh-hans"):
        assert ago_text(now - timedelta(minutes=27, seconds=40), now) == "27分钟前"
        assert ago_text(now - timedelta(seconds=20), now) == "刚刚"
    with translation.override("en"):
        assert ago_text(now - timedelta(minutes=27), now) == "27 minutes ago"


def test_a_campaigns_durations_are_not_shown_as_python_timedeltas(cast):
    campaign = demo_campaign(cast)
    campaign.reservation_timeout = timedelta(days=1)
    campaign.save(update_fields=["reservation_timeout"])
    body = page(cast.admin, reverse("annotation:campaign", args=[campaign.pk]))
    assert "1天" in body
    assert "0:00:00" not in body and "day," not in body
    assert "1 day" in page(cast.admin, reverse("annotation:campaign", args=[campaign.pk]), language="en")


def test_an_alert_still_true_and_a_saved_draft_say_how_long_ago_without_a_stray_space(cast, workspace):  # noqa: F811
    AdminAlert.objects.create(
        kind=AdminAlert.Kind.JUDGE_DISAGREES_ON_MODEL, message="m", last_seen_at=timezone.now() - timedelta(minutes=27, seconds=5)
    )
    body = page(cast.admin, reverse("annotation:alerts"))
    assert "27分钟前仍成立" in body and "分钟 前" not in body

    assignment = workspace.reserve(cast.expert, "dm0001")
    Assignment.objects.filter(pk=assignment.pk).update(draft_saved_at=timezone.now() - timedelta(minutes=27, seconds=5))
    body = page(cast.expert, reverse("annotation:home"))
    assert "草稿保存于27分钟前" in body and "分钟 前" not in body


# --- audit trails as sentences ---------------------------------------------------------------


def shown(html: str) -> str:
    """The page without the stored field names it keeps in data-field attributes (for tests and scripts, not read out)."""
    return re.sub(r' data-field="[^"]*"', "", html)


def changes_cell(body: str) -> str:
    start = body.index('<td class="rb-changes">')
    return body[start : body.index("</td>", start)]


def test_the_rubric_audit_log_says_each_change_as_a_sentence_in_the_readers_language(cast, criterion):  # noqa: F811
    revision = edit(cast, criterion, weight=2, reason="narrower")
    rubric_services.submit_revision(revision=revision, user=cast.author)
    cell = changes_cell(page(cast.author, "/rubrics/audit/", action="submitted"))
    assert "状态由“草稿”改为“已提交审核”。" in cell
    assert "status" not in shown(cell) and "submitted" not in shown(cell) and "→" not in cell
    english = changes_cell(page(cast.author, "/rubrics/audit/", language="en", action="submitted"))
    assert "Status changed from “Draft” to “Submitted for review”." in english

    cell = changes_cell(page(cast.author, "/rubrics/audit/", action="edited"))
    assert "权重由“+3”改为“+2”。" in cell and "修改类型：设为“" in cell
    assert "weight" not in shown(cell) and "wording" not in shown(cell)


def test_a_change_names_a_choice_by_its_label_a_boolean_as_yes_or_no_and_a_number_in_the_readers_format():
    with translation.override("zh-hans"):
        sentences = change_sentences(
            {"catastrophic": False, "status": "draft", "weight": 3},
            {"catastrophic": True, "status": "approved", "weight": 3, "lineage": {"retired": True}},
            AUDIT_VOCABULARY,
        )
        assert [s.text for s in sentences] == ["灾难性评分项由“否”改为“是”。", "状态由“草稿”改为“已批准”。", "已停用：设为“是”。"]
    with translation.override("en"):
        (sentence,) = change_sentences({"threshold": 0.75}, {"threshold": 0.8}, POLICY_VOCABULARY)
        assert sentence.text == "Threshold changed from “0.75” to “0.8”."


def test_a_reason_the_platform_wrote_in_the_audit_log_reads_in_chinese(cast, criterion):  # noqa: F811
    first = edit(cast, criterion, weight=2, reason="first try")
    edit(cast, criterion, weight=1, reason="second try", base_revision=first.number)
    body = page(cast.author, "/rubrics/audit/", action="superseded")
    assert f"被修订版 {first.number + 1} 取代" in body
    assert "superseded by revision" not in body


def test_the_release_policy_history_says_each_change_as_a_sentence(cast, version):  # noqa: F811
    dataset = version.dataset
    change_release_policy(dataset=dataset, admin=cast.admin, reason="stricter", threshold=0.8, must_clear="lower_bound")
    change_release_policy(dataset=dataset, admin=cast.admin, reason="more pairs", min_pairs_per_dimension=40)
    body = page(cast.admin, reverse("validation:release-policy", args=[dataset.name]))
    history = shown(body[body.index('id="policy-history"') :])
    assert "阈值由“0.75”改为“0.8”。" in history
    assert "须达到阈值的指标由" in history and "lower_bound" not in history
    assert "每个维度最少比较配对数由“30”改为“40”。" in history
    for raw in ("threshold:", "min_pairs_per_dimension", "must_clear", "→"):
        assert raw not in history
    english = page(cast.admin, reverse("validation:release-policy", args=[dataset.name]), language="en")
    assert "Threshold changed from “0.75” to “0.8”." in english


def test_a_bad_release_policy_value_is_named_by_its_label(cast, version):  # noqa: F811
    client = Client(HTTP_ACCEPT_LANGUAGE="zh-hans")
    client.force_login(cast.admin)
    body = client.post(
        reverse("validation:release-policy", args=[version.dataset.name]), {"threshold": "lots", "reason": "why not"}
    ).content.decode()
    assert "阈值: " in body and "threshold: " not in body


# --- roles, pay, alerts ------------------------------------------------------------------------------


def test_the_home_page_names_roles_by_their_labels(cast):
    user = make_user("two_hats", Role.RUBRIC_AUTHOR, Role.SENIOR_REVIEWER)
    body = page(user, "/")
    assert "评分标准作者" in body and "rubric_author" not in body and "senior_reviewer" not in body


def test_nothing_reads_as_paid_when_no_money_is_owed(cast):
    campaign = demo_campaign(cast, piece_rate=Decimal("0"))
    policy = QualityPolicy.current()
    policy.paused_work_pay = "review"
    policy.save()
    response = CampaignResponse.objects.filter(campaign=campaign).first()
    Assignment.objects.create(
        campaign_response=response, expert=cast.expert, status="submitted", submitted_at=timezone.now(), submitted_while_paused=True
    )
    PayDecision.objects.create(campaign=campaign, expert=cast.expert, pay=True, decided_by=cast.admin)
    body = page(cast.admin, reverse("annotation:campaign_payments_page", args=[campaign.pk]))
    table = body[body.index('id="payments"') : body.index("</table>", body.index('id="payments"'))]
    assert "无应付款" in table
    assert ">支付<" not in table and "0.00" not in table.split("<tfoot>")[0]
    assert "无应付款" in page(cast.admin, reverse("annotation:campaign", args=[campaign.pk]))


def test_the_admins_first_screen_writes_the_automatic_pause_in_chinese(cast):
    reason = "Paused automatically: accuracy on the last 10 quality checks was 40% (12 of 30 criteria), below 70%."  # the one form annotation.services.quality stores
    ExpertProfile.objects.update_or_create(
        user=cast.expert, defaults={"availability": ExpertProfile.Availability.PAUSED, "availability_reason": reason}
    )
    AdminAlert.objects.create(
        kind=AdminAlert.Kind.GOLD_ACCURACY,
        expert=cast.expert,
        message=f"{cast.expert.username} was paused: accuracy on the last 10 quality checks was 40% (12 of 30 criteria), below 70%.",
    )
    body = page(cast.admin, reverse("annotation:needs_action"))
    assert "已自动暂停：最近 10 次质量检查的准确率为 40%（30 个评分项中 12 个一致），低于 70%。" in body
    assert f"{cast.expert.username} 已被暂停：最近 10 次质量检查" in body
    assert "Paused automatically" not in body and "was paused" not in body
    campaigns = page(cast.admin, reverse("annotation:campaigns"))
    assert "已被暂停" in campaigns and "was paused" not in campaigns
    assert "已被暂停" in page(cast.admin, reverse("annotation:expert", args=[cast.expert.username]))


def test_a_failed_calibration_alert_reads_in_chinese_from_its_figures(cast):
    AdminAlert.objects.create(
        kind=AdminAlert.Kind.CALIBRATION_FAILED,
        expert=cast.expert,
        message="English stored with the alert",
        details={
            "username": cast.expert.username,
            "campaign": "Calibration A",
            "value": 0.5,
            "agreed": 10,
            "compared": 20,
            "threshold": 0.8,
            "attempt": 1,
            "max_attempts": 3,
        },
    )
    body = page(cast.admin, reverse("annotation:needs_action"))
    assert "在校准任务 Calibration A 中得分 50%" in body and "English stored with the alert" not in body


# --- the discussion, the correction form, the adjudication queue ---------------------------------


def test_the_discussion_calls_the_reader_you_in_chinese_and_names_the_others_as_experts(cast, workspace):  # noqa: F811
    mine, theirs, _ = [judge_fully(workspace.reserve(e, "dm0001", "demo-model-aurora"), hit=(i != 1)) for i, e in enumerate(cast.experts)]
    post_comment(assignment=mine, expert=cast.experts[0], body="我的看法")
    post_comment(assignment=theirs, expert=cast.experts[1], body="另一种看法")
    assert DiscussionComment.objects.count() == 2
    body = page(cast.experts[0], reverse("annotation:discussion", args=[mine.public_id]))
    assert "<strong>您</strong>" in body and "<strong>专家 2</strong>" in body
    assert "<strong>You</strong>" not in body and "Expert 2" not in body


def test_the_correction_forms_help_reads_in_chinese(cast, workspace):  # noqa: F811
    submitted = judge_fully(workspace.reserve(cast.expert, "dm0001", "demo-model-aurora"))
    body = page(cast.expert, reverse("annotation:judge_correction", args=[submitted.public_id]))
    assert "说明已提交的判断为何需要更改" in body and "Why the submitted judgments should change" not in body


def test_the_adjudication_queue_opens_a_decided_unit_with_a_verb_not_undecided(cast, workspace):  # noqa: F811
    for e in cast.experts:  # unanimous: the unit has a majority, so the queue offers to open it, not to decide it
        judge_fully(workspace.reserve(e, "dm0001", "demo-model-aurora"))
    body = page(cast.reviewer, reverse("validation:queue", args=[workspace.campaign.pk]), show="all")
    assert ">查看</a>" in body and "未决" not in body


# --- the icon ------------------------------------------------------------------------------------------


def test_the_site_has_an_icon_at_favicon_ico_and_linked_from_every_page(cast):
    client = Client()
    response = client.get("/favicon.ico", follow=True)
    assert response.status_code == 200
    assert response.redirect_chain and response.redirect_chain[-1][0].endswith("favicon.svg")
    assert b"<svg" in b"".join(response.streaming_content) if response.streaming else b"<svg" in response.content
    assert 'rel="icon"' in page(cast.admin, reverse("annotation:needs_action"))
