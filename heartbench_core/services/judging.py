"""Judge verdicts: import an LLM judge's output file (upstream `question_score.jsonl`) as a judge run.

Each line names a `question_id` and carries the hit vector, either as `score_detail` — the
string the upstream scorer writes, e.g. "[1, 0, 1]" — or as `detail`, a JSON list. Position i
is the i-th rubric item of the question, the catastrophic (其他) item included. Unlike the
upstream scripts nothing is padded or truncated: a wrong length, a value other than 0/1, an
unparseable vector or an unknown question is an error naming the line, and nothing is written.
"""

import ast
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils.translation import gettext

from heartbench_core.jsonl import ErrorCollector, type_name
from heartbench_core.lib.jsonl import read_jsonl, source_name
from heartbench_core.models import Criterion, DatasetVersion, JudgeRun, JudgeVerdict, LanguageModel, ModelResponse, User
from heartbench_core.names import validate_model_name
from heartbench_core.services.datasets import get_version

# Keys of an upstream output line that echo the question and the answer rather than the judge's output.
ECHOED_KEYS = ("dialogue", "rubric", "response", "score_reason")


@dataclass(frozen=True)
class JudgeImportOutcome:
    run: JudgeRun
    created: bool
    questions: int
    verdicts: int
    uncovered: int  # questions of the version the run holds no verdict for
    responses_created: int


@dataclass(frozen=True)
class _VerdictLine:
    """One checked line of a judge file: the judge's hits on every rubric item of one question."""

    line: int
    question_id: str
    hits: list[int]
    reason: str
    output: dict  # the line without the keys that echo the question and the answer
    response: str | None  # the judged answer, when the line carries it


def parse_hit_vector(value: Any) -> list | None:
    """Parse a hit vector given as a list or as the upstream string form; None when unparseable."""
    if isinstance(value, list):
        return value
    if not isinstance(value, str):
        return None
    try:
        parsed = json.loads(value)
    except RecursionError:
        return None
    except json.JSONDecodeError:
        try:
            parsed = ast.literal_eval(value.strip())
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            return None
    return parsed if isinstance(parsed, list) else None


def _vector(record: dict, line: int, errors: ErrorCollector) -> tuple[str, list[int]] | None:
    """The (key, hit vector) of a line from `detail` or `score_detail` (both present: they must agree); None after recording why not."""
    present = [k for k in ("detail", "score_detail") if k in record]
    if not present:
        errors.add(line, "score_detail", gettext("missing hit vector: the line needs 'score_detail' (e.g. \"[1, 0, 1]\") or 'detail'"))
        return None
    vectors = {}
    for key in present:
        raw = record[key]
        if raw is None:
            errors.add(line, key, gettext("null hit vector (the judge gave no verdict); remove the line to leave the question uncovered"))
            return None
        parsed = parse_hit_vector(raw)
        if parsed is None:
            shown = raw if isinstance(raw, str) else type_name(raw)
            errors.add(
                line,
                key,
                gettext("cannot read a hit vector from %(value)r; expected a list such as [1, 0, 1]") % {"value": str(shown)[:60]},
            )
            return None
        bad = [(i, v) for i, v in enumerate(parsed) if type(v) is not int or v not in (0, 1)]
        if bad:
            i, v = bad[0]
            errors.add(line, f"{key}[{i}]", gettext("hit values must be 0 or 1, found %(value)r") % {"value": v})
            return None
        vectors[key] = parsed
    if len(vectors) == 2 and vectors["detail"] != vectors["score_detail"]:
        errors.add(line, "detail", gettext("'detail' and 'score_detail' disagree"))
        return None
    key = present[0]
    return key, vectors[key]


def parse_judge_file(
    source: str | Path | IO,
    *,
    rubric_lengths: dict[str, int],
    name: str | None = None,
    progress: Callable[[int], None] | None = None,
) -> list[_VerdictLine]:
    """Read and check a whole judge output file against the rubric lengths; raise InputFileError on any problem."""
    errors = ErrorCollector(name or source_name(source))
    first_line: dict[str, int] = {}  # question_id → the line that judged it
    lines: list[_VerdictLine] = []
    for line, record in read_jsonl(source, errors, progress=progress):
        qid = _checked_question_id(line, record, errors, rubric_lengths, first_line)
        if qid is None:
            continue
        first_line[qid] = line
        entry = _checked_verdict_line(line, record, errors, qid, rubric_lengths[qid])
        if entry is not None:
            lines.append(entry)
    if not lines and not errors:
        errors.add(None, None, gettext("the file holds no verdict lines"))
    errors.raise_if_any()
    return lines


def _checked_question_id(
    line: int, record: dict, errors: ErrorCollector, rubric_lengths: dict[str, int], first_line: dict[str, int]
) -> str | None:
    """The line's question_id when it is a known question not judged on an earlier line; None after recording why not."""
    qid = record.get("question_id")
    if "question_id" not in record:
        errors.add(line, "question_id", gettext("missing key"))
    elif not isinstance(qid, str):
        errors.add(line, "question_id", gettext("must be a string, found %(found)s") % {"found": type_name(qid)})
    elif qid not in rubric_lengths:
        errors.add(line, "question_id", gettext("unknown question_id %(question_id)r") % {"question_id": qid})
    elif qid in first_line:
        errors.add(
            line,
            "question_id",
            gettext("duplicate question_id %(question_id)r (first on line %(first)d)") % {"question_id": qid, "first": first_line[qid]},
        )
    else:
        return qid
    return None


def _checked_verdict_line(line: int, record: dict, errors: ErrorCollector, qid: str, rubric_length: int) -> _VerdictLine | None:
    """Check the hit vector (one value per rubric item), the reason and the response of a line; None on the first problem."""
    found = _vector(record, line, errors)
    if found is None:
        return None
    key, hits = found
    if len(hits) != rubric_length:
        errors.add(
            line,
            key,
            gettext("the vector has %(values)d values but question %(question_id)r has %(criteria)d rubric items")
            % {"values": len(hits), "question_id": qid, "criteria": rubric_length},
        )
        return None
    reason = record.get("score_reason", record.get("reason", ""))
    if reason is None:
        reason = ""
    if not isinstance(reason, str):
        errors.add(line, "score_reason", gettext("must be a string, found %(found)s") % {"found": type_name(reason)})
        return None
    response = record.get("response")
    if response is not None and not isinstance(response, str):
        errors.add(line, "response", gettext("must be a string, found %(found)s") % {"found": type_name(response)})
        return None
    output = {k: v for k, v in record.items() if k not in ECHOED_KEYS}
    return _VerdictLine(line, qid, hits, reason, output, response)


def import_judge_verdicts(
    *,
    source: str | Path | IO,
    dataset_name: str,
    model_name: str,
    judge: str,
    run_label: str | None = None,
    version_label: str | None = None,
    note: str = "",
    created_by: User | None = None,
    name: str | None = None,
    progress: Callable[[int], None] | None = None,
) -> JudgeImportOutcome:
    """Import one judge's verdicts on one model's responses as a judge run; atomic, idempotent.

    A line may carry the `response` it judged (the upstream file does): it is imported when the
    model has none for that question yet, and must match the stored one otherwise.
    """
    model_name, judge, run_label = _checked_run_names(model_name, judge, run_label)
    version = get_version(dataset_name, version_label)
    file_name = name or source_name(source)
    criteria = _criteria_by_question(version)
    lines = parse_judge_file(source, rubric_lengths={q: len(c) for q, c in criteria.items()}, name=file_name, progress=progress)
    model = LanguageModel.objects.filter(name=model_name).first()
    responses = _stored_responses(version, model, fields=("id", "question_id", "text")) if model else {}
    new_responses = _responses_to_import(lines, responses, model_name, file_name)
    wanted = {(pk, bool(h)) for entry in lines for pk, h in zip(criteria[entry.question_id], entry.hits)}
    existing = JudgeRun.objects.filter(version=version, model=model, judge=judge, label=run_label).first() if model else None
    if existing is not None:
        return _same_run_again(existing, wanted, len(criteria), version=version, model_name=model_name)
    try:
        with transaction.atomic():
            model, _ = LanguageModel.objects.get_or_create(name=model_name)
            created = _create_responses(version, model, new_responses, file_name)
            if new_responses:
                responses = _stored_responses(version, model, fields=("id", "question_id"))
            run = _create_run(
                version, model, judge, run_label, created_by=created_by, file_name=file_name, note=note, lines=lines, wanted=wanted
            )
            _create_verdicts(run, lines, criteria, responses)
    except IntegrityError as exc:
        raise ValidationError(
            gettext("could not create judge run %(judge)s/%(run)s: %(error)s") % {"judge": judge, "run": run_label, "error": exc}
        ) from exc
    return JudgeImportOutcome(run, True, len(lines), len(wanted), len(criteria) - len(lines), len(created))


def _checked_run_names(model_name: str, judge: str, run_label: str | None) -> tuple[str, str, str]:
    """The stripped model, judge and run names; a name not yet in the database must be a valid new name."""
    model_name, judge = (model_name or "").strip(), (judge or "").strip()
    run_label = (run_label or "default").strip()
    if not model_name:
        raise ValidationError({"model": gettext("a model name is required")})
    if not judge:
        raise ValidationError({"judge": gettext("a judge name is required")})
    if not LanguageModel.objects.filter(name=model_name).exists():
        validate_model_name(model_name)
    if not JudgeRun.objects.filter(judge=judge, label=run_label).exists():
        validate_model_name(judge, field="judge")
        validate_model_name(run_label, field="run", max_length=JudgeRun._meta.get_field("label").max_length)
    return model_name, judge, run_label


def _criteria_by_question(version: DatasetVersion) -> dict[str, list[int]]:
    """Criterion ids per question of the version, in rubric order (an item without criteria has an empty list)."""
    criteria: dict[str, list[int]] = {}
    for row in (
        Criterion.objects.filter(item__version=version)
        .order_by("item__position", "position")
        .values_list("item__question_id", "id", named=True)
    ):
        criteria.setdefault(row.item__question_id, []).append(row.id)
    for qid in version.items.values_list("question_id", flat=True):
        criteria.setdefault(qid, [])
    return criteria


def _stored_responses(version: DatasetVersion, model: LanguageModel, *, fields: tuple[str, ...]) -> dict[str, ModelResponse]:
    """The model's stored responses to the version's dataset, by question_id."""
    return {r.question_id: r for r in ModelResponse.objects.filter(dataset=version.dataset, model=model).only(*fields)}


def _responses_to_import(
    lines: list[_VerdictLine], responses: dict[str, ModelResponse], model_name: str, file_name: str
) -> list[tuple[_VerdictLine, str]]:
    """The lines whose response must be imported, with that response; raise InputFileError when one is missing, empty or differs."""
    errors = ErrorCollector(file_name)
    new_responses = []
    for entry in lines:
        stored = responses.get(entry.question_id)
        if stored is not None:
            if entry.response is not None and entry.response != stored.text:
                errors.add(
                    entry.line,
                    "response",
                    gettext("differs from the response of model %(model)r already stored for %(question_id)r")
                    % {"model": model_name, "question_id": entry.question_id},
                )
        elif entry.response is None:
            errors.add(
                entry.line,
                "question_id",
                gettext(
                    "model %(model)r has no response to %(question_id)r: import its responses first or keep the 'response' key in the line"
                )
                % {"model": model_name, "question_id": entry.question_id},
            )
        elif not entry.response.strip():
            errors.add(entry.line, "response", gettext("empty response"))
        else:
            new_responses.append((entry, entry.response))
    errors.raise_if_any()
    return new_responses


def _same_run_again(
    existing: JudgeRun, wanted: set[tuple[int, bool]], n_questions: int, *, version: DatasetVersion, model_name: str
) -> JudgeImportOutcome:
    """Importing a run again is a no-op when its verdicts are the same, and an error otherwise."""
    have = set(existing.verdicts.values_list("criterion_id", "hit"))
    if have == wanted:
        return JudgeImportOutcome(
            existing, False, existing.question_count, existing.verdict_count, n_questions - existing.question_count, 0
        )
    raise ValidationError(
        {
            "run": gettext(
                "judge run %(judge)s/%(run)s of model %(model)r on %(version)s already exists with other verdicts; import under another --run label"
            )
            % {"judge": existing.judge, "run": existing.label, "model": model_name, "version": version}
        }
    )


def _create_responses(
    version: DatasetVersion, model: LanguageModel, new_responses: list[tuple[_VerdictLine, str]], file_name: str
) -> list[ModelResponse]:
    """Store the responses the judge file carries for questions the model had no response to."""
    return ModelResponse.objects.bulk_create(
        [
            ModelResponse(
                dataset=version.dataset,
                question_id=e.question_id,
                model=model,
                text=text,
                metadata={"imported_from": file_name, "line": e.line},
                imported_for=version,
            )
            for e, text in new_responses
        ]
    )


def _create_run(
    version: DatasetVersion,
    model: LanguageModel,
    judge: str,
    run_label: str,
    *,
    created_by: User | None,
    file_name: str,
    note: str,
    lines: list[_VerdictLine],
    wanted: set[tuple[int, bool]],
) -> JudgeRun:
    """The judge run, with where its verdicts came from and how many there are."""
    return JudgeRun.objects.create(
        version=version,
        model=model,
        judge=judge,
        label=run_label,
        created_by=created_by,
        source=file_name[:200],
        note=note,
        question_count=len(lines),
        verdict_count=len(wanted),
    )


def _create_verdicts(run: JudgeRun, lines: list[_VerdictLine], criteria: dict[str, list[int]], responses: dict[str, ModelResponse]) -> None:
    """One verdict per (line, rubric item), keeping the line, the position, the raw value and the judge's output."""
    JudgeVerdict.objects.bulk_create(
        [
            JudgeVerdict(
                run=run,
                response_id=responses[entry.question_id].pk,
                criterion_id=pk,
                hit=bool(h),
                rationale=entry.reason,
                raw={"line": entry.line, "index": i, "value": h, "output": entry.output},
            )
            for entry in lines
            for i, (pk, h) in enumerate(zip(criteria[entry.question_id], entry.hits))
        ],
        batch_size=1000,
    )
