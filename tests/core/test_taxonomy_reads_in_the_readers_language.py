"""The taxonomy on a page: Chinese labels alone in Chinese, with their English names in English; machine names translated."""

from django.template import Context, Template
from django.utils import translation

from heartbench_core import taxonomy_display as show
from heartbench_core.lib.taxonomy import ABILITIES, DIMENSIONS


def test_an_ability_reads_chinese_alone_in_chinese_and_with_its_english_name_in_english():
    with translation.override("en"):
        assert show.ability_display("温暖") == "温暖 · Warmth"
        assert show.ability_display("其他") == "其他 · Catastrophic failure"
        assert show.ability_english("温暖") == "Warmth"
    with translation.override("zh-hans"):
        assert show.ability_display("温暖") == "温暖"
        assert show.ability_english("温暖") == ""


def test_every_ability_of_the_taxonomy_has_its_english_name_in_english():
    with translation.override("en"):
        for ability in ABILITIES:
            assert show.ability_display(ability.label) == f"{ability.label} · {ability.name}"


def test_a_label_outside_the_taxonomy_shows_as_it_is_in_both_languages():
    for language in ("en", "zh-hans"):
        with translation.override(language):
            assert show.ability_display("自定义能力") == "自定义能力"
            assert show.ability_display("") == ""


def test_dimensions_difficulties_and_breakdown_groups_read_in_english_by_their_names():
    with translation.override("en"):
        assert [show.dimension_display(d) for d in DIMENSIONS] == list(DIMENSIONS)
        assert show.dimension_display("Catastrophic") == "Catastrophic failure"
        assert show.difficulty_display("hard") == "hard"
        assert show.difficulty_display("") == "—"
        assert show.group_display("dimension", "Emotion") == "dimension · Emotion"
        assert show.group_display("model", "gpt-x") == "model · gpt-x"


def test_the_difficulty_reads_in_chinese_in_chinese():
    with translation.override("zh-hans"):
        assert show.difficulty_display("hard") == "困难"


def test_the_template_filters_use_the_same_helper():
    template = Template(
        "{% load hb %}{{ a|ability }}|{{ a|ability_name }}|{{ d|dimension }}|{{ ''|dimension|default:'G' }}|{{ h|difficulty }}"
    )
    with translation.override("en"):
        rendered = template.render(Context({"a": "幽默", "d": "Social", "h": "normal"}))
    assert rendered == "幽默 · Humor|幽默 · Humor|Social|G|normal"
    with translation.override("zh-hans"):
        assert template.render(Context({"a": "幽默", "d": "Social", "h": "normal"})).startswith("幽默|幽默|")
