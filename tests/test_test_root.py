"""Where the suite's folders and the mutation run's copies go (tests/memory_root.py): memory only
where it is a tmpfs with room."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from conftest import require
from memory_root import MEMORY, in_memory_root


def test_a_folder_that_is_not_a_tmpfs_of_its_own_is_passed_over(tmp_path: Path) -> None:
    assert in_memory_root(0, tmp_path) is None  # a plain folder, even one inside a tmpfs


def test_a_tmpfs_without_room_is_passed_over() -> None:
    # a container's /dev/shm is 64 MB: here, more than the whole of this machine's is asked for
    whole = os.statvfs(MEMORY)
    assert in_memory_root(whole.f_blocks * whole.f_frsize + 1) is None


def test_a_missing_folder_is_passed_over(tmp_path: Path) -> None:
    assert in_memory_root(0, tmp_path / "nowhere") is None


def test_a_tmpfs_mounted_noexec_is_passed_over(tmp_path: Path) -> None:
    """Docker mounts its /dev/shm noexec: the tests' own scripts could not run from there. (The
    mount is made by a shell that unshare starts only inside a mount namespace of its own, so the
    machine never sees it.)"""
    require("root, to mount a tmpfs in a mount namespace", os.geteuid() == 0, "not running as root")
    folder = tmp_path / "shm"
    folder.mkdir()
    probe = (f"import sys; sys.path.insert(0, {str(Path(__file__).parent)!r}); from pathlib import Path; "
             f"from memory_root import in_memory_root; folder = Path({str(folder)!r}); "
             "print(in_memory_root(0, folder) == folder)")
    answers = []
    for options in ("size=1m", "size=1m,noexec"):
        done = subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c",
                               f'mount -t tmpfs -o {options} none "$1" && exec "$2" -c "$3"', "sh", str(folder),
                               sys.executable, probe], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        answers.append(done.stdout.strip())
    assert answers == ["True", "False"]  # the same tmpfs, taken until it is noexec


def test_the_removal_of_a_run_s_folder_is_not_a_child_of_the_run(tmp_path: Path) -> None:
    """mutmut runs pytest in its own process and stops when a child it did not start ends: the
    removal the suite starts at its end (conftest.py) must leave the calling process no child, and
    still remove the folder."""
    doomed = tmp_path / "pi-cache"
    (doomed / "deep" / "er").mkdir(parents=True)
    (doomed / "deep" / "er" / "file").write_text("x")
    caller = ("import os, sys; sys.path.insert(0, sys.argv[1]); from pathlib import Path\n"
              "from memory_root import remove_in_background\n"
              "remove_in_background(Path(sys.argv[2]))\n"
              "try:\n    print('child', os.waitpid(-1, 0)[0])\n"
              "except ChildProcessError:\n    print('no child')\n")
    done = subprocess.run([sys.executable, "-c", caller, str(Path(__file__).parent), str(doomed)],
                          capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "no child"
    assert not doomed.exists()  # moved aside at once, so that a later run never reads a half-removed cache
    for _ in range(600):  # the removal runs at the lowest priority: up to a minute on a busy machine
        if not (tmp_path / "pi-cache.removing").exists():
            break
        time.sleep(0.1)
    assert not (tmp_path / "pi-cache.removing").exists()
