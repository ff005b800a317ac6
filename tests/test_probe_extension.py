"""An extension's probe (generator/probes/extension.py) without the registry: `npm install` is a
stand-in that lays the packages asked for and writes the lockfile (probe_fixtures.FakeNpm); the
rest is the real code: which extensions are probed, the install of pi and the extension together
(its folder, its manifest, the lockfile's checks and the refusals), the install reused, the
probe run in the real sandbox with the extension where it sees pi, and the site build writing the
installs while probes run (one refused fails the build; a build stopped leaves no npm running)."""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest

from conftest import ROOT, live_with, python_env, require, send_signal
from generator.errors import FetchError
from generator.probes.extension import (EXTENSION_SECONDS, extension_limits, install_extension, probed_extensions,
                                        run_extension_probes)
from generator.probes.install import find_node, install_pi
from generator.probes.run import site_probes
from generator.probes.limits import tree_limits
from generator.probes.sandbox import Limits, Sandbox
from generator.source.fetch import _npm, cache_root
from probe_fixtures import FakeNpm, cached_pi, lock_replaced, overlay, probed_map, use_fake_npm

EXT = "@demo/pi-ext"
INTEGRITY = {"pi-demo": "sha512-pi", EXT: "sha512-ext"}
REGISTRY = {"pi-demo": "sha512-pi"}
SHOWS = ('import { readFileSync } from "node:fs";\nimport { here } from "@demo/pi-ext";\n'
         'const version = (p) => JSON.parse(readFileSync(`node_modules/${p}/package.json`, "utf8")).version;\n'
         'console.log(JSON.stringify({loaded: here, ext: version("@demo/pi-ext"), pi: version("pi-demo")}));\n')


@pytest.fixture(autouse=True)
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    for name in ("DECISION_MAP_PROBE_CACHE", "DECISION_MAP_SKIP_PROBES", "DECISION_MAP_PROBE_SANDBOX",
                 "DECISION_MAP_PROBE_TIMEOUT"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path


@pytest.fixture
def npm(monkeypatch: pytest.MonkeyPatch) -> FakeNpm:
    fake = FakeNpm(INTEGRITY)
    fake.asked = use_fake_npm(monkeypatch, fake, REGISTRY)
    return fake


def demo_with(tmp_path: Path, *overlays):
    return probed_map(tmp_path, {}, overlays=tuple(overlays))


def installed_pi_with(tmp_path: Path, *overlays):
    """The demo map with pi's install already written: npm is run for the extension's alone."""
    demo = demo_with(tmp_path, *overlays)
    cached_pi(demo)
    return demo


def folder_of(integrity: str = "sha512-ext", version: str = "2.0.0") -> Path:
    ident = json.dumps([1, sorted({"pi-demo": "1.0.0", EXT: version}.items()), integrity])
    return cache_root() / "installs" / "ext-demo+pi-ext" / hashlib.sha256(ident.encode()).hexdigest()[:16]


# --- which extensions ------------------------------------------------------------------------------


def test_only_pinned_extensions_with_a_probe_are_probed_by_name(tmp_path: Path) -> None:
    demo = demo_with(tmp_path, overlay(tmp_path, "zeta", None, ()), overlay(tmp_path, "alpha", None, ()),
                     overlay(tmp_path, "unpinned", None, (), integrity=None),
                     overlay(tmp_path, "unprobed", None, (), probe=False))
    assert [o.extension for o in probed_extensions(demo)] == ["alpha", "zeta"]
    assert [o.extension for o in probed_extensions(demo, ["zeta", "unpinned"])] == ["zeta"]
    assert probed_extensions(demo, []) == []


def test_an_extension_probe_has_room_to_compile_unless_a_person_set_the_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    assert extension_limits(Limits(seconds=5, heap_mb=100)) == Limits(seconds=EXTENSION_SECONDS, heap_mb=100)
    assert extension_limits(Limits(seconds=900)).seconds == 900
    monkeypatch.setenv("DECISION_MAP_PROBE_TIMEOUT", "  ")
    assert extension_limits(Limits(seconds=5)).seconds == EXTENSION_SECONDS, "blank is unset"
    monkeypatch.setenv("DECISION_MAP_PROBE_TIMEOUT", "5")
    assert extension_limits(Limits(seconds=5)).seconds == 5


# --- the install ---------------------------------------------------------------------------------


def test_pi_and_the_extension_are_installed_together_without_running_their_scripts(tmp_path: Path, npm: FakeNpm,
                                                                                   capsys) -> None:
    ext = overlay(tmp_path, "pi-ext", None, ())
    demo = demo_with(tmp_path, ext)
    node = replace(find_node(), npm=("the-npm-given",))  # (not the one install_pi would find itself)
    install = install_extension(demo, ext, node)
    [pi_call, call] = npm.calls
    pi_install = install_pi(demo, "1.0.0", node, quiet=True)
    assert pi_call["args"][-1] == "pi-demo@1.0.0" and pi_call["cwd"] != call["cwd"], "pi's own install came first"
    assert pi_call["npm"] == list(node.npm), "pi's install is written with the npm given too"
    assert (call["lock"], call["packages"]) == ((pi_install.root / "package-lock.json").read_text(), ["pi-demo"]), \
        "npm started from a copy of pi's install"
    assert call["args"][:6] == ["install", "--ignore-scripts", "--legacy-peer-deps", "--save-exact", "--no-audit",
                                "--no-fund"]
    assert call["args"][6:] == ["--package-lock=true", "pi-demo@1.0.0", f"{EXT}@2.0.0"]
    assert call["what"] == f"pi-demo@1.0.0, {EXT}@2.0.0" and call["npm"] == list(node.npm)
    assert call["env"]["PATH"] == f"{node.bin_dir}:{os.environ['PATH']}", "its Node first, then the user's PATH"
    assert npm.asked == [("pi-demo@1.0.0", list(node.npm))], \
        "the registry is asked once, by pi's install (the extension's reads its lockfile), with the same npm"
    assert [call["env"][f"npm_config_{k}"] for k in ("update_notifier", "fund", "audit")] == ["false"] * 3
    final = folder_of()
    assert install.root == final and install.version == "1.0.0" and install.packages == (EXT, "pi-demo")
    lock = (final / "package-lock.json").read_bytes()
    assert install.digest == hashlib.sha256(lock).hexdigest()[:16]
    assert json.loads((final / "package.json").read_text()) == {"name": "pi-extension-probe", "private": True}
    assert json.loads((final / ".decision-map-install.json").read_text()) == {
        "format": 1, "packages": {"pi-demo": "1.0.0", EXT: "2.0.0"}, "lock_sha256": hashlib.sha256(lock).hexdigest()}
    assert capsys.readouterr().err == "", "quiet by default"
    assert install_extension(demo, ext) == install and len(npm.calls) == 2, "the finished install is reused"


def test_without_a_path_npm_gets_nodes_folder_and_the_default_path(tmp_path: Path, npm: FakeNpm,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    ext = overlay(tmp_path, "pi-ext", None, ())
    node = find_node()
    monkeypatch.delenv("PATH")
    install_extension(demo_with(tmp_path, ext), ext, node)
    assert npm.calls[0]["env"]["PATH"] == f"{node.bin_dir}:{os.defpath}"


def test_a_person_is_told_what_is_installed(tmp_path: Path, npm: FakeNpm, capsys) -> None:
    ext = overlay(tmp_path, "pi-ext", None, ())
    install_extension(demo_with(tmp_path, ext), ext, quiet=False)
    assert capsys.readouterr().err == ("installing pi-demo@1.0.0 for probes\n"
                                       f"installing {EXT}@2.0.0 with pi 1.0.0 for its probe\n")
    other = overlay(tmp_path, "other-ext", None, ())
    install_extension(demo_with(tmp_path, other), other, quiet=False)
    assert capsys.readouterr().err == "installing @demo/other-ext@2.0.0 with pi 1.0.0 for its probe\n", \
        "pi's install, written once, is told once"


def test_another_pin_is_another_install(tmp_path: Path, npm: FakeNpm) -> None:
    ext = overlay(tmp_path, "pi-ext", None, ())
    demo = demo_with(tmp_path, ext)
    first = install_extension(demo, ext)
    npm.integrity = {**INTEGRITY, EXT: "sha512-other"}
    other = overlay(tmp_path, "pi-ext", None, (), integrity="sha512-other")
    assert install_extension(demo, other).root == folder_of("sha512-other") != first.root
    newer = overlay(tmp_path, "pi-ext", None, (), version="2.1.0")
    npm.integrity = INTEGRITY
    assert install_extension(demo, newer).root == folder_of(version="2.1.0")
    assert len(npm.calls) == 4, "pi's install, once, then the extension's three"


def test_npm_writing_over_pi_s_files_in_an_extension_s_install_leaves_pi_s_own_install_as_it_was(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """npm rewrites files of the tree it starts from in place (its hidden lockfile, a package it
    replaces): the extension's install is a copy of pi's, so pi's install, which every entry's probe
    runs, keeps what was installed and still opens."""
    fake = FakeNpm(INTEGRITY)

    def npm_rewriting(args: list[str], what: str, npm: list[str], *, cwd: Path, env: dict[str, str]) -> None:
        if EXT in what:  # the extension's install, in a copy of pi's
            for name in ("pi-demo/index.js", ".package-lock.json"):
                with open(cwd / "node_modules" / name, "a") as found:
                    found.write("// rewritten by npm\n")
        fake(args, what, npm, cwd=cwd, env=env)
        if EXT not in what:
            (cwd / "node_modules" / ".package-lock.json").write_text("{}")

    use_fake_npm(monkeypatch, npm_rewriting, REGISTRY)
    ext = overlay(tmp_path, "pi-ext", None, ())
    demo = demo_with(tmp_path, ext)
    pi_install = install_pi(demo, "1.0.0", quiet=True)
    before = {p: p.read_bytes() for p in pi_install.node_modules.rglob("*") if p.is_file()}
    install_extension(demo, ext)
    assert {p: p.read_bytes() for p in pi_install.node_modules.rglob("*") if p.is_file()} == before
    assert install_pi(demo, "1.0.0", quiet=True) == pi_install, "pi's install opens as it was written"


@pytest.mark.parametrize(("edit", "message"), [
    (lambda rows: rows[f"node_modules/{EXT}"].update(version="2.0.1"),
     f"{EXT}@2.0.0: npm installed version '2.0.1' instead"),
    (lambda rows: rows.pop("node_modules/pi-demo"), "pi-demo@1.0.0: npm installed version None instead"),
    (lambda rows: rows[f"node_modules/{EXT}"].update(integrity="sha512-tampered"),
     f"{EXT}@2.0.0: the installed package's integrity is not the pinned's one; refusing to use it"),
    (lambda rows: rows["node_modules/pi-demo"].update(integrity="sha512-tampered"),
     "pi-demo@1.0.0: the installed package's integrity is not the registry's one; refusing to use it"),
    (lambda rows: rows.update({"node_modules/dep": {"version": "1.0.0"}}),
     "package-lock.json records no integrity for node_modules/dep; refusing to use the install"),
])
def test_an_install_the_lockfile_does_not_vouch_for_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                               edit, message: str) -> None:
    use_fake_npm(monkeypatch, FakeNpm(INTEGRITY, lock=edit), REGISTRY)
    ext = overlay(tmp_path, "pi-ext", None, ())
    with pytest.raises(FetchError) as refused:
        install_extension(installed_pi_with(tmp_path, ext), ext)
    assert str(refused.value) == message
    assert not folder_of().exists(), "nothing refused is kept"


def test_linked_packages_and_the_root_need_no_integrity(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    use_fake_npm(monkeypatch, FakeNpm(INTEGRITY, lock=lambda rows: rows.update(
        {"node_modules/local": {"link": True, "resolved": "../local"}})), REGISTRY)
    ext = overlay(tmp_path, "pi-ext", None, ())
    assert install_extension(installed_pi_with(tmp_path, ext), ext).root == folder_of()


def test_a_lockfile_and_packages_with_non_ascii_text_are_read_whatever_the_locale(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ascii_locale) -> None:
    """npm writes the lockfile and a package's package.json in UTF-8 (a linked folder's name, an
    author's): both are read as UTF-8 under a locale of another encoding too, and the install kept."""
    fake = FakeNpm(INTEGRITY, lock=lambda rows: rows.update(
        {"node_modules/local": {"link": True, "resolved": "../caf\u00e9"}}))

    def npm_writing_utf8(args: list[str], what: str, npm: list[str], *, cwd: Path, env: dict[str, str]) -> None:
        fake(args, what, npm, cwd=cwd, env=env)
        for written in (cwd / "package-lock.json", cwd / "node_modules" / EXT / "package.json"):
            text = json.loads(written.read_bytes())
            text.setdefault("author", "Jos\u00e9 \u2192 Gonz\u00e1lez")
            written.write_bytes(json.dumps(text, ensure_ascii=False).encode("utf-8"))

    use_fake_npm(monkeypatch, npm_writing_utf8, REGISTRY)
    ext = overlay(tmp_path, "pi-ext", None, ())
    demo = installed_pi_with(tmp_path, ext)
    with ascii_locale():
        install = install_extension(demo, ext)
    assert install.root == folder_of()
    assert "caf\u00e9".encode() in (install.root / "package-lock.json").read_bytes()


def test_pi_s_links_and_non_ascii_text_are_copied_as_they_are_whatever_the_locale(
        tmp_path: Path, npm: FakeNpm, ascii_locale) -> None:
    """The copy of pi's install an extension's starts from keeps its links as links (npm's
    ``node_modules/.bin`` entries: a copied file would import its modules from the wrong folder),
    and reads pi's lockfile and package.json as the UTF-8 npm writes, under any locale."""
    ext = overlay(tmp_path, "pi-ext", None, ())
    demo = demo_with(tmp_path, ext)

    def as_npm_leaves_it(final: Path) -> None:
        (final / "node_modules" / ".bin").mkdir()
        (final / "node_modules" / ".bin" / "pi-demo").symlink_to("../pi-demo/index.js")
        for name in ("package.json", "package-lock.json"):
            text = json.loads((final / name).read_bytes())
            text["author"] = "Jos\u00e9 \u2192 Gonz\u00e1lez"
            (final / name).write_bytes(json.dumps(text, ensure_ascii=False).encode("utf-8"))

    cached_pi(demo, edit=as_npm_leaves_it)
    with ascii_locale():
        install = install_extension(demo, ext)
    link = install.root / "node_modules" / ".bin" / "pi-demo"
    assert link.is_symlink() and os.readlink(link) == "../pi-demo/index.js"
    assert json.loads((install.root / "package.json").read_bytes())["author"] == "Jos\u00e9 \u2192 Gonz\u00e1lez"


@pytest.mark.parametrize("lock", [None, "not json", '{"lockfileVersion": 3}'])
def test_no_readable_lockfile_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, lock: str | None) -> None:
    use_fake_npm(monkeypatch, lock_replaced(FakeNpm(INTEGRITY), lock), REGISTRY)
    ext = overlay(tmp_path, "pi-ext", None, ())
    with pytest.raises(FetchError, match=f"^npm wrote no readable package-lock.json for {EXT}@2.0.0$"):
        install_extension(installed_pi_with(tmp_path, ext), ext)


def test_an_install_whose_packages_disagree_with_its_lockfile_fails_its_own_check(tmp_path: Path,
                                                                                  monkeypatch) -> None:
    use_fake_npm(monkeypatch, FakeNpm(INTEGRITY, versions={EXT: "9.9.9"}), REGISTRY)
    ext = overlay(tmp_path, "pi-ext", None, ())
    with pytest.raises(FetchError, match=f"^the install at {re.escape(str(folder_of()))} failed its own check right "
                                         "after it was written$"):
        install_extension(installed_pi_with(tmp_path, ext), ext)


@pytest.mark.parametrize("damage", [
    lambda final: (final / "package-lock.json").write_text('{"packages": {}}'),
    lambda final: (final / "node_modules" / EXT / "package.json").write_text('{"version": "2.0.1"}'),
    lambda final: (final / "node_modules" / "pi-demo" / "package.json").unlink(),
    lambda final: (final / ".decision-map-install.json").write_text(
        (final / ".decision-map-install.json").read_text().replace('"format": 1', '"format": 0')),
    lambda final: (final / ".decision-map-install.json").write_text(
        (final / ".decision-map-install.json").read_text().replace('"1.0.0"', '"1.0.1"')),
    lambda final: (final / ".decision-map-install.json").write_text('{"format": 1, "packages": {}}'),
    lambda final: (final / ".decision-map-install.json").write_text("[]"),
    lambda final: (final / ".decision-map-install.json").unlink(),
])
def test_a_damaged_install_is_installed_again(tmp_path: Path, npm: FakeNpm, damage) -> None:
    ext = overlay(tmp_path, "pi-ext", None, ())
    demo = demo_with(tmp_path, ext)
    first = install_extension(demo, ext)
    damage(first.root)
    assert install_extension(demo, ext) == first and len(npm.calls) == 3, "(pi's install is not written again)"


def test_an_install_missing_a_key_of_its_manifest_is_installed_again(tmp_path: Path, npm: FakeNpm) -> None:
    ext = overlay(tmp_path, "pi-ext", None, ())
    demo = demo_with(tmp_path, ext)
    first = install_extension(demo, ext)
    manifest = first.root / ".decision-map-install.json"
    manifest.write_text(json.dumps({k: v for k, v in json.loads(manifest.read_text()).items() if k != "lock_sha256"}))
    assert install_extension(demo, ext) == first and len(npm.calls) == 3, "(pi's install is not written again)"


# --- the probe run -------------------------------------------------------------------------------


def test_an_extension_probe_sees_the_extension_where_it_sees_pi(tmp_path: Path, npm: FakeNpm, capsys) -> None:
    require("bubblewrap", shutil.which("bwrap") is not None, "probes run in bwrap; apt-get install bubblewrap")
    ext = overlay(tmp_path, "pi-ext", SHOWS, (("loaded", True), ("pi", "1.0.0")))
    other = overlay(tmp_path, "other-ext", 'console.log(JSON.stringify({loaded: false}));\n', (("loaded", True),))
    demo = demo_with(tmp_path, ext, other)
    npm_calls = []
    [result] = run_extension_probes(demo, ["pi-ext"])
    assert (result.id, result.status, result.claim, result.map) == ("pi-ext", "holds", "what pi-ext changes", "demo")
    assert result.result == {"loaded": True, "ext": "2.0.0", "pi": "1.0.0"}
    assert result.script == tmp_path / "decisions" / "demo" / "extensions" / "probes" / "pi-ext.mjs"
    assert result.version == "1.0.0" and not result.cached
    npm_calls.append(len(npm.calls))
    both = run_extension_probes(demo)
    assert [(r.id, r.status, r.cached) for r in both] == [("other-ext", "fails", False), ("pi-ext", "holds", True)]
    assert npm_calls == [2] and len(npm.calls) == 3, "pi-ext's install was reused, other-ext got its own (pi's, once)"
    assert capsys.readouterr().err == "", "quiet by default"


def test_the_site_shows_extension_probes_by_the_extensions_name(tmp_path: Path, npm: FakeNpm, capsys,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    require("bubblewrap", shutil.which("bwrap") is not None, "probes run in bwrap; apt-get install bubblewrap")
    ext = overlay(tmp_path, "pi-ext", SHOWS, (("loaded", True),))
    demo = probed_map(tmp_path, {"D1": ('console.log(JSON.stringify({ran: true}));\n', (("ran", True),))},
                      overlays=(ext,))
    shown = site_probes([demo])
    assert sorted(shown) == ["D1", "pi-ext"] and shown["pi-ext"].status == "holds"
    assert capsys.readouterr().err == "", "quiet by default"
    monkeypatch.setenv("DECISION_MAP_CACHE", str(tmp_path / "another-cache"))
    assert sorted(site_probes([demo], quiet=False)) == ["D1", "pi-ext"]
    # (the extension's install starts from pi's, so pi's is written first)
    assert capsys.readouterr().err == ("installing pi-demo@1.0.0 for probes\n"
                                       f"installing {EXT}@2.0.0 with pi 1.0.0 for its probe\n")


def test_an_extension_probe_gets_more_time_than_the_limit_given(tmp_path: Path, npm: FakeNpm,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    require("bubblewrap", shutil.which("bwrap") is not None, "probes run in bwrap; apt-get install bubblewrap")
    slow = ("await new Promise((done) => setTimeout(done, 1500));\n"
            "console.log(JSON.stringify({compiled: true}));\n")
    demo = demo_with(tmp_path, overlay(tmp_path, "pi-ext", slow, (("compiled", True),)))
    assert run_extension_probes(demo, limits=Limits(seconds=1), use_cache=False)[0].status == "holds"
    [capped] = run_extension_probes(demo, limits=Limits(seconds=1, output_bytes=10), use_cache=False)
    assert capped.reason.startswith("the probe printed more than 10 bytes"), "the other limits given hold"
    monkeypatch.setenv("DECISION_MAP_PROBE_TIMEOUT", "1")
    [result] = run_extension_probes(demo, use_cache=False)
    assert result.reason.startswith("the probe did not finish within 1 s")


def test_an_extension_probe_is_remembered_unless_the_cache_is_off(tmp_path: Path, npm: FakeNpm) -> None:
    require("bubblewrap", shutil.which("bwrap") is not None, "probes run in bwrap; apt-get install bubblewrap")
    demo = demo_with(tmp_path, overlay(tmp_path, "pi-ext", SHOWS, (("loaded", True),)))
    assert [r.cached for r in run_extension_probes(demo)] == [False]
    assert [r.cached for r in run_extension_probes(demo)] == [True]
    assert [r.cached for r in run_extension_probes(demo, use_cache=False)] == [False]


def test_the_run_uses_the_sandbox_given_and_tells_a_person_what_it_installs(tmp_path: Path, npm: FakeNpm,
                                                                           capsys) -> None:
    demo = demo_with(tmp_path, overlay(tmp_path, "pi-ext", SHOWS, (("loaded", True),)))
    weak = Sandbox("node-only", tree_limits())
    [result] = run_extension_probes(demo, quiet=False, sandbox=weak)
    assert (result.status, result.sandbox) == ("holds", weak.name)
    assert capsys.readouterr().err == ("installing pi-demo@1.0.0 for probes\n"
                                       f"installing {EXT}@2.0.0 with pi 1.0.0 for its probe\n")


# --- installs written beside the probes ------------------------------------------------------------


def loads_itself(name: str) -> str:
    """A probe that imports its own extension's package."""
    return f'import {{ here }} from "@demo/{name}";\nconsole.log(JSON.stringify({{loaded: here}}));\n'


def test_one_refused_install_fails_the_build_naming_it_and_leaves_no_half_install(tmp_path: Path, npm: FakeNpm,
                                                                                  capsys) -> None:
    require("bubblewrap", shutil.which("bwrap") is not None, "probes run in bwrap; apt-get install bubblewrap")
    names = ["c-ext", "a-ext", "b-ext"]
    demo = probed_map(tmp_path, {"D1": ('console.log(JSON.stringify({ran: true}));\n', (("ran", True),))},
                      overlays=tuple(overlay(tmp_path, n, loads_itself(n), (("loaded", True),)) for n in names))
    npm.integrity = {**INTEGRITY, "@demo/b-ext": "sha512-tampered"}
    with pytest.raises(FetchError) as refused:
        site_probes([demo])
    assert str(refused.value) == ("@demo/b-ext@2.0.0: the installed package's integrity is not the pinned's one; "
                                  "refusing to use it")
    installs = cache_root() / "installs"
    assert list((installs / "ext-demo+b-ext").iterdir()) == [], "nothing refused is kept"
    assert list(installs.glob("*/.tmp-*")) == [], "no install is left half written"
    assert _npm([], "the next build's fetch", [sys.executable, "-c", "print('ran')"]) == "ran\n", \
        "a later build in the same process (serve's) still runs npm"
    npm.integrity = INTEGRITY  # the registry's answer is right again
    shown = site_probes([demo])
    assert [(r.id, r.status) for r in shown.values()] == [("D1", "holds"), ("a-ext", "holds"), ("b-ext", "holds"),
                                                          ("c-ext", "holds")], "in the order of the pages"
    assert capsys.readouterr().err == "", "quiet by default"


STOPPED_BUILD = """
import faulthandler, os, signal, sys
from pathlib import Path
from generator.probes import extension, install
from generator.probes.run import site_probes
from probe_fixtures import cached_pi, overlay, probed_map

root = Path.cwd()
real = install.find_node()
extension.find_node = lambda: install.Node(real.binary, real.version, (str(root / "npm"),))
hangs = os.environ.get("HANGING_PROBE")
demo = probed_map(root, {"D1": (hangs, ())} if hangs else {}, overlays=tuple(
    overlay(root, name, "console.log('{}');", ()) for name in ("a-ext", "b-ext", "c-ext")))
cached_pi(demo)
faulthandler.register(signal.SIGUSR1, all_threads=True)  # where each thread is, should it not stop
try:
    site_probes([demo])
except KeyboardInterrupt as stop:  # (SIGTERM: ProbesStopped, which is one)
    print("stopped", getattr(stop, "signum", signal.SIGINT), flush=True)
"""
# npm as the build runs it, for an install that never ends: what the registry is asked is answered;
# `install` notes its process and waits on a child of its own
HANGING_NPM = """#!/bin/sh
case "$1" in
  view) echo '"sha512-ext"' ;;
  install) echo $$ >> PIDS; sleep MARKER & wait ;;
esac
"""


@pytest.mark.parametrize("how, to_another_thread, waiting_on", [
    (signal.SIGTERM, False, "probe"), (signal.SIGINT, False, "probe"), (signal.SIGTERM, True, "probe"),
    (signal.SIGINT, True, "install"), (signal.SIGTERM, True, "install")],
    ids=["SIGTERM", "SIGINT", "SIGTERM-on-another-thread", "SIGINT-on-another-thread-while-an-install-is-awaited",
         "SIGTERM-on-another-thread-while-an-install-is-awaited"])
def test_a_build_stopped_while_extensions_install_leaves_no_npm_no_sandbox_and_no_half_install(
        tmp_path: Path, how: signal.Signals, to_another_thread: bool, waiting_on: str) -> None:
    require("bubblewrap", shutil.which("bwrap") is not None, "probes run in bwrap; apt-get install bubblewrap")
    npm_marker, probe_marker = (f"{500 + random.randint(1, 10**6) / 10**7:.7f}" for _ in range(2))
    npm = HANGING_NPM.replace("MARKER", npm_marker).replace("PIDS", str(tmp_path / "npm-pids"))
    (tmp_path / "npm").write_text(npm)
    (tmp_path / "npm").chmod(0o755)
    # "probe": the build waits on an entry's probe that never ends; "install": the map has no entry
    # probe, and the build waits on the first extension's install
    hangs = (f'import {{ spawn }} from "node:child_process";\nspawn("sleep", ["{probe_marker}"]);\n'
             "setInterval(() => {}, 1000);\n") if waiting_on == "probe" else None
    # the probe's code reaches the build through its environment, not its command line: a process
    # the build forks holds the build's command line until it runs its own program, and one caught
    # there was once taken for the probe's `sleep`
    env = python_env(PYTHONPATH=f"{ROOT}:{ROOT / 'tests'}", DECISION_MAP_CACHE=str(tmp_path / "cache"),
                     DECISION_MAP_PROBE_TIMEOUT="900", DECISION_MAP_PROBE_CACHE="off")
    for name in ("DECISION_MAP_SKIP_PROBES", "DECISION_MAP_PROBE_SANDBOX", "HANGING_PROBE"):
        env.pop(name, None)
    if hangs:
        env["HANGING_PROBE"] = hangs
    build = subprocess.Popen([sys.executable, "-c", STOPPED_BUILD], cwd=tmp_path,
                             env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))

    def probe_runs() -> bool:
        return waiting_on != "probe" or bool(live_with(probe_marker))

    started = time.monotonic()
    try:
        # two installs at once, and the entry's probe running beside them
        while (len(live_with(npm_marker)) < 2 or not probe_runs()) and build.poll() is None \
                and time.monotonic() - started < 600:
            time.sleep(0.1)
        assert len(live_with(npm_marker)) == 2 and probe_runs(), build.poll()
        send_signal(build.pid, how, to_another_thread=to_another_thread)
        try:
            stdout, stderr = build.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            build.send_signal(signal.SIGUSR1)
            time.sleep(2)
            build.kill()
            pytest.fail(f"the build did not stop within 120 s; where its threads were:\n{build.communicate()[1]}")
    finally:
        if build.poll() is None:
            build.kill()
    assert stdout == f"stopped {int(how)}\n", stderr
    npm_pids = [int(p) for p in (tmp_path / "npm-pids").read_text().split()]
    assert len(npm_pids) == 2, "the third install never started"
    assert live_with(npm_marker) == [] and live_with(probe_marker) == [], "a process outlived the build"
    assert [p for p in npm_pids if Path(f"/proc/{p}").exists()] == [], "an npm outlived the build"
    installs = tmp_path / "cache" / "installs"
    assert [p.name for p in installs.glob("ext-*/*")] == [], "no install is left, whole or half written"
