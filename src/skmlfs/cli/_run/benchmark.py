"""``mlfs benchmark``: run an experiment file (resumable), then write its report."""

from __future__ import annotations

import argparse
import dataclasses
import difflib
import sqlite3
import sys
from pathlib import Path
from typing import Any

from ...experiments import (
    ResultStore,
    SpecError,
    StoreError,
    import_distributed,
    is_multipart,
    keep_selectors,
    load_experiment,
    load_parts,
    parse_methods,
    parse_time_limit,
    run_experiment,
    run_parts,
    with_selectors,
    with_time_limit,
    write_parts_report,
)
from ...experiments.report import write_report
from .common import check_export_paths


def run(args: argparse.Namespace) -> int:
    check_export_paths(args.export)  # before the run, not after it
    if args.dask:
        try:
            import_distributed()
        except ImportError as exc:
            print(f"mlfs benchmark: error: --dask: {exc}", file=sys.stderr)
            return 2
    if is_multipart(args.experiment):
        return _run_multipart(args)
    if args.parts:
        print(f"mlfs benchmark: error: --parts: {args.experiment} has no [[part]] tables.",
              file=sys.stderr)
        return 2
    spec = load_experiment(args.experiment)
    if args.seed is not None:
        spec = dataclasses.replace(spec, seed=args.seed)
    if args.time_limit is not None:
        spec = dataclasses.replace(
            spec, time_limit=parse_time_limit(str(args.experiment), "time limit",
                                              _duration(args.time_limit)))
    for what in ("datasets", "selectors"):
        if getattr(args, what, None):
            spec = _only(spec, what, getattr(args, what))
    if args.add_selector:
        spec = _add_selectors(spec, args.add_selector)
    db = Path(args.db) if args.db else Path("runs") / f"{spec.name}.db"
    try:
        return _run(args, spec, db)
    except sqlite3.DatabaseError as exc:  # e.g. damaged while running: name the file
        raise StoreError(f"{db}: {exc}") from None


def _duration(text: str) -> Any:
    """``--time-limit``'s text as the key takes it: a bare number is seconds."""
    try:
        return float(text)
    except ValueError:
        return text


def _only(spec, what: str, names: str):
    """``spec`` with only the named data sets or selectors (``--datasets``/``--selectors``);
    an unknown name is an error that lists the file's names."""
    want = [n.strip() for n in names.split(",") if n.strip()]
    items = getattr(spec, what)

    def base(name: str) -> str:  # "scene (train 0.5)" is a training fraction of "scene"
        return name.split(" (train")[0]

    bad = [n for n in want if not any(n in (m.name, base(m.name)) for m in items)]
    if bad or not want:
        close = difflib.get_close_matches(bad[0], [m.name for m in items], n=1) if bad else []
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise SpecError(f"--{what}: unknown name(s) {bad}{hint}; the experiment has: "
                        f"{', '.join(m.name for m in items)}.")
    keep = tuple(m for m in items if m.name in want or base(m.name) in want)
    return dataclasses.replace(spec, **{what: keep})


def _add_selectors(spec, entries: list[str]):
    """``spec`` with the selectors of ``--add-selector NAME=MODULE:CLASS`` appended; they
    are parsed as an experiment file's ``[selectors.NAME] method = "MODULE:CLASS"``."""
    table = _selector_table(entries, [m.name for m in spec.selectors])
    added = parse_methods("--add-selector", "selectors", table, "selector")
    return dataclasses.replace(spec, selectors=tuple(spec.selectors) + tuple(added))


def _selector_table(entries: list[str], taken: list[str]) -> dict[str, dict[str, str]]:
    """``--add-selector NAME=MODULE:CLASS`` entries as selector tables (name -> {"method":
    "MODULE:CLASS"}), each class imported now: an error before any cell runs."""
    table: dict[str, dict[str, str]] = {}
    for e in entries:
        name, sep, target = (x.strip() for x in e.partition("="))
        if not sep or not name or ":" not in target:
            raise SpecError(f"--add-selector: expected NAME=MODULE:CLASS "
                            f"(e.g. mine=mypkg.selectors:MySelector); got {e!r}.")
        if name in table or name in taken:
            raise SpecError(f"--add-selector: the name {name!r} is already taken; "
                            f"the experiment has: {', '.join(taken)}.")
        table[name] = {"method": target}
    added = parse_methods("--add-selector", "selectors", table, "selector")
    for m in added:  # fail now, before any cell runs, if the class cannot be imported
        try:
            m.estimator_class()
        except Exception as exc:
            raise SpecError(f"--add-selector {m.name}: cannot import {table[m.name]['method']}:"
                            f" {exc}") from None
    return table


def _run(args: argparse.Namespace, spec, db: Path) -> int:
    out = Path(args.out) if args.out else db.with_suffix("")
    verbose = not args.quiet
    with ResultStore(db, synchronous="FULL" if args.durable else "NORMAL") as store:
        summary = run_experiment(
            spec, store, n_jobs=args.jobs, dask=args.dask,
            progress=False if args.quiet else None, verbose=verbose,
        )
        for target in args.export:
            p = store.export(target)
            if verbose:
                print(f"exported {p}", file=sys.stderr)
    if not args.no_report:
        files = write_report(
            db, out, figures=not args.no_figures, cell_ids=summary.cell_ids,
            experiment=spec.name, **_report_options(spec),
        )
        print(f"report: {files[-1]}")
    return 1 if summary.n_failed_tasks else 0


def _run_multipart(args: argparse.Namespace) -> int:
    """A file with ``[[part]]`` tables: every part into one store, then its report."""
    ep = load_parts(args.experiment)
    if args.time_limit is not None:
        ep = with_time_limit(ep, _duration(args.time_limit))
    if args.selectors:  # these selectors of every part
        ep = keep_selectors(ep, [n.strip() for n in args.selectors.split(",") if n.strip()])
    if args.add_selector:  # the user's method joins every part (a taken name: an error)
        ep = with_selectors(ep, _selector_table(args.add_selector, []))
    db = Path(args.db) if args.db else Path("runs") / f"{ep.name}.db"
    out = Path(args.out) if args.out else db.with_suffix("")
    with ResultStore(db, synchronous="FULL" if args.durable else "NORMAL") as store:
        res = run_parts(
            ep, store, parts=args.parts.split(",") if args.parts else None,
            datasets=args.datasets.split(",") if args.datasets else None, seed=args.seed,
            n_jobs=args.jobs, dask=args.dask, progress=False if args.quiet else None,
            verbose=not args.quiet,
        )
        for target in args.export:
            store.export(target)
        if not args.no_report:
            cmd = " ".join(
                ["mlfs benchmark", str(args.experiment)]
                + ([f"-j {args.jobs}"] if args.jobs != 1 else [])
                + [f"--{k} {v}" for k, v in (("parts", args.parts),
                                             ("datasets", args.datasets),
                                             ("selectors", args.selectors)) if v]
                + [f"--add-selector {a}" for a in args.add_selector]
            )
            files = write_parts_report(store, out, ep, figures=not args.no_figures,
                                       command=cmd)
            print(f"report: {files[-1]}")
    return 1 if res.n_failed_tasks else 0


def _report_options(spec) -> dict:
    opts = {}
    for key in ("control", "decimals", "alpha", "columns", "title", "missing_rank"):
        if key in spec.report:
            opts[key] = spec.report[key]
    return opts
