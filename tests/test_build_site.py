"""`generator build` (generator/site/build.py) where it can go wrong: a configuration that is missing or
that MkDocs refuses, a build MkDocs aborts, a new site that cannot be put in place. Each time the
error names the cause in one line and the previous site stays exactly as it was, with nothing left
beside it. The ordinary builds are in test_site_build.py; these are cases mutation testing of
generator/site/build.py showed no test pinned."""

from __future__ import annotations

import errno
import hashlib
import logging
import os
from pathlib import Path

import pytest

from generator.site.build import build_site
from generator.errors import SiteError
from site_fixtures.demo_site import make_demo_site

from conftest import run_main, templates_compiled_once


@pytest.fixture(scope="module", autouse=True)
def compiled_once():
    """Each build here runs in this process: the templates are compiled once (see conftest)."""
    with templates_compiled_once():
        yield


@pytest.fixture
def demo(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("NO_MKDOCS_2_WARNING", "1")
    return make_demo_site(tmp_path / "demo")


@pytest.fixture(autouse=True)
def mkdocs_handlers():
    """`build` on the command line adds a handler to MkDocs' logger for its process; run in the
    test's process, it is taken off again, so no later test writes to a closed capture."""
    handlers = list(logging.getLogger("mkdocs").handlers)
    yield
    logging.getLogger("mkdocs").handlers[:] = handlers


@pytest.fixture
def old_site(tmp_path: Path) -> Path:
    """A previous site in its own folder: the folder holds nothing else."""
    site = tmp_path / "out" / "site"
    site.mkdir(parents=True)
    (site / "index.html").write_text("the previous site")
    (site / "sub").mkdir()
    (site / "sub" / "page.html").write_text("a page of it")
    return site


def digest(folder: Path) -> dict[str, str]:
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def kept(site: Path) -> bool:
    """The previous site exactly as it was, and nothing beside it (no build or old folder)."""
    return (digest(site) == {"index.html": hashlib.sha256(b"the previous site").hexdigest(),
                             "sub/page.html": hashlib.sha256(b"a page of it").hexdigest()}
            and [p.name for p in site.parent.iterdir()] == ["site"])


def test_a_missing_configuration_is_named(tmp_path, old_site, capsys) -> None:
    missing = tmp_path / "nowhere" / "mkdocs.yml"
    run = run_main(capsys, "build", "--config", missing, "--site-dir", old_site, "--quiet")
    assert run.code == 2 and "Traceback" not in run.stderr
    assert run.stderr == f"error: {missing}: no such file; pass the site's mkdocs.yml\n"
    assert kept(old_site)


def test_a_configuration_mkdocs_refuses_is_named_and_the_old_site_kept(demo, old_site, capsys) -> None:
    demo.config.write_text(demo.config.read_text() + "\ntheme:\n  name: no-such-theme\n")
    with pytest.raises(SiteError) as refused:
        build_site(demo.config, old_site, quiet=True)
    assert str(refused.value) == f"{demo.config}: Aborted with a configuration error!"
    assert kept(old_site)
    run = run_main(capsys, "build", "--config", demo.config, "--site-dir", old_site, "--quiet")
    assert run.code == 2 and "Traceback" not in run.stderr
    assert "no-such-theme" in run.stderr  # MkDocs' own line says what is wrong
    assert f"error: {demo.config}: Aborted with a configuration error!" in run.stderr
    assert kept(old_site)


def test_a_build_mkdocs_aborts_names_each_warning_and_keeps_the_old_site(demo, old_site) -> None:
    (demo.pages / "broken.md").write_text("# Broken\n\nSee [the missing page](missing.md) and [another](gone.md).\n")
    with pytest.raises(SiteError) as aborted:
        build_site(demo.config, old_site, quiet=True)
    message = str(aborted.value)
    assert message.startswith("mkdocs could not build the site: ")
    assert "missing.md" in message and "gone.md" in message
    assert "; " in message.split("missing.md", 1)[1] or "; " in message.split("gone.md", 1)[1]  # both, joined
    assert sorted(message.removeprefix("mkdocs could not build the site: ").split("; ")) == [
        f"Doc file 'broken.md' contains a link '{name}', but the target is not found among documentation files."
        for name in ("gone.md", "missing.md")]  # each warning as MkDocs words it, joined by "; " alone
    assert kept(old_site)


def test_a_site_that_cannot_be_put_in_place_leaves_the_old_one(demo, old_site, monkeypatch) -> None:
    real_rename = os.rename

    def refused_for_the_new_site(source, target):
        if Path(target) == old_site and ".site-build-" in Path(source).name:
            raise OSError(errno.EXDEV, "Invalid cross-device link")
        return real_rename(source, target)

    monkeypatch.setattr(os, "rename", refused_for_the_new_site)
    with pytest.raises(SiteError) as refused:
        build_site(demo.config, old_site, quiet=True)
    assert str(refused.value) == "cannot write the site: [Errno 18] Invalid cross-device link"
    assert kept(old_site)


def test_the_site_goes_where_the_configuration_says_and_its_parents_are_made(demo) -> None:
    site = build_site(demo.config, quiet=True)
    assert site == (demo.root / "site").resolve() and (site / "demo" / "map" / "index.html").is_file()
    deep = demo.root / "a" / "b" / "site"
    assert build_site(demo.config, deep, quiet=True) == deep.resolve()
    assert (deep / "index.html").is_file() and [p.name for p in deep.parent.iterdir()] == ["site"]


def test_the_site_is_readable_by_others_as_the_umask_allows(demo, tmp_path) -> None:
    mask = os.umask(0o027)
    try:
        site = build_site(demo.config, tmp_path / "site", quiet=True)
    finally:
        os.umask(mask)
    assert site.stat().st_mode & 0o777 == 0o750


def test_a_build_leaves_mkdocs_logging_as_it_found_it(demo, tmp_path) -> None:
    mkdocs_log = logging.getLogger("mkdocs")
    before = (mkdocs_log.level, list(mkdocs_log.handlers))
    mkdocs_log.setLevel(logging.DEBUG)
    try:
        build_site(demo.config, tmp_path / "site", quiet=True)
        assert (mkdocs_log.level, mkdocs_log.handlers) == (logging.DEBUG, before[1])
        (demo.pages / "broken.md").write_text("# Broken\n\n[missing](missing.md)\n")
        with pytest.raises(SiteError):
            build_site(demo.config, tmp_path / "site", quiet=True)
        assert (mkdocs_log.level, mkdocs_log.handlers) == (logging.DEBUG, before[1])
    finally:
        mkdocs_log.setLevel(before[0])


def test_a_quiet_build_shows_no_information_lines(demo, tmp_path, capsys) -> None:
    loud = logging.getLogger("mkdocs")
    records: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record)

    keep = Keep(logging.DEBUG)
    loud.addHandler(keep)
    level = loud.level
    loud.setLevel(logging.INFO)
    try:
        build_site(demo.config, tmp_path / "site", quiet=True)
        assert not [r for r in records if r.levelno < logging.WARNING]
        build_site(demo.config, tmp_path / "site")  # not quiet unless asked
        assert [r for r in records if r.levelno == logging.INFO]
    finally:
        loud.removeHandler(keep)
        loud.setLevel(level)


def test_a_first_site_that_cannot_be_put_in_place_leaves_nothing(demo, tmp_path, monkeypatch) -> None:
    site = tmp_path / "out" / "site"
    real_rename = os.rename

    def refused(source, target):
        if Path(target) == site:
            raise OSError(errno.EXDEV, "Invalid cross-device link")
        return real_rename(source, target)

    monkeypatch.setattr(os, "rename", refused)
    with pytest.raises(SiteError) as failed:
        build_site(demo.config, site, quiet=True)
    assert str(failed.value) == "cannot write the site: [Errno 18] Invalid cross-device link"
    assert list(site.parent.iterdir()) == []


def test_the_sites_are_swapped_by_renames_beside_them_under_hidden_names(demo, old_site, monkeypatch) -> None:
    """Renames within the site's own folder (one file system: each is atomic, and none can fail for
    crossing devices); the folders in between are hidden and named after the site."""
    renames: list[tuple[Path, Path]] = []
    real_rename = os.rename

    def recorded(source, target):
        renames.append((Path(source), Path(target)))
        return real_rename(source, target)

    monkeypatch.setattr(os, "rename", recorded)
    build_site(demo.config, old_site, quiet=True)
    # the fetch of the pinned source renames in its cache too; these are the site's
    renames = [(s, t) for s, t in renames if old_site.parent in (*s.parents, *t.parents)]
    assert len(renames) == 2
    (old, held), (new, final) = renames
    assert (old, final) == (old_site, old_site) and held.name == "site"
    assert held.parent.parent == old_site.parent and held.parent.name.startswith(".site-old-")
    assert new.parent == old_site.parent and new.name.startswith(".site-build-")
    assert [p.name for p in old_site.parent.iterdir()] == ["site"]


def test_a_failed_build_shown_in_full_gives_only_mkdocs_warnings_as_its_reason(demo, old_site, capsys) -> None:
    """Without --quiet MkDocs' information lines are shown as it goes; the error's reason is its
    warnings alone (strict mode aborted on them), not "Building documentation…"."""
    (demo.pages / "broken.md").write_text("# Broken\n\nSee [the missing page](missing.md).\n")
    run = run_main(capsys, "build", "--config", demo.config, "--site-dir", old_site)
    assert run.code == 2 and "Traceback" not in run.stderr
    assert "INFO    -  Building documentation" in run.stderr
    (line,) = [ln for ln in run.stderr.splitlines() if ln.startswith("error: ")]
    assert line.startswith("error: mkdocs could not build the site: ") and "missing.md" in line
    assert "Building documentation" not in line and "Cleaning site directory" not in line
    assert kept(old_site)


def test_a_previous_site_that_cannot_be_wholly_removed_does_not_fail_the_build(demo, old_site, monkeypatch) -> None:
    """A file of the old site this user may not delete (another user's, in a read-only folder): the
    new site is already in place, so the build succeeds; only the old copy, hidden, stays beside it."""
    real_unlink = os.unlink

    def refused(path, *, dir_fd=None):
        if Path(path).name == "page.html" and dir_fd is not None:  # shutil.rmtree's removal of sub/page.html
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return real_unlink(path, dir_fd=dir_fd)

    monkeypatch.setattr(os, "unlink", refused)
    assert build_site(demo.config, old_site, quiet=True) == old_site.resolve()
    assert (old_site / "demo" / "map" / "index.html").is_file() and not (old_site / "sub").exists()
    left = [p for p in old_site.parent.iterdir() if p.name != "site"]
    assert [p.name.startswith(".site-old-") for p in left] == [True]
    assert (left[0] / "site" / "sub" / "page.html").read_text() == "a page of it"


def test_a_build_stopped_without_a_warning_gives_mkdocs_own_reason(demo, old_site) -> None:
    """A hook (or plugin) that stops the build with its own message, and MkDocs logged no warning:
    that message is the reason shown."""
    (demo.config.parent / "stop_hook.py").write_text(
        "from mkdocs.exceptions import Abort\n\n\ndef on_pre_build(config):\n"
        "    raise Abort('the release notes are not written yet')\n")
    demo.config.write_text(demo.config.read_text() + "\nhooks:\n  - stop_hook.py\n")
    with pytest.raises(SiteError) as stopped:
        build_site(demo.config, old_site, quiet=True)
    assert str(stopped.value) == "mkdocs could not build the site: the release notes are not written yet"
    assert kept(old_site)


def test_the_build_command_names_the_new_site_and_shows_mkdocs_lines_unless_quiet(demo, tmp_path, capsys,
                                                                                  monkeypatch) -> None:
    """`build` as a maintainer runs it (nothing set in the environment): with --quiet, only the
    folder of the new site, where --site-dir says; without, MkDocs' lines as it goes, in its own
    format: those of MkDocs' loggers, its plugins' and hooks' included, as `mkdocs build` shows them,
    and not what another logger says. Its handler is taken off MkDocs' logger after each, so nothing
    later in the process writes to the stream it was bound to."""
    monkeypatch.delenv("NO_MKDOCS_2_WARNING", raising=False)
    (demo.config.parent / "notes_hook.py").write_text(
        "import logging\n\n\ndef on_pre_build(config):\n"
        "    logging.getLogger('mkdocs.plugins.notes').info('the release notes are read')\n"
        "    logging.getLogger('notes').info('a line for its own log')\n")
    demo.config.write_text(demo.config.read_text() + "\nhooks:\n  - notes_hook.py\n")
    mkdocs_log = logging.getLogger("mkdocs")
    handlers = list(mkdocs_log.handlers)
    site = tmp_path / "public"
    run = run_main(capsys, "build", "--config", demo.config, "--site-dir", site, "--quiet")
    assert (run.code, run.stdout, run.stderr) == (0, f"site built in {site.resolve()}\n", "")
    assert (site / "demo" / "map" / "index.html").is_file() and not (demo.root / "site").exists()
    assert mkdocs_log.handlers == handlers
    run = run_main(capsys, "build", "--config", demo.config, "--site-dir", site)
    assert (run.code, run.stdout) == (0, f"site built in {site.resolve()}\n")
    lines = run.stderr.splitlines()
    # the plugin's line first, then the hook's, both through MkDocs' loggers, then MkDocs' own
    assert lines[:3] == ["INFO    -  demo: 4 entries, 11 citations, all ok at 1.0.0",
                         "INFO    -  the release notes are read", "INFO    -  Cleaning site directory"], lines
    assert "its own log" not in run.stderr
    assert all(line.startswith("INFO    -  ") for line in lines), lines
    assert mkdocs_log.handlers == handlers
