"""The workspace's read models show an expert their own work only, even handed another's row.

The pages and the API find an assignment by public id and owner; the read models that take an
assignment already found check the owner again (on the row in hand, no query), so a caller that
got a row some other way still cannot build another expert's judging page, thread, corrections or
library panel from it: 404, as for an id that does not exist.
"""

import pytest
from django.http import Http404

from annotation.knowledge import read_models as library
from annotation.workspace import read_models
from heartbench_core.read_models import Viewer

TAKING_AN_ASSIGNMENT = [
    pytest.param(lambda viewer, a: read_models.judging_page(viewer, a), id="judging page"),
    pytest.param(lambda viewer, a: read_models.discussion(viewer, a), id="discussion"),
    pytest.param(lambda viewer, a: read_models.own_corrections(viewer, a), id="corrections"),
    pytest.param(lambda viewer, a: read_models.attempt_finished_by(viewer, a), id="calibration attempt"),
    pytest.param(lambda viewer, a: library.panel(viewer, a, None, query="", with_guidelines=True), id="library panel"),
    pytest.param(lambda viewer, a: library.criterion_in_focus(viewer, a, None), id="criterion in focus"),
]


@pytest.mark.parametrize("read", TAKING_AN_ASSIGNMENT)
def test_another_experts_row_answers_404(workspace, cast, read):
    assignment = workspace.reserve(cast.experts[1], "dm0001")
    with pytest.raises(Http404):
        read(Viewer(cast.expert), assignment)


@pytest.mark.parametrize("read", TAKING_AN_ASSIGNMENT)
def test_the_experts_own_row_is_read(workspace, cast, read):
    assignment = workspace.reserve(cast.expert, "dm0001")
    try:
        read(Viewer(cast.expert), assignment)
    except Http404 as exc:  # the discussion of unsubmitted work is closed: its own 404, not the owner's
        assert "discussion" in str(exc)


def test_a_public_id_of_another_expert_answers_404(workspace, cast):
    assignment = workspace.reserve(cast.experts[1], "dm0001")
    for lapsed_too in (False, True):
        with pytest.raises(Http404):
            read_models.own_work(Viewer(cast.expert), assignment.public_id, lapsed_too=lapsed_too)
    with pytest.raises(Http404):
        read_models.judging_screen(Viewer(cast.expert), assignment.public_id)
    assert read_models.judging_screen(Viewer(cast.experts[1]), assignment.public_id).assignment.pk == assignment.pk
