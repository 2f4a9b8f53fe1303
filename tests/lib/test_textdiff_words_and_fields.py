"""Word diffs (Chinese per character) and field-by-field changes, as audit entries and version diffs show them."""

from heartbench_core.lib.textdiff import MISSING, field_changes, tokens, word_diff_html, word_opcodes


def test_english_is_compared_word_by_word():
    assert word_opcodes("The AI asks an open question", "The AI asks a closed question") == [
        ("equal", "The AI asks "),
        ("delete", "an"),
        ("insert", "a"),
        ("equal", " "),
        ("delete", "open"),
        ("insert", "closed"),
        ("equal", " question"),
    ]


def test_chinese_is_compared_character_by_character():
    assert word_opcodes("AI对用户内心感受进行开放式提问", "AI对用户内心感受进行封闭式提问") == [
        ("equal", "AI对用户内心感受进行"),
        ("delete", "开放"),
        ("insert", "封闭"),
        ("equal", "式提问"),
    ]
    assert tokens("用户“生活没劲”") == ["用", "户", "“", "生", "活", "没", "劲", "”"]


def test_mixed_text_keeps_latin_words_whole_and_splits_han():
    assert tokens("AI询问don't 3.5次") == ["AI", "询", "问", "don't", " ", "3.5", "次"]


def test_the_html_is_escaped():
    assert word_diff_html("a <b>", "a <i>") == 'a &lt;<del class="diff-del">b</del><ins class="diff-ins">i</ins>&gt;'


def test_changed_fields_read_before_and_after_and_nested_fields_get_dotted_names():
    changes = field_changes(
        {"status": "draft", "weight": 3, "lineage": {"retired": False}, "gone": "x"},
        {"status": "submitted", "weight": 2, "lineage": {"retired": True}, "revision": 4},
    )
    assert [(c.field, c.before, c.after, c.status) for c in changes] == [
        ("status", "draft", "submitted", "changed"),
        ("weight", "3", "2", "changed"),
        ("lineage.retired", "false", "true", "changed"),
        ("gone", "x", MISSING, "removed"),
        ("revision", MISSING, "4", "added"),
    ]
    assert all(c.diff_html == "" for c in changes)


def test_unchanged_fields_are_left_out_and_a_created_state_lists_every_field():
    assert field_changes({"text": "同", "weight": 1}, {"text": "同", "weight": 1}) == []
    created = field_changes(None, {"text": "新标准", "weight": 3})
    assert [(c.field, c.status, c.after) for c in created] == [("text", "added", "新标准"), ("weight", "added", "3")]


def test_reworded_long_text_comes_with_a_diff_of_old_and_new():
    (change,) = field_changes({"text": "AI对用户内心感受或状态进行开放式提问"}, {"text": "AI对用户内心感受或状态进行封闭式提问"})
    assert change.diff_html == 'AI对用户内心感受或状态进行<del class="diff-del">开放</del><ins class="diff-ins">封闭</ins>式提问'
    assert change.before.endswith("开放式提问") and change.after.endswith("封闭式提问")


def test_no_value_is_shown_as_a_python_dict():
    changes = field_changes({"summary": {"items_added": 0}}, {"summary": {"items_added": 2}, "flag": None})
    assert [(c.field, c.before, c.after) for c in changes] == [("summary.items_added", "0", "2")]
    assert not any("{" in c.before + c.after for c in changes)
