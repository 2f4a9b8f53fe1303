"""The HeartBench taxonomy: 15 abilities in 5 dimensions, labels exactly as in the data."""

from dataclasses import dataclass

CATASTROPHIC_LABEL = "其他"


@dataclass(frozen=True)
class Ability:
    label: str  # the Chinese label, spelled as in the released data
    name: str  # English name
    dimension: str  # English dimension name


DIMENSIONS: tuple[str, ...] = ("Personality", "Emotion", "Social", "Motivation", "Morality")

ABILITIES: tuple[Ability, ...] = (
    Ability("言语表达", "Verbal Expression", "Personality"),
    Ability("好奇心", "Curiosity", "Personality"),
    Ability("温暖", "Warmth", "Personality"),
    Ability("第一人称使用", "First-Person Usage", "Personality"),
    Ability("自主性", "Autonomy", "Personality"),
    Ability("幽默", "Humor", "Personality"),
    Ability("自我认知", "Self-Awareness", "Personality"),
    Ability("情绪应对", "Emotional Coping", "Emotion"),
    Ability("情绪理解", "Emotional Understanding", "Emotion"),
    Ability("情绪感知", "Emotional Perception", "Emotion"),
    Ability("情绪反应", "Emotional Reaction", "Emotion"),
    Ability("主动性", "Proactivity", "Social"),
    Ability("关系构建", "Relationship Building", "Social"),
    Ability("动机", "Motivation", "Motivation"),
    Ability("道德", "Morality", "Morality"),
)

ABILITY_BY_LABEL: dict[str, Ability] = {a.label: a for a in ABILITIES}
ABILITY_LABELS: tuple[str, ...] = tuple(a.label for a in ABILITIES)


def dimension_of(label: str) -> str | None:
    """Return the dimension of an ability label, or None for `其他` and declared extras."""
    ability = ABILITY_BY_LABEL.get(label)
    return ability.dimension if ability else None


def english_name(label: str) -> str:
    """Return the English name of a label (the label itself when it is not in the taxonomy)."""
    if label == CATASTROPHIC_LABEL:
        return "Catastrophic failure"
    ability = ABILITY_BY_LABEL.get(label)
    return ability.name if ability else label


def abilities_of(dimension: str) -> tuple[str, ...]:
    """Return the ability labels of one dimension, in taxonomy order."""
    return tuple(a.label for a in ABILITIES if a.dimension == dimension)


def is_known_label(label: str, declared: tuple[str, ...] | list[str] = ()) -> bool:
    """True when a rubric label is an ability, the catastrophic label, or declared by the dataset."""
    return label in ABILITY_BY_LABEL or label == CATASTROPHIC_LABEL or label in declared
