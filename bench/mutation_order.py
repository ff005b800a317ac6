"""A pytest plugin for mutation runs (tests/conftest.py registers it): each mutant's tests, fastest first.

mutmut runs a mutant's tests with `-x`, so the mutant is killed by the first test that fails; in
collection order that is often one of the slow ones, after every fast one has passed. Here the
tests run in order of the time each took in mutmut's first, clean run: the modules from the
quickest to the slowest in all (a module-scoped fixture is set up once, as before), and within a
module the quickest test first. Outside a mutant's run (no MUTANT_UNDER_TEST) nothing changes.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

STATS = Path("mutmut-stats.json")  # mutmut runs the tests in its mutants/ folder, where it keeps this file


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    if not os.environ.get("MUTANT_UNDER_TEST") or not STATS.is_file():
        return
    seconds = json.loads(STATS.read_text()).get("duration_by_test", {})
    modules: dict[str, list[pytest.Item]] = {}
    for item in items:
        modules.setdefault(item.nodeid.split("::", 1)[0], []).append(item)
    for module in modules.values():
        module.sort(key=lambda item: seconds.get(item.nodeid, 0.0))
    order = sorted(modules.values(), key=lambda module: sum(seconds.get(i.nodeid, 0.0) for i in module))
    items[:] = [item for module in order for item in module]
