"""Cases written from adjudication decisions and from the experts' discussion of a unit (the library is annotation's).

A senior reviewer turns a decision into a lesson: the decision and its cause come with it, the
reviewer writes the excerpt and the reasoning for experts. The case records the campaign and the
response only so that the library's visibility rules keep it from the experts of running work
(`annotation.knowledge.selectors.visible_cases`).
"""

from __future__ import annotations

from django.core.exceptions import PermissionDenied, ValidationError
from django.utils.translation import gettext as _

from annotation.knowledge.models import Case
from annotation.knowledge.services.knowledge import CaseContent, CaseSource, create_case
from annotation.models import Assignment, Campaign, CampaignResponse
from heartbench_core.models import Criterion, User
from validation.models import Adjudication


def _not_a_rater(author: User, campaign_response: CampaignResponse) -> None:
    if Assignment.objects.filter(campaign_response=campaign_response, expert=author).exists():
        raise PermissionDenied(_("You rated this response yourself; another senior reviewer writes its case."))


def case_from_adjudication(*, author: User, adjudication: Adjudication, content: CaseContent, publish: bool = False) -> Case:
    """A case from a decision: its hit/miss is the decision's (another is refused), its cause the decision's unless changed."""
    entry = adjudication.campaign_response
    _not_a_rater(author, entry)
    if content.hit is not None and content.hit != adjudication.hit:
        raise ValidationError({"hit": [_("A case made from a decision keeps the decision's verdict.")]})
    content.hit = adjudication.hit
    source = CaseSource(Case.Source.ADJUDICATION, entry.campaign, entry.response, adjudication.pk)
    return create_case(author=author, criterion=adjudication.criterion, content=content, source=source, publish=publish)


def case_from_discussion(
    *, author: User, campaign_response: CampaignResponse, criterion: Criterion, content: CaseContent, publish: bool = False
) -> Case:
    """A case from the experts' discussion of one unit (a blind test's response and criterion); the writer states the outcome."""
    if campaign_response.campaign.kind != Campaign.Kind.BLIND_TEST:
        raise ValidationError({"source": [_("Only a blind test's responses are discussed.")]})
    if criterion.item_id != campaign_response.item_id:
        raise ValidationError({"criterion": [_("This criterion does not belong to the response's item.")]})
    _not_a_rater(author, campaign_response)
    source = CaseSource(Case.Source.DISCUSSION, campaign_response.campaign, campaign_response.response)
    return create_case(author=author, criterion=criterion, content=content, source=source, publish=publish)
