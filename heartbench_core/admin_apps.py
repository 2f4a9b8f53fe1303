from django.contrib.admin.apps import AdminConfig


class PlatformAdminConfig(AdminConfig):
    """The Django admin on the platform's site: blind, and recording what it shows (heartbench_core.admin_site)."""

    default_site = "heartbench_core.admin_site.PlatformAdminSite"
