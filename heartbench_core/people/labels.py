"""The names of the roles as people read them."""

from django.utils.translation import gettext_lazy as _

from heartbench_core.roles import Role

ROLE_LABELS = {
    Role.ADMIN: _("Admin"),
    Role.RUBRIC_AUTHOR: _("Rubric author"),
    Role.SENIOR_REVIEWER: _("Senior reviewer"),
    Role.EXPERT: _("Expert"),
}
