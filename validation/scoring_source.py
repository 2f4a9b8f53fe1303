"""The `consensus` verdict source: the human golden standard, for `score --source consensus`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

from heartbench_core.verdict_sources import VerdictSet

if TYPE_CHECKING:
    from django.db.models import QuerySet

    from annotation.models import Campaign
    from heartbench_core.models import Dataset, DatasetVersion, LanguageModel


def _campaigns(dataset: Dataset, version: DatasetVersion | None, run: str | None) -> QuerySet[Campaign]:
    """The dataset's campaigns (of `version` when given, the one named `run` when given)."""
    from annotation.models import Campaign

    campaigns = Campaign.objects.filter(version__dataset=dataset).select_related("version")
    if version is not None:
        campaigns = campaigns.filter(version=version)
    return campaigns.filter(name=run) if run else campaigns


def _no_standard(dataset: Dataset, version: DatasetVersion | None, message: str, **facts: Any) -> ValidationError:
    where = f"{dataset.name}@{version.label}" if version is not None else dataset.name
    return ValidationError({"source": message % {"where": where, **facts}})


def load_consensus(
    *, dataset: Dataset, version: DatasetVersion | None = None, model: str, judge: str | None = None, run: str | None = None
) -> VerdictSet:
    """Golden labels of one model's responses from the newest campaign that has some (`run` names a campaign)."""
    from heartbench_core.models import LanguageModel

    campaigns = _campaigns(dataset, version, run).filter(golden_labels__campaign_response__response__model__name=model)
    campaign = campaigns.distinct().order_by("-created_at", "-id").first()
    if campaign is None:
        if run:
            message = _(
                "no human golden standard exists for dataset %(where)r, model %(model)r in campaign %(run)r: "
                "compute an agreement report of a campaign with submitted expert judgments first"
            )
        else:
            message = _(
                "no human golden standard exists for dataset %(where)r, model %(model)r: "
                "compute an agreement report of a campaign with submitted expert judgments first"
            )
        raise _no_standard(dataset, version, message, model=model, run=run)
    labelled = LanguageModel.objects.get(name=model)
    return _campaign_labels(campaign, labelled, meta={"campaign_id": campaign.pk, "campaign": campaign.name})


def _campaign_labels(campaign: Campaign, model: LanguageModel, meta: dict[str, Any] | None = None) -> VerdictSet:
    from validation.models import GoldenLabel

    def fetch() -> tuple[np.ndarray, np.ndarray]:
        rows = np.array(
            GoldenLabel.objects.filter(campaign=campaign, campaign_response__response__model=model).values_list("criterion_id", "hit"),
            dtype=np.int64,
        ).reshape(-1, 2)
        return rows[:, 0], rows[:, 1].astype(bool)

    return VerdictSet(
        version=campaign.version,
        description=f"consensus of campaign {campaign.name}",
        meta=meta or {"campaign_id": campaign.pk, "campaign": campaign.name, "model": model.name, "model_id": model.pk},
        key=f"consensus:{campaign.pk}:{model.pk}",
        fetch=fetch,
    )


def list_consensus(
    *, dataset: Dataset, version: DatasetVersion | None = None, judge: str | None = None, run: str | None = None
) -> list[VerdictSet]:
    """Golden labels of every model of the newest campaign that has some (`run` names a campaign), by model name (three queries)."""
    from django.db.models import Exists, OuterRef

    from heartbench_core.models import LanguageModel
    from validation.models import GoldenLabel

    campaigns = _campaigns(dataset, version, run).filter(Exists(GoldenLabel.objects.filter(campaign=OuterRef("pk"))))
    campaign = campaigns.order_by("-created_at", "-id").first()
    if campaign is None:
        message = _(
            "no human golden standard exists for dataset %(where)r: "
            "compute an agreement report of a campaign with submitted expert judgments first"
        )
        raise _no_standard(dataset, version, message)
    labelled = GoldenLabel.objects.filter(campaign=campaign, campaign_response__response__model=OuterRef("pk"))
    models = LanguageModel.objects.filter(Exists(labelled)).order_by("name")
    return [_campaign_labels(campaign, model) for model in models]
