"""Pages of the annotation app: the expert workspace and the admins' campaign management."""

from annotation import urls_manage, urls_workspace

app_name = "annotation"

urlpatterns = [*urls_workspace.urlpatterns, *urls_manage.urlpatterns]
