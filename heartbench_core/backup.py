"""Back up one campaign to a single archive and restore it into an empty installation.

The archive is a zip of JSON Lines, one member per table (one row per line, columns by name,
users by username), plus `manifest.json` with each member's SHA-256, row count and columns.
It holds the campaign's whole dataset (versions, items, criteria, lineages, models, responses,
staff exposures, judge runs and verdicts), the rubric's history on it (revisions, reviews,
comments, flags, audit log), the campaign with the gold set its gold checks came from and the
dataset's calibration sets (settings, sampled responses, gold labels, assignments, judgments,
reports, corrections, discussion, calibration results), the experts' profiles and
qualifications, the validation app's adjudications, golden labels, agreement reports, release
gates and the dataset's release policy with its history, and the users those rows name
(username, e-mail, names, groups; never a password: restored users get an unusable password
and a reset link).

Rows keep their primary keys, so a restored installation computes identical results. Both
directions stream: export reads in chunks and writes members as it goes; import parses each
line through the platform's JSONL reader (its nesting and NUL limits), checks every value
against its column, and inserts in batches (COPY on PostgreSQL). Restoring is atomic and
refuses to overwrite anything. This module spans the apps, so it reaches their models by
label; the core never imports them at load time.
"""

from __future__ import annotations

import datetime
import decimal
import hashlib
import io
import json
import time
import uuid
import zipfile
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, NoReturn, Protocol

from django.apps import apps
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.contrib.auth.tokens import default_token_generator
from django.core.exceptions import ValidationError
from django.db import IntegrityError, connection, models, transaction
from django.db.models import Q, QuerySet
from django.db.models.fields.related import RelatedField
from django.urls import reverse
from django.utils.dateparse import parse_datetime, parse_duration
from django.utils.duration import duration_string
from django.utils.encoding import force_bytes
from django.utils.formats import number_format
from django.utils.http import urlsafe_base64_encode
from django.utils.translation import gettext as _

from heartbench_core.jsonl import ErrorCollector
from heartbench_core.lib.jsonl import MAX_NESTING_DEPTH, read_jsonl, unstorable_part

if TYPE_CHECKING:
    from heartbench_core.models import DatasetVersion, User

FORMAT = "heartbench-campaign/2"
USERS_FILE = "users.jsonl"
BATCH = 5000

# (what, rows done, rows in all): called often; `ProgressPrinter` decides what reaches the screen.
Progress = Callable[[str, int, int], None]
Row = tuple[Any, ...]


class CampaignRow(Protocol):
    """What a backup reads of a campaign (annotation's Campaign, which the core cannot import)."""

    @property
    def pk(self) -> int: ...
    @property
    def name(self) -> str: ...
    @property
    def version(self) -> DatasetVersion: ...


@dataclass(frozen=True)
class RestoredUser:
    username: str
    email: str
    created: bool
    reset_url: str  # "" for a user who was already here and keeps their password


@dataclass(frozen=True)
class BackupOutcome:
    campaign: str
    rows: dict[str, int]
    users: int
    restored_users: tuple[RestoredUser, ...] = field(default=())


class ProgressPrinter:
    """Turns progress calls into lines such as 'judgments 12,000/49,560…', at most one per `interval` seconds."""

    def __init__(self, write: Callable[[str], None], *, interval: float = 0.25, clock: Callable[[], float] = time.monotonic) -> None:
        self.write, self.interval, self.clock = write, interval, clock
        self.last = float("-inf")

    def __call__(self, what: str, done: int, total: int) -> None:
        now = self.clock()
        if now - self.last >= self.interval:
            self.last = now
            self.write(f"{what} {number_format(done, force_grouping=True)}/{number_format(total, force_grouping=True)}…")


def _user_model() -> type[User]:
    return get_user_model()


@dataclass
class _Table:
    """One archive member: a model's rows, or the members of one many-to-many field."""

    label: str
    model: type[models.Model]
    queryset: QuerySet[Any] | None = None  # what to export; None for a member being restored
    keep_pk: bool = True

    @property
    def file_name(self) -> str:
        return f"{self.label}.jsonl"

    @property
    def what(self) -> str:
        """What the rows are, in words, for progress lines: 'judgments', 'campaign experts'."""
        if self.keep_pk:
            return _plural(self.model)
        owner, field_name = self.label.rsplit(".", 1)
        m2m = apps.get_model(owner)._meta.get_field(field_name)
        return f"{apps.get_model(owner)._meta.verbose_name} {m2m.verbose_name}"

    def columns(self) -> list[models.Field[Any, Any]]:
        return [f for f in self.model._meta.concrete_fields if self.keep_pk or not f.primary_key]


def _plural(model: type[models.Model]) -> str:
    name, plural = str(model._meta.verbose_name), str(model._meta.verbose_name_plural)
    if plural != name + "s":
        return plural  # declared by the model
    if name.endswith("y"):
        return name[:-1] + "ies"  # quality → qualities
    if name.endswith("s"):
        return name  # settings
    return plural


def _campaigns_of(campaign: CampaignRow) -> list[int]:
    """The campaign, the gold set its gold checks came from and the dataset's calibration sets, parents first."""
    Campaign = apps.get_model("annotation", "Campaign")
    settings_model = apps.get_model("annotation", "CampaignSettings")
    ids = list(
        Campaign.objects.filter(version__dataset_id=campaign.version.dataset_id, kind=Campaign.Kind.CALIBRATION)
        .exclude(pk=campaign.pk)
        .order_by("pk")
        .values_list("pk", flat=True)
    )
    gold_source = settings_model.objects.filter(campaign=campaign).values_list("gold_source_id", flat=True).first()
    if gold_source and gold_source not in ids:
        ids.append(gold_source)
    return [*ids, campaign.pk]


def _specs(campaign: CampaignRow) -> list[tuple[str, Q]]:
    campaigns = _campaigns_of(campaign)
    dataset = campaign.version.dataset
    experts = Q(assignments__campaign_response__campaign__in=campaigns) | Q(eligible_campaigns__in=campaigns)
    user_ids = list(_user_model().objects.filter(experts).values_list("pk", flat=True).distinct())
    lineages = apps.get_model("heartbench_core", "CriterionLineage").objects.filter(dataset=dataset).values("key")
    in_campaigns = Q(campaign_response__campaign__in=campaigns)
    of_assignments = Q(assignment__campaign_response__campaign__in=campaigns)
    return [
        ("heartbench_core.Dataset", Q(pk=dataset.pk)),
        ("heartbench_core.DatasetVersion", Q(dataset=dataset)),
        ("heartbench_core.Item", Q(version__dataset=dataset)),
        ("heartbench_core.CriterionLineage", Q(dataset=dataset)),
        ("heartbench_core.Criterion", Q(item__version__dataset=dataset)),
        ("heartbench_core.LanguageModel", Q(responses__dataset=dataset) | Q(campaigns__in=campaigns)),
        ("heartbench_core.ModelResponse", Q(dataset=dataset)),
        # Who saw which response unblinded: without it a restored installation would serve them blind again.
        ("heartbench_core.StaffExposure", Q(response__dataset=dataset)),
        ("heartbench_core.JudgeRun", Q(version__dataset=dataset)),
        ("heartbench_core.JudgeVerdict", Q(run__version__dataset=dataset)),
        # The rubric's history: which wording every judgment was made against, and why it changed.
        ("rubrics.CriterionRevision", Q(dataset=dataset)),
        ("rubrics.ReviewDecision", Q(revision__dataset=dataset)),
        ("rubrics.RevisionComment", Q(revision__dataset=dataset)),
        ("rubrics.CriterionFlag", Q(lineage__dataset=dataset)),
        ("rubrics.AuditEntry", Q(dataset=dataset) | Q(criterion_key__in=lineages)),
        ("annotation.ExpertProfile", Q(user__in=user_ids)),
        ("annotation.ExpertQuality", Q(profile__user__in=user_ids)),
        ("annotation.TierChange", Q(profile__user__in=user_ids)),
        ("annotation.Campaign", Q(pk__in=campaigns)),
        ("annotation.CampaignSettings", Q(campaign__in=campaigns)),
        ("annotation.CampaignGuidelines", Q(campaign__in=campaigns)),
        ("annotation.CampaignResponse", Q(campaign__in=campaigns)),
        ("annotation.GoldLabel", in_campaigns),
        ("annotation.Assignment", in_campaigns),
        ("annotation.Judgment", of_assignments),
        ("annotation.UnclearCriterionReport", of_assignments),
        ("annotation.ItemProblemReport", of_assignments),
        ("annotation.CorrectionRequest", of_assignments),
        ("annotation.DiscussionComment", in_campaigns),
        ("annotation.DiscussionVote", in_campaigns),
        ("annotation.CalibrationResult", Q(campaign__in=campaigns)),
        ("annotation.Qualification", Q(expert__in=user_ids)),
        ("annotation.AdminAlert", Q(campaign__in=campaigns)),
        ("annotation.PayDecision", Q(campaign__in=campaigns)),
        ("validation.Adjudication", in_campaigns),
        ("validation.GoldenLabel", Q(campaign__in=campaigns)),
        ("validation.AgreementReport", Q(campaign__in=campaigns)),
        ("validation.ReleaseGate", Q(campaign__in=campaigns)),
        # The dataset's release policy decides which later reports set the gate: it travels with the dataset.
        ("validation.ReleasePolicy", Q(dataset=dataset)),
        ("validation.ReleasePolicyChange", Q(policy__dataset=dataset)),
    ]


def _campaign_querysets(campaign: CampaignRow) -> list[tuple[str, QuerySet[Any]]]:
    """(model label, queryset) of everything the campaign's results depend on, parents first."""
    out = []
    for label, q in _specs(campaign):
        rows = apps.get_model(label)._default_manager  # each of these models has only the one manager
        # A filter across a to-many relation may repeat rows: select by primary key instead of DISTINCT.
        ids = rows.filter(q).values("pk")
        out.append((label, rows.filter(pk__in=ids).order_by("pk")))
    return out


def _tables(campaign: CampaignRow) -> list[_Table]:
    tables = []
    for label, qs in _campaign_querysets(campaign):
        tables.append(_Table(label, qs.model, qs))
        for m2m in qs.model._meta.many_to_many:
            through = m2m.remote_field.through
            if through._meta.auto_created:
                source = m2m.m2m_field_name()
                tables.append(
                    _Table(
                        f"{label}.{m2m.name}",
                        through,
                        through._default_manager.filter(**{f"{source}__in": qs.values("pk")}).order_by("pk"),
                        keep_pk=False,
                    )
                )
    return tables


def _table_for_label(label: str) -> _Table | None:
    parts = label.split(".")
    try:
        model = apps.get_model(".".join(parts[:2]))
    except (LookupError, ValueError):
        return None
    if len(parts) == 2:
        return _Table(label, model)
    if len(parts) == 3:
        m2m = next((f for f in model._meta.many_to_many if f.name == parts[2]), None)
        if m2m is not None and m2m.remote_field.through._meta.auto_created:
            return _Table(label, m2m.remote_field.through, keep_pk=False)
    return None


def _is_user_fk(f: models.Field[Any, Any]) -> bool:
    return f.is_relation and f.related_model is _user_model()


def _target_model(f: models.Field[Any, Any]) -> type[models.Model] | None:
    """The model a relation column points to; None for a plain column."""
    model = f.related_model
    return model if isinstance(model, type) else None  # a relation's "self" is resolved to its class once apps load


def _stored_field(f: models.Field[Any, Any]) -> models.Field[Any, Any]:
    """The field whose type a column stores: the target of a relation, else the column's own."""
    return f.target_field if isinstance(f, RelatedField) else f


# --- export ----------------------------------------------------------------------------------


def _export_encoder(f: models.Field[Any, Any], usernames: dict[int, str]) -> Callable[[Any], Any] | None:
    """How a column's value is written to JSON; None: as it is."""
    if _is_user_fk(f):
        return lambda v: None if v is None else usernames[v]
    kind = _stored_field(f).get_internal_type()
    if kind in ("DateTimeField", "DateField", "TimeField"):
        return lambda v: None if v is None else v.isoformat()
    if kind == "DurationField":
        return lambda v: None if v is None else duration_string(v)
    if kind in ("DecimalField", "UUIDField"):
        return lambda v: None if v is None else str(v)
    return None


def _as_json(f: models.Field[Any, Any], value: Any) -> Any:
    encode = _export_encoder(f, {})
    return value if encode is None or _is_user_fk(f) else encode(value)


def export_campaign(*, campaign_name: str, path: str | Path, progress: Progress | None = None) -> BackupOutcome:
    """Write the campaign and everything its results depend on to one zip archive, streaming."""
    Campaign = apps.get_model("annotation", "Campaign")
    campaign = Campaign.objects.select_related("version__dataset").filter(name=campaign_name).first()
    if campaign is None:
        known = ", ".join(Campaign.objects.order_by("name").values_list("name", flat=True)[:20]) or _("none")
        raise ValidationError({"campaign": _("no campaign named %(name)r (known: %(known)s)") % {"name": campaign_name, "known": known}})
    path = Path(path)
    tmp = path.with_name(path.name + ".partial")
    files: dict[str, dict[str, Any]] = {}
    counts: dict[str, int] = {}
    user_ids: set[int] = set()
    outer = connection.in_atomic_block
    try:
        with transaction.atomic(), zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=1) as archive:
            if connection.vendor == "postgresql" and not outer:
                # One consistent snapshot of every table, however long the export takes.
                with connection.cursor() as cursor:
                    cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
            usernames = dict(_user_model().objects.values_list("pk", "username"))
            exported: dict[str, set[Any]] = {}
            for table in _tables(campaign):
                files[table.file_name] = _write_table(archive, table, usernames, exported, user_ids, progress)
                counts[table.label] = files[table.file_name]["rows"]
            users = _user_records(user_ids)
            files[USERS_FILE] = _write_lines(archive, USERS_FILE, (json.dumps(u, ensure_ascii=False, sort_keys=True) for u in users))
            manifest = {
                "format": FORMAT,
                "campaign": campaign.name,
                "dataset": campaign.version.dataset.name,
                "order": list(counts),
                "files": files,
            }
            archive.writestr("manifest.json", json.dumps(manifest, indent=2, ensure_ascii=False))
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    tmp.replace(path)  # never a half-written archive under the final name
    return BackupOutcome(campaign.name, counts, len(users))


def _write_table(
    archive: zipfile.ZipFile,
    table: _Table,
    usernames: dict[int, str],
    exported: dict[str, set[Any]],
    user_ids: set[int],
    progress: Progress | None,
) -> dict[str, Any]:
    queryset = table.queryset
    assert queryset is not None, "a table being exported has its rows"
    columns = table.columns()
    names = [f.attname for f in columns]
    encoders = [_export_encoder(f, usernames) for f in columns]
    # A nullable link to a row the archive does not carry (e.g. a qualification earned in another
    # dataset's calibration) is written as null, as deleting that row would leave it.
    dangling: dict[int, set[Any]] = {}
    for i, f in enumerate(columns):
        target = _target_model(f)
        if target is not None and f.null and not _is_user_fk(f) and target is not table.model and target._meta.label in exported:
            dangling[i] = exported[target._meta.label]
    user_columns = [i for i, f in enumerate(columns) if _is_user_fk(f)]
    pk_index = next((i for i, f in enumerate(columns) if f.primary_key), None)
    pks: set[Any] = set()
    total = queryset.count()
    done = 0

    def lines() -> Iterator[str]:
        nonlocal done
        for values in queryset.values_list(*names).iterator(chunk_size=BATCH):
            row = list(values)
            for i in user_columns:
                if row[i] is not None:
                    user_ids.add(row[i])
            for i, keep in dangling.items():
                if row[i] is not None and row[i] not in keep:
                    row[i] = None
            if pk_index is not None:
                pks.add(row[pk_index])
            for i, encode in enumerate(encoders):
                if encode is not None:
                    row[i] = encode(row[i])
            done += 1
            if progress and done % 1000 == 0:
                progress(table.what, done, total)
            yield json.dumps(dict(zip(names, row)), ensure_ascii=False)

    if progress:
        progress(table.what, 0, total)
    meta = _write_lines(archive, table.file_name, lines())
    if progress:
        progress(table.what, done, total)
    meta["columns"] = names
    if table.keep_pk:
        exported[table.model._meta.label] = pks
    return meta


def _write_lines(archive: zipfile.ZipFile, name: str, lines: Iterable[str]) -> dict[str, Any]:
    digest, rows, size = hashlib.sha256(), 0, 0
    buffer: list[str] = []
    with archive.open(name, "w", force_zip64=True) as member:
        for line in lines:
            buffer.append(line)
            rows += 1
            size += len(line)
            if size > 1 << 20:
                data = ("\n".join(buffer) + "\n").encode()
                digest.update(data)
                member.write(data)
                buffer, size = [], 0
        if buffer:
            data = ("\n".join(buffer) + "\n").encode()
            digest.update(data)
            member.write(data)
    return {"sha256": digest.hexdigest(), "rows": rows}


def _user_records(user_ids: set[int]) -> list[dict[str, Any]]:
    return [
        {
            "username": u.username,
            "email": u.email,
            "first_name": u.first_name,
            "last_name": u.last_name,
            "is_active": u.is_active,
            "groups": sorted(g.name for g in u.groups.all()),
        }
        for u in _user_model().objects.filter(pk__in=user_ids).prefetch_related("groups").order_by("username")
    ]


# --- import ----------------------------------------------------------------------------------


class _Reject(Exception):
    """A value that cannot be restored into its column; the message says why."""


def _import_decoder(f: models.Field[Any, Any], user_ids: dict[str, int]) -> Callable[[Any], Any]:
    """Turn a JSON value into what the database driver takes for this column, or raise _Reject."""
    nullable = f.null
    if _is_user_fk(f):

        def user(v: Any) -> int | None:
            if v is None and nullable:
                return None
            if not isinstance(v, str) or v not in user_ids:
                raise _Reject(_("no user %(name)r in the archive's users") % {"name": v})
            return user_ids[v]

        return user
    target = _stored_field(f)
    kind = target.get_internal_type()
    vendor_value = _db_value(f)

    def check(v: Any) -> Any:
        if v is None:
            if nullable:
                return None
            raise _Reject(_("may not be null"))
        return vendor_value(_python_value(kind, target, v))

    return check


def _python_value(kind: str, f: models.Field[Any, Any], v: Any) -> Any:
    if kind in (
        "AutoField",
        "BigAutoField",
        "IntegerField",
        "BigIntegerField",
        "SmallIntegerField",
        "PositiveIntegerField",
        "PositiveSmallIntegerField",
        "PositiveBigIntegerField",
        "SmallAutoField",
    ):
        if type(v) is not int:
            raise _Reject(_("expected an integer, found %(value).40r") % {"value": v})
        return v
    if kind == "BooleanField":
        if type(v) is not bool:
            raise _Reject(_("expected true or false, found %(value).40r") % {"value": v})
        return v
    if kind == "FloatField":
        if type(v) not in (int, float):
            raise _Reject(_("expected a number, found %(value).40r") % {"value": v})
        return float(v)
    if kind in ("CharField", "TextField", "SlugField", "EmailField", "URLField"):
        if not isinstance(v, str):
            raise _Reject(_("expected a string, found %(value).40r") % {"value": v})
        if f.max_length and len(v) > f.max_length:
            raise _Reject(_("longer than %(n)d characters") % {"n": f.max_length})
        return v
    if kind in ("DateTimeField", "DurationField", "DecimalField", "UUIDField", "DateField"):
        if not isinstance(v, str):
            raise _Reject(_("expected a string, found %(value).40r") % {"value": v})
        try:
            if kind == "DateTimeField":
                moment = parse_datetime(v)
                if moment is None or moment.tzinfo is None:
                    raise ValueError
                return moment
            if kind == "DurationField":
                duration = parse_duration(v)
                if duration is None:
                    raise ValueError
                return duration
            if kind == "DateField":
                return datetime.date.fromisoformat(v)
            if kind == "DecimalField":
                return decimal.Decimal(v)
            return uuid.UUID(v)
        except (ValueError, decimal.InvalidOperation):
            raise _Reject(_("not a valid %(kind)s: %(value).40r") % {"kind": kind.removesuffix("Field").lower(), "value": v}) from None
    return v  # JSONField: any JSON value


def _db_value(f: models.Field[Any, Any]) -> Callable[[Any], Any]:
    kind = f.get_internal_type()
    if kind == "JSONField":
        return lambda v: f.get_db_prep_save(v, connection)
    if connection.vendor == "postgresql":
        return lambda v: v  # psycopg's COPY takes datetimes, durations, decimals and UUIDs as they are
    if kind in ("DateTimeField", "DurationField", "DecimalField", "UUIDField", "DateField") or (
        kind in ("ForeignKey", "OneToOneField") and _stored_field(f).get_internal_type() == "UUIDField"
    ):
        return lambda v: f.get_db_prep_save(v, connection)
    return lambda v: v


@dataclass
class _Member:
    table: _Table
    name: str
    rows: int


def _open_archive(source: str | Path | IO[bytes]) -> tuple[zipfile.ZipFile, str]:
    name = str(getattr(source, "name", source))
    try:
        return zipfile.ZipFile(source), Path(name).name
    except (zipfile.BadZipFile, OSError) as exc:
        raise ValidationError({"archive": _("%(name)s: not a campaign archive (%(error)s)") % {"name": name, "error": exc}}) from None


def _check_archive(archive: zipfile.ZipFile, name: str) -> tuple[dict[str, Any], list[_Member]]:
    """The manifest and the members in restore order, every member's SHA-256 checked."""

    def refuse(message: str) -> NoReturn:
        raise ValidationError({"archive": f"{name}: {message}"})

    try:
        manifest = json.loads(archive.read("manifest.json"))
    except (KeyError, ValueError, RecursionError) as exc:
        refuse(_("missing or unreadable manifest.json (%(error)s)") % {"error": exc})
    if isinstance(manifest, dict) and (problem := unstorable_part(manifest)) is not None:
        refuse(_("manifest.json, field %(field)r: %(message)s") % {"field": problem[0], "message": problem[1]})
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        found = manifest.get("format") if isinstance(manifest, dict) else None
        refuse(_("format %(found)r, expected %(expected)r") % {"found": found, "expected": FORMAT})
    files = manifest.get("files")
    for key in ("campaign", "dataset"):
        if not isinstance(manifest.get(key), str):
            refuse(_("manifest.json, field %(field)r: expected a string") % {"field": key})
    if not isinstance(manifest.get("order"), list):
        refuse(_("manifest.json, field 'order': expected a list"))
    if not isinstance(files, dict) or USERS_FILE not in files:
        refuse(_("the manifest lists no %(file)s") % {"file": USERS_FILE})
    for file_name, meta in files.items():
        digest = hashlib.sha256()
        try:
            with archive.open(file_name) as member:
                while chunk := member.read(1 << 20):
                    digest.update(chunk)
        except KeyError:
            refuse(_("%(file)s is listed in the manifest but missing") % {"file": file_name})
        if not isinstance(meta, dict) or digest.hexdigest() != meta.get("sha256"):
            refuse(_("%(file)s does not match its SHA-256 in the manifest") % {"file": file_name})
    members = []
    for label in manifest.get("order", []):
        table = _table_for_label(str(label))
        if table is None:
            refuse(_("this installation has no model %(label)s") % {"label": label})
        if table.file_name not in files:
            refuse(_("%(file)s is in the manifest's order but not in its files") % {"file": table.file_name})
        rows = files[table.file_name].get("rows", 0) if isinstance(files[table.file_name], dict) else None
        if not isinstance(rows, int) or isinstance(rows, bool) or rows < 0:
            refuse(_("%(file)s: its row count in the manifest is not a whole number") % {"file": table.file_name})
        members.append(_Member(table, table.file_name, rows))
    return manifest, members


def import_campaign(*, source: str | Path | IO[bytes], site_url: str = "", progress: Progress | None = None) -> BackupOutcome:
    """Restore an archive written by export_campaign; atomic, and refuses to overwrite anything.

    Users the installation does not know are created with an unusable password; each gets a
    password-reset link (on `site_url`) for the admin to send.
    """
    archive, name = _open_archive(source)
    with archive:
        manifest, members = _check_archive(archive, name)
        counts: dict[str, int] = {}
        try:
            with transaction.atomic():
                users, user_ids = _restore_users(archive, name, site_url)
                _refuse_existing(manifest, name)
                submitted: list[int] = []
                for member in members:
                    counts[member.table.label] = _restore_table(archive, name, member, user_ids, submitted, progress)
                # The judgment guard refuses judgments of a submitted assignment: they went in while it
                # was still reserved, and the assignments become submitted now, as they were.
                Assignment = apps.get_model("annotation", "Assignment")
                for start in range(0, len(submitted), BATCH):
                    Assignment.objects.filter(pk__in=submitted[start : start + BATCH]).update(status=Assignment.Status.SUBMITTED)
                _reset_sequences(members)
        except IntegrityError as exc:
            raise ValidationError({"archive": _("%(name)s: cannot restore: %(error)s") % {"name": name, "error": exc}}) from None
    return BackupOutcome(str(manifest.get("campaign", "")), counts, len(users), tuple(users))


def _restore_users(archive: zipfile.ZipFile, name: str, site_url: str) -> tuple[list[RestoredUser], dict[str, int]]:
    User = _user_model()
    errors = ErrorCollector(f"{name}/{USERS_FILE}")
    restored: list[RestoredUser] = []
    ids: dict[str, int] = {}
    with archive.open(USERS_FILE) as handle:
        records = list(read_jsonl(handle, errors))
    for line, record in records:
        username = record.get("username")
        if not isinstance(username, str) or not username:
            errors.add(line, "username", _("expected a non-empty string"))
            continue
        texts = {k: record.get(k, "") for k in ("email", "first_name", "last_name")}
        bad = next((k for k, v in texts.items() if not isinstance(v, str)), None)
        if bad:
            errors.add(line, bad, _("expected a string"))
            continue
        user = User.objects.filter(username=username).first()
        created = user is None
        if user is None:
            user = User(username=username, is_active=record.get("is_active") is not False, **texts)
            user.set_unusable_password()
            try:
                user.full_clean(exclude=["password"])
            except ValidationError as exc:
                for field_name, messages in exc.message_dict.items():
                    errors.add(line, field_name, "; ".join(messages))
                continue
            user.save()
            groups = [g for g in record.get("groups", []) if isinstance(g, str)]
            user.groups.set([Group.objects.get_or_create(name=g)[0] for g in groups])
        ids[username] = user.pk
        restored.append(RestoredUser(username, user.email, created, _reset_url(user, site_url) if created else ""))
    errors.raise_if_any()
    return restored, ids


def _reset_url(user: User, site_url: str) -> str:
    path = reverse(
        "password_reset_confirm",
        kwargs={"uidb64": urlsafe_base64_encode(force_bytes(user.pk)), "token": default_token_generator.make_token(user)},
    )
    return site_url.rstrip("/") + path


def _refuse_existing(manifest: dict[str, Any], name: str) -> None:
    Dataset = apps.get_model("heartbench_core", "Dataset")
    Campaign = apps.get_model("annotation", "Campaign")
    if Dataset.objects.filter(name=manifest.get("dataset")).exists():
        raise ValidationError(
            {
                "archive": _("%(name)s: dataset %(dataset)r already exist here; restore into an empty installation")
                % {"name": name, "dataset": manifest.get("dataset")}
            }
        )
    if Campaign.objects.filter(name=manifest.get("campaign")).exists():
        raise ValidationError(
            {
                "archive": _("%(name)s: campaign %(campaign)r already exist here; restore into an empty installation")
                % {"name": name, "campaign": manifest.get("campaign")}
            }
        )


def _archive_records(handle: IO[bytes], errors: ErrorCollector) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) of each line, with exactly the platform JSONL reader's checks and messages.

    A line that cannot hold a NUL or a surrogate (no `\\u` escape: the exporter writes text as
    it is) and cannot nest past the limit (fewer brackets than MAX_NESTING_DEPTH) needs no walk
    through its values; every other line, and every line in error, goes through `read_jsonl`.
    """
    for number, raw in enumerate(handle, start=1):
        if b"\\u" not in raw and raw.count(b"[") + raw.count(b"{") <= MAX_NESTING_DEPTH:
            try:
                value = json.loads(raw)
            except (ValueError, RecursionError):
                value = None
            if isinstance(value, dict) and b"NaN" not in raw and b"Infinity" not in raw:
                yield number, value
                continue
            if value is None and not raw.strip():
                continue
        one_line = ErrorCollector(errors.file)
        for _line, value in read_jsonl(io.BytesIO(raw), one_line):
            yield number, value
        for error in one_line.errors:
            errors.add(number, error.field, error.message)


def _restore_table(
    archive: zipfile.ZipFile, name: str, member: _Member, user_ids: dict[str, int], submitted: list[int], progress: Progress | None
) -> int:
    table = member.table
    columns = table.columns()
    by_name = {f.attname: f for f in columns}
    decoders = [_import_decoder(f, user_ids) for f in columns]
    # A column the archive does not name (written before the column existed) takes its default.
    defaults = {f.attname: _as_json(f, f.get_default()) for f in columns if f.has_default()}
    # Assignments go in reserved, and those submitted become so after their judgments (see import_campaign).
    is_assignment = table.model._meta.label == "annotation.Assignment"
    status_index = next((i for i, f in enumerate(columns) if f.attname == "status"), None) if is_assignment else None
    pk_index = next((i for i, f in enumerate(columns) if f.primary_key), None)
    errors = ErrorCollector(f"{name}/{member.name}")
    insert = _inserter(table.model, columns)
    batch: list[Row] = []
    done = 0

    # Restoring into an empty installation is the rule: look for clashing ids only where there are rows.
    occupied = pk_index is not None and table.model._default_manager.exists()

    def flush() -> None:
        if errors:  # nothing will be written: keep no rows in memory, only look for more errors
            batch.clear()
            return
        if occupied and pk_index is not None:
            pks = [row[pk_index] for row in batch]
            clash = table.model._default_manager.filter(pk__in=pks)
            if clash.exists():
                raise ValidationError(
                    {
                        "archive": _(
                            "%(label)s: %(n)d of the archive's rows already exist here (e.g. id %(pk)s); restore into an empty installation"
                        )
                        % {"label": table.label, "n": clash.count(), "pk": clash.values_list("pk", flat=True).first()}
                    }
                )
        insert(batch)
        batch.clear()

    if progress:
        progress(table.what, 0, member.rows)
    with archive.open(member.name) as handle:
        for line, record in _archive_records(handle, errors):
            unknown = next((k for k in record if k not in by_name), None)
            if unknown is not None:
                errors.add(line, unknown, _("%(model)s has no such field") % {"model": table.label})
                continue
            row: list[Any] = []
            try:
                for f, decode in zip(columns, decoders):
                    if f.attname in record:
                        value = record[f.attname]
                    elif f.attname in defaults:
                        value = defaults[f.attname]
                    elif f.null:
                        value = None
                    else:
                        raise _Reject(_("missing"))
                    row.append(decode(value))
            except _Reject as exc:
                errors.add(line, f.attname, str(exc))
                continue
            if status_index is not None and pk_index is not None and row[status_index] == "submitted":
                submitted.append(row[pk_index])
                row[status_index] = "reserved"
            batch.append(tuple(row))
            done += 1
            if len(batch) >= BATCH:
                flush()
            if progress and done % 1000 == 0:
                progress(table.what, done, member.rows)
    errors.raise_if_any()
    if batch:
        flush()
    if progress:
        progress(table.what, done, member.rows)
    return done


def _inserter(model: type[models.Model], columns: list[models.Field[Any, Any]]) -> Callable[[list[Row]], None]:
    table = connection.ops.quote_name(model._meta.db_table)
    names = ", ".join(connection.ops.quote_name(f.column) for f in columns)
    if connection.vendor == "postgresql":

        def copy(rows: list[Row]) -> None:
            with connection.cursor() as cursor, cursor.cursor.copy(f"COPY {table} ({names}) FROM STDIN") as target:
                for row in rows:
                    target.write_row(row)

        return copy
    sql = f"INSERT INTO {table} ({names}) VALUES ({', '.join(['%s'] * len(columns))})"

    def executemany(rows: list[Row]) -> None:
        with connection.cursor() as cursor:
            cursor.executemany(sql, rows)

    return executemany


def _reset_sequences(members: list[_Member]) -> None:
    """After inserting explicit ids, move PostgreSQL's sequences past them (no-op on SQLite)."""
    from django.core.management.color import no_style

    models_ = [m.table.model for m in members if m.table.keep_pk]
    for sql in connection.ops.sequence_reset_sql(no_style(), models_):
        with connection.cursor() as cursor:
            cursor.execute(sql)
