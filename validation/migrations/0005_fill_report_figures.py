"""Copy each stored report's agreement rate into the columns lists read (instead of its JSON)."""

from django.db import migrations

from heartbench_core.lib.agreement_report import StoredReportError, stored_agreement_rate


def fill(apps, schema_editor):
    AgreementReport = apps.get_model("validation", "AgreementReport")
    for report in AgreementReport.objects.filter(agreement_stored=False).iterator(chunk_size=100):
        try:
            figure = stored_agreement_rate(report.result)
            value, n, reason = figure.value, figure.n, figure.reason or ""
        except StoredReportError as exc:
            value, n, reason = None, None, str(exc)
        AgreementReport.objects.filter(pk=report.pk).update(
            agreement_value=value, agreement_n=n, agreement_reason=reason, agreement_stored=True
        )


def unfill(apps, schema_editor):
    apps.get_model("validation", "AgreementReport").objects.update(agreement_stored=False)


class Migration(migrations.Migration):
    dependencies = [("validation", "0004_store_queue_summary_and_report_figures")]

    operations = [migrations.RunPython(fill, unfill)]
