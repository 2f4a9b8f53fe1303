"""Plain-text and CSV renderings of an agreement report, shared by the command and the exports."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from django.utils.formats import number_format
from django.utils.translation import gettext, gettext_noop

from heartbench_core.lib.agreement import CLUSTER_T, WILSON_DESIGN_EFFECT
from heartbench_core.lib.agreement_report import (
    PPI_CLT,
    AltTest,
    AltTestBlock,
    CalibratedScores,
    Figure,
    Interval,
    PostDiscussion,
    ReportResult,
    Resampling,
)
from heartbench_core.stat_reasons import reason_text
from heartbench_core.taxonomy_display import group_value_display

if TYPE_CHECKING:
    from validation.models import AgreementReport

BREAKDOWNS = (
    ("by_ability", gettext_noop("Ability")),
    ("by_dimension", gettext_noop("Dimension")),
    ("by_model", gettext_noop("Model")),
    ("by_difficulty", gettext_noop("Difficulty")),
    ("by_primary_scene", gettext_noop("Primary scene")),
)


def fmt(value: Any) -> str:
    """A figure for people: 3 decimals, an interval as [low, high], undefined as n/a."""
    if isinstance(value, Figure):
        value = value.value
    if isinstance(value, Interval):
        value = value.pair()
    if value is None:
        return gettext("n/a")
    if isinstance(value, list):
        return "[" + ", ".join(fmt(v) for v in value) + "]"
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)


# What an interval resampled, in words, by its method (`item` / `other`: a bootstrap of the items / of other units) and
# whether it resampled the experts with the items.
_RESAMPLED = {
    (PPI_CLT, False): gettext_noop(
        "%(level)s CI: analytic PPI++ interval over the %(units)s labelled items (each difficulty × scene stratum apart)"
    ),
    (PPI_CLT, True): gettext_noop(
        "%(level)s CI: analytic PPI++ interval over the %(units)s labelled items (each difficulty × scene stratum apart), "
        "with the variance between the %(experts)s experts added"
    ),
    (WILSON_DESIGN_EFFECT, False): gettext_noop(
        "%(level)s CI: Wilson interval on a design-effect sample of %(effective)s pairs over the %(units)s items "
        "(all of an item's responses together; used below 50 items, and where every item has the same rate)"
    ),
    (WILSON_DESIGN_EFFECT, True): gettext_noop(
        "%(level)s CI: Wilson interval on a design-effect sample of %(effective)s pairs over the %(units)s items, "
        "with the variance between the %(experts)s experts added (used below 50 items, and where every item has the same rate)"
    ),
    (CLUSTER_T, False): gettext_noop(
        "%(level)s CI: cluster-robust t interval over the %(units)s items (all of an item's responses together; used below 50 items)"
    ),
    (CLUSTER_T, True): gettext_noop(
        "%(level)s CI: cluster-robust t interval over the %(units)s items, with the variance between the %(experts)s experts "
        "added (used below 50 items)"
    ),
    ("item", False): gettext_noop("%(level)s CI from %(resamples)s resamples of the %(units)s items (all of an item's responses together)"),
    ("item", True): gettext_noop(
        "%(level)s CI from %(resamples)s resamples of the %(units)s items and the %(experts)s experts "
        "(all of an item's responses together, and all of an expert's votes)"
    ),
    ("other", False): gettext_noop("%(level)s CI from %(resamples)s resamples of the %(units)s %(unit)ss"),
}


def resampled_text(resampled: Resampling) -> str:
    """What the report's intervals resampled, in words (reports from before items were the unit resampled responses)."""
    resamples = number_format(resampled.resamples, force_grouping=True)
    if resampled.unit == "response":
        return gettext("%(resamples)s resamples of the responses (each response's criteria together)") % {"resamples": resamples}
    experts = resampled.experts is not None
    method = resampled.method if resampled.method in (PPI_CLT, WILSON_DESIGN_EFFECT, CLUSTER_T) else None
    return gettext(_RESAMPLED[method or ("item" if experts or resampled.unit == "item" else "other"), experts]) % {
        "level": f"{resampled.level:.0%}",
        "resamples": resamples,
        "units": number_format(resampled.units, force_grouping=True),
        "unit": resampled.unit,
        "experts": number_format(resampled.experts or 0, force_grouping=True),
        "effective": number_format(resampled.effective_n or 0, decimal_pos=1, force_grouping=True),
    }


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


def _width(text: str) -> int:
    """Columns a string takes on a terminal: Chinese characters take two."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _left(text: str, width: int) -> str:
    """`text` cut and padded to `width` terminal columns, aligned left."""
    out = ""
    for ch in text:
        if _width(out + ch) > width:
            break
        out += ch
    return out + " " * (width - _width(out))


def _right(text: str, width: int) -> str:
    return " " * max(0, width - _width(text)) + text


def report_table(report: AgreementReport) -> str:
    """The report as the `agreement_report` command prints it, in the active language."""
    r = report.typed_result
    lines = [
        gettext("Agreement report %(id)s — campaign %(campaign)s (%(dataset)s@%(version)s), judge %(judge)s")
        % {"id": report.pk, "campaign": r.campaign, "dataset": r.dataset, "version": r.version, "judge": r.judge or gettext("none")},
        gettext("computed %(when)s UTC in %(ms)s ms; %(resamples)s bootstrap resamples, seed %(seed)s")
        % {
            "when": f"{report.created_at:%Y-%m-%d %H:%M:%S}",
            "ms": report.duration_ms,
            "resamples": r.parameters.resamples,
            "seed": r.parameters.seed,
        },
        gettext("intervals: %(what)s") % {"what": resampled_text(r.resampled)},
        "",
        gettext("Judge vs golden standard"),
    ]
    if r.post_discussion is not None:
        lines.insert(-2, post_discussion_text(r.post_discussion))
    c = r.confusion
    ci = gettext("95% CI")
    rows = [
        (gettext("pairs / responses / items"), f"{r.pairs} / {r.responses} / {fmt(r.items)}"),
        (gettext("item agreement rate"), f"{fmt(r.item_agreement.rate)}  {ci} {fmt(r.item_agreement.ci95)}"),
        ("Cohen's kappa", fmt(r.cohen_kappa)),
        ("Gwet's AC1", fmt(r.gwet_ac1)),
        (gettext("confusion (judge × gold)"), f"tp {c.tp}  fp {c.fp}  fn {c.fn}  tn {c.tn}"),
        (gettext("hit rate judge / human"), f"{fmt(r.judge_hit_rate)} / {fmt(r.human_hit_rate)}"),
        (gettext("McNemar exact p"), fmt(r.mcnemar.p)),
    ]
    lines += [f"  {_left(k, 28)} {v}" for k, v in rows]
    lines += ["", gettext("Among experts")]
    b = r.judge_expert_baseline
    units = gettext("units")
    provenance = {
        "unanimous": gettext("unanimous"),
        "majority": gettext("majority"),
        "adjudicated": gettext("adjudicated"),
    }
    unit_counts = {
        "total": gettext("total"),
        "with_golden_label": gettext("with a golden label"),
        "ties": gettext("ties"),
        "incomplete": gettext("incomplete"),
    }
    rows = [
        ("Krippendorff's alpha", f"{fmt(r.krippendorff_alpha)}  (n={r.krippendorff_alpha.n} {units})"),
        ("Fleiss' kappa", f"{fmt(r.fleiss_kappa)}  (n={r.fleiss_kappa.n} {units})"),
        (gettext("pairwise agreement"), f"{fmt(r.pairwise_percent_agreement)}  (n={r.pairwise_percent_agreement.n} {units})"),
        (
            gettext("judge–expert vs expert–expert"),
            gettext("%(je)s vs %(ee)s, difference %(difference)s 95%% CI %(ci)s")
            % {"je": fmt(b.judge_expert), "ee": fmt(b.expert_expert), "difference": fmt(b.difference), "ci": fmt(b.difference_ci95)},
        ),
        (gettext("golden labels"), ", ".join(f"{provenance.get(k, k)} {v}" for k, v in asdict(r.gold_provenance).items())),
        (units, ", ".join(f"{unit_counts.get(k, k)} {v}" for k, v in asdict(r.units).items())),
    ]
    lines += [f"  {_left(k, 28)} {v}" for k, v in rows]
    gate = r.gate
    clears = gettext("CI lower bound") if gate.must_clear == "lower_bound" else gettext("agreement")
    title = (
        gettext("Release gate")
        if not r.exploratory
        else gettext("Release gate under these parameters (EXPLORATORY: it does not set the gate)")
    )
    lines += [
        "",
        gettext(
            "%(title)s: %(verdict)s (%(clears)s ≥ %(threshold)s, ≥%(dimension)s pairs per dimension, ≥%(ability)s per ability; "
            "95%% CI lower bound %(low)s)"
        )
        % {
            "title": title,
            "verdict": gettext("PASSED") if gate.passed else gettext("FAILED"),
            "clears": clears,
            "threshold": gate.threshold,
            "dimension": gate.min_pairs_per_dimension,
            "ability": gate.min_pairs_per_ability,
            "low": fmt(gate.ci_low),
        },
    ]
    if r.exploratory:
        lines += ["  " + gettext("exploratory: computed with parameters other than the release policy; it does not set the gate")]
        lines += [f"  * {reason_text(reason)}" for reason in r.exploratory_reasons]
    lines += [f"  - {reason_text(reason)}" for reason in gate.reasons]
    columns = (gettext("pairs"), gettext("items"), gettext("agreement"), ci, "kappa", "AC1", "alpha")
    kinds = {"by_ability": "ability", "by_dimension": "dimension", "by_difficulty": "difficulty"}
    for key, heading in BREAKDOWNS:
        lines += ["", _left(gettext(heading), 24) + "".join(_right(h, 14) for h in columns)]
        for row in getattr(r, key):
            label = group_value_display(kinds[key], row.key) if key in kinds else row.label
            lines.append(
                f"{_left(label, 24)}{row.pairs:>14}{fmt(row.items):>14}{fmt(row.item_agreement.rate):>14}{fmt(row.item_agreement.ci95):>14}"
                f"{fmt(row.cohen_kappa):>14}{fmt(row.gwet_ac1):>14}{fmt(row.krippendorff_alpha):>14}"
            )
    heads = (gettext("judgments"), gettext("vs gold"), gettext("pairs"), gettext("vs experts"))
    lines += ["", _left(gettext("Expert"), 24) + "".join(_right(h, 14) for h in heads)]
    for e in r.by_expert:
        lines.append(
            f"{_left(e.expert, 24)}{e.judgments:>14}{fmt(e.gold_agreement):>14}{e.gold_agreement.n:>14}{fmt(e.expert_agreement):>14}"
        )
    impact = r.score_impact
    lines += [
        "",
        gettext("Score impact on %(n)s fully labelled responses: Kendall's tau %(tau)s")
        % {"n": impact.responses, "tau": fmt(impact.kendall_tau)},
    ]
    for m in impact.models:
        lines.append(
            "  "
            + _left(m.model, 30)
            + " "
            + gettext("judge %(judge)s (#%(judge_rank)s)  gold %(gold)s (#%(gold_rank)s)")
            % {
                "judge": _right(fmt(m.judge_score), 8),
                "judge_rank": m.judge_rank,
                "gold": _right(fmt(m.gold_score), 8),
                "gold_rank": m.gold_rank,
            }
        )
    lines += _alt_test_lines(r.alt_test)
    lines += _calibrated_lines(r.calibrated_scores)
    if r.undefined:
        lines += ["", gettext("Undefined")] + [f"  {k}: {reason_text(v)}" for k, v in r.undefined.items()]
    if r.alerts:
        lines += ["", gettext("Alerts")] + [f"  [{reason_text(a.kind)}] {reason_text(a.message)}" for a in r.alerts]
    return "\n".join(lines)


def _calibrated_lines(block: CalibratedScores | None) -> list[str]:
    """The human-calibrated overall scores as the command prints them."""
    if block is None:
        return ["", gettext("Human-calibrated scores: not computed in this report (it predates them, or has no judge).")]
    if block.reason:
        return ["", gettext("Human-calibrated scores: undefined (%(why)s)") % {"why": reason_text(block.reason)}]
    lines = [
        "",
        gettext("Human-calibrated scores (PPI++) on %(items)s items, %(sampled)s sampled: Kendall's tau with the judge's ranking %(tau)s")
        % {"items": block.items, "sampled": block.sampled_items, "tau": fmt(block.kendall_tau)},
    ]
    for m in block.models:
        o = m.overall
        lines.append(
            "  "
            + _left(m.model, 30)
            + " "
            + gettext("judge %(judge)s (#%(judge_rank)s)  experts %(experts)s %(experts_ci)s  corrected %(corrected)s %(ci)s (#%(rank)s)")
            % {
                "judge": fmt(o.judge),
                "judge_rank": m.judge_rank,
                "experts": fmt(o.experts),
                "experts_ci": fmt(o.experts_ci95),
                "corrected": fmt(o.corrected),
                "ci": fmt(o.corrected_ci95),
                "rank": m.corrected_rank,
            }
        )
    intervals = [m.overall.corrected_ci95 for m in block.models if m.overall.corrected_ci95.defined]
    if intervals:
        lines.append("  " + resampled_text(intervals[0].resampled))
    if block.differences:
        lines.append("  " + gettext("Differences between models: %(what)s") % {"what": resampled_text(block.differences[0].ci95.resampled)})
    return lines


def _alt_test_lines(block: AltTestBlock | None) -> list[str]:
    """The alternative annotator test as the command prints it."""
    if block is None:
        return ["", gettext("Can the judge replace an expert? Not computed in this report (it predates the alternative annotator test).")]
    t = block.overall
    lines = [
        "",
        gettext("Can the judge replace an expert? Alternative annotator test, ε = %(epsilon)s, q = %(q)s")
        % {"epsilon": t.epsilon, "q": t.q},
    ]

    def line(label: str, t: AltTest) -> str:
        if t.winning_rate.value is None:
            not_available = gettext("n/a")
            return f"  {_left(label, 26)} {not_available}: {reason_text(t.winning_rate.reason or '')}"
        verdict = gettext("can replace an expert") if t.passed else gettext("cannot replace an expert")
        return f"  {_left(label, 26)} " + gettext(
            "winning rate %(omega)s, advantage probability %(rho)s: %(verdict)s (%(tested)s experts tested, %(left_out)s left out, %(responses)s responses)"
        ) % {
            "omega": fmt(t.winning_rate),
            "rho": fmt(t.advantage_probability),
            "verdict": verdict,
            "tested": t.experts_tested,
            "left_out": t.experts_left_out,
            "responses": t.responses,
        }

    lines.append(line(gettext("all criteria"), t))
    lines += [line(group_value_display("dimension", row.key), row.test) for row in block.by_dimension]
    return lines


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
    if ci.resampled.experts is not None:  # every interval of the report resampled these experts with the items
        yield ("overall", "", "experts_resampled", ci.resampled.experts, ci_n)
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
    if result.alt_test is not None:
        yield from _alt_test_csv_rows(result.alt_test)
    if result.calibrated_scores is not None:
        yield from _calibrated_csv_rows(result.calibrated_scores)


def _calibrated_csv_rows(block: CalibratedScores) -> Iterator[tuple[Any, ...]]:
    """The human-calibrated scores' rows, group "model/score": n of the judge's figure is items scored, of the others items labelled."""
    if block.reason:
        yield ("calibrated_scores", "", "undefined_reason", block.reason, "")
    yield ("calibrated_scores", "", "items", block.items, "")
    yield ("calibrated_scores", "", "sampled_items", block.sampled_items, "")
    yield ("calibrated_scores", "", "kendall_tau", _cell(block.kendall_tau.value), _cell(block.kendall_tau.n))
    for m in block.models:
        experts = m.overall.corrected_ci95.resampled.experts
        if experts is not None:  # the corrected and experts-only intervals count the variance between these experts
            yield ("calibrated_scores", m.model, "experts_resampled", experts, m.labelled_items)
        yield ("calibrated_scores", m.model, "judge_rank", m.judge_rank, "")
        yield ("calibrated_scores", m.model, "corrected_rank", m.corrected_rank, "")
        yield ("calibrated_scores", m.model, "strata", m.strata, "")
        for score in (m.overall, *m.by_dimension, *m.by_ability):
            group = f"{m.model}/{score.key}"
            yield ("calibrated_scores", group, "judge", _cell(score.judge.value), score.judge.n)
            for name, figure, ci in (("experts", score.experts, score.experts_ci95), ("corrected", score.corrected, score.corrected_ci95)):
                yield ("calibrated_scores", group, name, _cell(figure.value), figure.n)
                yield ("calibrated_scores", group, f"{name}_ci95_low", _cell(ci.low), figure.n)
                yield ("calibrated_scores", group, f"{name}_ci95_high", _cell(ci.high), figure.n)
            yield ("calibrated_scores", group, "lambda", _cell(score.lam), "")
            if score.corrected.reason:
                yield ("calibrated_scores", group, "undefined_reason", score.corrected.reason, "")
    for d in block.differences:
        group = f"{d.model} − {d.other}"
        yield ("calibrated_difference", group, "difference", _cell(d.difference.value), d.difference.n)
        yield ("calibrated_difference", group, "ci95_low", _cell(d.ci95.low), d.ci95.resampled.units)
        yield ("calibrated_difference", group, "ci95_high", _cell(d.ci95.high), d.ci95.resampled.units)
        if d.ci95.resampled.experts is not None:
            yield ("calibrated_difference", group, "experts_resampled", d.ci95.resampled.experts, d.ci95.resampled.units)
        if d.ci95.reason:
            yield ("calibrated_difference", group, "undefined_reason", d.ci95.reason, "")


def _alt_test_csv_rows(block: AltTestBlock) -> Iterator[tuple[Any, ...]]:
    """The alternative annotator test's rows: n of ω and ρ is the experts tested, of an expert's figures their responses."""
    groups = (("alt_test", "", block.overall), *(("alt_test_by_dimension", r.key, r.test) for r in block.by_dimension))
    for section, group, t in (*groups, *(("alt_test_by_ability", r.key, r.test) for r in block.by_ability)):
        yield (section, group, "winning_rate", _cell(t.winning_rate.value), t.experts_tested)
        yield (section, group, "advantage_probability", _cell(t.advantage_probability.value), t.experts_tested)
        yield (section, group, "can_replace_an_expert", _cell(t.passed), t.experts_tested)
        if t.winning_rate.reason:
            yield (section, group, "undefined_reason", t.winning_rate.reason, "")
        yield (section, group, "epsilon", t.epsilon, "")
        yield (section, group, "q", t.q, "")
        yield (section, group, "min_responses", t.min_responses, "")
        yield (section, group, "experts_left_out", t.experts_left_out, "")
        yield (section, group, "responses", t.responses, "")
    for e in block.overall.experts:
        yield ("alt_test_by_expert", e.expert, "judge_wins", e.judge_wins, e.responses)
        yield ("alt_test_by_expert", e.expert, "p_adjusted", e.p_adjusted, e.responses)
        yield ("alt_test_by_expert", e.expert, "judge_beats", e.judge_beats, e.responses)


def _cell(value: Any) -> Any:
    return "" if value is None else value
