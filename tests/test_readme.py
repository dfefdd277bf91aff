"""The README and the user pages say what the code does.

* The README's two commands are literally there, and the test command is the one ``.ci/run``
  runs.
* Every ``python`` block of the README runs as written, and the scores its comments quote
  are the ones it computes (on held-out data).
* Every ``mlfs ...`` command line of the README and of the user pages is accepted by the
  ``mlfs`` argument parser.
* The experiment file of the getting-started page is valid.
* Relative links of the README point at files of the repository.
* The user-facing pages carry no references to the project's internal tracker.
"""

from __future__ import annotations

import re
import shlex
import tomllib
import warnings
from pathlib import Path

import pytest

from skmlfs.cli import build_parser
from skmlfs.learners import MLNB, NoPositivePredictionWarning
from skmlfs.metrics import hamming_loss

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
USER_PAGES = [
    "README.md",
    "docs/getting_started.md",
    "docs/user_guide.md",
    "docs/performance.md",
    "docs/papers.md",
    "docs/experiment_file.md",
]


def _text(rel: str) -> str:
    return (ROOT / rel).read_text(encoding="utf-8")


def _blocks(text: str, lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", text, flags=re.DOTALL)


def test_the_two_commands_are_there():
    readme = _text("README.md")
    assert "python -m pip install -e . && mlfs demo" in readme
    ci = [ln for ln in _text(".ci/run").splitlines() if "pytest" in ln]
    assert len(ci) == 1
    assert ci[0].strip() in readme  # .ci/run runs the README's test command verbatim
    assert len(readme.splitlines()) <= 150  # a front page; the rest is in docs/


def test_readme_python_examples_run_and_quote_their_scores(capsys):
    blocks = _blocks(_text("README.md"), "python")
    assert blocks
    namespaces = []
    for code in blocks:
        namespaces.append({})
        with warnings.catch_warnings():
            warnings.simplefilter("error", NoPositivePredictionWarning)
            exec(compile(code, "README.md", "exec"), namespaces[-1])
        if len(namespaces) == 1:
            out = capsys.readouterr().out.split()
    code, ns = blocks[0], namespaces[0]
    assert len(code.strip().splitlines()) <= 11  # ten lines of code and one blank line
    # the example scores the pipeline on the held-out part ...
    X_tr, X_te, Y_tr, Y_te = ns["X_tr"], ns["X_te"], ns["Y_tr"], ns["Y_te"]
    assert X_tr.shape[0] + X_te.shape[0] == ns["ds"].X.shape[0] and X_te.shape[0] > 0
    score = hamming_loss(Y_te, ns["model"].predict(X_te))
    assert float(out[-1]) == pytest.approx(score, rel=1e-12)
    # ... and its comment quotes that score and the one of all features, rounded
    m = re.search(r"# ([0-9.]+) \(all (\d+) features: ([0-9.]+)\)", code)
    assert m, "the comment that quotes the scores has moved"
    assert float(m.group(1)) == pytest.approx(score, abs=5e-4)
    assert int(m.group(2)) == X_tr.shape[1]
    all_features = hamming_loss(Y_te, MLNB().fit(X_tr, Y_tr).predict(X_te))
    assert float(m.group(3)) == pytest.approx(all_features, abs=5e-4)
    assert score < all_features


def test_getting_started_first_selection_runs(capsys):
    code = _blocks(_text("docs/getting_started.md"), "python")[0]
    ns: dict = {}
    exec(compile(code, "docs/getting_started.md", "exec"), ns)
    assert len(ns["selector"].selection_order_) == 20
    out = capsys.readouterr().out.split()
    score = hamming_loss(ns["Y_te"], ns["model"].predict(ns["X_te"]))
    assert float(out[-1]) == pytest.approx(score, rel=1e-12)


def _mlfs_lines(text: str) -> list[str]:
    """Every ``mlfs ...`` command of the shell blocks and of table cells (in prose, inline
    code may name a command with one option only, e.g. `mlfs benchmark --dask local`)."""
    lines = []
    for block in _blocks(text, "bash"):
        for line in block.replace("\\\n", " ").splitlines():
            line = line.split("#")[0].strip()
            words = line.split()
            while words and re.fullmatch(r"[A-Z_]+=\S*", words[0]):  # VAR=value prefixes
                words.pop(0)
            if words[:1] == ["mlfs"]:
                lines.append(" ".join(words))
    for row in re.findall(r"^\|.*$", text, flags=re.MULTILINE):  # tables: whole commands
        lines += re.findall(r"`(mlfs [^`]+)`", row)
    return lines


@pytest.mark.parametrize("page", USER_PAGES)
def test_every_command_line_is_accepted(page):
    parser = build_parser()
    commands = set(parser._subparsers._group_actions[0].choices)  # noqa: SLF001
    lines = _mlfs_lines(_text(page))
    if page == "README.md":
        assert len(lines) >= 9  # the three CLI lines and the papers' commands
    for line in lines:
        argv = shlex.split(line)[1:]
        if argv[0] not in commands:
            continue  # prose such as `mlfs methods` marks, `mlfs COMMAND --help`
        if "--help" in argv or "-h" in argv:
            continue
        try:
            parser.parse_args(argv)
        except SystemExit as exc:  # argparse's way of refusing
            raise AssertionError(f"{page}: `{line}` is refused by mlfs") from exc


def test_readme_commands_name_real_subcommands():
    parser = build_parser()
    commands = set(parser._subparsers._group_actions[0].choices)  # noqa: SLF001
    for line in _mlfs_lines(_text("README.md")):
        word = shlex.split(line)[1]
        assert word in commands or word == "COMMAND", line


def test_getting_started_experiment_file_is_valid():
    from skmlfs.experiments import ExperimentSpec

    block = _blocks(_text("docs/getting_started.md"), "toml")[0]
    spec = ExperimentSpec.from_dict(tomllib.loads(block), source="getting_started.md")
    assert [d.name for d in spec.datasets] == ["generated"]
    for m in spec.learners + spec.selectors:
        m.build(random_state=0, n_features_to_select=5)


def test_readme_links_resolve():
    for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", _text("README.md")):
        if target.startswith(("http://", "https://")):
            continue
        assert (ROOT / target).exists(), target


@pytest.mark.parametrize(
    "page",
    [
        "README.md",
        "CHANGELOG.md",
        *sorted(
            str(p.relative_to(ROOT))
            for p in [*(ROOT / "docs").glob("*.md"), *(ROOT / "docs" / "methods").glob("*.md")]
        ),
    ],
)
def test_user_pages_carry_no_tracker_references(page):
    internal = re.compile(r"\bissue #\d|\(#\d+\)|#\d+ §|\bsession\b", flags=re.IGNORECASE)
    for lineno, line in enumerate(_text(page).splitlines(), 1):
        assert not internal.search(line), f"{page}:{lineno}: {line.strip()}"
