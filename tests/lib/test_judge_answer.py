"""Reading a judge's answer: every accepted form gives exactly one verdict per criterion, in order; anything else is a problem."""

import json

import pytest

from heartbench_core.lib import judge_answer as ja
from heartbench_core.lib.judge_answer import Problem, Verdicts, parse_answer, problem_in_chinese

PLATFORM = {"criteria": [{"index": 1, "reason": "回复点出了孤独感", "hit": 1}, {"index": 2, "reason": "没有提问", "hit": 0}]}
RELEASED = {"reason": "整体理由", "detail": [0, 1]}


def test_it_reads_the_platform_shape_as_strict_json():
    got = parse_answer(json.dumps(PLATFORM, ensure_ascii=False), 2)
    assert got == Verdicts((1, 0), ("回复点出了孤独感", "没有提问"), ja.PLATFORM_SHAPE)


def test_it_reads_the_released_benchmark_shape_and_gives_every_criterion_the_question_s_reason():
    got = parse_answer(json.dumps(RELEASED, ensure_ascii=False), 2)
    assert got == Verdicts((0, 1), ("整体理由", "整体理由"), ja.RELEASED_SHAPE)


def test_it_reads_the_released_string_form_of_the_hit_vector():
    got = parse_answer('{"reason": "r", "detail": "[1, 0, 1]"}', 3)
    assert isinstance(got, Verdicts) and got.hits == (1, 0, 1)


@pytest.mark.parametrize(
    "text",
    [
        "```json\n" + json.dumps(PLATFORM, ensure_ascii=False) + "\n```",
        "```\n" + json.dumps(PLATFORM, ensure_ascii=False) + "\n```",
        "好的，下面是我的评估：\n```json\n" + json.dumps(PLATFORM, ensure_ascii=False) + "\n```\n以上。",
        "以下是结果：" + json.dumps(PLATFORM, ensure_ascii=False) + " 希望有帮助。",
        "Here's my verdict: " + json.dumps(PLATFORM, ensure_ascii=False),
        str(PLATFORM),  # a Python literal: single quotes
        "结果如下 " + str(PLATFORM) + " 完毕",
    ],
    ids=["fenced-json", "fenced-bare", "fence-in-prose", "prose-wrapped", "apostrophe-in-prose", "python-literal", "python-in-prose"],
)
def test_it_reads_the_answer_however_it_is_wrapped(text):
    got = parse_answer(text, 2)
    assert isinstance(got, Verdicts) and got.hits == (1, 0) and got.reasons[0] == "回复点出了孤独感"


def test_braces_and_quotes_inside_reasons_do_not_confuse_it():
    answer = {"criteria": [{"index": 1, "reason": "回复说\"{别担心}\"，也用了'我'", "hit": 1}]}
    assert parse_answer("前言 {无关} " + json.dumps(answer, ensure_ascii=False), 1).hits == (1,)
    assert parse_answer(str(answer), 1).reasons == ("回复说\"{别担心}\"，也用了'我'",)


def test_a_fenced_answer_wins_over_an_example_in_the_prose():
    example = {"criteria": [{"index": 1, "reason": "示例", "hit": 0}]}
    real = {"criteria": [{"index": 1, "reason": "真实", "hit": 1}]}
    text = f"格式示例 {json.dumps(example)}\n```json\n{json.dumps(real)}\n```"
    assert parse_answer(text, 1).reasons == ("真实",)


@pytest.mark.parametrize(
    ("text", "count", "code", "params"),
    [
        ("", 2, ja.EMPTY, {}),
        ("   \n", 2, ja.EMPTY, {}),
        ("我认为都命中了。", 2, ja.NO_OBJECT, {}),
        ('{"criteria": [{"index": 1, "reason": "回复点出', 2, ja.UNREADABLE, {}),  # cut off
        ('{"criteria": [1, 2,, ]}', 2, ja.UNREADABLE, {}),
        ('{"verdicts": [1, 0]}', 2, ja.UNKNOWN_SHAPE, {}),
        (json.dumps(PLATFORM), 3, ja.WRONG_LENGTH, {"found": 2, "expected": 3}),
        (json.dumps(PLATFORM), 1, ja.WRONG_LENGTH, {"found": 2, "expected": 1}),
        (json.dumps(RELEASED), 3, ja.WRONG_LENGTH, {"found": 2, "expected": 3}),
        ('{"criteria": [1, 0]}', 2, ja.NOT_AN_ENTRY, {"position": 1}),
        (
            '{"criteria": [{"index": 2, "reason": "a", "hit": 1}, {"index": 1, "reason": "b", "hit": 0}]}',
            2,
            ja.BAD_INDEX,
            {"position": 1, "expected": 1, "found": "2"},
        ),
        ('{"criteria": [{"reason": "a", "hit": 1}]}', 1, ja.BAD_INDEX, {"position": 1, "expected": 1, "found": "(missing)"}),
        ('{"criteria": [{"index": 1, "reason": "a", "hit": 2}]}', 1, ja.BAD_VALUE, {"position": 1, "found": "2"}),
        ('{"criteria": [{"index": 1, "reason": "a", "hit": true}]}', 1, ja.BAD_VALUE, {"position": 1, "found": "True"}),
        ('{"criteria": [{"index": 1, "reason": "a", "hit": "1"}]}', 1, ja.BAD_VALUE, {"position": 1, "found": "'1'"}),
        ('{"criteria": [{"index": 1, "reason": "a"}]}', 1, ja.BAD_VALUE, {"position": 1, "found": "(missing)"}),
        ('{"criteria": [{"index": 1, "reason": " ", "hit": 1}]}', 1, ja.MISSING_REASON, {"position": 1}),
        ('{"criteria": [{"index": 1, "hit": 1}]}', 1, ja.MISSING_REASON, {"position": 1}),
        ('{"reason": "r", "detail": [1, 0.5]}', 2, ja.BAD_VALUE, {"position": 2, "found": "0.5"}),
        ('{"reason": 3, "detail": [1, 0]}', 2, ja.MISSING_REASON, {"position": 0}),
        ('{"criteria": [{"index": 1, "reason": "a\\u0000b", "hit": 1}]}', 1, ja.UNSTORABLE_REASON, {"position": 1}),
        ('{"reason": "a\\ud800", "detail": [1]}', 1, ja.UNSTORABLE_REASON, {"position": 0}),
    ],
)
def test_an_unusable_answer_is_a_problem_never_a_padded_or_truncated_verdict(text, count, code, params):
    got = parse_answer(text, count)
    assert got == Problem(code, params)


def test_an_answer_the_endpoint_cut_at_its_token_limit_is_a_problem_even_if_it_looks_complete():
    assert parse_answer(json.dumps(PLATFORM), 2, truncated=True) == Problem(ja.TRUNCATED)


def test_zero_criteria_needs_an_empty_list():
    assert parse_answer('{"criteria": []}', 0) == Verdicts((), (), ja.PLATFORM_SHAPE)
    assert parse_answer('{"criteria": [{"index": 1, "reason": "a", "hit": 1}]}', 0).code == ja.WRONG_LENGTH


def test_long_values_are_shortened_in_the_problem():
    got = parse_answer('{"criteria": [{"index": 1, "reason": "a", "hit": "' + "x" * 100 + '"}]}', 1)
    assert len(got.params["found"]) == 40


@pytest.mark.parametrize("code", ja.PROBLEM_CODES)
def test_every_problem_reads_in_chinese_with_its_figures(code):
    params = {"found": 3, "expected": 4, "position": 2}
    text = problem_in_chinese(Problem(code, params))
    assert text and code not in text
    if code == ja.WRONG_LENGTH:
        assert "3" in text and "4" in text


def test_a_deeply_nested_answer_is_a_problem_not_a_crash():
    assert isinstance(parse_answer("{" * 5000 + "}" * 5000, 1), Problem)
    assert isinstance(parse_answer("[" * 100000, 1), Problem)


# The answer format the released judge prompt asks for, spelled as the prompt spells it: quoted keys each followed by
# its type, the reason as bare text (the prompt asks for 「」 instead of quotes inside it), no comma between the two.
RELEASED_PROMPT_ANSWER = (
    "{\n"
    "  'reason'（String）:回复先接住了求助者的疲惫，用「我能理解」回应情绪，但没有追问原因，也没有给出具体建议。\n"
    "  'detail'（array of Integer）:[1,0,1,0]\n"
    "}"
)
RELEASED_PROMPT_REASON = "回复先接住了求助者的疲惫，用「我能理解」回应情绪，但没有追问原因，也没有给出具体建议。"


@pytest.mark.parametrize(
    "text",
    [
        RELEASED_PROMPT_ANSWER,
        "```json\n" + RELEASED_PROMPT_ANSWER + "\n```",
        "评分如下：\n" + RELEASED_PROMPT_ANSWER + "\n以上。",
        RELEASED_PROMPT_ANSWER.replace("（String）", "(String)").replace("（array of Integer）:", "(array of Integer)："),
        RELEASED_PROMPT_ANSWER.replace("[1,0,1,0]\n", "[1, 0, 1, 0](按顺序给出rubric命中情况)\n"),
        RELEASED_PROMPT_ANSWER.replace("。\n", "。,\n"),
        RELEASED_PROMPT_ANSWER.replace(":回复", ": '回复").replace("。\n", "。',\n"),
        RELEASED_PROMPT_ANSWER.replace("'reason'（String）", '"reason"').replace("'detail'（array of Integer）", '"detail"'),
    ],
    ids=["as-asked", "fenced", "in-prose", "half-width", "prompt-note-after-list", "trailing-comma", "quoted-reason", "plain-keys"],
)
def test_it_reads_the_answer_format_the_released_prompt_itself_asks_for(text):
    got = parse_answer(text, 4)
    assert got == Verdicts((1, 0, 1, 0), (RELEASED_PROMPT_REASON,) * 4, ja.RELEASED_SHAPE)


def test_the_prompt_s_own_example_repeated_before_the_answer_is_not_read_as_the_answer():
    example = "{\n  'reason'（String）:（说出具体的评分过程）\n  'detail'（array of Integer）:[1,0,1,....](按顺序给出)\n}\n"
    assert parse_answer(example + RELEASED_PROMPT_ANSWER, 4).hits == (1, 0, 1, 0)
    assert parse_answer(example, 4) == Problem(ja.UNREADABLE)


@pytest.mark.parametrize(
    ("detail", "count", "problem"),
    [
        ("[1,0,1,0]", 5, Problem(ja.WRONG_LENGTH, {"found": 4, "expected": 5})),
        ("[1,0,1,0]", 3, Problem(ja.WRONG_LENGTH, {"found": 4, "expected": 3})),
        ("[1,0,2,0]", 4, Problem(ja.BAD_VALUE, {"position": 3, "found": "2"})),
        ("[1,0,true,0]", 4, Problem(ja.BAD_VALUE, {"position": 3, "found": "True"})),
        ("[1,0,'1',0]", 4, Problem(ja.BAD_VALUE, {"position": 3, "found": "'1'"})),
        ("[1,0,0.5,0]", 4, Problem(ja.BAD_VALUE, {"position": 3, "found": "0.5"})),
        ("[1,0,1,....]", 4, Problem(ja.UNREADABLE)),
        ("[]", 4, Problem(ja.WRONG_LENGTH, {"found": 0, "expected": 4})),
    ],
)
def test_the_released_prompt_s_format_is_read_strictly_same_length_and_0_or_1_only(detail, count, problem):
    assert parse_answer(RELEASED_PROMPT_ANSWER.replace("[1,0,1,0]", detail), count) == problem


def test_a_reason_of_the_released_prompt_s_format_holding_a_character_no_database_stores_is_a_problem():
    assert parse_answer(RELEASED_PROMPT_ANSWER.replace("求助者", "求助\x00者"), 4) == Problem(ja.UNSTORABLE_REASON, {"position": 0})
