"""Templates name a date format (`|date:"DATETIME_FORMAT"`) instead of spelling one, so each language reads its own.

A spelled-out format (`|date:"Y-m-d H:i"`) shows the same digits in every language; the named
ones come from heartbench_core/formats/<locale>/formats.py (2026年11月23日 14:05 in Chinese).
Machine formats stay spelled: a date input's value and a `datetime` attribute (ISO), and
timestamps ("U", "c").
"""

import re
from pathlib import Path

from django.conf import settings
from django.utils import formats, translation

TEMPLATES = Path(settings.BASE_DIR) / "templates"
_FILTER = re.compile(r"""\|(?P<filter>date|time):(?P<quote>["'])(?P<format>[^"']*)(?P=quote)""")
_MACHINE_ATTRIBUTE = re.compile(r"""(?:value|datetime|data-[\w-]+)=["']\{\{[^}]*$""")


def spelled_formats() -> list[str]:
    found = []
    for path in sorted(TEMPLATES.rglob("*.html")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            for match in _FILTER.finditer(line):
                name = match.group("format")
                if name.endswith("_FORMAT") or name in ("U", "c"):
                    continue
                if _MACHINE_ATTRIBUTE.search(line[: match.start()]):
                    continue  # ISO for a machine: an input's value, a <time datetime>, a data- attribute
                found.append(f"{path.relative_to(TEMPLATES)}:{number}: |{match.group('filter')}:{match.group(0)[6:]}")
    return found


def test_no_template_spells_out_a_date_format_people_read():
    found = spelled_formats()
    assert not found, "use DATE_FORMAT, DATETIME_FORMAT, SHORT_DATETIME_FORMAT or TIME_FORMAT:\n" + "\n".join(found)


def test_the_named_formats_read_in_each_language():
    with translation.override("zh-hans"):
        assert formats.get_format("DATETIME_FORMAT") == "Y年n月j日 H:i"
        assert formats.get_format("DATE_FORMAT") == "Y年n月j日"
    with translation.override("en"):
        assert formats.get_format("DATETIME_FORMAT") == "Y-m-d H:i"
        assert formats.get_format("SHORT_DATETIME_FORMAT") == "m-d H:i"
