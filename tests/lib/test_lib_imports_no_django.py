"""Everything in heartbench_core.lib imports without Django and without the apps: pure computation has one Django-free home."""

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import heartbench_core.lib

LIB = Path(heartbench_core.lib.__file__).parent
ROOT = LIB.parent.parent
MODULES = sorted(f"heartbench_core.lib.{p.stem}" for p in LIB.glob("*.py") if p.stem != "__init__")
APPS = ("annotation", "rubrics", "validation")


def test_the_lib_package_holds_the_platform_s_pure_modules():
    expected = {"agreement", "agreement_report", "jsonl", "rubric_quality", "scoring", "taxonomy", "textdiff"}
    assert expected <= {m.rsplit(".", 1)[1] for m in MODULES}


def test_importing_every_lib_module_in_a_clean_interpreter_loads_neither_django_nor_an_app():
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    script = (
        "import importlib, json, sys\n"
        f"for name in {MODULES!r}:\n"
        "    importlib.import_module(name)\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    loaded = json.loads(done.stdout)
    assert all(m in loaded for m in MODULES)
    assert [m for m in loaded if m == "django" or m.startswith("django.")] == []
    assert [m for m in loaded if m.split(".")[0] in APPS] == []
    assert [m for m in loaded if m.startswith("heartbench_core.") and not m.startswith("heartbench_core.lib")] == []


def forbidden_imports(source: str) -> list[tuple[int, str]]:
    """(line, module) of every import of Django, an app, or the core outside lib, at any depth of the source."""
    found = []
    for node in ast.walk(ast.parse(source)):
        names = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
        for name in names:
            top = name.split(".")[0]
            if top == "django" or top in APPS or (top == "heartbench_core" and not name.startswith("heartbench_core.lib")):
                found.append((node.lineno, name))
    return found


def test_no_lib_file_has_a_django_or_app_import_line():
    offending = {
        str(path.relative_to(ROOT)): found
        for path in sorted(LIB.rglob("*.py"))
        if (found := forbidden_imports(path.read_text(encoding="utf-8")))
    }
    assert offending == {}


def test_the_static_check_sees_django_and_app_imports_even_inside_a_function():
    source = (
        "import numpy\n"
        "from heartbench_core.lib import agreement\n"
        "import django\n"
        "def f():\n"
        "    from django.utils.html import escape\n"
        "    from validation.models import GoldenLabel\n"
        "    from heartbench_core.models import Item\n"
    )
    assert forbidden_imports(source) == [(3, "django"), (5, "django.utils.html"), (6, "validation.models"), (7, "heartbench_core.models")]
