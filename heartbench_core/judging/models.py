"""The judge runner's data: endpoints, judge prompt templates and their revisions, runs of an endpoint and their questions.

Called from the platform: a judge, or a model under test answering (docs/judge-runner.md). The
tables belong to the `heartbench_core` app (`heartbench_core.models` imports this module so Django
registers them).
"""

from __future__ import annotations

from django.db import models
from django.urls import reverse
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from heartbench_core.models import DatasetVersion, Item, JudgeRun, LanguageModel, LeasedQuerySet, ModelResponse, User


class Endpoint(models.Model):
    """A named OpenAI-compatible chat-completions service: a judge, or a model under test.

    The API key is never stored: only the name of the environment variable that holds it, read
    at each call (docs/judge-runner.md).
    """

    name = models.CharField(max_length=100, unique=True, verbose_name=_("name"))
    base_url = models.URLField(max_length=500, verbose_name=_("base URL"), help_text=_("e.g. https://api.example.com/v1"))
    model = models.CharField(
        max_length=200, verbose_name=_("model"), help_text=_("The model name sent with each request; a judge's runs are named after it.")
    )
    api_key_env = models.CharField(
        max_length=100,
        blank=True,
        verbose_name=_("API key variable"),
        help_text=_("Name of the environment variable holding the API key (the key itself is never stored); blank: no key."),
    )
    temperature = models.FloatField(default=0.0, verbose_name=_("temperature"))
    max_tokens = models.PositiveIntegerField(default=4096, verbose_name=_("max tokens"))
    concurrency = models.PositiveSmallIntegerField(default=4, verbose_name=_("concurrency"), help_text=_("Requests in flight at once."))
    requests_per_minute = models.PositiveIntegerField(
        null=True, blank=True, verbose_name=_("requests per minute"), help_text=_("Blank: no limit.")
    )
    max_retries = models.PositiveSmallIntegerField(
        default=3,
        verbose_name=_("retries"),
        help_text=_("Retries of a failed request (HTTP 429 and 5xx, timeouts) and of an unusable answer (with a repair prompt)."),
    )
    backoff_seconds = models.FloatField(
        default=2.0, verbose_name=_("backoff (seconds)"), help_text=_("Wait before the first retry; it doubles with each retry.")
    )
    timeout_seconds = models.FloatField(default=120.0, verbose_name=_("timeout (seconds)"))
    price_input = models.DecimalField(
        max_digits=12, decimal_places=6, null=True, blank=True, verbose_name=_("price per million input tokens")
    )
    price_output = models.DecimalField(
        max_digits=12, decimal_places=6, null=True, blank=True, verbose_name=_("price per million output tokens")
    )
    currency = models.CharField(max_length=8, blank=True, default="USD", verbose_name=_("currency"))
    note = models.TextField(blank=True, verbose_name=_("note"))
    created_by = models.ForeignKey(User, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]
        constraints = [
            models.CheckConstraint(condition=models.Q(temperature__gte=0, temperature__lte=2), name="endpoint_temperature_range"),
            models.CheckConstraint(condition=models.Q(max_tokens__gte=1), name="endpoint_max_tokens_positive"),
            models.CheckConstraint(condition=models.Q(concurrency__gte=1, concurrency__lte=64), name="endpoint_concurrency_range"),
            models.CheckConstraint(condition=models.Q(max_retries__lte=10), name="endpoint_retries_at_most_10"),
            models.CheckConstraint(condition=models.Q(timeout_seconds__gt=0), name="endpoint_timeout_positive"),
            models.CheckConstraint(condition=models.Q(backoff_seconds__gte=0), name="endpoint_backoff_not_negative"),
            models.CheckConstraint(
                condition=models.Q(requests_per_minute__isnull=True) | models.Q(requests_per_minute__gte=1), name="endpoint_rpm_positive"
            ),
        ]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("judging:endpoint", args=[self.name])


class JudgeTemplate(models.Model):
    """A judge prompt template; its wording lives in immutable, numbered revisions."""

    name = models.CharField(max_length=100, unique=True, verbose_name=_("name"))
    description = models.TextField(blank=True, verbose_name=_("description"))
    created_by = models.ForeignKey(User, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("judging:template", args=[self.name])


class JudgeTemplateRevision(models.Model):
    """One wording of a template: written once, never changed (a change is a new revision with a note)."""

    template = models.ForeignKey(JudgeTemplate, on_delete=models.CASCADE, related_name="revisions")
    revision = models.PositiveIntegerField()
    system = models.TextField(blank=True, help_text="The system message ($placeholders allowed).")
    user = models.TextField(help_text="The user message: $dialogue, $response, $criteria and $count.")
    change_note = models.TextField(help_text="What changed, and why.")
    created_by = models.ForeignKey(User, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["template", "-revision"]
        constraints = [models.UniqueConstraint(fields=["template", "revision"], name="uniq_template_revision")]

    def __str__(self) -> str:
        return f"{self.template.name} r{self.revision}"


class EndpointRunQuerySet(LeasedQuerySet["EndpointRun"]):
    pass


class EndpointRun(models.Model):
    """A run of an endpoint over questions of a dataset version: judging a model's responses, or generating its answers.

    Durable like a background job (docs/judge-runner.md): the run and each of its questions are
    rows; a worker holds the run under a lease and commits each question as it is done, so a killed
    worker, a restart or a rerun continues where it stopped, judging no question twice.
    """

    class Kind(models.TextChoices):
        JUDGE = "judge", pgettext_lazy("endpoint run kind", "Judge")
        GENERATE = "generate", pgettext_lazy("endpoint run kind", "Answer generation")

    class Status(models.TextChoices):
        PENDING = "pending", pgettext_lazy("endpoint run status", "Waiting")
        RUNNING = "running", pgettext_lazy("endpoint run status", "Running")
        FINISHED = "finished", pgettext_lazy("endpoint run status", "Finished")
        CANCELLED = "cancelled", pgettext_lazy("endpoint run status", "Cancelled")
        FAILED = "failed", pgettext_lazy("endpoint run status", "Stopped")

    kind = models.CharField(max_length=10, choices=Kind.choices)
    version = models.ForeignKey(DatasetVersion, on_delete=models.PROTECT, related_name="endpoint_runs")
    model = models.ForeignKey(
        LanguageModel, on_delete=models.PROTECT, related_name="endpoint_runs", help_text="The model under test (judged, or answering)."
    )
    endpoint = models.ForeignKey(Endpoint, on_delete=models.PROTECT, related_name="runs")
    judge_run = models.OneToOneField(JudgeRun, null=True, blank=True, on_delete=models.PROTECT, related_name="endpoint_run")
    template_revision = models.ForeignKey(JudgeTemplateRevision, null=True, blank=True, on_delete=models.PROTECT, related_name="runs")
    selection = models.JSONField(default=dict, blank=True, help_text="How the questions were chosen.")
    price_input = models.DecimalField(max_digits=12, decimal_places=6, null=True, blank=True, help_text="The endpoint's, when created.")
    price_output = models.DecimalField(max_digits=12, decimal_places=6, null=True, blank=True)
    currency = models.CharField(max_length=8, blank=True, default="")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    cancel_requested = models.BooleanField(default=False)
    attempts = models.PositiveIntegerField(default=0, help_text="How many times a worker or a command took the run.")
    stalls = models.PositiveSmallIntegerField(default=0, help_text="Takings in a row that ended without finishing a question.")
    last_error = models.TextField(blank=True)
    locked_until = models.DateTimeField(
        null=True, blank=True, help_text="Lease of the process running it; after it, the run is taken again."
    )
    holder = models.CharField(max_length=100, blank=True, help_text="Which process holds the lease (host, pid).")
    enqueued_at = models.DateTimeField(null=True, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    requested_by = models.ForeignKey(User, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    trigger = models.CharField(max_length=20, default="page", help_text="command, page or api.")
    created_at = models.DateTimeField(auto_now_add=True)

    objects = EndpointRunQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["status", "locked_until"])]
        constraints = [
            models.CheckConstraint(
                condition=~models.Q(status="running") | models.Q(locked_until__isnull=False), name="endpoint_run_running_has_lease"
            ),
            models.CheckConstraint(
                condition=models.Q(kind="judge", judge_run__isnull=False, template_revision__isnull=False)
                | models.Q(kind="generate", judge_run__isnull=True, template_revision__isnull=True),
                name="endpoint_run_judge_has_run_and_template",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.kind} run {self.pk} of {self.endpoint_id}"

    def get_absolute_url(self) -> str:
        return reverse("judging:run", args=[self.pk])

    @property
    def is_active(self) -> bool:
        """Waiting or running: work remains and a worker will take it."""
        return self.status in (self.Status.PENDING, self.Status.RUNNING)


# A question whose judged response looked like prompt injection (a signal for admins; lib/prompt_injection.py).
SUSPECTED_INJECTION = models.Q(injection_signals__isnull=False) & ~models.Q(injection_signals=[])


class RunQuestionQuerySet(models.QuerySet["RunQuestion"]):
    def suspected_injection(self) -> RunQuestionQuerySet:
        """Questions whose judged response looked like an attempt to instruct the judge."""
        return self.filter(SUSPECTED_INJECTION)


class RunQuestion(models.Model):
    """One question of a run: its state, what it cost, and every raw answer the endpoint gave."""

    class Status(models.TextChoices):
        PENDING = "pending", pgettext_lazy("question of a run, status", "Remaining")
        DONE = "done", pgettext_lazy("question of a run, status", "Done")
        FAILED = "failed", pgettext_lazy("question of a run, status", "Failed")

    run = models.ForeignKey(EndpointRun, on_delete=models.CASCADE, related_name="questions")
    item = models.ForeignKey(Item, on_delete=models.PROTECT, related_name="+")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    requests = models.PositiveIntegerField(default=0, help_text="Requests sent for it, retries and repairs included.")
    tokens_in = models.PositiveIntegerField(default=0)
    tokens_out = models.PositiveIntegerField(default=0)
    problem = models.JSONField(null=True, blank=True, help_text="Why the last answer was unusable: {code, ...}.")
    error = models.TextField(blank=True, help_text="Why it failed (a request error, or the last answer's problem).")
    outputs = models.JSONField(default=list, blank=True, help_text="Every raw answer, in order: {answer, finish_reason, problem}.")
    response = models.ForeignKey(
        ModelResponse, null=True, blank=True, on_delete=models.SET_NULL, related_name="+", help_text="The answer stored (generation)."
    )
    duration_ms = models.PositiveIntegerField(default=0)
    finished_at = models.DateTimeField(null=True, blank=True)
    injection_signals = models.JSONField(
        null=True,
        blank=True,
        help_text="What in the judged response looked like prompt injection: [{code, text}]; [] nothing; null not looked at.",
    )
    attempts = models.PositiveSmallIntegerField(
        default=0,
        help_text="How often a process took it to ask the endpoint since it was last set to run; at the limit it fails.",
    )

    objects = RunQuestionQuerySet.as_manager()

    class Meta:
        ordering = ["run", "item__position"]
        constraints = [models.UniqueConstraint(fields=["run", "item"], name="uniq_run_question")]
        indexes = [models.Index(fields=["run", "status"])]

    def __str__(self) -> str:
        return f"{self.run_id}/{self.item_id}: {self.status}"
