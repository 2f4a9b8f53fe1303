"""Create the four role groups, so roles can be granted right after `migrate` (not only after `seed_demo`)."""

from django.apps.registry import Apps
from django.db import migrations
from django.db.backends.base.schema import BaseDatabaseSchemaEditor

# Spelled out rather than imported from heartbench_core.roles: a migration must not change when the code does.
ROLE_GROUPS = ("admin", "rubric_author", "senior_reviewer", "expert")


def create_role_groups(apps: Apps, schema_editor: BaseDatabaseSchemaEditor | None) -> None:
    Group = apps.get_model("auth", "Group")
    for name in ROLE_GROUPS:
        Group.objects.get_or_create(name=name)


class Migration(migrations.Migration):
    dependencies = [
        ("auth", "0012_alter_user_first_name_max_length"),
        ("heartbench_core", "0004_user_language"),
    ]

    # Reversing leaves the groups: they may hold members by then, and an empty group is harmless.
    operations = [migrations.RunPython(create_role_groups, migrations.RunPython.noop)]
