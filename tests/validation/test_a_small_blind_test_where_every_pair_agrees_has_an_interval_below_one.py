"""A blind test on which judge and experts agree on every pair gets an interval that reaches below 1.

The percentile bootstrap over items gave [1.0, 1.0] to every group where all pairs agree, an
interval that excludes every true rate below 1. Such a group now gets the Wilson interval on its
design-effect sample size; a campaign where nothing varies at all tells nothing of the correlation
within items, so each item counts once (ρ = 1). The report, its page and its table say which
method each interval used; the percentile bootstrap (50 items or more) still reads as before.
"""

import io

import pytest
from django.core.management import call_command
from django.template.loader import render_to_string
from scipy import stats as sps
from statsmodels.stats.proportion import proportion_confint

from heartbench_core.lib.agreement_report import Resampling
from tests.validation.builders import JUDGE, blind_test
from tests.validation.test_agreement_report import pairs_by_question_and_model
from validation.formatting import resampled_text
from validation.services.agreement_reports import create_agreement_report

pytestmark = pytest.mark.django_db


def test_every_pair_agreeing_gives_a_wilson_interval_on_the_items(cast, client_for):
    campaign = blind_test(cast, flip=0.0)  # the experts say what the judge says, on everything
    r = create_agreement_report(campaign=campaign, resamples=200).typed_result
    assert r.item_agreement.rate.value == 1.0
    ci = r.item_agreement.ci95
    assert ci.resampled.method == "wilson_design_effect" and ci.resampled.units == r.items == 6
    # ρ = 1: the pairs count as n / m̃, m̃ the size-weighted mean pairs per item (Σ n² / n): about one per item.
    per_item: dict[str, int] = {}
    for (question, _model), (_agreeing, compared) in pairs_by_question_and_model(campaign).items():
        per_item[question] = per_item.get(question, 0) + compared
    n = sum(per_item.values())
    effective = n * n / sum(k * k for k in per_item.values())
    assert ci.resampled.effective_n == pytest.approx(effective, abs=1e-3)
    alpha = 2 * sps.norm.sf(sps.t.ppf(0.975, r.items - 1))  # Student's t on items − 1 degrees of freedom
    low, _high = proportion_confint(effective, effective, alpha=alpha, method="wilson")
    assert ci.high == 1.0 and ci.low == pytest.approx(low, abs=1e-5) and ci.low < 0.9
    for row in (*r.by_model, *r.by_ability, *r.by_dimension, *r.by_difficulty):
        if row.items >= 2:
            assert row.item_agreement.rate.value == 1.0 and row.item_agreement.ci95.low < 1.0
            assert row.item_agreement.ci95.resampled.method == "wilson_design_effect"
    page = client_for(cast.admin).get(f"/validation/campaigns/{campaign.pk}/").content.decode()
    assert "95% CI: Wilson interval on a design-effect sample of" in page and "[1.00, 1.00]" not in page
    out = io.StringIO()
    call_command("agreement_report", "--campaign", campaign.name, "--judge", JUDGE, "--format", "json", stdout=out)
    assert '"method": "wilson_design_effect"' in out.getvalue() and '"effective_n"' in out.getvalue()


def test_the_percentile_bootstrap_of_a_large_report_still_reads_as_before():
    block = Resampling("item", 89, 1000)
    assert "95% CI from 1,000 resamples of the 89 items (all of an item" in render_to_string(
        "validation/partials/resampled.html", {"block": block}
    )
    assert resampled_text(block) == "95% CI from 1,000 resamples of the 89 items (all of an item's responses together)"
