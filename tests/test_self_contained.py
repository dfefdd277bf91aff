"""No file of the repository points outside it (issue #18).

A user of the package has the repository and nothing else: a docstring, comment, page or
message that cites a file next to the repository (the developers' working notes, the papers'
text files, another checkout under ``/work``) is a dead reference for them. Methods are
cited by paper and by our own pages under ``docs/methods/``.

The only allowed exception is where CI finds the datasets: ``.ci/run`` and the README's test
command (which ``.ci/run`` runs verbatim) pass ``MLFS_DATASETS=../shared/datasets``.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

_SH = "../" + "shared"
_SELF = "tests/test_self_contained.py"  # holds the patterns and examples of what they catch
_FORBIDDEN = {
    "a path into the shared folder next to the repository": re.compile(
        re.escape(_SH) + r"|\bshared/(?:specs|papers|datasets)\b"
    ),
    "an absolute path under /work": re.compile(r"(?<![\w.])/" + "work/"),
    "the developers' working specs": re.compile(
        r"\bspecs/|(?<![\w/])(?:evaluation|filters|information_theory|learners|sparse_learning"
        r"|wrappers)\." + "md"
    ),
    "the papers' text files": re.compile(
        r"\b(?:memetic_pruned_refinement_2024|occ_sun_kudo_classifier_chains|relieff_ml_reyes_2013"
        r"|rlefs_li_hu_gao_2022|scls_lee_kim_2017)\b"
    ),
}

# (file, exact text) pairs that may mention the data folder CI uses, and nothing else.
_ALLOWED = {
    ".ci/run": (
        "if [ ! -d " + _SH + "/datasets ]; then",
        'echo "' + _SH + '/datasets does not exist',
        "MLFS_DATASETS=" + _SH + "/datasets python -m pytest -q",
    ),
    "README.md": ("MLFS_DATASETS=" + _SH + "/datasets python -m pytest -q",),
}

_BINARY = {".png", ".jpg", ".gif", ".pdf", ".db", ".parquet", ".gz", ".zip", ".mat", ".npz"}


def _files() -> list[Path]:
    """Tracked and new (not ignored) files; a plain walk when this is not a git checkout."""
    try:
        out = subprocess.run(
            ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
            cwd=ROOT, capture_output=True, check=True,
        ).stdout.decode()
        names = [n for n in out.split("\0") if n]
    except (OSError, subprocess.CalledProcessError):
        skip = {".git", "build", "dist", "_build", "auto_examples", "__pycache__"}
        names = [str(p.relative_to(ROOT)) for p in ROOT.rglob("*")
                 if p.is_file() and not skip & set(p.relative_to(ROOT).parts)]
    return [ROOT / n for n in names if Path(n).suffix.lower() not in _BINARY and n != _SELF]


def _violations(rel: str, text: str) -> list[str]:
    found = []
    allowed = _ALLOWED.get(rel, ())
    for lineno, line in enumerate(text.splitlines(), 1):
        for ok in allowed:
            line = line.replace(ok, "")
        for what, pattern in _FORBIDDEN.items():
            m = pattern.search(line)
            if m:
                found.append(f"{rel}:{lineno}: {what}: {m.group(0)!r}")
    return found


def test_no_file_points_outside_the_repository():
    files = _files()
    assert len(files) > 100, "the file listing found too few files to be the repository"
    problems = []
    for path in files:
        if not path.is_file():  # deleted in the work tree but still in the index
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        problems += _violations(str(path.relative_to(ROOT)), text)
    assert not problems, "files point outside the repository:\n" + "\n".join(problems)


@pytest.mark.parametrize(
    "line",
    [
        "see ``" + _SH + "/specs/learners.md`` §1.1",
        "(" + "learners.md §3)",
        "Sources: `" + "wrappers.md` (§0–§8)",
        "Run: MLFS_DATASETS=" + _SH + "/datasets python benchmarks/bench.py",
        "1. runner wall time: /" + "work/main/experiments/scls_paper.toml",
        "the paper (``" + "scls_lee_kim_2017.txt``)",
        "definitions in shared/" + "specs",
    ],
)
def test_the_check_catches(line):
    assert _violations("src/skmlfs/x.py", line)


@pytest.mark.parametrize(
    "line",
    [
        "see docs/methods/lazy.md#mlnb and docs/methods/info.md#gics",
        "RLEFS: robust feature selection with shared label enhancement",
        "MLFS_DATASETS=/path/to/datasets mlfs benchmark experiments/scls_paper.toml",
        "the spec of an experiment (ExperimentSpec)",
    ],
)
def test_the_check_allows(line):
    assert not _violations("src/skmlfs/x.py", line)


def test_the_allow_list_is_narrow():
    # The CI data path is allowed in .ci/run and the README's test command only.
    cmd = "MLFS_DATASETS=" + _SH + "/datasets python -m pytest -q"
    assert not _violations("README.md", "python -m pip install -e '.[test]' && " + cmd)
    assert _violations("README.md", "MLFS_DATASETS=" + _SH + "/datasets mlfs benchmark x.toml")
    assert _violations("docs/index.md", cmd)


def _slug(heading: str) -> str:
    """The anchor GitHub and MyST (``myst_heading_anchors``) give a Markdown heading."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def test_cited_method_pages_and_sections_exist():
    # Docstrings and pages cite "docs/methods/<page>.md#<section>": each must resolve.
    cite = re.compile(r"docs/methods/([a-z_]+)\.md(?:#([a-z0-9_\-]+))?")
    anchors: dict[str, set[str]] = {}
    for page in (ROOT / "docs" / "methods").glob("*.md"):
        anchors[page.stem] = {_slug(m) for m in re.findall(
            r"^#{1,6} (.+)$", page.read_text(encoding="utf-8"), flags=re.MULTILINE)}
    missing, n = [], 0
    for path in _files():
        if not path.is_file() or path.suffix not in {".py", ".md", ".toml", ".txt", ".rst"}:
            continue
        for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for page, anchor in cite.findall(line):
                n += 1
                if page not in anchors or (anchor and anchor not in anchors[page]):
                    missing.append(f"{path.relative_to(ROOT)}:{lineno}: {page}.md#{anchor}")
    assert n > 100, "expected the docstrings to cite the method pages"
    assert not missing, "citations of missing pages or sections:\n" + "\n".join(missing)


def test_slug_is_githubs():
    assert _slug("ML-kNN") == "ml-knn"
    assert _slug("PPT with ReliefF") == "ppt-with-relieff"
    assert _slug("Crossover and mutation") == "crossover-and-mutation"
