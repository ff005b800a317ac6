"""A folder in memory for a run's many small files, where the machine has one with room: the test
suite's folders (tests/conftest.py) and the mutation run's copies (bench/mutation.py); and a
run's folder removed once the run is over.

On this machine's ext4 /tmp, npm's installs took two to three times the CPU they take on /dev/shm
(pi 1.6.0 and pi-mermaid, three installs each: 23.1-34.2 CPU-s against 9.8-10.8), and the git
repositories the tests build cost less too (bench/mutation.py's default_work). A container's /dev/shm (64 MB), or a small
machine's, is passed over, and so is one mounted noexec (Docker's is): the tests run scripts they
write there (a fake npm, a logging git), and npm's installs their programs."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

MEMORY = Path("/dev/shm")


def in_memory_root(room: int, folder: Path = MEMORY) -> Path | None:
    """``folder`` when it is a tmpfs of its own that this user can write and run programs from,
    with ``room`` bytes free; else None."""
    try:
        mounts = Path("/proc/self/mounts").read_text().splitlines()
        free = os.statvfs(folder)
    except OSError:
        return None
    tmpfs = any(line.split()[1:3] == [str(folder), "tmpfs"] for line in mounts)
    runs = not free.f_flag & (os.ST_NOEXEC | os.ST_RDONLY)
    if tmpfs and runs and free.f_bavail * free.f_frsize >= room and os.access(folder, os.W_OK):
        return folder
    return None


def remove_in_background(folder: Path) -> None:
    """Remove ``folder`` in a process of its own, at the lowest priority, that outlives the run. The
    run's pi cache holds three quarters of its files (250,000 of 340,000: pi and every extension
    installed, pi's trees); pytest keeps the last three runs' folders and removes the fourth's when
    a later run ends, which took that run a minute (measured). The cache serves no one once its run
    has ended; the site, its build's log and each test's own folder stay for a person to read.

    The removal is not this process's child: a shell starts it in the background and ends, and is
    waited for here. mutmut runs pytest in its own process and takes any child that ends for one of
    its mutants' (it stopped with a KeyError when a removal it had not started ended)."""
    if not folder.is_dir():
        return
    doomed = folder.with_name(f"{folder.name}.removing")
    try:
        folder.rename(doomed)
    except OSError:
        return  # (left for pytest's own clean-up)
    low = ["nice", "-n", "19"] + (["ionice", "-c", "3"] if shutil.which("ionice") else [])
    subprocess.run(["sh", "-c", '"$@" >/dev/null 2>&1 </dev/null &', "sh", *low, "rm", "-rf", "--one-file-system",
                    str(doomed)], check=False, start_new_session=True)
