"""The command line: wires the stages together; holds no logic of its own beyond formatting."""

from __future__ import annotations

import argparse
import io
import json
import signal
import sys
import textwrap
from pathlib import Path

from .citations import report
from .errors import DecisionMapError, InputError, UsageError

EXAMPLES = """examples:
  python -m generator verify                      check every citation at the pinned version
  python -m generator verify --target 1.7.0       what would drift if pi moved to 1.7.0
  python -m generator verify --format json        one JSON object, for scripts
  python -m generator fix --target 1.7.0          rewrite the ranges of citations that only moved
  python -m generator bump 1.7.0                  move the map to a new release
  python -m generator new FILE:LINE --group E     start a new entry from the code that decides
  python -m generator source                      where the pinned source is on disk
  python -m generator probe P1 D1                 run pi itself and check what the entries claim
  python -m generator leads D8                    code D8's citations do not cover, for its reviewer
  python -m generator build                       verify, then build the site into site/
"""


def main(argv: list[str] | None = None) -> int:
    # The reports print arrows and box lines; a terminal whose encoding lacks them (an ASCII or
    # Latin-1 locale) gets them as \u escapes instead of a traceback (in JSON, the same character).
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors="backslashreplace")
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as stop:  # argparse printed its own message; bad usage is exit 2
        return 2 if stop.code not in (0, None) else 0
    if not args.command:  # the subparsers' dest: None when no command was given
        parser.print_help()
        return 2
    try:
        return args.run(args)
    except InputError as err:
        for problem in err.problems:
            print(f"error: {problem}", file=sys.stderr)
        print(f"{len(err.problems)} problem(s) found; nothing was changed", file=sys.stderr)
        return 2
    except DecisionMapError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as stop:
        signum = getattr(stop, "signum", signal.SIGINT)  # probe's ProbesStopped names SIGTERM or SIGHUP
        print(f"{'interrupted' if signum == signal.SIGINT else f'stopped by {signal.Signals(signum).name}'}; "
              "nothing was changed", file=sys.stderr)
        return 128 + signum
    except ModuleNotFoundError as err:  # a Python without the project's dependencies
        print(f"error: {err.name} is not installed for {sys.executable}; run `make setup`, then use "
              ".venv/bin/python (or `. .venv/bin/activate`)", file=sys.stderr)
        return 2
    except BrokenPipeError:  # `verify | head`: the reader has gone, which is no error of ours
        sys.stderr.close()
        return 0


class _HelpFormatter(argparse.HelpFormatter):
    """Descriptions wrap to the terminal; indented lines (the examples) stay whole, ready to copy."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        return "\n".join(indent + line if line.startswith("  ") or not line.strip()
                         else textwrap.fill(line, width, initial_indent=indent, subsequent_indent=indent)
                         for line in text.splitlines())


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m generator",
        description="Keep a code-cited decision map true as the mapped code moves.",
        epilog=EXAMPLES, formatter_class=_HelpFormatter)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    add_parser = commands.add_parser
    # every command's help keeps its example on one line, ready to copy
    commands.add_parser = lambda *a, **k: add_parser(*a, formatter_class=_HelpFormatter, **k)

    verify = commands.add_parser(
        "verify", help="resolve every citation and report drift (exit 1 if any is not ok)",
        description="Resolve every citation from the version it was checked at to --target, and report "
                    "each as ok, moved, changed, missing or ambiguous. Exit 0 when all are ok, 1 when "
                    "any is not, 2 on bad input or a source that cannot be fetched.",
        epilog="example:\n  python -m generator verify --target 1.6.0 --format github")
    _common(verify)
    verify.add_argument("--format", choices=("text", "json", "github"), default="text",
                        help="text: a table (default); json: one object; github: ::error annotations")
    verify.add_argument("files", nargs="*", type=Path,
                        help="only check the entries in these YAML files (e.g. from a pre-commit hook)")
    verify.set_defaults(run=_verify)

    fix = commands.add_parser(
        "fix", help="rewrite the line ranges of citations that moved; leave the rest for a person",
        description="Rewrite `lines` of every citation whose code only moved, keeping comments and "
                    "layout; changed, missing and ambiguous citations are left for a person.",
        epilog="example:\n  python -m generator fix --target 1.6.0")
    _common(fix)
    fix.set_defaults(run=_fix)

    bump = commands.add_parser(
        "bump", help="move the map to a new release: apply moved ranges, pin it, record the edition",
        description="Fetch VERSION, verify every citation at it, rewrite the ranges that only moved, pin "
                    "the map to VERSION and write the edition record (decisions/<map>/editions/). Changed, "
                    "missing and ambiguous citations keep the version they were checked at and are shown "
                    "with a diff; `verify` fails until a person re-reads each one (then `accept`).",
        epilog="example:\n  python -m generator bump 1.6.0")
    bump.add_argument("version", metavar="VERSION", help="the release to move to, e.g. 1.7.0")
    bump.add_argument("--extension", metavar="NAME", help="move this extension pinned on npm to its release "
                      "VERSION instead (its integrity is taken from the registry; its edition goes to "
                      "decisions/<map>/extensions/NAME/editions/)")
    _decisions_option(bump)
    bump.add_argument("--quiet", action="store_true", help="no progress display")
    bump.set_defaults(run=_bump)

    accept = commands.add_parser(
        "accept", help="mark a drifted citation as re-read at the pin (takes its new range)",
        description="After a bump, a person re-reads each changed citation and updates the entry's text "
                    "where pi's behaviour changed. `accept ID` then records that the entry's drifted "
                    "citations were re-read at the pinned version: their `lines` become the new range "
                    "and their `version` the pin. Missing or ambiguous citations need a range by hand.",
        epilog="example:\n  python -m generator accept G1 F5")
    accept.add_argument("ids", nargs="+", metavar="ID", help="the entries whose drifted citations were re-read")
    _decisions_option(accept)
    accept.add_argument("--quiet", action="store_true", help="no progress display")
    accept.set_defaults(run=_accept)

    record = commands.add_parser(
        "record", help="record what each citation cites (the tool keeps these; run once for new citations)",
        description="Write each citation's `record` (the symbol, the number of lines and a digest of the cited "
                    "text without whitespace) at the version it was checked at, so that `verify` catches a "
                    "range or pin edited by hand and follows code to another file. Citations that have a record "
                    "keep it; with --replace, the records of the given entries are taken anew from their ranges "
                    "as they are now (after you changed a range on purpose).",
        epilog="examples:\n  python -m generator record\n  python -m generator record --replace D1")
    record.add_argument("ids", nargs="*", metavar="ID", help="only these entries (default: every entry)")
    record.add_argument("--replace", action="store_true",
                        help="take the records anew from the ranges as they are (give the IDs you changed)")
    _decisions_option(record)
    record.add_argument("--quiet", action="store_true", help="no progress display")
    record.set_defaults(run=_record)

    new = commands.add_parser(
        "new", help="start a new entry from a citation (FILE:LINE cites the whole declaration there)",
        description="Write decisions/<map>/<ID>.yaml with the citation filled in and its symbol named. "
                    "FILE:LINE cites the whole enclosing declaration; FILE:A-B cites exactly those lines. "
                    "The question, who decides and the answer are left as TODO, which verify refuses.",
        epilog="example:\n  python -m generator new packages/coding-agent/src/core/skills.ts:428-454 --group C")
    new.add_argument("position", metavar="FILE:LINE[-LINE]", nargs="?",
                     help="a path in the pinned source and a line (the innermost declaration holding it "
                          "is cited) or a range (cited as it is)")
    new.add_argument("--extension", metavar="PACKAGE@VERSION",
                     help="instead, start the overlay of a pi extension on npm: pinned, with every lever "
                          "`levers` finds as a cited item to write (decisions/<map>/extensions/NAME.yaml)")
    new.add_argument("--name", help="with --extension: the overlay's name (default: the package's name)")
    new.add_argument("--map", help="the map's folder name (default: the first map)")
    new.add_argument("--id", help="the new entry's ID (default: the next free ID in the guessed group)")
    new.add_argument("--group", help="the group letter to take the next free ID from (default: the group of "
                                     "the entries that cite the same file; required when none does)")
    _decisions_option(new)
    new.set_defaults(run=_new)

    schema = commands.add_parser(
        "schema", help="write the JSON Schemas of the YAML files (for editors) into schema/",
        description="Write schema/entry.schema.json, map.schema.json, overlay.schema.json and levers.schema.json, "
                    "generated "
                    "from the same specs the loader checks against.",
        epilog="example:\n  python -m generator schema --out schema")
    schema.add_argument("--out", type=Path, default=Path("schema"), metavar="DIR",
                        help="folder to write the schemas to (default: schema)")

    source = commands.add_parser(
        "source", help="print where a map's pinned source tree is on disk (fetching it if needed)",
        description="Fetch the pinned source tree if it is not cached yet and print its folder, so you can "
                    "read the code you cite. With --version, the tree of another release.",
        epilog="example:\n  less $(python -m generator source)/packages/agent/src/agent-loop.ts")
    source.add_argument("--map", help="the map's folder name (default: the first map)")
    source.add_argument("--version", help="another release than the pin")
    source.add_argument("--extension", metavar="PACKAGE@VERSION|NAME",
                        help="instead, a pi extension's package from npm: a mapped one by name, or any at a version")
    _decisions_option(source)
    source.set_defaults(run=_source)
    schema.set_defaults(run=_schema)
    _probe_command(commands)
    _leads_command(commands)
    _levers_command(commands)
    _site_commands(commands)
    return parser


def _decisions_option(command: argparse.ArgumentParser) -> None:
    command.add_argument("--decisions", type=Path, default=Path("decisions"), metavar="DIR",
                         help="folder of maps, or one map folder (default: decisions)")


def _common(command: argparse.ArgumentParser) -> None:
    _decisions_option(command)
    command.add_argument("--target", metavar="VERSION", help="version to resolve at (default: the pin)")
    command.add_argument("--quiet", action="store_true", help="no progress display")


def _resolve_all(args: argparse.Namespace, only: list[Path] | None = None):
    from .map.load import load_maps, with_extensions
    from .citations.verify import Trees, verify_map

    maps = load_maps(args.decisions, only=only, editions=False)  # resolving needs no edition record
    results = []
    for decision_map in with_extensions(maps, only):
        # --target names a release of the map; an extension is resolved at its own pin
        target = args.target if any(decision_map is m for m in maps) else None
        results += verify_map(decision_map, target, Trees(decision_map, quiet=args.quiet))
    return maps, results


def _verify(args: argparse.Namespace) -> int:
    for path in args.files:
        if not path.is_file():
            raise UsageError(f"{path}: no such file")
    maps, results = _resolve_all(args, args.files)  # none given: every entry
    target = args.target or maps[0].version  # load_maps found a map or raised
    print(report.citations_json(results, target) if args.format == "json" else
          report.github_annotations(results) if args.format == "github" else report.citations_table(results, target))
    unrecorded = sum(r.citation.record is None for r in results)
    if unrecorded and args.format != "json":
        print(f"note: {unrecorded} citation(s) have no record of the code they cite yet, so a range edited by "
              "hand cannot be caught; run `python -m generator record` to record them", file=sys.stderr)
    return 0 if all(r.status == "ok" for r in results) else 1


def _fix(args: argparse.Namespace) -> int:
    from .map.load import load_maps, with_extensions
    from .citations.record import checked_at_change, settle
    from .map.rewrite import apply_edits
    from .citations.verify import Trees, verify_map

    edits, also, results = [], {}, []
    maps = load_maps(args.decisions)
    for decision_map in with_extensions(maps):
        trees = Trees(decision_map, quiet=args.quiet)
        chosen = args.target if any(decision_map is m for m in maps) else None  # an extension: at its own pin
        found = verify_map(decision_map, chosen, trees)
        target = chosen or decision_map.version
        if target == decision_map.version:  # a pin edited by hand: bump's safe part, at the pin
            edits += settle(found, trees, target)
            if (text := checked_at_change(decision_map, target)) is not None:
                also[decision_map.path] = text
        else:  # another release: only the moved ranges, each checked at that release from now on
            edits += settle([r for r in found if r.status == "moved"], trees, decision_map.recorded_version)
        results += found
    written = apply_edits(edits, also=also)
    for r in results:
        if r.status == "moved":
            print(f"{r.entry.id}: {r.citation.file}: {r.recorded[0]}-{r.recorded[1]} → {report.where(r)}")
    left = [r for r in results if r.status not in ("ok", "moved")]
    for r in left:
        print(f"{r.entry.id}: {r.citation.file}:{r.recorded[0]}-{r.recorded[1]} is {r.status}; left for a person"
              + (f" ({r.detail})" if r.detail else ""))
    moved = sum(r.status == "moved" for r in results)
    print(f"fixed {moved} moved citation(s) in {len(written)} file(s); {len(left)} need a person")
    return 0 if not left else 1


def _record(args: argparse.Namespace) -> int:
    from .map.load import load_maps, with_extensions
    from .citations.record import checked_at_change, record_edits, require_known
    from .map.rewrite import apply_edits
    from .citations.verify import Trees, check_citations

    if args.replace and not args.ids:
        raise UsageError("--replace takes the records anew from the ranges as they are, which would hide "
                         "every range edited by hand; name the entries you changed on purpose (record --replace D1)")
    maps = with_extensions(load_maps(args.decisions))
    ids = set(args.ids) if args.ids else None
    if ids:
        require_known(maps, ids)
    edits, also, refused = [], {}, []
    for decision_map in maps:
        trees = Trees(decision_map, quiet=args.quiet)
        check_citations(decision_map, trees)
        found, left = record_edits(decision_map, trees, ids, replace=args.replace)
        edits += found
        refused += left
        if (text := checked_at_change(decision_map, decision_map.recorded_version, explicit=True)) is not None:
            also[decision_map.path] = text
    written = apply_edits(edits, also=also)
    print(f"recorded {len(edits)} citation(s) in {len(written)} file(s)")
    for line in refused:
        print(line, file=sys.stderr)
    return 1 if refused else 0


def _bump(args: argparse.Namespace) -> int:
    from .release.bump import bump_map, review_text
    from .map.load import load_maps
    from .citations.verify import Trees, summary_counts

    status = 0
    maps = load_maps(args.decisions)
    if args.extension:
        from .release.bump import bump_extension
        from .map.load import pinned_extension_map

        found = [o for m in maps for o in m.overlays if o.extension == args.extension]
        if not found or not found[0].pinned:
            raise UsageError(f"no extension pinned on npm is named {args.extension!r} (an overlay with `integrity`)")
        maps = [pinned_extension_map(found[0])]
    for decision_map in maps:
        if args.extension:
            report = bump_extension(decision_map, args.version, trees=Trees(decision_map, quiet=args.quiet))
        else:
            report = bump_map(decision_map, args.version, trees=Trees(decision_map, quiet=args.quiet))
        counts = summary_counts(report.results)
        for r in report.results:
            if r.status == "moved":
                print(f"{r.entry.id}: {r.citation.file}: {r.recorded[0]}-{r.recorded[1]} → "
                      f"{r.resolved[0]}-{r.resolved[1]} (moved, updated)")
        drifted = [r for r in report.results if r.status not in ("ok", "moved")]
        if drifted:
            print(f"\n{len(drifted)} citation(s) need a person: re-read each, update the entry where pi's "
                  "behaviour changed, then `python -m generator accept ID`\n")
            for r in drifted:
                print(review_text(r, report.trees))
        if report.probes:
            print(f"\n{len(report.probes)} probe(s) flipped: running pi {args.version} shows a change in what the "
                  "entry claims; re-read it, then run `python -m generator probe ID`\n")
            for flip in report.probes:  # only entries with a probe are run, so each has its entry
                print(f"── {flip.id} probe {flip.before} → {flip.after}: {decision_map.entry(flip.id).headline}")
        if report.leads:
            print(f"\nnew leads at {args.version} for the entries whose code changed: code that names what their "
                  f"cited code names and did not at {decision_map.version}; re-read each entry against it "
                  "(`python -m generator leads ID` lists every lead)\n")
            for found in report.leads:
                more = f" (best {len(found.leads)} of {found.total})" if len(found.leads) < found.total else ""
                print(f"{found.entry.id}: {found.entry.headline}{more}")
                for lead in found.leads:
                    print(f"  {lead.file}:{lead.line}  {lead.why}")
        parts = ", ".join(f"{counts[s]} {s}" for s in counts if counts[s])
        flipped = f", {len(report.probes)} probe(s) flipped" if report.probes else ""
        print(f"{decision_map.name}: pinned at {args.version} ({parts}{flipped}); edition written to {report.edition}")
        status = max(status, 1 if drifted or report.probes else 0)
    return status


def _accept(args: argparse.Namespace) -> int:
    from .map.load import load_maps, with_extensions
    from .citations.record import require_known
    from .map.rewrite import Edit, apply_edits
    from .citations.verify import Trees, verify_map

    wanted = set(args.ids)
    maps = with_extensions(load_maps(args.decisions))
    require_known(maps, wanted)
    edits, refused = [], []
    for decision_map in maps:
        trees = Trees(decision_map, quiet=args.quiet)
        for r in verify_map(decision_map, None, trees):
            if r.entry.id not in wanted:
                continue
            if r.status == "ok" and r.checked_at == decision_map.version:
                continue
            if r.resolved is None:
                refused.append(f"{r.entry.id}: {r.citation.file}:{r.recorded[0]}-{r.recorded[1]} is {r.status} "
                               f"at {r.target}; write its new `lines` by hand, then accept again")
                continue
            # re-read by a person: recorded anew, as the code is at the pin
            edits.append(Edit(r.citation, lines=r.resolved, file=r.resolved_file, version=r.target,
                              record=trees.record(r.target, r.resolved_file, *r.resolved)))
            print(f"{r.entry.id}: {r.citation.file}: now {report.where(r)}, checked at {r.target}")
    apply_edits(edits)
    _settle_editions(args.decisions, wanted)
    for line in refused:
        print(line, file=sys.stderr)
    return 1 if refused else 0


def _source(args: argparse.Namespace) -> int:
    from .source.fetch import fetch_tree
    from .map.load import find_map_folders, load_finished_maps

    # reading the code is how a half-written entry or overlay gets written: those do not stop it
    if args.extension:
        from .extensions.levers import parse_spec
        from .map.load import pinned_extension_map
        from .map.model import extension_map

        maps = load_finished_maps(args.decisions, editions=False)
        mapped = [o for m in maps for o in m.overlays if o.pinned and o.extension == args.extension]
        pin = _unfinished_pin(maps, args.extension) if not mapped else None
        extension = (pinned_extension_map(mapped[0]) if mapped else extension_map(*pin) if pin
                     else extension_map(*parse_spec(args.extension)))
        print(fetch_tree(extension, args.version or extension.version).root)
        return 0
    folders = find_map_folders(args.decisions)
    name = args.map or folders[0].name
    maps = [m for m in load_finished_maps(args.decisions, editions=False) if m.name == name]
    if not maps:
        raise UsageError(f"no map named {name!r} under {args.decisions}")
    print(fetch_tree(maps[0], args.version or maps[0].version).root)
    return 0


def _unfinished_pin(maps, name: str) -> tuple[str, str] | None:
    """(package, version) of the overlay ``name`` that was left out unfinished: the one a contributor
    is writing, whose code they are reading. Its other values passed the loader's checks, or it would
    not have been left out."""
    import yaml

    for decision_map in maps:
        path = decision_map.folder / "extensions" / f"{name}.yaml"
        if path.is_file() and not any(o.extension == name for o in decision_map.overlays):
            values = yaml.safe_load(path.read_text(encoding="utf-8"))
            if isinstance(values, dict) and values.get("package") and values.get("version"):
                return str(values["package"]), str(values["version"])
    return None


def _probe_command(commands) -> None:
    probe = commands.add_parser(
        "probe", help="run the entries' probes: pi's own code, in a sandbox (exit 1 if one does not hold)",
        description="Install pi at VERSION (default: the pin) from npm into the cache, run each probed "
                    "entry's script decisions/<map>/probes/<ID>.mjs with Node in a bubblewrap sandbox (its own "
                    "temporary folder, a read-only system, no network, limits on time, memory and processes), "
                    "and compare the JSON it prints with the entry's `probe.expect`. Exit 0 when every probe "
                    "holds, 1 when one does not, 2 for bad input, a probe that cannot run, an install edited "
                    "since it was made, or no bwrap. Results are remembered per script, version and installed "
                    "files.",
        epilog="examples:\n  python -m generator probe\n  python -m generator probe P2 --target 1.4.0")
    _decisions_option(probe)
    probe.add_argument("--target", metavar="VERSION", help="the exact pi release to run (default: the pin)")
    probe.add_argument("--format", choices=("text", "json"), default="text",
                       help="text: a table (default); json: one object")
    probe.add_argument("ids", nargs="*", metavar="ID", help="only these entries, or extensions by name (default: "
                                                            "every probed entry and extension)")
    probe.add_argument("--quiet", action="store_true", help="no progress display")
    probe.add_argument("--no-sandbox", action="store_true",
                       help="run without bubblewrap, under Node's permission model only: the processes a probe "
                            "starts can then read and write your files, reach the network and read other "
                            "processes' environment; for a machine without bwrap (macOS), on code you trust")
    probe.set_defaults(run=_probe)


def _probe(args: argparse.Namespace) -> int:
    from .map.load import load_finished_maps
    from .probes.run import check_ids, run_probes
    from .probes.sandbox import WEAK_WARNING, Limits, choose_sandbox

    from .probes.extension import run_extension_probes

    wanted = set(args.ids)  # an unfinished file that none of them names does not stop the others
    maps = load_finished_maps(args.decisions, needed=lambda path: path.stem in wanted)
    extensions = {o.extension for m in maps for o in m.overlays if o.pinned and o.probe is not None}
    ids = [i for i in args.ids if i not in extensions]  # the others name extensions
    named = [i for i in args.ids if i in extensions]
    if ids:
        check_ids(maps, ids)
    limits = Limits.from_environment()
    sandbox = choose_sandbox(weak=args.no_sandbox)
    if sandbox.kind != "bwrap":
        print(WEAK_WARNING, file=sys.stderr)
    results = []
    for decision_map in maps:
        if ids or not args.ids:
            results += run_probes(decision_map, args.target, ids or None, quiet=args.quiet, limits=limits,
                                  sandbox=sandbox)
        if (named or not args.ids) and args.target in (None, decision_map.version):  # extensions: at the pin
            results += run_extension_probes(decision_map, named or None, quiet=args.quiet, limits=limits,
                                            sandbox=sandbox)
    target = args.target or maps[0].version  # load_maps found a map or raised
    print(report.probes_json(results, target) if args.format == "json"
          else report.probes_table(results, target, sandbox))
    for r in results:
        if r.status != "holds":
            print(f"{'error' if r.status == 'error' else 'fails'}: {r.message}", file=sys.stderr)
    if any(r.status == "error" for r in results):
        return 2
    return 1 if any(r.status == "fails" for r in results) else 0


def _leads_command(commands) -> None:
    leads = commands.add_parser(
        "leads", help="for a reviewer: code an entry's citations do not cover that could make it too wide",
        description="For each entry, the places in the pinned tree that name what its cited code names and "
                    "that none of its citations covers: other call sites of the functions it cites, other "
                    "places that emit or handle its event names, other readers and writers of its settings "
                    "and environment variables, and the other modes' versions of a cited mode file (print, "
                    "RPC, interactive, SDK). Ranked; --limit caps each entry's list. Exit 0; 2 for bad input.",
        epilog="examples:\n  python -m generator leads D8\n  python -m generator leads --format json --limit 0")
    _decisions_option(leads)
    leads.add_argument("--format", choices=("text", "json"), default="text",
                       help="text: each entry's leads, best first (default); json: one object")
    leads.add_argument("--limit", type=int, default=None, metavar="N",
                       help="leads per entry, best first (default: two per citation, at least 15; 0: all)")
    leads.add_argument("ids", nargs="*", metavar="ID", help="only these entries (default: every entry)")
    leads.add_argument("--quiet", action="store_true", help="no progress display")
    leads.set_defaults(run=_leads)


def _leads(args: argparse.Namespace) -> int:
    from .citations.leads import build_index, cited_ranges, map_leads
    from .map.load import load_maps
    from .citations.record import require_known
    from .citations.verify import Trees, verify_map

    if args.limit is not None and args.limit < 0:
        raise UsageError(f"--limit {args.limit}: give a number of leads per entry, or 0 for all of them")
    maps = load_maps(args.decisions, editions=False)
    if args.ids:
        require_known(maps, set(args.ids))
    found = []
    for decision_map in maps:
        trees = Trees(decision_map, quiet=args.quiet)
        cited = cited_ranges(verify_map(decision_map, None, trees))
        entries = [e for e in decision_map.entries if not args.ids or e.id in args.ids]
        if entries:
            found += map_leads(entries, cited, build_index(trees, decision_map.version), args.limit)
    target = maps[0].version  # load_maps found a map or raised
    print(report.leads_json(found, target) if args.format == "json" else report.leads_text(found, target, args.limit))
    return 0


def _levers_command(commands) -> None:
    levers = commands.add_parser(
        "levers", help="list every lever a pi extension on npm uses, from its own code, and what each can change",
        description="Fetch PACKAGE@VERSION from npm (integrity checked, cached), find its pi extension the way "
                    "pi's package manager does, and list every lever its code uses: events it handles (also "
                    "through an alias, destructuring or a wrapper), calls on the extension API and on a "
                    "handler's ctx, child processes and network calls, each with the decisions the map's lever "
                    "table (decisions/<map>/levers.yaml) says it can change. Exit 0; 2 for a package or version "
                    "that does not exist or holds no pi extension.",
        epilog="examples:\n  python -m generator levers pi-web-access@0.28.0\n"
               "  python -m generator levers pi-subagents@0.67.0 --format json")
    levers.add_argument("spec", metavar="PACKAGE@VERSION", help="an npm package at an exact version")
    levers.add_argument("--format", choices=("text", "json"), default="text",
                        help="text: a table (default); json: one object")
    levers.add_argument("--map", help="the map whose lever table to use (default: the first map)")
    _decisions_option(levers)
    levers.add_argument("--quiet", action="store_true", help="no progress display")
    levers.set_defaults(run=_levers)


def _levers(args: argparse.Namespace) -> int:
    import time

    from .extensions.levers import package_levers, report_text

    from .map.load import load_lever_table

    started = time.monotonic()
    table = load_lever_table(args.decisions, args.map)  # the rest of the map may be half written
    found = package_levers(args.spec, table, quiet=args.quiet)
    seconds = time.monotonic() - started
    print(json.dumps(found.as_json(), indent=2) if args.format == "json" else report_text(found, seconds))
    return 0


def _settle_editions(decisions: Path, accepted: set[str]) -> None:
    """Record in the latest edition the ranges people settled on for its drifted citations, and
    what the accepted entries say now."""
    from .release.bump import settled_edition
    from .map.load import load_maps
    from .map.rewrite import write_all_atomically

    settled = [s for m in load_maps(decisions) if (s := settled_edition(m, accepted))]
    write_all_atomically(dict(settled))


def _schema(args: argparse.Namespace) -> int:
    from .map import schema

    args.out.mkdir(parents=True, exist_ok=True)
    for name, spec, title in (("entry", schema.ENTRY, "Decision map entry"),
                              ("map", schema.MAP, "Decision map"),
                              ("overlay", schema.OVERLAY, "Extension overlay"),
                              ("levers", schema.LEVERS, "Extension levers and the decisions they change")):
        path = args.out / f"{name}.schema.json"
        path.write_text(json.dumps(schema.json_schema(spec, title), indent=2, sort_keys=True) + "\n")
        print(f"wrote {path}")
    return 0


def _new(args: argparse.Namespace) -> int:
    from .scaffold import new_entry, new_extension

    if args.extension:
        if args.position:
            raise UsageError("give FILE:LINE for an entry, or --extension PACKAGE@VERSION for an overlay, not both")
        path, count = new_extension(args.decisions, args.extension, args.map, args.name)
        print(f"wrote {path}: {count} citation(s) of the levers found; write every TODO from the cited code, "
              "then run `python -m generator verify`")
        return 0
    if not args.position:
        raise UsageError("give FILE:LINE (a new entry) or --extension PACKAGE@VERSION (a new overlay)")

    path, entry_id, symbol = new_entry(args.decisions, args.position, args.map, args.id, args.group)
    print(f"wrote {path}: {entry_id} cites {symbol}; fill in question, decided_by and answer, then "
          "run `make verify`")
    return 0


# --- the site: build (MkDocs) and render (the same pages, as plain files) ------------------------


def _site_commands(commands) -> None:
    build = commands.add_parser(
        "build", help="verify every citation at the pin and build the site (the old site stays on failure)",
        description="Load and verify every map, render its pages and build the MkDocs site into a fresh "
                    "folder, which then replaces the old one. Any bad entry or citation that is not ok "
                    "fails the build, naming each one, and leaves the previous site as it was.",
        epilog="example:\n  python -m generator build --site-dir public")
    build.add_argument("--config", "-f", type=Path, default=Path("mkdocs.yml"), metavar="FILE",
                       help="the site's MkDocs configuration (default: mkdocs.yml)")
    build.add_argument("--site-dir", "-d", type=Path, metavar="DIR",
                       help="where the site goes (default: site_dir of the configuration)")
    build.add_argument("--quiet", action="store_true", help="only warnings and errors")
    build.set_defaults(run=_build)

    render = commands.add_parser(
        "render", help="write the generated Markdown pages into a folder, for any site engine",
        description="Render every map's pages (gallery, summary, full map, problems, census, extension "
                    "pages and the Markdown download) as Markdown files, without MkDocs.",
        epilog="example:\n  python -m generator render --out build/pages")
    _decisions_option(render)
    render.add_argument("--pages", type=Path, default=Path("site_src"), metavar="DIR",
                        help="hand-written pages; extensions/<name>.md gets its overlay (default: site_src)")
    render.add_argument("--out", type=Path, required=True, metavar="DIR", help="folder to write the pages to")
    render.add_argument("--quiet", action="store_true", help="no progress display")
    render.set_defaults(run=_render)


def _build(args: argparse.Namespace) -> int:
    import logging
    import os

    from .site.build import build_site

    os.environ.setdefault("NO_MKDOCS_2_WARNING", "1")  # Material's banner; DESIGN.md covers the engine's future
    handler = logging.StreamHandler()  # bound to this run's stderr: taken off again after it
    handler.setFormatter(logging.Formatter("%(levelname)-7s -  %(message)s"))
    mkdocs_log = logging.getLogger("mkdocs")
    mkdocs_log.addHandler(handler)
    mkdocs_log.setLevel(logging.WARNING if args.quiet else logging.INFO)
    try:
        site = build_site(args.config, args.site_dir, quiet=args.quiet)
    finally:
        mkdocs_log.removeHandler(handler)
    print(f"site built in {site}")
    return 0


def _render(args: argparse.Namespace) -> int:
    from .site.render import render_folder

    from .probes.run import site_probes

    site = render_folder(args.decisions, args.pages if args.pages.is_dir() else None, quiet=args.quiet,
                         probes=lambda maps: site_probes(maps, quiet=args.quiet))
    out = args.out.resolve()
    for path, text in site.pages.items():
        target = (out / path).resolve()
        if not target.is_relative_to(out):  # page paths come from folder and extension names
            raise UsageError(f"{path}: would be written outside {out}")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    print(f"wrote {len(site.pages)} files to {args.out}")
    return 0
