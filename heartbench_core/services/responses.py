"""Model responses: import one model's answer file for a dataset version."""

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, NamedTuple

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext

from heartbench_core.jsonl import ErrorCollector, question_id_of, type_name
from heartbench_core.lib.jsonl import read_jsonl, source_name
from heartbench_core.models import Dataset, DatasetVersion, LanguageModel, ModelResponse
from heartbench_core.names import validate_model_name
from heartbench_core.services.datasets import get_version


@dataclass(frozen=True)
class ResponseImportOutcome:
    model: LanguageModel
    created: int
    unchanged: int


class _ResponseLine(NamedTuple):
    """One checked line holding a response the model does not have yet."""

    line: int
    question_id: str
    text: str
    metadata: dict  # the line's other keys


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
    model_name = _checked_model_name(model_name)
    version = get_version(dataset_name, version_label)
    file_name = name or source_name(source)
    errors = ErrorCollector(file_name)
    known = set(version.items.values_list("question_id", flat=True))
    stored = _stored_texts(version, model__name=model_name)
    new_lines, unchanged = _read_response_lines(
        source, errors, version=version, known=known, stored=stored, model_name=model_name, progress=progress
    )
    if not new_lines and not unchanged and not errors:
        errors.add(None, None, gettext("the file holds no responses"))
    errors.raise_if_any()
    with transaction.atomic():
        # Serialise concurrent imports into one dataset (as import_heartbench does): the second
        # waits, then finds what the first stored and counts it as unchanged instead of colliding.
        Dataset.objects.select_for_update().filter(pk=version.dataset_id).first()
        model, _ = LanguageModel.objects.get_or_create(name=model_name)
        new_lines, stored_meanwhile = _drop_stored_meanwhile(new_lines, version, model, model_name, ErrorCollector(file_name))
        _create_responses(version, model, new_lines)
    return ResponseImportOutcome(model=model, created=len(new_lines), unchanged=unchanged + stored_meanwhile)


def _checked_model_name(model_name: str) -> str:
    """The stripped model name; a model not yet in the database must have a valid new name."""
    model_name = (model_name or "").strip()
    if not model_name:
        raise ValidationError({"model": gettext("a model name is required")})
    if not LanguageModel.objects.filter(name=model_name).exists():
        validate_model_name(model_name)
    return model_name


def _stored_texts(version: DatasetVersion, **filters: object) -> dict[str, str]:
    """The text of the stored responses to the version's dataset that match `filters`, by question_id."""
    return dict(ModelResponse.objects.filter(dataset=version.dataset, **filters).values_list("question_id", "text"))


def _differs_from_stored(model_name: str, qid: str) -> str:
    """The error for a response that differs from the one stored."""
    return gettext(
        "model %(model)r already has a different response to %(question_id)r; responses are immutable once imported (judgments refer to them)"
    ) % {"model": model_name, "question_id": qid}


def _read_response_lines(
    source: str | Path | IO,
    errors: ErrorCollector,
    *,
    version: DatasetVersion,
    known: set[str],
    stored: dict[str, str],
    model_name: str,
    progress: Callable[[int], None] | None,
) -> tuple[list[_ResponseLine], int]:
    """Check every line; return the responses to create and how many lines repeat a stored response."""
    new_lines: list[_ResponseLine] = []
    first_line: dict[str, int] = {}  # question_id → the line that answered it
    unchanged = 0
    for line, record in read_jsonl(source, errors, progress=progress):
        qid = question_id_of(line, record, errors, known, first_line, version=version)
        if not _check_response_text(line, record, errors) or qid is None:
            continue
        text = record["response"]
        first_line[qid] = line
        if qid not in stored:
            metadata = {k: v for k, v in record.items() if k not in ("question_id", "response")}
            new_lines.append(_ResponseLine(line, qid, text, metadata))
        elif stored[qid] == text:
            unchanged += 1
        else:
            errors.add(line, "response", _differs_from_stored(model_name, qid))
    return new_lines, unchanged


def _check_response_text(line: int, record: dict, errors: ErrorCollector) -> bool:
    """The response must be a string that is not blank."""
    text = record.get("response")
    if "response" not in record:
        errors.add(line, "response", gettext("missing key"))
    elif not isinstance(text, str):
        errors.add(line, "response", gettext("must be a string, found %(found)s") % {"found": type_name(text)})
    elif not text.strip():
        errors.add(line, "response", gettext("empty response"))
    else:
        return True
    return False


def _drop_stored_meanwhile(
    new_lines: list[_ResponseLine], version: DatasetVersion, model: LanguageModel, model_name: str, errors: ErrorCollector
) -> tuple[list[_ResponseLine], int]:
    """Drop the responses a concurrent import stored since the file was checked; a different one is an error."""
    stored = _stored_texts(version, model=model, question_id__in=[r.question_id for r in new_lines])
    for r in new_lines:
        if r.question_id in stored and stored[r.question_id] != r.text:
            errors.add(r.line, "response", _differs_from_stored(model_name, r.question_id))
    errors.raise_if_any()
    return [r for r in new_lines if r.question_id not in stored], len(stored)


def _create_responses(version: DatasetVersion, model: LanguageModel, new_lines: list[_ResponseLine]) -> None:
    """Store the new responses, each with the keys of its line other than question_id and response as metadata."""
    ModelResponse.objects.bulk_create(
        [
            ModelResponse(
                dataset=version.dataset,
                question_id=r.question_id,
                model=model,
                text=r.text,
                metadata=r.metadata,
                imported_for=version,
            )
            for r in new_lines
        ],
        batch_size=1000,
    )
