from django.urls import path

from heartbench_core import names  # noqa: F401 (registers the 'name' converter: any stored name is one segment)
from heartbench_core.judging import views

app_name = "judging"

urlpatterns = [
    path("", views.index, name="index"),
    path("endpoints/new/", views.endpoint_new, name="endpoint-new"),
    path("endpoints/<name:name>/", views.endpoint_detail, name="endpoint"),
    path("templates/new/", views.template_new, name="template-new"),
    path("templates/<name:name>/", views.template_detail, name="template"),
    path("templates/<name:name>/r<int:revision>/", views.template_revision, name="template-revision"),
    path("runs/new/", views.run_new, name="run-new"),
    path("runs/<int:pk>/", views.run_detail, name="run"),
    path("runs/<int:pk>/cancel/", views.run_cancel, name="run-cancel"),
    path("runs/<int:pk>/retry/", views.run_retry, name="run-retry"),
    path("runs/<int:pk>/resume/", views.run_resume, name="run-resume"),
]
