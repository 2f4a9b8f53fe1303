"""The operators' Django admin, blind like every other staff view.

Closed whole to anyone who is an expert of an open campaign (whatever their roles, superusers
too); for everyone else, every admin page that lists or shows rows tied to a model response
(responses, judge verdicts, campaign entries, assignments, judgments, gold and golden labels,
adjudications, …) records those responses as shown to the viewer, so they are never served to
them blind later. The link from a model to its response is found from the models themselves,
so a model added later is covered without naming it here.
"""

from __future__ import annotations

import functools
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from django.contrib import admin
from django.db import models
from django.http import HttpRequest, HttpResponse

from heartbench_core.blindness import blind_scope, record_exposures
from heartbench_core.models import ModelResponse

if TYPE_CHECKING:
    from django.contrib.admin.views.main import ChangeList

MAX_HOPS = 4


@functools.cache
def response_path(model: type[models.Model]) -> str | None:
    """The lookup from `model` to the id of the response its rows are about ("pk", "response_id", "x__response_id"), or None."""
    if model is ModelResponse:
        return "pk"
    queue: deque[tuple[type[models.Model], str, int]] = deque([(model, "", 0)])
    seen = {model}
    while queue:
        current, prefix, hops = queue.popleft()
        for f in current._meta.concrete_fields:
            if not isinstance(f, models.ForeignKey) or not isinstance(f.related_model, type):
                continue
            target = f.related_model
            if target is ModelResponse:
                return f"{prefix}{f.attname}"
            if target not in seen and hops + 1 < MAX_HOPS:
                seen.add(target)
                queue.append((target, f"{prefix}{f.name}__", hops + 1))
    return None


def shown_response_ids(model: type[models.Model], pks: list[Any]) -> list[int]:
    path = response_path(model)
    if path is None or not pks:
        return []
    return [r for r in model._default_manager.filter(pk__in=pks).values_list(path, flat=True) if r is not None]


def _shown_pks(context: dict[str, Any]) -> list[Any]:
    """Primary keys of the rows a changelist page or a change/delete page shows."""
    cl: ChangeList | None = context.get("cl")
    if cl is not None:
        return [obj.pk for obj in cl.result_list]
    original = context.get("original") or context.get("object")
    return [original.pk] if isinstance(original, models.Model) else []


class PlatformAdminSite(admin.AdminSite):
    site_header = "HeartBench"

    def has_permission(self, request: HttpRequest) -> bool:
        # An expert of an open campaign sees no admin page: they would show its responses with their models and verdicts.
        return super().has_permission(request) and not blind_scope(request.user)

    def admin_view(self, view: Any, cacheable: bool = False) -> Any:
        wrapped: Callable[..., HttpResponse] = super().admin_view(view, cacheable)

        @functools.wraps(wrapped)
        def recording(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            response = wrapped(request, *args, **kwargs)
            context = getattr(response, "context_data", None) or {}
            opts = context.get("opts")
            if response.status_code == 200 and opts is not None and getattr(opts, "model", None) is not None:
                ids = shown_response_ids(opts.model, _shown_pks(context))
                record_exposures(user=request.user, response_ids=ids, via=f"admin-{opts.model_name}")
            return response

        return recording
