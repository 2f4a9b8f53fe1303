"""Character-level diffs of rubric text, as escaped HTML."""

from heartbench_core.lib.textdiff import char_diff_html, char_opcodes


def test_character_level_diff_marks_changed_chinese_characters():
    assert char_opcodes("开放式提问", "开放性提问") == [("equal", "开放"), ("delete", "式"), ("insert", "性"), ("equal", "提问")]
    assert char_diff_html("a<b", "a<c") == 'a&lt;<del class="diff-del">b</del><ins class="diff-ins">c</ins>'


def test_the_html_escapes_quotes_and_ampersands_as_django_did_and_is_a_plain_string():
    html = char_diff_html("", "\"'&")
    assert html == '<ins class="diff-ins">&quot;&#x27;&amp;</ins>' and type(html) is str


def test_an_empty_or_missing_side_is_all_insertion_or_all_deletion():
    assert char_diff_html(None, "新") == '<ins class="diff-ins">新</ins>'  # type: ignore[arg-type]
    assert char_diff_html("旧", "") == '<del class="diff-del">旧</del>'
