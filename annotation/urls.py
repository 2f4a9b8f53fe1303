"""Pages of the annotation app: the expert workspace, the admins' campaign management and the knowledge library."""

from annotation.knowledge import urls as knowledge_urls
from annotation.manage import urls as manage_urls
from annotation.workspace import urls as workspace_urls

app_name = "annotation"

urlpatterns = [*workspace_urls.urlpatterns, *manage_urls.urlpatterns, *knowledge_urls.urlpatterns]
