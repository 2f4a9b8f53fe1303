"""Hypothesis fuzzes every JSONL importer: a bad file is a ValidationError and writes nothing.

Each example mutates a valid file (bytes, lines, keys, values) and imports it. The import
may succeed (some mutations stay valid) or raise ValidationError/InputFileError; any other
exception is a crash, and an error after which any table changed is a partial write.
"""

import io
import json

import pytest
from django.apps import apps
from django.core.exceptions import ValidationError
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from heartbench_core.services.datasets import import_heartbench
from heartbench_core.services.judging import import_judge_verdicts
from heartbench_core.services.responses import import_responses
from tests.factories import DEMO_ITEMS, FIXTURES, demo_responses, demo_version

pytestmark = pytest.mark.django_db

FUZZ = settings(
    max_examples=40,
    deadline=None,
    derandomize=True,  # the same examples on every run: a failure is reproducible, the suite is stable
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large],
)

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats(allow_nan=False) | st.text(max_size=30),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4),
    max_leaves=8,
)


@st.composite
def mutated(draw, lines: list[str]):
    """A mutation of a valid JSONL file, as bytes."""
    lines = list(lines)
    kind = draw(st.sampled_from(["value", "drop_key", "add_key", "raw_line", "bytes", "truncate", "duplicate", "swap", "empty"]))
    i = draw(st.integers(0, len(lines) - 1))
    record = json.loads(lines[i])
    if kind == "value":
        key = draw(st.sampled_from(sorted(record)))
        record[key] = draw(json_values)
        lines[i] = json.dumps(record, ensure_ascii=False)
    elif kind == "drop_key":
        record.pop(draw(st.sampled_from(sorted(record))))
        lines[i] = json.dumps(record, ensure_ascii=False)
    elif kind == "add_key":
        record[draw(st.text(max_size=12))] = draw(json_values)
        lines[i] = json.dumps(record, ensure_ascii=False)
    elif kind == "raw_line":
        lines[i] = draw(st.text(max_size=80).filter(lambda t: "\n" not in t and "\r" not in t))
    elif kind == "truncate":
        lines[i] = lines[i][: draw(st.integers(0, max(0, len(lines[i]) - 1)))]
    elif kind == "duplicate":
        lines.insert(i, lines[i])
    elif kind == "swap" and len(lines) > 1:
        j = draw(st.integers(0, len(lines) - 1))
        lines[i], lines[j] = lines[j], lines[i]
    elif kind == "empty":
        lines = []
    data = "\n".join(lines).encode()
    if kind == "bytes":
        at = draw(st.integers(0, max(0, len(data) - 1)))
        data = data[:at] + draw(st.binary(min_size=1, max_size=8)) + data[at:]
    return data


def row_counts() -> dict[str, int]:
    return {m._meta.label: m.objects.count() for m in apps.get_models() if not m._meta.label.startswith(("sessions.", "django_q."))}


def check(importer, payload: bytes, **kwargs):
    before = row_counts()
    handle = io.BytesIO(payload)
    handle.name = "fuzz.jsonl"
    try:
        importer(source=handle, name="fuzz.jsonl", **kwargs)
    except ValidationError as exc:
        assert exc.messages, "an import error must say what is wrong"
        after = row_counts()
        changed = {k: (before[k], after[k]) for k in before if before[k] != after[k]}
        assert not changed, f"partial write after {exc.messages[:3]}: {changed}"


def lines_of(path) -> list[str]:
    return [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


@FUZZ
@given(payload=mutated(lines_of(DEMO_ITEMS)))
def test_import_heartbench_never_crashes_or_writes_part_of_a_bad_file(payload):
    check(import_heartbench, payload, dataset_name="fuzz")


@pytest.fixture
def demo_dataset(db):
    return demo_version()


@FUZZ
@given(payload=mutated(lines_of(FIXTURES / "responses" / "demo-model-aurora.jsonl")))
def test_import_responses_never_crashes_or_writes_part_of_a_bad_file(demo_dataset, payload):
    check(import_responses, payload, dataset_name="demo", model_name="fuzz-model")


@FUZZ
@given(payload=mutated(lines_of(FIXTURES / "verdicts" / "demo-model-aurora.jsonl")))
def test_import_judge_verdicts_never_crashes_or_writes_part_of_a_bad_file(demo_dataset, payload):
    check(import_judge_verdicts, payload, dataset_name="demo", model_name="fuzz-model", judge="fuzz-judge")


def judgment_lines(version) -> list[str]:
    out = []
    for item in version.items.prefetch_related("criteria").order_by("position"):
        n = item.criteria.count()
        for annotator in ("fuzz_a", "fuzz_b"):
            detail = [(i + len(annotator)) % 2 for i in range(n)]
            out.append(
                json.dumps({"question_id": item.question_id, "model": "demo-model-aurora", "annotator": annotator, "detail": detail})
            )
    return out


@FUZZ
@given(data=st.data())
def test_import_judgments_never_crashes_or_writes_part_of_a_bad_file(demo_dataset, data):
    from validation.services.imports import import_judgments

    if not apps.get_model("heartbench_core", "ModelResponse").objects.exists():
        demo_responses()
    payload = data.draw(mutated(judgment_lines(demo_dataset)))
    check(import_judgments, payload, dataset_name="demo", campaign_name="fuzz-campaign", create_experts=True)


def test_nan_and_infinity_are_refused_naming_the_line(db):
    # Found by the fuzzer on PostgreSQL: Python's json reads Infinity, jsonb refuses it at INSERT.
    from heartbench_core.jsonl import InputFileError

    line = json.loads(lines_of(DEMO_ITEMS)[0])
    bad = json.dumps(line, ensure_ascii=False)[:-1] + ', "extra_score": Infinity}'
    before = row_counts()
    with pytest.raises(InputFileError, match=r"fuzz.jsonl, line 1: malformed JSON: Infinity is not a JSON value"):
        import_heartbench(source=io.BytesIO(bad.encode()), dataset_name="fuzz", name="fuzz.jsonl")
    assert row_counts() == before
