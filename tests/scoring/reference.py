"""A plain-Python, question-by-question restatement of the benchmark's scoring, to check the vectorised one."""

import math

OTHER = "其他"


def question_detail(rubric: list[dict], hits: list[int], mode: str = "paper") -> tuple[dict[str, float], float | None]:
    """Norm per ability and the question score for one question's rubric and hit vector."""
    low, high, raw = {}, {}, {}
    fired = False
    for item, hit in zip(rubric, hits):
        dim, w = item["dimension"], float(item["score"] or 0)
        if dim == OTHER:
            if hit and (mode == "paper" or w > 0):
                fired = True
            continue
        low.setdefault(dim, 0.0)
        high.setdefault(dim, 0.0)
        raw.setdefault(dim, 0.0)
        if w < 0:
            low[dim] += w
        else:
            high[dim] += w
        if hit:
            raw[dim] += w
    norms = {}
    for dim in low:
        span = high[dim] - low[dim]
        if fired or span <= 0:
            norms[dim] = 0.0
        else:
            norms[dim] = 100 * math.log(raw[dim] - low[dim] + 1) / math.log(span + 1)
    score = sum(norms.values()) / len(norms) if norms else None
    return norms, score


def run_scores(records: list[dict], hits_by_qid: dict[str, list[int]], mode: str = "paper") -> tuple[float, dict[str, float]]:
    """Overall (macro mean over abilities) and ability scores over the questions that have verdicts."""
    sums, counts = {}, {}
    for record in records:
        hits = hits_by_qid.get(record["question_id"])
        if hits is None:
            continue
        norms, _ = question_detail(record["rubric"], hits, mode)
        for dim, value in norms.items():
            sums[dim] = sums.get(dim, 0.0) + value
            counts[dim] = counts.get(dim, 0) + 1
    abilities = {dim: sums[dim] / counts[dim] for dim in sums}
    return sum(abilities.values()) / len(abilities), abilities
