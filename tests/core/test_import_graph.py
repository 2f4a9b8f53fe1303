"""The apps import downwards only: heartbench_core ← annotation ← rubrics ← validation.

An upward import (the core reaching into annotation, annotation into validation…) would make a
cycle between apps and tie the layers together; string references such as URL includes and
INSTALLED_APPS are not imports and are allowed.
"""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LAYERS = {"heartbench_core": 0, "annotation": 1, "rubrics": 2, "validation": 3}


def _imports(path: Path):
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            yield from ((alias.name, node.lineno) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.module, node.lineno


def test_no_app_imports_an_app_above_it():
    upward = []
    for app, layer in LAYERS.items():
        for path in sorted((ROOT / app).rglob("*.py")):
            for module, line in _imports(path):
                target = module.split(".")[0]
                if LAYERS.get(target, -1) > layer:
                    upward.append(f"{path.relative_to(ROOT)}:{line} imports {module}")
    assert upward == []


def test_the_check_sees_an_upward_import(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("import os\nfrom validation.models import AgreementReport\n", encoding="utf-8")
    assert ("validation.models", 2) in list(_imports(bad))
