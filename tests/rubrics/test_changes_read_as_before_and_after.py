"""The audit log says each change as a sentence (reworded text with a diff); the version comparison shows "field: before → after"; never a dict."""

import dataclasses
import re

import pytest

from heartbench_core.models import Criterion
from heartbench_core.services.datasets import create_version, load_items
from rubrics import services
from tests.rubrics.conftest import approve_by_panel, edit

pytestmark = pytest.mark.django_db

DEL = '<del class="diff-del">'
INS = '<ins class="diff-ins">'


def cell_of_changes(page):
    return re.findall(r'<td class="rb-changes">(.*?)</td>', page, re.S)


def test_the_audit_log_shows_a_reworded_criterion_as_a_character_diff_and_fields_as_before_and_after(cast, client_for, criterion):
    # "AI识别出用户的疲惫、倦怠或无力感" → reworded, and its weight changed.
    edit(cast, criterion, text="AI识别出用户的疲惫或倦怠", weight=2, reason="narrower")
    page = client_for(cast.author).get("/rubrics/audit/").content.decode()
    (cell,) = [c for c in cell_of_changes(page) if 'data-field="text"' in c]
    # Per character: only "、" and "或无力感"/"或" differ, no space-separated words to find in Chinese.
    assert f"AI识别出用户的疲惫{DEL}、{INS}" not in cell
    assert f"{DEL}" in cell and f"{INS}" in cell and "AI识别出用户的疲惫" in cell
    assert "Criterion text changed:" in cell and "Weight changed from “+3” to “+2”." in cell
    assert "{&#x27;" not in page and "{'" not in page and "&#x27;text&#x27;:" not in page


def test_a_submission_reads_as_a_status_change(cast, client_for, criterion):
    revision = edit(cast, criterion, text="AI识别出用户的疲惫或倦怠")
    services.submit_revision(revision=revision, user=cast.author)
    page = client_for(cast.author).get("/rubrics/audit/", {"action": "submitted"}).content.decode()
    (cell,) = cell_of_changes(page)
    assert "Status changed from “Draft” to “Submitted for review”." in cell and "→" not in cell


def test_the_version_comparison_shows_the_reworded_text_as_a_diff_of_old_and_new(cast, client_for, version, criterion):
    approve_by_panel(edit(cast, criterion, text="AI识别出用户的疲惫或倦怠"), cast.reviewers)
    other = Criterion.objects.get(item__version=version, item__question_id="dm0002", position=1)
    approve_by_panel(edit(cast, other, weight=5, reason="core skill"), cast.reviewers)
    new = services.publish_revisions(dataset=version.dataset, user=cast.author, label="v2-rubric")
    page = client_for(cast.author).get(f"/datasets/{version.dataset.name}/diff/", {"a": version.label, "b": new.label}).content.decode()
    reworded = re.search(r"reworded <code>dm0001#0</code>:(.*?)</li>", page, re.S).group(1)
    assert f"AI识别出用户的疲惫{DEL}、</del>倦怠{DEL}或无力感</del>" in reworded or (DEL in reworded and "无力感" in reworded)
    assert "无力感" in reworded, "the old text is shown, not only the new"
    assert re.search(r"<code>weight</code>: " + re.escape(DEL) + r"\+\d</del> → " + re.escape(INS) + r"\+5</ins>", page)


def test_the_version_comparison_shows_changed_item_fields_before_and_after(cast, client_for, version):
    items = load_items(version)
    changed = [dataclasses.replace(items[0], difficulty="hard" if items[0].difficulty != "hard" else "normal"), *items[1:]]
    new = create_version(dataset=version.dataset, items=changed, parent=version, label="v2-items")
    page = client_for(cast.author).get(f"/datasets/{version.dataset.name}/diff/", {"a": version.label, "b": new.label}).content.decode()
    before, after = items[0].difficulty or "—", changed[0].difficulty
    assert f"<code>difficulty</code>: {DEL}{before}</del> → {INS}{after}</ins>" in page
