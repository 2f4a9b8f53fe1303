"""An endpoint reaches public addresses only, unless the operator allows a host in ENDPOINT_ALLOWED_HOSTS (issue 27,
item 3): loopback, link-local (169.254.169.254), private and unique-local ranges, their IPv6 forms and credentials in
the URL are refused when it is saved and again at each request; the connection goes to the very address that was
checked; redirects are not followed; and every failure to connect reads the same, whatever answered."""

import socket
import threading
from contextlib import contextmanager

import pytest
from django.core.exceptions import ValidationError

from heartbench_core.judging import endpoint_policy
from heartbench_core.judging.models import Endpoint, RunQuestion
from heartbench_core.judging.run_display import describe_problem
from heartbench_core.judging.services.endpoints import save_endpoint
from heartbench_core.judging.services.llm import ChatClient, ChatError, EndpointConfig
from heartbench_core.judging.services.runs import Selection, execute_run, request_judge_run
from tests.fake_openai import Reply

pytestmark = pytest.mark.django_db

RULE = "endpoints may reach only public addresses, unless the operator allows the host in ENDPOINT_ALLOWED_HOSTS"
HI = [{"role": "user", "content": "hi"}]


def _ask(base_url, **config):
    return ChatClient(EndpointConfig(name="x", base_url=base_url, model="m", **config)).complete(HI)


@pytest.fixture
def resolver(monkeypatch):
    """Name → addresses, as the system's resolver would answer (every answer recorded)."""
    answers: dict[str, list[str]] = {}
    asked: list[str] = []

    def resolve(host, port):
        asked.append(host)
        found = answers.get(host)
        if not found:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return found.pop(0) if isinstance(found[0], list) else found

    monkeypatch.setattr(endpoint_policy, "resolve", resolve)
    return answers, asked


def test_loopback_is_refused_unless_the_operator_allows_it(fake, settings):
    settings.ENDPOINT_ALLOWED_HOSTS = []
    with pytest.raises(ValidationError) as refused:
        save_endpoint(name="judge-a", base_url=fake.base_url, model="m")
    assert refused.value.message_dict == {"base_url": [f"127.0.0.1 is not a public address (or cannot be resolved): {RULE}"]}
    settings.ENDPOINT_ALLOWED_HOSTS = ["127.0.0.0/8"]
    assert save_endpoint(name="judge-a", base_url=fake.base_url, model="m").created


@pytest.mark.parametrize(
    "url",
    [
        "http://169.254.169.254/latest/meta-data/",
        "http://10.0.0.1/v1",
        "http://172.16.5.4/v1",
        "http://192.168.1.1/v1",
        "http://100.64.0.1/v1",
        "http://0.0.0.0:8000/v1",
        "http://127.0.0.2:6379/v1",
        "http://localhost:5432/v1",
        "http://[::1]:8000/v1",
        "http://[::ffff:127.0.0.1]:8000/v1",
        "http://[::ffff:169.254.169.254]/v1",
        "http://[64:ff9b::a9fe:a9fe]/v1",
        "http://[2002:7f00:1::1]/v1",
        "http://[fd00::1]/v1",
        "http://[fe80::1]/v1",
        "http://224.0.0.1/v1",
    ],
)
def test_internal_addresses_are_refused_when_an_endpoint_is_saved(settings, url):
    settings.ENDPOINT_ALLOWED_HOSTS = []
    with pytest.raises(ValidationError) as refused:
        save_endpoint(name="judge-a", base_url=url, model="m")
    assert RULE in refused.value.message_dict["base_url"][0]


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("http://admin:hunter2@api.example.org/v1", "must not contain a user name or password"),
        ("http://token@api.example.org/v1", "must not contain a user name or password"),
        ("ftp://api.example.org/v1", "must be an http:// or https:// address"),
        ("file:///etc/passwd", "must be an http:// or https:// address"),
    ],
)
def test_credentials_and_other_schemes_are_refused(url, why):
    with pytest.raises(ValidationError, match=why):
        save_endpoint(name="judge-a", base_url=url, model="m")


def test_a_name_is_judged_by_every_address_it_resolves_to(resolver, settings):
    answers, _asked = resolver
    settings.ENDPOINT_ALLOWED_HOSTS = []
    answers.update({"api.example.org": ["93.184.215.14"], "sly.example.org": ["93.184.215.14", "10.0.0.7"]})
    assert save_endpoint(name="public", base_url="https://api.example.org/v1", model="m").created
    for url in ("https://sly.example.org/v1", "https://nowhere.example.org/v1"):  # an unresolvable name reads the same
        with pytest.raises(ValidationError) as refused:
            save_endpoint(name="internal", base_url=url, model="m")
        assert refused.value.message_dict["base_url"] == [f"{url.split('/')[2]} is not a public address (or cannot be resolved): {RULE}"]
    # A self-hosted model: the operator allows its name (or its network).
    answers["llm.internal"] = ["10.0.0.7"]
    settings.ENDPOINT_ALLOWED_HOSTS = ["llm.internal"]
    assert save_endpoint(name="self-hosted", base_url="http://llm.internal:8000/v1", model="m").created


def test_the_connection_goes_to_the_address_that_was_checked(fake, resolver):
    answers, asked = resolver
    # The first answer is checked and used; were the name resolved again, it would lead to the metadata service.
    answers["judge.example.test"] = [["127.0.0.1"], ["169.254.169.254"], ["169.254.169.254"]]
    reply = _ask(f"http://judge.example.test:{fake.port}/v1")
    assert reply.text and asked == ["judge.example.test"]
    assert fake.headers[0]["Host"] == f"judge.example.test:{fake.port}"  # the name still travels in the request


def test_a_name_that_now_resolves_inside_is_refused_at_the_request_and_nothing_is_sent(fake, resolver, settings):
    answers, _asked = resolver
    settings.ENDPOINT_ALLOWED_HOSTS = []
    answers["judge.example.test"] = ["93.184.215.14", "127.0.0.1"]
    with pytest.raises(ChatError) as refused:
        _ask(f"http://judge.example.test:{fake.port}/v1", max_retries=3)
    assert (refused.value.kind, refused.value.params, refused.value.requests) == (
        "address_not_allowed",
        {"host": "judge.example.test"},
        0,
    )
    assert fake.requests == []


def test_an_endpoint_saved_while_allowed_reaches_nothing_once_the_operator_withdraws_it(demo, fake, settings, cast, client_for):
    save_endpoint(name="judge-a", base_url=fake.base_url, model="fake-judge", max_retries=2, backoff_seconds=0.01)
    run = request_judge_run(
        dataset_name="demo",
        model_name="demo-model-aurora",
        endpoint_name="judge-a",
        selection=Selection(questions=("dm0001",)),
        hold_as="test",
    ).run
    settings.ENDPOINT_ALLOWED_HOSTS = []
    execute_run(run)
    q = RunQuestion.objects.get(run=run)
    assert fake.requests == [] and q.status == "failed" and q.requests == 0
    assert q.problem == {"code": "address_not_allowed", "message": "", "host": "127.0.0.1"}
    assert describe_problem(q.problem) == f"127.0.0.1 is not a public address (or cannot be resolved): {RULE}"
    client = client_for(cast.admin)
    assert RULE in client.get("/judging/").content.decode()
    assert client.get("/api/v1/endpoints/judge-a/").json()["refusals"] == [describe_problem(q.problem)]
    with pytest.raises(ValidationError, match="endpoint judge-a cannot be used"):
        request_judge_run(dataset_name="demo", model_name="demo-model-borealis", endpoint_name="judge-a")
    # A row written around the service (a restore) with credentials in its URL sends nothing either.
    Endpoint.objects.filter(name="judge-a").update(base_url=f"http://user:pw@127.0.0.1:{fake.port}/v1")
    settings.ENDPOINT_ALLOWED_HOSTS = ["127.0.0.1"]
    with pytest.raises(ChatError) as refused:
        _ask(Endpoint.objects.get().base_url)
    assert refused.value.kind == "url_credentials" and fake.requests == []


def test_a_redirect_is_not_followed(fake):
    def redirect(body, attempt):
        if attempt == 0:  # to the same server under another name: followed, it would be answered
            return Reply(status=307, headers={"Location": f"http://localhost:{fake.port}/v1/chat/completions"}, body="")
        return Reply("答案")

    fake.behaviour = redirect
    with pytest.raises(ChatError) as failed:
        _ask(fake.base_url, max_retries=2)
    assert (failed.value.kind, failed.value.status, failed.value.requests, len(fake.requests)) == ("http_error", 307, 1, 1)
    assert "not followed" in failed.value.message


def test_proxies_from_the_environment_are_not_used(fake, monkeypatch):
    for variable in ("HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.setenv(variable, "http://127.0.0.1:9")  # a proxy would reach what the check did not see
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    assert _ask(fake.base_url).text and len(fake.requests) == 1


@contextmanager
def _talking_server(banner: bytes):
    """A TCP server on 127.0.0.1 that answers every connection with the banner, then hangs up (a database, a cache…)."""
    listener = socket.create_server(("127.0.0.1", 0))

    def serve():
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            with conn:
                conn.settimeout(2)
                try:
                    conn.recv(65536)
                    conn.sendall(banner)
                except OSError:
                    pass

    threading.Thread(target=serve, daemon=True).start()
    try:
        yield listener.getsockname()[1]
    finally:
        listener.close()


def _closed_port() -> int:
    with socket.create_server(("127.0.0.1", 0)) as probe:
        return probe.getsockname()[1]


def test_every_failure_to_connect_reads_the_same_whatever_answered(caplog):
    errors = {}
    banners = {
        "redis": b"-ERR unknown command 'POST', with args beginning with: '/v1/chat/completions'\r\n",
        "postgresql": b"EFATAL\x00C08P01\x00Minvalid length of startup packet\x00\x00",
        "ssh": b"SSH-2.0-OpenSSH_9.6\r\n",
        "silent": b"",
    }
    for name, banner in banners.items():
        with _talking_server(banner) as port, pytest.raises(ChatError) as caught:
            _ask(f"http://127.0.0.1:{port}/v1", max_retries=0, timeout_seconds=3)
        errors[name] = caught.value
    with pytest.raises(ChatError) as caught:
        _ask(f"http://127.0.0.1:{_closed_port()}/v1", max_retries=0)
    errors["nothing"] = caught.value
    said = {name: (e.kind, e.message, describe_problem({"code": e.kind, "message": e.message})) for name, e in errors.items()}
    assert all(v == ("connection", "", "the endpoint cannot be reached") for v in said.values()), said
    assert "could not connect" in caplog.text  # the details are in the server's log
