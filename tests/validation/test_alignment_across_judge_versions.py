"""The alignment page: every judge version of a dataset (imported, or made on the platform with an endpoint and a
template revision) against the blind test's golden standard, with the agreement report's own figures, in the order
the versions were made, and the paired change from the one before; closed to an expert of an open campaign."""

import pytest
from django.core.management import call_command

from heartbench_core.judging.services.endpoints import add_template_revision, save_endpoint
from heartbench_core.models import ModelResponse
from tests.conftest import make_user
from tests.fake_openai import FakeChatServer, Reply, alternating, criteria_count, platform_answer, user_text
from tests.validation.builders import MODELS, blind_test, judge_vectors
from validation.alignment import dataset_alignment
from validation.services.agreement_reports import create_agreement_report

pytestmark = pytest.mark.django_db


def _judge_like_the_demo_judge():
    """A fake judge answering each response with the demo judge's vector (which the experts follow, with flips)."""
    vectors = judge_vectors()
    responses = ModelResponse.objects.select_related("model")
    by_text = {r.text: vectors[(r.question_id, r.model.name)] for r in responses if (r.question_id, r.model.name) in vectors}

    def behave(body, attempt):
        text = user_text(body)
        hits = next((v for t, v in by_text.items() if t in text), None)
        return Reply(platform_answer(hits if hits is not None else alternating(criteria_count(body))))

    return behave


@pytest.fixture
def versions(cast):
    """A blind test with the imported demo judge, then a poor platform judge (r1), then a better one (template r2)."""
    campaign = blind_test(cast)
    with FakeChatServer(lambda body, attempt: Reply(platform_answer(alternating(criteria_count(body))))) as server:
        save_endpoint(name="judge-a", base_url=server.base_url, model="fake-judge", backoff_seconds=0.01)
        for model in MODELS:
            call_command("judge", "--dataset", "demo", "--model", model, "--endpoint", "judge-a")
        add_template_revision(name="heartbench-zh", system="", user="$dialogue\n$response\n$criteria\n共 $count 项", change_note="terser")
        server.behaviour = _judge_like_the_demo_judge()
        for model in MODELS:
            call_command("judge", "--dataset", "demo", "--model", model, "--endpoint", "judge-a")
    return campaign


def test_every_judge_version_is_compared_in_order_with_the_report_s_own_figures(versions):
    page = dataset_alignment(versions.version.dataset, resamples=200)
    [section] = page.campaigns
    keys = [row.version.key for row in section.rows]
    assert keys == ["demo-judge/default@v1", "fake-judge/heartbench-zh-r1@v1", "fake-judge/heartbench-zh-r2@v1"]
    imported, r1, r2 = section.rows
    assert imported.version.imported and (r1.version.endpoint, r1.version.template) == ("judge-a", "heartbench-zh r1")
    assert r2.version.template == "heartbench-zh r2" and r2.runs == 3
    for row, (judge, run) in zip(
        section.rows, [("demo-judge", "default"), ("fake-judge", "heartbench-zh-r1"), ("fake-judge", "heartbench-zh-r2")]
    ):
        report = create_agreement_report(campaign=versions, judge=judge, run=run, resamples=200).typed_result
        assert row.alignment.item_agreement == report.item_agreement
        assert (row.alignment.cohen_kappa, row.alignment.gwet_ac1) == (report.cohen_kappa, report.gwet_ac1)
        assert row.alignment.by_ability == report.by_ability
    # The platform judge that follows the demo judge agrees as well as it; the alternating one less.
    assert r2.alignment.item_agreement.rate == imported.alignment.item_agreement.rate
    assert r1.alignment.item_agreement.rate.value < r2.alignment.item_agreement.rate.value
    assert r1.change is None and r2.change.difference.value > 0  # r1 is fake-judge's first version: nothing of its own before
    assert r2.previous == "fake-judge/heartbench-zh-r1@v1" and r2.change.ci95.low > 0  # better, beyond its interval
    assert r2.change.difference.n == r2.alignment.pairs


def test_the_page_and_the_api_show_them(versions, cast, client_for):
    client = client_for(cast.admin)
    page = client.get("/validation/datasets/demo/alignment/")
    text = page.content.decode()
    assert page.status_code == 200
    for shown in (
        "fake-judge/heartbench-zh-r2",
        "judge-a · heartbench-zh r2",
        "demo-judge/default",
        "better",
        "vc-chart",
        "Agreement by ability",
    ):
        assert shown in text, shown
    body = client.get("/api/v1/validation/datasets/demo/alignment/").json()
    rows = body["campaigns"][0]["rows"]
    assert [r["run"] for r in rows] == ["default", "heartbench-zh-r1", "heartbench-zh-r2"]
    assert rows[2]["template"] == "heartbench-zh r2" and rows[0]["endpoint"] is None
    assert rows[2]["change"]["difference"]["value"] > 0 and rows[0]["change"] is None and rows[1]["change"] is None
    assert rows[2]["previous"] == rows[1]["key"] == "fake-judge/heartbench-zh-r1@v1"
    assert rows[1]["alignment"]["item_agreement"]["ci95"]["resampled"]["unit"] == "item"
    assert client.get("/validation/datasets/nope/alignment/").status_code == 404


def test_an_expert_of_an_open_campaign_on_the_dataset_cannot_reach_it_whatever_their_roles(versions, cast, client_for):
    from annotation.services.campaigns import create_campaign
    from heartbench_core.roles import Role

    dual = make_user("dual_admin_expert", Role.ADMIN, Role.EXPERT)
    create_campaign(
        name="open",
        dataset_name="demo",
        model_names=[MODELS[0]],
        sample_fraction=1.0,
        overlap=1,
        expert_usernames=[dual.username],
        requires_qualification=False,
    )
    client = client_for(dual)
    for url in ("/validation/datasets/demo/alignment/", "/api/v1/validation/datasets/demo/alignment/"):
        response = client.get(url)
        assert response.status_code == 403 and "fake-judge" not in response.content.decode()
    assert client_for(cast.reviewer).get("/validation/datasets/demo/alignment/").status_code == 403


def test_a_dataset_without_a_blind_test_says_so(cast, client_for):
    from tests.factories import demo_version

    demo_version()
    page = client_for(cast.admin).get("/validation/datasets/demo/alignment/")
    assert page.status_code == 200 and "no golden standard" in page.content.decode()


def test_the_page_reads_in_a_bounded_number_of_queries(versions, cast, client_for, django_assert_max_num_queries):
    client = client_for(cast.admin)
    with django_assert_max_num_queries(60):  # 3 judge versions × (9 to load the campaign) + the page's own
        assert client.get("/validation/datasets/demo/alignment/").status_code == 200


def test_one_blind_test_at_a_time_the_newest_first_whatever_their_number(versions, cast, client_for):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    client = client_for(cast.admin)

    def shown(url):
        with CaptureQueriesContext(connection) as captured:
            body = client.get(url).json()
        return [c["campaign"] for c in body["campaigns"]], [t["name"] for t in body["blind_tests"]], len(captured)

    shown("/api/v1/validation/datasets/demo/alignment/")  # the judge runs' scores (for the calibrated scores) are stored once
    one, listed, queries = shown("/api/v1/validation/datasets/demo/alignment/")
    assert one == ["blind-1"] and listed == ["blind-1"]
    newer = blind_test(cast, campaign="blind-2", with_judge=False, seed=3)
    two, listed, more_queries = shown("/api/v1/validation/datasets/demo/alignment/")
    assert two == ["blind-2"] and listed == ["blind-2", "blind-1"]
    assert more_queries == queries  # the other blind test is listed, not computed
    assert shown(f"/api/v1/validation/datasets/demo/alignment/?campaign={versions.pk}")[0] == ["blind-1"]
    assert shown("/api/v1/validation/datasets/demo/alignment/?campaign=nonsense")[0] == ["blind-2"]
    page = client.get("/validation/datasets/demo/alignment/", {"campaign": versions.pk}).content.decode()
    assert f'id="campaign-{versions.pk}"' in page and f'id="campaign-{newer.pk}"' not in page
    assert f'<option value="{newer.pk}" translate="no">blind-2</option>' in page and "2 in all" in page
