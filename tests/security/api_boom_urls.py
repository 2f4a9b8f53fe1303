"""The project's URLs plus API views that fail unexpectedly, to look at the API's error answers."""

from django.urls import path
from rest_framework.views import APIView

from heartbench_core.urls import urlpatterns as project_urlpatterns


class Boom(APIView):
    def get(self, request):
        raise RuntimeError("secret internals of the failure")


def plain_boom(request):
    raise RuntimeError("secret internals of the failure")


urlpatterns = [path("api/v1/boom/", Boom.as_view()), path("api/v1/plain-boom/", plain_boom), *project_urlpatterns]
