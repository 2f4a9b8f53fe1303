"""How a run's figures and a question's problem read to a person (translated): the pages, the API and the commands share it."""

from __future__ import annotations

import contextlib
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from django.utils.translation import gettext as _

from heartbench_core.judging.endpoint_policy import EndpointRefused
from heartbench_core.judging.services import llm
from heartbench_core.judging.services.runs import NOT_STORED
from heartbench_core.lib import judge_answer as ja
from heartbench_core.lib import prompt_injection as pi

if TYPE_CHECKING:
    from heartbench_core.judging.models import EndpointRun
    from heartbench_core.judging.services.runs import Progress

MILLION = Decimal(1_000_000)


def problem_parts(problem: dict[str, Any] | None) -> tuple[str, str]:
    """Why a question failed, in the reader's language, and the endpoint's own words about it ('' when it gave none)."""
    if not problem:
        return "", ""
    code = problem.get("code", "")
    p = {k: v for k, v in problem.items() if k != "code"}
    texts = {
        ja.EMPTY: _("the answer was empty"),
        ja.TRUNCATED: _("the answer was cut off at the endpoint's token limit (raise max tokens)"),
        ja.NO_OBJECT: _("the answer holds no JSON object"),
        ja.UNREADABLE: _("the answer's JSON object cannot be read (incomplete or cut off?)"),
        ja.UNKNOWN_SHAPE: _("the answer has neither a 'criteria' nor a 'detail' list"),
        ja.WRONG_LENGTH: _("the answer gives %(found)s verdicts for %(expected)s criteria"),
        ja.NOT_AN_ENTRY: _("entry %(position)s of 'criteria' is not an object"),
        ja.BAD_INDEX: _("entry %(position)s has index %(found)s instead of %(expected)s"),
        ja.BAD_VALUE: _("verdict %(position)s is %(found)s, not 0 or 1"),
        ja.MISSING_REASON: _("criterion %(position)s has no reason"),
        ja.UNSTORABLE_REASON: _("criterion %(position)s's reason holds a character that cannot be stored (NUL or a lone surrogate)"),
        llm.MISSING_KEY: _("the API key is missing"),
        llm.HTTP_ERROR: _("the endpoint answered with an error"),
        llm.TIMEOUT: _("the endpoint did not answer in time"),
        llm.CONNECTION: _("the endpoint cannot be reached"),
        llm.BAD_REPLY: _("the endpoint's reply cannot be used"),
        "no_response": _("the model has no response to this question"),
        NOT_STORED: _(
            "taken %(attempts)s times without its result being stored (the database refused it, or the process stopped; "
            "the server's log says why)"
        ),
    }
    if code in llm.REFUSED:  # the endpoint's settings break a rule of endpoint_policy: nothing was sent
        with contextlib.suppress(KeyError, TypeError, ValueError):
            return EndpointRefused(str(code), {k: str(v) for k, v in p.items()}).text(), ""
    text = texts.get(code)
    if text is None:
        return str(code), str(p.get("message", ""))
    with contextlib.suppress(KeyError, TypeError, ValueError):
        text = text % p if "%(" in text else text
    return text, str(p.get("message", ""))


def describe_problem(problem: dict[str, Any] | None) -> str:
    """Why a question failed, in one line: the reason in the reader's language, then the endpoint's own words."""
    text, detail = problem_parts(problem)
    return f"{text}: {detail}" if detail else text


def describe_signal(signal: dict[str, Any]) -> str:
    """One sign that a judged response tried to instruct the judge, in the reader's language (the matched text follows)."""
    texts = {
        pi.HEADER: _("writes a section header of the judge's prompt"),
        pi.FENCE: _("writes something shaped like the prompt's data fence"),
        pi.INSTRUCTION: _("addresses the judge with an instruction"),
        pi.ANSWER: _("writes a judge's answer"),
    }
    code = str(signal.get("code", ""))
    return texts.get(code, code)


def estimated_cost(run: EndpointRun, progress: Progress) -> Decimal | None:
    """Tokens in and out at the endpoint's per-million prices when the run was created (None without prices)."""
    if run.price_input is None and run.price_output is None:
        return None
    cost = Decimal(progress.tokens_in) * (run.price_input or 0) / MILLION + Decimal(progress.tokens_out) * (run.price_output or 0) / MILLION
    return cost.quantize(Decimal("0.0001"))


def cost_of(run: EndpointRun, progress: Progress) -> str:
    """The estimated cost as text, e.g. "est. cost 0.1234 USD" ('' without prices)."""
    cost = estimated_cost(run, progress)
    if cost is None:
        return ""
    return _("estimated cost %(cost)s %(currency)s") % {"cost": cost, "currency": run.currency}


def describe_selection(selection: dict[str, Any]) -> list[tuple[str, str]]:
    """How a run's questions were chosen: (what, value) pairs in the reader's language; empty when nothing narrowed them."""
    named = {"difficulty": _("difficulty"), "scene": _("primary scene"), "ability": _("ability")}
    parts = [(label, str(selection[key])) for key, label in named.items() if selection.get(key)]
    if selection.get("changed_since"):
        parts.append((_("criteria changed since judge run"), f"#{selection['changed_since']}"))
    if selection.get("questions"):
        ids = [str(q) for q in selection["questions"]]
        parts.append((_("question ids"), ", ".join(ids[:20]) + ("…" if len(ids) > 20 else "")))
    return parts
