"""The leaderboard reads a report's human-calibrated scores from its calibrated index: the heading and the rows of the
models it shows, never the report's result (which grows with every model the report compared). A report stored before
the index existed is indexed the first time a leaderboard needs it, and reads the same."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.validation.builders import MODELS, blind_test
from validation.models import CalibratedIndex, CalibratedModelRow
from validation.services.agreement_reports import create_agreement_report

pytestmark = pytest.mark.django_db


@pytest.fixture
def report(cast):
    return create_agreement_report(campaign=blind_test(cast))


def _api(report) -> str:
    version = report.campaign.version
    return f"/api/v1/scores/leaderboard/?dataset={version.dataset.name}&version={version.label}"


def _page(report) -> str:
    version = report.campaign.version
    return f"/datasets/{version.dataset.name}/v/{version.label}/leaderboard/"


def test_storing_an_official_report_indexes_its_calibrated_scores(report):
    index = CalibratedIndex.objects.get(report=report)
    scores = report.typed_result.calibrated_scores
    assert index.present and index.kendall_tau["n"] == scores.kendall_tau.n
    assert set(CalibratedModelRow.objects.filter(report=report).values_list("model", flat=True)) == {m.model for m in scores.models}


def test_the_page_and_the_api_never_read_the_report_s_result(report, cast, client_for):
    client = client_for(cast.admin)
    client.get(_page(report))  # the stored scores are written on the first read
    for url in (_page(report), _api(report)):
        with CaptureQueriesContext(connection) as queries:
            assert client.get(url).status_code == 200
        read = [q["sql"] for q in queries.captured_queries if "validation_agreementreport" in q["sql"]]
        assert read and not [sql for sql in read if '"result"' in sql], read


def test_a_report_stored_before_the_index_is_indexed_once_and_reads_the_same(report, cast, client_for):
    client = client_for(cast.admin)
    before = client.get(_api(report)).json()["models"]
    CalibratedModelRow.objects.filter(report=report).delete()
    CalibratedIndex.objects.filter(report=report).delete()
    after = client.get(_api(report)).json()["models"]
    assert after == before and {m["model"] for m in after} == set(MODELS)
    assert CalibratedIndex.objects.filter(report=report, present=True).exists()
    with CaptureQueriesContext(connection) as queries:
        client.get(_api(report))
    assert not [q for q in queries.captured_queries if "INSERT" in q["sql"] and "calibrated" in q["sql"]]


def test_a_report_whose_calibrated_scores_do_not_read_is_left_out_not_an_error(report, cast, client_for):
    from validation.models import AgreementReport

    broken = AgreementReport.objects.create(
        campaign=report.campaign,
        judge=report.judge,
        run_label=report.run_label,
        parameters=report.parameters,
        inputs=report.inputs,
        result={**report.result, "calibrated_scores": {"models": "not a list"}, "run": 7},
    )  # as an archive could bring it: newer than the good one, its calibrated block unreadable
    response = client_for(cast.admin).get(_api(report))
    assert response.status_code == 200
    cells = [m["calibrated"] for m in response.json()["models"]]
    assert cells and all(c is not None and c["report"] == report.pk for c in cells)  # the judge's newest readable report
    assert CalibratedIndex.objects.get(report=broken).present is False
    assert not CalibratedModelRow.objects.filter(report=broken).exists()
