"""Numbers to colours: the colour maps and :func:`colour_map`, and the checks of the per-cell arrays
(one number and one policy action per cell) that :func:`~gridghost.drawing.pictures.value_picture`
and :meth:`Renderer.set_overlay <gridghost.drawing.renderer.Renderer.set_overlay>` both draw.
Plain NumPy, no pygame.
"""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np

from gridghost.core.checks import check_choice
from gridghost.core.rules import NUM_ACTIONS

#: Colour maps by name: RGB colours spread evenly from the lowest value (first) to the highest
#: (last), interpolated linearly between. ``"viridis"`` (eleven samples of matplotlib's map) is
#: perceptually uniform and readable in grey and by colour-blind readers; ``"diverging"`` runs from
#: blue through light grey to red, for numbers either side of a centre (pass ``vmin = -vmax``).
COLOUR_MAPS: dict[str, tuple[tuple[int, int, int], ...]] = {
    "viridis": (
        (68, 1, 84), (72, 36, 117), (65, 68, 135), (53, 95, 141), (42, 120, 142), (33, 145, 140),
        (34, 168, 132), (68, 191, 112), (122, 209, 81), (189, 223, 38), (253, 231, 37),
    ),
    "diverging": ((59, 76, 192), (144, 178, 254), (221, 220, 220), (245, 156, 125), (180, 4, 38)),
}
#: Cells whose value is NaN (no value: the game is over there, say) are drawn in this grey.
NAN_COLOUR = (190, 190, 190)


def colour_map(
    values: Any, cmap: str | Any = "viridis", vmin: float | None = None, vmax: float | None = None
) -> np.ndarray:
    """The colours of numbers under a colour map: ``vmin`` gets the map's first colour, ``vmax``
    its last, the numbers between are interpolated linearly, and NaN gets :data:`NAN_COLOUR`.

    >>> colour_map([0.0, 0.5, 1.0, float("nan")]).tolist()
    [[68, 1, 84], [33, 145, 140], [253, 231, 37], [190, 190, 190]]

    Args:
        values: real numbers, of any shape; NaN (or a masked entry of a masked array) means no value.
        cmap: a name from :data:`COLOUR_MAPS`, or at least two RGB colours (``0..255``), the lowest
            value's first.
        vmin, vmax: the numbers that get the map's ends (numbers beyond them get the end colours);
            ``None`` takes the smallest or largest finite value. When the two are equal every
            value gets the map's middle colour.

    Returns:
        A fresh ``uint8`` array of shape ``values.shape + (3,)``.

    Raises:
        TypeError: ``values``, ``vmin``, ``vmax`` or ``cmap`` are not numbers (or a name).
        ValueError: an infinite value, a non-finite ``vmin`` or ``vmax``, ``vmin`` above ``vmax``,
            an unknown colour map name or colours that are not ``k x 3`` numbers in ``0..255``.
    """
    array = check_values(values, "values")
    anchors = check_cmap(cmap)
    low, high = colour_range(array, vmin, vmax)
    return map_colours(array, low, high, anchors)


# -- checks of the pictures' arguments -----------------------------------------------------------

def _unmasked(values: Any, argument: str, shape: tuple[int, int] | None, kinds: str, what: str,
              fill: float) -> np.ndarray:
    """``values``, of a dtype of ``kinds`` (holding ``what``) and ``shape`` when given, as a fresh
    array of ``fill``'s type with ``fill`` for masked entries."""
    masked = np.ma.isMaskedArray(values)
    array = np.ma.getdata(values) if masked else np.asarray(values)
    if array.dtype.kind not in kinds:
        raise TypeError(f"{argument} must hold {what}, got dtype {array.dtype}")
    if shape is not None and array.shape != shape:
        raise ValueError(f"{argument} must have shape {shape} (rows x cols), got {array.shape}")
    out = array.astype(float if isinstance(fill, float) else np.int64)
    if masked:
        out[np.ma.getmaskarray(values)] = fill
    return out


def check_values(values: Any, argument: str, shape: tuple[int, int] | None = None) -> np.ndarray:
    """``values`` as a float array with NaN for masked entries."""
    array = _unmasked(values, argument, shape, "iuf", "real numbers", np.nan)
    if np.isinf(array).any():
        raise ValueError(f"{argument} must hold finite numbers or NaN (no value), got an infinity")
    return array


def check_policy(policy: Any, argument: str, shape: tuple[int, int]) -> np.ndarray:
    """``policy`` as an ``int64`` array with -1 for masked entries."""
    actions = _unmasked(policy, argument, shape, "iu", "integer actions (0 left, 1 down, 2 right, 3 up, -1 none)", -1)
    bad = np.argwhere((actions < -1) | (actions >= NUM_ACTIONS))
    if len(bad):
        cell = tuple(int(v) for v in bad[0])
        raise ValueError(
            f"{argument} must hold actions in -1..{NUM_ACTIONS - 1} (-1: no arrow), got {int(actions[cell])} at {cell}"
        )
    return actions


def _check_bound(value: Any, argument: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{argument} must be a finite number or None, got {value!r}")
    if not math.isfinite(value):
        raise ValueError(f"{argument} must be a finite number or None, got {value!r}")
    return float(value)


def colour_range(values: np.ndarray, vmin: Any, vmax: Any) -> tuple[float, float]:
    """The numbers at the colour map's ends: ``vmin`` and ``vmax``, or the finite values' extremes
    (NaN when there is none)."""
    low, high = _check_bound(vmin, "vmin"), _check_bound(vmax, "vmax")
    finite = values[np.isfinite(values)]
    if low is None:
        low = float(finite.min()) if finite.size else math.nan
    if high is None:
        high = float(finite.max()) if finite.size else math.nan
    if low > high:
        said = "vmin" if vmin is not None else "the smallest value (vmin=None)"
        than = "vmax" if vmax is not None else "the largest value (vmax=None)"
        raise ValueError(f"vmin must not exceed vmax: {said} is {low:g}, {than} is {high:g}")
    return low, high


def check_cmap(cmap: Any) -> np.ndarray:
    """The colour map's colours as a ``float64[k, 3]`` array."""
    if isinstance(cmap, str):
        return np.array(COLOUR_MAPS[check_choice(cmap, "cmap", tuple(COLOUR_MAPS))], dtype=float)
    array = np.asarray(cmap)
    if array.dtype.kind not in "iuf":
        raise TypeError(f"cmap must be a name from {list(COLOUR_MAPS)} or k x 3 RGB numbers, got {cmap!r}")
    if array.ndim != 2 or array.shape[0] < 2 or array.shape[1] != 3:
        raise ValueError(f"cmap must hold at least two RGB colours (shape (k, 3), k >= 2), got shape {array.shape}")
    colours = array.astype(float)
    if not (np.isfinite(colours).all() and (colours >= 0).all() and (colours <= 255).all()):
        raise ValueError("cmap's colours must be RGB numbers in 0..255")
    return colours


def map_colours(values: np.ndarray, low: float, high: float, anchors: np.ndarray) -> np.ndarray:
    """``uint8[..., 3]`` colours of ``values`` on the colour map ``anchors`` between ``low`` and
    ``high`` (:data:`NAN_COLOUR` where a value is not finite)."""
    out = np.empty((*values.shape, 3), dtype=np.uint8)
    out[...] = NAN_COLOUR
    finite = np.isfinite(values)
    # One number, or vmin == vmax, has nothing to tell apart: the middle colour.
    t = np.clip((values[finite] - low) / (high - low), 0.0, 1.0) if high > low else np.full(int(finite.sum()), 0.5)
    position = t * (len(anchors) - 1)
    index = np.minimum(position.astype(np.int64), len(anchors) - 2)
    fraction = (position - index)[:, None]
    out[finite] = np.rint(anchors[index] * (1.0 - fraction) + anchors[index + 1] * fraction).astype(np.uint8)
    return out
