import json

import pytest
from django.core.management import call_command

from heartbench_core.models import Criterion, DatasetVersion
from tests.factories import DEMO_ITEMS

pytestmark = pytest.mark.django_db


def write(path, records):
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")


@pytest.fixture
def records():
    return [json.loads(line) for line in DEMO_ITEMS.read_text(encoding="utf-8").splitlines()]


def test_changed_content_creates_a_new_version_with_a_changelog(records, tmp_path, capsys):
    call_command("import_heartbench", str(DEMO_ITEMS), "--dataset", "demo")
    records[0]["rubric"][0]["content"] = "AI识别出用户的疲惫或无力感"  # reworded
    records[0]["rubric"][1]["score"] = 2  # reweighted
    records[1]["rubric"].insert(0, {"dimension": "温暖", "score": 2, "content": "AI对用户的处境表达关心和支持"})  # added
    del records[2]["rubric"][3]  # removed (幽默)
    records[3]["rubric"][0]["dimension"] = "情绪理解"  # relabelled
    removed_item = records.pop(4)["question_id"]
    records.append({**records[0], "question_id": "dm9999"})  # added item
    path = tmp_path / "v2.jsonl"
    write(path, records)
    capsys.readouterr()
    call_command("import_heartbench", str(path), "--dataset", "demo", "--note", "second")
    assert capsys.readouterr().out.strip() == "v2"
    v2 = DatasetVersion.objects.get(dataset__name="demo", label="v2")
    log = v2.changelog
    assert v2.parent.label == "v1"
    assert log["items_added"] == ["dm9999"]
    assert log["items_removed"] == [removed_item]
    assert {e["question_id"] for e in log["items_changed"]} == {"dm0001", "dm0002", "dm0003", "dm0004"}
    assert [(e["question_id"], e["after"]) for e in log["criteria_reworded"]] == [("dm0001", "AI识别出用户的疲惫或无力感")]
    assert [(e["question_id"], e["before"], e["after"]) for e in log["criteria_reweighted"]] == [("dm0001", 3, 2)]
    assert [(e["question_id"], e["before"], e["after"]) for e in log["criteria_relabelled"]] == [("dm0004", "情绪感知", "情绪理解")]
    added = [(e["question_id"], e["position"]) for e in log["criteria_added"]]
    assert ("dm0002", 0) in added
    assert ("dm0003", "幽默") in [(e["question_id"], e["ability"]) for e in log["criteria_removed"]]


def test_lineage_keys_follow_a_criterion_across_versions(records, tmp_path):
    call_command("import_heartbench", str(DEMO_ITEMS), "--dataset", "demo")
    v1_keys = {c.position: (c.key, c.revision) for c in Criterion.objects.filter(item__question_id="dm0002")}
    records[1]["rubric"].insert(0, {"dimension": "温暖", "score": 2, "content": "AI对用户的处境表达关心和支持"})
    records[1]["rubric"][2]["score"] = 4  # was position 1
    path = tmp_path / "v2.jsonl"
    write(path, records)
    call_command("import_heartbench", str(path), "--dataset", "demo")
    v2 = {c.position: (c.key, c.revision) for c in Criterion.objects.filter(item__question_id="dm0002", item__version__label="v2")}
    assert v2[1] == v1_keys[0]  # shifted, unchanged: same key, same revision
    assert v2[2] == (v1_keys[1][0], v1_keys[1][1] + 1)  # reweighted: same key, next revision
    assert v2[0][0] not in {k for k, _ in v1_keys.values()}  # new criterion, new lineage


def test_diff_versions_prints_the_changelog_between_any_two_versions(records, tmp_path, capsys):
    call_command("import_heartbench", str(DEMO_ITEMS), "--dataset", "demo")
    records[0]["rubric"][0]["content"] = "AI识别出用户的疲惫或无力感"
    path = tmp_path / "v2.jsonl"
    write(path, records)
    call_command("import_heartbench", str(path), "--dataset", "demo")
    records[0]["rubric"][1]["score"] = 1
    write(path, records)
    call_command("import_heartbench", str(path), "--dataset", "demo")
    capsys.readouterr()
    call_command("diff_versions", "--dataset", "demo", "v1", "v3")
    out = capsys.readouterr().out
    assert "demo@v1 → demo@v3" in out
    assert "1 reworded, 1 reweighted" in out
    assert "~ reweighted dm0001#1: 3 → 1" in out


def test_diff_versions_rejects_an_unknown_version():
    from django.core.management import CommandError

    call_command("import_heartbench", str(DEMO_ITEMS), "--dataset", "demo")
    with pytest.raises(CommandError, match="has no version 'v9'"):
        call_command("diff_versions", "--dataset", "demo", "v1", "v9")
