"""A stored report that cannot be read says which field of which report, on its page and in the list of reports."""

from tests.validation.builders import blind_test
from validation.models import AgreementReport
from validation.services.agreement_reports import create_agreement_report


def test_the_dashboard_names_the_missing_field_and_still_lists_the_reports(cast, client_for):
    campaign = blind_test(cast)
    good = create_agreement_report(campaign=campaign, resamples=30)
    broken = {k: v for k, v in good.result.items() if k not in ("confusion", "item_agreement")}
    bad = AgreementReport.objects.create(campaign=campaign, parameters=good.parameters, inputs=good.inputs, result=broken)
    response = client_for(cast.admin).get(bad.get_absolute_url())
    page = response.content.decode()
    assert response.status_code == 200
    assert f"Report #{bad.pk} cannot be read: stored agreement report, top level: missing field &#x27;item_agreement&#x27;" in page
    assert f"#{good.pk}</a>" in page and f"#{bad.pk}</a>" in page
    assert bad.agreement_rate.value is None and "missing field 'item_agreement'" in bad.agreement_rate.reason
