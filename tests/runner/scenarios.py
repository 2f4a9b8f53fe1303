"""Fake-judge behaviours keyed by question: each question of the demo gets its own kind of answer."""

import json

from heartbench_core.models import Item
from tests.fake_openai import Reply, alternating, criteria_count, platform_answer, released_answer, user_text


def snippets(version) -> dict[str, str]:
    """A piece of each item's dialogue, unique to it, to tell which question a prompt is about."""
    return {i.question_id: i.dialogue[0]["content"][:40] for i in Item.objects.filter(version=version)}


def by_question(version, plans: dict, default=None):
    """A behaviour answering each question by its plan: a list of Reply makers, one per attempt (the last one repeats)."""
    marks = snippets(version)

    def behave(body, attempt):
        text = user_text(body)
        qid = next((q for q, m in marks.items() if m in text), None)
        n = criteria_count(body)
        plan = plans.get(qid) or default or [lambda n: Reply(platform_answer(alternating(n)))]
        return plan[min(attempt, len(plan) - 1)](n)

    return behave


def well_formed(n):
    return Reply(platform_answer(alternating(n), [f"第{i + 1}项的理由" for i in range(n)]))


def fenced(n):
    return Reply("好的，评估如下：\n```json\n" + platform_answer(alternating(n)) + "\n```\n")


def python_literal(n):
    return Reply(str({"criteria": [{"index": i + 1, "reason": f"理由'{i + 1}'", "hit": h} for i, h in enumerate(alternating(n))]}))


def prose_wrapped_released(n):
    return Reply("综合来看，" + released_answer(alternating(n), "整体上回应了情绪") + " 以上是我的判断。")


def truncated(n):
    full = platform_answer(alternating(n))
    return Reply(full[: len(full) // 2], finish_reason="length")


def wrong_length(n):
    return Reply(platform_answer(alternating(n + 1)))


def server_error(n):
    return Reply(status=500)


def rate_limited(n):
    return Reply(status=429, headers={"Retry-After": "0.3"})


def too_slow(n):
    return Reply(platform_answer(alternating(n)), delay=1.5)


def echo(secret):
    """An endpoint that echoes a secret in its error body (a misconfigured proxy)."""
    return lambda n: Reply(status=401, body=json.dumps({"error": {"message": f"invalid key {secret}"}}))
