"""Reads for the dataset browser."""

from django.db.models import Count, F, Q, QuerySet

from heartbench_core.models import Criterion, Dataset, DatasetVersion, Item


def datasets_with_versions() -> QuerySet[Dataset]:
    """All datasets with their version count and responses count."""
    return Dataset.objects.annotate(
        version_count=Count("versions", distinct=True), response_count=Count("responses", distinct=True)
    ).order_by("name")


def versions_of(dataset: Dataset) -> QuerySet[DatasetVersion]:
    return dataset.versions.select_related("parent", "created_by").order_by("-number")


def items_of(version: DatasetVersion, *, q: str | None = None) -> QuerySet[Item]:
    """Items of a version with their criterion count, in order; `q`: only those whose question id contains it."""
    items = version.items.annotate(criterion_count=Count("criteria")).order_by("position")
    return items.filter(question_id__icontains=q) if q else items


def scenes_of(version: DatasetVersion) -> list[str]:
    return list(version.items.exclude(primary_scene="").order_by("primary_scene").values_list("primary_scene", flat=True).distinct())


def item_with_rubric(version: DatasetVersion, question_id: str) -> tuple[Item, list[Criterion]] | None:
    item = version.items.filter(question_id=question_id).first()
    if item is None:
        return None
    return item, list(item.criteria.order_by("position"))


def stale_q(criterion_path: str = "criterion") -> Q:
    """Q for rows (judgments, verdicts) made against a criterion revision whose meaning has since changed ("": for criteria)."""
    at = f"{criterion_path}__" if criterion_path else ""
    return Q(**{f"{at}revision__lt": F(f"{at}lineage__meaning_revision")})
