"""A library file is checked by the same rules as the pages: an imported case names no model and quotes no running response,
an imported FAQ entry is never published by a reviewer the file names, and a refused file writes nothing at all."""

import io
import json
import uuid

import pytest
from django.apps import apps
from django.core.exceptions import PermissionDenied

from annotation.knowledge.models import Case, FaqEntry
from annotation.knowledge.selectors import visible_faq
from annotation.knowledge.services.knowledge import review_faq_entry
from annotation.knowledge.services.knowledge_io import import_library
from annotation.models import Campaign
from heartbench_core.jsonl import InputFileError
from heartbench_core.models import LanguageModel

pytestmark = pytest.mark.django_db


def _file(*records):
    return io.BytesIO("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records).encode())


def _case(library, cast, **changes):
    criterion = library.criterion()
    record = {
        "type": "case",
        "uid": str(uuid.uuid4()),
        "dataset": "demo",
        "criterion": {"key": str(criterion.lineage_id)},
        "criterion_revision": criterion.revision,
        "criterion_text": criterion.text,
        "title": "隐含的共情也算命中",
        "excerpt": "我能感觉到你这段时间很辛苦。",
        "hit": True,
        "reasoning": "回复没有直接说“共情”，但说出了用户的感受。",
        "cause": "other",
        "tags": [],
        "source": "written",
        "invented": False,
        "status": "published",
        "author": cast.reviewer.username,
        "published_by": cast.reviewer.username,
    }
    return record | changes


def _faq(cast, **changes):
    record = {
        "type": "faq",
        "uid": str(uuid.uuid4()),
        "dataset": "demo",
        "question": "隐含的共情算吗？",
        "answer": "算：用户的感受被说出来就算。",
        "tags": [],
        "abilities": [],
        "criteria": [],
        "status": "draft",
        "author": cast.author.username,
    }
    return record | changes


def _refused(*records) -> str:
    with pytest.raises(InputFileError) as refused:
        import_library(source=_file(*records), name="library.jsonl")
    return "\n".join(refused.value.messages)


def _quote(library) -> str:
    """25 characters of a response the running blind test holds, with a line break in the middle."""
    text = "".join(library.entry("dm0001").response.text.split())
    return f"{text[2:14]}\n{text[14:27]}"


def test_an_imported_case_naming_a_model_is_refused_at_its_line_and_field(cast, library):
    name = LanguageModel.objects.order_by("name").first().name
    text = _refused(_faq(cast), _case(library, cast, reasoning=f"像 {name} 那样说出感受。"))
    assert "library.jsonl, line 2, field 'reasoning'" in text and name in text
    assert not Case.objects.exists() and not FaqEntry.objects.exists()


def test_an_imported_case_quoting_a_response_of_a_running_campaign_is_refused_until_it_closes(cast, library):
    record = _case(library, cast, excerpt=f"回复说：{_quote(library)}……")
    text = _refused(record)
    assert "library.jsonl, line 1, field 'excerpt'" in text and "still open" in text
    assert library.campaign.name not in text and "demo-model" not in text  # which campaign or model stays unsaid
    assert not Case.objects.exists()
    Campaign.objects.filter(pk=library.campaign.pk).update(status=Campaign.Status.CLOSED)
    assert import_library(source=_file(record), name="library.jsonl").cases == 1


def test_an_imported_faq_entry_quoting_a_running_response_or_naming_a_model_is_refused(cast, library):
    name = LanguageModel.objects.order_by("name").first().name
    text = _refused(_faq(cast, answer=f"例如：{_quote(library)}"), _faq(cast, tags=["共情", name.upper()]))
    assert "line 1, field 'answer'" in text and "line 2, field 'tags'" in text
    assert not FaqEntry.objects.exists()


def test_an_imported_faq_entry_published_in_the_file_waits_for_a_review_here(cast, library):
    record = _faq(cast, status="published", reviewer=cast.author2.username, review_note="看过了", published_at="2025-01-02T03:04:05+00:00")
    outcome = import_library(source=_file(record), name="library.jsonl")
    entry = FaqEntry.objects.get()
    assert (entry.status, entry.reviewer, entry.published_at, entry.review_note) == ("in_review", None, None, "")
    assert (outcome.faq, outcome.to_review) == (1, 1)
    assert not visible_faq(cast.expert, as_expert=True).exists()  # no expert reads it on the file's word
    with pytest.raises(PermissionDenied):
        review_faq_entry(entry=entry, reviewer=cast.author, approve=True)
    assert review_faq_entry(entry=entry, reviewer=cast.reviewer, approve=True).reviewer == cast.reviewer


def test_an_import_names_only_writers_who_may_write_here(cast, library):
    text = _refused(
        _faq(cast, author=cast.expert.username), _case(library, cast, author=cast.author.username, published_by=cast.expert.username)
    )
    assert "line 1, field 'author'" in text and "line 2, field 'author'" in text and "line 2, field 'published_by'" in text


def test_a_case_from_a_campaign_names_one_of_its_responses(cast, library):
    other = library.entry("dm0002").response
    record = _case(library, cast, source="adjudication", source_campaign=library.campaign.name, source_response=other.public_id)
    Campaign.objects.filter(pk=library.campaign.pk).update(status=Campaign.Status.CLOSED)
    library.campaign.responses.filter(response=other).delete()
    assert "line 1, field 'source_response'" in _refused(record)


def test_a_refused_file_leaves_no_row_of_any_table(cast, library):
    counts = {m._meta.label: m.objects.count() for m in apps.get_models()}
    _refused(_case(library, cast, excerpt=_quote(library)), {"type": "poem"})
    assert counts == {m._meta.label: m.objects.count() for m in apps.get_models()}
