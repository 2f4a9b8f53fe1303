"""Schedule the risk checks (hourly) and the opted-in admins' e-mail digest (daily) in django-q2."""

from django.db import migrations

SCHEDULES = {
    "annotation.tasks.check_risks_task": {"name": "check annotation risks", "schedule_type": "H", "repeats": -1},
    "annotation.tasks.send_risk_digest_task": {"name": "send the admins' risk digest", "schedule_type": "D", "repeats": -1},
}


def schedule(apps, schema_editor):
    Schedule = apps.get_model("django_q", "Schedule")
    for func, defaults in SCHEDULES.items():
        Schedule.objects.get_or_create(func=func, defaults=defaults)


def unschedule(apps, schema_editor):
    apps.get_model("django_q", "Schedule").objects.filter(func__in=list(SCHEDULES)).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("annotation", "0007_ready_for_real_people"),
        ("django_q", "0019_alter_task_options_alter_ormq_key_alter_ormq_lock_and_more"),
    ]

    operations = [migrations.RunPython(schedule, unschedule)]
