"""``mlfs methods``: every registered selector, learner and discretizer, with its paper."""

from __future__ import annotations

import argparse

from ...experiments import ABOUT, REGISTRIES, resolve, takes_seed
from ...selection import scores_meaning

_KINDS = {
    "selector": "Selectors (mlfs select --method NAME, mlfs evaluate --methods A,B)",
    "learner": "Learners (mlfs evaluate --learner NAME)",
    "discretizer": "Discretizers (experiment files: discretizer = NAME)",
}


def method_rows(kind: str) -> list[dict]:
    """One row per registered name of ``kind``: name, class, seeded, description, paper.

    ``seeded`` is true for the methods with a ``random_state`` parameter, set by every
    command's ``--seed``; the others are deterministic. (A seeded method may draw nothing
    at random in some settings, e.g. PPT+ReliefF without ``m``.)
    """
    rows = []
    for name in REGISTRIES[kind]:
        cls = resolve(kind, name)
        description, paper = ABOUT[kind][name]
        row = {
            "name": name,
            "class": cls.__name__,
            "seeded": takes_seed(cls),
            "description": description,
            "paper": paper,
        }
        if kind == "selector":  # what scores_ holds: mlfs select's score column
            row["score_column"], row["score_meaning"] = scores_meaning(cls)
        rows.append(row)
    return rows


def _score_lines(rows: list[dict], markdown: bool) -> list[str]:
    """What each selector's ``scores_`` holds, under the name of the column ``mlfs select``
    gives it (the selector tag ``scores_meaning``; skmlfs.selection.scores_meaning)."""
    if markdown:
        lines = ["", "### Score column of `mlfs select` (`scores_`)", "",
                 "| name | column | what it holds |", "|---|---|---|"]
        return lines + [f"| `{r['name']}` | `{r['score_column']}` | {r['score_meaning']} |"
                        for r in rows]
    w_name = max(len(r["name"]) for r in rows)
    w_col = max(len(r["score_column"]) for r in rows)
    return ["", "Score column of mlfs select (scores_), per selector:"] + [
        f"  {r['name']:<{w_name}}  {r['score_column']:<{w_col}}  {r['score_meaning']}"
        for r in rows
    ]


def _text_table(rows: list[dict]) -> list[str]:
    w_name = max(len(r["name"]) for r in rows)
    w_desc = max(len(r["description"]) for r in rows)
    return [
        f"  {r['name']:<{w_name}}  {'*' if r['seeded'] else ' '} "
        f"{r['description']:<{w_desc}}  {r['paper']}"
        for r in rows
    ]


def _markdown_table(rows: list[dict]) -> list[str]:
    lines = ["| name | class | description | paper | random seed |", "|---|---|---|---|---|"]
    for r in rows:
        lines.append(
            f"| `{r['name']}` | `{r['class']}` | {r['description']} | {r['paper']} | "
            f"{'yes (`--seed`)' if r['seeded'] else 'no'} |"
        )
    return lines


def run(args: argparse.Namespace) -> int:
    kinds = [args.kind[:-1]] if args.kind else list(_KINDS)
    out: list[str] = []
    for kind in kinds:
        rows = method_rows(kind)
        if out:
            out.append("")
        if args.markdown:
            out += [f"## {_KINDS[kind]}", ""] + _markdown_table(rows)
        else:
            out += [f"{_KINDS[kind]}:"] + _text_table(rows)
        if kind == "selector":
            out += _score_lines(rows, args.markdown)
    if not args.markdown:
        out += [
            "",
            "* has a random seed, set by --seed (default 0), so repeated runs agree; methods",
            "  without * are deterministic.",
            "Names are accepted in any case, with or without '-', '_' or '+' (relieff-ml,",
            "ReliefF_ML, ML-kNN).",
        ]
    print("\n".join(out))
    return 0
