"""REST API of dual-role conflicts (admins): who is expert and staff, and where their staff views are closed."""

from drf_spectacular.utils import extend_schema
from rest_framework import serializers

from annotation.blindness import dual_role_conflicts
from heartbench_core.api import ComputedListView, valid_query
from heartbench_core.roles import Role, role_permission


class ConflictCampaignSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="campaign.pk")
    name = serializers.CharField(source="campaign.name")
    status = serializers.CharField(source="campaign.status")
    kind = serializers.CharField(source="campaign.kind")
    exposed = serializers.IntegerField(help_text="Responses of this campaign a staff view showed the user.")
    created_gold_source = serializers.BooleanField(help_text="The user imported the set its hidden gold checks come from: they know its labels.")


class DualRoleConflictSerializer(serializers.Serializer):
    username = serializers.CharField(source="user.username")
    staff_roles = serializers.ListField(child=serializers.CharField())
    superuser = serializers.BooleanField()
    campaigns = ConflictCampaignSerializer(many=True, help_text="Open campaigns the user is an expert of: their staff views are closed.")
    exposures = serializers.IntegerField(help_text="Every response a staff view showed the user.")


class DualRoleQuerySerializer(serializers.Serializer):
    campaign = serializers.IntegerField(required=False, help_text="Only the users who are experts of this open campaign (its id).")


class DualRoleConflictsView(ComputedListView):
    """Users holding the expert role and a staff role, the open campaigns they are experts of, and their exposures."""

    permission_classes = [role_permission(Role.ADMIN)]
    serializer_class = DualRoleConflictSerializer

    @extend_schema(parameters=[DualRoleQuerySerializer], responses=DualRoleConflictSerializer(many=True))
    def get(self, request):
        query = valid_query(DualRoleQuerySerializer, request)
        rows = dual_role_conflicts()
        if (campaign := query.get("campaign")) is not None:
            rows = [r for r in rows if any(c.campaign.pk == campaign for c in r.campaigns)]
        return self.paginated(rows)
