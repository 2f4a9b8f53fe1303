"""Fixtures of the runner tests: a fake OpenAI-compatible server, a judge endpoint on it, the demo data."""

import pytest

from heartbench_core.judging.services.endpoints import save_endpoint
from tests.factories import demo_responses, demo_version
from tests.fake_openai import FakeChatServer, judge


@pytest.fixture
def fake():
    """A fake chat server on 127.0.0.1 (an ephemeral port), answering as a well-behaved judge unless a test says otherwise."""
    with FakeChatServer(judge()) as server:
        yield server


@pytest.fixture
def demo(db):
    """The demo dataset with the responses of the three fictional models."""
    version = demo_version()
    demo_responses()
    return version


@pytest.fixture
def judge_endpoint(fake, db):
    """An endpoint on the fake server: quick retries, a short timeout."""
    return save_endpoint(
        name="judge-a",
        base_url=fake.base_url,
        model="fake-judge-1",
        concurrency=4,
        max_retries=2,
        backoff_seconds=0.01,
        timeout_seconds=2.0,
        price_input="2.5",
        price_output="10",
    ).endpoint
