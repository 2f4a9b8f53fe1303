"""What the apps above the rubrics tell a criterion's authors: the causes of the adjudication decisions on it.

The rubrics app cannot import the validation app (it sits above); validation registers, in its
`AppConfig.ready`, the function that counts its decisions' causes per criterion lineage
(`register_adjudication_causes`), as it registers its verdict source with the core. Without it
(validation not installed), no cause is counted.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Collection, Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from heartbench_core.models import Dataset

# (dataset, lineage keys or None for all, ModelResponse ids to leave out or None) → {lineage key: Counter of causes}
CauseSource = Callable[["Dataset", Collection[str] | None, Iterable[int] | None], dict[str, Counter[str]]]

# The cause that says the criterion itself was unclear (validation.Adjudication.Cause.AMBIGUOUS_CRITERION).
AMBIGUOUS_CRITERION = "ambiguous_criterion"

_source: CauseSource | None = None


def register_adjudication_causes(source: CauseSource) -> None:
    """Called once, from the validation app's AppConfig.ready."""
    global _source
    _source = source


def adjudication_causes(
    dataset: Dataset, keys: Collection[str] | None = None, *, leave_out: Iterable[int] | None = None
) -> dict[str, Counter[str]]:
    """Per lineage key, how many decided units name each cause (a unit's newest decision counts); {} without a source."""
    if _source is None:
        return {}
    return _source(dataset, keys, leave_out)
