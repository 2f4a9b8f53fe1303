"""Corrections of submitted work, and the discussion thread opened after all k judgments."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('annotation', '0001_initial'),
        ('heartbench_core', '0002_add_judge_runs_and_verdicts'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name='DiscussionComment',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('body', models.TextField()),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('author', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL)),
                ('campaign_response', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='discussion_comments', to='annotation.campaignresponse')),
                ('criterion', models.ForeignKey(blank=True, help_text='None: about the response.', null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='heartbench_core.criterion')),
            ],
            options={
                'ordering': ['created_at', 'id'],
            },
        ),
        migrations.CreateModel(
            name='CorrectionRequest',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('reason', models.TextField()),
                ('original', models.JSONField(help_text='The submitted judgments when the request was made.')),
                ('proposed', models.JSONField(help_text='The corrected judgments the expert asks for.')),
                ('status', models.CharField(choices=[('pending', 'Pending'), ('applying', 'Being applied'), ('accepted', 'Accepted'), ('refused', 'Refused')], default='pending', max_length=10)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('decided_at', models.DateTimeField(blank=True, null=True)),
                ('decision_note', models.TextField(blank=True)),
                ('assignment', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='correction_requests', to='annotation.assignment')),
                ('decided_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'ordering': ['-created_at'],
                'constraints': [models.UniqueConstraint(condition=models.Q(('status__in', ['pending', 'applying'])), fields=('assignment',), name='one_open_correction_per_assignment')],
            },
        ),
        migrations.CreateModel(
            name='DiscussionVote',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('hit', models.BooleanField()),
                ('updated_at', models.DateTimeField(auto_now=True)),
                ('campaign_response', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='discussion_votes', to='annotation.campaignresponse')),
                ('criterion', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='+', to='heartbench_core.criterion')),
                ('voter', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'constraints': [models.UniqueConstraint(fields=('campaign_response', 'criterion', 'voter'), name='uniq_discussion_vote')],
            },
        ),
    ]
