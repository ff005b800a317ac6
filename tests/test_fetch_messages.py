"""What a failed fetch tells the user, for each way npm and git say they failed (their own wording,
as they print it): an unknown version, an unreachable registry or repository, a missing ref, or
anything else, shown by its last line. The failures themselves are simulated end to end in
test_faults.py; these pin each phrase the wording is chosen by (mutation testing of source/fetch.py)."""

from __future__ import annotations

import pytest

from generator.source.fetch import _git_failure, _npm_failure

WHAT = "@demo/agent@9.9.9"
UNKNOWN = f"{WHAT} is not in the npm registry (unknown package or version)"
UNREACHABLE = f"the npm registry is unreachable while fetching {WHAT}; check the network and run again"


def dependency(spec: str) -> str:
    return f"{WHAT} cannot be installed: a package it depends on, {spec}, is not in the npm registry"


@pytest.mark.parametrize(("output", "message"), [
    ("npm error code E404\nnpm error 404 Not Found - GET https://registry.npmjs.org/@demo%2fagent", UNKNOWN),
    ("npm error code E404", UNKNOWN),
    ("npm error notarget No matching version found for @demo/agent@9.9.9.", UNKNOWN),
    ("npm error code ETARGET", UNKNOWN),
    ("npm error 404 Not Found - GET https://registry.npmjs.org/x", UNKNOWN),
    # a package the one fetched depends on, named as npm names it (a range, or no version at all)
    ("npm error code ETARGET\nnpm error notarget No matching version found for @other/dep@^2.0.0.\n"
     "npm error notarget In most cases you or one of your dependencies are requesting\n",
     dependency("@other/dep@^2.0.0")),
    ("npm error code ETARGET\nnpm error notarget No matching version found for leftpad@~1.2",
     dependency("leftpad@~1.2")),
    ("npm error code E404\nnpm error 404  '@other/dep@2.0.0' is not in this registry.\n",
     dependency("@other/dep@2.0.0")),
    ("npm error code E404\nnpm error 404  'leftpad' is not in this registry.\n", dependency("leftpad")),
    ("npm error code E404\nnpm error 404 Not Found - GET https://registry.npmjs.org/@other%2fdep - Not found\n",
     dependency("@other/dep")),
    ("npm error code E404\nnpm error 404 Not Found - GET https://registry.npmjs.org/@other%2Fdep - Not found\n",
     dependency("@other/dep")),
    ("npm error code E404\nnpm error 404 Not Found - GET https://registry.npmjs.org/leftpad - Not found\n",
     dependency("leftpad")),
    # the package fetched itself, however npm names it: not a dependency
    ("npm error code E404\nnpm error 404 Not Found - GET https://registry.npmjs.org/@demo%2fagent - Not found\n",
     UNKNOWN),
    ("npm error 404  '@demo/agent@9.9.9' is not in this registry.\n", UNKNOWN),
    ("npm error code ENOTFOUND\nnpm error syscall getaddrinfo", UNREACHABLE),
    ("npm error code ECONNREFUSED", UNREACHABLE),
    ("npm error code ETIMEDOUT", UNREACHABLE),
    ("npm error code EAI_AGAIN", UNREACHABLE),
    ("npm error code ECONNRESET", UNREACHABLE),
    ("npm error errno ENETUNREACH\nnpm error connect: network is unreachable", UNREACHABLE),
    ("npm error A network error occurred", UNREACHABLE),
    ("npm error the host is unreachable", UNREACHABLE),
    ("npm error code EACCES\nnpm error permission denied, mkdir '/cache'\n\n  ",
     f"npm failed while fetching {WHAT}: npm error permission denied, mkdir '/cache'"),
    ("", f"npm failed while fetching {WHAT}: no output"),
    ("  \n \n", f"npm failed while fetching {WHAT}: no output"),
])
def test_each_npm_failure_is_told_in_its_own_words(output, message) -> None:
    assert _npm_failure(output, WHAT) == message


URL, REF = "https://example.org/demo.git", "v9.9.9"
NO_REF = f"{URL} has no ref {REF}"
NO_REPOSITORY = f"cannot reach the git repository {URL}"


@pytest.mark.parametrize(("output", "message"), [
    ("Cmd('git') failed due to: exit code(128)\n  stderr: 'fatal: Remote branch v9.9.9 not found in upstream origin'",
     NO_REF),
    ("stderr: 'error: pathspec 'v9.9.9' did not match any file(s) known to git'", NO_REF),
    ("stderr: 'error: pathspec v9'", NO_REF),
    ("stderr: 'fatal: reference is not a tree: 0123abc'", NO_REF),
    ("stderr: 'fatal: '/nowhere' does not appear to be a git repository'", NO_REPOSITORY),
    ("stderr: 'fatal: Could not read from remote repository.'", NO_REPOSITORY),
    ("stderr: 'fatal: unable to access 'https://example.org/demo.git/': Could not resolve host'", NO_REPOSITORY),
    ("stderr: 'error: ref v9.9.9 did not match any known ref'", NO_REF),
    ("Cmd('git') failed due to: exit code(128)\n  cmdline: git clone -v -- https://example.org/demo.git\n"
     "  stderr: 'fatal: early EOF'\n", f"git failed to fetch {URL} at {REF}: stderr: 'fatal: early EOF'"),
])
def test_each_git_failure_is_told_in_its_own_words(output, message) -> None:
    assert _git_failure(Exception(output), URL, REF) == message
