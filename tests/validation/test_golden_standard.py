"""The golden standard: strict majority once k judgments are in, provenance, ties, incompleteness, staleness."""

from annotation.models import Assignment, Judgment
from heartbench_core.models import CriterionLineage
from tests.factories import demo_responses, demo_version
from tests.validation.builders import as_file, blind_test, judgment_lines
from validation.models import GoldenLabel
from validation.services.golden import refresh_golden_labels
from validation.services.imports import import_judgments


def votes(campaign):
    """(response id, criterion id) → list of expert hits, from the database."""
    out = {}
    for cr, crit, hit in Judgment.objects.filter(
        assignment__campaign_response__campaign=campaign, assignment__status="submitted"
    ).values_list("assignment__campaign_response_id", "criterion_id", "hit"):
        out.setdefault((cr, crit), []).append(hit)
    return out


class TestMajority:
    def test_every_complete_unit_gets_the_strict_majority_with_its_provenance(self, cast):
        campaign = blind_test(cast, flip=0.3)
        outcome = refresh_golden_labels(campaign=campaign)
        expected = votes(campaign)
        assert outcome.created == len(expected) == GoldenLabel.objects.count()
        seen = set()
        for label in GoldenLabel.objects.filter(campaign=campaign):
            v = expected[(label.campaign_response_id, label.criterion_id)]
            assert label.hit == (sum(v) >= 2)
            assert label.expert_hits == sum(v) and label.expert_ratings == 3
            assert label.provenance == ("unanimous" if sum(v) in (0, 3) else "majority")
            assert label.adjudication is None
            seen.add(label.provenance)
        assert seen == {"unanimous", "majority"}

    def test_refreshing_twice_writes_nothing_the_second_time(self, cast):
        campaign = blind_test(cast)
        refresh_golden_labels(campaign=campaign)
        again = refresh_golden_labels(campaign=campaign)
        assert (again.created, again.updated, again.deleted) == (0, 0, 0)

    def test_incomplete_units_have_no_golden_label(self, cast):
        demo_version()
        demo_responses()
        lines = judgment_lines([e.username for e in cast.experts])
        # Two of three experts on the first response only: k = 3 (the file's usual count), so it is incomplete.
        first = (lines[0]["question_id"], lines[0]["model"])
        lines = [
            line for line in lines if not ((line["question_id"], line["model"]) == first and line["annotator"] == cast.experts[2].username)
        ]
        campaign = import_judgments(source=as_file(lines), dataset_name="demo", campaign_name="c").campaign
        refresh_golden_labels(campaign=campaign)
        assert campaign.overlap == 3
        assert not GoldenLabel.objects.filter(
            campaign_response__item__question_id=first[0], campaign_response__response__model__name=first[1]
        ).exists()
        assert GoldenLabel.objects.exists()

    def test_ties_of_an_even_k_have_no_label_and_go_to_adjudication(self, cast):
        from validation.services.golden import adjudication_queue

        demo_version()
        demo_responses()
        lines = judgment_lines([e.username for e in cast.experts[:2]], flip=0.3)
        campaign = import_judgments(source=as_file(lines), dataset_name="demo", campaign_name="c").campaign
        assert campaign.overlap == 2
        refresh_golden_labels(campaign=campaign)
        ties = {k for k, v in votes(campaign).items() if sum(v) == 1}
        assert ties
        labelled = set(GoldenLabel.objects.values_list("campaign_response_id", "criterion_id"))
        assert not ties & labelled
        queued = {(e.campaign_response_id, e.criterion_id): e for e in adjudication_queue(campaign)}
        assert ties <= set(queued)
        assert all("tie" in queued[t].triggers and queued[t].agreement == 0.0 for t in ties)

    def test_judgments_on_a_criterion_whose_meaning_changed_are_excluded(self, cast):
        campaign = blind_test(cast)
        refresh_golden_labels(campaign=campaign)
        judged = Judgment.objects.filter(assignment__campaign_response__campaign=campaign).first().criterion
        CriterionLineage.objects.filter(pk=judged.lineage_id).update(current_revision=2, meaning_revision=2)
        outcome = refresh_golden_labels(campaign=campaign)
        per_criterion = Judgment.objects.filter(criterion=judged).values("assignment__campaign_response").distinct().count()
        assert outcome.deleted == per_criterion
        assert not GoldenLabel.objects.filter(criterion=judged).exists()

    def test_only_submitted_judgments_count(self, cast):
        campaign = blind_test(cast)
        some = Assignment.objects.filter(campaign_response__campaign=campaign).first()
        Assignment.objects.filter(pk=some.pk).update(status=Assignment.Status.RELEASED)
        refresh_golden_labels(campaign=campaign)
        assert not GoldenLabel.objects.filter(campaign_response=some.campaign_response).exists()
