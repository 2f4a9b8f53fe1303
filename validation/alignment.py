"""Judge–human alignment across judge versions: every judge run of a dataset against the experts' golden standard.

A *judge version* is what made a judge run: the judge (the endpoint's model, or an imported
judge's name) and its run label — for runs made on the platform, with the endpoint and the
prompt template revision — over a rubric version (the dataset version the run judged). For each
blind-test campaign of the dataset, each judge version that judged its models is compared with the
campaign's golden standard with the agreement report's own functions (`judge_alignment`: same
pairs, same item resampling), in the order the versions were made, each with its paired change
(`agreement_change`, on the units both judged) from the version before **of the same judge** — a
template revision is compared with the judge's previous revision, never with another judge. A
version with no unit of the blind test is left out (listed as such), and so never is the version
before. Any two versions may be compared on request (`before`, `after`: their keys).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from django.utils.translation import gettext as _

from annotation.models import Campaign, CampaignResponse
from heartbench_core.judging.models import EndpointRun
from heartbench_core.lib.agreement_report import (
    DEFAULTS,
    AgreementChange,
    AltTest,
    CalibratedScores,
    GroupRow,
    JudgeAlignment,
    agreement_change,
    judge_alignment,
)
from heartbench_core.lib.taxonomy import ABILITY_LABELS, CATASTROPHIC_LABEL
from heartbench_core.models import Dataset, JudgeRun
from validation.scoring_population import scoring_population
from validation.selectors import CampaignArrays, campaigns_with_judgments, load_campaign_arrays
from validation.services.release import release_policy_of


@dataclass(frozen=True)
class JudgeVersion:
    """One judge version as the page names it: judge, run label, and what made it."""

    judge: str
    label: str
    rubric_version: str  # the dataset version its runs judged
    made_at: datetime  # the earliest of its runs
    runs: tuple[JudgeRun, ...]  # one per model of the campaign it judged
    endpoint: str | None = None  # made on the platform: the endpoint
    template: str | None = None  # … and the template revision, e.g. "heartbench-zh r2"

    @property
    def key(self) -> str:
        return f"{self.judge}/{self.label}@{self.rubric_version}"

    @property
    def imported(self) -> bool:
        return self.endpoint is None


@dataclass(frozen=True)
class AlignmentRow:
    """One judge version against one campaign's golden standard."""

    version: JudgeVersion
    alignment: JudgeAlignment | None  # None when it could not be compared: see `problem`
    change: AgreementChange | None = None  # from the same judge's version before (None for its first)
    previous: str | None = None  # the key of the version the change is from
    runs: int = 0  # judge runs compared (one per model of the campaign)
    stale_verdicts: int = 0  # verdicts left out: their criterion changed meaning since


@dataclass(frozen=True)
class Comparison:
    """Two judge versions the admin chose, and the paired change in agreement from `before` to `after`."""

    before: JudgeVersion
    after: JudgeVersion
    change: AgreementChange


@dataclass(frozen=True)
class CampaignAlignment:
    campaign: Campaign
    rows: list[AlignmentRow]  # the versions with units of the campaign, in the order they were made
    abilities: list[tuple[str, str]]  # (key, label) of the ability columns, in taxonomy order
    gold_units: int  # units with a golden label
    left_out: list[JudgeVersion] = field(default_factory=list)  # versions with no unit of the campaign: not compared
    comparison: Comparison | None = None  # the two versions asked for (`before`, `after`)
    comparison_errors: dict[str, str] = field(default_factory=dict)  # why the two asked for cannot be compared, by field
    alt_test_epsilon: float = 0.2  # the release policy's margin of the alternative annotator test

    @property
    def left_out_keys(self) -> list[str]:
        return [v.key for v in self.left_out]

    def ability_table(self) -> list[tuple[AlignmentRow, list[GroupRow | None]]]:
        """Each compared row with its per-ability breakdown row under each ability column (None: no pairs there)."""
        table = []
        for row in self.rows:
            if row.alignment is None:
                continue
            by_key = {r.key: r for r in row.alignment.by_ability}
            table.append((row, [by_key.get(key) for key, _label in self.abilities]))
        return table

    @property
    def alt_test_dimensions(self) -> list[str]:
        """The dimensions of the alternative annotator test's columns, in the report's order."""
        keys: list[str] = []
        for row in self.rows:
            block = row.alignment.alt_test if row.alignment else None
            keys += [r.key for r in (block.by_dimension if block else ()) if r.key not in keys]
        return keys

    def alt_test_table(self) -> list[tuple[AlignmentRow, AltTest, list[AltTest | None], list[AltTest | None]]]:
        """Each compared row's alternative annotator test: overall, then under each dimension and each ability column."""
        table = []
        dimensions = self.alt_test_dimensions
        for row in self.rows:
            block = row.alignment.alt_test if row.alignment else None
            if block is None:
                continue
            by_dimension = {r.key: r.test for r in block.by_dimension}
            by_ability = {r.key: r.test for r in block.by_ability}
            table.append(
                (row, block.overall, [by_dimension.get(k) for k in dimensions], [by_ability.get(k) for k, _label in self.abilities])
            )
        return table

    def calibrated_table(self) -> list[tuple[AlignmentRow, CalibratedScores | None]]:
        """Each compared row with its human-calibrated scores (None: the judge's runs have no scores to correct)."""
        return [(row, row.alignment.calibrated_scores) for row in self.rows if row.alignment is not None]


@dataclass
class DatasetAlignment:
    dataset: Dataset
    campaigns: list[CampaignAlignment] = field(default_factory=list)  # the blind test shown (none when there is none)
    resamples: int = DEFAULTS.resamples
    seed: int = DEFAULTS.seed
    blind_tests: list[Campaign] = field(default_factory=list)  # every one that can be shown, newest first

    @property
    def shown(self) -> Campaign | None:
        return self.campaigns[0].campaign if self.campaigns else None


def judge_versions(campaign: Campaign) -> list[JudgeVersion]:
    """Every (judge, run label, rubric version) with verdicts on the campaign's models, oldest first, with what made it (two queries)."""
    model_ids = CampaignResponse.objects.filter(campaign=campaign, is_gold=False).values("response__model_id")
    runs = list(
        JudgeRun.objects.filter(version__dataset_id=campaign.version.dataset_id, model_id__in=model_ids)
        .select_related("version", "model")
        .order_by("created_at", "id")
    )
    made = {
        r.judge_run_id: r
        for r in EndpointRun.objects.filter(judge_run__in=[r.pk for r in runs]).select_related("endpoint", "template_revision__template")
    }
    grouped: dict[tuple[str, str, int], list[JudgeRun]] = {}
    for run in runs:  # one run per model at most: (version, model, judge, label) is unique
        grouped.setdefault((run.judge, run.label, run.version_id), []).append(run)
    versions = []
    for (judge, label, _version), group in grouped.items():
        platform = next((made[r.pk] for r in group if r.pk in made), None)
        revision = platform.template_revision if platform else None
        versions.append(
            JudgeVersion(
                judge=judge,
                label=label,
                rubric_version=group[0].version.label,
                made_at=min(r.created_at for r in group),
                runs=tuple(group),
                endpoint=platform.endpoint.name if platform else None,
                template=f"{revision.template.name} r{revision.revision}" if revision else None,
            )
        )
    return sorted(versions, key=lambda v: (v.made_at, v.key))


def campaign_alignment(
    campaign: Campaign,
    *,
    before: str | None = None,
    after: str | None = None,
    resamples: int = DEFAULTS.resamples,
    seed: int = DEFAULTS.seed,
) -> CampaignAlignment:
    """Each judge version of the campaign against its golden standard, in the order they were made, each with its change
    from the same judge's version before; and the change from `before` to `after` (two versions' keys) when asked."""
    rows: list[AlignmentRow] = []
    left_out: list[JudgeVersion] = []
    last_of_judge: dict[str, tuple[str, CampaignArrays]] = {}  # judge → its newest version with units so far
    chosen: dict[str, tuple[JudgeVersion, CampaignArrays]] = {}
    gold_units = 0
    abilities: list[tuple[str, str]] = []
    epsilon = release_policy_of(campaign.version.dataset).alt_test_epsilon
    for version in judge_versions(campaign):
        runs = list(version.runs)
        data = load_campaign_arrays(campaign, judge_runs=runs)
        population = scoring_population(campaign, runs)
        alignment = judge_alignment(data, resamples=resamples, seed=seed, alt_test_epsilon=epsilon, population=population)
        gold_units = alignment.units_with_gold
        if not alignment.pairs:  # nothing of the blind test judged: nothing to compare, nor to compare with
            left_out.append(version)
            continue
        previous = last_of_judge.get(version.judge)
        change = agreement_change(previous[1], data, resamples=resamples, seed=seed) if previous else None
        rows.append(
            AlignmentRow(
                version,
                alignment,
                change=change,
                previous=previous[0] if previous else None,
                runs=len(runs),
                stale_verdicts=int(data.excluded.get("stale_verdicts", 0)),
            )
        )
        last_of_judge[version.judge] = (version.key, data)
        if version.key in (before, after):
            chosen[version.key] = (version, data)
        for row in alignment.by_ability:
            if (row.key, row.label) not in abilities:
                abilities.append((row.key, row.label))
    order = {label: i for i, label in enumerate([*ABILITY_LABELS, CATASTROPHIC_LABEL])}
    abilities.sort(key=lambda a: (order.get(a[0], len(order)), a[0]))
    comparison, errors = _comparison(campaign, before, after, chosen, resamples=resamples, seed=seed)
    return CampaignAlignment(campaign, rows, abilities, gold_units, left_out, comparison, errors, alt_test_epsilon=epsilon)


def _comparison(
    campaign: Campaign,
    before: str | None,
    after: str | None,
    chosen: dict[str, tuple[JudgeVersion, CampaignArrays]],
    *,
    resamples: int,
    seed: int,
) -> tuple[Comparison | None, dict[str, str]]:
    """The change from version `before` to version `after` (keys), or why they cannot be compared, by field."""
    if not before and not after:
        return None, {}
    errors: dict[str, str] = {}
    for name, key in (("before", before), ("after", after)):
        if not key:
            errors[name] = _("Choose a judge version.")
        elif key not in chosen:
            errors[name] = _("No judge version %(version)s with units of blind test %(campaign)s.") % {
                "version": key,
                "campaign": campaign.name,
            }
    if not errors and before == after:
        errors["after"] = _("Choose two different judge versions.")
    if errors or before is None or after is None:
        return None, errors
    (old, old_data), (new, new_data) = chosen[before], chosen[after]
    return Comparison(old, new, agreement_change(old_data, new_data, resamples=resamples, seed=seed)), {}


def dataset_alignment(
    dataset: Dataset,
    *,
    campaign_id: int | str | None = None,
    before: str | None = None,
    after: str | None = None,
    resamples: int = DEFAULTS.resamples,
    seed: int = DEFAULTS.seed,
) -> DatasetAlignment:
    """The alignment of every judge version with one blind test of the dataset (`campaign_id`, else the newest), and the others to choose.

    One at a time: each is compared with 1,000 resamples for every judge version, so all of them at
    once cost in proportion to the dataset's history (5.7 s for a hundred blind tests). With `before`
    and `after` (two versions' keys), the change from one to the other too; the page and the API
    both read it here.
    """
    tests = list(campaigns_with_judgments().filter(version__dataset=dataset, kind=Campaign.Kind.BLIND_TEST))  # those with a golden standard
    page = DatasetAlignment(dataset, resamples=resamples, seed=seed, blind_tests=tests)
    chosen = next((c for c in tests if str(c.pk) == str(campaign_id)), None) if campaign_id not in (None, "") else None
    shown = chosen or (tests[0] if tests else None)
    page.campaigns = [campaign_alignment(shown, before=before, after=after, resamples=resamples, seed=seed)] if shown else []
    return page
