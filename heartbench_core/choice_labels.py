"""The labels of the models' coded choices, in the reader's language, without touching the models.

A model's `TextChoices` labels are plain English strings; making them lazy translations in
`models.py` would be the usual way. Here the schema is fixed for the round, so the labels are
translated at display time instead: `translate_choice_labels()` (called once the models are
loaded, from `HeartbenchCoreConfig.ready`) gives every listed field the same choices, values
unchanged, with the labels below, which are lazy catalogue entries whose English is exactly the
model's. So `get_status_display()`, forms and admin read in the reader's language, the migration
state is unchanged (a lazy label compares equal to its English), and makemessages finds every
label here with a context saying whose it is. tests/core/test_choice_labels_are_translated.py
fails when a model gains a choice this table lacks or the English drifts from the model's.
"""

from __future__ import annotations

from typing import cast

from django.apps import apps
from django.db import models
from django.utils.functional import Promise
from django.utils.translation import pgettext_lazy

# "app_label.Model.field" → {value: label}; the English of each label is the model's own.
CHOICE_LABELS: dict[str, dict[str, Promise]] = {
    "heartbench_core.Item.difficulty": {
        "hard": pgettext_lazy("item difficulty label", "Hard"),
        "normal": pgettext_lazy("item difficulty label", "Normal"),
        "": pgettext_lazy("item difficulty label", "Unspecified"),
    },
    "heartbench_core.EndpointRun.kind": {
        "judge": pgettext_lazy("endpoint run kind", "Judge"),
        "generate": pgettext_lazy("endpoint run kind", "Answer generation"),
    },
    "heartbench_core.EndpointRun.status": {
        "pending": pgettext_lazy("endpoint run status", "Waiting"),
        "running": pgettext_lazy("endpoint run status", "Running"),
        "finished": pgettext_lazy("endpoint run status", "Finished"),
        "cancelled": pgettext_lazy("endpoint run status", "Cancelled"),
        "failed": pgettext_lazy("endpoint run status", "Stopped"),
    },
    "heartbench_core.RunQuestion.status": {
        "pending": pgettext_lazy("question of a run, status", "Remaining"),
        "done": pgettext_lazy("question of a run, status", "Done"),
        "failed": pgettext_lazy("question of a run, status", "Failed"),
    },
    "rubrics.CriterionRevision.change_kind": {
        "addition": pgettext_lazy("criterion revision kind", "Addition"),
        "wording": pgettext_lazy("criterion revision kind", "Wording (same meaning)"),
        "semantic": pgettext_lazy("criterion revision kind", "Semantic (meaning changed)"),
        "retirement": pgettext_lazy("criterion revision kind", "Retirement"),
    },
    "rubrics.CriterionRevision.status": {
        "draft": pgettext_lazy("criterion revision status", "Draft"),
        "submitted": pgettext_lazy("criterion revision status", "Submitted for review"),
        "approved": pgettext_lazy("criterion revision status", "Approved"),
        "rejected": pgettext_lazy("criterion revision status", "Rejected"),
        "superseded": pgettext_lazy("criterion revision status", "Superseded"),
    },
    "rubrics.ReviewDecision.verdict": {
        "approve": pgettext_lazy("review verdict", "Approve"),
        "reject": pgettext_lazy("review verdict", "Reject"),
    },
    "rubrics.AuditEntry.action": {
        "created": pgettext_lazy("audit action", "Created"),
        "edited": pgettext_lazy("audit action", "Edited"),
        "retired": pgettext_lazy("audit action", "Retired"),
        "submitted": pgettext_lazy("audit action", "Submitted"),
        "reviewed": pgettext_lazy("audit action", "Panel decision"),
        "approved": pgettext_lazy("audit action", "Approved"),
        "rejected": pgettext_lazy("audit action", "Rejected"),
        "superseded": pgettext_lazy("audit action", "Superseded"),
        "commented": pgettext_lazy("audit action", "Commented"),
        "published": pgettext_lazy("audit action", "Published"),
        "flagged": pgettext_lazy("audit action", "Flagged"),
        "resolved": pgettext_lazy("audit action", "Resolved"),
    },
    "annotation.ExpertProfile.availability": {
        "active": pgettext_lazy("expert availability", "Active"),
        "paused": pgettext_lazy("expert availability", "Paused"),
        "away": pgettext_lazy("expert availability", "Away"),
    },
    "annotation.Campaign.kind": {
        "blind_test": pgettext_lazy("campaign kind", "Blind test"),
        "calibration": pgettext_lazy("campaign kind", "Calibration"),
        "gold_set": pgettext_lazy("campaign kind", "Gold set"),
    },
    "annotation.Campaign.status": {
        "draft": pgettext_lazy("campaign status", "Draft"),
        "active": pgettext_lazy("campaign status", "Active"),
        "paused": pgettext_lazy("campaign status", "Paused"),
        "closed": pgettext_lazy("campaign status", "Closed"),
    },
    "annotation.Assignment.status": {
        "reserved": pgettext_lazy("assignment status", "Reserved"),
        "submitted": pgettext_lazy("assignment status", "Submitted"),
        "expired": pgettext_lazy("assignment status", "Expired"),
        "released": pgettext_lazy("assignment status", "Released"),
    },
    "annotation.CorrectionRequest.status": {
        "pending": pgettext_lazy("correction request status", "Pending"),
        "applying": pgettext_lazy("correction request status", "Being applied"),
        "accepted": pgettext_lazy("correction request status", "Accepted"),
        "refused": pgettext_lazy("correction request status", "Refused"),
    },
    "annotation.QualityPolicy.paused_work_pay": {
        "full": pgettext_lazy("pay for work submitted while paused", "Paid in full"),
        "none": pgettext_lazy("pay for work submitted while paused", "Not paid"),
        "review": pgettext_lazy("pay for work submitted while paused", "Held for an admin's decision"),
    },
    "annotation.Qualification.source": {
        "calibration": pgettext_lazy("qualification source", "Calibration"),
        "admin": pgettext_lazy("qualification source", "Granted by an admin"),
    },
    "annotation.AdminAlert.kind": {
        "gold_accuracy": pgettext_lazy("admin alert kind", "Low gold accuracy"),
        "calibration_failed": pgettext_lazy("admin alert kind", "Calibration failed"),
        "expert_drift": pgettext_lazy("admin alert kind", "Expert drifting from gold"),
        "criterion_low_alpha": pgettext_lazy("admin alert kind", "Criterion with low agreement"),
        "judge_model": pgettext_lazy("admin alert kind", "Judge disagrees with the experts on a model"),
    },
    "annotation.FaqEntry.status": {
        "draft": pgettext_lazy("FAQ entry status", "Draft"),
        "in_review": pgettext_lazy("FAQ entry status", "In review"),
        "published": pgettext_lazy("FAQ entry status", "Published"),
        "retired": pgettext_lazy("FAQ entry status", "Retired"),
    },
    "annotation.Case.status": {
        "draft": pgettext_lazy("case status", "Draft"),
        "published": pgettext_lazy("case status", "Published"),
        "retired": pgettext_lazy("case status", "Retired"),
    },
    "annotation.Case.source": {
        "adjudication": pgettext_lazy("where a case came from", "Adjudication decision"),
        "discussion": pgettext_lazy("where a case came from", "Experts' discussion"),
        "calibration": pgettext_lazy("where a case came from", "Calibration item"),
        "written": pgettext_lazy("where a case came from", "Written from scratch"),
    },
    "annotation.Case.cause": {
        "ambiguous_criterion": pgettext_lazy("adjudication cause", "Ambiguous criterion"),
        "guideline_gap": pgettext_lazy("adjudication cause", "Guideline gap"),
        "rater_error": pgettext_lazy("adjudication cause", "Rater error"),
        "judge_error": pgettext_lazy("adjudication cause", "Judge error"),
        "other": pgettext_lazy("adjudication cause", "Other"),
    },
    "annotation.Skip.reason": {
        "conflict_of_interest": pgettext_lazy("reason for a skip", "Conflict of interest"),
        "distressing": pgettext_lazy("reason for a skip", "Distressing content"),
        "unreadable": pgettext_lazy("reason for a skip", "Unreadable or broken"),
        "outside_expertise": pgettext_lazy("reason for a skip", "Outside my expertise"),
        "other": pgettext_lazy("reason for a skip", "Other (say why)"),
    },
    "validation.Adjudication.cause": {
        "ambiguous_criterion": pgettext_lazy("adjudication cause", "Ambiguous criterion"),
        "guideline_gap": pgettext_lazy("adjudication cause", "Guideline gap"),
        "rater_error": pgettext_lazy("adjudication cause", "Rater error"),
        "judge_error": pgettext_lazy("adjudication cause", "Judge error"),
        "other": pgettext_lazy("adjudication cause", "Other"),
    },
    "validation.GoldDraft.kind": {
        "gold_set": pgettext_lazy("campaign kind", "Gold set"),
        "calibration": pgettext_lazy("kind of set built from verdicts", "Calibration set"),
    },
    "validation.GoldenLabel.provenance": {
        "unanimous": pgettext_lazy("golden label provenance", "Unanimous"),
        "majority": pgettext_lazy("golden label provenance", "Majority"),
        "adjudicated": pgettext_lazy("golden label provenance", "Adjudicated"),
    },
    "validation.ReleasePolicy.must_clear": {
        "point": pgettext_lazy("release policy: what must clear the threshold", "The point estimate"),
        "lower_bound": pgettext_lazy("release policy: what must clear the threshold", "The lower bound of the 95% CI"),
    },
    "validation.BackgroundJob.kind": {
        "agreement_report": pgettext_lazy("background job kind", "Agreement report"),
        "golden_refresh": pgettext_lazy("background job kind", "Golden-label refresh"),
    },
    "validation.BackgroundJob.status": {
        "pending": pgettext_lazy("background job status", "Pending"),
        "running": pgettext_lazy("background job status", "Running"),
        "done": pgettext_lazy("background job status", "Done"),
        "failed": pgettext_lazy("background job status", "Failed"),
    },
}


# The models' own choices, as declared, before translate_choice_labels() (for the test that they agree).
DECLARED: dict[str, list[tuple[str, str]]] = {}


def translate_choice_labels() -> None:
    """Give each listed field its choices with lazy, translated labels (values and order unchanged)."""
    for key, labels in CHOICE_LABELS.items():
        app_label, model_name, field_name = key.split(".")
        field = apps.get_model(app_label, model_name)._meta.get_field(field_name)
        choices = list(getattr(field, "choices", None) or [])
        DECLARED.setdefault(key, [(str(value), str(label)) for value, label in choices])
        field.choices = [(value, labels.get(value, label)) for value, label in choices]
        # Forms and code that read the enum (`Campaign.Status.choices`, `.label`) get the same labels.
        for enum in _enums_of(field.model, {value for value, _label in choices}):
            for member in enum:
                if member.value in labels:
                    member._label_ = cast("str", labels[member.value])  # what Choices.label returns; lazy, read as a str


def _enums_of(model: type, values: set[str]) -> list[type[models.Choices]]:
    """The Choices classes declared on a model (or its parents) whose values are a field's values."""
    found = []
    for klass in model.__mro__:
        for attribute in vars(klass).values():
            if isinstance(attribute, type) and issubclass(attribute, models.Choices) and {m.value for m in attribute} == values:
                found.append(attribute)
    return found
