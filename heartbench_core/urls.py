from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.templatetags.static import static
from django.urls import include, path
from django.views.decorators.http import require_http_methods, require_safe
from django.views.generic import RedirectView
from django.views.i18n import JavaScriptCatalog
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from heartbench_core import language, views
from heartbench_core.people import api as people_api
from heartbench_core.people.views import InviteAcceptView
from heartbench_core.throttling import ThrottledLoginView

urlpatterns = [
    path("", views.home, name="home"),
    # Browsers ask for /favicon.ico whatever the page links: the icon base.html links, served by WhiteNoise.
    path("favicon.ico", require_safe(RedirectView.as_view(url=static("favicon.svg"), permanent=True))),
    path("accounts/login/", ThrottledLoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    # Users restored from a campaign archive have no password: import_campaign lists a link here for each.
    path(
        "accounts/reset/<uidb64>/<token>/",
        require_http_methods(["GET", "HEAD", "POST"])(auth_views.PasswordResetConfirmView.as_view()),
        name="password_reset_confirm",
    ),
    path(
        "accounts/reset/done/",
        require_http_methods(["GET", "HEAD"])(auth_views.PasswordResetCompleteView.as_view()),
        name="password_reset_complete",
    ),
    # An invitee sets a password from the one-time link of their invitation (heartbench_core.people).
    path(
        "accounts/invite/<uidb64>/<token>/",
        require_http_methods(["GET", "HEAD", "POST"])(InviteAcceptView.as_view()),
        name="invite_accept",
    ),
    path("people/", include("heartbench_core.people.urls")),
    # The header's language switcher; stores the choice on a signed-in user (heartbench_core.language).
    path("i18n/setlang/", language.set_language, name="set_language"),
    # The scripts' strings (djangojs catalogue) as a file: gettext()/interpolate() for static/js, no inline script.
    path("i18n/js/", JavaScriptCatalog.as_view(domain="djangojs"), name="javascript-catalog"),
    path("admin/", admin.site.urls),
    path("datasets/", include("heartbench_core.page_urls")),
    path("judging/", include("heartbench_core.judging.urls")),
    path("rubrics/", include("rubrics.urls")),
    path("work/", include("annotation.urls")),
    path("validation/", include("validation.urls")),
    # API tokens: admins issue, list and revoke them; everyone lists and revokes their own (heartbench_core.people.api).
    path("accounts/tokens/", people_api.token_list, name="tokens"),
    path("accounts/tokens/issue/", people_api.token_issue, name="tokens-issue"),
    path("accounts/tokens/<int:pk>/revoke/", people_api.token_revoke, name="tokens-revoke"),
    path("accounts/my-tokens/", people_api.my_tokens, name="my-tokens"),
    path("accounts/my-tokens/<int:pk>/revoke/", people_api.my_token_revoke, name="my-tokens-revoke"),
    path("api/v1/tokens/", people_api.TokenViewSet.as_view({"get": "list", "post": "create"}), name="api-token-list"),
    path("api/v1/tokens/<int:pk>/", people_api.TokenViewSet.as_view({"get": "retrieve", "delete": "destroy"}), name="api-token-detail"),
    path("api/v1/tokens/mine/", people_api.MyTokenViewSet.as_view({"get": "list"}), name="api-my-token-list"),
    path(
        "api/v1/tokens/mine/<int:pk>/",
        people_api.MyTokenViewSet.as_view({"get": "retrieve", "delete": "destroy"}),
        name="api-my-token-detail",
    ),
    path("api/v1/", include("heartbench_core.api_urls")),
    path("api/v1/rubrics/", include("rubrics.api_urls")),
    path("api/v1/annotation/", include("annotation.api_urls")),
    path("api/v1/validation/", include("validation.api_urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    # The split view serves Swagger UI's start-up script as a file: the Content-Security-Policy allows no inline script.
    path(
        "api/docs/",
        SpectacularSwaggerSplitView.as_view(url_name="api-schema", template_name="heartbench_core/swagger_ui.html"),
        name="api-docs",
    ),
]

# JSON for API paths, Django's pages elsewhere (heartbench_core.errors).
handler404 = "heartbench_core.errors.page_not_found"
handler500 = "heartbench_core.errors.server_error"
