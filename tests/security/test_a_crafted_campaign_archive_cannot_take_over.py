"""A crafted campaign archive cannot take over the installation: the issue's 3 KB archive, and every table outside the allow-list, are refused.

The archive that did it named `heartbench_core.User` (a superuser with a password of the
attacker's choosing), `heartbench_core.User.groups` (an existing expert raised to admin),
`heartbench_core.ApiToken` (an API token the attacker chose; DRF's `authtoken.Token` before) and `django_q.Schedule` (`os.system` in the
worker). Here it is refused even when signed with the operator's own key (who wrote an archive
says nothing about what it may restore), and when restored unverified on purpose.
"""

import pytest
from django.contrib.auth.models import Group
from django.core.management import call_command
from django.core.management.base import CommandError
from django_q.models import Schedule

from heartbench_core.models import ApiToken, User
from heartbench_core.services.api_tokens import digest_of
from tests.conftest import ARCHIVE_KEY
from tests.reliability.crafted_archive import every_count, jsonl, write

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("archive_key")]
WHEN = "2026-01-01T00:00:00+00:00"
ATTACKER_TOKEN = "a" * 40


def takeover(expert: str, admin_group: int) -> dict[str, bytes]:
    """The members of the issue's archive: users.jsonl names an existing expert, four tables do the rest."""
    superuser = {
        "id": 9999,
        "password": "md5$salt$0123456789abcdef0123456789abcdef",
        "last_login": None,
        "is_superuser": True,
        "username": "root2",
        "first_name": "",
        "last_name": "",
        "email": "",
        "is_staff": True,
        "is_active": True,
        "date_joined": WHEN,
        "language": "",
    }
    schedule = {
        "id": 7777,
        "name": "cleanup",
        "func": "os.system",
        "hook": None,
        "args": "'touch /tmp/owned'",
        "kwargs": None,
        "schedule_type": "O",
        "minutes": None,
        "repeats": -1,
        "next_run": WHEN,
        "cron": None,
        "task": None,
        "cluster": None,
        "intended_date_kwarg": None,
    }
    return {
        "users.jsonl": jsonl([{"username": expert, "email": "", "first_name": "", "last_name": ""}]),
        "heartbench_core.User.jsonl": jsonl([superuser]),
        "heartbench_core.User.groups.jsonl": jsonl([{"user_id": expert, "group_id": admin_group}]),
        "heartbench_core.ApiToken.jsonl": jsonl(
            [
                {
                    "id": 1,
                    "user_id": expert,
                    "name": "attacker",
                    "prefix": ATTACKER_TOKEN[:10],
                    "digest": digest_of(ATTACKER_TOKEN),
                    "created_at": WHEN,
                    "expires_at": "2099-01-01T00:00:00+00:00",
                }
            ]
        ),
        "django_q.Schedule.jsonl": jsonl([schedule]),
    }


def assert_not_taken_over(expert: User) -> None:
    assert not User.objects.filter(username="root2").exists()
    assert not User.objects.filter(is_superuser=True).exists()
    assert set(expert.groups.values_list("name", flat=True)) == {"expert"}
    assert not ApiToken.objects.filter(digest=digest_of(ATTACKER_TOKEN)).exists()
    assert not Schedule.objects.filter(func="os.system").exists()


@pytest.mark.parametrize("signed", [True, False], ids=["signed with the operator's key", "unsigned, --trust-unsigned"])
def test_the_issues_archive_is_refused_and_changes_nothing(cast, tmp_path, signed):
    members = takeover(cast.expert.username, Group.objects.get(name="admin").pk)
    archive = write(tmp_path / "campaign.zip", members, key=ARCHIVE_KEY if signed else None)
    assert archive.stat().st_size < 4096
    before = every_count()
    with pytest.raises(CommandError) as caught:
        call_command("import_campaign", str(archive), *([] if signed else ["--trust-unsigned"]), verbosity=0)
    assert "campaign.zip: heartbench_core.User: a campaign archive may not carry this table" in str(caught.value)
    assert every_count() == before
    assert_not_taken_over(cast.expert)


@pytest.mark.parametrize("member", ["heartbench_core.User.groups.jsonl", "heartbench_core.ApiToken.jsonl", "django_q.Schedule.jsonl"])
def test_each_piece_of_the_takeover_is_refused_on_its_own(cast, tmp_path, member):
    members = takeover(cast.expert.username, Group.objects.get(name="admin").pk)
    archive = write(tmp_path / "campaign.zip", {"users.jsonl": members["users.jsonl"], member: members[member]})
    before = every_count()
    with pytest.raises(CommandError, match=f"{member.removesuffix('.jsonl')}: a campaign archive may not carry this table"):
        call_command("import_campaign", str(archive), verbosity=0)
    assert every_count() == before
    assert_not_taken_over(cast.expert)


@pytest.mark.parametrize(
    "label",
    [
        "heartbench_core.User",
        "heartbench_core.User.groups",
        "heartbench_core.User.user_permissions",
        "auth.Group",
        "auth.Group.permissions",
        "auth.Permission",
        "contenttypes.ContentType",
        "authtoken.Token",
        "heartbench_core.ApiToken",
        "sessions.Session",
        "admin.LogEntry",
        "django_q.Schedule",
        "django_q.Task",
        "django_q.OrmQ",
        "heartbench_core.Endpoint",
        "heartbench_core.EndpointRun",
        "annotation.CampaignTally",
        "annotation.FaqEntry",
        "validation.BackgroundJob",
    ],
)
def test_a_manifest_naming_a_table_no_app_declares_is_refused_naming_it(cast, tmp_path, label):
    archive = write(tmp_path / "campaign.zip", {"users.jsonl": b"", f"{label}.jsonl": b'{"id": 1}\n'})
    with pytest.raises(CommandError, match=f"campaign.zip: {label}: a campaign archive may not carry this table"):
        call_command("import_campaign", str(archive), verbosity=0)


def test_the_allow_list_holds_no_table_of_users_roles_tokens_or_jobs():
    from heartbench_core.backup import _archivable

    labels = set(_archivable())
    assert not {label for label in labels if label.split(".")[0] in ("auth", "authtoken", "django_q", "sessions", "admin", "contenttypes")}
    assert not {label for label in labels if label.startswith("heartbench_core.User")}
    assert "annotation.Campaign.experts" in labels and "annotation.Judgment" in labels
