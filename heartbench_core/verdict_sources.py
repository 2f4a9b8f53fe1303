"""Registry of verdict sources for scoring: where hit/miss verdicts for one model come from.

The core registers `judge` (an imported LLM-judge run). Apps above the core register their own
from `AppConfig.ready()` — the validation app registers `consensus`, the human golden standard —
so the core never imports them.

A loader is called as `loader(dataset=Dataset, version=DatasetVersion | None, model=str,
judge=str | None, run=str | None)` and returns a `VerdictSet`, or raises `ValidationError`
with a message a person can act on (e.g. "no human golden standard exists for …").
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

if TYPE_CHECKING:
    from django.db.models import QuerySet

    from heartbench_core.models import Dataset, DatasetVersion, JudgeRun


class VerdictSet:
    """Hit/miss verdicts of one source for one model's responses, one per criterion snapshot.

    A loader may pass `fetch` instead of the arrays: they are read on first use, so scores kept
    under `key` (see `heartbench_core.services.stored_scores`) are served without reading a verdict.
    """

    def __init__(
        self,
        *,
        version: DatasetVersion,
        description: str,
        criterion_id: np.ndarray | None = None,
        hit: np.ndarray | None = None,
        meta: dict[str, Any] | None = None,
        key: str = "",
        stamp: str = "",
        fetch: Callable[[], tuple[np.ndarray, np.ndarray]] | None = None,
    ) -> None:
        if fetch is None and (criterion_id is None or hit is None):
            raise ValueError("a VerdictSet needs its arrays or a way to fetch them")
        self.version = version  # whose rubric the verdicts are scored against
        self.description = description  # e.g. "judge claude-sonnet-4-5/default"
        self.meta = meta or {}
        self.key = key  # where scores of these verdicts are stored ("" = never stored)
        self.stamp = stamp  # counts the stored scores must match
        self.run_id: int | None = self.meta.get("run_id") if key.startswith("judge:") else None
        self.campaign_id: int | None = self.meta.get("campaign_id") if key.startswith("consensus:") else None
        self._fetch = fetch
        self._arrays = None if fetch is not None else (np.asarray(criterion_id, dtype=np.int64), np.asarray(hit, dtype=bool))

    def _load(self) -> tuple[np.ndarray, np.ndarray]:
        if self._arrays is None:
            assert self._fetch is not None
            self._arrays = self._fetch()
        return self._arrays

    @property
    def criterion_id(self) -> np.ndarray:
        """int64, Criterion pks (of `version` or of another version of the dataset)."""
        return self._load()[0]

    @property
    def hit(self) -> np.ndarray:
        """bool, one per criterion_id."""
        return self._load()[1]


class Loader(Protocol):
    def __call__(
        self, *, dataset: Dataset, version: DatasetVersion | None = None, model: str, judge: str | None = None, run: str | None = None
    ) -> VerdictSet: ...


class Lister(Protocol):
    def __call__(
        self, *, dataset: Dataset, version: DatasetVersion | None = None, judge: str | None = None, run: str | None = None
    ) -> list[VerdictSet]: ...


_SOURCES: dict[str, Loader] = {}
_LISTERS: dict[str, Lister] = {}


def register_verdict_source(name: str, loader: Loader, lister: Lister | None = None) -> None:
    """Make `score --source NAME` (and the scores API) load verdicts with `loader`; `lister` gives every model's at once."""
    _SOURCES[name] = loader
    if lister is not None:
        _LISTERS[name] = lister
    else:
        _LISTERS.pop(name, None)


def list_verdicts(
    source: str, *, dataset: Dataset, version: DatasetVersion | None = None, judge: str | None = None, run: str | None = None
) -> list[VerdictSet]:
    """Every model's verdicts of a source on one dataset version (`meta["model"]` names each), in a fixed number of queries.

    Each set is the one `load_verdicts` gives for its model with the same judge and run (the
    judge source lists one set per matching run). Raises ValidationError when there are none.
    """
    lister = _LISTERS.get(source)
    if lister is None:
        if source in _SOURCES or source == "consensus":
            load_verdicts(source, dataset=dataset, version=version, model="", judge=judge, run=run)  # says why there is none
        raise ValidationError(
            {
                "source": _("unknown verdict source %(source)r; choose one of %(known)s")
                % {"source": source, "known": ", ".join(verdict_source_names())}
            }
        )
    return lister(dataset=dataset, version=version, judge=judge, run=run)


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
    newest = _newest_runs(dataset=dataset, version=version, model=model, judge=judge, run=run)
    if len(newest) > 1:
        names = ", ".join(f"--judge {r.judge} --run {r.label}" for r in newest)
        raise ValidationError(
            {
                "source": _("several judge runs match for model %(model)r on %(version)s; pick one: %(runs)s")
                % {"model": model, "version": newest[0].version, "runs": names}
            }
        )
    return run_verdicts(newest[0])


def run_verdicts(run: JudgeRun) -> VerdictSet:
    """One judge run's verdicts as a source (read on first use: stored scores need none)."""
    from heartbench_core.models import JudgeVerdict

    def fetch() -> tuple[np.ndarray, np.ndarray]:
        rows = np.array(JudgeVerdict.objects.filter(run=run).values_list("criterion_id", "hit"), dtype=np.int64).reshape(-1, 2)
        return rows[:, 0], rows[:, 1].astype(bool)

    return VerdictSet(
        version=run.version,
        description=f"judge {run.judge}/{run.label}",
        meta={"run_id": run.pk, "judge": run.judge, "run": run.label, "model": run.model.name, "model_id": run.model_id},
        key=f"judge:{run.pk}",
        stamp=f"verdicts={run.verdict_count}",
        fetch=fetch,
    )


def no_judge_run(
    *, dataset: Dataset, version: DatasetVersion | None, model: str | None = None, judge: str | None, run: str | None
) -> ValidationError:
    """The error of a judge source with no run matching its filters on the dataset (or the version), for one model or any."""
    where = f"{dataset.name}@{version.label}" if version is not None else dataset.name
    wanted = "".join(f", {k} {v!r}" for k, v in (("judge", judge), ("run", run)) if v)
    message = _("no judge run on %(where)s%(filters)s") if model is None else _("no judge run for model %(model)r on %(where)s%(filters)s")
    return ValidationError({"source": message % {"model": model, "where": where, "filters": wanted}})


def _judge_lister(
    *, dataset: Dataset, version: DatasetVersion | None = None, judge: str | None = None, run: str | None = None
) -> list[VerdictSet]:
    """Every judge run matching the filters on the version (default: the newest version with such runs), by model, judge and label."""
    return [run_verdicts(r) for r in _newest_runs(dataset=dataset, version=version, judge=judge, run=run)]


def judge_runs_matching(
    dataset: Dataset, *, version: DatasetVersion | None, model: str | None = None, judge: str | None, run: str | None
) -> QuerySet[JudgeRun]:
    """The dataset's judge runs a judge source's filters ask for (every version unless one is given)."""
    from heartbench_core.models import JudgeRun

    runs = JudgeRun.objects.filter(version__dataset=dataset).select_related("version__dataset")
    if version is not None:
        runs = runs.filter(version=version)
    if model is not None:
        runs = runs.filter(model__name=model)
    if judge:
        runs = runs.filter(judge=judge)
    if run:
        runs = runs.filter(label=run)
    return runs


def _newest_runs(
    *, dataset: Dataset, version: DatasetVersion | None, model: str | None = None, judge: str | None, run: str | None
) -> list[JudgeRun]:
    """The judge runs matching the filters on the version (default: the newest with any); ValidationError saying what was asked if none."""
    runs = judge_runs_matching(dataset, version=version, model=model, judge=judge, run=run).select_related("model")
    found = list(runs.order_by("-version__number", "model__name", "judge", "label"))
    if not found:
        raise no_judge_run(dataset=dataset, version=version, model=model, judge=judge, run=run)
    return [r for r in found if r.version_id == found[0].version_id]


register_verdict_source("judge", _judge_loader, _judge_lister)
