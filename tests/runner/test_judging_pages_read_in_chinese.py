"""The judging pages and the alignment page, full of data (a run with failed questions, template revisions, judge
versions with their changes), read in zh-Hans without English interface text."""

import contextlib

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client

from heartbench_core.judging.models import EndpointRun
from heartbench_core.judging.services.endpoints import add_template_revision, save_endpoint
from tests.core.english_ui_text import english_on_page
from tests.core.test_every_page_reads_in_chinese import stored_strings
from tests.fake_openai import FakeChatServer
from tests.runner import scenarios as s
from tests.validation.builders import MODELS, blind_test

pytestmark = pytest.mark.django_db


def test_every_judging_page_and_the_alignment_read_in_chinese(cast):
    campaign = blind_test(cast)
    version = campaign.version
    with FakeChatServer() as server:
        server.behaviour = s.by_question(version, {"dm0002": [s.wrong_length], "dm0003": [s.server_error]})
        save_endpoint(
            name="judge-a",
            base_url=server.base_url,
            model="fake-judge",
            backoff_seconds=0.01,
            max_retries=1,
            price_input="1",
            price_output="2",
        )
        for model in MODELS:
            with contextlib.suppress(CommandError):  # the failed questions stay on the run's page
                call_command("judge", "--dataset", "demo", "--model", model, "--endpoint", "judge-a")
        add_template_revision(name="heartbench-zh", system="", user="$dialogue $response $criteria 共 $count 项", change_note="更短")
    run = EndpointRun.objects.order_by("pk").first()
    client = Client(HTTP_ACCEPT_LANGUAGE="zh-hans")
    client.force_login(cast.admin)
    urls = [
        "/judging/",
        "/judging/endpoints/judge-a/",
        "/judging/endpoints/new/",
        "/judging/templates/heartbench-zh/",
        "/judging/templates/heartbench-zh/r2/",
        "/judging/templates/new/",
        "/judging/runs/new/",
        f"/judging/runs/{run.pk}/",
        "/validation/datasets/demo/alignment/",
    ]
    data = stored_strings()
    found = {}
    for url in urls:
        response = client.get(url)
        assert response.status_code == 200, url
        body = response.content.decode()
        assert 'lang="zh-hans"' in body
        if runs := english_on_page(body, data):
            found[url] = runs
    assert not found, found
    page = client.get(f"/judging/runs/{run.pk}/").content.decode()
    assert "失败原因" in page and "回答对" in page
