"""The documentation site stays true: every Python example in the pages and the README runs, the
pictures are the package's own, every page is in the site and every subpackage has its reference."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import gridghost
from gridghost.maps import DIFFICULTIES, names

from helpers import FENCE, RUN_BY, python_blocks

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
PAGES = sorted(DOCS.rglob("*.md"))
MKDOCS = (ROOT / "mkdocs.yml").read_text()
README = (ROOT / "README.md").read_text()
#: The blocks allowed to run nowhere (each needs an extra; a block that a test runs where its extra is
#: installed, "tests/test_x.py runs it", does not count). Keep this set small.
MAX_NOT_RUN = 6


def relative(path: Path) -> str:
    return str(path.relative_to(ROOT))


@pytest.mark.parametrize("path", [ROOT / "README.md", *PAGES], ids=relative)
def test_every_python_example_runs(path: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    monkeypatch.chdir(tmp_path)  # an example that writes a file writes it here
    for line, code, reason in python_blocks(path):
        if reason is None:
            # a file name of path:line puts a failing example's own line in the traceback
            exec(compile("\n" * (line - 1) + code, f"{path}", "exec"), {"__name__": "__docs__"})


def test_examples_that_do_not_run_are_few_and_say_why() -> None:
    blocks = [(path, *block) for path in [ROOT / "README.md", *PAGES] for block in python_blocks(path)]
    skipped = [(relative(path), line, reason) for path, line, _, reason in blocks if reason is not None]
    assert len(blocks) >= 25, "the pages' examples were not found"
    for page, _, reason in skipped:
        assert re.fullmatch(r"needs .{8,}", reason), reason
        for test in RUN_BY.findall(reason):  # the test that runs it exists and reads this page
            assert Path(page).name in (ROOT / test).read_text(), (page, test)
    nowhere = [block for block in skipped if not RUN_BY.search(block[2])]
    assert len(nowhere) <= MAX_NOT_RUN, nowhere
    assert any(reason is None for path, _, _, reason in blocks if path == ROOT / "README.md")


@pytest.mark.parametrize("path", [ROOT / "README.md", *PAGES], ids=relative)
def test_no_code_hides_under_an_unchecked_fence(path: Path) -> None:
    # A ```py or ```python3 block would escape the test above; a not-run comment must sit on a python block.
    text = path.read_text()
    assert {match[1].strip() for match in FENCE.finditer(text)} <= {"python", "bash", ""}
    marked = sum(reason is not None for _, _, reason in python_blocks(path))
    assert len(re.findall(r"^<!-- not-run:", text, flags=re.M)) == marked


def test_the_text_picture_in_the_docs_is_what_the_env_draws() -> None:
    pictures = [(path, match[2].rstrip("\n")) for path in PAGES for match in FENCE.finditer(path.read_text())
                if match[2].startswith("cycle 0/100")]
    assert len(pictures) == 1, [relative(path) for path, _ in pictures]
    env = gridghost.env(render_mode="ansi")
    env.reset(seed=0)
    assert env.render() == pictures[0][1]


# -- the pages and the site -----------------------------------------------------------------------

def test_every_page_is_in_the_site_navigation_and_every_entry_exists() -> None:
    listed = set(re.findall(r"^\s*- (?:[^:\n]+: )?(\S+\.md)\s*$", MKDOCS, flags=re.M))
    assert listed == {str(path.relative_to(DOCS)) for path in PAGES}


def test_every_subpackage_has_its_reference_page() -> None:
    packages = sorted(init.parent.name for init in (ROOT / "gridghost").glob("*/__init__.py"))
    assert {"core", "planning", "envs", "drawing"} <= set(packages)
    for package in packages:
        page = (DOCS / "reference" / f"{package}.md").read_text()
        assert re.search(rf"^::: gridghost\.{package}(\.\w+)?$", page, flags=re.M), package
    assert re.search(r"^::: gridghost$", (DOCS / "reference" / "gridghost.md").read_text(), flags=re.M)


@pytest.mark.parametrize("path", [ROOT / "README.md", *PAGES], ids=relative)
def test_relative_links_and_pictures_point_at_files(path: Path) -> None:
    for target in re.findall(r"\]\(([^)#:\s]+)(?:#[^)]*)?\)", path.read_text()):
        assert (path.parent / target).exists(), f"{relative(path)} links to {target}"


def test_readme_is_short_and_links_to_the_pages() -> None:
    assert len(README.splitlines()) <= 160
    for page in ("getting-started/both-sides", "getting-started/one-side", "getting-started/agent-interface",
                 "getting-started/playing", "maps", "solver", "reference/index"):
        # absolute, for the package index (tests/test_release.py checks every link of the README)
        assert f"(https://gridghost.github.io/gridghost/{page.removesuffix('index')}" in README, page


def test_ci_docs_builds_strictly_in_the_venv_it_is_given() -> None:
    script = (ROOT / ".ci" / "docs").read_text()
    assert 'venv="$1"' in script and '-e ".[docs]"' in script
    assert re.search(r"mkdocs\" build --strict --site-dir", script)
    assert re.search(r"^docs = \[.*\"mkdocs>=", (ROOT / "pyproject.toml").read_text(), flags=re.M)


# -- pages that read in a browser -------------------------------------------------------------------

#: The widest code line a page may show: what the site's column shows at 1280 px without sideways
#: scrolling (docs/stylesheets/extra.css sizes it), and the width the package's code aims at.
CODE_COLUMNS = 88


def code_lines(path: Path) -> list[tuple[int, str]]:
    """``(line number, line)`` of every line inside a fenced block of a Markdown file."""
    text = path.read_text()
    return [(text.count("\n", 0, match.start()) + 2 + offset, line) for match in FENCE.finditer(text)
            for offset, line in enumerate(match[2].splitlines())]


@pytest.mark.parametrize("path", [ROOT / "README.md", *PAGES], ids=relative)
def test_code_lines_fit_the_page_column(path: Path) -> None:
    lines = code_lines(path)
    if path.name == "README.md":  # its opening two commands stay whole, for .ci/run to read
        first = FENCE.search(path.read_text())
        assert first is not None and first[1] == "bash"
        lines = lines[len(first[2].splitlines()):]
    wide = [f"{relative(path)}:{number}: {len(line)} characters" for number, line in lines
            if len(line) > CODE_COLUMNS]
    assert not wide, "\n".join(wide)


def test_the_width_check_sees_a_wide_line(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("text " * 30 + "\n\n```python\nx = 1\n" + "y = " + "1 + " * 25 + "1\n```\n")
    assert code_lines(page) == [(4, "x = 1"), (5, "y = " + "1 + " * 25 + "1")]
    assert len(code_lines(page)[1][1]) > CODE_COLUMNS


def test_no_page_escapes_a_pipe() -> None:
    # Python-Markdown shows a table cell's "\|" as a backslash and a pipe inside code; the settings
    # list is generated, so its source is the declaration's rendering.
    from gridghost.config import settings_lines

    sources = {relative(path): path.read_text() for path in [ROOT / "README.md", *PAGES]}
    sources["settings_lines()"] = "\n".join(settings_lines())
    assert [name for name, text in sources.items() if "\\|" in text] == []
    assert any("|" in line for line in settings_lines())  # types such as `int | None` are there


#: Words that point a reader at a document that is neither in the repository nor on the site.
ELSEWHERE = re.compile(r"\bDESIGN(?:\.md|'s|\b)|\bSTYLE\.md|\bshared/|\bthe issue\b|\bissue's|\b[Ii]ssues? \d+"
                       r"|\bearlier run")
TEXT_FILES = {".py", ".md", ".txt", ".toml", ".yml", ".yaml", ".cfg", ".css"}


@pytest.mark.parametrize("area", ["README.md", "docs", "gridghost", "tests", "examples", "benchmarks"])
def test_nothing_points_at_a_document_outside_the_repository(area: str) -> None:
    files = [ROOT / area] if area == "README.md" else sorted((ROOT / area).rglob("*"))
    hits = [f"{relative(path)}:{number}: {line.strip()}" for path in files
            if path.suffix in TEXT_FILES and path.is_file() and path != Path(__file__)
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
            if ELSEWHERE.search(line)]
    assert not hits, "\n".join(hits)


def test_the_pointer_check_knows_the_forms_it_refuses() -> None:
    for line in ("see DESIGN.md", "DESIGN's contract", "/work/shared/x", "the issue's target", "Issue 32: a fix",
                 "levels no earlier run reported"):
        assert ELSEWHERE.search(line), line
    for line in ("DESIGN_TABLE = {", "the design of PureJaxRL", "Issues = https://...", "docs/game.md"):
        assert not ELSEWHERE.search(line), line


def test_the_scripts_beside_the_pages_are_no_pages() -> None:
    excluded = MKDOCS.split("exclude_docs: |\n", 1)[1].split("\n\n", 1)[0].split("\n")
    patterns = [line.strip() for line in excluded if line.startswith("  ") and line.strip()]
    scripts = [path.relative_to(DOCS) for path in DOCS.rglob("*.py")]
    assert scripts and all(any(path.match(pattern) for pattern in patterns) for path in scripts), patterns


def test_the_navigation_is_in_sections_with_previous_and_next_links() -> None:
    top = re.findall(r"^  - (.+)$", MKDOCS.split("\nnav:\n", 1)[1], flags=re.M)
    assert top[0] == "Home: index.md"
    assert len(top) >= 5 and all(entry.endswith(":") for entry in top[1:]), top
    assert "- navigation.footer" in MKDOCS


# -- the maps gallery -------------------------------------------------------------------------------

GALLERY = (DOCS / "maps.md").read_text()


def test_the_gallery_shows_every_shipped_map_and_levels_of_every_difficulty() -> None:
    stems = [*names(), *(f"difficulty{d}_level{level}" for d in sorted(DIFFICULTIES) for level in (0, 1))]
    for stem in stems:
        assert f"](maps/{stem}.png)" in GALLERY, stem
        assert (DOCS / "maps" / f"{stem}.png").is_file(), stem
    for name in names():
        assert f"### {name}\n" in GALLERY, name
    assert sorted(path.stem for path in (DOCS / "maps").glob("*.png")) == sorted(stems)


@pytest.mark.slow  # a subprocess: .ci/run runs the slow group
def test_make_pictures_draws_what_the_env_draws_and_what_is_committed(tmp_path: Path) -> None:
    import pygame

    result = subprocess.run([sys.executable, str(DOCS / "make_pictures.py"), "--only", "corridor", "--out",
                             str(tmp_path)], cwd=ROOT, capture_output=True, text=True, timeout=300,
                            env={**__import__("os").environ, "SDL_VIDEODRIVER": "dummy"})
    assert result.returncode == 0, result.stderr
    assert [path.name for path in tmp_path.iterdir()] == ["corridor.png"]

    def pixels(path: Path) -> np.ndarray:
        return pygame.surfarray.array3d(pygame.image.load(str(path))).transpose(1, 0, 2)

    env = gridghost.env(render_mode="rgb_array", layout="corridor")
    env.reset(seed=0)
    drawn = pixels(tmp_path / "corridor.png")
    assert np.array_equal(drawn, env.render())
    committed = pixels(DOCS / "maps" / "corridor.png")
    assert committed.shape == drawn.shape
    # identical with the pygame-ce the pictures were drawn with; another font rasteriser may move a
    # few pixels of the status panel's text, nothing else
    assert np.mean(np.all(committed == drawn, axis=2)) >= 0.98


@pytest.mark.slow  # a subprocess: .ci/run runs the slow group
def test_make_pictures_refuses_an_unknown_picture(tmp_path: Path) -> None:
    result = subprocess.run([sys.executable, str(DOCS / "make_pictures.py"), "--only", "atlantis", "--out",
                             str(tmp_path)], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 2 and "no picture named atlantis" in result.stderr
    assert not list(tmp_path.iterdir())


@pytest.mark.slow  # a subprocess: .ci/run runs the slow group
def test_make_team_picture_draws_the_committed_team_policy(tmp_path: Path) -> None:
    import pygame

    out = tmp_path / "teams_policy.png"
    result = subprocess.run([sys.executable, str(DOCS / "make_team_picture.py"), "--out", str(out)], cwd=ROOT,
                            capture_output=True, text=True, timeout=300,
                            env={**__import__("os").environ, "SDL_VIDEODRIVER": "dummy"})
    assert result.returncode == 0, result.stderr

    def pixels(path: Path) -> np.ndarray:
        return pygame.surfarray.array3d(pygame.image.load(str(path))).transpose(1, 0, 2)

    drawn, committed = pixels(out), pixels(DOCS / "teams_policy.png")
    assert committed.shape == drawn.shape
    same = np.mean(np.all(committed == drawn, axis=2))
    if tuple(pygame.version.vernum)[:3] == (2, 5, 8):  # the pygame-ce the picture was drawn with: every pixel
        assert same == 1.0
    else:  # another font rasteriser (the dependency floors' 2.4) moves pixels of the numbers and the title
        assert same >= 0.95
    assert "![" in (DOCS / "teams.md").read_text(encoding="utf-8").split("teams_policy.png")[0][-200:]
