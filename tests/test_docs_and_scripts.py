"""The README, the examples and the benchmarks stay true: their code runs and says what it should."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import gridghost
import gridghost.drawing

from helpers import run_script

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()
#: The line of .ci/run that reads the test command from the README (its $1 here).
CI_TEST_COMMAND = next(line for line in (ROOT / ".ci/run").read_text().splitlines() if line.startswith("test_command="))
CI_TEST_COMMAND = CI_TEST_COMMAND.replace('"$root/README.md"', '"$1"') + '; echo "$test_command"'


def test_readme_opens_with_title_pitch_picture_and_the_two_commands() -> None:
    above, block = re.match(r"(.*?)```bash\n(.*?)```", README, flags=re.S).groups()
    first, second = block.splitlines()
    assert first.startswith("python3 -m venv .venv") and first.endswith("examples/demo.py")
    assert second.startswith("python3 -m venv .venv") and second.endswith("-m pytest -n auto")
    assert '".[dev]"' in second
    paragraphs = [p for p in above.split("\n\n") if p.strip()]
    assert paragraphs[0] == "# gridghost" and paragraphs[2].startswith("![") and len(paragraphs) == 3
    assert len(re.findall(r"[.!?](\s|$)", paragraphs[1])) == 2, "the pitch is two sentences"
    # .ci/run takes its test command from this block.
    ci = subprocess.run(["bash", "-c", CI_TEST_COMMAND, "bash", "README.md"], cwd=ROOT, capture_output=True, text=True)
    assert ci.stdout.strip() == second


@pytest.mark.slow  # a subprocess: .ci/run runs the slow group
def test_demo_plays_a_whole_game() -> None:
    out = run_script("examples/demo.py")
    assert out.count("The agent tries") >= 1 and out.count("The ghost") >= 1
    assert re.search(r"The agent (reached a goal|was caught|ran out of time) after \d+ cycles; score [+-]\d+\.$",
                     out.strip().splitlines()[-1])


@pytest.mark.slow  # a subprocess: .ci/run runs the slow group
def test_demo_is_reproducible_and_takes_its_options() -> None:
    assert run_script("examples/demo.py", "--seed", "8") == run_script("examples/demo.py", "--seed", "8")
    assert run_script("examples/demo.py", "--seed", "8") != run_script("examples/demo.py", "--seed", "9")
    assert "cycle 0/3" in run_script("examples/demo.py", "--max-cycles", "3")


@pytest.mark.slow  # a subprocess: .ci/run runs the slow group
def test_localise_example_tracks_the_agent_and_counts_hits() -> None:
    out = run_script("examples/localise.py", "--steps", "40", "--seed", "2")
    rows = [line for line in out.splitlines() if re.match(r"^\s+\d+\s+\(", line)]
    assert len(rows) == 40
    hits = re.search(r"^right (\d+)/40 times with 200 particles, (\d+)/40 with the exact filter$", out, flags=re.M)
    assert hits, out
    # the agent is localised far more often than by guessing one of 20 cells
    assert int(hits[2]) >= 12 and int(hits[1]) >= 8
    assert sum(line.count("*") for line in rows) == int(hits[1]) + int(hits[2])
    assert out == run_script("examples/localise.py", "--steps", "40", "--seed", "2")
    assert "--particles: must be >= 1" in run_failing_script("examples/localise.py", "--particles", "0")


@pytest.mark.slow  # a subprocess: .ci/run runs the slow group
def test_filter_accuracy_benchmark_prints_a_seeded_ratio_per_slip_and_sensor_mode() -> None:
    args = ("benchmarks/filter_accuracy.py", "--episodes", "5", "--steps", "5", "--seed", "1")
    out = run_script(*args)
    assert out == run_script(*args)
    assert "25 steps compared per row" in out
    for slip in ("longitudinal", "perpendicular"):
        for mode in ("color", "cnn", "both"):
            row = rf"^{slip}\s+{mode}\s+\d\.\d{{3}}\s+\d\.\d{{3}}\s+(\d+\.\d{{3}}|nan)x"
            assert re.search(row, out, flags=re.M), (slip, mode)


@pytest.mark.slow  # a subprocess: .ci/run runs the slow group
def test_filter_speed_benchmark_prints_a_ratio_per_contender() -> None:
    out = run_script("benchmarks/filter_speed.py", "--rounds", "1", "--steps", "20", "--env-steps", "200")
    filters = ("HistogramFilter (exact)", "ParticleFilter, 200 particles", "ParticleFilter, 10,000 particles",
               "ParticleFilter, 1,000,000 particles")
    for name in (*filters, "MiniGrid-Empty-5x5-v0", "AgentInterface, ParticleFilter(200)", "AgentInterface, no filter"):
        assert re.search(rf"^{re.escape(name)}\s+[\d,]+\s+\d+\.\d\dx", out, flags=re.M), name
    for name in filters:  # and the microseconds per filter step
        assert re.search(rf"^{re.escape(name)}\s+[\d,]+\.\d$", out, flags=re.M), name


@pytest.mark.slow  # a subprocess: .ci/run runs the slow group
def test_single_agent_benchmark_prints_a_ratio_per_contender() -> None:
    out = run_script("benchmarks/single_agent_throughput.py", "--rounds", "1", "--steps", "200")
    for name in ("MiniGrid-Empty-5x5-v0", "AgentInterface", "GridGhost-v1 (dict obs)"):
        assert re.search(rf"^{re.escape(name)}\s+[\d,]+\s+\d+\.\d\dx", out, flags=re.M), name


@pytest.mark.slow  # a subprocess: .ci/run runs the slow group
def test_throughput_benchmark_prints_a_ratio_per_contender() -> None:
    out = run_script("benchmarks/aec_throughput.py", "--rounds", "1", "--half-steps", "300")
    for name in ("tictactoe_v3.env()", "gridghost.env()", "gridghost.raw_env()"):
        assert re.search(rf"^{re.escape(name)}\s+[\d,]+\s+\d+\.\d\dx", out, flags=re.M), name


@pytest.mark.slow  # a subprocess: .ci/run runs the slow group
def test_team_throughput_benchmark_prints_cycle_ratios_per_team_size_and_against_pursuit() -> None:
    out = run_script("benchmarks/team_throughput.py", "--rounds", "1", "--half-steps", "300")
    for k in (1, 2, 3):
        for obs in ("vector", "dict"):
            name = f"env(ghosts={k}, obs_type={obs!r})"
            assert re.search(rf"^{re.escape(name)}\s+[\d,]+\s+\d+\.\d\dx\s+\d+\.\d\dx", out, flags=re.M), name
    assert re.search(r"^env\(ghosts=2, obs_type='vector'\).*vs 1 ghost >= 0\.6x  (met|MISSED)$", out, flags=re.M)
    assert re.search(r"^env\(ghosts=2, obs_type='dict'\).*vs pursuit >= 15x  (met|MISSED)$", out, flags=re.M)
    assert re.search(r"^pursuit_v5\.env\(8x8, 2 pursuers, 1 evader\)\s+[\d,]+\s+1\.00x  baseline$", out, flags=re.M)


@pytest.mark.slow  # a subprocess: .ci/run runs the slow group
def test_board_build_benchmark_prints_a_ratio_and_a_time_per_size() -> None:
    out = run_script("benchmarks/board_build.py", "--rounds", "1", "--min-seconds", "0.01")
    for name in ("old pure-Python build, 16x16", "Board, 16x16", "Board, 32x32", "Board, 64x64"):
        assert re.search(rf"^{re.escape(name)}\s+[\d,]+\s+\d+\.\d\dx", out, flags=re.M), name
        assert re.search(rf"^{re.escape(name)}\s+[\d,]+\.\d ms$", out, flags=re.M), name


@pytest.mark.slow  # a subprocess: .ci/run runs the slow group
def test_solve_speed_benchmark_prints_times_and_a_sweep_ratio_per_map() -> None:
    out = run_script("benchmarks/solve_speed.py", "--rounds", "1", "--maps", "4x5 classic", "8x8")
    for name, states in (("4x5 classic", "342"), ("8x8", r"[\d,]+")):
        times = r"\s+".join([r"\d+\.\d{3} s\s+\d+"] * 3)
        assert re.search(rf"^{name}\s+{states}\s+{times}\s+\d+\.\d\d ms\s+[\d.]+ ms\s+\d+x$", out, flags=re.M), out


@pytest.mark.slow  # a subprocess: .ci/run runs the slow group
def test_map_generation_benchmark_prints_a_time_and_ratio_per_size_and_wall_kind() -> None:
    out = run_script("benchmarks/map_generation.py", "--rounds", "1", "--maps", "3", "--sizes", "6", "16")
    for size in ("6x6 ", "16x16"):
        for kind in ("maze", "scattered", "none"):
            assert re.search(rf"^ ?{size} {kind}\s+\d+\.\d\d\s+\d+\.\d\d\s+\d+\.\dx$", out, flags=re.M), out


@pytest.mark.slow  # a subprocess: .ci/run runs the slow group
def test_difficulty_study_prints_deciles_bands_and_times_per_setting() -> None:
    out = run_script("benchmarks/difficulty_study.py", "--seeds", "4", "--sizes", "5", "--settings", "maze-0.3",
                     "none", "--check-tol", "2")
    for name in ("maze-0.3", "none"):
        numbers = r"\s+".join([r"[01]\.\d\d"] * 15)
        assert re.search(rf"^\s+5 {name}\s+{numbers}\s+\d+\.\d\s+\d\.\de[-+]\d\d$", out, flags=re.M), out


@pytest.mark.slow  # a subprocess: .ci/run runs the slow group
def test_difficulty_levels_benchmark_prints_a_band_and_a_cost_per_preset() -> None:
    out = run_script("benchmarks/difficulty_levels.py", "--levels", "2")
    for level in range(4):
        probability = r"\s+[01]\.\d{3}"
        row = rf"^\s+{level} \d+x\d+\s+\[[\d.]+,[\d.]+\] \|({probability}){{3}} \|{probability} \|{probability} \|"
        assert re.search(row + r"\s+\d+x\s+\d+\.\dx", out, flags=re.M), out

# -- the renderer's scripts and picture ---------------------------------------------------------

def run_failing_script(*args: str) -> str:
    result = subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 2, (result.returncode, result.stdout)
    return result.stderr


@pytest.mark.slow  # a subprocess: .ci/run runs the slow group
def test_play_headless_plays_random_moves_and_exits_cleanly() -> None:
    out = run_script("examples/play.py", "--headless", "50", "--seed", "1")
    assert re.fullmatch(r"50 key presses, \d+ half-turns; games ended: .*; last frame \d+x\d+\n", out)
    two = run_script("examples/play.py", "--headless", "50", "--seed", "1", "--two-players")
    assert two.startswith("50 key presses, 50 half-turns")  # every press moved the side whose turn it was


@pytest.mark.slow  # a subprocess: .ci/run runs the slow group
def test_play_explains_itself_and_rejects_bad_arguments() -> None:
    help_text = run_script("examples/play.py", "--help")
    for option in ("--ghost", "--two-players", "--slip", "--slip-type", "--seed", "--headless"):
        assert option in help_text
    assert "arrows" in help_text and "WASD" in help_text and "Esc" in help_text
    bad_slip = run_failing_script("examples/play.py", "--slip", "2", "--headless", "1")
    assert "slip_probability must lie in [0, 1]" in bad_slip
    assert "--headless: must be >= 0" in run_failing_script("examples/play.py", "--headless", "-1")
    assert "invalid choice: 'sleepy'" in run_failing_script("examples/play.py", "--ghost", "sleepy")
    assert "not allowed with" in run_failing_script("examples/play.py", "--two-players", "--ghost", "random")


def test_play_in_a_window_takes_keys_and_quits_on_escape() -> None:
    spec = importlib.util.spec_from_file_location("play", ROOT / "examples" / "play.py")
    play = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(play)
    import pygame

    env = gridghost.env(render_mode="human", slip_probability=0.0)
    match = play.Match(env, play.key_bindings(two_players=False), gridghost.ChasePolicy(), seed=0)
    pygame.display.init()
    for key in (pygame.K_DOWN, pygame.K_x, pygame.K_ESCAPE, pygame.K_UP):
        pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=key))
    play.play(match, play.window_events())
    assert match.moves == 2  # down and the ghost's reply; x is no move; Esc quit before up
    assert env.agent_pos == (1, 2)
    assert not pygame.display.get_init()  # the window is closed


@pytest.mark.slow  # a subprocess: .ci/run runs the slow group
def test_record_writes_a_gif_of_the_ghost_catching_the_agent(tmp_path) -> None:
    import imageio.v3 as iio

    out = run_script("examples/record.py", "--out", str(tmp_path / "chase.gif"), "--png-dir", str(tmp_path / "png"))
    assert re.fullmatch(r"The agent was caught by the ghost after (\d+) half-turns; wrote .*chase\.gif\.\n", out)
    half_turns = int(re.search(r"after (\d+)", out).group(1))
    pngs = sorted((tmp_path / "png").glob("frame_*.png"))
    assert len(pngs) == half_turns + 1
    gif = iio.imread(tmp_path / "chase.gif", index=None, plugin="pillow", mode="RGB")
    assert gif.shape[0] >= half_turns + 1 and gif.shape[1:] == gridghost.drawing.Geometry(gridghost.CLASSIC).shape


@pytest.mark.slow  # a subprocess: .ci/run runs the slow group
def test_readme_shows_the_committed_picture_of_the_classic_map(tmp_path) -> None:
    import pygame

    assert "![" in README and "/main/docs/classic.png)" in README
    out = run_script("examples/draw_classic.py", "--out", str(tmp_path / "classic.png"))
    assert out.strip().endswith("classic.png")
    env = gridghost.env(render_mode="rgb_array")
    env.reset(seed=0)
    drawn = pygame.surfarray.array3d(pygame.image.load(str(tmp_path / "classic.png"))).transpose(1, 0, 2)
    assert np.array_equal(drawn, env.render())
    committed = pygame.image.load(str(ROOT / "docs" / "classic.png"))
    assert committed.get_size() == gridghost.drawing.Geometry(gridghost.CLASSIC).size


@pytest.mark.slow  # a subprocess: .ci/run runs the slow group
def test_render_benchmark_prints_a_rate_and_ratio_per_contender() -> None:
    out = run_script("benchmarks/render_speed.py", "--rounds", "1", "--frames", "10")
    for layout in ("classic", "16x16"):
        for name in ("full redraw", "Renderer.frame", "env.render()"):
            assert re.search(rf"^{layout}\s+\d+x\d+\s+{re.escape(name)}\s+[\d,]+\s+\d+\.\d\dx", out, flags=re.M), name
    assert re.search(r"^classic .* env\.render\(\) .* target >= 200 fps: (met|MISSED)$", out, flags=re.M)


@pytest.mark.slow  # a subprocess: .ci/run runs the slow group
def test_solve_classic_prints_the_key_figures_and_draws_both_solutions(tmp_path) -> None:
    import pygame

    from gridghost.drawing import GHOST_COLOUR, PictureGeometry
    from gridghost.planning import solve_agent, solve_game

    out = run_script("examples/solve_classic.py", "--out", str(tmp_path))
    number = r"(-?\d+\.\d+)"
    figures = re.fullmatch(
        rf"optimal agent's success probability \(100 turns\): {number} vs the chasing ghost, {number} vs the "
        rf"random ghost\nminimax value {number}, capture probability {number}, expected capture time \(when caught\) "
        rf"{number} turns\nexploitability of the chasing ghost: {number}\nwrote (.*)\n",
        out,
    )
    assert figures, out
    chase_success, random_success, value, capture, capture_time, exploitability = map(float, figures.groups()[:6])
    start = (gridghost.CLASSIC.agent_start, gridghost.CLASSIC.ghost_start)
    slip = gridghost.LongitudinalSlip(0.2)
    game, chase = solve_game(gridghost.CLASSIC, slip), solve_agent(gridghost.CLASSIC, slip, ghost="chase")
    assert value == round(game.value(*start), 2) and capture == round(game.capture_probability(*start), 6)
    assert 0.99 <= random_success <= 1 and chase_success == round(chase.success_probability(*start), 8)
    assert capture_time >= 1
    # the chasing ghost gives away what the best response to it gains over the game's value
    assert abs(exploitability - (chase.value(*start) - game.value(*start))) < 1e-3
    assert Path(figures[7]) == tmp_path / "solve_classic.png"
    # two pictures side by side, the ghost drawn on its start cell in each
    geometry = PictureGeometry(gridghost.CLASSIC, title=True)
    drawn = pygame.surfarray.array3d(pygame.image.load(str(tmp_path / "solve_classic.png"))).transpose(1, 0, 2)
    assert drawn.shape == (geometry.height, 2 * geometry.width, 3)
    x, y = geometry.cell_centre(gridghost.CLASSIC.ghost_start)
    assert tuple(drawn[y, x]) == tuple(drawn[y, x + geometry.width]) == GHOST_COLOUR
    committed = pygame.image.load(str(ROOT / "docs" / "solve_classic.png"))
    assert committed.get_size() == (2 * geometry.width, geometry.height)


@pytest.mark.slow  # a subprocess: .ci/run runs the slow group
def test_batched_throughput_benchmark_prints_a_rate_and_ratio_per_batch_size() -> None:
    out = run_script("benchmarks/batched_throughput.py", "--rounds", "1", "--turns", "5000", "--interface-steps", "200")
    for label in ("vector obs", "exact filter"):
        for games in ("1", "64", "1,024", "4,096", "65,536"):
            name = re.escape(f"BatchedGame({games}), {label}")
            assert re.search(rf"^{name}\s+[\d,]+\s+\d+\.\dx", out, flags=re.M), (games, label)
    for label in ("grid, 64 levels", "grid r=5, 64 levels"):
        for games in ("1,024", "4,096"):
            name = re.escape(f"BatchedGame({games}), {label}")
            assert re.search(rf"^{name}\s+[\d,]+\s+\d+\.\dx", out, flags=re.M), (games, label)
    assert re.search(r"^BatchedGame\(4,096\), vector obs .* >= 20M/s and >= 250x  (met|MISSED)$", out, flags=re.M)
    for ghosts in (2, 3, 4):  # the team rows, each with its ratio to ghosts=1 of the same run
        assert re.search(rf"^BatchedGame\(4,096\), ghosts={ghosts}\s+[\d,]+\s+\d+\.\dx  \d\.\d\dx ghosts=1", out,
                         flags=re.M), ghosts
    assert re.search(r"ghosts=2 .* >= 10M/s and >= 0.3x ghosts=1  (met|MISSED)$", out, flags=re.M)
    assert re.search(r"^BatchedGame\(4,096\), ghosts=2, grid\s+[\d,]+\s+\d+\.\dx  \d\.\d\dx ghosts=2 vector$", out,
                     flags=re.M)
