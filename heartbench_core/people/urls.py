from django.urls import path

from heartbench_core.people import views

app_name = "people"

urlpatterns = [
    path("", views.people_list, name="list"),
    path("invite/", views.invite, name="invite"),
    path("<int:user_id>/", views.person_detail, name="person"),
    path("<int:user_id>/roles/", views.person_roles, name="roles"),
    path("<int:user_id>/deactivate/", views.person_deactivate, name="deactivate"),
    path("<int:user_id>/reactivate/", views.person_reactivate, name="reactivate"),
    path("<int:user_id>/resend-invite/", views.person_resend, name="resend"),
]
