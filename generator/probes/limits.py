"""Limits on a probe's whole process tree: the memory and the number of processes (threads count)
of everything it starts, together, through a control group of its own.

Which control groups: cgroup v2 when the unified hierarchy has the memory and pids controllers
for a group made here; else cgroup v1's memory and pids hierarchies (the hybrid layout many CI
machines and containers still have); else none, and the limits are per process only (RLIMIT_AS,
and RLIMIT_NPROC, which the kernel does not apply to root). :func:`tree_limits` names which one,
and the sandbox's name carries it into every result.

A group is made per probe run (``pi-probe-<pid>-<n>-<random>`` beside the group ``probe`` itself runs in),
joined by the sandbox's first process before it starts anything, emptied with SIGKILL when the run
ends and then removed. A group left behind by a ``probe`` that was killed outright is removed by
the next one.
"""

from __future__ import annotations

import itertools
import os
import secrets
import signal
import time
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

PREFIX = "pi-probe-"
_numbers = itertools.count()


@dataclass(frozen=True)
class TreeGroup:
    """One probe run's control group(s): one folder under cgroup v2, two (memory, pids) under v1."""

    kind: str  # "cgroup2" | "cgroup1"
    folders: tuple[Path, ...]

    def join(self) -> None:
        """Move the calling process into the group (run in the sandbox's process before exec)."""
        for folder in self.folders:
            handle = os.open(folder / "cgroup.procs", os.O_WRONLY)
            try:
                os.write(handle, str(os.getpid()).encode())
            finally:
                os.close(handle)

    def members(self) -> list[int]:
        found = set()
        for folder in self.folders:
            try:
                found.update(int(pid) for pid in (folder / "cgroup.procs").read_text().split())
            except (OSError, ValueError):
                pass
        return sorted(found)

    def kill(self) -> None:
        """SIGKILL every process of the group, and return once none is left (at most 5 s)."""
        kill_file = self.folders[0] / "cgroup.kill"
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            members = self.members()
            if not members:
                return
            if self.kind == "cgroup2" and kill_file.exists():
                _write(kill_file, "1")
            for pid in members:  # v1, or a kernel before 5.14: one by one, until none is left
                try:
                    os.kill(pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
            time.sleep(0.01)

    def remove(self) -> None:
        self.kill()
        for folder in self.folders:
            try:
                folder.rmdir()
            except OSError:
                pass  # still busy a moment after the kill: the next `probe` removes it

    def ran_out_of(self) -> str | None:
        """"memory" when the kernel ended a process of the group for passing its memory limit,
        "processes" when a fork was refused at its limit, else None."""
        memory, pids = (self.folders[0], self.folders[0]) if self.kind == "cgroup2" else self.folders
        for what, path, key in (("memory", memory / ("memory.events" if self.kind == "cgroup2" else
                                                     "memory.oom_control"), "oom_kill"),
                                ("processes", pids / "pids.events", "max")):
            try:
                counts = dict(line.split() for line in path.read_text().splitlines() if len(line.split()) == 2)
            except (OSError, ValueError):
                continue
            if int(counts.get(key, "0")) > 0:
                return what
        return None


def tree_limits() -> str:
    """How a probe's whole tree is limited here: "cgroup2", "cgroup1" or "rlimit" (per process)."""
    return _found()[0]


def make_group(memory_mb: int, processes: int) -> TreeGroup | None:
    """A new control group with these limits, or None where groups cannot be made (see the module)."""
    kind, bases = _found()
    if kind == "rlimit":
        return None
    name = f"{PREFIX}{os.getpid()}-{next(_numbers)}-{_token()}"
    folders = tuple(base / name for base in bases)
    try:
        for folder in folders:
            folder.mkdir()
        if kind == "cgroup2":
            _write(folders[0] / "memory.max", str(memory_mb << 20))
            _write(folders[0] / "memory.swap.max", "0", optional=True)
            _write(folders[0] / "pids.max", str(processes))
        else:
            _write(folders[0] / "memory.limit_in_bytes", str(memory_mb << 20))
            _write(folders[0] / "memory.memsw.limit_in_bytes", str(memory_mb << 20), optional=True)
            _write(folders[1] / "pids.max", str(processes))
    except OSError:
        TreeGroup(kind, folders).remove()
        raise
    return TreeGroup(kind, folders)


def _token() -> str:
    """What makes a group's name this process's own: its process id alone is not, where processes of
    other PID namespaces (containers, `unshare`) make groups in the same hierarchy and have the
    same ids (seen: two runs' `pi-probe-2-112`, the second refused with FileExistsError)."""
    return secrets.token_hex(4)


def _write(path: Path, value: str, optional: bool = False) -> None:
    try:
        path.write_text(value)
    except OSError:
        if not optional:
            raise


@lru_cache(maxsize=None)
def _found() -> tuple[str, tuple[Path, ...]]:
    """Where this process may make groups with both controllers; tried once per process."""
    try:
        mounts = Path("/proc/self/mountinfo").read_text().splitlines()
        own = [line.split(":", 2) for line in Path("/proc/self/cgroup").read_text().splitlines()]
    except OSError:
        return "rlimit", ()
    v2 = _own_folder(mounts, own, "cgroup2", "")
    if v2 is not None and _usable((v2,), "cgroup2"):
        return "cgroup2", (v2,)
    v1 = tuple(_own_folder(mounts, own, "cgroup", controller) for controller in ("memory", "pids"))
    if all(v1) and _usable(v1, "cgroup1"):
        return "cgroup1", v1  # type: ignore[return-value]
    return "rlimit", ()


def _own_folder(mounts: list[str], own: list[list[str]], fstype: str, controller: str) -> Path | None:
    """The folder of this process's own group in the hierarchy of ``controller`` ("" for v2)."""
    path = next((p for _, names, p in own if (controller in names.split(",") if controller else names == "")), None)
    if path is None:
        return None
    for line in mounts:
        fields = line.split()
        dash = fields.index("-")
        if fields[dash + 1] != fstype or (controller and controller not in fields[dash + 3].split(",")):
            continue
        root, mount_point = fields[3], fields[4]
        relative = os.path.relpath(path, root)
        if relative.startswith(".."):
            continue
        return Path(mount_point) / relative
    return None


def _usable(bases: tuple[Path, ...], kind: str) -> bool:
    """Whether a group made here gets both limits: made, looked at and removed again."""
    _remove_stale(bases)
    name = f"{PREFIX}{os.getpid()}-check-{_token()}"
    folders = [base / name for base in bases]
    try:
        for folder in folders:
            folder.mkdir(exist_ok=True)
        if kind == "cgroup2":
            controllers = (folders[0] / "cgroup.controllers").read_text().split()
            if not {"memory", "pids"} <= set(controllers):
                subtree = bases[0] / "cgroup.subtree_control"
                subtree.write_text("+memory +pids")  # refused (EBUSY) where this group holds processes
                controllers = (folders[0] / "cgroup.controllers").read_text().split()
            return {"memory", "pids"} <= set(controllers) and (folders[0] / "memory.max").exists()
        return (folders[0] / "memory.limit_in_bytes").exists() and (folders[1] / "pids.max").exists()
    except OSError:
        return False
    finally:
        for folder in folders:
            try:
                folder.rmdir()
            except OSError:
                pass


def _remove_stale(bases: tuple[Path, ...]) -> None:
    """Groups of a `probe` that no longer runs (killed before it could clean up)."""
    for base in bases:
        for folder in base.glob(f"{PREFIX}*"):
            owner = folder.name[len(PREFIX):].split("-")[0]
            if owner.isdigit() and not Path(f"/proc/{owner}").exists():
                TreeGroup("cgroup2" if (folder / "cgroup.kill").exists() or (folder / "memory.max").exists()
                          else "cgroup1", (folder,)).remove()
