"""requirements.lock pins every dependency pyproject.toml declares, so a forgotten relock fails here."""

import re
import tomllib
from pathlib import Path

from django.conf import settings
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(settings.BASE_DIR)
PIN = re.compile(r"^(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)==(?P<version>[^\s;\\]+)")


def declared_requirements() -> list[Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    lines = list(project["dependencies"])
    for extra in project.get("optional-dependencies", {}).values():
        lines.extend(extra)
    return [Requirement(line) for line in lines]


def locked_versions() -> dict[str, Version]:
    pins = {}
    for line in (ROOT / "requirements.lock").read_text(encoding="utf-8").splitlines():
        if match := PIN.match(line):
            pins[canonicalize_name(match["name"])] = Version(match["version"])
    return pins


def test_the_lock_is_readable_and_pins_every_package_with_its_hashes():
    text = (ROOT / "requirements.lock").read_text(encoding="utf-8")
    assert len(locked_versions()) > 50
    # scripts/start and scripts/test install it with --require-hashes: every pin needs a hash.
    entries = [entry for entry in re.split(r"\n(?=\S)", text) if PIN.match(entry)]
    unhashed = [entry.split()[0] for entry in entries if "--hash=sha256:" not in entry]
    assert not unhashed, f"requirements.lock pins without a hash: {unhashed}"


def test_every_dependency_of_pyproject_is_locked():
    locked = locked_versions()
    missing = sorted(str(req) for req in declared_requirements() if canonicalize_name(req.name) not in locked)
    assert not missing, f"requirements.lock lacks {missing}: relock as CONTRIBUTING.md, 'Dependencies and the lock file', says"


def test_every_locked_version_satisfies_the_range_pyproject_asks_for():
    locked = locked_versions()
    outside = sorted(
        f"{req} (locked {locked[canonicalize_name(req.name)]})"
        for req in declared_requirements()
        if canonicalize_name(req.name) in locked and not req.specifier.contains(locked[canonicalize_name(req.name)], prereleases=True)
    )
    assert not outside, f"requirements.lock pins versions pyproject.toml excludes: {outside}; relock"
