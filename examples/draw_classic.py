"""Draw the classic map as the README shows it: the env's rgb_array picture right after
``reset(seed=0)``, saved as a PNG file.

    python examples/draw_classic.py                     # rewrites docs/classic.png
    python examples/draw_classic.py --out classic.png
"""

from __future__ import annotations

import argparse
from pathlib import Path

import gridghost
from gridghost.drawing import save_image

DEFAULT_OUT = Path(__file__).resolve().parent.parent / "docs" / "classic.png"


def main(argv: list[str] | None = None) -> int:
    """Draw and save the picture; returns the process exit code."""
    parser = argparse.ArgumentParser(description="Save a picture of the classic map at the start of a game.")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="the .png to write (default: docs/classic.png)")
    args = parser.parse_args(argv)
    env = gridghost.env(render_mode="rgb_array")
    env.reset(seed=0)
    try:
        path = save_image(env.render(), args.out)
    except ValueError as error:
        parser.error(str(error))
    env.close()
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
