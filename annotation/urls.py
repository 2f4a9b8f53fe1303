"""Pages of the annotation app: the expert workspace and the admins' campaign management."""

from annotation.manage import urls as manage_urls
from annotation.workspace import urls as workspace_urls

app_name = "annotation"

urlpatterns = [*workspace_urls.urlpatterns, *manage_urls.urlpatterns]
