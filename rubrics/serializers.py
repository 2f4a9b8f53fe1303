"""Input serializers of the rubrics API: the query parameters they validate look up what they name (a 400 naming it when missing)."""

from typing import Any

from django.utils.translation import gettext
from rest_framework import serializers

from heartbench_core.models import Dataset, Item


class DatasetQuerySerializer(serializers.Serializer):
    """A dataset's list, optionally narrowed to one question."""

    # A CharField first, so its checks (no NUL byte, which PostgreSQL refuses) run before the lookup.
    dataset = serializers.CharField(help_text="The dataset's name.")
    question_id = serializers.CharField(required=False, help_text="Only this question (its id in the dataset).")

    def validate_dataset(self, name: str) -> Dataset:
        found = Dataset.objects.filter(name=name).first()
        if found is None:
            raise serializers.ValidationError(gettext("no dataset named %(name)r") % {"name": name})
        return found

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        qid = attrs.get("question_id")
        if qid is not None and not Item.objects.filter(version__dataset=attrs["dataset"], question_id=qid).exists():
            raise serializers.ValidationError(
                {"question_id": gettext("no question %(item)r in dataset %(dataset)r") % {"item": qid, "dataset": attrs["dataset"].name}}
            )
        return attrs
