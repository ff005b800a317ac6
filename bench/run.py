"""`make bench`: speed as ratios against floors measured in the same run (medians of repeats).

1. verify (warm cache, the real map) against the floor: start Python, import tree-sitter and
   parse exactly the cited files once.
2. scaling: 10 … 10,000 citations generated over pi 1.4.0, verified against 1.6.0.
3. the site build against a plain MkDocs build of the same generated Markdown.
4. fetch: cold (empty cache) against `npm pack` of the same packages by hand.
5. probes: every probe run, remembered, and cold; the floor of an empty probe in the sandbox.
6. replay: citations carried through every release from 0.99.1 to 1.6.0, against straight.
7. page budgets: the HTML size and DOM element count of the full map, the latest edition page
   and the entry page that cites the most code, and the size of the search index, against the
   budgets of a light site (not timed).

`python bench/run.py pages` (or any stages by name: verify, scaling, site, fetch, probes,
replay, pages) runs only those.
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
REPEATS = int(os.environ.get("BENCH_REPEATS", "5"))
BASE, TARGET = "1.4.0", "1.6.0"  # the scaling map is generated over BASE and verified at TARGET
sys.path.insert(0, str(ROOT))


def timed(command: list[str], repeats: int = REPEATS, env: dict | None = None, setup=None) -> float:
    """Median wall time of a whole command, in seconds."""
    times = []
    for _ in range(repeats):
        if setup:
            setup()
        start = time.perf_counter()
        subprocess.run(command, cwd=ROOT, env={**os.environ, **(env or {})}, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def cited_files() -> list[Path]:
    from generator.map.load import load_maps
    from generator.citations.verify import Trees

    decision_map = load_maps(ROOT / "decisions")[0]
    tree = Trees(decision_map, quiet=True).tree(decision_map.version)
    return sorted({tree.root / c.file for e in decision_map.entries for c in e.cites})


FLOOR = """
import sys, tree_sitter, tree_sitter_typescript
language = tree_sitter.Language(tree_sitter_typescript.language_typescript())
parser = tree_sitter.Parser(language)
for path in open(sys.argv[1]).read().split():
    parser.parse(open(path, "rb").read())
"""


def bench_verify(rows: list) -> None:
    files = cited_files()
    with tempfile.TemporaryDirectory() as scratch:
        listing = Path(scratch) / "files.txt"
        listing.write_text("\n".join(str(f) for f in files))
        floor_script = Path(scratch) / "floor.py"
        floor_script.write_text(FLOOR)
        timed([PY, "-m", "generator", "verify", "--quiet"], repeats=1)  # warm the cache
        floor = timed([PY, str(floor_script), str(listing)])
        verify = timed([PY, "-m", "generator", "verify", "--quiet"])
        from generator.source.fetch import cache_root

        def forget_symbols() -> None:
            for memo in cache_root().glob("symbols-*.json"):
                memo.unlink()

        unremembered = timed([PY, "-m", "generator", "verify", "--quiet"], setup=forget_symbols)
        timed([PY, "-m", "generator", "verify", "--quiet"], repeats=1)  # leave the memo warm
    rows.append(("verify, real map, warm (whole process)", f"{verify * 1000:.0f} ms",
                 f"floor {floor * 1000:.0f} ms ({len(files)} files parsed)", f"{verify / floor:.2f}×", "≤ 1.5×"))
    rows.append(("verify, real map, symbol memo cleared", f"{unremembered * 1000:.0f} ms",
                 f"floor {floor * 1000:.0f} ms", f"{unremembered / floor:.2f}×", ""))


def generated_map(folder: Path, count: int, seed: int = 7) -> None:
    """A map of ``count`` citations of real declarations of pi 1.4.0, spread over its files."""
    from generator.map.load import load_maps
    from generator.citations.resolve import SourceFile
    from generator.citations.verify import Trees

    real = load_maps(ROOT / "decisions")[0]
    tree = Trees(real, quiet=True).tree(BASE)
    candidates = []
    for path in sorted(tree.files):
        if not path.endswith(".ts") or "/src/" not in path:
            continue
        source = SourceFile(path, tree.read(path))
        for node in source.all_declarations():
                candidates.append((path, node.start_point[0] + 1, min(node.end_point[0] + 1, node.start_point[0] + 40)))
    random.Random(seed).shuffle(candidates)
    chosen = [candidates[i % len(candidates)] for i in range(count)]
    packages = "".join(f'    - package: "{p.package}"\n      path: {p.path}\n' for p in real.source.npm)
    (folder / "map.yaml").write_text(f'title: Benchmark\nrepo: {real.repo}\nversion: "{BASE}"\n'
                                     f"source:\n  npm:\n{packages}")
    per_entry = 100
    for number, start in enumerate(range(0, count, per_entry), 1):
        lines = [f"id: A{number}", "question: Generated for the benchmark?", "decided_by: code",
                 "answer: Generated.", "cites:"]
        for path, first, last in chosen[start:start + per_entry]:
            lines += [f"  - file: {path}", f"    lines: {first}-{last}"]
        (folder / f"A{number}.yaml").write_text("\n".join(lines) + "\n")


def bench_scaling(rows: list) -> None:
    previous = None
    for count in (10, 100, 1000, 10000):
        with tempfile.TemporaryDirectory() as scratch:
            folder = Path(scratch) / "bench"
            folder.mkdir()
            generated_map(folder, count)
            command = [PY, "-m", "generator", "verify", "--quiet", "--decisions", str(folder),
                       "--target", TARGET, "--format", "json"]
            subprocess.run(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            times = []
            for _ in range(max(1, REPEATS // 2)):
                start = time.perf_counter()
                subprocess.run(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                times.append(time.perf_counter() - start)
            median = statistics.median(times)
        per = median / count * 1000
        trend = "" if previous is None else f"{per / previous:.2f}× the previous per-citation time"
        rows.append((f"scaling: {count:,} citations, 1.4.0 → 1.6.0", f"{median * 1000:.0f} ms",
                     f"{per:.3f} ms per citation", trend, "10,000 in < 5 s" if count == 10000 else ""))
        previous = per


def bench_site(rows: list) -> None:
    if not (ROOT / "mkdocs.yml").exists():
        return
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch)
        subprocess.run([PY, "-m", "generator", "render", "--out", str(out / "docs")], cwd=ROOT, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        shutil.rmtree(out / "docs" / "downloads", ignore_errors=True)  # a file the plugin copies, not a page
        for page in (ROOT / "site_src").rglob("*"):
            target = out / "docs" / page.relative_to(ROOT / "site_src")
            if page.is_file() and not target.exists():
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy(page, target)
        plain = (ROOT / "mkdocs.yml").read_text()
        plain = re.sub(r"\n  - decision-map:\n(      .*\n)*", "\n", plain)  # the plugin and its options
        plain = plain.replace("docs_dir: site_src", f"docs_dir: {out / 'docs'}").replace("strict: true", "strict: false")
        # the same nav the plugin builds, so both builds render the same pages
        from generator.site.render import site_nav
        from generator.map.load import load_maps
        pages = [p.relative_to(out / "docs").as_posix() for p in (out / "docs").rglob("*.md")]
        nav = site_nav(load_maps(ROOT / "decisions"), [p for p in pages if not p.startswith("downloads/")])
        import yaml
        plain += "\n" + yaml.safe_dump({"nav": nav}, sort_keys=False)
        (out / "mkdocs.yml").write_text(plain)
        full = timed([PY, "-m", "mkdocs", "build", "--quiet", "--site-dir", str(out / "site1")])
        bare = timed([PY, "-m", "mkdocs", "build", "--quiet", "-f", str(out / "mkdocs.yml"),
                      "--site-dir", str(out / "site2")])
    rows.append(("site build (mkdocs build, warm)", f"{full * 1000:.0f} ms",
                 f"plain build of the same Markdown {bare * 1000:.0f} ms", f"+{(full / bare - 1) * 100:.0f}%", "≤ +30%"))


def bench_fetch(rows: list) -> None:
    from generator.map.load import load_maps

    decision_map = load_maps(ROOT / "decisions")[0]
    specs = [f"{p.package}@{decision_map.version}" for p in decision_map.source.npm]
    with tempfile.TemporaryDirectory() as scratch:
        cache = Path(scratch) / "cache"
        packs = Path(scratch) / "packs"
        packs.mkdir()
        npm_cache = Path(scratch) / "npm-cache"  # an empty npm cache too: both start cold
        env = {"DECISION_MAP_CACHE": str(cache), "npm_config_cache": str(npm_cache)}

        def clear() -> None:
            shutil.rmtree(cache, ignore_errors=True)
            shutil.rmtree(npm_cache, ignore_errors=True)

        repeats = max(1, REPEATS // 2)
        cold = timed([PY, "-m", "generator", "verify", "--quiet"], repeats=repeats, env=env, setup=clear)
        warm = timed([PY, "-m", "generator", "verify", "--quiet"], env={**env, "npm_config_registry": "http://127.0.0.1:9"})
        by_hand = timed(["npm", "pack", "--silent", "--pack-destination", str(packs), *specs], repeats=repeats,
                        env=env, setup=clear)
    rows.append(("fetch, cold (empty caches), then verify", f"{cold * 1000:.0f} ms",
                 f"npm pack by hand {by_hand * 1000:.0f} ms", f"{cold / by_hand:.2f}×", ""))
    rows.append(("verify, warm, registry unreachable", f"{warm * 1000:.0f} ms", "no network used", "", ""))


def bench_probes(rows: list) -> None:
    """Probes: every probe run (install warm, results not remembered), the same remembered, and
    cold (empty caches: pi installed from the registry first); against the floor of one empty
    probe through the sandbox, and what the slowest probe costs."""
    from generator.map.load import load_maps
    from generator.probes.run import run_probes
    from generator.probes.install import _open, find_node, install_pi
    from generator.probes.sandbox import Limits, choose_sandbox, run_sandboxed

    decision_map = load_maps(ROOT / "decisions")[0]
    command = [PY, "-m", "generator", "probe", "--quiet"]
    timed(command, repeats=1, env={"DECISION_MAP_PROBE_CACHE": "off"})  # install pi at the pin
    every = timed(command, repeats=max(1, REPEATS // 2), env={"DECISION_MAP_PROBE_CACHE": "off"})
    timed(command, repeats=1)  # remember the results
    remembered = timed(command)
    results = run_probes(decision_map, use_cache=False)
    slowest = max(results, key=lambda r: r.seconds)
    node, install = find_node(), install_pi(decision_map, decision_map.version, quiet=True)
    sandbox = choose_sandbox()
    started = time.perf_counter()
    _open(install.root, install.version, install.packages)  # every installed file against its manifest
    install_check = time.perf_counter() - started
    with tempfile.TemporaryDirectory() as scratch:
        empty = Path(scratch) / "empty.mjs"
        empty.write_text('console.log("{}")\n')
        floor = statistics.median(run_sandboxed(empty.read_bytes(), "empty.mjs", node, install, Limits(),
                                                "empty.mjs", sandbox).seconds for _ in range(REPEATS))
        bare = timed([str(node.binary), str(empty)])
        cache, npm_cache = Path(scratch) / "cache", Path(scratch) / "npm-cache"
        cold = timed(command, repeats=1, env={"DECISION_MAP_CACHE": str(cache), "npm_config_cache": str(npm_cache)})
    count = len(results)
    rows.append((f"probes: all {count} run, pi installed (sandbox: {sandbox.name})", f"{every * 1000:.0f} ms",
                 f"{every / max(count, 1) * 1000:.0f} ms per probe, 2 at a time", "", "≤ 30 s"))
    rows.append(("probes: all, results remembered", f"{remembered * 1000:.0f} ms", "nothing runs", "", ""))
    rows.append(("probes: cold (empty caches: npm install of pi, then all)", f"{cold * 1000:.0f} ms", "", "", ""))
    rows.append(("probe floor: an empty probe in the sandbox", f"{floor * 1000:.0f} ms",
                 f"plain node {bare * 1000:.0f} ms", f"{floor / bare:.2f}×", ""))
    rows.append((f"slowest probe: {slowest.id}", f"{slowest.seconds * 1000:.0f} ms", "", "", ""))
    rows.append(("install check: every installed file against its manifest", f"{install_check * 1000:.0f} ms",
                 "once per `probe`", "", ""))


REPLAY = ["0.99.1", "1.0.3", "1.3.0", "1.4.0", "1.5.0", "1.5.2", "1.6.0"]
TABLES: list[str] = []  # printed after the main table


def bench_replay(rows: list) -> None:
    """Citations over real declarations of 0.99.1 carried release by release to 1.6.0, as `bump`
    would, against resolving 0.99.1 straight to 1.6.0 (trees fetched first, so only resolving counts)."""
    from generator.map.load import load_maps
    from generator.citations.replay import replay, table
    from generator.citations.verify import Trees

    decision_map = load_maps(ROOT / "decisions")[0]
    trees = Trees(decision_map, quiet=True)
    for version in REPLAY:
        trees.tree(version)
    start = time.perf_counter()
    result = replay(decision_map, REPLAY, trees, declarations=300)
    seconds = time.perf_counter() - start
    differs = sum(len(step.text_differs) for step in result.steps)
    rows.append((f"replay: {result.citations} citations, {len(REPLAY) - 1} releases", f"{seconds * 1000:.0f} ms",
                 f"{seconds * 1000 / result.citations / len(REPLAY):.2f} ms per citation and release",
                 f"{differs} moved with other text", "0"))
    rows.append(("replay: release by release = straight", f"{result.agree} agree",
                 f"{len(result.disagree)} disagree", "", "0 disagree"))
    TABLES.append("Replay over real releases (ok / moved / … per step):\n\n" + table(result))


PAGE_BUDGET = {"html": 400 * 1024, "elements": 10_000, "search": 400 * 1024}
# an entry's page, measured at the entry that cites the most lines (C10: 373 KB and 12,362 elements
# before its code was shown plain; 3.6 s to DOMContentLoaded on a slow phone)
ENTRY_BUDGET = {"html": 150 * 1000, "elements": 3_000}


def bench_pages(rows: list) -> None:
    """The built site's heaviest pages and its search index, against the budgets of a light site."""
    from generator.map.load import load_maps

    decision_map = load_maps(ROOT / "decisions")[0]
    pages = {"full map": f"{decision_map.name}/map/"}
    if decision_map.editions:
        latest = decision_map.editions[-1]
        pages[f"edition {latest.from_version} → {latest.to_version}"] = f"{decision_map.name}/editions/{latest.slug}/"
    with tempfile.TemporaryDirectory() as scratch:
        site = Path(scratch) / "site"
        subprocess.run([PY, "-m", "generator", "build", "--site-dir", str(site), "--quiet"], cwd=ROOT, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        heaviest = max(decision_map.entries, key=lambda e: sum(c.end - c.start + 1 for c in e.cites))
        entry_path = f"{decision_map.name}/{heaviest.id}/"
        elements = _dom_elements(site, list(pages.values()) + [entry_path])
        size = (site / entry_path / "index.html").stat().st_size
        count = elements.get(entry_path)
        rows.append((f"page budget: {heaviest.id} (most cited code), HTML", f"{size / 1000:.0f} KB", "budget 150 KB",
                     f"{size / ENTRY_BUDGET['html']:.2f}×", "≤ 150 KB"))
        rows.append((f"page budget: {heaviest.id} (most cited code), DOM elements",
                     f"{count:,}" if count is not None else "not measured", "budget 3,000",
                     f"{count / ENTRY_BUDGET['elements']:.2f}×" if count is not None else "", "≤ 3,000"))
        for label, path in pages.items():
            size = (site / path / "index.html").stat().st_size
            rows.append((f"page budget: {label}, HTML", f"{size / 1024:.0f} KB", "budget 400 KB",
                         f"{size / PAGE_BUDGET['html']:.2f}×", "≤ 400 KB"))
            count = elements.get(path)
            rows.append((f"page budget: {label}, DOM elements", f"{count:,}" if count is not None else "not measured",
                         "budget 10,000", f"{count / PAGE_BUDGET['elements']:.2f}×" if count is not None else "",
                         "≤ 10,000"))
        index = site / "search" / "search_index.json"
        docs = len(json.loads(index.read_text())["docs"])
        rows.append(("page budget: search index", f"{index.stat().st_size / 1024:.0f} KB",
                     f"budget 400 KB ({docs} documents)", f"{index.stat().st_size / PAGE_BUDGET['search']:.2f}×",
                     "≤ 400 KB"))


def _dom_elements(site: Path, paths: list[str]) -> dict[str, int]:
    """Elements in each page once it has loaded, counted in a real browser (none counted when there
    is none): $DECISION_MAP_BROWSER, else Debian's headless shell, else /usr/bin/chromium, else
    Playwright's own (the browser tests' order: tests/browsing.py)."""
    import functools
    import http.server
    import threading

    from playwright.sync_api import Error, sync_playwright

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    debian = [path for path in ("/usr/bin/chromium-headless-shell", "/usr/bin/chromium") if Path(path).exists()]
    executable = os.environ.get("DECISION_MAP_BROWSER") or next(iter(debian), None)
    counts = {}
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=executable, args=["--no-sandbox", "--disable-gpu"])
            tab = browser.new_page()
            for path in paths:
                tab.goto(f"http://127.0.0.1:{server.server_port}/{path}", wait_until="load")
                counts[path] = tab.evaluate("document.getElementsByTagName('*').length")
            browser.close()
    except Error as err:
        print(f"no browser to count DOM elements: {str(err).splitlines()[0]}", file=sys.stderr)
    finally:
        server.shutdown()
        server.server_close()
    return counts


STAGES = {"verify": bench_verify, "scaling": bench_scaling, "site": bench_site, "fetch": bench_fetch,
          "probes": bench_probes, "replay": bench_replay, "pages": bench_pages}


def main() -> None:
    rows: list[tuple] = []
    chosen = sys.argv[1:] or list(STAGES)
    unknown = [name for name in chosen if name not in STAGES]
    if unknown:
        sys.exit(f"bench/run.py: unknown stage {', '.join(unknown)}; choose from {', '.join(STAGES)}")
    for stage in (STAGES[name] for name in chosen):
        print(f"running {stage.__name__} …", file=sys.stderr, flush=True)
        stage(rows)
    header = ("measure", "median", "against", "ratio", "target")
    widths = [max(len(str(r[i])) for r in rows + [header]) for i in range(5)]
    print(f"\n{os.cpu_count()} cores; Python {sys.version.split()[0]}; {REPEATS} repeats, medians\n")
    print("| " + " | ".join(h.ljust(widths[i]) for i, h in enumerate(header)) + " |")
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for row in rows:
        print("| " + " | ".join(str(c).ljust(widths[i]) for i, c in enumerate(row)) + " |")
    for extra in TABLES:
        print("\n" + extra)


if __name__ == "__main__":
    main()
