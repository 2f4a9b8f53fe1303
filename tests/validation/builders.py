"""A small blind test on the demo items: three fictional models, three experts, one judge."""

import io
import json

import numpy as np

from heartbench_core.services.judging import import_judge_verdicts
from tests.factories import FIXTURES, demo_responses, demo_version
from validation.services.imports import import_judgments

MODELS = ("demo-model-aurora", "demo-model-borealis", "demo-model-cirrus")
JUDGE = "demo-judge"


def judge_verdicts(dataset="demo"):
    for model in MODELS:
        import_judge_verdicts(source=FIXTURES / "verdicts" / f"{model}.jsonl", dataset_name=dataset, model_name=model, judge=JUDGE)


def judge_vectors() -> dict[tuple[str, str], list[int]]:
    """The judge's hit vector per (question_id, model), from the demo verdict files."""
    out = {}
    for model in MODELS:
        for line in (FIXTURES / "verdicts" / f"{model}.jsonl").read_text().splitlines():
            record = json.loads(line)
            out[(record["question_id"], model)] = json.loads(record["score_detail"])
    return out


def judgment_lines(annotators, *, flip=0.15, seed=0, vectors=None) -> list[dict]:
    """Each annotator judges every response: the judge's vector with a share of flips."""
    rng = np.random.default_rng(seed)
    vectors = vectors or judge_vectors()
    lines = []
    for (qid, model), vec in sorted(vectors.items()):
        for annotator in annotators:
            detail = [int(v) ^ int(rng.random() < flip) for v in vec]
            lines.append(
                {
                    "question_id": qid,
                    "model": model,
                    "annotator": annotator,
                    "detail": detail,
                    "reasons": [f"reason {i}" for i in range(len(detail))],
                }
            )
    return lines


def as_file(lines, name="judgments.jsonl"):
    handle = io.BytesIO(("\n".join(json.dumps(line, ensure_ascii=False) for line in lines) + "\n").encode())
    handle.name = name
    return handle


def blind_test(cast, *, campaign="blind-1", flip=0.15, seed=0, with_judge=True, constant=None):
    """Import the demo set, the judge's verdicts and three experts' judgments; return the campaign."""
    demo_version()
    demo_responses()
    if with_judge:
        judge_verdicts()
    vectors = judge_vectors()
    if constant is not None:  # every expert says the same on everything
        vectors = {k: [constant] * len(v) for k, v in vectors.items()}
        flip = 0.0
    lines = judgment_lines([e.username for e in cast.experts], flip=flip, seed=seed, vectors=vectors)
    return import_judgments(source=as_file(lines), dataset_name="demo", campaign_name=campaign).campaign
