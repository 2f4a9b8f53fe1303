"""A case never carries a model's identity or a rater's name, and an "invented" excerpt really is invented."""

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction

from annotation.knowledge.models import Case
from annotation.knowledge.services.knowledge import (
    INVENTED_MAX_SHARED_RUN,
    CaseContent,
    CaseSource,
    case_from_calibration,
    create_case,
    edit_case,
    publish_case,
    retire_case,
)
from annotation.models import Assignment
from heartbench_core.models import LanguageModel
from tests.annotation.knowledge.conftest import calibration_item

pytestmark = pytest.mark.django_db


def _content(**changes):
    values = {"title": "隐含的共情", "excerpt": "你一定累坏了吧。", "hit": True, "reasoning": "说出了用户的感受。"}
    values.update(changes)
    return CaseContent(**values)


def _source(library):
    entry = library.entry("dm0001")
    return entry, CaseSource(Case.Source.ADJUDICATION, library.campaign, entry.response)


def test_only_senior_reviewers_and_admins_write_cases(cast, library):
    for writer in (cast.reviewer, cast.admin):
        assert create_case(author=writer, criterion=library.criterion(), content=_content()).status == Case.Status.DRAFT
    for other in (cast.author, cast.expert, cast.outsider):
        with pytest.raises(PermissionDenied):
            create_case(author=other, criterion=library.criterion(), content=_content())


def test_a_case_naming_a_model_is_refused_in_any_field(cast, library):
    name = LanguageModel.objects.order_by("name").first().name
    for field in ("title", "excerpt", "reasoning"):
        with pytest.raises(ValidationError) as refused:
            create_case(author=cast.reviewer, criterion=library.criterion(), content=_content(**{field: f"像 {name.upper()} 那样"}))
        assert list(refused.value.message_dict) == [field] and name in refused.value.message_dict[field][0]
    assert not Case.objects.exists()


def test_a_case_naming_a_rater_of_its_response_is_refused(cast, library):
    entry, source = _source(library)
    Assignment.objects.create(campaign_response=entry, expert=cast.experts[1])
    with pytest.raises(ValidationError) as refused:
        create_case(
            author=cast.reviewer,
            criterion=library.criterion(),
            content=_content(reasoning=f"{cast.experts[1].username} 判了命中。"),
            source=source,
        )
    assert "reasoning" in refused.value.message_dict


def test_a_case_from_a_campaign_must_name_its_response(cast, library):
    with pytest.raises(ValidationError) as refused:
        create_case(
            author=cast.reviewer,
            criterion=library.criterion(),
            content=_content(),
            source=CaseSource(Case.Source.ADJUDICATION, library.campaign),
        )
    assert "source" in refused.value.message_dict
    case = create_case(author=cast.reviewer, criterion=library.criterion(), content=_content(), source=_source(library)[1])
    with pytest.raises(IntegrityError), transaction.atomic():
        Case.objects.filter(pk=case.pk).update(source_response=None)


def test_an_invented_excerpt_may_not_copy_a_run_of_the_real_response(cast, library):
    entry, source = _source(library)
    copied = "".join(entry.response.text.split())[5 : 5 + INVENTED_MAX_SHARED_RUN + 3]
    with pytest.raises(ValidationError) as refused:
        create_case(
            author=cast.reviewer, criterion=library.criterion(), content=_content(excerpt=f"改写：{copied}", invented=True), source=source
        )
    assert "excerpt" in refused.value.message_dict
    case = create_case(
        author=cast.reviewer,
        criterion=library.criterion(),
        content=_content(excerpt="（虚构的回复）听起来你最近压力很大。", invented=True),
        source=source,
    )
    assert case.invented
    with pytest.raises(ValidationError) as no_source:
        create_case(author=cast.reviewer, criterion=library.criterion(), content=_content(invented=True))
    assert "invented" in no_source.value.message_dict


def test_a_case_keeps_the_wording_and_revision_of_its_criterion(cast, library):
    criterion = library.criterion("dm0001", 2)
    case = create_case(author=cast.reviewer, criterion=criterion, content=_content())
    assert (case.lineage, case.criterion_revision, case.criterion_text, case.dataset) == (
        criterion.lineage,
        criterion.revision,
        criterion.text,
        library.dataset,
    )


def test_drafts_are_edited_then_published_and_published_cases_are_only_retired(cast, library):
    case = create_case(author=cast.reviewer, criterion=library.criterion(), content=_content())
    edited = edit_case(case=case, editor=cast.reviewers[1], content=_content(title="新标题"))
    assert edited.title == "新标题" and "新标题" in edited.search_title
    published = publish_case(case=edited, by=cast.reviewers[1])
    assert published.status == Case.Status.PUBLISHED and published.published_by == cast.reviewers[1]
    with pytest.raises(ValidationError):
        edit_case(case=published, editor=cast.reviewer, content=_content())
    assert retire_case(case=published, by=cast.reviewer).status == Case.Status.RETIRED


def test_a_case_from_a_calibration_item_takes_its_reference_verdict(cast, library):
    entry = calibration_item(library)
    criterion = entry.item.criteria.get(position=1)  # reference: miss
    with pytest.raises(ValidationError) as refused:
        case_from_calibration(author=cast.reviewer, campaign_response=entry, criterion=criterion, content=_content(hit=True))
    assert "hit" in refused.value.message_dict
    case = case_from_calibration(author=cast.reviewer, campaign_response=entry, criterion=criterion, content=_content(hit=None))
    assert case.hit is False and case.source == Case.Source.CALIBRATION and case.source_campaign == entry.campaign
    with pytest.raises(ValidationError):
        case_from_calibration(author=cast.reviewer, campaign_response=library.entry(), criterion=criterion, content=_content())
