"""The demo seeds the library: the dataset's guidelines, FAQ entries (one waiting for review) and cases made from demo
adjudications, which the library's rules show to experts who did not rate their responses."""

import pytest
from django.core.management import call_command

from annotation.knowledge import selectors
from annotation.knowledge.models import Case, DatasetGuidelines, FaqEntry
from heartbench_core.models import User
from validation.models import Adjudication

pytestmark = pytest.mark.django_db


def test_the_demo_seeds_guidelines_faq_entries_and_cases_from_its_adjudications():
    call_command("seed_demo")
    call_command("seed_demo")  # idempotent
    assert DatasetGuidelines.objects.filter(dataset__name="demo").count() == 1
    assert FaqEntry.objects.filter(status="published").count() == 3 and FaqEntry.objects.filter(status="in_review").count() == 1
    from_decisions = Case.objects.filter(source=Case.Source.ADJUDICATION)
    assert from_decisions.count() == 3
    assert {c.source_adjudication_id for c in from_decisions} == set(Adjudication.objects.values_list("pk", flat=True))
    assert all(c.status == Case.Status.PUBLISHED for c in Case.objects.all())
    expert4, expert1 = User.objects.get(username="expert4"), User.objects.get(username="expert1")
    # expert4 rated nothing of the synthetic blind test: the invented cases and the case written from scratch.
    assert selectors.visible_cases(expert4, as_expert=True).count() == 3
    # expert1 rated those responses, which the running demo blind test holds too: only the case written from scratch.
    assert list(selectors.visible_cases(expert1, as_expert=True).values_list("source", flat=True)) == [Case.Source.WRITTEN]
    assert selectors.search(expert4, "过早建议", as_expert=True).faq_total == 1
