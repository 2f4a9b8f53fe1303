"""Registry of verdict sources for scoring: where hit/miss verdicts for one model come from.

The core registers `judge` (an imported LLM-judge run). Apps above the core register their own
from `AppConfig.ready()` — the validation app registers `consensus`, the human golden standard —
so the core never imports them.

A loader is called as `loader(dataset=Dataset, version=DatasetVersion | None, model=str,
judge=str | None, run=str | None)` and returns a `VerdictSet`, or raises `ValidationError`
with a message a person can act on (e.g. "no human golden standard exists for …").
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

if TYPE_CHECKING:
    from heartbench_core.models import Dataset, DatasetVersion


@dataclass(frozen=True)
class VerdictSet:
    """Hit/miss verdicts of one source for one model's responses, one per criterion snapshot."""

    version: DatasetVersion  # whose rubric the verdicts are scored against
    criterion_id: np.ndarray  # int64, Criterion pks (of `version` or of another version of the dataset)
    hit: np.ndarray  # bool
    description: str  # e.g. "judge claude-sonnet-4-5/default"
    meta: dict[str, Any] = field(default_factory=dict)


class Loader(Protocol):
    def __call__(
        self, *, dataset: Dataset, version: DatasetVersion | None = None, model: str, judge: str | None = None, run: str | None = None
    ) -> VerdictSet: ...


_SOURCES: dict[str, Loader] = {}


def register_verdict_source(name: str, loader: Loader) -> None:
    """Make `score --source NAME` (and the scores API) load verdicts with `loader`."""
    _SOURCES[name] = loader


def verdict_source_names() -> tuple[str, ...]:
    """Names usable as --source: the registered ones, plus consensus (always accepted, may be absent)."""
    return tuple(sorted(set(_SOURCES) | {"judge", "consensus"}))


def load_verdicts(
    source: str, *, dataset: Dataset, version: DatasetVersion | None = None, model: str, judge: str | None = None, run: str | None = None
) -> VerdictSet:
    """Load one model's verdicts from a named source, or raise ValidationError saying why none exist."""
    loader = _SOURCES.get(source)
    if loader is None:
        if source == "consensus":
            where = f"{dataset.name}@{version.label}" if version is not None else dataset.name
            raise ValidationError(
                {
                    "source": _(
                        "no human golden standard exists for dataset %(where)r, model %(model)r: "
                        "no consensus verdicts have been produced (the validation app builds them from adjudicated expert judgments)"
                    )
                    % {"where": where, "model": model}
                }
            )
        raise ValidationError(
            {
                "source": _("unknown verdict source %(source)r; choose one of %(known)s")
                % {"source": source, "known": ", ".join(verdict_source_names())}
            }
        )
    return loader(dataset=dataset, version=version, model=model, judge=judge, run=run)


def _judge_loader(
    *, dataset: Dataset, version: DatasetVersion | None = None, model: str, judge: str | None = None, run: str | None = None
) -> VerdictSet:
    from heartbench_core.models import JudgeRun, JudgeVerdict

    runs = JudgeRun.objects.filter(version__dataset=dataset, model__name=model).select_related("version", "model")
    if version is not None:
        runs = runs.filter(version=version)
    if judge:
        runs = runs.filter(judge=judge)
    if run:
        runs = runs.filter(label=run)
    found = list(runs.order_by("-version__number", "judge", "label"))
    if not found:
        where = f"{dataset.name}@{version.label}" if version is not None else dataset.name
        wanted = "".join(f", {k} {v!r}" for k, v in (("judge", judge), ("run", run)) if v)
        raise ValidationError(
            {"source": _("no judge run for model %(model)r on %(where)s%(filters)s") % {"model": model, "where": where, "filters": wanted}}
        )
    newest = [r for r in found if r.version_id == found[0].version_id]
    if len(newest) > 1:
        names = ", ".join(f"--judge {r.judge} --run {r.label}" for r in newest)
        raise ValidationError(
            {
                "source": _("several judge runs match for model %(model)r on %(version)s; pick one: %(runs)s")
                % {"model": model, "version": newest[0].version, "runs": names}
            }
        )
    chosen = newest[0]
    rows = np.array(JudgeVerdict.objects.filter(run=chosen).values_list("criterion_id", "hit"), dtype=np.int64).reshape(-1, 2)
    return VerdictSet(
        version=chosen.version,
        criterion_id=rows[:, 0],
        hit=rows[:, 1].astype(bool),
        description=f"judge {chosen.judge}/{chosen.label}",
        meta={"run_id": chosen.pk, "judge": chosen.judge, "run": chosen.label},
    )


register_verdict_source("judge", _judge_loader)
