"""Input serializers of the validation API whose relation fields look rows up: they validate what a request names, nothing more.

Output is the read models' (validation/read_models.py); these only check that the version,
pilot or criterion a request names exists (and belongs where it should) before a read model or a
service is called with it.
"""

from rest_framework import serializers

from annotation.models import Campaign
from heartbench_core.models import DatasetVersion


class CandidateQuerySerializer(serializers.Serializer):
    """The builder's version and page; its filters are validation.filters.CandidateFilters."""

    version = serializers.PrimaryKeyRelatedField(queryset=DatasetVersion.objects.all(), help_text="The dataset version to build from.")
    page = serializers.IntegerField(required=False, default=1, min_value=1)


# What the builder creates (named in the schema as BuiltSetKindEnum).
SET_KINDS = [Campaign.Kind.GOLD_SET.value, Campaign.Kind.CALIBRATION.value]


class GoldBuilderCreateSerializer(serializers.Serializer):
    version = serializers.PrimaryKeyRelatedField(queryset=DatasetVersion.objects.all())
    kind = serializers.ChoiceField(choices=SET_KINDS)
    name = serializers.CharField(max_length=200)
    responses = serializers.ListField(child=serializers.IntegerField(), allow_empty=False, help_text="ModelResponse ids, each free.")
    pass_threshold = serializers.FloatField(default=0.8, min_value=0.01, max_value=1, help_text="Calibration sets only.")
    max_attempts = serializers.IntegerField(default=2, min_value=1, max_value=20, help_text="Calibration sets only.")
    cooldown_days = serializers.FloatField(default=1, min_value=0, help_text="Calibration sets only.")
    sitting_size = serializers.IntegerField(default=None, allow_null=True, min_value=1, help_text="Calibration sets only; null: all.")


class PlanRequestSerializer(serializers.Serializer):
    version = serializers.PrimaryKeyRelatedField(queryset=DatasetVersion.objects.select_related("dataset"))
    models = serializers.IntegerField(min_value=1, max_value=5000)
    pilot = serializers.PrimaryKeyRelatedField(
        queryset=Campaign.objects.select_related("version__dataset"),
        required=False,
        allow_null=True,
        help_text="An earlier blind test on the same dataset; null: assumptions.",
    )
    shares = serializers.ListField(
        child=serializers.FloatField(min_value=1e-9, max_value=1), min_length=1, max_length=20, default=[0.1, 0.2, 0.3, 0.4, 0.5]
    )
    raters = serializers.ListField(child=serializers.IntegerField(min_value=1, max_value=20), min_length=1, max_length=10, default=[3, 5])
    pool = serializers.IntegerField(min_value=2, max_value=10000, required=False, allow_null=True)
    piece_rate = serializers.FloatField(min_value=0, default=0.0)
    target_agreement = serializers.FloatField(
        min_value=0.0001, max_value=0.5, required=False, allow_null=True, help_text="Half-width as a share (0.015 = ±1.5 points)."
    )
    target_difference = serializers.FloatField(
        min_value=0.01, max_value=100, required=False, allow_null=True, help_text="Half-width in score points."
    )
    extension = serializers.BooleanField(default=False, help_text="Also plan each design with extra raters where the verdicts split.")
    extension_min_share = serializers.FloatField(min_value=0.01, max_value=1, default=0.5)
    extension_budget_share = serializers.FloatField(
        min_value=0.01, max_value=1, default=0.1, help_text="Most responses extended, a share of the responses."
    )
    judge_agreement = serializers.FloatField(min_value=0.5, max_value=1, default=0.87)
    leniency_sd = serializers.FloatField(min_value=0, max_value=5, default=0.5)
    seconds_per_criterion = serializers.FloatField(min_value=1, max_value=3600, default=20.0)
    simulations = serializers.IntegerField(min_value=10, max_value=5000, default=1000)
    seed = serializers.IntegerField(min_value=0, default=0)
