"""Query terms, the match rule, the score and highlighted snippets of the library's search (pure)."""

from heartbench_core.lib.search import (
    Segment,
    Term,
    highlight,
    normalise,
    parse_query,
    plain_text,
    score,
    sections,
    term_matches,
)


def test_a_query_splits_at_spaces_punctuation_and_where_chinese_meets_latin():
    terms = parse_query("AI共情，Empathy  第一人称")
    assert [t.text for t in terms] == ["ai", "共情", "empathy", "第一人称"]
    assert terms[1].grams == () and terms[3].grams == ("第一", "一人", "人称") and terms[3].need == 2


def test_full_width_letters_and_case_fold_to_the_same_term():
    assert normalise("ＡＩ Empathy") == "ai empathy"
    assert parse_query("ＥＭＰＡＴＨＹ")[0].text == "empathy"


def test_a_lone_latin_letter_is_no_term_but_a_lone_han_character_is():
    assert [t.text for t in parse_query("a 我 b")] == ["我"]


def test_duplicate_terms_count_once_and_a_query_has_at_most_eight():
    assert len(parse_query("共情 共情 共情")) == 1
    assert len(parse_query(" ".join(f"word{i}" for i in range(20)))) == 8


def test_a_long_han_term_matches_two_thirds_of_its_pairs():
    term = parse_query("过早建议")[0]
    assert term_matches(normalise("AI在用户未明确表示需要建议时，过早提供具体行为建议"), term)
    assert not term_matches(normalise("过早地结束了对话"), term)  # only 过早: 1 of 3


def test_every_term_must_match():
    terms = parse_query("共情 幽默")
    assert score("", "表达共情", terms) is None
    assert score("", "表达共情，也有幽默", terms) is not None


def test_the_title_counts_more_than_the_text_and_repetition_counts_up_to_a_cap():
    terms = parse_query("共情")
    in_title = score("共情", "共情 其他内容", terms)
    in_text = score("其他", "其他 共情内容", terms)
    assert in_title > in_text
    assert score("", "共情" * 3, terms) - score("", "共情", terms) == 2
    assert score("", "共情" * 9, terms) == score("", "共情" * 5, terms)


def test_the_criterion_in_focus_adds_a_constant():
    terms = parse_query("共情")
    assert score("", "共情", terms, focus=True) - score("", "共情", terms) == 4


def test_highlight_marks_whole_terms_and_maps_back_to_the_original_characters():
    segments = highlight("ＡＩ表达了共情。", parse_query("ai 共情"))
    assert segments == [Segment("ＡＩ", True), Segment("表达了"), Segment("共情", True), Segment("。")]


def test_highlight_marks_the_pairs_of_a_phrase_that_is_not_there_whole():
    marked = [s.text for s in highlight("过早提供具体行为建议", parse_query("过早建议")) if s.marked]
    assert marked == ["过早", "建议"]


def test_a_snippet_is_a_window_around_the_first_match_with_ellipses():
    text = "开头" * 100 + "共情" + "结尾" * 100
    segments = highlight(text, parse_query("共情"), width=40)
    assert segments[0] == Segment("…") and segments[-1] == Segment("…")
    assert Segment("共情", True) in segments
    assert sum(len(s.text) for s in segments[1:-1]) == 40


def test_plain_text_drops_markdown_markup_but_keeps_link_text():
    assert plain_text("# 标题\n\n**加粗** [链接](https://example.org) `代码`") == "标题\n加粗 链接 代码"


def test_sections_cut_a_document_at_its_headings_or_else_at_paragraphs():
    assert [(s.heading, s.body) for s in sections("前言\n# 一\n正文一\n## 二\n正文二")] == [
        ("", "前言"),
        ("一", "正文一"),
        ("二", "正文二"),
    ]
    assert [s.body for s in sections("第一段\n\n第二段")] == ["第一段", "第二段"]


def test_a_term_is_a_plain_value():
    assert Term("共情") == parse_query("共情")[0]
