"""HeartBench scoring as pure NumPy: hit/miss verdicts in, ability, dimension and overall scores out.

Reimplements the released benchmark's scoring (docs/scoring.md cites the upstream source):

- per question q and ability d present in q's rubric: Min = sum of negative weights,
  Max = sum of positive weights, Raw = sum of the weights of the hit criteria (null weight = 0);
  Norm = 100 · ln(Raw − Min + 1) / ln(Max − Min + 1), and 0 when Max − Min ≤ 0;
- the catastrophic label (其他) is never scored; a catastrophic hit zeroes every Norm of its
  question (mode "paper": any hit; mode "upstream": only a hit with a positive weight);
- question score = mean Norm over the question's abilities;
- ability score = mean Norm over the scored questions containing the ability;
  overall = unweighted mean of the ability scores; dimension = mean of its abilities' scores.

Everything works on flat arrays, one entry per criterion, so a whole run (or many runs) is a
handful of vector operations. No ORM here.
"""

from dataclasses import dataclass

import numpy as np

CATASTROPHIC_MODES = ("paper", "upstream")


@dataclass(frozen=True)
class QuestionScores:
    """Per-question results: `norm[q, a]` is NaN where ability a is absent from question q."""

    norm: np.ndarray  # (n_questions, n_abilities) float
    raw: np.ndarray  # (n_questions, n_abilities) float, 0 where absent
    present: np.ndarray  # (n_questions, n_abilities) bool
    question_score: np.ndarray  # (n_questions,) float, NaN for a question with no scored ability
    catastrophic: np.ndarray  # (n_questions,) bool: the catastrophic rule fired


@dataclass(frozen=True)
class Aggregate:
    """Run-level results over the questions selected by a mask."""

    ability_score: np.ndarray  # (n_abilities,) float, NaN where no selected question has the ability
    ability_questions: np.ndarray  # (n_abilities,) int: questions the ability score averages
    dimension_score: np.ndarray  # (n_dimensions,) float, NaN where no ability of it was scored
    dimension_abilities: np.ndarray  # (n_dimensions,) int: abilities the dimension score averages
    overall: float  # NaN when no ability was scored
    abilities_scored: int
    questions_scored: int


def norm_scores(raw: np.ndarray, low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """Log-normalise raw scores into [0, 100] given the per-cell minimum and maximum."""
    raw, low, high = (np.asarray(x, dtype=float) for x in (raw, low, high))
    span = high - low
    ok = span > 0
    # Raw − Min ≥ 0 always holds for consistent inputs; clip as the reference does (ln 1 = 0).
    numerator = np.log(np.maximum(raw - low + 1.0, 1.0))
    denominator = np.log(np.where(ok, span + 1.0, 2.0))
    return np.where(ok, 100.0 * numerator / denominator, 0.0)


def score_questions(
    *,
    question: np.ndarray,
    ability: np.ndarray,
    weight: np.ndarray,
    hit: np.ndarray,
    catastrophic: np.ndarray,
    n_questions: int,
    n_abilities: int,
    mode: str = "paper",
) -> QuestionScores:
    """Score every question from one entry per criterion.

    question: question index of each criterion; ability: ability index (ignored for catastrophic
    criteria); weight: float, NaN for a null weight; hit: bool; catastrophic: bool.
    """
    (scores,) = score_questions_each(
        question=question,
        ability=ability,
        weight=weight,
        hits=[hit],
        catastrophic=catastrophic,
        n_questions=n_questions,
        n_abilities=n_abilities,
        mode=mode,
    )
    return scores


def score_questions_each(
    *,
    question: np.ndarray,
    ability: np.ndarray,
    weight: np.ndarray,
    hits: list[np.ndarray],
    catastrophic: np.ndarray,
    n_questions: int,
    n_abilities: int,
    mode: str = "paper",
) -> list[QuestionScores]:
    """`score_questions` for several sets of verdicts on the same criteria (a judge's and the golden
    standard's, say): the rubric's cells, their Min and Max are laid out once."""
    if mode not in CATASTROPHIC_MODES:
        raise ValueError(f"catastrophic mode must be one of {CATASTROPHIC_MODES}, not {mode!r}")
    question = np.asarray(question, dtype=np.intp)
    ability = np.asarray(ability, dtype=np.intp)
    weight = np.nan_to_num(np.asarray(weight, dtype=float), nan=0.0)
    catastrophic = np.asarray(catastrophic, dtype=bool)

    scored = ~catastrophic
    cells = n_questions * n_abilities
    flat = question[scored] * n_abilities + ability[scored]
    w = weight[scored]
    counts = np.bincount(flat, minlength=cells)
    shape = (n_questions, n_abilities)
    low = np.bincount(flat, weights=np.minimum(w, 0.0), minlength=cells).reshape(shape)
    high = np.bincount(flat, weights=np.maximum(w, 0.0), minlength=cells).reshape(shape)
    present = (counts > 0).reshape(shape)
    n_present = present.sum(axis=1)
    can_fire = catastrophic & (weight > 0) if mode == "upstream" else catastrophic
    out = []
    for hit in hits:
        hit = np.asarray(hit, dtype=bool)
        raw = np.bincount(flat, weights=w * hit[scored], minlength=cells).reshape(shape)
        zeroed = np.bincount(question[can_fire & hit], minlength=n_questions) > 0
        norm = norm_scores(raw, low, high)
        norm[zeroed] = 0.0
        norm = np.where(present, norm, np.nan)
        with np.errstate(invalid="ignore"):
            question_score = np.where(n_present > 0, np.nansum(norm, axis=1) / np.maximum(n_present, 1), np.nan)
        out.append(QuestionScores(norm=norm, raw=raw, present=present, question_score=question_score, catastrophic=zeroed))
    return out


def aggregate(
    scores: QuestionScores,
    *,
    selected: np.ndarray,
    ability_dimension: np.ndarray,
    n_dimensions: int,
) -> Aggregate:
    """Average the selected questions: ability means, their macro mean, and dimension means.

    ability_dimension: dimension index of each ability, −1 for an ability outside the taxonomy
    (it counts in the overall mean, as in the reference, but in no dimension).
    """
    selected = np.asarray(selected, dtype=bool)
    present = scores.present & selected[:, None]
    ability_questions = present.sum(axis=0)
    sums = np.where(present, scores.norm, 0.0).sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        ability_score = np.where(ability_questions > 0, sums / np.maximum(ability_questions, 1), np.nan)
    scored = ability_questions > 0
    overall = float(ability_score[scored].mean()) if scored.any() else float("nan")

    ability_dimension = np.asarray(ability_dimension, dtype=np.intp)
    in_dim = scored & (ability_dimension >= 0)
    dim_idx = ability_dimension[in_dim]
    dimension_abilities = np.bincount(dim_idx, minlength=n_dimensions)
    dim_sums = np.bincount(dim_idx, weights=ability_score[in_dim], minlength=n_dimensions)
    with np.errstate(invalid="ignore", divide="ignore"):
        dimension_score = np.where(dimension_abilities > 0, dim_sums / np.maximum(dimension_abilities, 1), np.nan)
    return Aggregate(
        ability_score=ability_score,
        ability_questions=ability_questions,
        dimension_score=dimension_score,
        dimension_abilities=dimension_abilities,
        overall=overall,
        abilities_scored=int(scored.sum()),
        questions_scored=int((selected & scores.present.any(axis=1)).sum()),
    )


def decay_percent(full: float | None, subset: float | None) -> float | None:
    """Relative drop from the full-set score to a subset's score, in percent (None when undefined)."""
    if full is None or subset is None or not np.isfinite(full) or not np.isfinite(subset) or full == 0:
        return None
    return 100.0 * (full - subset) / full
