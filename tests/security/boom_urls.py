"""The project's URLs plus one view that fails, to look at error pages and logs."""

from django.urls import path

from heartbench_core.urls import urlpatterns as project_urlpatterns


def boom(request):
    # A careless error message that quotes the request: the worst case for leaking secrets.
    raise RuntimeError(f"could not handle {request.POST!r} with {request.META.get('HTTP_AUTHORIZATION')}")


urlpatterns = [path("boom/", boom, name="boom"), *project_urlpatterns]
