"""Back up one campaign to a single archive and restore it into an empty installation.

The archive is a zip of JSON Lines, one file per model, plus `manifest.json` with each
file's SHA-256 and row count. It holds the campaign's whole dataset (versions, items,
criteria, lineages, models, responses, judge runs and verdicts), the campaign with its
settings, sampled responses, gold labels, assignments, judgments, reports, corrections and
discussion, the validation app's adjudications, golden labels, agreement reports, release gates
and the dataset's release policy with its history, and
the users those rows name (username, e-mail, names, groups; never a password: restored
users get an unusable password and sign in after a reset).

Rows keep their primary keys, so a restored installation computes identical results; users
are matched by username. Restoring refuses to overwrite anything: a dataset, campaign or row
id already present is an error and nothing is written. This module spans the apps, so it
imports them inside its functions; the core never imports them at load time.
"""

import datetime
import hashlib
import io
import json
import zipfile
from dataclasses import dataclass
from pathlib import Path

from django.apps import apps
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core import serializers
from django.core.exceptions import ValidationError
from django.core.serializers.json import DjangoJSONEncoder
from django.db import transaction
from django.db.models import Q

FORMAT = "heartbench-campaign/1"
USERS_FILE = "users.jsonl"


@dataclass(frozen=True)
class BackupOutcome:
    campaign: str
    rows: dict[str, int]
    users: int


def _campaign_querysets(campaign) -> list[tuple[str, object]]:
    """(model label, queryset) of everything the campaign's results depend on, parents first."""
    campaigns = [campaign.pk]
    settings_model = apps.get_model("annotation", "CampaignSettings")
    gold_source = settings_model.objects.filter(campaign=campaign).values_list("gold_source_id", flat=True).first()
    if gold_source:
        campaigns.insert(0, gold_source)
    dataset = campaign.version.dataset
    experts = Q(assignments__campaign_response__campaign__in=campaigns) | Q(eligible_campaigns__in=campaigns)
    user_ids = list(get_user_model().objects.filter(experts).values_list("pk", flat=True).distinct())

    def m(label):
        return apps.get_model(label)

    specs = [
        ("heartbench_core.Dataset", Q(pk=dataset.pk)),
        ("heartbench_core.DatasetVersion", Q(dataset=dataset)),
        ("heartbench_core.Item", Q(version__dataset=dataset)),
        ("heartbench_core.CriterionLineage", Q(dataset=dataset)),
        ("heartbench_core.Criterion", Q(item__version__dataset=dataset)),
        ("heartbench_core.LanguageModel", Q(responses__dataset=dataset) | Q(campaigns__in=campaigns)),
        ("heartbench_core.ModelResponse", Q(dataset=dataset)),
        ("heartbench_core.JudgeRun", Q(version__dataset=dataset)),
        ("heartbench_core.JudgeVerdict", Q(run__version__dataset=dataset)),
        ("annotation.ExpertProfile", Q(user__in=user_ids)),
        ("annotation.ExpertQuality", Q(profile__user__in=user_ids)),
        ("annotation.Campaign", Q(pk__in=campaigns)),
        ("annotation.CampaignSettings", Q(campaign__in=campaigns)),
        ("annotation.CampaignResponse", Q(campaign__in=campaigns)),
        ("annotation.GoldLabel", Q(campaign_response__campaign__in=campaigns)),
        ("annotation.Assignment", Q(campaign_response__campaign__in=campaigns)),
        ("annotation.Judgment", Q(assignment__campaign_response__campaign__in=campaigns)),
        ("annotation.UnclearCriterionReport", Q(assignment__campaign_response__campaign__in=campaigns)),
        ("annotation.ItemProblemReport", Q(assignment__campaign_response__campaign__in=campaigns)),
        ("annotation.CorrectionRequest", Q(assignment__campaign_response__campaign__in=campaigns)),
        ("annotation.DiscussionComment", Q(campaign_response__campaign__in=campaigns)),
        ("annotation.DiscussionVote", Q(campaign_response__campaign__in=campaigns)),
        ("annotation.CalibrationResult", Q(campaign__in=campaigns)),
        ("validation.Adjudication", Q(campaign_response__campaign__in=campaigns)),
        ("validation.GoldenLabel", Q(campaign__in=campaigns)),
        ("validation.AgreementReport", Q(campaign__in=campaigns)),
        ("validation.ReleaseGate", Q(campaign__in=campaigns)),
        # The dataset's release policy decides which later reports set the gate: it travels with the dataset.
        ("validation.ReleasePolicy", Q(dataset=dataset)),
        ("validation.ReleasePolicyChange", Q(policy__dataset=dataset)),
    ]
    out = []
    for label, q in specs:
        try:
            model = m(label)
        except LookupError:
            continue  # a model that this installation does not have yet
        out.append((label, model.objects.filter(q).distinct().order_by("pk")))
    return out


def _referenced_usernames(model, rows: list[dict]) -> set[str]:
    User = get_user_model()
    names = set()
    fields = [f for f in model._meta.get_fields() if f.is_relation and f.concrete and f.related_model is User]
    for row in rows:
        for f in fields:
            value = row["fields"].get(f.name)
            if value is None:
                continue
            if f.many_to_many:
                names.update(v[0] for v in value)
            else:
                names.add(value[0])
    return names


class _ExactEncoder(DjangoJSONEncoder):
    """DjangoJSONEncoder keeps only milliseconds of a time; a backup keeps every microsecond."""

    def default(self, o):
        if isinstance(o, (datetime.datetime, datetime.time)):
            return o.isoformat()
        return super().default(o)


def _jsonl(records: list[dict]) -> bytes:
    return "".join(json.dumps(r, cls=_ExactEncoder, ensure_ascii=False, sort_keys=True) + "\n" for r in records).encode()


def export_campaign(*, campaign_name: str, path: str | Path) -> BackupOutcome:
    """Write the campaign and everything its results depend on to one zip archive."""
    Campaign = apps.get_model("annotation", "Campaign")
    campaign = Campaign.objects.select_related("version__dataset").filter(name=campaign_name).first()
    if campaign is None:
        known = ", ".join(Campaign.objects.order_by("name").values_list("name", flat=True)[:20]) or "none"
        raise ValidationError({"campaign": f"no campaign named {campaign_name!r} (known: {known})"})
    files: dict[str, bytes] = {}
    counts: dict[str, int] = {}
    usernames: set[str] = set()
    with transaction.atomic():  # one consistent snapshot (REPEATABLE READ on PostgreSQL within the block)
        for label, qs in _campaign_querysets(campaign):
            rows = serializers.serialize("python", qs, use_natural_foreign_keys=True)
            usernames |= _referenced_usernames(qs.model, rows)
            files[f"{label}.jsonl"] = _jsonl(rows)
            counts[label] = len(rows)
        users = [
            {
                "username": u.username,
                "email": u.email,
                "first_name": u.first_name,
                "last_name": u.last_name,
                "is_active": u.is_active,
                "groups": sorted(g.name for g in u.groups.all()),
            }
            for u in get_user_model().objects.filter(username__in=usernames).prefetch_related("groups").order_by("username")
        ]
    files[USERS_FILE] = _jsonl(users)
    manifest = {
        "format": FORMAT,
        "campaign": campaign.name,
        "dataset": campaign.version.dataset.name,
        "order": [label for label in counts],
        "files": {name: {"sha256": hashlib.sha256(data).hexdigest(), "rows": data.count(b"\n")} for name, data in files.items()},
    }
    path = Path(path)
    tmp = path.with_name(path.name + ".partial")
    with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("manifest.json", json.dumps(manifest, indent=2, ensure_ascii=False))
        for name, data in files.items():
            archive.writestr(name, data)
    tmp.replace(path)  # never a half-written archive under the final name
    return BackupOutcome(campaign.name, counts, len(users))


def _read_archive(source) -> tuple[dict, dict[str, bytes]]:
    name = str(getattr(source, "name", source))
    try:
        archive = zipfile.ZipFile(source if not isinstance(source, (bytes, bytearray)) else io.BytesIO(source))
    except (zipfile.BadZipFile, OSError) as exc:
        raise ValidationError({"archive": f"{name}: not a campaign archive ({exc})"}) from None
    with archive:
        try:
            manifest = json.loads(archive.read("manifest.json"))
        except (KeyError, ValueError) as exc:
            raise ValidationError({"archive": f"{name}: missing or unreadable manifest.json ({exc})"}) from None
        if manifest.get("format") != FORMAT:
            raise ValidationError({"archive": f"{name}: format {manifest.get('format')!r}, expected {FORMAT!r}"})
        files = {}
        for file_name, meta in manifest.get("files", {}).items():
            try:
                data = archive.read(file_name)
            except KeyError:
                raise ValidationError({"archive": f"{name}: {file_name} is listed in the manifest but missing"}) from None
            if hashlib.sha256(data).hexdigest() != meta.get("sha256"):
                raise ValidationError({"archive": f"{name}: {file_name} does not match its SHA-256 in the manifest"})
            files[file_name] = data
    return manifest, files


def _lines(data: bytes, file_name: str) -> list[dict]:
    out = []
    for number, line in enumerate(data.decode("utf-8").splitlines(), start=1):
        if line.strip():
            try:
                out.append(json.loads(line))
            except ValueError as exc:
                raise ValidationError({"archive": f"{file_name}, line {number}: malformed JSON ({exc})"}) from None
    return out


def import_campaign(*, source) -> BackupOutcome:
    """Restore an archive written by export_campaign; atomic, and refuses to overwrite anything."""
    manifest, files = _read_archive(source)
    User = get_user_model()
    counts: dict[str, int] = {}
    with transaction.atomic():
        users = _lines(files.get(USERS_FILE, b""), USERS_FILE)
        for record in users:
            user, created = User.objects.get_or_create(
                username=record["username"],
                defaults={k: record.get(k, "") for k in ("email", "first_name", "last_name")} | {"is_active": record.get("is_active", True)},
            )
            if created:
                user.set_unusable_password()
                user.save(update_fields=["password"])
                user.groups.set([Group.objects.get_or_create(name=g)[0] for g in record.get("groups", [])])
        for label in manifest.get("order", []):
            file_name = f"{label}.jsonl"
            rows = _lines(files.get(file_name, b""), file_name)
            try:
                model = apps.get_model(label)
            except LookupError:
                raise ValidationError({"archive": f"{file_name}: this installation has no model {label}"}) from None
            clash = model.objects.filter(pk__in=[r["pk"] for r in rows])
            if clash.exists():
                raise ValidationError(
                    {"archive": f"{label}: {clash.count()} of the archive's rows already exist here (e.g. id {clash.first().pk}); "
                     "restore into an empty installation"}
                )
            try:
                for obj in serializers.deserialize("python", rows, handle_forward_references=True):
                    obj.save()
            except Exception as exc:  # a deserialisation error names the model and row
                raise ValidationError({"archive": f"{file_name}: cannot restore: {exc}"}) from None
            counts[label] = len(rows)
        _reset_sequences(counts)
    return BackupOutcome(manifest.get("campaign", ""), counts, len(users))


def _reset_sequences(counts: dict[str, int]) -> None:
    """After inserting explicit ids, move PostgreSQL's sequences past them (no-op on SQLite)."""
    from django.core.management.color import no_style
    from django.db import connection

    models = [apps.get_model(label) for label in counts]
    for sql in connection.ops.sequence_reset_sql(no_style(), models):
        with connection.cursor() as cursor:
            cursor.execute(sql)
