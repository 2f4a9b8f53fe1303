"""Judge verdicts: import an LLM judge's output file (upstream `question_score.jsonl`) as a judge run.

Each line names a `question_id` and carries the hit vector, either as `score_detail` — the
string the upstream scorer writes, e.g. "[1, 0, 1]" — or as `detail`, a JSON list. Position i
is the i-th rubric item of the question, the catastrophic (其他) item included. Unlike the
upstream scripts nothing is padded or truncated: a wrong length, a value other than 0/1, an
unparseable vector or an unknown question is an error naming the line, and nothing is written.
"""

import ast
import json
from collections.abc import Callable, Iterator, Sequence
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, cast

from django.core.exceptions import ValidationError
from django.db import IntegrityError, connection, transaction
from django.utils.translation import gettext

from heartbench_core.bulk import copy_lines, copy_text, may_skip_row_triggers, references_hold, skipped_row_triggers
from heartbench_core.jsonl import ErrorCollector, InputFileError, question_id_of, type_name
from heartbench_core.lib.jsonl import LineError, read_jsonl, source_name
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
        qid = question_id_of(line, record, errors, rubric_lengths, first_line)
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


@dataclass(frozen=True)
class JudgeFile:
    """One judge output file to import: the file, the model whose responses it judged, and the name errors give it."""

    source: str | Path | IO
    model_name: str
    name: str | None = None


@dataclass
class _Planned:
    """A judge file checked and ready to write (or found already imported)."""

    file_name: str
    model_name: str
    lines: list[_VerdictLine]
    verdicts: int  # one per criterion of each line's question
    new_responses: list[tuple[_VerdictLine, str]]
    responses: dict[str, int]  # the model's stored responses: question_id → response id
    outcome: JudgeImportOutcome | None = None  # set when the run exists with these very verdicts
    run: JudgeRun | None = None


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
    [outcome] = import_judge_runs(
        files=[JudgeFile(source, model_name, name)],
        dataset_name=dataset_name,
        judge=judge,
        run_label=run_label,
        version_label=version_label,
        note=note,
        created_by=created_by,
        progress=progress,
    )
    return outcome


def import_judge_runs(
    *,
    files: Sequence[JudgeFile | tuple[str | Path | IO, str]],
    dataset_name: str,
    judge: str,
    run_label: str | None = None,
    version_label: str | None = None,
    note: str = "",
    created_by: User | None = None,
    progress: Callable[[int], None] | None = None,
) -> list[JudgeImportOutcome]:
    """Import one judge's verdicts on several models' responses, one file per model, as one judge run each; atomic, idempotent.

    Every file is checked before anything is written: a bad line in any of them is an error naming
    its file, line and field, and nothing is written. A run already imported with the same
    verdicts is left as it is; with other verdicts it is an error.
    """
    entries = [f if isinstance(f, JudgeFile) else JudgeFile(*f) for f in files]
    if not entries:
        raise ValidationError({"files": gettext("name at least one judge file")})
    judge, label = _checked_run_names(entries[0].model_name, judge, run_label)[1:]
    names = _checked_model_names(entries)
    version = get_version(dataset_name, version_label)
    criteria = _criteria_by_question(version)
    lengths = {q: len(c) for q, c in criteria.items()}
    models = {m.name: m for m in LanguageModel.objects.filter(name__in=names)}
    stored = _stored_response_ids(version, list(models.values()))
    existing = {
        run.model.name: run
        for run in JudgeRun.objects.filter(version=version, model__in=models.values(), judge=judge, label=label).select_related("model")
    }
    plans: list[_Planned] = []
    problems: list[LineError] = []
    for entry, model_name in zip(entries, names):
        file_name = entry.name or source_name(entry.source)
        try:
            lines = parse_judge_file(entry.source, rubric_lengths=lengths, name=file_name, progress=progress)
            responses = stored.get(model_name, {})
            carried = [line for line in lines if line.response is not None and line.question_id in responses]
            texts = _stored_texts(carried, models[model_name], version) if carried else {}
            new_responses = _responses_to_import(lines, responses, texts, model_name, file_name)
        except InputFileError as exc:
            problems.extend(exc.errors)
            continue
        plan = _Planned(file_name, model_name, lines, sum(len(line.hits) for line in lines), new_responses, responses=responses)
        if model_name in existing:
            wanted = {(pk, bool(h)) for line in lines for pk, h in zip(criteria[line.question_id], line.hits)}
            plan.outcome = _same_run_again(existing[model_name], wanted, len(criteria), version=version, model_name=model_name)
        plans.append(plan)
    if problems:
        raise InputFileError(problems)
    new = [p for p in plans if p.outcome is None]
    try:
        with transaction.atomic():
            _create_runs_and_responses(new, version, judge, label, created_by=created_by, note=note)
            _create_verdicts(new, criteria)
    except IntegrityError as exc:
        raise ValidationError(
            gettext("could not create judge run %(judge)s/%(run)s: %(error)s") % {"judge": judge, "run": label, "error": exc}
        ) from exc
    return [
        plan.outcome
        or JudgeImportOutcome(
            cast(JudgeRun, plan.run), True, len(plan.lines), plan.verdicts, len(criteria) - len(plan.lines), len(plan.new_responses)
        )
        for plan in plans
    ]


def _checked_model_names(entries: list[JudgeFile]) -> list[str]:
    """The files' stripped model names: each given, valid when new, and named for one file only."""
    names = [(e.model_name or "").strip() for e in entries]
    if not all(names):
        raise ValidationError({"model": gettext("a model name is required")})
    known = set(LanguageModel.objects.filter(name__in=names).values_list("name", flat=True))
    first: dict[str, str] = {}
    for entry, name in zip(entries, names):
        if name not in known:
            validate_model_name(name)
        file_name = entry.name or source_name(entry.source)
        if name in first:
            raise ValidationError(
                {
                    "model": gettext("model %(model)r is named for two files: %(first)s and %(second)s")
                    % {"model": name, "first": first[name], "second": file_name}
                }
            )
        first[name] = file_name
    return names


def _stored_response_ids(version: DatasetVersion, models: list[LanguageModel]) -> dict[str, dict[str, int]]:
    """The models' stored responses to the version's dataset: model name → question_id → response id."""
    out: dict[str, dict[str, int]] = {m.name: {} for m in models}
    for name, qid, pk in ModelResponse.objects.filter(dataset=version.dataset, model__in=models).values_list(
        "model__name", "question_id", "id"
    ):
        out[name][qid] = pk
    return out


def _stored_texts(lines: list[_VerdictLine], model: LanguageModel, version: DatasetVersion) -> dict[str, str]:
    """The stored text of the model's responses to the lines' questions."""
    return dict(
        ModelResponse.objects.filter(
            dataset=version.dataset, model=model, question_id__in=[line.question_id for line in lines]
        ).values_list("question_id", "text")
    )


def _create_runs_and_responses(
    plans: list[_Planned], version: DatasetVersion, judge: str, label: str, *, created_by: User | None, note: str
) -> None:
    """Each plan's model (created if new), the responses its file carries, and its judge run."""
    for plan in plans:
        if plan.new_responses or not plan.responses:
            model, _ = LanguageModel.objects.get_or_create(name=plan.model_name)
            _create_responses(version, model, plan.new_responses, plan.file_name)
            plan.responses = _stored_response_ids(version, [model])[model.name]
    models = {m.name: m for m in LanguageModel.objects.filter(name__in=[p.model_name for p in plans])}
    runs = [
        JudgeRun(
            version=version,
            model=models[plan.model_name],
            judge=judge,
            label=label,
            created_by=created_by,
            source=plan.file_name[:200],
            note=note,
            question_count=len(plan.lines),
            verdict_count=plan.verdicts,
        )
        for plan in plans
    ]
    JudgeRun.objects.bulk_create(runs)
    for plan, run in zip(plans, runs):
        plan.run = run


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


def _responses_to_import(
    lines: list[_VerdictLine], responses: dict[str, int], texts: dict[str, str], model_name: str, file_name: str
) -> list[tuple[_VerdictLine, str]]:
    """The lines whose response must be imported, with that response; raise InputFileError when one is missing, empty or differs.

    `responses` holds the model's stored response ids by question, `texts` their texts where a line carries a response.
    """
    errors = ErrorCollector(file_name)
    new_responses = []
    for entry in lines:
        if entry.question_id in responses:
            if entry.response is not None and entry.response != texts.get(entry.question_id):
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


def _create_verdicts(plans: list[_Planned], criteria: dict[str, list[int]]) -> None:
    """One verdict per (line, rubric item), keeping the line, the position, the raw value and the judge's output.

    On PostgreSQL the verdicts are written with COPY, without per-row triggers when the role may
    (`heartbench_core.bulk`): the runs are this transaction's own, and the responses and criteria
    the verdicts name are locked, as the foreign-key checks would lock them.
    """
    if connection.vendor != "postgresql":
        JudgeVerdict.objects.bulk_create(
            [
                JudgeVerdict(
                    run=plan.run,
                    response_id=plan.responses[entry.question_id],
                    criterion_id=pk,
                    hit=bool(h),
                    rationale=entry.reason,
                    raw={"line": entry.line, "index": i, "value": h, "output": entry.output},
                )
                for plan in plans
                for entry in plan.lines
                for i, (pk, h) in enumerate(zip(criteria[entry.question_id], entry.hits))
            ],
            batch_size=1000,
        )
        return
    response_ids = [p.responses[e.question_id] for p in plans for e in p.lines]
    fast = may_skip_row_triggers([JudgeVerdict._meta.db_table])
    with skipped_row_triggers() if fast else nullcontext():
        if fast:
            used = {pk for p in plans for e in p.lines for pk in criteria[e.question_id]}
            if not references_hold(((ModelResponse, response_ids), (Criterion, used))):
                raise ValidationError(gettext("the data changed during the import; nothing was written, try again"))
        copy_lines(
            JudgeVerdict,
            ("run_id", "response_id", "criterion_id", "hit", "rationale", "raw"),
            _verdict_rows(plans, criteria, iter(response_ids)),
        )


def _verdict_rows(plans: list[_Planned], criteria: dict[str, list[int]], response_ids: Iterator[int]) -> Iterator[str]:
    """COPY lines of every verdict of the plans, one string per judged line: its output is encoded once, not once per verdict."""
    hits = ("f", "t")
    for plan in plans:
        run_id = cast(JudgeRun, plan.run).pk
        for entry in plan.lines:
            head = f"{run_id}\t{next(response_ids)}\t"
            reason = copy_text(entry.reason)
            tail = f', "output": {copy_text(json.dumps(entry.output, ensure_ascii=False))}}}\n'
            raw_head = f'\t{reason}\t{{"line": {entry.line}, "index": '
            yield "".join(
                [
                    f'{head}{pk}\t{hits[h]}{raw_head}{i}, "value": {h}{tail}'
                    for i, (pk, h) in enumerate(zip(criteria[entry.question_id], entry.hits))
                ]
            )
