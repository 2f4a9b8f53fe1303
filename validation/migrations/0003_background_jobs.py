"""Background jobs recorded in the database, and the schedule that sweeps them every minute."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


SWEEP = "validation.tasks.sweep_background_jobs"


def schedule_sweep(apps, schema_editor):
    Schedule = apps.get_model("django_q", "Schedule")
    Schedule.objects.get_or_create(
        func=SWEEP, defaults={"name": "sweep background jobs", "schedule_type": "I", "minutes": 1, "repeats": -1}
    )


def unschedule_sweep(apps, schema_editor):
    apps.get_model("django_q", "Schedule").objects.filter(func=SWEEP).delete()


class Migration(migrations.Migration):

    dependencies = [
        ('annotation', '0006_gold_sets_retakes_frozen_verdicts'),
        ('validation', '0002_release_policy_and_exploratory_reports'),
        ("django_q", "0019_alter_task_options_alter_ormq_key_alter_ormq_lock_and_more"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name='BackgroundJob',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('kind', models.CharField(choices=[('agreement_report', 'Agreement report'), ('golden_refresh', 'Golden-label refresh')], max_length=20)),
                ('parameters', models.JSONField(blank=True, default=dict, help_text='Keyword arguments of the service the job runs.')),
                ('trigger', models.CharField(default='page', help_text='command, page, api, submission or schedule.', max_length=20)),
                ('status', models.CharField(choices=[('pending', 'Pending'), ('running', 'Running'), ('done', 'Done'), ('failed', 'Failed')], default='pending', max_length=10)),
                ('attempts', models.PositiveSmallIntegerField(default=0, help_text='How many times a worker took the job.')),
                ('last_error', models.TextField(blank=True)),
                ('locked_until', models.DateTimeField(blank=True, help_text='Lease of the worker running it; after it, the job is taken again.', null=True)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('enqueued_at', models.DateTimeField(blank=True, help_text='When its id was last handed to the broker.', null=True)),
                ('started_at', models.DateTimeField(blank=True, null=True)),
                ('finished_at', models.DateTimeField(blank=True, null=True)),
                ('campaign', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='background_jobs', to='annotation.campaign')),
                ('report', models.OneToOneField(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='job', to='validation.agreementreport')),
                ('requested_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'ordering': ['-created_at', '-id'],
                'indexes': [models.Index(fields=['status', 'locked_until'], name='validation__status_fada96_idx'), models.Index(fields=['campaign', 'kind', '-created_at'], name='validation__campaig_1f3cb8_idx')],
                'constraints': [models.UniqueConstraint(condition=models.Q(('kind', 'golden_refresh'), ('status', 'pending')), fields=('campaign',), name='one_pending_golden_refresh_per_campaign'), models.CheckConstraint(condition=models.Q(models.Q(('status', 'running'), _negated=True), ('locked_until__isnull', False), _connector='OR'), name='background_job_running_has_lease'), models.CheckConstraint(condition=models.Q(('report__isnull', True), ('kind', 'agreement_report'), _connector='OR'), name='background_job_report_only_for_reports')],
            },
        ),
        migrations.RunPython(schedule_sweep, unschedule_sweep),
    ]
