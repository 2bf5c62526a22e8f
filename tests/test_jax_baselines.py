"""The plateau baselines' script (``benchmarks/baselines_jax.py``) and the JAX example's
``--difficulty``/``--level`` in both modes (``pytest -m jax``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

from gridghost.maps import MapGenerator

from helpers import load_script

pytestmark = pytest.mark.jax


try:
    baselines = load_script("benchmarks/baselines_jax.py")
    example = sys.modules["jax_selfplay"]  # the script loads the example it runs
except SystemExit:  # no jax: the light run deselects these tests; collecting must not fail
    baselines = example = None


def test_a_curve_flattens_at_the_first_checkpoint_no_later_one_beats_by_more_than_the_tolerance() -> None:
    steps = [1, 2, 3, 4, 5, 6]
    assert baselines.flattened_at(steps, [0.1, 0.5, 0.6, 0.61, 0.6, 0.615], tolerance=0.02, after=2) == 3
    # a late rise past the tolerance moves the flattening after it, or leaves the curve rising
    assert baselines.flattened_at(steps, [0.1, 0.5, 0.6, 0.61, 0.6, 0.7], tolerance=0.02, after=2) is None
    assert baselines.flattened_at(steps, [0.1, 0.5, 0.6, 0.7, 0.7, 0.7], tolerance=0.02, after=2) == 4
    # too few steps after a flat stretch to call it flat
    assert baselines.flattened_at(steps, [0.1, 0.2, 0.3, 0.4, 0.5, 0.5], tolerance=0.02, after=2) is None
    # a falling curve has flattened where it peaked or before
    assert baselines.flattened_at(steps, [0.5, 0.9, 0.8, 0.7, 0.6, 0.5], tolerance=0.02, after=2) == 2


def test_checkpoints_end_at_the_last_update_and_the_default_run_passes_2m_steps() -> None:
    assert baselines.checkpoints(10, 4) == [4, 8, 10]
    assert baselines.checkpoints(8, 4) == [4, 8]
    assert baselines.UPDATES * baselines.RECIPE.batch_size >= 2_000_000
    assert baselines.CURVE_EVERY * baselines.RECIPE.batch_size == 200_704  # the short budget's steps


def test_more_training_levels_than_the_split_never_include_the_held_out_levels() -> None:
    for count in (500, 2000):
        levels = baselines.training_levels(baselines.Group(3, "chase", count))
        numbers = set(range(levels.start_level, levels.start_level + levels.num_levels))
        assert len(numbers) == count and not numbers & set(range(500, 600))


@pytest.mark.parametrize("text", ["2-chase", "9-chase-500", "2-random-500", "2-chase-0", "x-chase-500"])
def test_a_bad_group_name_is_refused(text: str) -> None:
    with pytest.raises(ValueError, match="group"):
        baselines.Group.parse(text)
    with pytest.raises(SystemExit):
        baselines.parse(["--groups", text])


@pytest.mark.parametrize("argv", [["--updates", "0"], ["--workers", "0"], ["--seeds", "1", "1"], ["--seeds", "-1"],
                                  ["--train-only", "a", "--trained", "b"], ["--trained", "/nonexistent"]])
def test_bad_arguments_are_refused(argv: list[str]) -> None:
    with pytest.raises(SystemExit):
        baselines.parse(argv)


@pytest.mark.slow  # trains for tens of seconds: .ci/run's JAX job runs it (-m 'jax or results')
def test_an_interrupted_group_resumes_to_the_numbers_of_a_run_never_stopped(tmp_path: Path, monkeypatch) -> None:
    group = baselines.Group(2, "chase", 3)
    whole = baselines.train_group(group, [0, 1], 2, 1, None)
    saved = baselines._write_npz
    calls = []

    def stop_after_the_first_checkpoint(*args, **kwargs) -> None:
        saved(*args, **kwargs)
        calls.append(1)
        raise KeyboardInterrupt

    monkeypatch.setattr(baselines, "_write_npz", stop_after_the_first_checkpoint)
    with pytest.raises(KeyboardInterrupt):
        baselines.train_group(group, [0, 1], 2, 1, tmp_path)
    monkeypatch.setattr(baselines, "_write_npz", saved)
    resumed = baselines.train_group(group, [0, 1], 2, 1, tmp_path)
    assert calls == [1]
    assert resumed["record"]["steps"] == whole["record"]["steps"] == [4096, 8192]
    assert resumed["record"]["returns"] == whole["record"]["returns"]
    for mine, theirs in zip(resumed["policies"], whole["policies"], strict=True):
        for a, b in zip(mine, theirs, strict=True):
            assert all(np.array_equal(a[name], b[name]) for name in ("w", "b"))
    # what --train-only writes is what --trained reads
    baselines.save_trained(tmp_path / "g.npz", whole)
    back = baselines.load_trained(tmp_path / "g.npz")
    assert back["record"] == json.loads(json.dumps(whole["record"]))
    assert all(np.array_equal(a["w"], b["w"]) for a, b in zip(back["policies"][-1], whole["policies"][-1], strict=True))


@pytest.mark.slow  # trains for tens of seconds: .ci/run's JAX job runs it (-m 'jax or results')
def test_the_single_side_trains_on_the_difficulty_and_level_asked(monkeypatch) -> None:
    seen = []

    def fake_evaluate(policy, levels, **settings):  # records what is scored
        seen.append(levels)
        side = 2 * example.RADIUS + 1
        observations = np.zeros((2, len(example.grid_channels(example.RADIUS)), side, side), dtype=np.float32)
        assert policy(observations).shape == (2,)  # the trained networks play
        return levels

    monkeypatch.setattr(example.gridghost, "evaluate", fake_evaluate)
    result = example.single_side(steps=4096, difficulty=3, level=7, verbose=False)
    train, test = seen
    assert (train.difficulty, train.start_level, train.num_levels) == (3, 7, 1)
    assert (test.difficulty, test.start_level, test.num_levels) == (3, 500, 100)
    assert result["steps"] == 4096
    with pytest.raises(ValueError, match=r"level must be a training level, 0\.\.499"):
        example.single_side(steps=4096, difficulty=3, level=500, verbose=False)


@pytest.mark.slow  # trains for tens of seconds: .ci/run's JAX job runs it (-m 'jax or results')
def test_self_play_plays_the_difficulty_and_level_asked(monkeypatch) -> None:
    judged = []

    def fake_exploitability(agent, ghost, layout, rewards):
        judged.append(layout)
        return 0.0

    monkeypatch.setattr(example, "exploitability", fake_exploitability)
    history = example.selfplay(level=4, difficulty=3, generations=3, updates=1, verbose=False)
    assert len(history) == 1 and judged == [MapGenerator(6, 6, difficulty=3).level(4)]
    with pytest.raises(ValueError, match="level must be an int >= 0"):
        example.selfplay(level=-1, verbose=False)
    with pytest.raises(SystemExit):
        example.main(["--difficulty", "7"])
