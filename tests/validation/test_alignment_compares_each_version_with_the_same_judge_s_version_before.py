"""The alignment page's change is from the version before *of the same judge*: a template revision is compared with
the judge's previous revision, on the units both judged, never with another judge's run made in between (which may
have judged a handful of units). A version with no unit of the blind test is left out, and is never the version
before. Any two versions can be compared, by the page and the API alike (one read, `dataset_alignment`)."""

import contextlib
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from heartbench_core.judging.services.endpoints import add_template_revision, save_endpoint
from heartbench_core.lib.agreement_report import agreement_change
from tests.core.english_ui_text import english_on_page
from tests.core.test_every_page_reads_in_chinese import stored_strings
from tests.fake_openai import FakeChatServer, Reply, alternating, criteria_count, platform_answer
from tests.validation.builders import MODELS, blind_test
from tests.validation.test_alignment_across_judge_versions import _judge_like_the_demo_judge
from validation.alignment import dataset_alignment, judge_versions
from validation.selectors import load_campaign_arrays

pytestmark = pytest.mark.django_db

R1, R2 = "fake-judge/heartbench-zh-r1@v1", "fake-judge/heartbench-zh-r2@v1"
OTHER, EMPTY = "other-judge/heartbench-zh-r1@v1", "empty-judge/heartbench-zh-r1@v1"
URL, API = "/validation/datasets/demo/alignment/", "/api/v1/validation/datasets/demo/alignment/"


def _judge(endpoint: str, model: str, *extra: str) -> None:
    with contextlib.suppress(CommandError):  # its failed questions stay failed
        call_command("judge", "--dataset", "demo", "--model", model, "--endpoint", endpoint, *extra, stdout=StringIO())


@pytest.fixture
def interleaved(cast):
    """The imported demo judge; fake-judge r1 (alternating: poor); then another judge on one question of one model,
    and a judge whose every answer failed (no unit); then fake-judge r2 (following the demo judge: better)."""
    campaign = blind_test(cast)
    with FakeChatServer(lambda body, attempt: Reply(platform_answer(alternating(criteria_count(body))))) as server:
        for name, model in (("judge-a", "fake-judge"), ("judge-b", "other-judge"), ("judge-c", "empty-judge")):
            save_endpoint(name=name, base_url=server.base_url, model=model, backoff_seconds=0.01, max_retries=0)
        for model in MODELS:
            _judge("judge-a", model)
        server.behaviour = _judge_like_the_demo_judge()
        _judge("judge-b", MODELS[0], "--questions", "dm0001")
        server.behaviour = lambda body, attempt: Reply("无法判断")
        _judge("judge-c", MODELS[0])
        add_template_revision(name="heartbench-zh", system="", user="$dialogue\n$response\n$criteria\n共 $count 项", change_note="terser")
        server.behaviour = _judge_like_the_demo_judge()
        for model in MODELS:
            _judge("judge-a", model)
    return campaign


def test_each_version_is_compared_with_the_same_judge_s_version_before_on_the_units_both_judged(interleaved):
    [section] = dataset_alignment(interleaved.version.dataset, resamples=200).campaigns
    rows = {row.version.key: row for row in section.rows}
    assert list(rows) == ["demo-judge/default@v1", R1, OTHER, R2]
    assert rows[R2].previous == R1  # not the other judge's run made just before it
    assert rows[R2].change.difference.n == rows[R2].alignment.pairs == rows[R1].alignment.pairs
    assert rows[R2].change.difference.value > 0 and rows[R2].change.ci95.low > 0
    # Each judge's first version has nothing of its own to be compared with.
    assert all(rows[key].change is None and rows[key].previous is None for key in ("demo-judge/default@v1", R1, OTHER))
    assert rows[OTHER].alignment.pairs < rows[R1].alignment.pairs / 10


def test_a_version_with_no_unit_of_the_blind_test_is_left_out_and_named(interleaved, cast, client_for):
    [section] = dataset_alignment(interleaved.version.dataset, resamples=200).campaigns
    assert EMPTY in [v.key for v in judge_versions(interleaved)]
    assert EMPTY not in [row.version.key for row in section.rows] and section.left_out_keys == [EMPTY]
    client = client_for(cast.admin)
    assert client.get(API).json()["campaigns"][0]["left_out"] == [EMPTY]
    page = client.get(URL).content.decode()
    assert "Left out: 1 judge version with no unit of this blind test" in page and EMPTY in page


def test_any_two_versions_are_compared_alike_by_the_page_and_the_api(interleaved, cast, client_for):
    data = {key: load_campaign_arrays(interleaved, judge_runs=list(v.runs)) for v in judge_versions(interleaved) if (key := v.key)}
    expected = agreement_change(data[OTHER], data[R1])
    [section] = dataset_alignment(interleaved.version.dataset, before=OTHER, after=R1).campaigns
    assert (section.comparison.before.key, section.comparison.after.key) == (OTHER, R1)
    assert section.comparison.change == expected and expected.difference.n == section.rows[2].alignment.pairs

    client = client_for(cast.admin)
    body = client.get(API, {"before": OTHER, "after": R1}).json()["campaigns"][0]["comparison"]
    assert (body["before"], body["after"]) == (OTHER, R1)
    assert body["change"]["difference"] == {"value": expected.difference.value, "n": expected.difference.n, "reason": None}
    assert client.get(API).json()["campaigns"][0]["comparison"] is None
    page = client.get(URL, {"before": OTHER, "after": R1})
    text = page.content.decode()
    assert page.status_code == 200 and f'From <span translate="no">{OTHER}</span> to <span translate="no">{R1}</span>' in text
    assert f"on {expected.difference.n} units both judged" in text
    assert f'<option value="{OTHER}" selected translate="no">' in text and f'<option value="{R1}" selected translate="no">' in text


@pytest.mark.parametrize(
    ("query", "field", "message"),
    [
        ({"before": "nobody/nothing@v1", "after": R1}, "before", "No judge version nobody/nothing@v1 with units of blind test blind-1."),
        ({"before": R1, "after": EMPTY}, "after", f"No judge version {EMPTY} with units of blind test blind-1."),
        ({"before": R1}, "after", "Choose a judge version."),
        ({"before": R1, "after": R1}, "after", "Choose two different judge versions."),
    ],
)
def test_two_versions_that_cannot_be_compared_are_refused_naming_the_choice(interleaved, cast, client_for, query, field, message):
    client = client_for(cast.admin)
    answer = client.get(API, query)
    assert answer.status_code == 400 and answer.json()["errors"] == {field: [message]}
    page = client.get(URL, query)
    assert page.status_code == 400 and message in page.content.decode() and 'class="comparison"' not in page.content.decode()


def test_the_comparison_reads_in_chinese(interleaved, cast, client_for):
    from django.test import Client

    client = Client(HTTP_ACCEPT_LANGUAGE="zh-hans")
    client.force_login(cast.admin)
    for query in ({"before": OTHER, "after": R2}, {"before": R1, "after": R1}):
        body = client.get(URL, query).content.decode()
        assert 'lang="zh-hans"' in body and not english_on_page(body, stored_strings()), query
    assert "请选择两个不同的评审版本。" in client.get(URL, {"before": R1, "after": R1}).content.decode()
    errors = client.get(API, {"before": R1, "after": R1}).json()["errors"]
    assert errors == {"after": ["请选择两个不同的评审版本。"]}
