"""The documentation: README.md and the MkDocs site under docs/ stay true to the code.

- The site builds with MkDocs in strict mode (every warning is an error: a broken link or anchor,
  a page left out of the nav, an API name that no longer resolves).
- Every `planner ...` line of a fenced ``console`` (or ``shell``, ``sh``, ``bash``) block runs,
  in document order per section (level-2 heading) of a page, in a scratch folder of the section's
  own holding copies of ``examples/`` and ``tests/data/``; it must exit 0 unless the block is marked. Marks are an HTML comment on the
  line right above the block's fence:

  - ``<!-- exits 2 -->``: every command of the block exits with that status (2: with an
    ``error:`` line and no traceback);
  - ``<!-- not run: REASON -->``: the block is shown, not run (`NOT_RUN` lists them, so that
    each stays deliberate);
  - ``<!-- file: NAME -->`` on a ``yaml`` or ``json`` block: the block is written to NAME in the
    scratch folder, for the commands after it;
  - ``<!-- run -->`` on a ``python`` block: the block runs in a fresh interpreter and prints
    exactly the ``text`` block that follows it (docs/schedulers.md's scheduler of one's own is one).

- Every ``import X`` and ``from X import Y`` of a ``python`` block imports, and each Y resolves;
  every quoted dotted name (`planner.simulator.SCHEDULERS`) and repository path
  (`tests/test_fresh.py`) exists; every public name has an entry on an API page.
- README.md has at most 250 lines and its relative links resolve; every page under docs/ is in
  the nav of mkdocs.yml and every nav entry is a page.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
README = ROOT / "README.md"
MKDOCS = ROOT / "mkdocs.yml"
PAGES = [README, *sorted(DOCS.rglob("*.md"))]
MAX_README_LINES = 250

SHELLS = {"console", "shell", "sh", "bash"}
#: Blocks shown but not run: (page, reason). A new one is a deliberate choice, made here too.
NOT_RUN = {
    ("docs/cli.md", "needs a Dask cluster"),
    ("docs/proving-plans.md", "needs a Dask cluster"),
    ("docs/proving-plans.md", "hours of simulations, needs a Dask cluster"),
    ("docs/cli.md", "takes about 30 s; tests/test_cli_proofs.py runs it with 3 runs per setup"),
}
COMMAND_TIMEOUT = 300

FENCE = re.compile(r"^(`{3,})\s*([\w+-]*)\s*$")
MARK = re.compile(r"^<!--\s*(.*?)\s*-->$")


@dataclass
class Block:
    page: str
    line: int  # of the opening fence, 1-based
    lang: str
    text: str
    mark: str | None = None
    section: str = ""  # the level-2 heading above the block
    commands: list[tuple[int, str]] = field(default_factory=list)  # (line, command line)

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line}"


def _name(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def blocks(path: Path) -> list[Block]:
    """The fenced blocks of a Markdown file, each with the HTML comment right above its fence."""
    lines = path.read_text(encoding="utf-8").splitlines()
    found: list[Block] = []
    section = ""
    i = 0
    while i < len(lines):
        opening = FENCE.match(lines[i])
        if not opening:
            if lines[i].startswith("## "):
                section = lines[i][3:].strip()
            i += 1
            continue
        fence, lang = opening.groups()
        mark = MARK.match(lines[i - 1].strip()) if i > 0 else None
        body: list[str] = []
        j = i + 1
        while j < len(lines) and lines[j].strip() != fence:
            body.append(lines[j])
            j += 1
        block = Block(_name(path), i + 1, lang.lower(), "\n".join(body) + "\n", mark.group(1) if mark else None,
                      section)
        for offset, text in enumerate(body):
            command = text.strip().removeprefix("$ ")
            if command == "planner" or command.startswith("planner "):
                block.commands.append((i + 2 + offset, command))
        found.append(block)
        i = j + 1
    return found


BLOCKS = {_name(page): blocks(page) for page in PAGES}


def _expected_status(block: Block) -> int:
    match = re.fullmatch(r"exits (\d+)", block.mark or "")
    return int(match.group(1)) if match else 0


def _not_run(block: Block) -> str | None:
    match = re.fullmatch(r"not run:\s*(.+)", block.mark or "")
    return match.group(1) if match else None


def _file(block: Block) -> str | None:
    match = re.fullmatch(r"file:\s*(\S+)", block.mark or "")
    return match.group(1) if match else None


def _runs(block: Block) -> bool:
    return block.mark == "run"


def _pages_with(predicate) -> list[str]:
    return [page for page, found in BLOCKS.items() if any(predicate(b) for b in found)]


def _runnable(block: Block) -> bool:
    return block.lang in SHELLS and bool(block.commands) and _not_run(block) is None


#: The units the commands run in: (page, section), each in a scratch folder of its own, so that a
#: section's commands may read what the section's earlier commands and file blocks wrote.
SECTIONS = sorted({(b.page, b.section) for found in BLOCKS.values() for b in found if _runnable(b)},
                  key=lambda unit: (list(BLOCKS).index(unit[0]), unit[1]))


# -- the site ---------------------------------------------------------------------------------------


def test_the_site_builds_strictly(tmp_path):
    """`mkdocs build --strict`: a warning of any kind (link, anchor, nav, docstring) fails."""
    site = tmp_path / "site"
    run = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file", str(MKDOCS), "--site-dir", str(site)],
        cwd=ROOT, capture_output=True, text=True, timeout=COMMAND_TIMEOUT, check=False)
    log = run.stdout + run.stderr
    assert run.returncode == 0, log
    assert "WARNING" not in log, log
    for page in (DOCS.rglob("*.md")):
        assert (site / page.relative_to(DOCS).with_suffix(".html")).is_file(), page


def _nav_pages(entries) -> list[str]:
    pages: list[str] = []
    for entry in entries:
        if isinstance(entry, str):
            pages.append(entry)
        elif isinstance(entry, dict):
            for value in entry.values():
                pages.extend(_nav_pages(value) if isinstance(value, list) else [value])
    return pages


def test_every_page_is_in_the_nav():
    nav = _nav_pages(yaml.safe_load(MKDOCS.read_text(encoding="utf-8"))["nav"])
    pages = {page.relative_to(DOCS).as_posix() for page in DOCS.rglob("*.md")}
    assert sorted(set(nav)) == sorted(nav), "a page is in the nav twice"
    assert set(nav) == pages, f"not in the nav: {sorted(pages - set(nav))}; not a page: {sorted(set(nav) - pages)}"


def _documented_objects() -> dict[int, str]:
    """Every object an API page renders (``::: module.name``), by identity."""
    documented = {}
    for page in sorted((DOCS / "api").glob("*.md")):
        for path in re.findall(r"^::: ([\w.]+)\s*$", page.read_text(encoding="utf-8"), flags=re.M):
            module, _, name = path.rpartition(".")
            documented[id(getattr(importlib.import_module(module), name))] = path
    return documented


def test_the_api_pages_cover_every_public_name():
    """The names `planner`, `models` and `solvers` export each have an entry on an API page."""
    import models
    import planner
    import solvers

    documented = _documented_objects()
    public = {f"planner.{n}": getattr(planner, n) for n in planner._PUBLIC}
    public |= {f"models.{n}": getattr(models, n) for n in models._PUBLIC}
    public |= {f"solvers.{n}": getattr(solvers, n) for n in solvers.__all__}
    missing = [name for name, value in public.items() if not inspect.ismodule(value) and id(value) not in documented]
    assert not missing, f"public names without an API entry (add `::: module.name` to docs/api/): {missing}"


def _resolve(dotted: str) -> object:
    """``package.module.name.attribute``: the longest importable module, then attributes."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            found: object = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for part in parts[cut:]:
            found = getattr(found, part)
        return found
    raise ImportError(dotted)


DOTTED = re.compile(r"^((?:planner|models|solvers)(?:\.\w+)+)")
REPO_PATH = re.compile(r"(?:^|[\s(])((?:planner|models|solvers|tests|benchmarks|examples|notebooks|docs)/[\w./*-]*)")


def test_the_names_and_paths_the_pages_quote_exist():
    """Quoted code such as `planner.examples.workloads.crosscheck_cases` or `tests/test_fresh.py`
    names something that exists (``NAME`` in a path is a placeholder)."""
    missing = []
    for page in PAGES:
        for quoted in re.findall(r"`([^`\n]+)`", page.read_text(encoding="utf-8")):
            dotted = DOTTED.match(quoted)
            if dotted:
                try:
                    _resolve(dotted.group(1))
                except (ImportError, AttributeError):
                    missing.append(f"{_name(page)}: {quoted}")
            for path in REPO_PATH.findall(quoted):
                path = path.rstrip(".")
                if "NAME" not in path and not list(ROOT.glob(path)):
                    missing.append(f"{_name(page)}: {quoted}")
    assert not missing, "quoted but not there:\n" + "\n".join(missing)


# -- the README -------------------------------------------------------------------------------------


def _github_anchor(heading: str) -> str:
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def test_the_readme_is_short():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= MAX_README_LINES, f"README.md has {len(lines)} lines; the rest belongs in docs/"


def test_the_readme_links_resolve():
    text = README.read_text(encoding="utf-8")
    anchors = {_github_anchor(h) for h in re.findall(r"^#+ (.+)$", text, flags=re.M)}
    links = re.findall(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)", text)
    assert links, "no links found: the pattern is broken"
    broken = []
    for link in links:
        if re.match(r"^[a-z][a-z0-9+.-]*:", link):  # https:, mailto:
            continue
        path, _, anchor = link.partition("#")
        if not path:
            if anchor not in anchors:
                broken.append(link)
        elif not (ROOT / path).exists():
            broken.append(link)
    assert not broken, f"README.md links to what is not there: {broken}"


# -- the command lines ------------------------------------------------------------------------------


def test_every_command_block_is_labelled():
    """A `planner` line in a fence without a language is neither run nor clearly output."""
    unlabelled = [b.where for found in BLOCKS.values() for b in found if b.commands and not b.lang]
    assert not unlabelled, f"label these blocks console (run) or text (shown): {unlabelled}"


def test_the_blocks_not_run_are_the_listed_ones():
    found = {(b.page, _not_run(b)) for bs in BLOCKS.values() for b in bs if _not_run(b) is not None}
    assert found == NOT_RUN, f"blocks marked 'not run' {sorted(found)} are not the listed ones {sorted(NOT_RUN)}"
    for bs in BLOCKS.values():
        for b in bs:
            if b.mark is not None:
                assert _not_run(b) is not None or _file(b) is not None or _runs(b) or re.fullmatch(
                    r"exits \d+", b.mark), f"{b.where}: unknown mark {b.mark!r}"
            if _not_run(b) is not None or re.fullmatch(r"exits \d+", b.mark or ""):
                assert b.lang in SHELLS and b.commands, f"{b.where}: a mark for commands on a block without any"


def _scratch(tmp_path: Path) -> Path:
    work = tmp_path / "work"
    shutil.copytree(ROOT / "examples", work / "examples")
    shutil.copytree(ROOT / "tests" / "data", work / "tests" / "data")
    return work


def _environment() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    env.update(MPLBACKEND="Agg", COLUMNS="160", NO_COLOR="1")
    return env


@pytest.mark.parametrize(("page", "section"), SECTIONS, ids=[f"{p}#{_github_anchor(s)}" for p, s in SECTIONS])
def test_the_commands_of_a_section_run(page, section, tmp_path):
    """A section's commands, in order, in one scratch folder (later ones read what earlier wrote)."""
    work = _scratch(tmp_path)
    env = _environment()
    failures = []
    ran = 0
    for block in BLOCKS[page]:
        if block.section != section:
            continue
        name = _file(block)
        if name is not None:
            (work / name).write_text(block.text, encoding="utf-8")
            continue
        if not _runnable(block):
            continue
        expected = _expected_status(block)
        for line, command in block.commands:
            argv = shlex.split(command, comments=True)
            run = subprocess.run([sys.executable, "-m", "planner", *argv[1:]], cwd=work, env=env, stdin=subprocess.DEVNULL,
                                 capture_output=True, text=True, timeout=COMMAND_TIMEOUT, check=False)
            ran += 1
            problem = None
            if run.returncode != expected:
                problem = f"exited {run.returncode}, expected {expected}"
            elif "Traceback" in run.stderr:
                problem = "printed a traceback"
            elif expected == 2 and not re.search(r"^error: ", run.stderr, flags=re.M):
                problem = "exited 2 without an 'error:' line"
            if problem:
                tail = "\n    ".join((run.stderr.strip() or run.stdout.strip()).splitlines()[-6:])
                failures.append(f"{page}:{line}: `{command}` {problem}\n    {tail}")
    assert ran, f"{page}#{section}: no command ran"
    assert not failures, f"{len(failures)} of {ran} commands failed:\n" + "\n".join(failures)


# -- the Python examples ----------------------------------------------------------------------------
#: (page, section) of the Python blocks marked to run: each must stay (a block that lost its mark
#: would no longer be run).
RUN = [(page, b.section) for page, found in BLOCKS.items() for b in found if _runs(b)]


def test_the_examples_that_run_are_there():
    assert ("docs/schedulers.md", "A scheduler of one's own") in RUN
    for found in BLOCKS.values():
        for b in found:
            if _runs(b):
                assert b.lang == "python", f"{b.where}: a run mark on a {b.lang or 'plain'} block"


@pytest.mark.parametrize(("page", "section"), RUN, ids=[f"{p}#{_github_anchor(s)}" for p, s in RUN])
def test_a_python_example_prints_what_the_page_shows(page, section, tmp_path):
    """The example runs in a fresh interpreter (its registrations stay there) and prints exactly the
    ``text`` block right after it on the page."""
    found = BLOCKS[page]
    index = next(i for i, b in enumerate(found) if _runs(b) and b.section == section)
    block = found[index]
    shown = found[index + 1] if index + 1 < len(found) else None
    assert shown is not None and shown.lang == "text", f"{block.where}: no text block of its output after it"
    run = subprocess.run([sys.executable, "-c", block.text], cwd=tmp_path, env=_environment(),
                         stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=COMMAND_TIMEOUT,
                         check=False)
    assert run.returncode == 0, f"{block.where}: exited {run.returncode}\n{run.stderr[-2000:]}"
    assert run.stdout == shown.text, f"{block.where} printed:\n{run.stdout}\nthe page shows:\n{shown.text}"


def _imports(block: Block) -> list[tuple[str, str | None]]:
    tree = ast.parse(block.text, filename=block.where)
    found: list[tuple[str, str | None]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend((alias.name, None) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0 and node.module, f"{block.where}: a relative import"
            found.extend((node.module, alias.name) for alias in node.names)
    return found


@pytest.mark.parametrize("page", _pages_with(lambda b: b.lang == "python"))
def test_the_imports_of_a_page_resolve(page):
    problems = []
    checked = 0
    for block in BLOCKS[page]:
        if block.lang != "python":
            continue
        try:
            imports = _imports(block)
        except SyntaxError as error:
            problems.append(f"{block.where}: not Python: {error}")
            continue
        for module_name, name in imports:
            checked += 1
            try:
                module = importlib.import_module(module_name)
                if name is not None and name != "*" and not hasattr(module, name):
                    importlib.import_module(f"{module_name}.{name}")
            except ImportError as error:
                what = module_name if name is None else f"{name} from {module_name}"
                problems.append(f"{block.where}: cannot import {what}: {error}")
    assert checked, f"{page}: python blocks without an import"
    assert not problems, "\n".join(problems)
