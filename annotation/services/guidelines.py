"""Guidelines of a dataset and of a campaign: each publication is a new revision, never an edit in place.

A campaign's own guidelines override its dataset's: `guidelines_in_force` is the one read of
what its experts are shown (and what `submit_assignment` records on the assignment).
`publish_guidelines` (campaign; the admins' campaign pages and the API) and
`publish_dataset_guidelines` (dataset; admins and rubric authors, the library pages and the API)
are the writes; `current_guidelines` reads a campaign's own latest revision; `render_guidelines` turns the
Markdown into HTML through an allow-list sanitiser, so a revision can never carry a script,
an inline style or an event handler onto the judging page (its Content-Security-Policy would
refuse them anyway, but the page must not even try).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from datetime import datetime
from typing import TypeVar

import markdown
import nh3
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.db.models import IntegerField, Max, Value
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _

from annotation.knowledge.models import DatasetGuidelines
from annotation.models import Campaign, CampaignGuidelines
from heartbench_core.models import Dataset, User
from heartbench_core.roles import Role, has_role

BODY_MAX_CHARS = 50_000
CHANGE_NOTE_MAX_CHARS = CampaignGuidelines._meta.get_field("change_note").max_length or 300

# What guidelines need: structure, emphasis, lists, tables, quotes, code and links. No images
# (an image URL would be fetched by every expert's browser), no styles, no scripts.
ALLOWED_TAGS = {"h1", "h2", "h3", "h4", "h5", "h6", "p", "br", "hr", "strong", "em", "b", "i", "del", "code", "pre", "blockquote", "abbr"}
ALLOWED_TAGS |= {"ul", "ol", "li", "dl", "dt", "dd", "table", "thead", "tbody", "tr", "th", "td", "a"}
ALLOWED_ATTRIBUTES = {"a": {"href", "title"}, "abbr": {"title"}, "th": {"align"}, "td": {"align"}, "ol": {"start"}}
URL_SCHEMES = {"http", "https", "mailto"}


def render_guidelines(body: str) -> SafeString:
    """The Markdown body as sanitised HTML: only the allow-listed tags and attributes survive, links open safely."""
    return mark_safe(_rendered(body or ""))  # sanitised by nh3 in _rendered


# A revision never changes, so its HTML is computed once per process (rendering a long body
# costs about 10 ms, most of a judging page's time), keyed by the text itself.
@functools.lru_cache(maxsize=64)
def _rendered(body: str) -> str:
    html = markdown.markdown(body, extensions=["tables", "sane_lists"], output_format="html")
    clean = nh3.clean(
        html,
        tags=ALLOWED_TAGS,
        attributes=ALLOWED_ATTRIBUTES,
        url_schemes=URL_SCHEMES,
        link_rel="noopener noreferrer nofollow",
    )
    return clean


def current_guidelines(campaign: Campaign) -> CampaignGuidelines | None:
    """The latest revision of the campaign's guidelines, or None when none was ever published (one query)."""
    return CampaignGuidelines.objects.filter(campaign_id=campaign.pk).order_by("-revision").first()


def publish_guidelines(*, campaign: Campaign, body: str, change_note: str = "", author: User) -> CampaignGuidelines:
    """Publish a new revision of the campaign's guidelines (revision = previous + 1); admins only.

    Earlier revisions stay as they were, so what an expert read when they judged can always be
    shown again. A body identical to the current revision's is refused: it would be a revision
    that changes nothing.
    """
    if not has_role(author, Role.ADMIN):
        raise PermissionDenied(_("Only an admin publishes a campaign's guidelines."))
    return _new_revision(CampaignGuidelines, campaign, *_checked(body, change_note), author)


# --- the guidelines in force: the campaign's own, else its dataset's -------------------------------


@dataclass(frozen=True)
class GuidelinesInForce:
    """The revision of guidelines a campaign's experts read: its own (`source` "campaign") or its dataset's ("dataset")."""

    source: str
    revision: int
    body: str
    change_note: str
    created_at: datetime

    @property
    def marker(self) -> str:
        """Names the revision and where it comes from (what an expert's session remembers having seen)."""
        return f"{self.source}:{self.revision}"


SOURCE_CAMPAIGN, SOURCE_DATASET = "campaign", "dataset"


def guidelines_in_force(campaign: Campaign) -> GuidelinesInForce | None:
    """The campaign's latest own revision, else its dataset's latest, else None (one query: both latest, the campaign's first)."""
    columns = ("rank", "revision", "body", "change_note", "created_at")
    own = (
        CampaignGuidelines.objects.filter(campaign_id=campaign.pk)
        .annotate(rank=Value(0, output_field=IntegerField()))
        .values_list(*columns)
        .order_by()
    )
    shared = (
        DatasetGuidelines.objects.filter(dataset__versions__id=campaign.version_id)
        .annotate(rank=Value(1, output_field=IntegerField()))
        .values_list(*columns)
        .order_by()
    )
    row = own.union(shared, all=True).order_by("rank", "-revision").first()
    if row is None:
        return None
    rank, revision, body, change_note, created_at = row
    return GuidelinesInForce(SOURCE_CAMPAIGN if rank == 0 else SOURCE_DATASET, revision, body, change_note, created_at)


def current_dataset_guidelines(dataset: Dataset) -> DatasetGuidelines | None:
    """The latest revision of the dataset's guidelines, or None (one query)."""
    return DatasetGuidelines.objects.filter(dataset_id=dataset.pk).order_by("-revision").first()


def publish_dataset_guidelines(*, dataset: Dataset, body: str, change_note: str = "", author: User) -> DatasetGuidelines:
    """Publish a new revision of the dataset's guidelines (admins and rubric authors); in force wherever a campaign has none of its own.

    As for a campaign's: earlier revisions stay, an identical body is refused.
    """
    if not has_role(author, Role.ADMIN, Role.RUBRIC_AUTHOR):
        raise PermissionDenied(_("Only an admin or a rubric author publishes a dataset's guidelines."))
    return _new_revision(DatasetGuidelines, dataset, *_checked(body, change_note), author)


R = TypeVar("R", CampaignGuidelines, DatasetGuidelines)


def _new_revision(model: type[R], owner: Campaign | Dataset, body: str, change_note: str, author: User) -> R:
    """The revision after the owner's latest; a body identical to the latest's is refused (a revision that changes nothing)."""
    field = "campaign" if isinstance(owner, Campaign) else "dataset"
    with transaction.atomic():
        # The owner's row is the lock: two publications at once get consecutive revisions.
        type(owner).objects.select_for_update().filter(pk=owner.pk).first()
        revisions = model.objects.filter(**{f"{field}_id": owner.pk})
        latest = revisions.order_by("-revision").first()
        if latest is not None and latest.body == body:
            raise ValidationError({"body": [_("These guidelines are the same as revision %(n)d.") % {"n": latest.revision}]})
        top = revisions.aggregate(top=Max("revision"))["top"] or 0
        return model.objects.create(**{field: owner}, revision=top + 1, body=body, change_note=change_note, author=author)


def _checked(body: str, change_note: str) -> tuple[str, str]:
    """The body and change note stripped, or a ValidationError naming the field."""
    body = (body or "").strip()
    change_note = (change_note or "").strip()
    errors: dict[str, list[str]] = {}
    if not body:
        errors["body"] = [_("Write the guidelines (Markdown).")]
    elif len(body) > BODY_MAX_CHARS:
        errors["body"] = [_("The guidelines have at most %(n)d characters.") % {"n": BODY_MAX_CHARS}]
    if len(change_note) > CHANGE_NOTE_MAX_CHARS:
        errors["change_note"] = [_("A change note has at most %(n)d characters.") % {"n": CHANGE_NOTE_MAX_CHARS}]
    if errors:
        raise ValidationError(errors)
    return body, change_note
