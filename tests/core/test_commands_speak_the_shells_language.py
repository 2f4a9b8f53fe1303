"""A command speaks the language of the shell that runs it: Chinese under a Chinese locale, English otherwise."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from heartbench_core.language import command_line_language
from tests.validation.builders import blind_test


@pytest.mark.parametrize(
    "environ, language",
    [
        ({}, "en"),
        ({"LANG": "C.UTF-8"}, "en"),
        ({"LANG": "zh_CN.UTF-8"}, "zh-hans"),
        ({"LANG": "en_US.UTF-8", "LC_ALL": "zh_SG.UTF-8"}, "zh-hans"),  # LC_ALL before LANG
        ({"LANG": "zh_CN.UTF-8", "LANGUAGE": "en_GB:zh_CN"}, "en"),  # LANGUAGE first, its first entry preferred
        ({"LANG": "zh_CN.UTF-8", "HEARTBENCH_LANGUAGE": "en"}, "en"),  # the platform's own variable decides
        ({"HEARTBENCH_LANGUAGE": "zh-hans"}, "zh-hans"),
        ({"HEARTBENCH_LANGUAGE": "klingon", "LANG": "zh_CN.UTF-8"}, "en"),  # an unsupported choice: the default
    ],
)
def test_the_language_follows_the_environment_as_gettext_reads_it(environ, language):
    assert command_line_language(environ) == language


def test_the_agreement_report_table_reads_in_chinese_under_a_chinese_locale(cast, monkeypatch):
    campaign = blind_test(cast)
    monkeypatch.setenv("HEARTBENCH_LANGUAGE", "zh-hans")
    out, err = io.StringIO(), io.StringIO()
    call_command("agreement_report", "--campaign", campaign.name, "--resamples", "20", stdout=out, stderr=err)
    table = out.getvalue()
    assert "评审模型与金标准对比" in table and "评分项一致率" in table and "专家之间" in table
    assert "Judge vs golden standard" not in table and "item agreement rate" not in table
    # Why the report is exploratory, stored in English, is said again in Chinese.
    assert "重抽样次数为 20（默认值为 1000）" in table and "重抽样次数为 20" in err.getvalue()
    monkeypatch.setenv("HEARTBENCH_LANGUAGE", "en")
    out = io.StringIO()
    call_command("agreement_report", "--campaign", campaign.name, "--resamples", "20", stdout=out, stderr=io.StringIO())
    assert "Judge vs golden standard" in out.getvalue() and "resamples is 20 (the default is 1000)" in out.getvalue()


def test_a_refusal_reads_in_chinese_too(db, monkeypatch):
    monkeypatch.setenv("HEARTBENCH_LANGUAGE", "zh-hans")
    with pytest.raises(CommandError) as refused:
        call_command("agreement_report", "--campaign", "no-such-campaign")
    assert not any("a" <= ch <= "z" for ch in str(refused.value).replace("no-such-campaign", "")), str(refused.value)


@pytest.mark.parametrize("name", ["release_policy", "score", "import_campaign", "judge", "create_campaign", "import_judgments"])
def test_help_texts_read_in_the_shells_language(name, monkeypatch, capsys):
    from django.core.management import get_commands, load_command_class

    command = load_command_class(get_commands()[name], name)
    english = command.create_parser("manage.py", name).format_help()
    monkeypatch.setenv("HEARTBENCH_LANGUAGE", "zh-hans")
    with pytest.raises(SystemExit):
        load_command_class(get_commands()[name], name).run_from_argv(["manage.py", name, "--help"])
    chinese = capsys.readouterr().out
    # The command's description and its own options' help are Chinese; argparse's frame ("options:") is its own.
    described = str(command.help).split("(")[0].split(";")[0].split(":")[0][:30]
    assert described and described in english and described not in chinese
    assert sum("\u4e00" <= ch <= "\u9fff" for ch in chinese) > 20, chinese
