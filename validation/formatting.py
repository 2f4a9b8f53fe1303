"""Plain-text and CSV renderings of an agreement report, shared by the command and the exports."""

from __future__ import annotations

BREAKDOWNS = (
    ("by_ability", "Ability"),
    ("by_dimension", "Dimension"),
    ("by_model", "Model"),
    ("by_difficulty", "Difficulty"),
    ("by_primary_scene", "Primary scene"),
)
ROW_FIELDS = ("pairs", "responses", "items", "item_agreement_rate", "item_agreement_ci95", "cohen_kappa", "gwet_ac1", "krippendorff_alpha", "alpha_units")


def fmt(value) -> str:
    """A figure for people: 3 decimals, an interval as [low, high], undefined as n/a."""
    if value is None:
        return "n/a"
    if isinstance(value, list):
        return "[" + ", ".join(fmt(v) for v in value) + "]"
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)


def resampled_text(result: dict) -> str:
    """What the report's intervals resampled, in words (reports from before items were the unit say responses)."""
    block = result.get("resampled")
    if not block:
        return f"{result['parameters']['resamples']:,} resamples of the responses (each response's criteria together)"
    unit = block["unit"]
    together = " (all of an item's responses together)" if unit == "item" else ""
    return f"{block['level']:.0%} CI from {block['resamples']:,} resamples of the {block['units']:,} {unit}s{together}"


def post_discussion_text(post: dict) -> str:
    """The warning a post-discussion report carries: revisions replaced blind verdicts, and how many."""
    return (
        f"POST-DISCUSSION VIEW: {post.get('note', 'post-discussion revisions included')} — "
        f"{post.get('assignments', 0)} revised assignments, {post.get('changed_verdicts', 0)} of "
        f"{post.get('judgments', 0)} revised verdicts differ from the blind ones; exploratory, never the release gate"
    )


def report_table(report) -> str:
    r = report.result
    n = r.get("n", {})
    lines = [
        f"Agreement report {report.pk} — campaign {r['campaign']} ({r['dataset']}@{r['version']}), judge {r.get('judge') or 'none'}",
        f"computed {report.created_at:%Y-%m-%d %H:%M:%S} UTC in {report.duration_ms} ms; "
        f"{r['parameters']['resamples']} bootstrap resamples, seed {r['parameters']['seed']}",
        f"intervals: {resampled_text(r)}",
        "",
        "Judge vs golden standard",
    ]
    if post := r.get("post_discussion"):
        lines.insert(-2, post_discussion_text(post))
    rows = [
        ("pairs / responses / items", f"{r['pairs']} / {r['responses']} / {r.get('items', 'n/a')}"),
        ("item agreement rate", f"{fmt(r['item_agreement_rate'])}  95% CI {fmt(r['item_agreement_ci95'])}"),
        ("Cohen's kappa", fmt(r["cohen_kappa"])),
        ("Gwet's AC1", fmt(r["gwet_ac1"])),
        ("confusion (judge × gold)", "tp {tp}  fp {fp}  fn {fn}  tn {tn}".format(**r["confusion"])),
        ("hit rate judge / human", f"{fmt(r['judge_hit_rate'])} / {fmt(r['human_hit_rate'])}"),
        ("McNemar exact p", fmt(r["mcnemar_p"])),
    ]
    lines += [f"  {k:<28} {v}" for k, v in rows]
    lines += ["", "Among experts"]
    b = r["judge_expert_baseline"]
    rows = [
        ("Krippendorff's alpha", f"{fmt(r['krippendorff_alpha'])}  (n={n.get('krippendorff_alpha', 0)} units)"),
        ("Fleiss' kappa", f"{fmt(r['fleiss_kappa'])}  (n={n.get('fleiss_kappa', 0)} units)"),
        ("pairwise agreement", f"{fmt(r['pairwise_percent_agreement'])}  (n={n.get('pairwise_percent_agreement', 0)} units)"),
        (
            "judge–expert vs expert–expert",
            f"{fmt(b['judge_expert']['value'])} vs {fmt(b['expert_expert']['value'])}, "
            f"difference {fmt(b['difference'])} 95% CI {fmt(b['difference_ci95'])}",
        ),
        ("golden labels", ", ".join(f"{k} {v}" for k, v in r["gold_provenance"].items())),
        ("units", ", ".join(f"{k} {v}" for k, v in r["units"].items())),
    ]
    lines += [f"  {k:<28} {v}" for k, v in rows]
    gate = r["gate"]
    clears = "CI lower bound" if gate.get("must_clear") == "lower_bound" else "agreement"
    title = "Release gate" if not r.get("exploratory") else "Release gate under these parameters (EXPLORATORY: it does not set the gate)"
    lines += ["", f"{title}: {'PASSED' if gate['passed'] else 'FAILED'} ({clears} ≥ {gate['threshold']}, "
              f"≥{gate['min_pairs_per_dimension']} pairs per dimension"
              + (f", ≥{gate['min_pairs_per_ability']} per ability" if gate.get("min_pairs_per_ability") is not None else "")
              + f"; 95% CI lower bound {fmt(gate.get('ci_low'))})"]
    if r.get("exploratory"):
        lines += ["  exploratory: computed with parameters other than the release policy; it does not set the gate"]
        lines += [f"  * {reason}" for reason in r.get("exploratory_reasons", [])]
    lines += [f"  - {reason}" for reason in gate["reasons"]]
    for key, title in BREAKDOWNS:
        lines += ["", f"{title:<24}" + "".join(f"{h:>14}" for h in ("pairs", "items", "agreement", "95% CI", "kappa", "AC1", "alpha"))]
        for row in r[key]:
            cells = (row["pairs"], row["item_agreement_rate"], row["item_agreement_ci95"], row["cohen_kappa"], row["gwet_ac1"], row["krippendorff_alpha"])
            ci = fmt(cells[2]) if cells[2] else "n/a"
            lines.append(
                f"{str(row['label'])[:24]:<24}{cells[0]:>14}{row.get('items', 'n/a'):>14}{fmt(cells[1]):>14}{ci:>14}"
                f"{fmt(cells[3]):>14}{fmt(cells[4]):>14}{fmt(cells[5]):>14}"
            )
    lines += ["", f"{'Expert':<24}{'judgments':>14}{'vs gold':>14}{'pairs':>14}{'vs experts':>14}"]
    for row in r["by_expert"]:
        lines.append(f"{row['expert'][:24]:<24}{row['judgments']:>14}{fmt(row['gold_agreement']):>14}{row['gold_pairs']:>14}{fmt(row['expert_agreement']):>14}")
    impact = r["score_impact"]
    lines += ["", f"Score impact on {impact['responses']} fully labelled responses: Kendall's tau {fmt(impact['kendall_tau'])}"]
    for row in impact["models"]:
        lines.append(f"  {row['model'][:30]:<30} judge {fmt(row['judge_score']):>8} (#{row['judge_rank']})  gold {fmt(row['gold_score']):>8} (#{row['gold_rank']})")
    if r["undefined"]:
        lines += ["", "Undefined"] + [f"  {k}: {v}" for k, v in r["undefined"].items()]
    if r.get("alerts"):
        lines += ["", "Alerts"] + [f"  [{a['kind']}] {a['message']}" for a in r["alerts"]]
    return "\n".join(lines)


def report_csv_rows(result: dict):
    """Long-format rows (section, group, statistic, value, n) of a report, for CSV export."""
    yield ("section", "group", "statistic", "value", "n")
    for key in ("item_agreement_rate", "cohen_kappa", "gwet_ac1", "judge_hit_rate", "human_hit_rate", "mcnemar_p",
                "krippendorff_alpha", "fleiss_kappa", "pairwise_percent_agreement"):
        yield ("overall", "", key, _cell(result[key]), result["n"].get(key, ""))
    ci = result["item_agreement_ci95"]
    # An interval's n is the number of units it resampled: items (responses in reports from before).
    ci_n = result["resampled"]["units"] if result.get("resampled") else result["responses"]
    yield ("overall", "", "item_agreement_ci95_low", _cell(ci[0] if ci else None), ci_n)
    yield ("overall", "", "item_agreement_ci95_high", _cell(ci[1] if ci else None), ci_n)
    for k, v in result["confusion"].items():
        yield ("overall", "", f"confusion_{k}", v, result["pairs"])
    for key, _ in (*BREAKDOWNS, ("by_criterion", "")):
        for row in result[key]:
            for field in ("item_agreement_rate", "cohen_kappa", "gwet_ac1", "krippendorff_alpha"):
                n = row["alpha_units"] if field == "krippendorff_alpha" else row["pairs"]
                yield (key, row["key"], field, _cell(row[field]), n)
            if row.get("item_agreement_ci95"):
                row_n = row.get("items", row["responses"])
                yield (key, row["key"], "item_agreement_ci95_low", _cell(row["item_agreement_ci95"][0]), row_n)
                yield (key, row["key"], "item_agreement_ci95_high", _cell(row["item_agreement_ci95"][1]), row_n)
    for row in result["by_expert"]:
        yield ("by_expert", row["expert"], "gold_agreement", _cell(row["gold_agreement"]), row["gold_pairs"])
        yield ("by_expert", row["expert"], "expert_agreement", _cell(row["expert_agreement"]), row["expert_pairs"])
    # An exploratory report's gate is what its own parameters would decide, never the release decision.
    gate = result.get("gate") or {}
    yield ("gate", "", "exploratory", bool(result.get("exploratory")), "")
    yield ("gate", "", "passed", gate.get("passed"), result["pairs"])
    yield ("gate", "", "ci_low", _cell(gate.get("ci_low")), ci_n)


def _cell(value):
    return "" if value is None else value
