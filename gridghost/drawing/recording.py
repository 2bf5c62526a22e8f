"""Recordings: ``rgb_array`` frames saved as PNG files (with pygame) or as an animated GIF or
MP4 video (with the optional ``imageio``, ``pip install "gridghost[record]"``).

Every argument is checked before anything is written, so a bad call leaves no half-written files.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from gridghost.core.checks import check_rate
from gridghost.drawing.render import import_pygame


def _check_frame(frame: Any, argument: str) -> np.ndarray:
    if not isinstance(frame, np.ndarray) or frame.dtype != np.uint8 or frame.ndim != 3 or frame.shape[2] != 3:
        described = (
            f"array of shape {frame.shape} and dtype {frame.dtype}" if isinstance(frame, np.ndarray) else repr(frame)
        )
        raise ValueError(f"{argument} must be a height x width x 3 uint8 array (an rgb_array frame), got {described}")
    if frame.shape[0] == 0 or frame.shape[1] == 0:
        raise ValueError(f"{argument} must not be empty, got shape {frame.shape}")
    return frame


def _check_frames(frames: Iterable[np.ndarray]) -> list[np.ndarray]:
    if isinstance(frames, np.ndarray) and frames.ndim == 4:
        frames = list(frames)
    if isinstance(frames, (np.ndarray, str, bytes)) or not isinstance(frames, Iterable):
        raise TypeError(f"frames must be a sequence of rgb_array frames, got {type(frames).__name__}")
    checked = [_check_frame(frame, f"frames[{i}]") for i, frame in enumerate(frames)]
    if not checked:
        raise ValueError("frames must hold at least one frame, got none")
    return checked


def _check_suffix(path: Any, argument: str, accepted: Sequence[str]) -> Path:
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"{argument} must be a str or os.PathLike, got {path!r}")
    path = Path(path)
    if path.suffix.lower() not in accepted:
        raise ValueError(f"{argument} must end in one of {list(accepted)}, got {str(path)!r}")
    return path


def save_image(frame: np.ndarray, path: str | os.PathLike[str]) -> Path:
    """Save one ``rgb_array`` frame as a PNG file (creating its folder).

    Args:
        frame: a ``height x width x 3`` ``uint8`` array.
        path: where to write; must end in ``.png``.

    Returns:
        The path written.

    Raises:
        TypeError, ValueError: ``frame`` is not such an array, or ``path`` does not end in ``.png``.
    """
    frame = _check_frame(frame, "frame")
    path = _check_suffix(path, "path", (".png",))
    pg = import_pygame()
    height, width, _ = frame.shape
    surface = pg.image.frombuffer(np.ascontiguousarray(frame).tobytes(), (width, height), "RGB")
    path.parent.mkdir(parents=True, exist_ok=True)
    pg.image.save(surface, str(path))
    return path


def save_frames(frames: Iterable[np.ndarray], directory: str | os.PathLike[str], prefix: str = "frame") -> list[Path]:
    """Save frames as numbered PNG files, ``{prefix}_00000.png``, ``{prefix}_00001.png``, ...

    Args:
        frames: ``rgb_array`` frames (``height x width x 3`` ``uint8`` arrays).
        directory: the folder to write into (created if missing).
        prefix: the start of every file name.

    Returns:
        The paths written, in order.

    Raises:
        TypeError, ValueError: ``frames`` is empty or holds something else than such arrays,
            ``directory`` is not a path, or ``prefix`` is empty or holds a path separator.
    """
    checked = _check_frames(frames)
    if not isinstance(directory, (str, os.PathLike)):
        raise TypeError(f"directory must be a str or os.PathLike, got {directory!r}")
    if not isinstance(prefix, str) or not prefix or "/" in prefix or os.sep in prefix:
        raise ValueError(f"prefix must be a non-empty file name start without path separators, got {prefix!r}")
    digits = max(5, len(str(len(checked) - 1)))
    return [save_image(frame, Path(directory) / f"{prefix}_{i:0{digits}d}.png") for i, frame in enumerate(checked)]


def save_animation(frames: Iterable[np.ndarray], path: str | os.PathLike[str], fps: float = 4) -> Path:
    """Save frames as an animated GIF (looping) or an MP4 video, with ``imageio``.

    GIFs need ``imageio`` (``pip install "gridghost[record]"``); MP4 videos need
    ``imageio-ffmpeg`` as well.

    Args:
        frames: ``rgb_array`` frames, all of the same shape.
        path: where to write; must end in ``.gif`` or ``.mp4``. Its folder is created if missing.
        fps: frames per second.

    Returns:
        The path written.

    Raises:
        TypeError, ValueError: bad ``frames`` (empty, not frames, shapes differ), ``path`` or ``fps``.
        ImportError: ``imageio`` (or, for MP4, ``imageio-ffmpeg``) is not installed.
    """
    checked = _check_frames(frames)
    for i, frame in enumerate(checked):
        if frame.shape != checked[0].shape:
            raise ValueError(f"frames[{i}] has shape {frame.shape}, but frames[0] has {checked[0].shape}")
    path = _check_suffix(path, "path", (".gif", ".mp4"))
    check_rate(fps, "fps")
    try:
        import imageio.v3 as iio
    except ImportError:
        raise ImportError(
            'save_animation needs imageio: pip install "gridghost[record]" (or save_frames for PNG files)'
        ) from None
    stack = np.stack(checked)
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix.lower() == ".gif":
        # Pillow takes each frame's duration in milliseconds; loop=0 repeats forever.
        iio.imwrite(path, stack, extension=".gif", plugin="pillow", duration=round(1000 / fps), loop=0)
    else:
        if importlib.util.find_spec("imageio_ffmpeg") is None:  # imageio's FFMPEG plugin needs it
            raise ImportError("writing MP4 needs imageio-ffmpeg: pip install imageio-ffmpeg (or save a .gif)")
        iio.imwrite(path, stack, extension=".mp4", plugin="FFMPEG", fps=fps)
    return path
