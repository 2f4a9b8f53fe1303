"""Quotes: the quote form, shared runs, and fingerprints that never miss a shared run of RUN characters."""

import random

from heartbench_core.lib.quotes import GRAM, RUN, fingerprints, quote_form, shared_run

HAN = "我你他她的了是在有不这那感觉理解辛苦累工作妈妈担心愧疚生气说话一起想想"


def _text(rng: random.Random, n: int) -> str:
    return "".join(rng.choice(HAN) for _ in range(n))


def test_the_quote_form_ignores_width_case_and_whitespace():
    assert quote_form("我能 感觉到，\n你ＡＢ c") == "我能感觉到,你abc"
    assert quote_form("\u3000全角空格") == "全角空格"


def test_a_shared_run_is_found_across_line_breaks_and_widths():
    source = "听起来你既生气又愧疚，这两种感觉同时存在一定很难受。妈妈的担心和你自己的价值，其实是两件事。"
    quoted = "案例：你既生气又愧疚,这两种感觉同时\n存在一定很难受"
    assert shared_run(quoted, source) == "你既生气又愧疚,这两种感觉同时存在一定很"
    assert shared_run("这两种感觉同时存在一定很难受", source) is None  # 14 characters: shorter than a run
    assert shared_run(quoted, source, run=30) is None


def test_texts_sharing_a_run_always_share_a_fingerprint():
    rng = random.Random(7)
    for _ in range(300):
        run = _text(rng, RUN + rng.randrange(0, 5))
        a = _text(rng, rng.randrange(0, 200)) + run + _text(rng, rng.randrange(0, 200))
        b = _text(rng, rng.randrange(0, 400)) + run + _text(rng, rng.randrange(0, 50))
        assert fingerprints(a) & fingerprints(b)
        assert shared_run(a, b) is not None


def test_a_text_keeps_a_small_share_of_its_grams_and_a_short_one_none():
    rng = random.Random(3)
    text = _text(rng, 1000)
    assert 0 < len(fingerprints(text)) < 2.5 * 1000 / (RUN - GRAM + 2)
    assert fingerprints("短短的一句话") == set()
    assert fingerprints(text) == fingerprints(text.replace("我", "我 "))  # whitespace is no part of a text's quote form
