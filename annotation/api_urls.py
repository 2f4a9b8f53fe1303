"""API of the annotation app: the expert workspace, campaign management and the knowledge library."""

from annotation.knowledge import api_urls as knowledge_api_urls
from annotation.manage import api_urls as manage_api_urls
from annotation.workspace import api_urls as workspace_api_urls

urlpatterns = [*workspace_api_urls.urlpatterns, *manage_api_urls.urlpatterns, *knowledge_api_urls.urlpatterns]
