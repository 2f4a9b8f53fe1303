"""Time the agreement report job on PostgreSQL at 1×, 10× and 100× HeartBench, against the same statistics in plain NumPy.

Run (on a copy of a workload installation, see benchmarks/workload.py; the copy gets the big campaigns):

    createdb -h 127.0.0.1 -U postgres -T <installation> <copy>
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/<copy> .venv/bin/python benchmarks/agreement.py [--scales 1,10,100] [--runs 3]

Scale s is one blind test of s × a HeartBench-sized one: `--source` (default blind-test-001, a
closed blind test of 40% of the items × 14 models, 1,652 responses, three experts each) copied s
times with new models answering the same items (`clone_campaign`, in SQL: 16,520 responses and
≈ 515,000 judgments at 10×, 165,200 and ≈ 5.1 million at 100×). The copy is made once and kept as
campaign `report-<s>x`. Then, for each scale, alternating so machine load affects all alike, each
in a fresh process:

- load: `load_campaign_arrays`, the campaign's arrays from the database, and the judge's stored
  scores on every item of the version (`scoring_population`, what the calibrated scores correct);
- report: `compute_report` on them, with 1,000 resamples of the items and the experts, the
  human-calibrated scores included;
- plain: the same statistics in plain NumPy on the same arrays (`benchmarks/plain_agreement.py`),
  the calibrated scores and their experts' part included (the alternative annotator test is not);
- job: the background job (`validation.tasks.compute_agreement_report`: load, golden labels,
  every statistic, the report and its gate stored), its time and the process's peak memory
  (maximum resident set size, Django and the libraries included). A first job, timed apart,
  brings the golden labels up to date, as the refresh after each submission does on a live
  campaign.

It prints medians, the ratios report / plain and job / (load + plain), and the machine's load.

`build(scale)` below is the older way to make such a campaign through the ORM, in a test
database; `benchmarks/backup.py` and `benchmarks/rubric_work_list.py` use it.
"""

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

MODELS_AT_SCALE_1 = 14
SAMPLE = 0.4
EXPERTS = 30
K = 3


def build(scale: int, seed: int = 0, *, rationale: str = "", judge_rationale: str = "", text_repeat: int = 1):
    """A HeartBench-sized blind test with judge verdicts and three submitted expert judgments per pair.

    The rationales and the response text's length matter to backups, not to the statistics.
    """
    import numpy as np
    from django.conf import settings

    from annotation.models import Assignment, Campaign, CampaignResponse, Judgment
    from heartbench_core.models import Criterion, Item, JudgeRun, JudgeVerdict, LanguageModel, ModelResponse
    from heartbench_core.roles import Role
    from heartbench_core.services.datasets import import_heartbench
    from tests.conftest import make_user

    rng = np.random.default_rng(seed)
    name = f"bench{scale}"
    version = import_heartbench(source=Path(settings.HEARTBENCH_DIR) / "question_all.jsonl", dataset_name=name).version
    items = list(Item.objects.filter(version=version).order_by("position").values_list("id", "question_id"))
    target = round(SAMPLE * len(items) * MODELS_AT_SCALE_1) * scale
    n_items = min(len(items), round(SAMPLE * len(items)) * scale)
    n_models = int(np.ceil(target / n_items))
    chosen = [items[i] for i in sorted(rng.choice(len(items), size=n_items, replace=False))]
    models = [LanguageModel.objects.get_or_create(name=f"bench-model-{scale}-{m:03d}")[0] for m in range(n_models)]
    responses = ModelResponse.objects.bulk_create(
        [
            ModelResponse(
                dataset=version.dataset,
                question_id=qid,
                model=m,
                text=f"synthetic answer {m.pk}/{qid} " * text_repeat,
                imported_for=version,
            )
            for m in models
            for _, qid in chosen
        ][:target],
        batch_size=5000,
    )
    item_of = {qid: iid for iid, qid in chosen}
    campaign = Campaign.objects.create(name=f"bench-{scale}", version=version, overlap=K, status=Campaign.Status.CLOSED)
    crs = CampaignResponse.objects.bulk_create(
        [CampaignResponse(campaign=campaign, response=r, item_id=item_of[r.question_id], order_key=i) for i, r in enumerate(responses)],
        batch_size=5000,
    )
    criteria: dict[int, list[tuple[int, int]]] = {}
    for cid, iid, weight in (
        Criterion.objects.filter(item__version=version).order_by("item_id", "position").values_list("id", "item_id", "weight")
    ):
        criteria.setdefault(iid, []).append((cid, weight or 0))
    experts = [make_user(f"bench_expert_{scale}_{e:02d}", Role.EXPERT) for e in range(EXPERTS)]
    campaign.experts.set(experts)
    expert_skill = rng.uniform(0.05, 0.2, EXPERTS)
    runs = {m.pk: JudgeRun.objects.create(version=version, model=m, judge="bench-judge") for m in models}
    verdicts, assignments, planned = [], [], []
    for cr, r in zip(crs, responses):
        crits = criteria[cr.item_id]
        truth = rng.random(len(crits)) < np.where(np.array([w for _, w in crits]) > 0, 0.6, 0.15)
        judge = truth ^ (rng.random(len(crits)) < 0.12)
        verdicts.extend(
            JudgeVerdict(run=runs[r.model_id], response=r, criterion_id=c, hit=bool(h), rationale=judge_rationale)
            for (c, _), h in zip(crits, judge)
        )
        for e in rng.choice(EXPERTS, size=K, replace=False):
            assignments.append(Assignment(campaign_response=cr, expert=experts[e], status=Assignment.Status.RESERVED))
            planned.append((crits, truth ^ (rng.random(len(crits)) < expert_skill[e])))
    JudgeVerdict.objects.bulk_create(verdicts, batch_size=10000)
    Assignment.objects.bulk_create(assignments, batch_size=5000)
    Judgment.objects.bulk_create(
        [
            Judgment(assignment=a, criterion_id=c, hit=bool(h), rationale=rationale)
            for a, (crits, hits) in zip(assignments, planned)
            for (c, _), h in zip(crits, hits)
        ],
        batch_size=10000,
    )
    Assignment.objects.filter(campaign_response__campaign=campaign).update(
        status=Assignment.Status.SUBMITTED, submitted_at=campaign.created_at
    )
    from django.db import connection

    if connection.vendor == "postgresql":
        # A live database has planner statistics (autovacuum keeps them); freshly bulk-loaded
        # tables have none until autovacuum passes, and the planner then picks nested loops.
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
    return campaign, len(responses), len(verdicts), sum(len(c) for c, _ in planned)


STRIDE = 100_000_000  # the ids of copy r are the source's + r × STRIDE


def _columns(cursor, table):
    cursor.execute("SELECT column_name FROM information_schema.columns WHERE table_name = %s ORDER BY ordinal_position", [table])
    return [r[0] for r in cursor.fetchall()]


def _copy_rows(cursor, table, source, overrides):
    """INSERT INTO table SELECT every column of `source` rows (aliased t, with the copy number r), some replaced by SQL expressions."""
    columns = _columns(cursor, table)
    select = ", ".join(overrides.get(c, f"t.{c}") for c in columns)
    cursor.execute(f"INSERT INTO {table} ({', '.join(columns)}) SELECT {select} FROM {source}")
    return cursor.rowcount


def clone_campaign(source_name, copies, name, seed=19):
    """A campaign of `copies` × the source campaign's responses: new models answering the same items, in SQL.

    Each copy r has its own models (the source's, renamed), their responses and judge runs, and
    the source's assignments and judgments on them, the experts rotated by r; about 8% of the
    judge's verdicts and 5% of the experts' judgments are flipped per copy, so copies differ.
    Triggers and foreign-key checks are skipped while copying (a benchmark's copy of rows that
    satisfied them); the tallies are recounted after. Returns the new campaign's id.
    """
    from django.db import connection, transaction

    with transaction.atomic(), connection.cursor() as c:
        c.execute("SELECT id FROM annotation_campaign WHERE name = %s", [source_name])
        src = c.fetchone()[0]
        c.execute("SET LOCAL session_replication_role = replica")
        c.execute("SELECT setseed(%s)", [seed / 1000])
        c.execute("SELECT max(id) + 1 FROM annotation_campaign")
        new = c.fetchone()[0]
        c.execute("CREATE TEMP TABLE copies ON COMMIT DROP AS SELECT generate_series(1, %s) AS r", [copies])
        c.execute(
            "CREATE TEMP TABLE src_responses ON COMMIT DROP AS SELECT response_id AS id FROM annotation_campaignresponse WHERE campaign_id = %s",
            [src],
        )
        c.execute(
            "CREATE TEMP TABLE src_models ON COMMIT DROP AS SELECT DISTINCT model_id AS id FROM heartbench_core_modelresponse"
            " WHERE id IN (SELECT id FROM src_responses)"
        )
        c.execute(
            "CREATE TEMP TABLE src_experts ON COMMIT DROP AS SELECT expert_id AS id, row_number() OVER (ORDER BY expert_id) - 1 AS i"
            " FROM (SELECT DISTINCT a.expert_id FROM annotation_assignment a JOIN annotation_campaignresponse cr"
            " ON cr.id = a.campaign_response_id WHERE cr.campaign_id = %s) e",
            [src],
        )
        c.execute("SELECT count(*) FROM src_experts")
        n_experts = c.fetchone()[0]
        # Copies take the id blocks after every row already there (earlier copies included).
        c.execute(
            "SELECT max(m) FROM (SELECT max(id) AS m FROM annotation_judgment UNION ALL SELECT max(id) FROM annotation_assignment"
            " UNION ALL SELECT max(id) FROM heartbench_core_judgeverdict UNION ALL SELECT max(id) FROM heartbench_core_languagemodel) t"
        )
        first = c.fetchone()[0] // STRIDE
        shift = f"(r.r + {first})::bigint * {STRIDE}"
        _copy_rows(
            c,
            "annotation_campaign",
            f"annotation_campaign t WHERE t.id = {src}",
            {"id": str(new), "name": f"'{name}'", "status": "'closed'"},
        )
        _copy_rows(
            c,
            "annotation_campaign_experts",
            f"annotation_campaign_experts t WHERE t.campaign_id = {src}",
            {"id": "nextval(pg_get_serial_sequence('annotation_campaign_experts', 'id'))", "campaign_id": str(new)},
        )
        _copy_rows(
            c,
            "heartbench_core_languagemodel",
            "heartbench_core_languagemodel t JOIN src_models s ON s.id = t.id CROSS JOIN copies r",
            {"id": f"t.id + {shift}", "name": f"t.name || '-{name}-' || r.r"},
        )
        _copy_rows(
            c,
            "heartbench_core_modelresponse",
            "heartbench_core_modelresponse t JOIN src_responses s ON s.id = t.id CROSS JOIN copies r",
            {"id": f"t.id + {shift}", "model_id": f"t.model_id + {shift}", "public_id": f"md5(t.public_id || '-{name}-' || r.r)"},
        )
        _copy_rows(
            c,
            "heartbench_core_judgerun",
            "heartbench_core_judgerun t JOIN src_models s ON s.id = t.model_id CROSS JOIN copies r",
            {"id": f"t.id + {shift}", "model_id": f"t.model_id + {shift}"},
        )
        _copy_rows(
            c,
            "heartbench_core_judgeverdict",
            "heartbench_core_judgeverdict t JOIN src_responses s ON s.id = t.response_id CROSS JOIN copies r",
            {
                "id": f"t.id + {shift}",
                "response_id": f"t.response_id + {shift}",
                "run_id": f"t.run_id + {shift}",
                "hit": "CASE WHEN random() < 0.08 THEN NOT t.hit ELSE t.hit END",
            },
        )
        _copy_rows(
            c,
            "annotation_campaignresponse",
            f"annotation_campaignresponse t CROSS JOIN copies r WHERE t.campaign_id = {src}",
            {
                "id": f"t.id + {shift}",
                "campaign_id": str(new),
                "response_id": f"t.response_id + {shift}",
                "order_key": "t.order_key + r.r * 10000",
            },
        )
        _copy_rows(
            c,
            "annotation_assignment",
            "annotation_assignment t JOIN annotation_campaignresponse cr ON cr.id = t.campaign_response_id"
            f" JOIN src_experts e ON e.id = t.expert_id CROSS JOIN copies r JOIN src_experts x ON x.i = (e.i + r.r) % {n_experts}"
            f" WHERE cr.campaign_id = {src}",
            {
                "id": f"t.id + {shift}",
                "campaign_response_id": f"t.campaign_response_id + {shift}",
                "campaign_id": str(new),
                "public_id": f"md5(t.public_id || '-{name}-' || r.r)",
                "expert_id": "x.id",
            },
        )
        _copy_rows(
            c,
            "annotation_judgment",
            "annotation_judgment t JOIN annotation_assignment a ON a.id = t.assignment_id"
            f" JOIN annotation_campaignresponse cr ON cr.id = a.campaign_response_id CROSS JOIN copies r WHERE cr.campaign_id = {src}",
            {
                "id": f"t.id + {shift}",
                "assignment_id": f"t.assignment_id + {shift}",
                "hit": "CASE WHEN t.hit IS NOT NULL AND random() < 0.05 THEN NOT t.hit ELSE t.hit END",
            },
        )
        for table in (
            "annotation_campaign",
            "annotation_campaign_experts",
            "heartbench_core_languagemodel",
            "heartbench_core_modelresponse",
            "heartbench_core_judgerun",
            "heartbench_core_judgeverdict",
            "annotation_campaignresponse",
            "annotation_assignment",
            "annotation_judgment",
        ):
            c.execute(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), (SELECT max(id) FROM {table}))")
    from annotation.services.tallies import recount

    recount(campaign_ids=[new])  # the triggers were skipped: count the copy's tallies as they would have
    with connection.cursor() as c:
        c.execute("ANALYZE")
    return new


def measure(what, campaign, resamples):
    """One measurement in this (fresh) process: seconds, and the process's peak resident memory in MB."""
    import django

    django.setup()
    from annotation.models import Campaign
    from benchmarks.plain_agreement import plain_statistics
    from heartbench_core.lib.agreement_report import alt_test_block, compute_report
    from validation.scoring_population import scoring_population
    from validation.selectors import load_campaign_arrays, select_judge_runs
    from validation.tasks import compute_agreement_report

    c = Campaign.objects.select_related("version__dataset").get(name=campaign)
    out = {}
    if what == "job":
        start, cpu = time.perf_counter(), time.process_time()
        compute_agreement_report(c.pk, resamples=resamples)
        out["job"], out["job_cpu"] = time.perf_counter() - start, time.process_time() - cpu
    else:
        start = time.perf_counter()
        runs = select_judge_runs(c)
        data = load_campaign_arrays(c, judge_runs=runs)
        population = scoring_population(c, runs)  # the judge's scores on every item, for the calibrated scores
        out["load"] = time.perf_counter() - start
        start, cpu = time.perf_counter(), time.process_time()
        compute_report(data, resamples=resamples, population=population)
        out["report"], out["report_cpu"] = time.perf_counter() - start, time.process_time() - cpu
        # The alternative annotator test, which the plain floor does not compute, timed apart.
        cpu = time.process_time()
        alt_test_block(data)
        out["alt_test_cpu"] = time.process_time() - cpu
        start, cpu = time.perf_counter(), time.process_time()
        plain_statistics(data, resamples=resamples, population=population)
        out["plain"], out["plain_cpu"] = time.perf_counter() - start, time.process_time() - cpu
        out["units"], out["judgments"], out["responses"] = data.n_units, int(data.j_unit.size), int(data.cr_id.size)
    out["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(out))


def ensure_campaign(source, scale):
    """The campaign of `scale` × the source (made once), by name."""
    import django

    django.setup()
    from annotation.models import Campaign

    name = source if scale == 1 else f"report-{scale}x"
    if not Campaign.objects.filter(name=name).exists():
        start = time.perf_counter()
        clone_campaign(source, scale, name)
        print(f"  made campaign {name} from {scale} copies of {source} in {time.perf_counter() - start:.0f}s")
    return name


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--scales", default="1,10,100")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--source", default="blind-test-001")
    parser.add_argument("--measure", choices=["arrays", "job"], help=argparse.SUPPRESS)
    parser.add_argument("--campaign", help=argparse.SUPPRESS)
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "heartbench_core.settings")
    if not os.environ.get("DATABASE_URL", "").startswith("postgres"):
        sys.exit("DATABASE_URL must name a PostgreSQL copy of a workload installation")
    if args.measure:
        return measure(args.measure, args.campaign, args.resamples)
    for scale in (int(s) for s in args.scales.split(",")):
        campaign = ensure_campaign(args.source, scale)
        runs: dict[str, list[float]] = {}
        facts = {}
        # The first job on a campaign creates its golden labels (on a live campaign the refresh after
        # each completed response keeps them current): timed apart, not in the medians.
        command = [sys.executable, __file__, "--measure", "job", "--campaign", campaign, "--resamples", str(args.resamples)]
        first = json.loads(subprocess.run(command, capture_output=True, text=True, check=True, cwd=ROOT).stdout.strip().splitlines()[-1])
        print(f"  first job on {campaign} (golden labels as they stand written first): {first['job']:.2f}s, peak {first['peak_mb']:.0f} MB")
        for _ in range(args.runs):
            for what in ("arrays", "job"):
                command = [sys.executable, __file__, "--measure", what, "--campaign", campaign, "--resamples", str(args.resamples)]
                done = subprocess.run(command, capture_output=True, text=True, check=True, cwd=ROOT)
                result = json.loads(done.stdout.strip().splitlines()[-1])
                for key in ("load", "report", "plain", "job", "report_cpu", "plain_cpu", "alt_test_cpu", "job_cpu"):
                    if key in result:
                        runs.setdefault(key, []).append(result[key])
                runs.setdefault(f"peak_{what}", []).append(result["peak_mb"])
                facts.update({k: result[k] for k in ("units", "judgments", "responses") if k in result})
        m = {key: statistics.median(values) for key, values in runs.items()}
        print(
            f"{scale}× ({campaign}: {facts['responses']:,} responses, {facts['units']:,} units, {facts['judgments']:,} judgments), "
            f"medians of {args.runs}, load average {os.getloadavg()[0]:.1f}:"
        )
        print(
            f"  load arrays {m['load']:.2f}s   report {m['report']:.2f}s   plain NumPy {m['plain']:.2f}s   report / plain {m['report'] / m['plain']:.2f}"
        )
        same_work = (m["report_cpu"] - m["alt_test_cpu"]) / m["plain_cpu"]
        print(
            f"  CPU seconds: report {m['report_cpu']:.2f} (of which the alternative annotator test {m['alt_test_cpu']:.2f}), "
            f"plain NumPy {m['plain_cpu']:.2f}, report / plain {m['report_cpu'] / m['plain_cpu']:.2f}, "
            f"without the test (the same work) {same_work:.2f}; job {m['job_cpu']:.2f}"
        )
        print(
            f"  job (load, golden labels, report, store) {m['job']:.2f}s   job / (load + plain) {m['job'] / (m['load'] + m['plain']):.2f}   "
            f"peak memory of the job {max(runs['peak_job']):.0f} MB (of load + report + plain {max(runs['peak_arrays']):.0f} MB)"
        )


if __name__ == "__main__":
    main()
