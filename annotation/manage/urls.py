"""Admin pages of campaign management (under /work/manage/) and the expert's own profile (/work/profile/)."""

from django.urls import path

from annotation.manage import needs_action, views

urlpatterns = [
    path("manage/", needs_action.needs_action, name="needs_action"),
    path("manage/digest/", needs_action.digest_opt_in, name="digest_opt_in"),
    path("manage/reports/<str:kind>/<int:report_id>/", needs_action.report, name="report"),
    path("my-reports/", needs_action.my_reports, name="my_reports"),
    path("manage/campaigns/", views.campaigns, name="campaigns"),
    path("manage/campaigns/new/", views.campaign_create, name="campaign_create"),
    path("manage/calibrations/new/", views.calibration_create, name="calibration_create"),
    path("manage/gold-sets/new/", views.gold_set_create, name="gold_set_create"),
    path("manage/campaigns/<int:campaign_id>/", views.campaign_detail, name="campaign"),
    path("manage/campaigns/<int:campaign_id>/assign/", views.campaign_bulk_assign, name="campaign_bulk_assign"),
    path("manage/campaigns/<int:campaign_id>/status/", views.campaign_status, name="campaign_status"),
    path("manage/campaigns/<int:campaign_id>/extra-raters/", views.campaign_split_extension, name="campaign_split_extension"),
    path("manage/campaigns/<int:campaign_id>/edit/", views.campaign_edit, name="campaign_edit"),
    path("manage/campaigns/<int:campaign_id>/payments/", views.campaign_payments_page, name="campaign_payments_page"),
    path("manage/campaigns/<int:campaign_id>/payments/<str:username>/decision/", views.pay_decision, name="pay_decision"),
    path("manage/campaigns/<int:campaign_id>/pay-policy/", views.pay_policy, name="pay_policy"),
    path("manage/campaigns/<int:campaign_id>/payments.csv", views.campaign_payments, name="campaign_payments"),
    path("manage/campaigns/<int:campaign_id>/assignments/", views.campaign_assignments, name="campaign_assignments"),
    path("manage/assignments/<str:public_id>/release/", views.assignment_release, name="assignment_release"),
    path("manage/experts/", views.experts, name="experts"),
    path("manage/dual-roles/", views.dual_roles, name="dual_roles"),
    path("manage/experts/<str:username>/", views.expert_edit, name="expert"),
    path("manage/alerts/", views.alerts, name="alerts"),
    path("manage/alerts/<int:alert_id>/resolve/", views.alert_resolve, name="alert_resolve"),
    path("profile/", views.profile, name="profile"),
    path("profile/calibration/<int:result_id>/", views.calibration_feedback, name="calibration_feedback"),
    path("profile/certificates/<int:campaign_id>/", views.certificate, name="certificate"),
    path("certificates/<str:code>/", views.certificate_verify, name="certificate_verify"),
]
