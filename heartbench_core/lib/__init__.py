"""The platform's pure computation, in one home: no Django, no ORM, nothing from the apps.

scoring (HeartBench scores), agreement (agreement statistics, majority rule, bootstrap),
report (the agreement report from a campaign's arrays), rubric_quality (a criterion's signals
from plain rows), taxonomy, jsonl (reading JSON Lines input), textdiff, judge_prompt / judge_answer
(the messages sent to a chat endpoint, and reading a judge's answer), and prompt_injection (signs that
a response tries to instruct its judge). Each takes arrays,
rows or text and returns numbers or typed results; tests/lib holds one mirror test module each.
"""
