"""Archive users become new accounts with no password and no staff role; an account already here is used only when the operator maps it."""

import io

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from heartbench_core.models import ApiToken, User
from tests.conftest import PASSWORD
from tests.reliability.crafted_archive import every_count, jsonl, read_members, records, rewrite, second_copy
from tests.security.world import build_world

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("archive_key")]


@pytest.fixture
def original(cast, tmp_path):
    """The archive of the campaign here; the tests restore copies of it beside it."""
    build_world(cast)
    archive = tmp_path / "matrix.zip"
    call_command("export_campaign", "matrix", "-o", str(archive), verbosity=0)
    return archive


def restore(archive, *options: str) -> str:
    out = io.StringIO()
    call_command("import_campaign", str(archive), *options, stdout=out, verbosity=0)
    return out.getvalue()


def refused(archive, *options: str) -> str:
    before = every_count()
    with pytest.raises(CommandError) as caught:
        call_command("import_campaign", str(archive), *options, verbosity=0)
    assert every_count() == before
    return str(caught.value)


def roles(username: str) -> set[str]:
    return set(User.objects.get(username=username).groups.values_list("name", flat=True))


def test_archive_users_become_new_accounts_with_no_password_and_no_staff_role(original, tmp_path):
    printed = restore(second_copy(original, tmp_path / "copy.zip"))
    admin = User.objects.get(username="alice_admin-2")
    assert not admin.has_usable_password() and not admin.is_staff and not admin.is_superuser
    assert roles("alice_admin-2") == set()  # the archive says admin: the operator decides
    assert roles("erin_expert1-2") == {"expert"}  # what an expert needs to appear in the campaign
    assert roles("sam_reviewer2-2") == set()
    assert "grant them on the People page" in printed and "alice_admin-2 (admin)" in printed


def test_a_name_taken_here_is_refused_naming_it_and_the_option(original, tmp_path):
    message = refused(second_copy(original, tmp_path / "copy.zip", same_people=True))
    assert "already have an account here: alice_admin, erin_expert1" in message
    assert "--map-user" in message
    assert User.objects.get(username="erin_expert1").check_password(PASSWORD)


@pytest.mark.parametrize(
    "claim",
    [{"is_superuser": True}, {"is_staff": True}, {"password": "md5$salt$0123"}, {"user_permissions": [1]}, {"last_login": None}],
    ids=lambda claim: next(iter(claim)),
)
def test_a_user_record_that_claims_more_than_a_name_is_refused(original, tmp_path, claim):
    archive = second_copy(original, tmp_path / "copy.zip")
    members = read_members(archive)
    users = records(members["users.jsonl"])
    users[0].update(claim)
    members["users.jsonl"] = jsonl(users)
    rewrite(archive, members)
    message = refused(archive)
    assert f"copy.zip/users.jsonl, line 1, field '{next(iter(claim))}': a campaign archive does not say this about a user" in message
    assert not User.objects.filter(is_superuser=True).exists()


def test_mapped_users_keep_their_account_roles_profile_and_token(original, tmp_path, cast):
    archive = second_copy(original, tmp_path / "copy.zip", same_people=True)
    names = [u["username"] for u in records(read_members(archive)["users.jsonl"])]
    tokens = set(ApiToken.objects.filter(user=cast.author).values_list("digest", flat=True))
    count = ApiToken.objects.count()
    roles_before = {name: roles(name) for name in names}
    printed = restore(archive, *(f"--map-user={name}={name}" for name in names))
    from annotation.models import Assignment, Campaign, ExpertProfile

    copy = Campaign.objects.get(name="matrix-2")
    assert set(Assignment.objects.filter(campaign_response__campaign=copy).values_list("expert__username", flat=True)) <= set(names)
    assert {name: roles(name) for name in names} == roles_before
    assert User.objects.get(username="alice_admin").check_password(PASSWORD)
    assert set(ApiToken.objects.filter(user=cast.author).values_list("digest", flat=True)) == tokens and ApiToken.objects.count() == count
    assert ExpertProfile.objects.filter(user__username="erin_expert1").count() == 1  # theirs, not the archive's
    assert "Attached to existing accounts, as you confirmed" in printed and "erin_expert1 → erin_expert1" in printed


def test_a_user_mapped_under_another_name_takes_that_account(original, tmp_path, cast):
    from annotation.models import Campaign

    restore(second_copy(original, tmp_path / "copy.zip"), "--map-user=erin_expert3-2=olga_outsider")
    assert set(Campaign.objects.get(name="matrix-2").experts.values_list("username", flat=True)) == {
        "erin_expert1-2",
        "erin_expert2-2",
        "olga_outsider",
    }
    assert not User.objects.filter(username="erin_expert3-2").exists()
    assert roles("olga_outsider") == set()


def test_mapping_a_name_the_archive_lacks_or_an_account_not_here_is_refused(original, tmp_path):
    archive = second_copy(original, tmp_path / "copy.zip")
    assert "the archive has no user of that name" in refused(archive, "--map-user=nobody=olga_outsider")
    assert "no account 'nobody' here" in refused(archive, "--map-user=erin_expert1-2=nobody")
    assert "would both become olga_outsider" in refused(
        archive, "--map-user=erin_expert1-2=olga_outsider", "--map-user=erin_expert2-2=olga_outsider"
    )


def test_an_unverified_archive_may_not_put_rows_under_a_staff_account(original, tmp_path):
    archive = second_copy(original, tmp_path / "copy.zip", same_people=True)
    names = [u["username"] for u in records(read_members(archive)["users.jsonl"])]
    rewrite(archive, read_members(archive), key=None)
    message = refused(archive, "--trust-unsigned", *(f"--map-user={name}={name}" for name in names))
    assert "--map-user alice_admin=alice_admin: an unverified archive (--trust-unsigned) may not put rows under a staff account" in message
