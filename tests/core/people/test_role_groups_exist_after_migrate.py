"""The four role groups exist after `migrate`, so roles can be granted without the demo; the migration is idempotent."""

import importlib
import io

import pytest
from django.apps import apps
from django.contrib.auth.models import Group
from django.core.management import call_command
from django.db import migrations

from heartbench_core.roles import Role

pytestmark = pytest.mark.django_db

migration = importlib.import_module("heartbench_core.migrations.0005_create_role_groups")


def test_every_role_has_its_group_after_migrate():
    assert set(Group.objects.values_list("name", flat=True)) >= {r.value for r in Role}


def test_the_migration_names_exactly_the_platforms_roles():
    assert set(migration.ROLE_GROUPS) == {r.value for r in Role}


def test_running_it_again_creates_nothing_twice():
    before = Group.objects.count()
    migration.create_role_groups(apps, None)
    assert Group.objects.count() == before
    assert Group.objects.filter(name="expert").count() == 1


def test_the_demo_still_seeds_its_users_into_the_groups(settings):
    call_command("seed_demo", verbosity=0, stdout=io.StringIO())
    assert Group.objects.get(name="expert").user_set.filter(username="expert1").exists()
    assert Group.objects.filter(name__in=[r.value for r in Role]).count() == 4


def test_reversing_it_is_allowed_and_leaves_the_groups():
    [operation] = migration.Migration.operations
    assert operation.reversible
    assert operation.reverse_code is migrations.RunPython.noop
