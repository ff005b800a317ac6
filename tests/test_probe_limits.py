"""The control group that bounds a probe's whole process tree (generator/probes/limits.py): which
hierarchy is found (cgroup v2, v1, or none and per-process limits), the limits written into a
new group, every process of it killed and the group removed, what it ran out of, and the groups
a killed `probe` left behind cleared.

Most of it on fake trees in a temporary folder (a folder stands for a group, its files for the
kernel's; a small thread plays the kernel where a group must empty when its processes die), one
test on this machine's own control groups."""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from conftest import require
from generator.probes import limits
from generator.probes.limits import PREFIX, TreeGroup, make_group, tree_limits



def files(folder: Path, contents: dict[str, str] | None = None) -> Path:
    """A fake group: ``folder`` with these files."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in (contents or {}).items():
        (folder / name).write_text(text)
    return folder


def sleeper() -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])


class Kernel:
    """Plays the kernel for fake groups: a process that died leaves cgroup.procs (the file goes
    when the last one has, as the group's files go with its folder), and "1" written to
    cgroup.kill kills every member."""

    def __init__(self, folders: list[Path], children: list[subprocess.Popen]):
        self.folders, self.children, self.done = folders, {c.pid: c for c in children}, threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self) -> None:
        while not self.done.is_set():
            for folder in self.folders:
                procs, kill = folder / "cgroup.procs", folder / "cgroup.kill"
                if not procs.exists():
                    continue
                listed = [int(p) for p in procs.read_text().split()]
                if kill.exists() and kill.read_text().strip() == "1":
                    for pid in listed:
                        self.children[pid].kill()
                alive = [p for p in listed if self.children[p].poll() is None]
                if not alive:
                    procs.unlink()
                elif alive != listed:
                    procs.write_text("\n".join(map(str, alive)))
            time.sleep(0.005)

    def __enter__(self) -> "Kernel":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.done.set()
        self.thread.join()
        for child in self.children.values():
            child.kill()
            child.wait()


CHECK = f"{PREFIX}{os.getpid()}-check-t0"  # the check's group, as the fake kernels lay it out


@pytest.fixture(autouse=True)
def known_token(monkeypatch: pytest.MonkeyPatch):
    """Groups named with a token the fake kernels know (the real one is random)."""
    real = limits._token
    monkeypatch.setattr(limits, "_token", lambda: "t0")
    return real


@pytest.fixture
def found(monkeypatch: pytest.MonkeyPatch):
    """Set what _found() says, for make_group."""
    def use(kind: str, *bases: Path) -> None:
        monkeypatch.setattr(limits, "_found", lambda: (kind, tuple(bases)))
    return use


# --- finding the hierarchy --------------------------------------------------------------------------

HYBRID = [
    "31 23 0:28 / /sys/fs/cgroup rw,relatime shared:9 - tmpfs tmpfs rw,mode=755",
    "32 31 0:29 / /sys/fs/cgroup/cpu,cpuacct rw,relatime shared:10 - cgroup cgroup rw,cpu,cpuacct",
    "35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory",
    "39 31 0:36 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids",
    "41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw",
]


def own(*lines: str) -> list[list[str]]:
    return [line.split(":", 2) for line in lines]


def test_the_own_group_is_found_in_each_hierarchy() -> None:
    mine = own("9:name=systemd:/sys", "5:cpuacct,cpu:/c", "4:memory:/jobs/42", "8:pids:/", "0::/user.slice/a")
    assert limits._own_folder(HYBRID, mine, "cgroup", "memory") == Path("/sys/fs/cgroup/memory/jobs/42")
    assert limits._own_folder(HYBRID, mine, "cgroup", "pids") == Path("/sys/fs/cgroup/pids")
    assert limits._own_folder(HYBRID, mine, "cgroup", "cpu") == Path("/sys/fs/cgroup/cpu,cpuacct/c")
    assert limits._own_folder(HYBRID, mine, "cgroup2", "") == Path("/sys/fs/cgroup/unified/user.slice/a")


def test_a_controller_is_matched_by_its_whole_name() -> None:
    mounts = ["1 0 0:1 / /cg/acct rw - cgroup cgroup rw,cpuacct", "2 0 0:2 / /cg/cpu rw - cgroup cgroup rw,cpu"]
    mine = own("2:cpuacct:/acct-group", "1:cpu:/cpu-group")
    assert limits._own_folder(mounts, mine, "cgroup", "cpu") == Path("/cg/cpu/cpu-group")
    assert limits._own_folder(mounts, own("2:cpuacct:/a"), "cgroup", "cpu") is None, "no group of cpu's own"


def test_a_mount_of_another_part_of_the_tree_is_passed_over() -> None:
    # in a container, a hierarchy is mounted from the container's own group: its root is that group
    mounts = ["1 0 0:1 /other /elsewhere rw - cgroup2 cgroup2 rw",
              "2 0 0:1 /docker/abc /sys/fs/cgroup rw - cgroup2 cgroup2 rw"]
    assert limits._own_folder(mounts, own("0::/docker/abc/probe"), "cgroup2", "") == Path("/sys/fs/cgroup/probe")
    assert limits._own_folder(mounts, own("0::/docker/abc"), "cgroup2", "") == Path("/sys/fs/cgroup")
    assert limits._own_folder(mounts[:1], own("0::/docker/abc"), "cgroup2", "") is None


def test_the_file_system_type_is_read_whatever_the_mount_source() -> None:
    mounts = ["1 0 0:1 / /cg2 rw - cgroup2 none rw", "2 0 0:2 / /mem rw shared:3 master:1 - cgroup none rw,memory"]
    assert limits._own_folder(mounts, own("0::/a"), "cgroup2", "") == Path("/cg2/a")
    assert limits._own_folder(mounts, own("4:memory:/m"), "cgroup", "memory") == Path("/mem/m")


def test_a_v1_mount_is_not_taken_for_v2_nor_v2_for_v1() -> None:
    v1_only = [line for line in HYBRID if "cgroup2" not in line]
    assert limits._own_folder(v1_only, own("0::/", "4:memory:/m"), "cgroup2", "") is None
    v2_only = ["41 31 0:38 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw,memory"]
    assert limits._own_folder(v2_only, own("0::/", "4:memory:/m"), "cgroup", "memory") is None
    assert limits._own_folder(HYBRID, own("4:memory:/m"), "cgroup2", "") is None, "no v2 line in /proc/self/cgroup"


@pytest.fixture
def proc(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A fake /proc (/proc/self/mountinfo and cgroup, /proc/<pid> of the processes alive) for _found."""
    root = tmp_path / "proc"
    (root / "self").mkdir(parents=True)
    real_path = Path

    def rerouted(*parts) -> Path:
        path = real_path(*parts)
        return root / path.relative_to("/proc") if path.is_relative_to("/proc") else path

    monkeypatch.setattr(limits, "Path", rerouted)
    limits._found.cache_clear()
    yield root
    limits._found.cache_clear()


def layout(proc: Path, tmp_path: Path, mounts: list[str], cgroup: list[str]) -> None:
    (proc / "self" / "mountinfo").write_text("\n".join(m.replace("/sys/fs/cgroup", str(tmp_path / "cg"))
                                                       for m in mounts) + "\n")
    (proc / "self" / "cgroup").write_text("\n".join(cgroup) + "\n")


def test_cgroup_v2_is_used_where_a_group_made_there_has_both_controllers(proc: Path, tmp_path: Path) -> None:
    layout(proc, tmp_path, HYBRID, ["4:memory:/m", "8:pids:/", "0::/user/a"])
    base = files(tmp_path / "cg" / "unified" / "user" / "a")
    files(base / CHECK, {"cgroup.controllers": "cpu memory io pids\n", "memory.max": "max\n"})
    assert limits._found() == ("cgroup2", (base,))
    assert tree_limits() == "cgroup2"


def test_without_the_controllers_in_v2_the_v1_hierarchies_are_used(proc: Path, tmp_path: Path) -> None:
    layout(proc, tmp_path, HYBRID, ["4:memory:/m", "8:pids:/", "0::/user/a"])
    base = files(tmp_path / "cg" / "unified" / "user" / "a")
    files(base / CHECK, {"cgroup.controllers": "cpu io\n", "memory.max": "max\n"})
    memory, pids = files(tmp_path / "cg" / "memory" / "m"), files(tmp_path / "cg" / "pids")
    files(memory / CHECK, {"memory.limit_in_bytes": "9223372036854771712\n"})
    files(pids / CHECK, {"pids.max": "max\n"})
    assert limits._found() == ("cgroup1", (memory, pids))
    assert (base / "cgroup.subtree_control").read_text() == "+memory +pids", "v2 was asked for both first"


def test_without_a_usable_hierarchy_the_limits_are_per_process(proc: Path, tmp_path: Path) -> None:
    layout(proc, tmp_path, HYBRID, ["4:memory:/m", "8:pids:/", "0::/user/a"])
    files(tmp_path / "cg" / "unified" / "user" / "a")
    memory = files(tmp_path / "cg" / "memory" / "m")
    files(tmp_path / "cg" / "pids")
    files(memory / CHECK, {"memory.limit_in_bytes": "1\n"})  # and no pids.max in the pids group
    assert limits._found() == ("rlimit", ())
    assert tree_limits() == "rlimit"


def test_v1_needs_both_the_memory_and_the_pids_hierarchy(proc: Path, tmp_path: Path) -> None:
    layout(proc, tmp_path, HYBRID, ["4:memory:/m"])
    memory = files(tmp_path / "cg" / "memory" / "m")
    files(memory / CHECK, {"memory.limit_in_bytes": "1\n"})
    assert limits._found() == ("rlimit", ())


def test_without_proc_the_limits_are_per_process(proc: Path) -> None:
    assert limits._found() == ("rlimit", ())  # no /proc/self/mountinfo


def test_the_check_group_is_removed_after_the_check(tmp_path: Path) -> None:
    base = files(tmp_path / "v2")  # its new group gets no controller files: the check fails, cleanly
    assert limits._usable((base,), "cgroup2") is False
    assert list(base.iterdir()) == []
    memory, pids = files(tmp_path / "memory"), files(tmp_path / "pids")
    assert limits._usable((memory, pids), "cgroup1") is False
    assert list(memory.iterdir()) == [] and list(pids.iterdir()) == []


def test_v2_without_memory_max_is_not_usable(tmp_path: Path) -> None:
    base = files(tmp_path / "v2")
    check = files(base / CHECK, {"cgroup.controllers": "memory pids\n"})
    assert limits._usable((base,), "cgroup2") is False
    files(check, {"memory.max": "max\n"})
    assert limits._usable((base,), "cgroup2") is True


def test_v2_with_the_controllers_already_there_asks_for_nothing(tmp_path: Path) -> None:
    base = files(tmp_path / "v2")
    (base / "cgroup.subtree_control").mkdir()  # asking would be refused (EBUSY: the group holds processes)
    files(base / CHECK, {"cgroup.controllers": "pids memory\n", "memory.max": "max\n"})
    assert limits._usable((base,), "cgroup2") is True


def test_v2_whose_subtree_cannot_be_given_the_controllers_is_not_usable(tmp_path: Path) -> None:
    base = files(tmp_path / "v2")
    (base / "cgroup.subtree_control").mkdir()  # the write is refused (EBUSY where the group holds processes)
    files(base / CHECK, {"cgroup.controllers": "memory\n", "memory.max": "max\n"})
    assert limits._usable((base,), "cgroup2") is False


def test_v2_gives_its_groups_the_controllers_when_they_are_missing(tmp_path: Path) -> None:
    base = files(tmp_path / "v2", {"cgroup.subtree_control": "cpu"})
    check = files(base / CHECK, {"memory.max": "max\n"})
    os.mkfifo(check / "cgroup.controllers")  # what the kernel says: "cpu" until memory and pids are delegated

    def kernel() -> None:
        with open(check / "cgroup.controllers", "w") as said:
            said.write("cpu\n")
        while (base / "cgroup.subtree_control").read_text() == "cpu":
            time.sleep(0.005)
        with open(check / "cgroup.controllers", "w") as said:
            said.write("cpu memory pids\n")

    threading.Thread(target=kernel, daemon=True).start()
    assert limits._usable((base,), "cgroup2") is True
    assert (base / "cgroup.subtree_control").read_text() == "+memory +pids"


def test_v1_needs_pids_max_in_the_pids_group(tmp_path: Path) -> None:
    memory, pids = files(tmp_path / "memory"), files(tmp_path / "pids")
    files(memory / CHECK, {"memory.limit_in_bytes": "1\n"})
    check = files(pids / CHECK)
    assert limits._usable((memory, pids), "cgroup1") is False
    files(check, {"pids.max": "max\n"})
    assert limits._usable((memory, pids), "cgroup1") is True


# --- a probe run's group -------------------------------------------------------------------------


def test_a_v2_group_gets_the_memory_without_swap_and_the_processes(tmp_path: Path, found) -> None:
    base = files(tmp_path / "v2")
    found("cgroup2", base)
    group = make_group(64, 16)
    assert group.kind == "cgroup2" and len(group.folders) == 1
    folder = group.folders[0]
    assert folder.parent == base and folder.name.startswith(f"{PREFIX}{os.getpid()}-")
    assert (folder / "memory.max").read_text() == str(64 * 1024 * 1024)
    assert (folder / "memory.swap.max").read_text() == "0"
    assert (folder / "pids.max").read_text() == "16"
    assert make_group(64, 16).folders[0] != folder, "each run has a group of its own"


def test_a_group_has_its_own_name_where_another_namespace_has_the_same_process_id(
        tmp_path: Path, found, known_token, monkeypatch: pytest.MonkeyPatch) -> None:
    """Another PID namespace's process can have this one's id and have made as many groups: its
    group's name must not be this one's (the same count again stands in for it)."""
    base = files(tmp_path / "v2")
    found("cgroup2", base)
    monkeypatch.setattr(limits, "_token", known_token)
    monkeypatch.setattr(limits, "_numbers", itertools.count(7))
    first = make_group(64, 16)
    monkeypatch.setattr(limits, "_numbers", itertools.count(7))
    second = make_group(64, 16)
    assert first.folders[0] != second.folders[0] and all(g.folders[0].is_dir() for g in (first, second))


def test_the_check_leaves_the_check_group_of_another_process_with_the_same_id(
        tmp_path: Path, known_token, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(limits, "_token", known_token)
    base = files(tmp_path / "v2")
    theirs = base / f"{PREFIX}{os.getpid()}-check"  # another namespace's, made a moment before
    theirs.mkdir()
    limits._usable((base,), "cgroup2")
    assert list(base.iterdir()) == [theirs]


def test_a_v1_group_is_a_memory_group_and_a_pids_group(tmp_path: Path, found) -> None:
    memory, pids = files(tmp_path / "memory"), files(tmp_path / "pids")
    found("cgroup1", memory, pids)
    group = make_group(100, 7)
    assert group.kind == "cgroup1"
    assert [f.parent for f in group.folders] == [memory, pids]
    assert group.folders[0].name == group.folders[1].name
    assert (group.folders[0] / "memory.limit_in_bytes").read_text() == str(100 << 20)
    assert (group.folders[0] / "memory.memsw.limit_in_bytes").read_text() == str(100 << 20)
    assert (group.folders[1] / "pids.max").read_text() == "7"
    assert sorted(p.name for p in group.folders[0].iterdir()) == ["memory.limit_in_bytes",
                                                                  "memory.memsw.limit_in_bytes"]


@pytest.fixture
def no_swap_accounting(monkeypatch: pytest.MonkeyPatch) -> None:
    """A kernel without swap accounting: a group has no swap limit file, and none can be made."""
    write = limits._write

    def kernel(path: Path, value: str, optional: bool = False) -> None:
        if path.name in ("memory.swap.max", "memory.memsw.limit_in_bytes"):
            path = path.parent / "not-there" / path.name
        write(path, value, optional)

    monkeypatch.setattr(limits, "_write", kernel)


@pytest.mark.parametrize("kind", ["cgroup2", "cgroup1"])
def test_a_kernel_without_swap_accounting_still_gets_its_group(tmp_path: Path, found, no_swap_accounting,
                                                               kind: str) -> None:
    bases = (files(tmp_path / "a"),) if kind == "cgroup2" else (files(tmp_path / "a"), files(tmp_path / "b"))
    found(kind, *bases)
    group = make_group(64, 16)
    assert group is not None and (group.folders[-1] / "pids.max").read_text() == "16"


def test_without_control_groups_there_is_no_group(found) -> None:
    found("rlimit")
    assert make_group(64, 16) is None


def test_a_group_that_cannot_be_made_leaves_nothing_behind(tmp_path: Path, found) -> None:
    memory = files(tmp_path / "memory")
    found("cgroup1", memory, tmp_path / "no-pids-hierarchy")
    with pytest.raises(OSError):
        make_group(64, 16)
    assert list(memory.iterdir()) == []


def test_a_limit_that_cannot_be_written_is_an_error_unless_optional(tmp_path: Path) -> None:
    folder = files(tmp_path / "g")
    (folder / "memory.swap.max").mkdir()  # a write there fails
    limits._write(folder / "memory.swap.max", "0", optional=True)
    with pytest.raises(OSError):
        limits._write(folder / "memory.swap.max", "0")
    limits._write(folder / "pids.max", "5")
    assert (folder / "pids.max").read_text() == "5"


def test_joining_writes_the_process_into_every_folder(tmp_path: Path) -> None:
    a, b = files(tmp_path / "a", {"cgroup.procs": ""}), files(tmp_path / "b", {"cgroup.procs": ""})
    TreeGroup("cgroup1", (a, b)).join()
    assert (a / "cgroup.procs").read_text() == str(os.getpid()) == (b / "cgroup.procs").read_text()


def test_the_members_are_every_process_of_every_folder(tmp_path: Path) -> None:
    a = files(tmp_path / "a", {"cgroup.procs": "30\n4\n"})
    b = files(tmp_path / "b", {"cgroup.procs": "4\n200\n"})
    assert TreeGroup("cgroup1", (a, b)).members() == [4, 30, 200]
    gone = tmp_path / "gone"
    broken = files(tmp_path / "broken", {"cgroup.procs": "not-a-pid\n12\n"})
    assert TreeGroup("cgroup1", (gone, broken, b)).members() == [4, 200]


def test_a_v2_group_is_killed_through_cgroup_kill(tmp_path: Path) -> None:
    child = sleeper()
    folder = files(tmp_path / "g", {"cgroup.procs": str(child.pid), "cgroup.kill": ""})
    with Kernel([folder], [child]):
        TreeGroup("cgroup2", (folder,)).kill()
        assert child.poll() is not None and child.returncode == -9
    assert (folder / "cgroup.kill").read_text() == "1"


def test_a_v2_group_without_cgroup_kill_is_killed_process_by_process(tmp_path: Path) -> None:
    child = sleeper()
    folder = files(tmp_path / "g", {"cgroup.procs": str(child.pid)})  # a kernel before 5.14
    with Kernel([folder], [child]):
        TreeGroup("cgroup2", (folder,)).kill()
        assert child.poll() == -9
    assert not (folder / "cgroup.kill").exists(), "the kernel refuses a new file in a group: none is written"


def test_a_v1_group_is_killed_process_by_process(tmp_path: Path) -> None:
    children = [sleeper(), sleeper()]
    memory = files(tmp_path / "memory", {"cgroup.procs": str(children[0].pid)})
    pids = files(tmp_path / "pids", {"cgroup.procs": f"{children[0].pid}\n{children[1].pid}"})
    with Kernel([memory, pids], children):
        TreeGroup("cgroup1", (memory, pids)).kill()
        assert [c.poll() for c in children] == [-9, -9]
    assert not (memory / "cgroup.kill").exists(), "v1 has no cgroup.kill"


def test_a_removed_group_has_no_process_and_no_folder(tmp_path: Path) -> None:
    child = sleeper()
    a, b = files(tmp_path / "a", {"cgroup.procs": str(child.pid)}), files(tmp_path / "b")
    with Kernel([a, b], [child]):
        TreeGroup("cgroup1", (a, b)).remove()
        assert child.poll() == -9
    assert not a.exists() and not b.exists()


def test_a_folder_still_busy_is_left_for_the_next_probe(tmp_path: Path) -> None:
    busy, empty = files(tmp_path / "busy", {"memory.max": "1"}), files(tmp_path / "empty")
    TreeGroup("cgroup1", (busy, empty)).remove()
    assert busy.exists() and not empty.exists()


@pytest.mark.parametrize(("contents", "expected"), [
    ({"memory.events": "low 0\nhigh 0\nmax 4\noom 1\noom_kill 1\n"}, "memory"),
    ({"memory.events": "max 4\noom_kill 0\n", "pids.events": "max 2\n"}, "processes"),
    ({"memory.events": "max 4\noom_kill 0\n", "pids.events": "max 0\n"}, None),
    ({"memory.events": "oom_kill 3 extra\n", "pids.events": "max 1 extra\n"}, None),
    ({"memory.events": "oom_kill 3 extra\noom_kill 0\n"}, None),
    ({}, None),
    ({"pids.events": "max 2\n"}, "processes"),
])
def test_a_v2_group_says_what_it_ran_out_of(tmp_path: Path, contents, expected) -> None:
    assert TreeGroup("cgroup2", (files(tmp_path / "g", contents),)).ran_out_of() == expected


def test_a_v1_group_reads_the_oom_control_and_the_pids_group(tmp_path: Path) -> None:
    memory = files(tmp_path / "memory", {"memory.oom_control": "oom_kill_disable 0\nunder_oom 0\noom_kill 0\n"})
    pids = files(tmp_path / "pids", {"pids.events": "max 0\n"})
    group = TreeGroup("cgroup1", (memory, pids))
    assert group.ran_out_of() is None
    files(pids, {"pids.events": "max 5\n"})
    assert group.ran_out_of() == "processes"
    files(memory, {"memory.oom_control": "oom_kill_disable 0\nunder_oom 0\noom_kill 1\n"})
    assert group.ran_out_of() == "memory"
    files(memory, {"pids.events": "max 9\n"})  # the memory group's own pids.events is not the pids group's
    files(pids, {"pids.events": "max 0\n"})
    files(memory, {"memory.oom_control": "oom_kill 0\n"})
    assert group.ran_out_of() is None


# --- what a killed `probe` left behind ---------------------------------------------------------------


def test_the_groups_of_a_probe_no_longer_running_are_removed(proc: Path, tmp_path: Path) -> None:
    (proc / str(os.getpid())).mkdir()
    base = files(tmp_path / "base")
    dead = files(base / f"{PREFIX}99999-0")
    mine = files(base / f"{PREFIX}{os.getpid()}-0")
    odd = files(base / f"{PREFIX}x-0")
    other = files(base / "other-99999-0")
    limits._remove_stale((base,))
    assert not dead.exists()
    assert mine.exists() and odd.exists() and other.exists()


def test_a_left_group_still_holding_a_process_is_killed_as_its_kind(proc: Path, tmp_path: Path) -> None:
    child = sleeper()
    base = files(tmp_path / "base")
    left = files(base / f"{PREFIX}99999-0", {"cgroup.procs": str(child.pid), "cgroup.kill": ""})
    with Kernel([left], [child]):
        limits._remove_stale((base,))
        assert child.poll() == -9
    assert not left.exists() or (left / "cgroup.kill").read_text() == "1", "a v2 group is killed through cgroup.kill"
    assert (left / "cgroup.kill").read_text() == "1"


# --- this machine's own control groups ----------------------------------------------------------------


def test_a_real_group_bounds_the_tree_and_is_removed_with_everything_in_it() -> None:
    require("control groups", tree_limits() != "rlimit", "no cgroup v2 or v1 group can be made here")
    group = make_group(256, 4)
    try:
        shell = subprocess.Popen(["sh", "-c", "for i in 1 2 3 4 5 6; do sleep 30 & done; wait"],
                                 preexec_fn=group.join, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 20
        while group.ran_out_of() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        assert group.ran_out_of() == "processes"
        assert 0 < len(group.members()) <= 4
    finally:
        group.remove()
    shell.wait(timeout=10)
    assert not any(folder.exists() for folder in group.folders)
