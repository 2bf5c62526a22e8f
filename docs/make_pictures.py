"""Draw the maps gallery's pictures (docs/maps.md) with gridghost's own renderer.

Every shipped map (``gridghost.maps.names()``) and levels 0 and 1 of every difficulty preset,
each as the env draws it right after ``reset(seed=0)``: the agent and the ghost on their starts
(a team map's whole team, one ghost per start), the status panel below. Run it from the
repository root after changing the renderer or a map, and commit the pictures it writes:

    SDL_VIDEODRIVER=dummy python docs/make_pictures.py            # rewrites docs/maps/*.png
    python docs/make_pictures.py --only maze9 --out /tmp/pictures
"""

from __future__ import annotations

import argparse
from pathlib import Path

import gridghost
from gridghost.drawing import save_image
from gridghost.maps import DIFFICULTIES, MapGenerator, load, names

DEFAULT_OUT = Path(__file__).resolve().parent / "maps"
#: The levels of each difficulty preset the gallery shows.
LEVELS = (0, 1)


def pictures() -> dict[str, object]:
    """The gallery's pictures by file stem: a map's name, or ``difficulty<d>_level<i>``, to its layout."""
    layouts: dict[str, object] = {name: name for name in names()}
    for difficulty in sorted(DIFFICULTIES):
        generator = MapGenerator(difficulty=difficulty)
        for level in LEVELS:
            layouts[f"difficulty{difficulty}_level{level}"] = generator.level(level)
    return layouts


def draw(layout: object) -> object:
    """The env's ``rgb_array`` picture of ``layout`` at the start of a game, with a ghost on every
    ghost start."""
    layout = load(layout) if isinstance(layout, str) else layout
    env = gridghost.env(render_mode="rgb_array", layout=layout, ghosts=len(layout.ghost_starts))
    env.reset(seed=0)
    frame = env.render()
    env.close()
    return frame


def main(argv: list[str] | None = None) -> int:
    """Draw and save the pictures; returns the process exit code."""
    parser = argparse.ArgumentParser(description="Draw the maps gallery's pictures.")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="the folder to write (default: docs/maps)")
    parser.add_argument("--only", nargs="+", metavar="STEM", help="draw only these pictures (file names without .png)")
    args = parser.parse_args(argv)
    layouts = pictures()
    unknown = sorted(set(args.only or ()) - set(layouts))
    if unknown:
        parser.error(f"--only: no picture named {', '.join(unknown)}; the pictures are {', '.join(layouts)}")
    args.out.mkdir(parents=True, exist_ok=True)
    for stem, layout in layouts.items():
        if args.only is None or stem in args.only:
            print(f"wrote {save_image(draw(layout), args.out / f'{stem}.png')}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
