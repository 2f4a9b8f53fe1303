"""Which library texts quote a response of an open campaign (docs/knowledge.md, "What no library text says").

A text **quotes a response of an open campaign** when it shares a run of `RUN` (20) characters
— compatibility form, lower case, whitespace aside (`heartbench_core.lib.quotes`) — with the text
of a model response sampled into a campaign that is not closed (draft, active or paused; every
kind, hidden gold checks included). An expert rating that response would recognise it in the
library and read a reviewer's decision on their own work.

The check reads an index instead of every response: the fingerprints of the responses of open
campaigns (`ResponseFingerprint`). A response is fingerprinted the first time a check finds it in
an open campaign without any (`FingerprintedResponse` marks it; a response's text never
changes), in the checking transaction, so whatever sampled it, the index follows; creating a
campaign also asks a background job to do it at once (`fingerprint_soon`), so that no writer
waits for a large campaign's responses. A check is then
two or three queries: the responses still to fingerprint (none, mostly), the responses holding one
of the text's fingerprints (found by value in the index), and, if there are any, the texts of
those still in an open campaign, which `shared_run` confirms.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from django.db import connection, transaction
from django.db.models import Exists, OuterRef, QuerySet

from annotation.knowledge.models import FingerprintedResponse, ResponseFingerprint
from annotation.models import Campaign, CampaignResponse
from heartbench_core.bulk import copy_lines
from heartbench_core.lib.quotes import fingerprints, shared_run
from heartbench_core.models import ModelResponse

FINGERPRINT_TASK = "annotation.knowledge.services.quotes.fingerprint_open_responses"
# Parameters of one IN list (SQLite's limit is 32,766; a long answer has a few thousand fingerprints).
_BATCH = 2_000


def _open_response_ids() -> QuerySet[CampaignResponse, Any]:
    """The responses sampled into a campaign that is not closed (the one definition the check uses)."""
    return CampaignResponse.objects.exclude(campaign__status=Campaign.Status.CLOSED).values("response_id")


def fingerprint_open_responses() -> int:
    """Fingerprint the responses of open campaigns that have none yet; how many were added."""
    missing = list(
        ModelResponse.objects.filter(pk__in=_open_response_ids())
        .filter(~Exists(FingerprintedResponse.objects.filter(response_id=OuterRef("pk"))))
        .order_by()
        .values_list("pk", "text")
    )
    if not missing:
        return 0
    with transaction.atomic():
        FingerprintedResponse.objects.bulk_create([FingerprintedResponse(response_id=pk) for pk, _ in missing], ignore_conflicts=True)
        _insert((pk, value) for pk, text in missing for value in fingerprints(text))
    return len(missing)


def fingerprint_soon() -> None:
    """Fingerprint the open campaigns' responses in a background job once this transaction commits (so no writer waits for it).

    Only a head start: a check fingerprints what it finds missing, so a job lost or never run changes nothing.
    """

    def send() -> None:
        from django_q.tasks import async_task

        async_task(FINGERPRINT_TASK, task_name="fingerprint-open-responses")

    transaction.on_commit(send, robust=True)  # a broker that is down must not fail the write that asked


def _insert(rows: Iterable[tuple[int, int]]) -> None:
    """Store fingerprints: COPY on PostgreSQL, one prepared INSERT elsewhere (a model instance a row would cost 20 µs each)."""
    if connection.vendor == "postgresql":
        copy_lines(ResponseFingerprint, ["response_id", "value"], (f"{pk}\t{value}\n" for pk, value in rows))
        return
    table = connection.ops.quote_name(ResponseFingerprint._meta.db_table)
    with connection.cursor() as cursor:
        cursor.executemany(f"INSERT INTO {table} (response_id, value) VALUES (%s, %s)", list(rows))


def _candidates(values: set[int], exempt: int | None) -> list[str]:
    """The texts of the responses of open campaigns holding one of these fingerprints (but `exempt`).

    First the responses holding them, by value alone (an index lookup, whatever the planner
    knows of the tables), then the texts of those in an open campaign: no query when none does.
    """
    holding: set[int] = set()
    ordered = sorted(values)
    for start in range(0, len(ordered), _BATCH):
        batch = ResponseFingerprint.objects.filter(value__in=ordered[start : start + _BATCH]).order_by()
        holding.update(batch.values_list("response_id", flat=True).distinct())
    holding.discard(exempt or 0)
    texts: list[str] = []
    ordered = sorted(holding)
    for start in range(0, len(ordered), _BATCH):
        rows = ModelResponse.objects.filter(pk__in=ordered[start : start + _BATCH]).filter(pk__in=_open_response_ids()).order_by()
        texts.extend(rows.values_list("text", flat=True))
    return texts


def open_campaign_quotes(texts: Mapping[str, str], *, exempt_response_id: int | None = None) -> dict[str, str]:
    """For each named text that quotes a response of an open campaign: the first run it shares (in quote form).

    `exempt_response_id`: a response the texts may quote (a case made from it, which the
    visibility rules keep from whoever rates it).
    """
    fingerprint_open_responses()
    by_field = {name: fingerprints(text) for name, text in texts.items()}
    sources = _candidates(set().union(*by_field.values()), exempt_response_id) if by_field else []
    quoted: dict[str, str] = {}
    for name, text in texts.items():
        run = next((found for source in sources if (found := shared_run(text, source)) is not None), None) if by_field[name] else None
        if run is not None:
            quoted[name] = run
    return quoted
