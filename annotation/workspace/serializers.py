"""Input serializers of the workspace API that look a name up: they validate what is asked, and read only for that."""

from django.utils.translation import gettext as _
from rest_framework import serializers

from annotation.models import Campaign, CorrectionRequest


class AdminCorrectionsQuerySerializer(serializers.Serializer):
    # "applying" only exists inside the accepting transaction: never listed.
    status = serializers.ChoiceField(
        choices=[*(s for s in CorrectionRequest.Status.values if s != CorrectionRequest.Status.APPLYING), "all"],
        default=CorrectionRequest.Status.PENDING.value,
        help_text="Pending unless asked otherwise.",
    )
    campaign = serializers.CharField(required=False, help_text="Only this campaign: its name or its id.")

    def validate_campaign(self, value: str) -> Campaign:
        found = Campaign.objects.filter(name=value).first()
        if found is None and value.isdecimal():
            found = Campaign.objects.filter(pk=int(value)).first()
        if found is None:
            raise serializers.ValidationError(_("no campaign named %(name)r or with that id") % {"name": value})
        return found
