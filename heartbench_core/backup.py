"""Back up one campaign to a single archive and restore it into an empty installation.

The archive is a zip of JSON Lines, one member per table (one row per line, columns by name,
users by username), plus `manifest.json` with each member's SHA-256, row count and columns, and
the manifest's signature. It holds the tables the apps declare for a campaign archive
(`heartbench_core.campaign_archive`): the campaign's whole dataset, the rubric's history on it,
the campaign with its gold set and the dataset's calibration sets, the experts' profiles and
qualifications, and the validation app's adjudications, golden labels, reports and gates; and
the users those rows name (username, e-mail, names; never a password, a token or a flag).

Rows keep their primary keys, so a restored installation computes identical results. Both
directions stream: export reads in chunks and writes members as it goes; import reads each
member a chunk at a time within the archive's bounds (`heartbench_core.archive_file`), parses
each line through the platform's JSONL reader (its nesting and NUL limits), checks every value
against its column, and inserts in batches (COPY on PostgreSQL).

An archive comes from outside, so a restore trusts none of it:

- it restores only the tables the apps declare, and only into an installation that holds none
  of the archive's dataset, campaign or rows; atomic: any refusal writes nothing;
- every link a row holds points to a row restored from the same archive, or to a user the
  restore created or the operator mapped; never to a row that was already here;
- each archive user becomes a new account with an unusable password (and a reset link), given
  at most the expert role; a name already taken here is refused unless the operator maps it
  onto that account (`map_users`); staff roles are never granted, the operator grants them;
- the manifest must carry a valid HMAC-SHA256 signature under the operator's key, unless the
  operator restores it as unverified (`trust_unsigned`), which also refuses mapping archive
  users onto staff accounts.
"""

from __future__ import annotations

import datetime
import decimal
import hashlib
import hmac
import io
import json
import time
import uuid
import zipfile
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from itertools import chain
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, NoReturn

from django.apps import apps
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.contrib.auth.tokens import default_token_generator
from django.core.exceptions import ValidationError
from django.db import IntegrityError, connection, models, transaction
from django.db.models import QuerySet
from django.db.models.fields.related import RelatedField
from django.urls import reverse
from django.utils.dateparse import parse_datetime, parse_duration
from django.utils.duration import duration_string
from django.utils.encoding import force_bytes
from django.utils.formats import number_format
from django.utils.http import urlsafe_base64_encode
from django.utils.translation import gettext as _

from heartbench_core.archive_file import MANIFEST, SIGNATURE, ArchiveReader, Bounds, signature
from heartbench_core.campaign_archive import ArchivedTable, ArchiveScope, HeldBack, archived_tables, campaign_source
from heartbench_core.jsonl import ErrorCollector
from heartbench_core.lib.jsonl import MAX_NESTING_DEPTH, MAX_REPORTED_ERRORS, read_jsonl, unstorable_part
from heartbench_core.roles import STAFF_ROLES, Role

if TYPE_CHECKING:
    from heartbench_core.models import User

FORMAT = "heartbench-campaign/2"
USERS_FILE = "users.jsonl"
BATCH = 5000
BATCH_BYTES = 16 << 20  # a batch's lines, at most: long lines make short batches
USER_TEXTS = ("email", "first_name", "last_name")
# All users.jsonl may say of a person. "groups": the roles, as archives written before "roles" named them.
USER_KEYS = frozenset({"username", *USER_TEXTS, "is_active", "roles", "groups"})

# (what, rows done, rows in all): called often; `ProgressPrinter` decides what reaches the screen.
Progress = Callable[[str, int, int], None]
Row = tuple[Any, ...]


@dataclass(frozen=True)
class RestoredUser:
    username: str  # the account here
    email: str
    created: bool
    reset_url: str  # "" for an account that was already here and keeps its password
    archive_username: str = ""  # the name in the archive, when the operator mapped it onto another account
    roles_not_granted: tuple[str, ...] = ()  # staff roles the archive says they held: the operator decides


@dataclass(frozen=True)
class BackupOutcome:
    campaign: str
    rows: dict[str, int]
    users: int
    restored_users: tuple[RestoredUser, ...] = field(default=())
    signed: bool = False  # export: signed with the key; import: its signature verified


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
    held_back: HeldBack | None = None
    soft_links: tuple[tuple[str, str], ...] = ()
    person: str = ""
    copied: tuple[tuple[str, str, str], ...] = ()

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


def _tables_of(declared: ArchivedTable, scope: ArchiveScope | None) -> list[_Table]:
    """The declared table's member and those of its many-to-many fields; with their rows when a scope is given."""
    model = declared.model
    queryset = None
    if scope is not None:
        rows = model._default_manager  # each archived model has only the one manager
        # A filter across a to-many relation may repeat rows: select by primary key instead of DISTINCT.
        queryset = rows.filter(pk__in=rows.filter(declared.rows(scope)).values("pk")).order_by("pk")
    tables = [
        _Table(
            declared.label,
            model,
            queryset,
            held_back=declared.held_back,
            soft_links=declared.soft_links,
            person=declared.person,
            copied=declared.copied,
        )
    ]
    for name in declared.many_to_many:
        m2m = model._meta.get_field(name)
        assert isinstance(m2m, models.ManyToManyField), f"{declared.label}.{name}: a many-to-many field"
        through = m2m.remote_field.through
        assert through is not None and through._meta.auto_created, (
            f"{declared.label}.{name}: its members are a table of their own, declared apart"
        )
        members = None
        if queryset is not None:
            members = through._default_manager.filter(**{f"{m2m.m2m_field_name()}__in": queryset.values("pk")}).order_by("pk")
        tables.append(_Table(f"{declared.label}.{name}", through, members, keep_pk=False))
    return tables


def _campaign_querysets(campaign_name: str) -> list[tuple[str, QuerySet[Any]]]:
    """(model label, queryset) of everything the campaign's results depend on, parents first."""
    scope = campaign_source().scope(campaign_name)
    out = []
    for declared in archived_tables():
        queryset = _tables_of(declared, scope)[0].queryset
        assert queryset is not None
        out.append((declared.label, queryset))
    return out


def _archivable() -> dict[str, _Table]:
    """Every member a campaign archive may hold, by label, parents first: the allow-list a restore keeps to."""
    return {t.label: t for declared in archived_tables() for t in _tables_of(declared, None)}


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


def export_campaign(*, campaign_name: str, path: str | Path, key: bytes | None, progress: Progress | None = None) -> BackupOutcome:
    """Write the campaign and everything its results depend on to one zip archive, streaming; signed when a key is given."""
    scope = campaign_source().scope(campaign_name)
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
            for declared in archived_tables():
                for table in _tables_of(declared, scope):
                    files[table.file_name] = _write_table(archive, table, usernames, exported, user_ids, progress)
                    counts[table.label] = files[table.file_name]["rows"]
            users = _user_records(user_ids)
            files[USERS_FILE] = _write_lines(archive, USERS_FILE, (json.dumps(u, ensure_ascii=False, sort_keys=True) for u in users))
            manifest = {
                "format": FORMAT,
                "campaign": scope.campaign_name,
                "dataset": scope.dataset_name,
                "order": list(counts),
                "files": files,
            }
            manifest_bytes = json.dumps(manifest, indent=2, ensure_ascii=False).encode()
            archive.writestr(MANIFEST, manifest_bytes)
            if key is not None:
                archive.writestr(SIGNATURE, signature(manifest_bytes, key))
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    tmp.replace(path)  # never a half-written archive under the final name
    return BackupOutcome(scope.campaign_name, counts, len(users), signed=key is not None)


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
    # dataset's calibration) is written as null, as deleting that row would leave it: a restore
    # accepts only links to rows restored from the same archive.
    dangling: dict[int, set[Any]] = {}
    soft = dict(table.soft_links)
    for i, f in enumerate(columns):
        target = _target_model(f)
        if f.attname in soft:
            dangling[i] = exported.get(soft[f.attname], set())
        elif target is not None and f.null and not _is_user_fk(f) and target is not table.model:
            dangling[i] = exported.get(target._meta.label, set())
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
        for line in chain(lines, [None]):  # streamed; None: the end, where what is left is written
            if line is not None:
                buffer.append(line)
                rows, size = rows + 1, size + len(line)
            if buffer and (size > 1 << 20 or line is None):
                data = ("\n".join(buffer) + "\n").encode()
                digest.update(data)
                member.write(data)
                buffer, size = [], 0
    return {"sha256": digest.hexdigest(), "rows": rows}


def _user_records(user_ids: set[int]) -> list[dict[str, Any]]:
    """Who the rows name: enough to recognise a person, never a password, a token or a flag."""
    role_names = {r.value for r in Role}
    return [
        {
            "username": u.username,
            "email": u.email,
            "first_name": u.first_name,
            "last_name": u.last_name,
            "is_active": u.is_active,
            "roles": sorted(g.name for g in u.groups.all() if g.name in role_names),
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


_STORED_AS_TEXT = ("DateTimeField", "DurationField", "DecimalField", "UUIDField", "DateField")  # a JSON string in the archive


def _python_value(kind: str, f: models.Field[Any, Any], v: Any) -> Any:
    if kind.endswith(("IntegerField", "AutoField")):  # Big, Small, Positive…
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
    if kind in _STORED_AS_TEXT:
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
    if kind in _STORED_AS_TEXT or (kind in ("ForeignKey", "OneToOneField") and _stored_field(f).get_internal_type() == "UUIDField"):
        return lambda v: f.get_db_prep_save(v, connection)
    return lambda v: v


@dataclass
class _Member:
    table: _Table
    name: str
    rows: int


@dataclass
class _Restored:
    """What the restore has put in so far: the ids other rows may point to, and the values held back."""

    ids: dict[str, set[Any]] = field(default_factory=dict)  # model label -> ids restored, for the tables others point to
    held_back: dict[str, list[Any]] = field(default_factory=dict)  # model label -> ids of rows whose value waits
    mapped: set[int] = field(default_factory=set)  # accounts already here that archive users were mapped onto
    left_out: dict[str, set[Any]] = field(default_factory=dict)  # model label -> ids of rows about a mapped person


def _check_archive(
    reader: ArchiveReader, archivable: dict[str, _Table], key: bytes | None, trust_unsigned: bool
) -> tuple[dict[str, Any], list[_Member], bool]:
    """The manifest, the members in restore order (every one's SHA-256 checked), and whether the signature verified."""
    names = reader.member_names(lambda name: _member_refusal(name, archivable))
    if MANIFEST not in names:
        reader.refuse(_("missing or unreadable manifest.json (%(error)s)") % {"error": _("no such member")})
    manifest_bytes = reader.read_small(MANIFEST)
    verified = _verify_signature(reader, names, manifest_bytes, key, trust_unsigned)
    manifest = _read_manifest(reader, manifest_bytes)
    order = _checked_order(reader, manifest, archivable)
    files: dict[str, Any] = manifest["files"]
    unlisted = sorted(set(files) - {USERS_FILE, *(f"{label}.jsonl" for label in order)}) + sorted(
        names - {MANIFEST, SIGNATURE} - set(files)
    )
    if unlisted:
        reader.refuse(_("%(file)s is not a table the manifest's order restores") % {"file": unlisted[0]})
    for file_name, meta in files.items():
        if file_name not in names:
            reader.refuse(_("%(file)s is listed in the manifest but missing") % {"file": file_name})
        if not isinstance(meta, dict) or reader.sha256(file_name) != meta.get("sha256"):
            reader.refuse(_("%(file)s does not match its SHA-256 in the manifest") % {"file": file_name})
    members = []
    for label, table in archivable.items():  # the allow-list's order, parents first, whatever the manifest's
        if label in order:
            rows = files[table.file_name].get("rows", 0)
            if not isinstance(rows, int) or isinstance(rows, bool) or rows < 0:
                reader.refuse(_("%(file)s: its row count in the manifest is not a whole number") % {"file": table.file_name})
            members.append(_Member(table, table.file_name, rows))
    return manifest, members, verified


def _checked_order(reader: ArchiveReader, manifest: dict[str, Any], archivable: dict[str, _Table]) -> set[str]:
    """The tables the manifest restores: each one a campaign archive may carry, named once, with its file listed."""
    order = manifest["order"]
    for label in order:
        if not isinstance(label, str) or label not in archivable:
            reader.refuse(_("%(label)s: a campaign archive may not carry this table") % {"label": label})
        if f"{label}.jsonl" not in manifest["files"]:
            reader.refuse(_("%(file)s is in the manifest's order but not in its files") % {"file": f"{label}.jsonl"})
    if len(set(order)) != len(order):
        reader.refuse(_("the manifest's order names a table twice"))
    return set(order)


def _member_refusal(name: str, archivable: dict[str, _Table]) -> str | None:
    """Why an archive may not hold a member of this name; None when it may."""
    if name in (MANIFEST, SIGNATURE, USERS_FILE) or (name.endswith(".jsonl") and name.removesuffix(".jsonl") in archivable):
        return None
    if name.endswith(".jsonl") and not any(c in name for c in "/\\:"):
        return _("%(label)s: a campaign archive may not carry this table") % {"label": name.removesuffix(".jsonl")}
    return _(
        "unexpected member %(member)r: a campaign archive holds only its manifest, the manifest's signature, "
        "users.jsonl and the tables a campaign archive may carry"
    ) % {"member": name}


def _verify_signature(reader: ArchiveReader, names: set[str], manifest: bytes, key: bytes | None, trust_unsigned: bool) -> bool:
    """True when the manifest's signature verifies under the key; refuses an archive it cannot verify, unless trusted as unsigned."""
    if trust_unsigned:
        return False
    if key is None:
        reader.refuse(
            _(
                "no archive key to verify its signature with: set HEARTBENCH_ARCHIVE_KEY or pass --key-file "
                "(the key the archive was exported with), or restore it unverified with --trust-unsigned"
            )
        )
    if SIGNATURE not in names:
        reader.refuse(
            _(
                "the archive is not signed, so nothing says who wrote it; restore it unverified with --trust-unsigned only if you know its origin"
            )
        )
    found = reader.read_small(SIGNATURE).strip()
    if not hmac.compare_digest(found, signature(manifest, key)):
        reader.refuse(
            _("its signature does not match the archive key: it was changed after export, or signed with another installation's key")
        )
    return True


def _read_manifest(reader: ArchiveReader, manifest_bytes: bytes) -> dict[str, Any]:
    try:
        manifest = json.loads(manifest_bytes)
    except (ValueError, RecursionError) as exc:
        reader.refuse(_("missing or unreadable manifest.json (%(error)s)") % {"error": exc})
    if isinstance(manifest, dict) and (problem := unstorable_part(manifest)) is not None:
        reader.refuse(_("manifest.json, field %(field)r: %(message)s") % {"field": problem[0], "message": problem[1]})
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        found = manifest.get("format") if isinstance(manifest, dict) else None
        reader.refuse(_("format %(found)r, expected %(expected)r") % {"found": found, "expected": FORMAT})
    for key in ("campaign", "dataset"):
        if not isinstance(manifest.get(key), str):
            reader.refuse(_("manifest.json, field %(field)r: expected a string") % {"field": key})
    if not isinstance(manifest.get("order"), list):
        reader.refuse(_("manifest.json, field 'order': expected a list"))
    files = manifest.get("files")
    if not isinstance(files, dict) or USERS_FILE not in files:
        reader.refuse(_("the manifest lists no %(file)s") % {"file": USERS_FILE})
    return manifest


def import_campaign(
    *,
    source: str | Path | IO[bytes],
    key: bytes | None,
    trust_unsigned: bool = False,
    map_users: Mapping[str, str] | None = None,
    site_url: str = "",
    progress: Progress | None = None,
) -> BackupOutcome:
    """Restore an archive written by export_campaign; atomic, and refuses to overwrite or take over anything.

    The archive's signature must verify under `key` unless `trust_unsigned`. Archive users become
    new accounts with an unusable password, each with a password-reset link (on `site_url`) for
    the admin to send; an archive user whose name is taken here is refused unless `map_users`
    maps it (archive name -> name here) onto that account.
    """
    name = Path(str(getattr(source, "name", source))).name
    archivable = _archivable()
    with ArchiveReader(source, name, Bounds.from_settings()) as reader:
        manifest, members, verified = _check_archive(reader, archivable, key, trust_unsigned)
        counts: dict[str, int] = {}
        pointed_to = {label for m in members for label in _link_targets(m.table)}
        try:
            with transaction.atomic():
                _refuse_existing(manifest, name)
                users, user_ids = _restore_users(reader, dict(map_users or {}), trust_unsigned, site_url)
                restored = _Restored(mapped={user_ids[u.archive_username] for u in users if u.archive_username})
                for member in members:
                    counts[member.table.label] = _restore_table(reader, member, user_ids, restored, pointed_to, progress)
                _release_held_back(members, restored)
                _check_it_is_one_campaign(reader, manifest, counts)
                _reset_sequences(members)
        except IntegrityError as exc:
            raise ValidationError({"archive": _("%(name)s: cannot restore: %(error)s") % {"name": name, "error": exc}}) from None
    return BackupOutcome(str(manifest["campaign"]), counts, len(users), tuple(users), signed=verified)


def _link_targets(table: _Table) -> set[str]:
    """The labels of the models the table's links (other than to users) point to."""
    targets = (_target_model(f) for f in table.columns() if f.is_relation and not _is_user_fk(f))
    return {t._meta.label for t in targets if t is not None} | {label for _column, label in table.soft_links}


def _refuse_existing(manifest: dict[str, Any], name: str) -> None:
    dataset, campaign = manifest["dataset"], manifest["campaign"]
    if apps.get_model("heartbench_core", "Dataset").objects.filter(name=dataset).exists():
        message = _("%(name)s: dataset %(dataset)r already exist here; restore into an empty installation")
    elif campaign_source().exists(campaign):
        message = _("%(name)s: campaign %(campaign)r already exist here; restore into an empty installation")
    else:
        return
    raise ValidationError({"archive": message % {"name": name, "dataset": dataset, "campaign": campaign}})


def _check_it_is_one_campaign(reader: ArchiveReader, manifest: dict[str, Any], counts: dict[str, int]) -> None:
    """The archive held one dataset, the one its manifest names (absent before the restore), and the campaign it names."""
    Dataset = apps.get_model("heartbench_core", "Dataset")
    datasets = counts.get(Dataset._meta.label, 0)
    if datasets != 1 or not Dataset.objects.filter(name=manifest["dataset"]).exists():
        reader.refuse(
            _("the manifest names dataset %(dataset)r, but the archive holds %(n)d datasets, not that one alone")
            % {"dataset": manifest["dataset"], "n": datasets}
        )
    if not campaign_source().exists(manifest["campaign"]):
        reader.refuse(_("the manifest names campaign %(campaign)r, but the archive does not hold it") % {"campaign": manifest["campaign"]})


def _release_held_back(members: list[_Member], restored: _Restored) -> None:
    """Give the rows held back their value, now that every table is in (e.g. assignments become submitted after their judgments)."""
    for member in members:
        held = member.table.held_back
        ids = restored.held_back.get(member.table.label, [])
        if held is None:
            continue
        for start in range(0, len(ids), BATCH):
            member.table.model._default_manager.filter(pk__in=ids[start : start + BATCH]).update(**{held.column: held.value})


# --- users -----------------------------------------------------------------------------------


@dataclass
class _UserRestore:
    """Where each archive user goes: a new account, or the existing one the operator mapped it onto."""

    reader: ArchiveReader
    map_users: dict[str, str]
    trust_unsigned: bool
    site_url: str
    errors: ErrorCollector
    restored: list[RestoredUser] = field(default_factory=list)
    ids: dict[str, int] = field(default_factory=dict)
    taken: list[str] = field(default_factory=list)  # names already here that the operator did not map

    def refuse(self, message: str) -> NoReturn:
        self.reader.refuse(message)


def _restore_users(
    reader: ArchiveReader, map_users: dict[str, str], trust_unsigned: bool, site_url: str
) -> tuple[list[RestoredUser], dict[str, int]]:
    work = _UserRestore(reader, map_users, trust_unsigned, site_url, ErrorCollector(f"{reader.name}/{USERS_FILE}"))
    targets = _mapping_targets(work)
    for line, record, _size in _archive_records(reader.lines(USERS_FILE), work.errors):
        username = _checked_user_record(work, line, record)
        if username is None:
            pass
        elif username in work.ids:
            work.errors.add(line, "username", _("%(name)r appears twice") % {"name": username})
        elif username in targets:
            user = targets[username]
            work.ids[username] = user.pk
            work.restored.append(RestoredUser(user.username, user.email, False, "", username, _roles_not_granted(record)))
        elif _user_model().objects.filter(username=username).exists():
            work.taken.append(username)
        else:
            _create_user(work, line, username, record)
        if len(work.errors.errors) > MAX_REPORTED_ERRORS:
            break
    work.errors.raise_if_any()
    unknown = sorted(set(map_users) - set(work.ids))
    if unknown:
        work.refuse(_("--map-user %(name)s: the archive has no user of that name") % {"name": unknown[0]})
    if work.taken:
        work.refuse(
            _(
                "these users already have an account here: %(names)s. A restore never takes over an account: "
                "confirm each with --map-user ARCHIVE_NAME=NAME_HERE (their rows then name that account), "
                "or restore into an installation without them"
            )
            % {"names": ", ".join(work.taken[:20]) + (" …" if len(work.taken) > 20 else "")}
        )
    return work.restored, work.ids


def _mapping_targets(work: _UserRestore) -> dict[str, User]:
    """The accounts the operator mapped archive users onto: each exists, takes one archive user, and is no staff account when unverified."""
    targets: dict[str, User] = {}
    seen: dict[str, str] = {}
    for archive_name, here in work.map_users.items():
        user = _user_model().objects.filter(username=here).first()
        if user is None:
            work.refuse(_("--map-user %(archive)s=%(here)s: no account %(here)r here") % {"archive": archive_name, "here": here})
        if here in seen:
            work.refuse(
                _("--map-user: %(first)s and %(second)s would both become %(here)s")
                % {"first": seen[here], "second": archive_name, "here": here}
            )
        seen[here] = archive_name
        if work.trust_unsigned and (
            user.is_superuser or user.is_staff or user.groups.filter(name__in=[r.value for r in STAFF_ROLES]).exists()
        ):
            work.refuse(
                _("--map-user %(archive)s=%(here)s: an unverified archive (--trust-unsigned) may not put rows under a staff account")
                % {"archive": archive_name, "here": here}
            )
        targets[archive_name] = user
    return targets


def _checked_user_record(work: _UserRestore, line: int, record: dict[str, Any]) -> str | None:
    """The record's username, or None after recording what is wrong with it."""
    unknown = sorted(k for k in record if k not in USER_KEYS)
    if unknown:
        work.errors.add(line, unknown[0], _("a campaign archive does not say this about a user"))
        return None
    username = record.get("username")
    if not isinstance(username, str) or not username:
        work.errors.add(line, "username", _("expected a non-empty string"))
        return None
    bad = next((k for k in USER_TEXTS if not isinstance(record.get(k, ""), str)), None)
    if bad:
        work.errors.add(line, bad, _("expected a string"))
        return None
    roles_key = "roles" if "roles" in record else "groups"
    roles = record.get(roles_key, [])
    if not isinstance(roles, list) or not all(isinstance(r, str) for r in roles):
        work.errors.add(line, roles_key, _("expected a list of role names"))
        return None
    if not isinstance(record.get("is_active", True), bool):
        work.errors.add(line, "is_active", _("expected true or false, found %(value).40r") % {"value": record["is_active"]})
        return None
    return username


def _roles_not_granted(record: dict[str, Any]) -> tuple[str, ...]:
    roles = set(record.get("roles", record.get("groups", [])))
    return tuple(r.value for r in STAFF_ROLES if r.value in roles)


def _create_user(work: _UserRestore, line: int, username: str, record: dict[str, Any]) -> None:
    """A new account: names and e-mail from the archive, no password, at most the expert role."""
    texts = {k: record.get(k, "") for k in USER_TEXTS}
    user = _user_model()(username=username, is_active=record.get("is_active") is not False, **texts)
    user.set_unusable_password()
    try:
        user.full_clean(exclude=["password"])
    except ValidationError as exc:
        for field_name, messages in exc.message_dict.items():
            work.errors.add(line, field_name, "; ".join(messages))
        return
    user.save()
    if Role.EXPERT.value in record.get("roles", record.get("groups", [])):
        user.groups.add(Group.objects.get_or_create(name=Role.EXPERT.value)[0])
    work.ids[username] = user.pk
    work.restored.append(RestoredUser(username, user.email, True, _reset_url(user, work.site_url), "", _roles_not_granted(record)))


def _reset_url(user: User, site_url: str) -> str:
    path = reverse(
        "password_reset_confirm",
        kwargs={"uidb64": urlsafe_base64_encode(force_bytes(user.pk)), "token": default_token_generator.make_token(user)},
    )
    return site_url.rstrip("/") + path


# --- rows ------------------------------------------------------------------------------------


def _archive_records(lines: Iterable[tuple[int, bytes]], errors: ErrorCollector) -> Iterator[tuple[int, dict[str, Any], int]]:
    """(line number, object, bytes) of each line, with exactly the platform JSONL reader's checks and messages.

    A line that cannot hold a NUL or a surrogate (no `\\u` escape: the exporter writes text as
    it is) and cannot nest past the limit (fewer brackets than MAX_NESTING_DEPTH) needs no walk
    through its values; every other line, and every line in error, goes through `read_jsonl`.
    """
    for number, raw in lines:
        if b"\\u" not in raw and raw.count(b"[") + raw.count(b"{") <= MAX_NESTING_DEPTH:
            try:
                value = json.loads(raw)
            except (ValueError, RecursionError):
                value = None
            if isinstance(value, dict) and b"NaN" not in raw and b"Infinity" not in raw:
                yield number, value, len(raw)
                continue
            if value is None and not raw.strip():
                continue
        one_line = ErrorCollector(errors.file)
        for _line, value in read_jsonl(io.BytesIO(raw), one_line):
            yield number, value, len(raw)
        for error in one_line.errors:
            errors.add(number, error.field, error.message)


@dataclass
class _Links:
    """How one table's links are checked: each points to a row restored from this archive, or is null."""

    label: str
    checks: list[tuple[int, str, set[Any] | None, set[Any]]]  # (column, its name, ids it may point to (None: only null), ids left out)
    own: list[tuple[int, str]]  # columns pointing into the table itself, checked once all its rows are read
    pending: dict[Any, tuple[int, str]] = field(default_factory=dict)  # id -> (line, column) of a link into the table not yet seen

    @classmethod
    def of(cls, table: _Table, columns: list[models.Field[Any, Any]], restored: _Restored) -> _Links:
        checks, own = [], []
        soft = dict(table.soft_links)
        for i, f in enumerate(columns):
            target = _target_model(f)
            label = soft.get(f.attname) or (target._meta.label if target is not None and not _is_user_fk(f) else None)
            if label is None:
                continue
            if label == table.model._meta.label:
                own.append((i, f.attname))
            else:
                checks.append((i, f.attname, restored.ids.get(label), restored.left_out.get(label, set())))
        return cls(table.label, checks, own)

    def leave_out(self, row: Row) -> bool:
        """The row points to a row left out (a mapped person's profile): it is left out too."""
        return any(row[i] is not None and row[i] in left_out for i, _name, _ids, left_out in self.checks if left_out)

    def problem(self, row: Row, pks: set[Any], line: int) -> tuple[str, str] | None:
        """(column, message) of the row's first link to a row this archive did not restore."""
        for i, name, ids, _left_out in self.checks:
            value = row[i]
            if value is not None and (ids is None or value not in ids):
                return name, _outside(value)
        for i, name in self.own:
            if row[i] is not None and row[i] not in pks:
                self.pending.setdefault(row[i], (line, name))
        return None

    def unresolved(self, pks: set[Any]) -> Iterator[tuple[int, str, str]]:
        """(line, column, message) of each link into the table to a row it does not hold."""
        for value, (line, name) in self.pending.items():
            if value not in pks:
                yield line, name, _outside(value)


def _outside(value: Any) -> str:
    return _("points to row %(id)s, which this archive does not restore: a restored row may point only to rows of its own archive") % {
        "id": value
    }


def _restore_table(
    reader: ArchiveReader,
    member: _Member,
    user_ids: dict[str, int],
    restored: _Restored,
    pointed_to: set[str],
    progress: Progress | None,
) -> int:
    """Restore one member's rows (every line checked; nothing written of a table with a bad line); the number restored."""
    table = _TableRestore(reader, member, user_ids, restored)
    if progress:
        progress(member.table.what, 0, member.rows)
    for line, record, size in _archive_records(reader.lines(member.name), table.errors):
        if len(table.errors.errors) > MAX_REPORTED_ERRORS:
            break
        row = table.decode(line, record)
        if row is not None and table.accept(row, line, size) and progress and table.done % 1000 == 0:
            progress(member.table.what, table.done, member.rows)
    table.finish()
    if member.table.keep_pk and member.table.model._meta.label in pointed_to:
        restored.ids[member.table.model._meta.label] = table.pks
    if progress:
        progress(member.table.what, table.done, member.rows)
    return table.done


class _TableRestore:
    """One table being restored: its lines decoded into rows, checked, and inserted in batches."""

    def __init__(self, reader: ArchiveReader, member: _Member, user_ids: dict[str, int], restored: _Restored) -> None:
        table = self.table = member.table
        self.columns = columns = table.columns()
        self.by_name = {f.attname: f for f in columns}
        place = {f.attname: i for i, f in enumerate(columns)}
        self.decoders = [_import_decoder(f, user_ids) for f in columns]
        # A column the archive does not name (written before the column existed) takes its default.
        self.defaults = {f.attname: _as_json(f, f.get_default()) for f in columns if f.has_default()}
        # A copied column the archive does not name is read from the row its link points to (restored before).
        self.copied = {column: (link, source) for column, link, source in table.copied}
        self.copies: dict[str, dict[Any, Any]] = {}
        self.held_index = place.get(table.held_back.column) if table.held_back is not None else None
        self.held_ids = restored.held_back.setdefault(table.label, [])
        self.pk_index = next((i for i, f in enumerate(columns) if f.primary_key), None)
        self.person_index = place.get(table.person) if table.person else None
        self.restored = restored
        self.left_out = restored.left_out.setdefault(table.model._meta.label, set())
        self.links = _Links.of(table, columns, restored)
        self.pks: set[Any] = set()
        self.errors = ErrorCollector(f"{reader.name}/{member.name}")
        self.insert = _inserter(table.model, columns)
        self.batch: list[Row] = []
        self.batch_bytes = 0
        self.done = 0
        # Restoring into an empty installation is the rule: look for clashing ids only where there are rows.
        self.occupied = self.pk_index is not None and table.model._default_manager.exists()

    def decode(self, line: int, record: dict[str, Any]) -> list[Any] | None:
        """The line's row, each value decoded for its column; None after recording the line's problem."""
        unknown = next((k for k in record if k not in self.by_name), None)
        if unknown is not None:
            self.errors.add(line, unknown, _("%(model)s has no such field") % {"model": self.table.label})
            return None
        row: list[Any] = []
        for f, decode in zip(self.columns, self.decoders):
            try:
                row.append(decode(self._value(f, record)))
            except _Reject as exc:
                self.errors.add(line, f.attname, str(exc))
                return None
        return row

    def _value(self, f: models.Field[Any, Any], record: dict[str, Any]) -> Any:
        """The archive's value of the column, else its default, else null when it may be null.

        A copied column is never taken on the archive's word: it is read from the row its link points
        to, and an archive that says otherwise is refused (a crafted line cannot file an assignment
        under another campaign than its response's).
        """
        if f.attname in self.copied and (found := self._copied(f.attname, record)) is not None:
            given = record.get(f.attname, found)
            if given != found:
                link = self.copied[f.attname][0]
                raise _Reject(
                    _("%(value)r is not %(expected)r, the value of the row %(link)s points to")
                    % {"value": given, "expected": found, "link": link}
                )
            return found
        if f.attname in record:
            return record[f.attname]
        if f.attname in self.defaults:
            return self.defaults[f.attname]
        if f.null:
            return None
        raise _Reject(_("missing"))

    def _copied(self, column: str, record: dict[str, Any]) -> Any:
        """The copied column's value, from the row the record's link points to (every restored row of it read once)."""
        link, source = self.copied[column]
        linked = self.by_name[link].related_model
        assert isinstance(linked, type)
        pk = record.get(link)
        known = self.copies.get(column)
        if known is None:
            restored = sorted(self.restored.ids.get(linked._meta.label, set()))
            known = self.copies[column] = {}
            for start in range(0, len(restored), 10000):
                batch = restored[start : start + 10000]
                known.update(linked._default_manager.filter(pk__in=batch).values_list("pk", source))
        if pk not in known:
            known.update(linked._default_manager.filter(pk=pk).values_list("pk", source))
        return known.get(pk)

    def accept(self, row: list[Any], line: int, size: int) -> bool:
        """Take a decoded row into the batch unless it is left out or links outside the archive; True when it was taken."""
        pk = row[self.pk_index] if self.pk_index is not None else None
        if self._left_out(row):
            if self.pk_index is not None:
                self.left_out.add(pk)
            return False
        if self.pk_index is not None:
            self.pks.add(pk)
        problem = self.links.problem(tuple(row), self.pks, line)
        if problem is not None:
            self.errors.add(line, *problem)
            return False
        self._hold_back(row, pk)
        self.batch.append(tuple(row))
        self.batch_bytes += size
        self.done += 1
        if len(self.batch) >= BATCH or self.batch_bytes >= BATCH_BYTES:
            self.flush()
        return True

    def _left_out(self, row: list[Any]) -> bool:
        """A mapped person's row, or one pointing to a row left out, is not restored."""
        return (self.person_index is not None and row[self.person_index] in self.restored.mapped) or self.links.leave_out(tuple(row))

    def _hold_back(self, row: list[Any], pk: Any) -> None:
        """A held-back value is written as its stand-in for now (the restore sets it once every table is in)."""
        held = self.table.held_back
        if held is not None and self.held_index is not None and self.pk_index is not None and row[self.held_index] == held.value:
            self.held_ids.append(pk)
            row[self.held_index] = held.meanwhile

    def flush(self) -> None:
        self.batch_bytes = 0
        if self.errors:  # nothing will be written: keep no rows in memory, only look for more errors
            self.batch.clear()
            return
        if self.occupied and self.pk_index is not None:
            _refuse_taken_ids(self.table, [row[self.pk_index] for row in self.batch])
        self.insert(self.batch)
        self.batch.clear()

    def finish(self) -> None:
        """Name each link into the table that nothing restored, raise every problem found, else write the last batch."""
        for line, name, message in self.links.unresolved(self.pks):
            self.errors.add(line, name, message)
        self.errors.raise_if_any()
        if self.batch:
            self.flush()


def _refuse_taken_ids(table: _Table, pks: list[Any]) -> None:
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
