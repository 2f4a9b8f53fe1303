"""A FAQ entry is written by a rubric author or senior reviewer, reviewed by another of them, and only then published."""

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction

from annotation.knowledge import selectors
from annotation.knowledge.models import FaqEntry
from annotation.knowledge.services.knowledge import (
    FaqContent,
    create_faq_entry,
    edit_faq_entry,
    retire_faq_entry,
    review_faq_entry,
    revise_faq_entry,
    submit_faq_entry,
)

pytestmark = pytest.mark.django_db


def _draft(cast, library, **extra):
    content = FaqContent(question="隐含的共情算不算？", answer="算：说出用户的感受即可。", **extra)
    return create_faq_entry(author=cast.author, dataset=library.dataset, content=content)


def test_rubric_authors_and_senior_reviewers_write_entries_experts_and_admins_do_not(cast, library):
    content = FaqContent(question="问题", answer="回答")
    for writer in (cast.author, cast.reviewer):
        assert create_faq_entry(author=writer, dataset=library.dataset, content=content).status == FaqEntry.Status.DRAFT
    for other in (cast.expert, cast.admin, cast.outsider):
        with pytest.raises(PermissionDenied):
            create_faq_entry(author=other, dataset=library.dataset, content=content)


def test_a_draft_goes_to_review_and_is_published_by_another_writer_never_its_author(cast, library):
    entry = _draft(cast, library)
    assert entry not in selectors.visible_faq(cast.expert, as_expert=True)
    submit_faq_entry(entry=entry, author=cast.author)
    with pytest.raises(PermissionDenied):
        review_faq_entry(entry=entry, reviewer=cast.author, approve=True)
    assert entry not in selectors.visible_faq(cast.expert, as_expert=True)
    published = review_faq_entry(entry=entry, reviewer=cast.author2, approve=True)
    assert published.status == FaqEntry.Status.PUBLISHED and published.reviewer == cast.author2 and published.published_at
    assert published in selectors.visible_faq(cast.expert, as_expert=True)


def test_the_database_refuses_a_published_entry_without_another_reviewer(cast, library):
    entry = _draft(cast, library)
    with pytest.raises(IntegrityError), transaction.atomic():
        FaqEntry.objects.filter(pk=entry.pk).update(status=FaqEntry.Status.PUBLISHED, reviewer=cast.author)
    with pytest.raises(IntegrityError), transaction.atomic():
        FaqEntry.objects.filter(pk=entry.pk).update(status=FaqEntry.Status.PUBLISHED, reviewer=None)


def test_sending_back_needs_a_note_and_returns_a_draft_its_author_can_edit(cast, library):
    entry = _draft(cast, library)
    submit_faq_entry(entry=entry, author=cast.author)
    with pytest.raises(ValidationError) as refused:
        review_faq_entry(entry=entry, reviewer=cast.reviewer, approve=False)
    assert "note" in refused.value.message_dict
    back = review_faq_entry(entry=entry, reviewer=cast.reviewer, approve=False, note="举一个回复的例子。")
    assert back.status == FaqEntry.Status.DRAFT and back.review_note == "举一个回复的例子。"
    with pytest.raises(PermissionDenied):
        edit_faq_entry(entry=back, editor=cast.author2, content=FaqContent(question="q", answer="a"))
    edited = edit_faq_entry(
        entry=back, editor=cast.author, content=FaqContent(question="隐含的共情算不算？", answer="算，例如“你一定很累吧”。")
    )
    assert "你一定很累吧" in edited.answer and "你一定很累吧" in edited.search_text


def test_an_entry_in_review_or_published_is_not_edited_and_a_revision_replaces_it(cast, library):
    entry = _draft(cast, library)
    submit_faq_entry(entry=entry, author=cast.author)
    with pytest.raises(ValidationError):
        edit_faq_entry(entry=entry, editor=cast.author, content=FaqContent(question="q", answer="a"))
    published = review_faq_entry(entry=entry, reviewer=cast.reviewer, approve=True)
    revision = revise_faq_entry(entry=published, author=cast.author2)
    assert revision.replaces == published and revision.status == FaqEntry.Status.DRAFT and revision.question == published.question
    with pytest.raises(ValidationError):
        revise_faq_entry(entry=published, author=cast.author)  # one revision under way at a time
    edit_faq_entry(entry=revision, editor=cast.author2, content=FaqContent(question="隐含的共情算不算？", answer="算（第二版）。"))
    submit_faq_entry(entry=revision, author=cast.author2)
    review_faq_entry(entry=revision, reviewer=cast.reviewer, approve=True)
    published.refresh_from_db()
    assert published.status == FaqEntry.Status.RETIRED and published.retired_at
    assert list(selectors.visible_faq(cast.expert, as_expert=True)) == [FaqEntry.objects.get(pk=revision.pk)]


def test_bad_fields_are_named_and_nothing_is_written(cast, library):
    before = FaqEntry.objects.count()
    with pytest.raises(ValidationError) as refused:
        create_faq_entry(
            author=cast.author,
            dataset=library.dataset,
            content=FaqContent(
                question="", answer="x" * 30_000, abilities=["勇气"], criteria=["not-a-key", "00000000-0000-0000-0000-000000000000"]
            ),
        )
    errors = refused.value.message_dict
    assert set(errors) == {"question", "answer", "abilities", "criteria"}
    assert any("勇气" in m for m in errors["abilities"]) and len(errors["criteria"]) == 2
    assert FaqEntry.objects.count() == before


def test_entries_link_criteria_by_lineage_so_they_follow_a_criterion_into_the_next_version(cast, library):
    criterion = library.criterion()
    entry = _draft(cast, library, criteria=[str(criterion.lineage_id)], abilities=[criterion.ability])
    assert list(entry.lineages.all()) == [criterion.lineage]
    assert entry.ability_labels == f" {criterion.ability} "


def test_retiring_takes_an_entry_out_of_the_experts_library(cast, library):
    entry = _draft(cast, library)
    submit_faq_entry(entry=entry, author=cast.author)
    review_faq_entry(entry=entry, reviewer=cast.reviewer, approve=True)
    retire_faq_entry(entry=entry, by=cast.reviewer)
    assert not selectors.visible_faq(cast.expert, as_expert=True).exists()
    assert selectors.visible_faq(cast.author, as_expert=False).get().status == FaqEntry.Status.RETIRED
