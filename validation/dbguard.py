"""Database triggers that keep decisions and records as they were written, on PostgreSQL and SQLite.

The services never rewrite an adjudication, a stored agreement report, a release decision (gate) or
a release policy's history, and a golden label always says where it came from; these triggers make
that hold for any other client too (psql, a script, a bulk `.update()`). Only UPDATE is refused:
rows still go when what they belong to goes (a campaign response's adjudications, a dataset's
policy history), and the foreign keys that protect the rest are unchanged. The updates Django
itself makes are let through: a deleted user's name cleared from a report or a policy change
(`SET_NULL`), and a report's copied agreement figure cleared (its readers then read the JSON).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Guard:
    table: str
    message: str
    refused_when: str  # an SQL condition on OLD and NEW; `{changed}(column)` is "the column changed"


def _any_changed(columns: tuple[str, ...]) -> str:
    return " OR ".join("{changed}(" + c + ")" for c in columns)


REPORT_CONTENT = (
    "campaign_id", "judge", "run_label", "parameters", "inputs", "result", "trigger", "created_at", "duration_ms", "exploratory",
)  # fmt: skip
REPORT_FIGURE = ("agreement_value", "agreement_n", "agreement_reason", "agreement_stored")
POLICY_CHANGE_CONTENT = ("policy_id", "before", "after", "reason", "changed_at")

# A label's hit is what its provenance says: the decision it names, or the experts' votes (strict majority).
LABEL_AGREES_WITH_PROVENANCE = """COALESCE(CASE NEW.provenance
    WHEN 'adjudicated' THEN NEW.hit = (SELECT a.hit FROM validation_adjudication a WHERE a.id = NEW.adjudication_id)
    WHEN 'unanimous' THEN NEW.expert_ratings > 0
        AND ((NEW.hit AND NEW.expert_hits = NEW.expert_ratings) OR (NOT NEW.hit AND NEW.expert_hits = 0))
    WHEN 'majority' THEN NEW.expert_hits > 0 AND NEW.expert_hits < NEW.expert_ratings
        AND 2 * NEW.expert_hits <> NEW.expert_ratings AND NEW.hit = (2 * NEW.expert_hits > NEW.expert_ratings)
    ELSE FALSE END, FALSE)"""

GUARDS = (
    Guard("validation_adjudication", "adjudications are append-only: UPDATE refused (record a new decision)", "TRUE"),
    Guard(
        "validation_agreementreport",
        "agreement reports are immutable: UPDATE refused (compute a new one)",
        f"{_any_changed(REPORT_CONTENT)} OR ({{changed}}(requested_by_id) AND NEW.requested_by_id IS NOT NULL)"
        f" OR (({_any_changed(REPORT_FIGURE)}) AND NEW.agreement_stored)",
    ),
    Guard("validation_releasegate", "release decisions are immutable: UPDATE refused", "TRUE"),
    Guard(
        "validation_releasepolicychange",
        "the release policy's history is append-only: UPDATE refused",
        f"{_any_changed(POLICY_CHANGE_CONTENT)} OR ({{changed}}(changed_by_id) AND NEW.changed_by_id IS NOT NULL)",
    ),
    Guard(
        "validation_goldenlabel",
        "a golden label must agree with its provenance (its decision, or the experts' votes): UPDATE refused",
        f"NOT {LABEL_AGREES_WITH_PROVENANCE}",
    ),
)


def trigger_name(table: str) -> str:
    return f"{table}_guard"


def _condition(guard: Guard, vendor: str) -> str:
    operator = "IS DISTINCT FROM" if vendor == "postgresql" else "IS NOT"
    condition = guard.refused_when
    while "{changed}(" in condition:
        start = condition.index("{changed}(")
        end = condition.index(")", start)
        column = condition[start + len("{changed}(") : end]
        condition = f'{condition[:start]}OLD."{column}" {operator} NEW."{column}"{condition[end + 1 :]}'
    return condition


def create_statements(vendor: str) -> list[str]:
    """The statements that install every guard on this database (none on another vendor)."""
    statements: list[str] = []
    for guard in GUARDS:
        name, condition = trigger_name(guard.table), _condition(guard, vendor)
        message = guard.message.replace("'", "''")
        if vendor == "postgresql":
            statements += [
                f"""CREATE OR REPLACE FUNCTION {name}() RETURNS trigger AS $$
                    BEGIN
                      IF {condition} THEN
                        RAISE EXCEPTION '{message}' USING ERRCODE = 'integrity_constraint_violation';
                      END IF;
                      RETURN NEW;
                    END; $$ LANGUAGE plpgsql""",
                f"CREATE TRIGGER {name} BEFORE UPDATE ON {guard.table} FOR EACH ROW EXECUTE FUNCTION {name}()",
            ]
        elif vendor == "sqlite":
            statements.append(
                f"""CREATE TRIGGER {name} BEFORE UPDATE ON {guard.table} FOR EACH ROW WHEN {condition}
                    BEGIN SELECT RAISE(ABORT, '{message}'); END"""
            )
    return statements


def drop_statements(vendor: str) -> list[str]:
    statements: list[str] = []
    for guard in GUARDS:
        name = trigger_name(guard.table)
        if vendor == "postgresql":
            statements += [f"DROP TRIGGER IF EXISTS {name} ON {guard.table}", f"DROP FUNCTION IF EXISTS {name}()"]
        elif vendor == "sqlite":
            statements.append(f"DROP TRIGGER IF EXISTS {name}")
    return statements
