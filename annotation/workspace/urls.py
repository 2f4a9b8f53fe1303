"""Pages of the blind workspace (under /work/). An expert only ever sees assignment public ids."""

from django.urls import path
from django.views.decorators.cache import never_cache

from annotation.workspace import views

urlpatterns = [
    path("", views.home, name="home"),
    path("done/", views.completed, name="completed"),
    path("next/<int:campaign_id>/", views.next_response, name="next_response"),
    path("a/<str:public_id>/", views.judge, name="judge"),
    path("a/<str:public_id>/draft/", views.save_draft, name="judge_draft"),
    path("a/<str:public_id>/reclaim/", views.reclaim, name="judge_reclaim"),
    path("a/<str:public_id>/time/", views.record_time, name="judge_time"),
    path("a/<str:public_id>/submit/", views.submit, name="judge_submit"),
    path("a/<str:public_id>/skip/", views.skip, name="judge_skip"),
    path("a/<str:public_id>/unclear/<int:criterion_id>/", views.report_unclear, name="judge_unclear"),
    path("a/<str:public_id>/problem/", views.report_problem, name="judge_problem"),
    path("a/<str:public_id>/correction/", views.correction, name="judge_correction"),
    path("a/<str:public_id>/discussion/", views.discussion, name="discussion"),
    path("a/<str:public_id>/discussion/comment/", views.discussion_comment, name="discussion_comment"),
    path("a/<str:public_id>/discussion/vote/", views.discussion_vote, name="discussion_vote"),
    path("corrections/", views.corrections, name="corrections"),
    path("corrections/<int:correction_id>/decide/", views.decide_correction, name="decide_correction"),
]

# Every answer here shows or changes an expert's own, changing work: none is kept by a cache, so Back
# after a submission asks the server again (and gets the submitted, read-only page), never the old form.
for _pattern in urlpatterns:
    _pattern.callback = never_cache(_pattern.callback)
