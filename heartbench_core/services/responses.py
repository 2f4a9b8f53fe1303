"""Model responses: import one model's answer file for a dataset version."""

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from django.core.exceptions import ValidationError
from django.db import transaction

from heartbench_core.jsonl import ErrorCollector
from heartbench_core.lib.jsonl import read_jsonl, source_name, type_name
from heartbench_core.models import Dataset, LanguageModel, ModelResponse
from heartbench_core.names import validate_model_name
from heartbench_core.services.datasets import get_version


@dataclass(frozen=True)
class ResponseImportOutcome:
    model: LanguageModel
    created: int
    unchanged: int


def import_responses(
    *,
    source: str | Path | IO,
    dataset_name: str,
    model_name: str,
    version_label: str | None = None,
    name: str | None = None,
    progress: Callable[[int], None] | None = None,
) -> ResponseImportOutcome:
    """Import `{"question_id", "response", ...}` lines for one model; atomic, idempotent."""
    model_name = (model_name or "").strip()
    if not model_name:
        raise ValidationError({"model": "a model name is required"})
    if not LanguageModel.objects.filter(name=model_name).exists():
        validate_model_name(model_name)
    version = get_version(dataset_name, version_label)
    file_name = name or source_name(source)
    errors = ErrorCollector(file_name)
    known = set(version.items.values_list("question_id", flat=True))
    existing = {
        q: text
        for q, text in ModelResponse.objects.filter(
            dataset=version.dataset, model__name=model_name
        ).values_list("question_id", "text")
    }
    rows: list[tuple[str, str, dict]] = []
    seen: dict[str, int] = {}
    unchanged = 0
    for line, record in read_jsonl(source, errors, progress=progress):
        qid = record.get("question_id")
        text = record.get("response")
        bad = False
        if "question_id" not in record:
            errors.add(line, "question_id", "missing key")
            bad = True
        elif not isinstance(qid, str):
            errors.add(line, "question_id", f"must be a string, found {type_name(qid)}")
            bad = True
        elif qid not in known:
            errors.add(line, "question_id", f"unknown question_id {qid!r} in {version}")
            bad = True
        elif qid in seen:
            errors.add(line, "question_id", f"duplicate question_id {qid!r} (first on line {seen[qid]})")
            bad = True
        if "response" not in record:
            errors.add(line, "response", "missing key")
            bad = True
        elif not isinstance(text, str):
            errors.add(line, "response", f"must be a string, found {type_name(text)}")
            bad = True
        elif not text.strip():
            errors.add(line, "response", "empty response")
            bad = True
        if bad:
            continue
        seen[qid] = line
        if qid in existing:
            if existing[qid] != text:
                errors.add(
                    line,
                    "response",
                    f"model {model_name!r} already has a different response to {qid!r}; "
                    "responses are immutable once imported (judgments refer to them)",
                )
            else:
                unchanged += 1
            continue
        rows.append((qid, text, {k: v for k, v in record.items() if k not in ("question_id", "response")}))
    if not rows and not unchanged and not errors:
        errors.add(None, None, "the file holds no responses")
    errors.raise_if_any()
    with transaction.atomic():
        # Serialise concurrent imports into one dataset (as import_heartbench does): the second
        # waits, then finds what the first stored and counts it as unchanged instead of colliding.
        Dataset.objects.select_for_update().filter(pk=version.dataset_id).first()
        model, _ = LanguageModel.objects.get_or_create(name=model_name)
        stored = dict(
            ModelResponse.objects.filter(dataset=version.dataset, model=model, question_id__in=[r[0] for r in rows]).values_list(
                "question_id", "text"
            )
        )
        late = ErrorCollector(file_name)
        for qid, text, _ in rows:
            if qid in stored and stored[qid] != text:
                late.add(seen[qid], "response", f"model {model_name!r} already has a different response to {qid!r}; responses are immutable once imported (judgments refer to them)")
        late.raise_if_any()
        unchanged += len(stored)
        rows = [r for r in rows if r[0] not in stored]
        ModelResponse.objects.bulk_create(
            [
                ModelResponse(
                    dataset=version.dataset,
                    question_id=qid,
                    model=model,
                    text=text,
                    metadata=metadata,
                    imported_for=version,
                )
                for qid, text, metadata in rows
            ],
            batch_size=1000,
        )
    return ResponseImportOutcome(model=model, created=len(rows), unchanged=unchanged)
