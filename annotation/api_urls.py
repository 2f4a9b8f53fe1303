"""API of the annotation app: the expert workspace and campaign management."""

from annotation import api_urls_manage, api_urls_workspace

urlpatterns = [*api_urls_workspace.urlpatterns, *api_urls_manage.urlpatterns]
