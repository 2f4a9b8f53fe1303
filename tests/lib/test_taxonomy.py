"""The HeartBench taxonomy: 15 abilities in 5 dimensions, with their English names."""

from heartbench_core.lib.taxonomy import (
    ABILITIES,
    ABILITY_LABELS,
    CATASTROPHIC_LABEL,
    DIMENSIONS,
    abilities_of,
    dimension_of,
    english_name,
    is_known_label,
)


def test_fifteen_abilities_fall_into_the_five_dimensions():
    assert len(ABILITIES) == 15 and len(set(ABILITY_LABELS)) == 15
    assert sum(len(abilities_of(d)) for d in DIMENSIONS) == 15
    assert abilities_of("Social") == ("主动性", "关系构建")


def test_the_catastrophic_label_has_a_name_but_no_dimension():
    assert english_name(CATASTROPHIC_LABEL) == "Catastrophic failure" and dimension_of(CATASTROPHIC_LABEL) is None
    assert dimension_of("温暖") == "Personality" and english_name("温暖") == "Warmth"


def test_a_label_outside_the_taxonomy_keeps_its_name_and_is_known_only_when_declared():
    assert english_name("新能力") == "新能力" and dimension_of("新能力") is None
    assert not is_known_label("新能力") and is_known_label("新能力", ("新能力",))
    assert is_known_label(CATASTROPHIC_LABEL) and is_known_label("道德")
