"""Builders for the tests of extra raters where the verdicts split: a campaign with the option, and verdicts submitted through the services."""

from annotation.models import Assignment, CampaignResponse
from annotation.services.workspace import DraftEntry, save_draft, submit_assignment

from .helpers import demo_campaign, more_experts, qualify


def split_campaign(cast, *, budget=4, share=0.5, on=True, overlap=3, extra_experts=4, models=None, **kwargs):
    """A demo blind test (18 responses) with k = `overlap` among the cast's experts and `extra_experts` more, all qualified."""
    experts = [*cast.experts, *more_experts(extra_experts, prefix="split_expert")]
    qualify(*experts)
    campaign = demo_campaign(
        cast,
        overlap=overlap,
        experts=experts,
        split_extension=on,
        split_extension_budget=budget if on else 0,
        split_extension_min_share=share,
        models=models,
        **kwargs,
    )
    return campaign, experts


def responses(campaign) -> list[CampaignResponse]:
    """The campaign's ordinary responses in id order."""
    return list(CampaignResponse.objects.filter(campaign=campaign, is_gold=False).order_by("pk"))


def criteria_of(cr: CampaignResponse) -> list:
    return list(cr.item.criteria.order_by("position"))


def submit(expert, cr: CampaignResponse, hits: list[bool] | None = None, *, assignment: Assignment | None = None) -> Assignment:
    """Give `expert` the response (unless `assignment` is theirs already) and submit `hits` per criterion (all hits when None)."""
    if assignment is None:
        assignment = Assignment.objects.create(campaign_response=cr, expert=expert)
    criteria = criteria_of(cr)
    hits = hits if hits is not None else [True] * len(criteria)
    entries = [DraftEntry(c.pk, f"Reasoning about criterion {c.position}", hit) for c, hit in zip(criteria, hits, strict=True)]
    save_draft(assignment=assignment, expert=expert, entries=entries)
    return submit_assignment(assignment=assignment, expert=expert)


def split_verdicts(n: int, split: int) -> list[list[bool]]:
    """Three raters' verdicts on n criteria: the first `split` criteria 2–1, the rest unanimous hits."""
    rows = [[True] * n for _ in range(3)]
    for i in range(split):
        rows[2][i] = False
    return rows
