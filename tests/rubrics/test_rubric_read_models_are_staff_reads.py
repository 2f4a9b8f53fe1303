"""The rubric read models are staff reads: an expert or an outsider gets nothing from them, whatever view asked.

Every rubric page and API view checks the role first; the read models check it again, so a new view
that forgot its decorator or permission class still shows no draft, weight or review discussion.
"""

import pytest
from django.contrib.auth.models import AnonymousUser
from django.core.exceptions import PermissionDenied

from heartbench_core.read_models import Viewer
from rubrics import read_models

pytestmark = pytest.mark.django_db


@pytest.fixture(params=["expert", "outsider", "anonymous"])
def not_staff(request, cast) -> Viewer:
    return Viewer(AnonymousUser() if request.param == "anonymous" else getattr(cast, request.param))


def test_a_single_thing_is_refused(not_staff, criterion):
    with pytest.raises(PermissionDenied):
        read_models.editor(not_staff, "demo", "dm0001")
    with pytest.raises(PermissionDenied):
        read_models.criterion_history(not_staff, criterion.lineage_id, a=None, b=None, feedback_too=True)
    with pytest.raises(PermissionDenied):
        read_models.work_list(not_staff, [criterion.lineage.dataset])


def test_a_list_is_empty(not_staff, cast, criterion):
    from tests.rubrics.conftest import edit

    edit(cast, criterion, text="AI识别出用户的疲惫感")
    staff = Viewer(cast.admin)
    assert read_models.revisions(staff).count() == 1 and read_models.latest_criteria(staff).exists()
    assert read_models.revisions(not_staff).count() == 0
    assert not read_models.latest_criteria(not_staff).exists()
    assert not read_models.audit_log(not_staff, {}).entries.exists() and read_models.audit_log(staff, {}).entries.exists()
