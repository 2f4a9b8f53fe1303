"""A report stored before the typed form (schemas 1 to 5) is upgraded, JSON to JSON, to the form the types read.

`upgrade_stored_report` is the only place that knows the older shapes: what it gives is read by the
one typed reader, as a report of schema 6 is; it never changes what it was given.
"""

import copy
import json
from pathlib import Path

import pytest

from heartbench_core.lib.agreement_report import (
    SCHEMA_VERSION,
    ReportResult,
    StoredReportError,
    compute_report,
    stored_agreement_rate,
    upgrade_stored_report,
)
from tests.lib.test_agreement_report import Arrays

STORED = Path(__file__).parent / "stored_reports"
NAMES = ("v1_first_reports", "v1_release_policy_before_items", "v1_items_resampled", "v5_calibrated_and_alt_test")


def stored(name: str) -> dict:
    return json.loads((STORED / f"{name}.json").read_text())


@pytest.mark.parametrize("name", NAMES)
def test_an_older_report_upgraded_is_json_of_the_typed_form_and_reads_as_the_same_report(name):
    payload = stored(name)
    untouched = copy.deepcopy(payload)
    upgraded = json.loads(json.dumps(upgrade_stored_report(payload)))
    assert payload == untouched  # pure: what it was given is left as it was
    assert upgraded["schema_version"] == SCHEMA_VERSION
    report = ReportResult.from_dict(payload)
    assert ReportResult.from_dict(upgraded) == report
    assert stored_agreement_rate(upgraded) == stored_agreement_rate(payload) == report.item_agreement.rate
    # Upgraded once more, it is left as it is; written again through the types, it reads back the same.
    assert upgrade_stored_report(upgraded) is upgraded
    assert ReportResult.from_dict(json.loads(json.dumps(report.to_dict()))) == report


def test_a_report_of_the_typed_form_is_read_as_it_is():
    payload = json.loads(json.dumps(compute_report(Arrays(), resamples=20).to_dict()))
    assert upgrade_stored_report(payload) is payload


def test_a_field_an_older_report_lacks_is_named_with_where():
    payload = stored("v1_first_reports")
    del payload["judge_expert_baseline"]["judge_expert"]["n"]
    with pytest.raises(StoredReportError, match="stored agreement report, judge_expert_baseline: missing field 'n'"):
        upgrade_stored_report(payload)
    payload = stored("v5_calibrated_and_alt_test")
    del payload["alt_test"]["overall"]["experts_tested"]
    with pytest.raises(StoredReportError, match="stored agreement report, alt_test: missing field 'experts_tested'"):
        ReportResult.from_dict(payload)
