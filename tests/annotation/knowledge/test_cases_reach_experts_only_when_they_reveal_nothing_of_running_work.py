"""A case made from a campaign reaches experts only once that campaign is closed, or once rewritten on an invented response,
and never while its response is in a campaign they rate in; staff who rate in a campaign do not see its cases either.
Every list, search, count and detail follows the same rules."""

import pytest
from django.urls import reverse

from annotation.knowledge import selectors
from annotation.knowledge.models import Case
from annotation.knowledge.services.knowledge import CaseSource, record_open
from annotation.models import Assignment, Campaign
from annotation.services.campaigns import create_campaign, set_campaign_status
from heartbench_core.roles import Role
from tests.annotation.knowledge.conftest import MODELS, written_case
from tests.conftest import make_user

pytestmark = pytest.mark.django_db


def _from(library, entry, **extra):
    return {"kind": Case.Source.ADJUDICATION, "campaign": library.campaign, "response": entry.response, **extra}


def _fresh(user):
    """The user as a new request would load them (the blind scope is cached on the user object for one request)."""
    return type(user).objects.get(pk=user.pk)


def _visible(user, case):
    return selectors.visible_cases(_fresh(user), as_expert=True).filter(pk=case.pk).exists()


def test_a_case_from_a_running_campaign_waits_for_it_to_close(cast, library, client_for):
    entry = library.entry("dm0001")
    case = written_case(cast, entry.item.criteria.get(position=0), title="来自进行中的评测", **_from(library, entry))
    outsider_expert = make_user("erin_elsewhere", Role.EXPERT)
    for expert in (cast.expert, outsider_expert):
        assert not _visible(expert, case)
        assert client_for(expert).get(reverse("annotation:case", args=[case.pk])).status_code == 404
        assert selectors.search(expert, "来自进行中", as_expert=True).case_total == 0
    set_campaign_status(campaign=library.campaign, status=Campaign.Status.CLOSED, reason="done", by=cast.admin)
    assert _visible(cast.expert, case) and _visible(outsider_expert, case)
    assert selectors.search(_fresh(cast.expert), "来自进行中", as_expert=True).case_total == 1


def test_a_case_from_a_closed_campaign_stays_hidden_while_its_response_is_in_a_campaign_the_expert_rates_in(cast, library):
    entry = library.entry("dm0001")
    case = written_case(cast, entry.item.criteria.get(position=0), **_from(library, entry))
    set_campaign_status(campaign=library.campaign, status=Campaign.Status.CLOSED, reason="done", by=cast.admin)
    # The same responses are sampled again into a new blind test that only the second expert rates in.
    create_campaign(
        name="Second blind test",
        dataset_name="demo",
        model_names=MODELS,
        sample_fraction=1.0,
        overlap=1,
        expert_usernames=[cast.experts[1].username],
        requires_qualification=False,
    )
    assert _visible(cast.expert, case)
    assert not _visible(cast.experts[1], case)
    assert selectors.for_criterion(_fresh(cast.experts[1]), entry.item.criteria.get(position=0), as_expert=True).cases == []


def test_an_invented_case_reaches_experts_at_once_but_never_one_who_was_given_its_response(cast, library):
    entry = library.entry("dm0001")
    criterion = entry.item.criteria.get(position=0)
    from annotation.knowledge.services.knowledge import CaseContent, create_case

    case = create_case(
        author=cast.reviewer,
        criterion=criterion,
        content=CaseContent(
            title="虚构的回复", excerpt="（虚构）听起来你最近压力很大。", hit=True, reasoning="说出了感受。", invented=True
        ),
        source=CaseSource(Case.Source.ADJUDICATION, library.campaign, entry.response),
        publish=True,
    )
    Assignment.objects.create(campaign_response=entry, expert=cast.experts[2])
    assert _visible(cast.expert, case)
    assert not _visible(cast.experts[2], case)


def test_drafts_and_retired_cases_never_reach_experts(cast, library):
    draft = written_case(cast, library.criterion(), publish=False)
    assert not _visible(cast.expert, draft)
    assert selectors.visible_cases(cast.reviewer, as_expert=False).filter(pk=draft.pk).exists()


def test_staff_who_rate_in_a_running_campaign_do_not_see_its_cases_anywhere(cast, library, client_for):
    dual = make_user("sam_dual", Role.SENIOR_REVIEWER, Role.EXPERT)
    library.campaign.experts.add(dual)
    entry = library.entry("dm0002")
    hidden = written_case(cast, entry.item.criteria.get(position=0), title="运行中的案例", publish=False, **_from(library, entry))
    shown = written_case(cast, library.criterion("dm0003"), title="另一个案例")
    record_open(user=cast.expert, case=shown, campaign=library.campaign)
    record_open(user=cast.expert, case=shown)
    assert set(selectors.visible_cases(dual, as_expert=False)) == {shown}
    assert set(selectors.visible_cases(cast.reviewer, as_expert=False)) == {hidden, shown}
    client = client_for(dual)
    assert client.get(reverse("annotation:case", args=[hidden.pk])).status_code == 404
    assert "运行中的案例" not in client.get(reverse("annotation:library") + "?kind=cases").content.decode()
    assert "运行中的案例" not in client.get(reverse("annotation:library") + "?q=案例").content.decode()
    assert client.get(f"/api/v1/annotation/library/cases/{hidden.pk}/").status_code == 404
    assert client.get("/api/v1/annotation/library/cases/").json()["count"] == 1
    # Opens made on the judging pages of the campaign they rate in are not counted for them.
    assert selectors.open_counts(dual, case_ids=[shown.pk])[("case", shown.pk)].opens == 1
    assert selectors.open_counts(cast.reviewer, case_ids=[shown.pk])[("case", shown.pk)].opens == 2
