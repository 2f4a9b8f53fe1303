app_name = "validation"

urlpatterns: list = []
