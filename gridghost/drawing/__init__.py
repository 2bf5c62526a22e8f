"""Pictures of the game: the text picture, the pygame renderer, value pictures and recordings.

One module per concern, each importing only those above it in this list (and :mod:`gridghost.core`):

- :mod:`~gridghost.drawing.text`: the text picture (the ``"ansi"`` mode) and the status lines;
- :mod:`~gridghost.drawing.geometry`: where everything lies in a picture, in pixels;
- :mod:`~gridghost.drawing.colourmap`: numbers to colours, and the checks of per-cell arrays;
- :mod:`~gridghost.drawing.paint`: the palette, pygame's import, the shapes and fitted texts;
- :mod:`~gridghost.drawing.renderer`: the :class:`Renderer` (a window, or ``rgb_array`` frames);
- :mod:`~gridghost.drawing.pictures`: still pictures, :func:`cell_images` and :func:`value_picture`;
- :mod:`~gridghost.drawing.recording`: frames saved as PNG files or animations.

pygame is imported only when something is drawn.
"""

from __future__ import annotations

from gridghost.drawing.colourmap import COLOUR_MAPS, NAN_COLOUR, colour_map
from gridghost.drawing.geometry import (
    MAX_CELL_SIZE,
    MAX_PICTURE_PIXELS,
    MAX_TOKENS,
    MIN_CELL_SIZE,
    SCREEN_BUDGET,
    Geometry,
    PictureGeometry,
    fit_cell_size,
)
from gridghost.drawing.paint import (
    AGENT_COLOUR,
    ARROW_COLOUR,
    BELIEF_COLOUR,
    CELL_COLOURS,
    ESTIMATE_COLOUR,
    GHOST_COLOUR,
    GHOST_COLOURS,
    GOAL_COLOUR,
    WALL_COLOUR,
    import_pygame,
)
from gridghost.drawing.pictures import MARKS, cell_images, team_marks, value_picture
from gridghost.drawing.recording import (
    save_animation,
    save_frames,
    save_image,
)
from gridghost.drawing.renderer import OVERLAY_OPACITY, RENDER_MODES, Renderer, surface_to_array
from gridghost.drawing.text import (
    GHOST_SYMBOLS,
    LEGEND,
    READING_TEXT_LIMIT,
    Status,
    colour_id,
    describe_reading,
    escape_undrawable,
    ghost_cells,
    team_legend,
    text_picture,
)

__all__ = [
    "AGENT_COLOUR",
    "ARROW_COLOUR",
    "BELIEF_COLOUR",
    "CELL_COLOURS",
    "COLOUR_MAPS",
    "ESTIMATE_COLOUR",
    "GHOST_COLOUR",
    "GHOST_COLOURS",
    "GHOST_SYMBOLS",
    "GOAL_COLOUR",
    "LEGEND",
    "MARKS",
    "MAX_CELL_SIZE",
    "MAX_PICTURE_PIXELS",
    "MAX_TOKENS",
    "MIN_CELL_SIZE",
    "NAN_COLOUR",
    "OVERLAY_OPACITY",
    "READING_TEXT_LIMIT",
    "RENDER_MODES",
    "SCREEN_BUDGET",
    "WALL_COLOUR",
    "Geometry",
    "PictureGeometry",
    "Renderer",
    "Status",
    "cell_images",
    "colour_id",
    "colour_map",
    "describe_reading",
    "escape_undrawable",
    "fit_cell_size",
    "ghost_cells",
    "import_pygame",
    "save_animation",
    "save_frames",
    "save_image",
    "surface_to_array",
    "team_legend",
    "team_marks",
    "text_picture",
    "value_picture",
]
