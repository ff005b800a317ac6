"""The generator is built in stages, one subpackage each, and a stage imports only from the stages
before it (or from itself): a change to the site cannot break `verify`, and a reader can follow
the pipeline from the bottom up. The command line sits on top."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "generator"
# bottom to top; `errors` is the exception root every stage raises from
STAGES = ["errors", "map", "source", "citations", "probes", "extensions", "release", "site", "top"]


def stage_of(module: str) -> str:
    """'generator.site.pages.views' -> 'site'; the modules at the package's top are the command line's."""
    parts = module.split(".")
    if len(parts) == 1:
        return "top"
    if parts[1] == "errors":
        return "errors"
    return parts[1] if parts[1] in STAGES else "top"


def imports_of(path: Path) -> list[tuple[int, str]]:
    """Every module of the package that ``path`` imports, with the line, as absolute names."""
    module = ".".join(("generator",) + path.relative_to(PACKAGE).with_suffix("").parts)
    package = module.split(".")[:-1] if path.name != "__init__.py" else module.split(".")[:-1]
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
                if node.module is None:
                    found += [(node.lineno, f"{target}.{alias.name}") for alias in node.names]
                    continue
            else:
                target = node.module or ""
            if target == "generator" or target.startswith("generator."):
                found.append((node.lineno, target))
        elif isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names if alias.name.startswith("generator.")]
    return found


MODULES = sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_a_stage_imports_only_from_the_stages_below_it(path: Path) -> None:
    own = stage_of(".".join(("generator",) + path.relative_to(PACKAGE).with_suffix("").parts))
    upward = [f"{path.relative_to(PACKAGE.parent)}:{line}: imports {target} ({stage_of(target)} is above {own})"
              for line, target in imports_of(path)
              if target != "generator" and STAGES.index(stage_of(target)) > STAGES.index(own)]
    assert not upward, "\n".join(upward)


def test_every_module_belongs_to_a_stage_or_the_command_line() -> None:
    top = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert top == ["__init__.py", "__main__.py", "cli.py", "errors.py", "scaffold.py"]
    assert {p.name for p in PACKAGE.iterdir() if p.is_dir() and p.name != "__pycache__"} == set(STAGES) - {"errors", "top"}


def test_the_stage_check_sees_an_upward_import(tmp_path: Path) -> None:
    """The check itself: a map module that imported the site would be reported."""
    assert STAGES.index(stage_of("generator.site.render")) > STAGES.index(stage_of("generator.map.load"))
    assert ("generator.site.prose" in [t for _, t in imports_of(PACKAGE / "site" / "render.py")])
