from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from heartbench_core import views

urlpatterns = [
    path("", views.home, name="home"),
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("admin/", admin.site.urls),
    path("datasets/", include("heartbench_core.page_urls")),
    path("rubrics/", include("rubrics.urls")),
    path("work/", include("annotation.urls")),
    path("validation/", include("validation.urls")),
    path("api/v1/", include("heartbench_core.api_urls")),
    path("api/v1/rubrics/", include("rubrics.api_urls")),
    path("api/v1/annotation/", include("annotation.api_urls")),
    path("api/v1/validation/", include("validation.api_urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="api-schema"), name="api-docs"),
]
