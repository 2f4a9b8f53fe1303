"""Plain-text and CSV renderings of an agreement report, shared by the command and the exports."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from django.utils.formats import number_format
from django.utils.translation import gettext

from heartbench_core.lib.agreement_report import Figure, Interval, PostDiscussion, ReportResult, Resampling

if TYPE_CHECKING:
    from validation.models import AgreementReport

BREAKDOWNS = (
    ("by_ability", "Ability"),
    ("by_dimension", "Dimension"),
    ("by_model", "Model"),
    ("by_difficulty", "Difficulty"),
    ("by_primary_scene", "Primary scene"),
)


def fmt(value: Any) -> str:
    """A figure for people: 3 decimals, an interval as [low, high], undefined as n/a."""
    if isinstance(value, Figure):
        value = value.value
    if isinstance(value, Interval):
        value = value.pair()
    if value is None:
        return "n/a"
    if isinstance(value, list):
        return "[" + ", ".join(fmt(v) for v in value) + "]"
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)


def resampled_text(resampled: Resampling) -> str:
    """What the report's intervals resampled, in words (reports from before items were the unit resampled responses)."""
    resamples = number_format(resampled.resamples, force_grouping=True)
    if resampled.unit == "response":
        return gettext("%(resamples)s resamples of the responses (each response's criteria together)") % {"resamples": resamples}
    values = {
        "level": f"{resampled.level:.0%}",
        "resamples": resamples,
        "units": number_format(resampled.units, force_grouping=True),
        "unit": resampled.unit,
    }
    if resampled.unit == "item":
        return gettext("%(level)s CI from %(resamples)s resamples of the %(units)s items (all of an item's responses together)") % values
    return gettext("%(level)s CI from %(resamples)s resamples of the %(units)s %(unit)ss") % values


def post_discussion_text(post: PostDiscussion) -> str:
    """The warning a post-discussion report carries: revisions replaced blind verdicts, and how many."""
    return gettext(
        "POST-DISCUSSION VIEW: %(note)s — %(assignments)d revised assignments, %(changed)d of %(judgments)d revised verdicts "
        "differ from the blind ones; exploratory, never the release gate"
    ) % {
        "note": post.note or gettext("post-discussion revisions included"),
        "assignments": post.assignments,
        "changed": post.changed_verdicts,
        "judgments": post.judgments,
    }


def report_table(report: AgreementReport) -> str:
    r = report.typed_result
    lines = [
        f"Agreement report {report.pk} — campaign {r.campaign} ({r.dataset}@{r.version}), judge {r.judge or 'none'}",
        f"computed {report.created_at:%Y-%m-%d %H:%M:%S} UTC in {report.duration_ms} ms; "
        f"{r.parameters.resamples} bootstrap resamples, seed {r.parameters.seed}",
        f"intervals: {resampled_text(r.resampled)}",
        "",
        "Judge vs golden standard",
    ]
    if r.post_discussion is not None:
        lines.insert(-2, post_discussion_text(r.post_discussion))
    c = r.confusion
    rows = [
        ("pairs / responses / items", f"{r.pairs} / {r.responses} / {fmt(r.items)}"),
        ("item agreement rate", f"{fmt(r.item_agreement.rate)}  95% CI {fmt(r.item_agreement.ci95)}"),
        ("Cohen's kappa", fmt(r.cohen_kappa)),
        ("Gwet's AC1", fmt(r.gwet_ac1)),
        ("confusion (judge × gold)", f"tp {c.tp}  fp {c.fp}  fn {c.fn}  tn {c.tn}"),
        ("hit rate judge / human", f"{fmt(r.judge_hit_rate)} / {fmt(r.human_hit_rate)}"),
        ("McNemar exact p", fmt(r.mcnemar.p)),
    ]
    lines += [f"  {k:<28} {v}" for k, v in rows]
    lines += ["", "Among experts"]
    b = r.judge_expert_baseline
    rows = [
        ("Krippendorff's alpha", f"{fmt(r.krippendorff_alpha)}  (n={r.krippendorff_alpha.n} units)"),
        ("Fleiss' kappa", f"{fmt(r.fleiss_kappa)}  (n={r.fleiss_kappa.n} units)"),
        ("pairwise agreement", f"{fmt(r.pairwise_percent_agreement)}  (n={r.pairwise_percent_agreement.n} units)"),
        (
            "judge–expert vs expert–expert",
            f"{fmt(b.judge_expert)} vs {fmt(b.expert_expert)}, difference {fmt(b.difference)} 95% CI {fmt(b.difference_ci95)}",
        ),
        ("golden labels", ", ".join(f"{k} {v}" for k, v in asdict(r.gold_provenance).items())),
        ("units", ", ".join(f"{k} {v}" for k, v in asdict(r.units).items())),
    ]
    lines += [f"  {k:<28} {v}" for k, v in rows]
    gate = r.gate
    clears = "CI lower bound" if gate.must_clear == "lower_bound" else "agreement"
    title = "Release gate" if not r.exploratory else "Release gate under these parameters (EXPLORATORY: it does not set the gate)"
    lines += [
        "",
        f"{title}: {'PASSED' if gate.passed else 'FAILED'} ({clears} ≥ {gate.threshold}, "
        f"≥{gate.min_pairs_per_dimension} pairs per dimension, ≥{gate.min_pairs_per_ability} per ability"
        f"; 95% CI lower bound {fmt(gate.ci_low)})",
    ]
    if r.exploratory:
        lines += ["  exploratory: computed with parameters other than the release policy; it does not set the gate"]
        lines += [f"  * {reason}" for reason in r.exploratory_reasons]
    lines += [f"  - {reason}" for reason in gate.reasons]
    for key, heading in BREAKDOWNS:
        lines += ["", f"{heading:<24}" + "".join(f"{h:>14}" for h in ("pairs", "items", "agreement", "95% CI", "kappa", "AC1", "alpha"))]
        for row in getattr(r, key):
            lines.append(
                f"{row.label[:24]:<24}{row.pairs:>14}{fmt(row.items):>14}{fmt(row.item_agreement.rate):>14}{fmt(row.item_agreement.ci95):>14}"
                f"{fmt(row.cohen_kappa):>14}{fmt(row.gwet_ac1):>14}{fmt(row.krippendorff_alpha):>14}"
            )
    lines += ["", f"{'Expert':<24}{'judgments':>14}{'vs gold':>14}{'pairs':>14}{'vs experts':>14}"]
    for e in r.by_expert:
        lines.append(
            f"{e.expert[:24]:<24}{e.judgments:>14}{fmt(e.gold_agreement):>14}{e.gold_agreement.n:>14}{fmt(e.expert_agreement):>14}"
        )
    impact = r.score_impact
    lines += ["", f"Score impact on {impact.responses} fully labelled responses: Kendall's tau {fmt(impact.kendall_tau)}"]
    for m in impact.models:
        lines.append(f"  {m.model[:30]:<30} judge {fmt(m.judge_score):>8} (#{m.judge_rank})  gold {fmt(m.gold_score):>8} (#{m.gold_rank})")
    if r.undefined:
        lines += ["", "Undefined"] + [f"  {k}: {v}" for k, v in r.undefined.items()]
    if r.alerts:
        lines += ["", "Alerts"] + [f"  [{a.kind}] {a.message}" for a in r.alerts]
    return "\n".join(lines)


def report_csv_rows(result: ReportResult) -> Iterator[tuple[Any, ...]]:
    """Long-format rows (section, group, statistic, value, n) of a report, for CSV export."""
    yield ("section", "group", "statistic", "value", "n")
    for key, figure in result.figures().items():
        yield ("overall", "", key, _cell(figure.value), _cell(figure.n))
    ci = result.item_agreement.ci95
    # An interval's n is the number of units it resampled: items (responses in reports from before).
    ci_n = ci.resampled.units
    yield ("overall", "", "item_agreement_ci95_low", _cell(ci.low), ci_n)
    yield ("overall", "", "item_agreement_ci95_high", _cell(ci.high), ci_n)
    for k, v in asdict(result.confusion).items():
        yield ("overall", "", f"confusion_{k}", v, result.pairs)
    for key, _ in (*BREAKDOWNS, ("by_criterion", "")):
        for row in getattr(result, key):
            figures = (
                ("item_agreement_rate", row.item_agreement.rate),
                ("cohen_kappa", row.cohen_kappa),
                ("gwet_ac1", row.gwet_ac1),
                ("krippendorff_alpha", row.krippendorff_alpha),
            )
            for field, figure in figures:
                yield (key, row.key, field, _cell(figure.value), _cell(figure.n))
            row_ci = row.item_agreement.ci95
            if row_ci.defined:
                yield (key, row.key, "item_agreement_ci95_low", _cell(row_ci.low), row_ci.resampled.units)
                yield (key, row.key, "item_agreement_ci95_high", _cell(row_ci.high), row_ci.resampled.units)
    for e in result.by_expert:
        yield ("by_expert", e.expert, "gold_agreement", _cell(e.gold_agreement.value), e.gold_agreement.n)
        yield ("by_expert", e.expert, "expert_agreement", _cell(e.expert_agreement.value), e.expert_agreement.n)
    # An exploratory report's gate is what its own parameters would decide, never the release decision.
    yield ("gate", "", "exploratory", result.exploratory, "")
    yield ("gate", "", "passed", result.gate.passed, result.pairs)
    yield ("gate", "", "ci_low", _cell(result.gate.ci_low), ci_n)


def _cell(value: Any) -> Any:
    return "" if value is None else value
