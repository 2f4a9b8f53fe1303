"""import_judgments: creates the campaign from imported responses; any bad line names itself and writes nothing."""

import io
import json

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from annotation.models import Assignment, Campaign, CampaignResponse, Judgment
from heartbench_core.jsonl import InputFileError
from tests.factories import demo_responses, demo_version
from tests.validation.builders import as_file, judgment_lines
from validation.services.imports import import_judgments


@pytest.fixture
def demo(db):
    demo_version()
    demo_responses()


def lines_for(cast, **kw):
    return judgment_lines([e.username for e in cast.experts], **kw)


def run(lines, campaign="imported", **kw):
    return import_judgments(source=as_file(lines), dataset_name="demo", campaign_name=campaign, **kw)


def assert_nothing_written():
    assert not Campaign.objects.exists()
    assert not Assignment.objects.exists() and not Judgment.objects.exists()


def errors_of(lines, **kw):
    with pytest.raises(InputFileError) as exc:
        run(lines, **kw)
    assert_nothing_written()
    return [str(e) for e in exc.value.errors]


class TestImport:
    def test_it_creates_the_campaign_its_responses_and_submitted_judgments(self, cast, demo):
        lines = lines_for(cast)
        outcome = run(lines)
        campaign = outcome.campaign
        assert outcome.campaign_created and campaign.overlap == 3 and campaign.status == Campaign.Status.CLOSED
        assert CampaignResponse.objects.filter(campaign=campaign).count() == len(lines) // 3
        assert Assignment.objects.filter(campaign_response__campaign=campaign, status="submitted").count() == len(lines)
        assert Judgment.objects.count() == sum(len(line["detail"]) for line in lines)
        assert set(campaign.experts.values_list("username", flat=True)) == {e.username for e in cast.experts}
        first = lines[0]
        stored = list(
            Judgment.objects.filter(
                assignment__expert__username=first["annotator"],
                assignment__campaign_response__item__question_id=first["question_id"],
                assignment__campaign_response__response__model__name=first["model"],
            )
            .order_by("criterion__position")
            .values_list("hit", "rationale")
        )
        assert [int(h) for h, _ in stored] == first["detail"]
        assert [r for _, r in stored] == first["reasons"]

    def test_a_second_file_extends_the_existing_campaign(self, cast, demo):
        lines = lines_for(cast)
        run(lines[: len(lines) // 2])
        outcome = run(lines[len(lines) // 2 :])
        assert not outcome.campaign_created
        assert Assignment.objects.count() == len(lines)

    def test_it_rejects_a_detail_vector_of_the_wrong_length(self, cast, demo):
        lines = lines_for(cast)
        lines[2]["detail"] = lines[2]["detail"][:-1]
        lines[2]["reasons"] = lines[2]["reasons"][:-1]
        [message] = errors_of(lines)
        assert "line 3" in message and "'detail'" in message and "rubric items" in message

    def test_it_rejects_values_other_than_0_and_1(self, cast, demo):
        lines = lines_for(cast)
        lines[0]["detail"][1] = 2
        lines[1]["detail"][0] = True
        messages = errors_of(lines)
        assert any("line 1" in m and "detail[1]" in m for m in messages)
        assert any("line 2" in m and "detail[0]" in m for m in messages)

    def test_it_rejects_unknown_questions_models_and_annotators(self, cast, demo):
        lines = lines_for(cast)
        lines[0]["question_id"] = "nope01"
        lines[1]["model"] = "no-such-model"
        lines[2]["annotator"] = "ghost"
        messages = errors_of(lines)
        assert any("line 1" in m and "unknown question_id 'nope01'" in m for m in messages)
        assert any("line 2" in m and "unknown model 'no-such-model'" in m for m in messages)
        assert any("line 3" in m and "unknown annotator 'ghost'" in m for m in messages)

    def test_it_rejects_the_same_annotator_twice_on_one_response(self, cast, demo):
        lines = lines_for(cast)
        lines.append(dict(lines[0]))
        [message] = errors_of(lines)
        assert f"line {len(lines)}" in message and "on line 1" in message

    def test_it_rejects_a_user_who_is_not_an_expert(self, cast, demo):
        lines = lines_for(cast)
        lines[0]["annotator"] = cast.author.username
        [message] = errors_of(lines)
        assert "is not an expert" in message

    def test_create_experts_makes_accounts_for_unknown_annotators(self, cast, demo):
        lines = judgment_lines(["dr_wang", "dr_li", "dr_zhao"])
        outcome = run(lines, create_experts=True)
        assert sorted(outcome.experts_created) == ["dr_li", "dr_wang", "dr_zhao"]
        user = get_user_model().objects.get(username="dr_wang")
        assert user.groups.filter(name="expert").exists() and not user.has_usable_password()

    def test_the_command_prints_line_errors_and_exits_non_zero(self, cast, demo, tmp_path):
        lines = lines_for(cast)
        lines[4]["detail"] = [0, 1]
        del lines[4]["reasons"]
        path = tmp_path / "bad.jsonl"
        path.write_text("\n".join(json.dumps(x) for x in lines))
        with pytest.raises(CommandError) as exc:
            call_command("import_judgments", str(path), "--dataset", "demo", "--campaign", "c")
        assert "nothing was written" in str(exc.value) and "bad.jsonl, line 5" in str(exc.value)
        assert_nothing_written()

    def test_the_command_imports_a_good_file(self, cast, demo, tmp_path):
        path = tmp_path / "good.jsonl"
        path.write_text("\n".join(json.dumps(x) for x in lines_for(cast)))
        out = io.StringIO()
        call_command("import_judgments", str(path), "--dataset", "demo", "--campaign", "c", stdout=out)
        assert "campaign 'c' created" in out.getvalue()

    def test_the_api_returns_the_same_line_errors_as_json(self, cast, demo, client_for):
        lines = lines_for(cast)
        lines[0]["detail"] = "101"
        del lines[0]["reasons"]
        response = client_for(cast.admin).post(
            "/api/v1/validation/judgments/import/",
            {"file": as_file(lines, "up.jsonl"), "dataset": "demo", "campaign": "c"},
        )
        assert response.status_code == 400
        [error] = response.json()["errors"]
        assert error["line"] == 1 and error["field"] == "detail" and error["file"] == "up.jsonl"
        assert_nothing_written()

    def test_the_api_import_is_for_admins_only(self, cast, demo, client_for):
        for user in (cast.expert, cast.reviewer, cast.outsider):
            response = client_for(user).post(
                "/api/v1/validation/judgments/import/", {"file": as_file(lines_for(cast)), "dataset": "demo", "campaign": "c"}
            )
            assert response.status_code == 403
        assert_nothing_written()
