"""Write the settings table of docs/configuration.md from the settings' one declaration
(:class:`gridghost.config.GameSpec`'s fields and :data:`gridghost.config.INPUTS`), between its
markers. Run it from the repository root after adding or changing a setting, and commit the page;
tests/test_config_declaration.py checks that the page holds what this writes:

    python docs/make_settings_table.py
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# this checkout's gridghost and the benchmarks' harness, whatever is installed
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]

from gridghost.config import settings_lines  # noqa: E402

from harness import rewrite_block  # noqa: E402

PAGE = ROOT / "docs" / "configuration.md"
#: The markers around the table on the page.
TABLE_START = "<!-- settings-table:"
TABLE_END = "<!-- /settings-table -->"


def main() -> None:
    """Rewrite the table on the page."""
    rewrite_block(PAGE, TABLE_START, TABLE_END, settings_lines())


if __name__ == "__main__":
    main()
