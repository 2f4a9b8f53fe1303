"""An interval that resampled the experts with the items says how many, on the pages and in the exports' text, in both languages."""

from django.template.loader import render_to_string
from django.utils import translation

from heartbench_core.lib.agreement_report import Resampling
from validation.formatting import resampled_text

CROSSED = Resampling("item", 118, 1000, 0.95, "percentile", None, 25)
T_CROSSED = Resampling("item", 20, 0, 0.95, "t", None, 25)
WILSON_CROSSED = Resampling("item", 20, 0, 0.95, "wilson_design_effect", 812.3, 25)


def both(block):
    return resampled_text(block), render_to_string("validation/partials/resampled.html", {"block": block})


def test_the_percentile_interval_names_the_items_and_the_experts():
    text, page = both(CROSSED)
    expected = "95% CI from 1,000 resamples of the 118 items and the 25 experts"
    assert text.startswith(expected) and expected in page


def test_the_intervals_for_few_items_say_the_experts_variance_was_added():
    for block, method in ((T_CROSSED, "cluster-robust t interval"), (WILSON_CROSSED, "Wilson interval on a design-effect sample of 812.3")):
        text, page = both(block)
        assert method in text and "with the variance between the 25 experts added" in text
        assert method in page and "with the variance between the 25 experts added" in page


def test_an_interval_over_items_alone_reads_as_before():
    text, page = both(Resampling("item", 118, 1000))
    assert "experts" not in text and "experts" not in page


def test_in_chinese():
    with translation.override("zh-hans"):
        for block in (CROSSED, T_CROSSED, WILSON_CROSSED):
            text, page = both(block)
            assert "25 位专家" in text and "25 位专家" in page
            assert "experts" not in text and "experts" not in page
