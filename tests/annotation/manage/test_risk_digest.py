"""Admins who opt in get an e-mail digest of open risk alerts and needs-action counts; nobody else does."""

from io import StringIO

import pytest
from django.contrib.auth.models import Group
from django.core import mail
from django.core.management import call_command

from annotation.manage.needs_action_selectors import DIGEST_GROUP
from annotation.models import AdminAlert
from annotation.services.digest import send_risk_digest
from annotation.tasks import send_risk_digest_task
from heartbench_core.roles import Role
from tests.conftest import make_user

pytestmark = pytest.mark.django_db


def _opt_in(*users):
    group, _ = Group.objects.get_or_create(name=DIGEST_GROUP)
    for user in users:
        user.groups.add(group)


def test_only_opted_in_admins_get_the_digest(cast):
    other_admin = make_user("amir_admin", Role.ADMIN)
    _opt_in(cast.admin, cast.expert)  # an expert in the group is no admin: nothing for them
    AdminAlert.objects.create(kind=AdminAlert.Kind.CALIBRATION_FAILED, expert=cast.expert, message="erin scored 40% on calibration")
    assert send_risk_digest() == 1
    [message] = mail.outbox
    assert message.to == [cast.admin.email] and other_admin.email not in message.to
    assert "1 items need action" in message.subject
    assert "- open risk alerts: 1" in message.body and "erin scored 40% on calibration" in message.body
    assert "/work/manage/" in message.body


def test_nothing_waiting_sends_nothing(cast):
    _opt_in(cast.admin)
    assert send_risk_digest() == 0 and mail.outbox == []


def test_the_task_and_the_command_send_it(cast):
    _opt_in(cast.admin)
    AdminAlert.objects.create(kind=AdminAlert.Kind.CALIBRATION_FAILED, expert=cast.expert, message="x")
    assert send_risk_digest_task() == 1
    out = StringIO()
    call_command("send_risk_digest", stdout=out)
    assert out.getvalue().strip() == "1 digests sent." and len(mail.outbox) == 2
