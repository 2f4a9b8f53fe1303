"""API of the annotation app: the expert workspace and campaign management."""

from annotation.manage import api_urls as manage_api_urls
from annotation.workspace import api_urls as workspace_api_urls

urlpatterns = [*workspace_api_urls.urlpatterns, *manage_api_urls.urlpatterns]
