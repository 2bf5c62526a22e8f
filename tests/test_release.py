"""The package is ready for the index: the README renders there (no relative link or image, and
every absolute one names a page or file that exists), the project's URLs agree with the docs
site's, the version is written once and agrees with the changelog and the citation, and CI builds,
checks and tests the sdist (.ci/run's release job, which the default suite cannot afford)."""

from __future__ import annotations

import importlib.metadata
import re
from pathlib import Path

import gridghost
from gridghost import _moved

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()
PYPROJECT = (ROOT / "pyproject.toml").read_text()
CHANGELOG = (ROOT / "CHANGELOG.md").read_text()
CITATION = (ROOT / "CITATION.cff").read_text()
URLS = dict(re.findall(r'^(\w+) = "(\S+)"$', PYPROJECT.split("[project.urls]", 1)[1].split("\n[", 1)[0], flags=re.M))
DOCS_URL = URLS["Documentation"]
#: The source tree on the default branch: a file's page, a folder's page and a file's raw bytes.
SOURCE = re.compile(r"https://(?:github\.com/gridghost/gridghost/(?:blob|tree)|"
                    r"raw\.githubusercontent\.com/gridghost/gridghost)/main/(.+)")


def readme_targets() -> list[str]:
    """Every link and image target of the README: inline, reference-style, autolinks and HTML."""
    inline = re.findall(r"\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\)", README)
    references = re.findall(r"^\s*\[[^\]]+\]:\s*(\S+)", README, flags=re.M)
    autolinks = re.findall(r"<(https?://[^>\s]+)>", README)
    html = re.findall(r"(?:src|href)\s*=\s*[\"']([^\"']+)[\"']", README)
    return inline + references + autolinks + html


def test_the_readme_has_no_relative_link_or_image() -> None:
    targets = readme_targets()
    assert len(targets) >= 20, "the README's links were not found"
    relative = [target for target in targets if not target.startswith("https://")]
    assert not relative, f"the package index cannot follow these: {relative}"


def test_every_absolute_readme_link_into_the_project_names_a_page_or_file_that_exists() -> None:
    checked = 0
    for target in readme_targets():
        target = target.split("#", 1)[0]
        if target.startswith(DOCS_URL):
            page = target[len(DOCS_URL):].rstrip("/")
            candidates = [ROOT / "docs" / f"{page}.md", ROOT / "docs" / page / "index.md"] if page else [
                ROOT / "docs" / "index.md"]
            assert any(path.is_file() for path in candidates), f"{target}: no page docs/{page}(.md|/index.md)"
            checked += 1
        elif match := SOURCE.fullmatch(target):
            assert (ROOT / match[1]).exists(), f"{target}: no {match[1]} in the source tree"
            checked += 1
        else:
            assert "gridghost" not in target, f"{target} points into the project outside its known homes"
    assert checked >= 20


def test_the_readme_pictures_are_the_committed_files() -> None:
    pictures = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", README)
    assert pictures, "the README shows no picture"
    for picture in pictures:
        match = SOURCE.fullmatch(picture)
        assert match and picture.startswith("https://raw.githubusercontent.com/"), picture
        assert (ROOT / match[1]).is_file(), picture


def test_project_urls_name_the_docs_source_issues_and_changelog_and_agree_with_the_site() -> None:
    assert {"Documentation", "Source", "Issues", "Changelog"} <= set(URLS)
    assert all(url.startswith("https://") for url in URLS.values())
    mkdocs = (ROOT / "mkdocs.yml").read_text()
    assert re.search(rf"^site_url: {re.escape(DOCS_URL)}$", mkdocs, flags=re.M)
    assert re.search(rf"^repo_url: {re.escape(URLS['Source'])}$", mkdocs, flags=re.M)
    assert URLS["Issues"] == URLS["Source"] + "/issues"
    assert SOURCE.fullmatch(URLS["Changelog"])[1] == "CHANGELOG.md"


def test_the_version_is_written_once() -> None:
    project = PYPROJECT.split("[project]", 1)[1].split("\n[", 1)[0]
    assert not re.search(r"^version\s*=", project, flags=re.M), "pyproject.toml types the version again"
    assert re.search(r'^dynamic = \["version"\]', project, flags=re.M)
    assert re.search(r'^version = \{ attr = "gridghost.__version__" \}$', PYPROJECT, flags=re.M)
    written = [path for path in (ROOT / "gridghost").rglob("*.py") if "__version__ =" in path.read_text()]
    assert written == [ROOT / "gridghost" / "__init__.py"]
    # what pip installed was read from there
    assert importlib.metadata.version("gridghost") == gridghost.__version__


def test_the_changelog_is_keep_a_changelog_and_its_newest_release_is_this_version() -> None:
    assert CHANGELOG.startswith("# Changelog\n")
    assert "https://keepachangelog.com/en/1.1.0/" in CHANGELOG
    releases = re.findall(r"^## \[(\d+\.\d+\.\d+)\] - (\d{4}-\d{2}-\d{2})$", CHANGELOG, flags=re.M)
    assert [version for version, _ in releases][:1] == [gridghost.__version__]
    assert [version for version, _ in releases][-1] == "0.1.0"
    assert [date for _, date in releases] == sorted(date for _, date in releases)[::-1]
    headings = set(re.findall(r"^### (.+)$", CHANGELOG, flags=re.M))
    assert headings <= {"Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"}, headings
    for version, _ in releases:  # each release links to its diff or tag
        assert re.search(rf"^\[{re.escape(version)}\]: https://github\.com/gridghost/gridghost/", CHANGELOG,
                         flags=re.M), version
    # every breaking change is named, and the old module paths' end is announced
    assert CHANGELOG.count("**Breaking:**") >= 2
    assert re.search(rf"old flat module paths .* removed in\s+{re.escape(_moved.REMOVED_IN)}", CHANGELOG, flags=re.S)


def test_the_citation_names_this_version_and_the_changelogs_date() -> None:
    assert re.search(r"^cff-version: 1\.2\.0$", CITATION, flags=re.M)
    assert re.search(rf"^version: {re.escape(gridghost.__version__)}$", CITATION, flags=re.M)
    (date,) = re.findall(r'^date-released: "(\d{4}-\d{2}-\d{2})"$', CITATION, flags=re.M)
    assert f"## [{gridghost.__version__}] - {date}" in CHANGELOG
    assert re.search(rf'^repository-code: "{re.escape(URLS["Source"])}"$', CITATION, flags=re.M)
    assert re.search(r"^authors:\n  - name: ", CITATION, flags=re.M)


def test_the_sdist_carries_what_its_tests_read() -> None:
    grafted = set(re.findall(r"^graft (\S+)$", (ROOT / "MANIFEST.in").read_text(), flags=re.M))
    # the folders the tests open beside the package
    read = {match for path in (ROOT / "tests").glob("*.py")
            for match in re.findall(r'ROOT / "(\.?[\w-]+)', path.read_text())} - {"gridghost"}
    folders = {name for name in read if (ROOT / name).is_dir()}
    assert folders, "the tests' reads were not found"
    assert folders <= grafted, f"the sdist would miss {sorted(folders - grafted)}"
    assert "tests" in grafted


def test_ci_builds_checks_and_tests_the_sdist() -> None:
    ci = (ROOT / ".ci" / "run").read_text()
    assert re.search(r"-m build --sdist --wheel", ci)
    assert re.search(r"twine\" check --strict", ci)
    assert re.search(r"tar -xzf .*\.tar\.gz", ci)
