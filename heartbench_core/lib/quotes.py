"""Whether one text quotes another: a run of characters they share, and fingerprints that find it among many texts.

Terms:

- the **quote form** of a text is its compatibility form (full-width ， and half-width , alike), in
  lower case, with every whitespace character removed: Chinese has no spaces, and a quote that
  crosses a line break or loses a space is still a quote;
- two texts **share a run** of n characters when their quote forms have n consecutive characters
  in common;
- the **fingerprints** of a text are the smallest hash of every `RUN - GRAM + 1` consecutive
  `GRAM`-character grams of its quote form (winnowing, Schleimer, Wilkerson and Aiken 2003). Two
  texts that share a run of `RUN` characters share the grams of that run, in the same order, so
  they share that window's smallest hash: at least one fingerprint. The converse does not hold
  (different grams can hash alike, different runs can have the same smallest gram), so a shared
  fingerprint only makes a *candidate*, which `shared_run` confirms.

A text keeps about 2 / (RUN - GRAM + 2) of its grams as fingerprints: ~140 for a response of
1,000 characters. A gram's hash is a polynomial of its code points (modulo 2**64), mixed, in 31
bits: the same in every process and on every machine. NumPy computes a text's in one pass.
"""

from __future__ import annotations

import re
import unicodedata

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

# A library text may not share a run this long with a response of an open campaign. Twenty Chinese
# characters are a clause or a short sentence: long enough that two texts written apart rarely
# share one by chance, short enough to catch a quoted sentence.
RUN = 20
# Characters hashed together; a run of RUN characters holds RUN - GRAM + 1 grams.
GRAM = 8
_WHITESPACE = re.compile(r"\s+")
_BASE = np.uint64(1_000_003)
_MIX = np.uint64(0x9E3779B97F4A7C15)  # Fibonacci hashing: the high bits of the product depend on every bit of the polynomial


def quote_form(text: str) -> str:
    """The text as quotes are compared: compatibility form, lower case, no whitespace."""
    return _WHITESPACE.sub("", unicodedata.normalize("NFKC", text).lower())


def _gram_hashes(form: str, gram: int) -> np.ndarray:
    """The hash of each run of `gram` characters of the text, in order (31 bits each)."""
    points = np.frombuffer(form.encode("utf-32-le"), dtype="<u4").astype(np.uint64)
    count = len(points) - gram + 1
    hashes = np.zeros(count, dtype=np.uint64)
    for offset in range(gram):
        hashes = hashes * _BASE + points[offset : offset + count]
    return (hashes * _MIX) >> np.uint64(33)


def fingerprints(text: str, *, run: int = RUN, gram: int = GRAM) -> set[int]:
    """The text's fingerprints (module docstring): any text sharing a run of `run` characters with it shares one."""
    form = quote_form(text)
    if len(form) < run:
        return set()
    smallest = sliding_window_view(_gram_hashes(form, gram), run - gram + 1).min(axis=1)
    return {int(value) for value in np.unique(smallest)}


def shared_run(text: str, source: str, *, run: int = RUN) -> str | None:
    """The first run of `run` characters (in quote form) of `text` that `source` also holds, or None."""
    a, b = quote_form(text), quote_form(source)
    if len(a) < run or len(b) < run:
        return None
    seen = {b[i : i + run] for i in range(len(b) - run + 1)}
    return next((a[i : i + run] for i in range(len(a) - run + 1) if a[i : i + run] in seen), None)
