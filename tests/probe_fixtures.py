"""Probes without the registry: a decision map built inline whose entries carry probes, and
installs of a tiny stand-in for pi (a package.json and an index.js) laid into the test's cache the
way `install_pi` and `install_extension` leave a finished install, so `probe`'s own code opens
them and runs the probes in the real sandbox."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from generator.map.model import DecisionMap, Entry, NpmPackage, Overlay, Probe, Source
from generator.probes import extension, install
from generator.source.fetch import cache_root

PI = "pi-demo"  # the stand-in for pi's package
PIN = "1.0.0"


def probed_map(root: Path, probes: dict[str, tuple[str | None, tuple]], *, version: str = PIN,
               unprobed: tuple[str, ...] = (), overlays: tuple[Overlay, ...] = ()) -> DecisionMap:
    """A map ``demo`` under ``root``/decisions: an entry per ID of ``probes`` with its script
    (None: not written) and its ``expect`` pairs, and entries without a probe."""
    folder = root / "decisions" / "demo"
    (folder / "probes").mkdir(parents=True, exist_ok=True)
    entries = []
    for entry_id in [*probes, *unprobed]:
        path = folder / f"{entry_id}.yaml"
        probe = None
        if entry_id in probes:
            script, expect = probes[entry_id]
            probe = Probe(f"what {entry_id} shows", tuple(expect), path, 9)
            if script is not None:
                (folder / "probes" / f"{entry_id}.mjs").write_text(script)
        entries.append(Entry(id=entry_id, kind="decision", question=f"Who decides {entry_id}?", decided_by="pi",
                             answer="pi", title=None, description=None, changed_by=(), checks=None, failures=(),
                             upstream=None, cites=(), reviewed=None, path=path, line=1, probe=probe))
    return DecisionMap(name="demo", folder=folder, title="Demo", repo="https://example.invalid/pi", version=version,
                       source=Source(npm=(NpmPackage(PI, "packages/demo"),)), summary=None, groups=(), sections=(),
                       checked=None, entries=tuple(entries), overlays=overlays, path=folder / "map.yaml")


def package(folder: Path, name: str, version: str, code: str = "export const here = true;\n") -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "package.json").write_text(json.dumps({"name": name, "version": version, "type": "module",
                                                     "main": "index.js"}))
    (folder / "index.js").write_text(code)


def cached_pi(decision_map: DecisionMap, version: str = PIN, edit=None) -> Path:
    """A finished install of the stand-in pi at ``version``, where `install_pi` looks for it
    (``edit``, given the folder, changes its files before their manifest is written)."""
    packages = tuple(sorted(p.package for p in decision_map.source.npm))
    key = hashlib.sha256(json.dumps([install.INSTALL_FORMAT, packages]).encode()).hexdigest()[:16]
    final = cache_root() / "installs" / f"npm-{key}" / version
    for name in packages:
        package(final / "node_modules" / name, name, version, f"export const version = {json.dumps(version)};\n")
    (final / "package.json").write_text(json.dumps({"name": "pi-probes", "private": True,
                                                    "dependencies": {name: version for name in packages}}))
    (final / "package-lock.json").write_text(json.dumps({"packages": {"": {"name": "pi-probes"}, **{
        f"node_modules/{name}": {"version": version, "integrity": "sha512-pi"} for name in packages}}}))
    if edit is not None:
        edit(final)
    files = {path: install._entry(final / path) for path in install._tree(final)}
    (final / install.MANIFEST).write_text(json.dumps({
        "format": install.INSTALL_FORMAT, "version": version, "packages": list(packages), "node": "24",
        "tree_sha256": install._tree_digest(files), "files": files}, sort_keys=True))
    return final


class FakeNpm:
    """`npm install` for install_extension, without the registry: it lays each package asked for
    into node_modules and writes the lockfile (``lock`` edits its rows before it is written)."""

    def __init__(self, integrity: dict[str, str], lock=None, versions: dict[str, str] | None = None):
        self.integrity, self.lock, self.versions, self.calls = integrity, lock, versions or {}, []

    def __call__(self, args: list[str], what: str, npm: list[str], *, cwd: Path, env: dict[str, str]) -> None:
        found = cwd / "package-lock.json"  # what npm is given to start from (an extension's: pi's install)
        self.calls.append({"args": args, "what": what, "npm": npm, "cwd": cwd, "env": env,
                           "lock": found.read_text(encoding="utf-8") if found.exists() else None,
                           "packages": sorted(p.name for p in (cwd / "node_modules").glob("*"))})
        rows = {"": {"name": "pi-extension-probe"}}
        for spec in (a for a in args if not a.startswith("-") and a != "install"):
            name, version = spec.rsplit("@", 1)
            installed = self.versions.get(name, version)
            package(cwd / "node_modules" / name, name, installed,
                    f"export const here = true;\nexport const version = {json.dumps(installed)};\n")
            rows[f"node_modules/{name}"] = {"version": version, "integrity": self.integrity.get(name, "sha512-ext")}
        if self.lock:
            self.lock(rows)
        (cwd / "package-lock.json").write_text(json.dumps({"packages": rows}))


def lock_replaced(fake: FakeNpm, lock: str | None):
    """``fake``'s install, then its lockfile taken away (``lock`` None) or its text replaced by ``lock``."""
    def npm(args: list[str], what: str, npm: list[str], *, cwd: Path, env: dict[str, str]) -> None:
        fake(args, what, npm, cwd=cwd, env=env)
        (cwd / "package-lock.json").unlink()
        if lock is not None:
            (cwd / "package-lock.json").write_text(lock)

    return npm


def overlay(root: Path, name: str, script: str | None, expect: tuple, *, version: str = "2.0.0",
            integrity: str | None = "sha512-ext", probe: bool = True) -> Overlay:
    """A pinned extension ``name`` of the map under ``root`` with its probe script."""
    folder = root / "decisions" / "demo" / "extensions"
    (folder / "probes").mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.yaml"
    if script is not None:
        (folder / "probes" / f"{name}.mjs").write_text(script)
    return Overlay(extension=name, package=f"@demo/{name}", version=version, summary=f"{name} changes things",
                   changes=(), path=path, line=1, integrity=integrity,
                   probe=Probe(f"what {name} changes", tuple(expect), path, 4) if probe else None)


def use_fake_npm(monkeypatch, fake: FakeNpm, registry: dict[str, str]) -> list[tuple[str, list[str]]]:
    """``fake`` installs, for an extension's probe and for pi's own install; ``registry`` the
    integrity the registry gives for each package. Returns the list of what the registry is asked:
    (package@version, the npm command)."""
    asked = []

    def registry_integrity(spec: str, npm: list[str]) -> str:
        asked.append((spec, npm))
        return registry[spec.rsplit("@", 1)[0]]

    for module in (extension, install):
        monkeypatch.setattr(module, "_npm", fake)
    monkeypatch.setattr(install, "registry_integrity", registry_integrity)  # (an extension's install asks pi's)
    return asked
