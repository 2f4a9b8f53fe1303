"""Schedule the periodic expiry of reservations in django-q2 (pulls also expire lazily)."""

from django.db import migrations

FUNC = "annotation.tasks.expire_reservations_task"


def schedule(apps, schema_editor):
    Schedule = apps.get_model("django_q", "Schedule")
    Schedule.objects.get_or_create(
        func=FUNC, defaults={"name": "expire annotation reservations", "schedule_type": "I", "minutes": 5, "repeats": -1}
    )


def unschedule(apps, schema_editor):
    apps.get_model("django_q", "Schedule").objects.filter(func=FUNC).delete()


class Migration(migrations.Migration):
    dependencies = [("annotation", "0004_add_quality_control_and_calibration"), ("django_q", "0019_alter_task_options_alter_ormq_key_alter_ormq_lock_and_more")]

    operations = [migrations.RunPython(schedule, unschedule)]
