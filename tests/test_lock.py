"""Every pinned release's Requires-Python admits the lowest Python that pyproject.toml admits
(">=3.11": 3.11.0), and the venv holds the lock. CI installs the lock on setup-python's newest
3.11, while `make setup` on Debian 12 takes the system's 3.11.2: a pin that asks for a newer patch
(pymdown-extensions 13 asks for >= 3.11.5) would pass CI and stop setup there. Read from the
installed distributions' metadata, so no network. (Wheel tags and glibc are not checked here.)"""

from __future__ import annotations

import tomllib
from importlib import metadata

from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.version import Version

from conftest import ROOT


def pins() -> dict[str, Version]:
    """requirements.lock's pins (each line `name==version`): name -> version."""
    found = {}
    for line in (ROOT / "requirements.lock").read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            pin = Requirement(line)
            exact = [s.version for s in pin.specifier if s.operator == "=="]
            assert len(exact) == 1, f"requirements.lock: '{line}' is not one exact pin (name==version)"
            found[pin.name] = Version(exact[0])
    return found


def lowest_python(requires_python: str) -> Version:
    """The lowest Python that a requires-python such as ">=3.11" admits (3.11.0)."""
    floors = [Version(s.version.removesuffix(".*")) for s in SpecifierSet(requires_python)
              if s.operator in (">=", "==", "~=")]
    assert floors, f"requires-python ({requires_python}) names no lowest version"
    return max(floors)


def refusing(requires: dict[str, str | None], python: Version) -> list[str]:
    """The pins whose Requires-Python does not admit ``python``, each with what it asks for."""
    return [f"{name} asks for Python {asked}" for name, asked in sorted(requires.items(), key=lambda i: i[0].lower())
            if asked is not None and not SpecifierSet(asked).contains(python, prereleases=True)]


def spelled(version: Version) -> str:
    return f"{version.major}.{version.minor}.{version.micro}"  # 3.11.0, not 3.11: one release, not the series


def test_the_venv_holds_the_lock() -> None:
    stale = []
    for name, version in pins().items():
        try:
            installed = Version(metadata.version(name))
        except metadata.PackageNotFoundError:
            installed = None
        if installed != version:
            stale.append(f"{name}: the lock pins {version}, the venv has {installed or 'nothing'}")
    assert stale == [], ("the venv is not the lock's: run `make setup` (`make clean setup` if the venv was "
                         "changed by hand):\n" + "\n".join(stale))


def test_every_pin_admits_the_lowest_python_pyproject_admits() -> None:
    requires_python = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["requires-python"]
    python = lowest_python(requires_python)
    refused = refusing({name: metadata.metadata(name).get("Requires-Python") for name in pins()}, python)
    assert refused == [], (
        f"pyproject.toml admits Python {spelled(python)} (Debian 12 has 3.11.2, which `make setup` takes there), "
        "but these pins do not: pin a release that does, or raise requires-python, giving up those "
        "Pythons:\n" + "\n".join(refused))


def test_a_pin_asking_for_a_newer_patch_is_named() -> None:
    # pymdown-extensions 13.1's own Requires-Python, against Debian 12's Python
    requires = {"pymdown-extensions": ">=3.11.5", "Jinja2": ">=3.7", "paginate": None}
    assert refusing(requires, Version("3.11.2")) == ["pymdown-extensions asks for Python >=3.11.5"]
    assert refusing(requires, Version("3.11.5")) == []


def test_the_lowest_python_a_requires_python_admits() -> None:
    assert spelled(lowest_python(">=3.11")) == "3.11.0"
    assert lowest_python(">=3.11,<4") == Version("3.11.0")
    assert lowest_python("~=3.11.2") == Version("3.11.2")
    assert lowest_python("==3.11.*") == Version("3.11.0")
