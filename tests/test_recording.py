"""Recordings (gridghost.drawing.recording): PNG files and animations load back as the frames they were
made from, bad arguments are refused before anything is written, and the old names in
gridghost.drawing.render still work, with a warning."""

from __future__ import annotations

import sys

import numpy as np
import pygame
import pytest

import gridghost
import gridghost.drawing.recording
import gridghost.drawing.render
from gridghost.drawing import save_animation, save_frames, save_image


def some_frames(count: int = 3) -> list[np.ndarray]:
    env = gridghost.env(render_mode="rgb_array", slip_probability=0.0)
    env.reset(seed=0)
    frames = [env.render()]
    for action in (1, 0, 1, 0)[: count - 1]:
        env.step(action)
        frames.append(env.render())
    return frames


def load_png(path) -> np.ndarray:
    return pygame.surfarray.array3d(pygame.image.load(str(path))).transpose(1, 0, 2)


def test_save_frames_writes_numbered_pngs_that_load_back_exactly(tmp_path) -> None:
    frames = some_frames(3)
    paths = save_frames(frames, tmp_path / "run", prefix="step")
    assert [p.name for p in paths] == ["step_00000.png", "step_00001.png", "step_00002.png"]
    for path, frame in zip(paths, frames, strict=True):
        assert np.array_equal(load_png(path), frame)


def test_save_image_writes_one_png(tmp_path) -> None:
    frame = some_frames(1)[0]
    path = save_image(frame, tmp_path / "picture.png")
    assert np.array_equal(load_png(path), frame)


def test_save_animation_writes_a_looping_gif(tmp_path) -> None:
    import imageio.v3 as iio

    # Few colours, so the GIF palette holds them exactly.
    frames = [np.zeros((6, 8, 3), np.uint8) for _ in range(3)]
    frames[0][:, :4] = (255, 0, 0)
    frames[1][2:, :] = (0, 0, 255)
    frames[2][:] = (0, 255, 0)
    path = save_animation(frames, tmp_path / "clip.gif", fps=5)
    back = iio.imread(path, index=None, plugin="pillow", mode="RGB")
    assert back.shape == (3, 6, 8, 3)
    assert np.array_equal(back, np.stack(frames))
    meta = iio.immeta(path, plugin="pillow")
    assert meta["duration"] == 200 and meta["loop"] == 0


def test_save_animation_without_imageio_says_how_to_install_it(tmp_path, monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "imageio", None)
    monkeypatch.setitem(sys.modules, "imageio.v3", None)
    with pytest.raises(ImportError, match=r'pip install "gridghost\[record\]"'):
        save_animation(some_frames(1), tmp_path / "clip.gif")
    assert not (tmp_path / "clip.gif").exists()


def test_save_animation_mp4_without_ffmpeg_says_what_is_missing(tmp_path, monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "imageio_ffmpeg", None)
    with pytest.raises(ImportError, match="writing MP4 needs imageio-ffmpeg"):
        save_animation(some_frames(1), tmp_path / "clip.mp4")


GOOD = np.zeros((4, 4, 3), np.uint8)


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda d: save_frames([], d), ValueError, "frames must hold at least one frame"),
        (lambda d: save_frames(GOOD, d), TypeError, "frames must be a sequence"),
        (lambda d: save_frames([GOOD, GOOD.astype(float)], d), ValueError, r"frames\[1\] must be .* uint8 .*float64"),
        (lambda d: save_frames([np.zeros((4, 4), np.uint8)], d), ValueError,
         r"frames\[0\] must be a height x width x 3"),
        (lambda d: save_frames([np.zeros((0, 4, 3), np.uint8)], d), ValueError, r"frames\[0\] must not be empty"),
        (lambda d: save_frames(["frame"], d), ValueError, r"frames\[0\] must be .* got 'frame'"),
        (lambda d: save_frames([GOOD], d, prefix="a/b"), ValueError, "prefix"),
        (lambda d: save_frames([GOOD], d, prefix=""), ValueError, "prefix"),
        (lambda d: save_frames([GOOD], 7), TypeError, "directory must be a str or os.PathLike"),
        (lambda d: save_image(GOOD, d / "x.jpg"), ValueError, r"path must end in one of \['.png'\]"),
        (lambda d: save_image(GOOD[:, :, :2].copy(), d / "x.png"), ValueError, "frame must be"),
        (lambda d: save_animation([GOOD], d / "x.avi"), ValueError, r"path must end in one of \['.gif', '.mp4'\]"),
        (lambda d: save_animation([GOOD], d / "x.gif", fps=0), ValueError, "fps must be a finite number > 0, got 0"),
        (lambda d: save_animation([GOOD], d / "x.gif", fps=float("nan")), ValueError, "fps"),
        (lambda d: save_animation([GOOD], d / "x.gif", fps="fast"), TypeError, "fps"),
        (lambda d: save_animation([GOOD, np.zeros((5, 4, 3), np.uint8)], d / "x.gif"), ValueError,
         r"frames\[1\] has shape \(5, 4, 3\), but frames\[0\] has \(4, 4, 3\)"),
    ],
)
def test_recording_helpers_reject_bad_arguments(tmp_path, call, error, message) -> None:
    with pytest.raises(error, match=message):
        call(tmp_path)
    assert not any(tmp_path.iterdir())  # nothing half-written


def test_render_has_no_other_attributes_by_accident() -> None:
    with pytest.raises(AttributeError, match="has no attribute 'save_movie'"):
        gridghost.drawing.render.save_movie  # noqa: B018
