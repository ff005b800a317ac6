"""The demo site of the site tests, built inline under one temporary folder:

- ``upstream/``: a git repository holding ``site_fixtures/upstream-0.8.0`` as tag ``v0.8.0``, then
  ``site_fixtures/upstream`` as tag ``v1.0.0``;
- ``decisions/demo/``: the fixture entries, with a ``map.yaml`` pinned to that repository (file://)
  at 1.0.0, and the edition of its bump from 0.8.0 (``editions/0.8.0-to-1.0.0.yaml``): D2
  unchanged, D1 moved, P1 changed (a problem: its status needs a re-check), G1 re-written (one
  citation changed, one moved, one whose file is gone);
- ``site_src/``: the hand-written pages (an extension page with its ``{{ overlay }}`` line);
- ``mkdocs.yml``: the project's own configuration, pointed at the two folders above.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

import git
import yaml
from mkdocs.utils.yaml import yaml_load

FIXTURES = Path(__file__).resolve().parent
ROOT = FIXTURES.parent.parent
URL_PLACEHOLDER = "file:///UPSTREAM"  # what the golden pages show for the temporary repository
DEMO_SITE_URL = "http://127.0.0.1/demo-site/"  # published under a sub-path, as a project site often is

MAP_YAML = """\
title: How demo decides
repo: https://github.com/example/demo
version: "1.0.0"
source:
  git:
    url: {url}
    ref: "v{{version}}"
summary: >-
  In the demo, code runs tool calls without asking, and the *model* decides when the work is done.
groups:
  - id: D
    title: Permission
    about: What runs without asking you.
  - id: G
    title: Ending a run
sections:
  - title: What it does without asking you
    ids: [D1, D2]
  - title: How it decides it is done
    ids: [G1]
"""


@dataclass(frozen=True)
class DemoSite:
    root: Path
    decisions: Path  # the decisions/ folder (one map: demo)
    pages: Path  # the hand-written pages (docs_dir)
    config: Path  # mkdocs.yml
    upstream: Path  # the git repository's working tree
    url: str  # its file:// URL, as map.yaml names it

    @property
    def map_folder(self) -> Path:
        return self.decisions / "demo"


def make_demo_site(root: Path) -> DemoSite:
    """Build the demo site's inputs under ``root`` (which must not hold them yet)."""
    upstream = root / "upstream"
    actor = git.Actor("test", "test@localhost")
    shutil.copytree(FIXTURES / "upstream-0.8.0", upstream)
    repo = git.Repo.init(upstream)
    repo.git.add("--all")
    repo.create_tag("v0.8.0", ref=repo.index.commit("demo 0.8.0", author=actor, committer=actor))
    shutil.rmtree(upstream / "src")
    shutil.copytree(FIXTURES / "upstream", upstream, dirs_exist_ok=True)
    repo.git.add("--all")
    repo.create_tag("v1.0.0", ref=repo.index.commit("demo 1.0.0", author=actor, committer=actor))

    decisions = root / "decisions"
    shutil.copytree(FIXTURES / "decisions", decisions)
    url = upstream.as_uri()
    (decisions / "demo" / "map.yaml").write_text(MAP_YAML.format(url=url))

    pages = root / "site_src"
    shutil.copytree(FIXTURES / "site_src", pages)

    with open(ROOT / "mkdocs.yml", encoding="utf-8") as config:
        settings = yaml_load(config)  # MkDocs' own loader: it reads the `!ENV` of site_url
    settings["site_url"] = DEMO_SITE_URL
    settings["docs_dir"] = "site_src"
    settings["site_dir"] = "site"
    settings["site_name"] = "Demo decision map"
    settings["plugins"] = ["search", {"decision-map": {"decisions": "decisions"}}]
    config = root / "mkdocs.yml"
    config.write_text(yaml.safe_dump(settings, sort_keys=False))
    return DemoSite(root, decisions, pages, config, upstream, url)


def replace_in(path: Path, old: str, new: str) -> None:
    """Edit a fixture file in place; fails loudly when ``old`` is not there."""
    text = path.read_text()
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, 1))


def tag_version(upstream: Path, version: str, path: str, change) -> None:
    """Commit ``change(text)`` of one file of the upstream repository as tag ``v{version}``."""
    file = upstream / path
    file.write_text(change(file.read_text()))
    repo = git.Repo(upstream)
    repo.git.add("--all")
    actor = git.Actor("test", "test@localhost")
    repo.create_tag(f"v{version}", ref=repo.index.commit(f"demo {version}", author=actor, committer=actor))
