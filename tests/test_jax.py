"""The JAX engine (``gridghost.jax``) against the NumPy batched engine and the game kernel.

``GridGhostJax`` and ``GridGhostJaxSingle`` play the tables that
:meth:`gridghost.batched.BatchedGame.export_tables` exports, with JAX's counter-based keys for
their draws. So where nothing is drawn (no slip, one map, a table opponent) their games must be
the NumPy engine's step for step: states, rewards, terminations, truncations, observations, the
auto-reset and the action masks, on the classic map and, from the NumPy engine's own states, on
many generated levels. Where something is drawn (slip, a random opponent, the level and an
exploring start at a reset) the draws differ from NumPy's but their distribution must be the
game's: a chi-square goodness-of-fit test against the exact probabilities of the game kernel
(:meth:`gridghost.core.game.Game.transitions`), which shares no code with the tables' folding;
the same test is shown to reject another slip probability. Then ``jit``, ``vmap`` and
``lax.scan`` must not change a result, keys must decide the draws, ``params.levels`` must choose
the maps a reset draws, and every setting the engine does not serve must be refused.

Every expected value comes from the NumPy engine, the kernel, the AEC env or the maps
themselves, never from ``gridghost.jax``. The module collects without JAX (the light test run)
and then fails, not skips, in its fixture.
"""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest

from gridghost.batched import BatchedGame, UnsupportedSetting
from gridghost.core.game import Game
from gridghost.core.rules import Outcome, Side
from gridghost.core.slip import LongitudinalSlip, NoSlip, PerpendicularSlip
from gridghost.maps import MapGenerator

from helpers import chi_square_p_value, goodness_of_fit

try:
    import jax
    import jax.numpy as jnp

    from gridghost.jax import EnvState, GridGhostJax, GridGhostJaxSingle
except ImportError:
    jax = None

pytestmark = pytest.mark.jax

#: The games of a batch in the step-for-step tests.
GAMES = 64
#: The chi-square tests' significance level (the keys are fixed, so each test's outcome is too).
ALPHA = 1e-3
#: The generated levels: eight 6x6 maps (small, so their tables build in a fraction of a second).
LEVELS = 8
ONGOING = int(Outcome.ONGOING)


@pytest.fixture(autouse=True, scope="module")
def _jax_is_installed():
    assert jax is not None, 'needs the jax extra: pip install "gridghost[jax]"'


def _levels() -> MapGenerator:
    return MapGenerator(6, 6, num_levels=LEVELS)


# -- helpers ------------------------------------------------------------------------------------------
def _global_states(batch: BatchedGame) -> np.ndarray:
    """The NumPy engine's games as global states ``map * cells**2 + agent * cells + ghost``."""
    agents, ghosts = batch.positions
    cells = batch.num_cells
    return batch.maps * cells * cells + agents * cells + ghosts


def _start_state(layout, m: int) -> int:
    """Map ``m``'s first state, from the layout's start cells (``row * cols + col``)."""
    cells = layout.rows * layout.cols
    agent = layout.agent_start[0] * layout.cols + layout.agent_start[1]
    ghost = layout.ghost_start[0] * layout.cols + layout.ghost_start[1]
    return m * cells * cells + agent * cells + ghost


def _assert_equal(what: str, got, expected) -> None:
    """``got`` (JAX) equals ``expected`` (NumPy) exactly, shape and values; the message names the
    games that differ and, in the first, where (flat indices) and how."""
    got, expected = np.asarray(got), np.asarray(expected)
    assert got.shape == expected.shape, f"{what}: shape {got.shape} != {expected.shape}"
    if np.array_equal(got, expected):
        return
    if got.ndim == 0:
        pytest.fail(f"{what}: got {got}, expected {expected}")
    games = np.flatnonzero((got != expected).reshape(len(got), -1).any(axis=1))
    first_got, first_expected = got[games[0]].ravel(), expected[games[0]].ravel()
    where = np.flatnonzero(first_got != first_expected)[:8]
    pytest.fail(f"{what}: {len(games)} of {len(got)} games differ ({games[:8].tolist()}...); in game {games[0]} "
                f"at flat indices {where.tolist()} of shape {got.shape[1:]}: got {first_got[where].tolist()}, "
                f"expected {first_expected[where].tolist()}")


def _keys(seed: int, count: int):
    """``count`` PRNG keys (JAX's default implementation) from ``seed``, made without a JAX call."""
    return jax.random.wrap_key_data(np.random.default_rng(seed).integers(0, 2**32, size=(count, 2), dtype=np.uint32))


def _env_state(states, steps=None, to_move=0, ended=None) -> EnvState:
    """A batch of JAX games placed on the global ``states`` (the NumPy engine's)."""
    n = len(states)
    return EnvState(jnp.asarray(states, dtype=jnp.int32),
                    jnp.zeros(n, dtype=jnp.int32) if steps is None else jnp.asarray(steps, dtype=jnp.int32),
                    jnp.full(n, to_move, dtype=jnp.int32),
                    jnp.zeros(n, dtype=bool) if ended is None else jnp.asarray(ended, dtype=bool))


def _outcome(state, *rewards_and_end) -> tuple:
    """An outcome as a hashable key: the global state, the rewards (rounded: JAX's are float32)
    and whether the game ended."""
    *rewards, ended = rewards_and_end
    return (int(state), *(round(float(r), 4) for r in rewards), bool(ended))


def _strata(games: list[Game], count: int, seed: int) -> list[tuple[int, int, int, int]]:
    """``count`` strata ``(map, agent cell, ghost cell, action)`` of games that go on: half with
    the agent next to a goal of its map, the others anywhere (the agent on no goal of its map,
    the two apart); the ghost next to the agent in some, so that moves end games."""
    rng = np.random.default_rng(seed)
    strata = []
    while len(strata) < count:
        m = int(rng.integers(len(games)))
        game = games[m]
        goals = np.flatnonzero(game.goals)
        if len(strata) % 2 == 0:
            agent = int(game.moves[rng.choice(goals), rng.integers(4)])  # a goal's neighbour (or the goal)
        else:
            agent = int(rng.integers(game.num_cells))
        ghost = int(game.moves[agent, rng.integers(4)]) if len(strata) % 3 == 0 else int(rng.integers(game.num_cells))
        if game.goals[agent] or agent == ghost:
            continue
        strata.append((m, agent, ghost, int(rng.integers(4))))
    return strata


class _Jitted:
    """An env with its per-game functions vmapped and jitted once, ``params`` an argument: new
    params of the same shapes reuse the compilation (JAX's random draws take seconds to compile
    on a small CPU, so the tests share these)."""

    def __init__(self, env) -> None:
        self.env = env
        self.params = env.default_params
        self.cells = env.engine.num_cells
        self.reset = jax.jit(jax.vmap(env.reset, in_axes=(0, None)))
        self.step = jax.jit(jax.vmap(env.step, in_axes=(0, 0, 0, None)))
        self.step_env = jax.jit(jax.vmap(env.step_env, in_axes=(0, 0, 0, None)))
        if hasattr(env, "step_agent"):
            self.step_agent = jax.jit(jax.vmap(env.step_agent, in_axes=(0, 0, 0, None)))
        # the batched twins: one key for the whole batch (compiled when first called)
        self.batch_reset = jax.jit(env.batch_reset, static_argnums=1)
        self.batch_step = jax.jit(env.batch_step)
        if hasattr(env, "batch_step_env"):
            self.batch_step_env = jax.jit(env.batch_step_env)
        if hasattr(env, "batch_step_agent"):
            self.batch_step_agent = jax.jit(env.batch_step_agent)
            self.batch_step_ghost = jax.jit(env.batch_step_ghost)


#: The batch size of every call of a shared jitted function (a new size would compile anew).
CHUNK = 4096


def _chunked(function, seed: int, batched, params):
    """``function(keys, *batched, params)`` over the leading axis of ``batched`` (a tuple of
    pytrees) in calls of :data:`CHUNK` games, each with keys of its own drawn from ``seed``."""
    total = len(jax.tree_util.tree_leaves(batched)[0])
    outputs = []
    for index, start in enumerate(range(0, total, CHUNK)):
        size = min(CHUNK, total - start)
        rows = np.minimum(np.arange(start, start + CHUNK), total - 1)  # the last chunk padded with its last game
        part = jax.tree_util.tree_map(lambda leaf, rows=rows: jnp.asarray(leaf)[rows], batched)
        output = function(_keys(seed * 1000 + index, CHUNK), *part, params)
        outputs.append(jax.tree_util.tree_map(lambda leaf, size=size: np.asarray(leaf)[:size], output))
    return jax.tree_util.tree_map(lambda *leaves: np.concatenate(leaves), *outputs)


def _resets(fx, count: int, seed: int, params):
    """``count`` resets of ``fx`` (in calls of :data:`CHUNK`)."""
    return _chunked(lambda keys, _, params: fx.reset(keys, params), seed, (np.zeros(count),), params)


def _sample(step, params, cells: int, strata, per_stratum: int, seed: int, steps):
    """``per_stratum`` draws of the jitted, vmapped ``step(keys, states, actions, params)`` from
    each stratum's state (after ``steps`` steps of its episode: one number, or one per stratum);
    returns the stratum of each draw and the draws."""
    states = np.array([m * cells * cells + agent * cells + ghost for m, agent, ghost, _ in strata])
    actions = np.array([action for *_, action in strata])
    which = np.repeat(np.arange(len(strata)), per_stratum)
    state = _env_state(states[which], np.broadcast_to(steps, len(strata))[which])
    return which, _chunked(step, seed, (state, actions[which].astype(np.int32)), params)


# -- the same games: nothing drawn ----------------------------------------------------------------------
TWO_SIDED_VIEWS = [dict(obs_type="vector"), dict(obs_type="grid"),
                   dict(obs_type="grid", view_radius=2, grid_layout="hwc")]


@pytest.mark.parametrize("view", TWO_SIDED_VIEWS, ids=["vector", "grid", "grid-radius2-hwc"])
def test_deterministic_two_sided_games_are_the_numpy_engines_half_turn_by_half_turn(view) -> None:
    settings = dict(slip="none", max_cycles=15, **view)  # the classic map
    env = GridGhostJax(**settings)
    batch = BatchedGame(GAMES, seed=0, controlled=None, autoreset_mode="same_step", **settings)
    # the vector games play the half-turn calls, the grid ones step (with dicts of both sides' actions)
    halves = view["obs_type"] == "vector"
    whole_step = jax.jit(jax.vmap(env.step))
    agent_half = jax.jit(jax.vmap(env.step_agent)) if halves else \
        (lambda keys, state, actions: whole_step(keys, state, {"agent": actions, "ghost": actions}))
    ghost_half = jax.jit(jax.vmap(env.step_ghost)) if halves else \
        (lambda keys, state, actions: whole_step(keys, state, {"agent": actions[::-1], "ghost": actions}))
    # the games start from the NumPy engine's first states (the same with one map): the JAX
    # reset's are those of every auto-reset below, and of the AEC test
    batch.reset()
    state = _env_state(_global_states(batch))
    rng = np.random.default_rng(1)
    terminated = truncated = 0
    for turn in range(150):
        for mover in ("agent", "ghost"):
            actions = rng.integers(0, 4, size=GAMES)
            keys = _keys(1000 + 2 * turn + (mover == "ghost"), GAMES)
            where = f"turn {turn} {mover}'s half"
            if mover == "agent":
                result = batch.step_agent(actions)
                observations, state, rewards, dones, infos = agent_half(keys, state, jnp.asarray(actions))
            else:
                result = batch.step_ghost(actions)
                observations, state, rewards, dones, infos = ghost_half(keys, state, jnp.asarray(actions))
            _assert_equal(f"{where}: states", state.state, _global_states(batch))
            _assert_equal(f"{where}: to move", state.to_move, np.full(GAMES, mover == "agent"))
            for side in ("agent", "ghost"):
                _assert_equal(f"{where}: {side} rewards", rewards[side], result.rewards[side].astype(np.float32))
                _assert_equal(f"{where}: {side} dones", dones[side], result.terminations | result.truncations)
            _assert_equal(f"{where}: terminated", infos["terminated"], result.terminations)
            _assert_equal(f"{where}: truncated", infos["truncated"], result.truncations)
            for side in ("agent", "ghost"):
                _assert_equal(f"{where}: {side} observations", observations[side], result.observations[side])
            if mover == "ghost":
                terminated += int(result.terminations.sum())
                truncated += int(result.truncations.sum())
    assert terminated > GAMES and truncated > GAMES  # games ended both ways, and restarted


def _agent_table(cells: int, seed: int) -> np.ndarray:
    """An agent's action for every (agent cell, ghost cell): a table opponent from no planner."""
    return np.random.default_rng(seed).integers(0, 4, size=(cells, cells))


SINGLE_CASES = [
    ("agent", "chase", dict(obs_type="vector", max_episode_steps=25)),
    ("agent", "chase", dict(obs_type="grid", max_cycles=12, max_episode_steps=20)),
    ("ghost", "minimax", dict(obs_type="grid", view_radius=2, grid_layout="hwc", max_episode_steps=3)),
    ("ghost", "table", dict(obs_type="vector", max_cycles=15)),
]


@pytest.mark.parametrize(("controlled", "opponent", "view"), SINGLE_CASES,
                         ids=["agent-chase-vector", "agent-chase-grid", "ghost-minimax-grid-radius2-hwc",
                              "ghost-table-vector"])
def test_deterministic_one_sided_games_are_the_numpy_engines_step_for_step(controlled, opponent, view) -> None:
    settings = dict(slip="none", **view)  # the classic map
    if opponent == "table":
        opponent = _agent_table(20, seed=7)
    env = GridGhostJaxSingle(controlled, opponent=opponent, **settings)
    batch = BatchedGame(GAMES, seed=0, controlled=controlled, opponent=opponent, autoreset_mode="same_step",
                        **settings)
    numpy_step = batch.step_agent if controlled == "agent" else batch.step_ghost
    step = jax.jit(jax.vmap(env.step))

    batch.reset()
    state = _env_state(_global_states(batch))  # the JAX first states are checked at every auto-reset below
    rng = np.random.default_rng(1)
    terminated = truncated = 0
    for t in range(250):
        actions = rng.integers(0, 4, size=GAMES)
        keys = _keys(1000 + t, GAMES)
        observations, state, reward, done, info = step(keys, state, jnp.asarray(actions))
        result = numpy_step(actions)
        _assert_equal(f"step {t}: states", state.state, _global_states(batch))
        _assert_equal(f"step {t}: rewards", reward, result.rewards[controlled].astype(np.float32))
        _assert_equal(f"step {t}: terminated", info["terminated"], result.terminations)
        _assert_equal(f"step {t}: truncated", info["truncated"], result.truncations)
        _assert_equal(f"step {t}: dones", done, result.terminations | result.truncations)
        _assert_equal(f"step {t}: observations", observations, result.observations[controlled])
        _assert_equal(f"step {t}: info action masks", info["action_mask"], batch.action_masks().astype(bool))
        terminated += int(result.terminations.sum())
        truncated += int(result.truncations.sum())
    assert terminated > GAMES and truncated > 0, (terminated, truncated)  # both ends happened, and restarts


@pytest.mark.parametrize(("controlled", "opponent", "view"), [
    ("agent", "chase", dict(obs_type="grid", view_radius=2, grid_layout="hwc")),
    ("agent", "chase", dict(obs_type="vector")),
    ("ghost", "minimax", dict(obs_type="grid")),
], ids=["agent-grid-radius2-hwc", "agent-vector", "ghost-grid"])
def test_one_sided_steps_from_the_numpy_engines_states_on_many_levels_are_its_steps(controlled, opponent,
                                                                                   view) -> None:
    # The maps a reset draws differ between the engines, so each JAX step starts from the NumPy
    # engine's states (and step counts), and its step_env (no reset) gives the NumPy engine's
    # result: the next state and observation where the game goes on, the final ones where it ended.
    settings = dict(layout=_levels(), slip="none", max_episode_steps=12, **view)
    env = GridGhostJaxSingle(controlled, opponent=opponent, **settings)
    batch = BatchedGame(GAMES, seed=0, controlled=controlled, opponent=opponent, autoreset_mode="same_step",
                        **settings)
    numpy_step = batch.step_agent if controlled == "agent" else batch.step_ghost
    step_env = jax.jit(jax.vmap(env.step_env))
    masks = jax.jit(jax.vmap(env.action_masks))
    batch.reset()
    steps = np.zeros(GAMES, dtype=np.int64)
    rng = np.random.default_rng(2)
    maps_seen, ended = set(), 0
    for t in range(80):
        state = _env_state(_global_states(batch), steps)
        maps_seen.update(batch.maps.tolist())
        _assert_equal(f"step {t}: masks", masks(state), batch.action_masks().astype(bool))
        actions = rng.integers(0, 4, size=GAMES)
        observations, after, reward, done, info = step_env(_keys(t, GAMES), state, jnp.asarray(actions))
        result = numpy_step(actions)
        over = result.terminations | result.truncations
        live = ~over
        _assert_equal(f"step {t}: rewards", reward, result.rewards[controlled].astype(np.float32))
        _assert_equal(f"step {t}: terminated", info["terminated"], result.terminations)
        _assert_equal(f"step {t}: truncated", info["truncated"], result.truncations)
        _assert_equal(f"step {t}: dones", done, over)
        _assert_equal(f"step {t}: states", np.asarray(after.state)[live], _global_states(batch)[live])
        _assert_equal(f"step {t}: observations", np.asarray(observations)[live], result.observations[controlled][live])
        _assert_equal(f"step {t}: final observations", np.asarray(observations)[result.final_games],
                      result.final_observations[controlled])
        _assert_equal(f"step {t}: info action masks", np.asarray(info["action_mask"])[live],
                      batch.action_masks()[live].astype(bool))
        steps = np.where(over, 0, steps + 1)
        ended += int(over.sum())
    assert maps_seen == set(range(LEVELS)) and ended > GAMES


def test_two_sided_half_turns_from_the_numpy_engines_states_on_many_levels_are_its_half_turns() -> None:
    settings = dict(layout=_levels(), slip="none", max_cycles=10, obs_type="grid", view_radius=2, grid_layout="hwc")
    env = GridGhostJax(**settings)
    batch = BatchedGame(GAMES, seed=0, controlled=None, autoreset_mode="same_step", **settings)
    # step_env plays the half-turn of the side to move and keeps a game that ended (no reset)
    agent_half, ghost_half = jax.jit(jax.vmap(env.step_agent)), jax.jit(jax.vmap(env.step_env))
    avail = jax.jit(jax.vmap(env.get_avail_actions))
    batch.reset()
    steps = np.zeros(GAMES, dtype=np.int64)
    rng = np.random.default_rng(3)
    maps_seen, ended = set(), 0
    for turn in range(60):
        maps_seen.update(batch.maps.tolist())
        state = _env_state(_global_states(batch), steps)
        for side, mask in avail(state).items():
            _assert_equal(f"turn {turn}: {side} masks", mask, batch.action_masks(side).astype(bool))
        actions = rng.integers(0, 4, size=GAMES)
        observations, after, rewards, dones, infos = agent_half(_keys(turn, GAMES), state, jnp.asarray(actions))
        result = batch.step_agent(actions)
        where = f"turn {turn} agent's half"
        _assert_equal(f"{where}: states", after.state, _global_states(batch))
        _assert_equal(f"{where}: ended", after.ended, result.terminations)
        _assert_equal(f"{where}: terminated", infos["terminated"], result.terminations)
        _assert_equal(f"{where}: dones", dones["__all__"], result.terminations | result.truncations)
        for side in ("agent", "ghost"):
            _assert_equal(f"{where}: {side} rewards", rewards[side], result.rewards[side].astype(np.float32))
            _assert_equal(f"{where}: {side} observations", observations[side], result.observations[side])
        # the ghost's half from the NumPy engine's states, and the agent's half's end
        # a copy: the engine's step arrays are its buffers, and on the CPU jnp.asarray may share
        # their memory with a computation that runs after the engine's next step rewrote them
        state = _env_state(_global_states(batch), steps, to_move=1, ended=result.terminations.copy())
        for side, mask in avail(state).items():
            _assert_equal(f"turn {turn}: {side} masks", mask, batch.action_masks(side).astype(bool))
        actions = rng.integers(0, 4, size=GAMES)
        both = {"agent": jnp.asarray(actions[::-1]), "ghost": jnp.asarray(actions)}  # the agent's is ignored
        observations, after, rewards, dones, infos = ghost_half(_keys(1000 + turn, GAMES), state, both)
        result = batch.step_ghost(actions)
        where = f"turn {turn} ghost's half"
        over = result.terminations | result.truncations
        live = ~over
        _assert_equal(f"{where}: states", np.asarray(after.state)[live], _global_states(batch)[live])
        _assert_equal(f"{where}: terminated", infos["terminated"], result.terminations)
        _assert_equal(f"{where}: truncated", infos["truncated"], result.truncations)
        _assert_equal(f"{where}: dones", dones["__all__"], over)
        for side in ("agent", "ghost"):
            _assert_equal(f"{where}: {side} rewards", rewards[side], result.rewards[side].astype(np.float32))
            _assert_equal(f"{where}: {side} observations", np.asarray(observations[side])[live],
                          result.observations[side][live])
            _assert_equal(f"{where}: {side} final observations", np.asarray(observations[side])[result.final_games],
                          result.final_observations[side])
        steps = np.where(over, 0, steps + 1)
        ended += int(over.sum())
    assert maps_seen == set(range(LEVELS)) and ended > GAMES


def test_two_sided_grids_and_rewards_are_the_aec_envs_through_whole_games_to_the_final_observations() -> None:
    # The AEC env is the reference the NumPy engine is tested against: both sides' grids after a
    # reset and every half-turn, with the to_move plane cleared for a side that is not to move
    # (the opponent's turn, or the game over), the last ones those of the finished game (step_env).
    from gridghost.envs.aec import raw_env

    settings = dict(slip="none", obs_type="grid", max_cycles=100)  # the AEC env's default
    env = GridGhostJax(**settings)
    reset, step_env = jax.jit(env.reset), jax.jit(env.step_env)
    rng = np.random.default_rng(0)

    def compare(when: str, observations) -> None:
        for side in ("agent", "ghost"):
            got, expected = np.asarray(observations[side]), aec.observe(side)
            planes = np.flatnonzero((got != expected).reshape(len(got), -1).any(axis=1)).tolist()
            assert not planes, f"{when}: the {side}'s grid differs from the AEC env's in planes {planes}"

    endings = Counter()
    for episode in range(12):
        aec = raw_env(**settings)
        aec.reset(seed=episode)
        observations, state = reset(jax.random.key(episode))
        compare(f"episode {episode}, after the reset", observations)
        for half in range(200):
            mover, action = aec.agent_selection, int(rng.integers(4))
            aec.step(action)
            observations, state, rewards, dones, infos = step_env(jax.random.key(half), state,
                                                                  {"agent": action, "ghost": action})
            when = f"episode {episode}, half-turn {half} (the {mover}'s)"
            for side in ("agent", "ghost"):
                assert float(rewards[side]) == aec.rewards[side], (when, side)
            assert bool(infos["terminated"]) == aec.terminations["agent"], when
            assert bool(dones["__all__"]) == (aec.terminations["agent"] or aec.truncations["agent"]), when
            compare(when, observations)
            if aec.terminations["agent"]:
                if mover == "agent":  # the JAX game ends its turn with the ghost's half (action ignored)
                    aec.step(None)
                    observations, state, rewards, _, infos = step_env(jax.random.key(half), state,
                                                                      {"agent": 0, "ghost": 0})
                    assert bool(infos["terminated"]) and float(rewards["agent"]) == float(rewards["ghost"]) == 0.0
                    compare(f"episode {episode}, the end of the turn the agent ended", observations)
                endings[mover] += 1
                break
    assert endings["agent"] and endings["ghost"], endings  # games ended in both halves


# -- the same distributions: draws against the kernel's exact probabilities -------------------------------
@pytest.fixture(scope="module")
def agent_vs_random():
    """A learning agent against a random ghost, with slip, on the levels (limit: 4 steps)."""
    return _Jitted(GridGhostJaxSingle("agent", opponent="random", layout=_levels(), slip="longitudinal",
                                      slip_probability=0.2, max_episode_steps=4))


@pytest.fixture(scope="module")
def ghost_vs_random():
    """A learning ghost against a random agent, with perpendicular slip, on the levels."""
    return _Jitted(GridGhostJaxSingle("ghost", opponent="random", layout=_levels(), slip="perpendicular",
                                      slip_probability=0.2))


@pytest.fixture(scope="module")
def two_sides_random():
    """Both sides learning, with slip, on the levels (limit: 5 turns)."""
    return _Jitted(GridGhostJax(layout=_levels(), slip="longitudinal", slip_probability=0.2, max_cycles=5))


def _agent_turn_against_random_ghost(game: Game, offset: int, agent: int, ghost: int, action: int) -> dict:
    """The exact distribution of a learning agent's turn, its move (with slip) then a uniformly
    random ghost's answer: ``(next state, agent's reward, ended) -> probability``."""
    cells = game.num_cells
    distribution: Counter = Counter()
    move = game.transitions(Side.AGENT, action, np.array([agent]), np.array([ghost]))
    for p, a, g, outcome, reward in zip(move.probabilities, move.agents[0], move.ghosts[0], move.outcomes[0],
                                        move.agent_rewards[0], strict=True):
        if outcome != ONGOING:
            distribution[_outcome(offset + a * cells + g, reward, True)] += p
            continue
        for answer in range(4):
            reply = game.transitions(Side.GHOST, answer, np.array([a]), np.array([g]))
            distribution[_outcome(offset + reply.agents[0, 0] * cells + reply.ghosts[0, 0],
                                  reward + reply.agent_rewards[0, 0], reply.outcomes[0, 0] != ONGOING)] += p / 4
    return dict(distribution)


@pytest.fixture(scope="module")
def random_ghost_draws(agent_vs_random):
    """4,000 draws of a learning agent's turn from each of 24 strata over the levels."""
    fx = agent_vs_random
    games = [Game(layout, LongitudinalSlip(0.2)) for layout in fx.env.layouts]
    strata = _strata(games, 24, seed=5)
    which, (_, after, reward, _, info) = _sample(fx.step_env, fx.params, fx.cells, strata, 4000, seed=0, steps=1)
    assert not np.asarray(info["truncated"]).any()  # 2 steps of 4
    draws = [Counter() for _ in strata]
    for s, state, r, ended in zip(which, np.asarray(after.state), np.asarray(reward), np.asarray(info["terminated"]),
                                  strict=True):
        draws[s][_outcome(state, r, ended)] += 1
    return games, strata, draws


def test_an_agents_turn_against_a_random_ghost_with_slip_has_the_kernels_distribution(random_ghost_draws) -> None:
    games, strata, draws = random_ghost_draws
    cells = games[0].num_cells
    exact = [_agent_turn_against_random_ghost(games[m], m * cells * cells, a, g, action) for m, a, g, action in strata]
    assert sum(any(key[-1] for key in distribution) for distribution in exact) >= 3  # moves that end games
    statistic, dof, p, impossible = goodness_of_fit(list(zip(draws, exact, strict=True)))
    print(f"agent vs random ghost: chi2 {statistic:.1f}, dof {dof}, p {p:.3f}")
    assert not impossible, f"outcomes the kernel says are impossible: {impossible[:5]}"
    assert dof > 100 and p > ALPHA, (statistic, dof, p)


def test_the_chi_square_test_tells_another_slip_probability_apart(random_ghost_draws) -> None:
    games, strata, draws = random_ghost_draws
    other = [Game(game.layout, LongitudinalSlip(0.3)) for game in games]
    cells = games[0].num_cells
    exact = [_agent_turn_against_random_ghost(other[m], m * cells * cells, a, g, action) for m, a, g, action in strata]
    statistic, dof, p, impossible = goodness_of_fit(list(zip(draws, exact, strict=True)))
    assert not impossible and p < ALPHA, (statistic, dof, p)


def _ghost_turn_against_random_agent(game: Game, offset: int, agent: int, ghost: int, action: int) -> Counter:
    """The exact distribution of a learning ghost's turn, its move (no slip for the ghost) then a
    uniformly random agent's answer (with slip): ``(next state, ghost's reward, ended) -> probability``
    (the reward unrounded: the caller adds the opening reward)."""
    cells = game.num_cells
    distribution: Counter = Counter()
    move = game.transitions(Side.GHOST, action, np.array([agent]), np.array([ghost]))
    a, g, reward = move.agents[0, 0], move.ghosts[0, 0], move.ghost_rewards[0, 0]
    if move.outcomes[0, 0] != ONGOING:
        distribution[(offset + a * cells + g, reward, True)] += 1.0
    else:
        for answer in range(4):
            reply = game.transitions(Side.AGENT, answer, np.array([a]), np.array([g]))
            for p, a2, g2, outcome, r2 in zip(reply.probabilities, reply.agents[0], reply.ghosts[0],
                                              reply.outcomes[0], reply.ghost_rewards[0], strict=True):
                distribution[(offset + a2 * cells + g2, reward + r2, outcome != ONGOING)] += p / 4
    return distribution


def _ghost_turns_expected(fx, count: int, seed: int, ending: int) -> tuple[list, list]:
    """``count`` strata of a learning ghost's turn against the random agent (perpendicular slip,
    0.2), at least ``ending`` of them with moves that end the game, and the kernel's exact
    distribution of each: first at the episode's first step (which adds the ghost's reward for
    the agent's opening move), then later."""
    games = [Game(layout, PerpendicularSlip(0.2)) for layout in fx.env.layouts]
    cells = fx.cells
    opening = games[0].rewards(Side.AGENT, Outcome.ONGOING)[1]
    strata = _strata(games, count, seed=seed)
    exact = [_ghost_turn_against_random_agent(games[m], m * cells * cells, a, g, action) for m, a, g, action in strata]
    assert sum(any(key[-1] for key in d) for d in exact) >= ending  # moves that end games
    expected = [{_outcome(s, r + opening, e): p for (s, r, e), p in d.items()} for d in exact] + \
               [{_outcome(s, r, e): p for (s, r, e), p in d.items()} for d in exact]
    return strata, expected


def test_a_ghosts_turn_against_a_random_agent_with_slip_has_the_kernels_distribution(ghost_vs_random) -> None:
    fx = ghost_vs_random
    cells = fx.cells
    strata, expected = _ghost_turns_expected(fx, 24, seed=6, ending=3)
    which, (_, after, reward, _, info) = _sample(fx.step_env, fx.params, cells, strata + strata, 2500, seed=1,
                                                 steps=np.repeat([0, 5], len(strata)))
    draws = [Counter() for _ in expected]
    for s, state, r, ended in zip(which, np.asarray(after.state), np.asarray(reward), np.asarray(info["terminated"]),
                                  strict=True):
        draws[s][_outcome(state, r, ended)] += 1
    statistic, dof, p, impossible = goodness_of_fit(list(zip(draws, expected, strict=True)))
    print(f"ghost vs random agent: chi2 {statistic:.1f}, dof {dof}, p {p:.3f}")
    assert not impossible, f"outcomes the kernel says are impossible: {impossible[:5]}"
    assert dof > 60 and p > ALPHA, (statistic, dof, p)


def _ghost_reset_distribution(fx) -> dict:
    """The exact distribution of a learning ghost's first state against a random agent (perpendicular
    slip 0.2): a uniform level, the agent's uniform opening move from its start, its slip."""
    cells = fx.cells
    expected: Counter = Counter()
    for m, layout in enumerate(fx.env.layouts):
        game = Game(layout, PerpendicularSlip(0.2))
        start = _start_state(layout, 0)
        for action in range(4):
            move = game.transitions(Side.AGENT, action, np.array([start // cells]), np.array([start % cells]))
            assert (move.outcomes == ONGOING).all()  # the opening cannot end these maps
            for p, a, g in zip(move.probabilities, move.agents[0], move.ghosts[0], strict=True):
                expected[(m * cells * cells + a * cells + g,)] += p / LEVELS / 4
    return dict(expected)


def test_a_learning_ghosts_reset_draws_a_level_and_the_random_agents_opening_move(ghost_vs_random) -> None:
    fx = ghost_vs_random
    expected = _ghost_reset_distribution(fx)
    _, state = _resets(fx, 100_000, 3, fx.params)
    drawn = Counter((int(s),) for s in np.asarray(state.state))
    statistic, dof, p, impossible = goodness_of_fit([(drawn, expected)])
    print(f"ghost's resets: chi2 {statistic:.1f}, dof {dof}, p {p:.3f}")
    assert not impossible, f"reset states the kernel says are impossible: {impossible[:5]}"
    assert not np.asarray(state.steps).any()
    assert dof > 15 and p > ALPHA, (statistic, dof, p)


def test_the_agents_half_turn_of_two_sides_with_slip_has_the_kernels_distribution(two_sides_random) -> None:
    fx = two_sides_random
    games = [Game(layout, LongitudinalSlip(0.2)) for layout in fx.env.layouts]
    cells = fx.cells
    strata = _strata(games, 24, seed=7)
    exact = []
    for m, agent, ghost, action in strata:
        distribution: Counter = Counter()
        move = games[m].transitions(Side.AGENT, action, np.array([agent]), np.array([ghost]))
        for p, a, g, outcome, ra, rg in zip(move.probabilities, move.agents[0], move.ghosts[0], move.outcomes[0],
                                            move.agent_rewards[0], move.ghost_rewards[0], strict=True):
            distribution[_outcome(m * cells * cells + a * cells + g, ra, rg, outcome != ONGOING)] += p
        exact.append(dict(distribution))
    which, (_, after, rewards, _, infos) = _sample(fx.step_agent, fx.params, cells, strata, 4000, seed=4, steps=1)
    assert (np.asarray(after.to_move) == 1).all()
    draws = [Counter() for _ in strata]
    for s, state, ra, rg, ended in zip(which, np.asarray(after.state), np.asarray(rewards["agent"]),
                                       np.asarray(rewards["ghost"]), np.asarray(infos["terminated"]), strict=True):
        draws[s][_outcome(state, ra, rg, ended)] += 1
    assert sum(any(key[-1] for key in d) for d in exact) >= 3  # moves that end games
    statistic, dof, p, impossible = goodness_of_fit(list(zip(draws, exact, strict=True)))
    print(f"two sides, agent's half: chi2 {statistic:.1f}, dof {dof}, p {p:.3f}")
    assert not impossible, f"outcomes the kernel says are impossible: {impossible[:5]}"
    assert dof > 15 and p > ALPHA, (statistic, dof, p)


def test_a_reset_draws_a_uniform_level_and_starts_on_its_start(two_sides_random) -> None:
    fx = two_sides_random
    starts = np.array([_start_state(layout, m) for m, layout in enumerate(fx.env.layouts)])
    _, state = _resets(fx, 100_000, 8, fx.params)
    states = np.asarray(state.state)
    maps = states // fx.cells**2
    assert np.array_equal(states, starts[maps])
    assert not np.asarray(state.to_move).any() and not np.asarray(state.ended).any()
    counts = Counter((int(m),) for m in maps)
    _, dof, p, impossible = goodness_of_fit([(counts, {(m,): 1 / LEVELS for m in range(LEVELS)})])
    assert not impossible and dof == LEVELS - 1 and p > ALPHA, (counts, p)


def _exploring_starts(fx) -> tuple[dict, float, np.ndarray]:
    """The exact distribution of an exploring start, from the kernel's goals: a uniform level,
    then a uniform state of it with the two apart and the agent on none of that level's goals
    (``(global state,) -> probability``); the probability that it is the level's own start; and
    the cells that are a goal of some level (where the NumPy engine's reset(starts=...) may not
    put the agent)."""
    cells = fx.cells
    agents, ghosts = np.divmod(np.arange(cells * cells), cells)
    distribution, on_start, goal_anywhere = {}, 0.0, np.zeros(cells, dtype=bool)
    for m, layout in enumerate(fx.env.layouts):
        goals = Game(layout, NoSlip()).goals
        goal_anywhere |= goals
        allowed = np.flatnonzero((agents != ghosts) & ~goals[agents])
        assert _start_state(layout, 0) in allowed
        distribution.update({(m * cells * cells + int(s),): 1 / LEVELS / len(allowed) for s in allowed})
        on_start += 1 / LEVELS / len(allowed)
    return distribution, on_start, goal_anywhere


def _check_a_share_of_exploring_starts(fx, states: np.ndarray) -> None:
    """``states``, drawn with ``explore_starts=0.25``, are the level's start or an exploring start,
    the start as often as it should be."""
    distribution, on_start_too, _ = _exploring_starts(fx)
    cells = fx.cells
    starts = np.array([_start_state(layout, m) for m, layout in enumerate(fx.env.layouts)])
    on_start = states == starts[states // cells**2]
    assert np.isin(states[~on_start], [s for s, in distribution]).all()
    share = 0.75 + 0.25 * on_start_too
    z = (on_start.mean() - share) / math.sqrt(share * (1 - share) / len(states))
    assert abs(z) < 4, (on_start.mean(), share)


def test_exploring_starts_are_uniform_over_the_allowed_states_of_a_uniform_level(agent_vs_random) -> None:
    fx = agent_vs_random
    cells = fx.cells
    distribution, _, goal_anywhere = _exploring_starts(fx)
    resets = 120_000
    observations, state = _resets(fx, resets, 9, fx.params._replace(explore_starts=jnp.float32(1.0)))
    drawn = Counter((int(s),) for s in np.asarray(state.state))
    statistic, dof, p, impossible = goodness_of_fit([(drawn, distribution)])
    print(f"exploring starts: chi2 {statistic:.1f}, dof {dof}, p {p:.3f}")
    assert not impossible, f"starts outside the allowed states: {impossible[:5]}"
    assert dof == len(distribution) - 1 and p > ALPHA, (statistic, dof, p)
    # the observations are the NumPy engine's of those states, placed there with reset(starts=...)
    # (which draws the map, and refuses an agent on a goal of any map: compared where it drew the
    # same map, of the starts it takes)
    states = np.asarray(state.state)
    some = np.flatnonzero(~goal_anywhere[states % cells**2 // cells])[:400]
    batch = BatchedGame(len(some), seed=0, layout=_levels())
    expected = batch.reset(starts=(states[some] % cells**2 // cells, states[some] % cells))["agent"]
    same_map = batch.maps == states[some] // cells**2
    assert same_map.sum() > 20
    _assert_equal("exploring starts' observations", np.asarray(observations)[some][same_map], expected[same_map])
    # a share of exploring starts (the constructor's default, 0, changed in params)
    _, state = _resets(fx, resets, 10, fx.params._replace(explore_starts=jnp.float32(0.25)))
    _check_a_share_of_exploring_starts(fx, np.asarray(state.state))


# -- jit, vmap, scan and keys ---------------------------------------------------------------------------
def _leaves(tree) -> list[np.ndarray]:
    return [np.asarray(leaf) for leaf in jax.tree_util.tree_leaves(tree)]


def _assert_same_tree(what: str, got, expected) -> None:
    got, expected = _leaves(got), _leaves(expected)
    assert len(got) == len(expected), what
    for i, (a, b) in enumerate(zip(got, expected, strict=True)):
        _assert_equal(f"{what}, leaf {i}", a, b)


def _game(tree, i: int):
    return jax.tree_util.tree_map(lambda leaf: leaf[i], tree)


def test_jit_and_vmap_give_the_per_game_calls_and_the_keys_decide_the_draws(agent_vs_random) -> None:
    fx = agent_vs_random
    n, checked = CHUNK, 3
    keys = _keys(11, n)
    observations, state = fx.reset(keys, fx.params)
    for i in range(checked):  # unjitted, one game at a time, default params
        _assert_same_tree(f"reset of game {i}", fx.env.reset(keys[i]), (_game(observations, i), _game(state, i)))
    rng = np.random.default_rng(4)
    ended = 0
    for t in range(5):  # through the 4-step limit: the auto-reset's draws too
        keys, actions = _keys(100 + t, n), jnp.asarray(rng.integers(0, 4, size=n))
        result = fx.step(keys, state, actions, fx.params)
        for i in range(checked):
            _assert_same_tree(f"step {t} of game {i}", fx.env.step(keys[i], _game(state, i), actions[i]),
                              _game(result, i))
        _assert_same_tree(f"step {t} again with the same keys", fx.step(keys, state, actions, fx.params), result)
        state = result[1]
        ended += int(np.asarray(result[3])[:checked].sum())
    assert ended >= checked
    # one state, many keys: the draws differ; the same key everywhere: every game draws alike
    many = CHUNK
    start = jax.tree_util.tree_map(lambda leaf: jnp.broadcast_to(leaf, (many, *leaf.shape)), _game(state, 0))
    actions = jnp.full(many, 1)
    different = fx.step(_keys(12, many), start, actions, fx.params)
    assert len(np.unique(np.asarray(different[1].state))) > 1
    alike = fx.step(jnp.broadcast_to(_keys(12, 1), (many,)), start, actions, fx.params)
    for leaf in _leaves(alike):
        assert (leaf == leaf[:1]).all()


def test_a_scan_rollout_is_the_python_loops(agent_vs_random) -> None:
    fx = agent_vs_random
    n, steps = CHUNK, 12
    actions = jnp.asarray(np.random.default_rng(5).integers(0, 4, size=(steps, n)))
    _, first = fx.reset(_keys(14, n), fx.params)

    def body(carry, action):
        key, state = carry
        key, sub = jax.random.split(key)
        observation, state, reward, done, info = jax.vmap(fx.env.step)(jax.random.split(sub, n), state, action)
        return (key, state), (observation, state, reward, done, info)

    rollout = jax.jit(lambda key, state: jax.lax.scan(body, (key, state), actions))
    (_, last), scanned = rollout(jax.random.key(15), first)
    key, state = jax.random.key(15), first
    looped = []
    for t in range(steps):
        key, sub = jax.random.split(key)
        out = fx.step(jax.random.split(sub, n), state, actions[t], fx.params)
        state = out[1]
        looped.append(out)
    stacked = jax.tree_util.tree_map(lambda *leaves: jnp.stack(leaves), *looped)
    _assert_same_tree("scan against loop", scanned, stacked)
    _assert_same_tree("scan's last state", last, state)
    assert np.asarray(scanned[3]).sum() > 2 * n  # games ended (the 4-step limit) and restarted within the scan


# -- params: the levels a reset draws ---------------------------------------------------------------------
def test_params_levels_make_every_reset_draw_that_map(agent_vs_random, ghost_vs_random, two_sides_random) -> None:
    cells = agent_vs_random.cells
    layouts = agent_vs_random.env.layouts
    start = _start_state(layouts[3], 3)
    assert start == BatchedGame(1, layout=_levels()).export_tables().start[3]
    keys = _keys(16, CHUNK)
    for fx in (two_sides_random, ghost_vs_random):
        params = fx.params._replace(levels=jnp.array([3]))
        _, state = fx.reset(keys, params)
        assert (np.asarray(state.state) // cells**2 == 3).all()
        if fx is two_sides_random:  # a learning ghost begins after the agent's opening move
            assert (np.asarray(state.state) == start).all()
            _, state = fx.reset(keys, params._replace(explore_starts=jnp.float32(1.0)))
            assert (np.asarray(state.state) // cells**2 == 3).all()
            assert len(np.unique(np.asarray(state.state))) > 100
    # the auto-reset of a step draws from params.levels too: games on every map, at the 4-step limit
    fx = agent_vs_random
    states = np.array([_start_state(layout, m) for m, layout in enumerate(layouts)])[np.arange(len(keys)) % LEVELS]
    _, state, _, done, _ = fx.step(_keys(17, len(keys)), _env_state(states, np.full(len(keys), 3)),
                                   jnp.zeros(len(keys), dtype=jnp.int32), fx.params._replace(levels=jnp.array([3])))
    assert np.asarray(done).all() and (np.asarray(state.state) == start).all()


# -- refusals ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("make", "kwargs", "error", "match"), [
    ("both", dict(obs_type="belief_vector"), UnsupportedSetting, "serves obs_type in"),
    ("both", dict(obs_type="dict"), UnsupportedSetting, "serves obs_type in"),
    ("agent", dict(obs_type="belief_vector"), UnsupportedSetting, "serves obs_type in"),
    ("both", dict(explore_starts=1.5), ValueError, r"explore_starts must be a probability in \[0, 1\]"),
    ("both", dict(explore_starts=-0.1), ValueError, r"explore_starts must be a probability in \[0, 1\]"),
    ("agent", dict(explore_starts=True), ValueError, r"explore_starts must be a probability in \[0, 1\]"),
    ("agent", dict(explore_starts="0.5"), ValueError, r"explore_starts must be a probability in \[0, 1\]"),
    ("ghost", dict(explore_starts=0.5), ValueError, "explore_starts places games with the agent to move"),
    ("both", dict(controlled="agent"), TypeError, "GridGhostJax has both sides learn"),
    ("both", dict(opponent="chase"), TypeError, "GridGhostJax has both sides learn"),
    ("both", dict(autoreset_mode="same_step"), UnsupportedSetting, "does not take autoreset_mode"),
    ("agent", dict(autoreset_mode="next_step"), UnsupportedSetting, "does not take autoreset_mode"),
    ("agent", dict(belief_filter="histogram"), UnsupportedSetting, "does not serve belief_filter='histogram'"),
    ("agent", dict(seed=3), UnsupportedSetting, "does not take seed: its randomness comes from the keys"),
    ("both", dict(sensors=[]), UnsupportedSetting, r"does not serve sensors=\(\) \(it serves the default only"),
    ("agent", dict(color_sensor_quality=0.9), UnsupportedSetting, "does not serve sensors=.*color_sensor_quality"),
    ("agent", dict(expert="optimal"), UnsupportedSetting, "does not serve expert='optimal'"),
    ("both", dict(speed=2), TypeError, "unexpected keyword argument 'speed'"),
    ("agent", dict(render_mode="human"), UnsupportedSetting, "does not serve render_mode"),
    ("agent", dict(slip="sideways"), ValueError, "sideways"),
    # teams: the computed path serves what one ghost's does, and a team learns as controlled="ghosts"
    ("both", dict(ghosts=2, layout="team_eight", obs_type="grid", append_step_count=True, max_cycles=9),
     UnsupportedSetting, "append_step_count=True"),
    ("ghost", dict(ghosts=3), ValueError, r"with ghosts >= 2 the team learns as controlled='ghosts'"),
])
def test_settings_the_jax_engine_does_not_serve_are_refused(make, kwargs, error, match) -> None:
    with pytest.raises(error, match=match):
        if make == "both":
            GridGhostJax(**kwargs)
        else:
            GridGhostJaxSingle(make, **kwargs)


@pytest.mark.parametrize("probability", [np.float32(0.25), np.float64(0.25), 0.25])
def test_explore_starts_takes_any_real_probability(probability) -> None:
    assert float(GridGhostJaxSingle("agent", explore_starts=probability).default_params.explore_starts) == 0.25


@pytest.mark.parametrize("controlled", ["both", None, "AGENT"])
def test_a_single_view_needs_one_side(controlled) -> None:
    with pytest.raises(ValueError, match="controlled must be 'agent' or 'ghost'"):
        GridGhostJaxSingle(controlled)


# -- the batch API: every game's draws from one key ---------------------------------------------------------
# batch_reset, batch_step, batch_step_env, batch_step_agent and batch_step_ghost take a batch of
# states and ONE key, and draw every game's uniforms from it with gridghost.jax.draws.batch_uniforms
# (a counter hash, not jax.random): the same games as the NumPy engine where nothing is drawn, the
# kernel's distributions where something is, the same results under jit and lax.scan.
BATCH_SINGLE_CASES = [
    ("agent", "chase", dict(obs_type="grid", max_cycles=12, max_episode_steps=20)),
    ("ghost", "table", dict(obs_type="vector", max_cycles=15)),
]


@pytest.mark.parametrize(("controlled", "opponent", "view"), BATCH_SINGLE_CASES,
                         ids=["agent-chase-grid", "ghost-table-vector"])
def test_one_sided_batch_steps_are_the_numpy_engines_step_for_step(controlled, opponent, view) -> None:
    # batch_step (with its same-step reset) and batch_step_env (none) from the same states and key:
    # the NumPy engine's step, next observations and final observations of the games that ended
    settings = dict(slip="none", **view)  # the classic map: nothing drawn
    if opponent == "table":
        opponent = _agent_table(20, seed=7)
    env = GridGhostJaxSingle(controlled, opponent=opponent, **settings)
    batch = BatchedGame(GAMES, seed=0, controlled=controlled, opponent=opponent, autoreset_mode="same_step",
                        **settings)
    numpy_step = batch.step_agent if controlled == "agent" else batch.step_ghost
    batch_reset = jax.jit(env.batch_reset, static_argnums=1)
    batch_step, batch_step_env = jax.jit(env.batch_step), jax.jit(env.batch_step_env)
    observations, state = batch_reset(jax.random.key(0), GAMES)
    expected = batch.reset()[controlled]
    _assert_equal("reset: states", state.state, _global_states(batch))
    _assert_equal("reset: observations", observations, expected)
    assert not np.asarray(state.steps).any() and not np.asarray(state.to_move).any()
    rng = np.random.default_rng(11)
    terminated = truncated = 0
    for t in range(120):
        actions = jnp.asarray(rng.integers(0, 4, size=GAMES))
        key = jax.random.key(2000 + t)
        final, ended_state, final_reward, final_done, final_info = batch_step_env(key, state, actions)
        observations, state, reward, done, info = batch_step(key, state, actions)
        result = numpy_step(np.asarray(actions))
        over = result.terminations | result.truncations
        live = ~over
        lengths = batch.episodes().lengths  # the episode that ended, where one did
        for what, got in (("batch_step", (reward, done, info)), ("batch_step_env", (final_reward, final_done,
                                                                                    final_info))):
            _assert_equal(f"step {t}, {what}: rewards", got[0], result.rewards[controlled].astype(np.float32))
            _assert_equal(f"step {t}, {what}: dones", got[1], over)
            _assert_equal(f"step {t}, {what}: terminated", got[2]["terminated"], result.terminations)
            _assert_equal(f"step {t}, {what}: truncated", got[2]["truncated"], result.truncations)
        _assert_equal(f"step {t}, batch_step: states", state.state, _global_states(batch))
        _assert_equal(f"step {t}, batch_step: steps", state.steps, np.where(over, 0, lengths))
        _assert_equal(f"step {t}, batch_step: observations", observations, result.observations[controlled])
        _assert_equal(f"step {t}, batch_step: action masks", info["action_mask"], batch.action_masks().astype(bool))
        _assert_equal(f"step {t}, batch_step_env: states", np.asarray(ended_state.state)[live],
                      _global_states(batch)[live])
        _assert_equal(f"step {t}, batch_step_env: steps", ended_state.steps, lengths)
        _assert_equal(f"step {t}, batch_step_env: observations", np.asarray(final)[live],
                      result.observations[controlled][live])
        _assert_equal(f"step {t}, batch_step_env: final observations", np.asarray(final)[result.final_games],
                      result.final_observations[controlled])
        _assert_equal(f"step {t}, batch_step_env: action masks", np.asarray(final_info["action_mask"])[live],
                      batch.action_masks()[live].astype(bool))
        terminated += int(result.terminations.sum())
        truncated += int(result.truncations.sum())
    assert terminated > GAMES and truncated > GAMES // 4, (terminated, truncated)  # both ends, and restarts


@pytest.mark.parametrize(("calls", "view"), [("halves", dict(obs_type="vector")), ("step", dict(obs_type="grid"))],
                         ids=["batch_step_agent-ghost-vector", "batch_step-grid"])
def test_two_sided_batch_steps_are_the_numpy_engines_half_turn_by_half_turn(calls, view) -> None:
    settings = dict(slip="none", max_cycles=15, **view)  # the classic map: nothing drawn
    env = GridGhostJax(**settings)
    batch = BatchedGame(GAMES, seed=0, controlled=None, autoreset_mode="same_step", **settings)
    if calls == "halves":
        agent_half, ghost_half = jax.jit(env.batch_step_agent), jax.jit(env.batch_step_ghost)
    else:  # batch_step plays the side to move, the other side's actions ignored
        whole_step = jax.jit(env.batch_step)

        def agent_half(key, state, actions):
            return whole_step(key, state, {"agent": actions, "ghost": actions[::-1]})

        def ghost_half(key, state, actions):
            return whole_step(key, state, {"agent": actions[::-1], "ghost": actions})
    observations, state = jax.jit(env.batch_reset, static_argnums=1)(jax.random.key(0), GAMES)
    expected = batch.reset()
    _assert_equal("reset: states", state.state, _global_states(batch))
    for side in ("agent", "ghost"):
        _assert_equal(f"reset: {side} observations", observations[side], expected[side])
    rng = np.random.default_rng(12)
    terminated = truncated = 0
    for turn in range(80):
        for mover in ("agent", "ghost"):
            actions = rng.integers(0, 4, size=GAMES)
            key = jax.random.key(3000 + 2 * turn + (mover == "ghost"))
            where = f"turn {turn} {mover}'s half"
            if mover == "agent":
                observations, state, rewards, dones, infos = agent_half(key, state, jnp.asarray(actions))
                result = batch.step_agent(actions)
                _assert_equal(f"{where}: ended", state.ended, result.terminations)
            else:
                observations, state, rewards, dones, infos = ghost_half(key, state, jnp.asarray(actions))
                result = batch.step_ghost(actions)
                terminated += int(result.terminations.sum())
                truncated += int(result.truncations.sum())
            over = result.terminations | result.truncations
            _assert_equal(f"{where}: states", state.state, _global_states(batch))
            _assert_equal(f"{where}: to move", state.to_move, np.full(GAMES, mover == "agent"))
            _assert_equal(f"{where}: infos to move", infos["to_move"], np.full(GAMES, mover == "agent"))
            _assert_equal(f"{where}: steps", state.steps,
                          np.where(over, 0, batch.episodes("agent").lengths) if mover == "ghost" else
                          batch.episodes("agent").lengths)
            _assert_equal(f"{where}: terminated", infos["terminated"], result.terminations)
            _assert_equal(f"{where}: truncated", infos["truncated"], result.truncations)
            _assert_equal(f"{where}: all done", dones["__all__"], over)
            for side in ("agent", "ghost"):
                _assert_equal(f"{where}: {side} rewards", rewards[side], result.rewards[side].astype(np.float32))
                _assert_equal(f"{where}: {side} dones", dones[side], over)
                _assert_equal(f"{where}: {side} observations", observations[side], result.observations[side])
    assert terminated > GAMES and truncated > GAMES // 4, (terminated, truncated)  # both ends, and restarts


# -- the batch draws against the kernel's exact probabilities ---------------------------------------------------
#: Draws per stratum of the batch chi-square tests, all in ONE call with one key.
BATCH_PER_STRATUM = 4000


def _batch_sample(fx, strata, steps, seed: int):
    """``fx.batch_step_env`` once, with one key, over :data:`BATCH_PER_STRATUM` games placed on
    each stratum's state (consecutive in the batch: neighbouring counters of the hash), after
    ``steps`` steps (one number or one per stratum); the stratum of each game and the step."""
    cells = fx.cells
    states = np.array([m * cells * cells + agent * cells + ghost for m, agent, ghost, _ in strata])
    actions = np.array([action for *_, action in strata], dtype=np.int32)
    which = np.repeat(np.arange(len(strata)), BATCH_PER_STRATUM)
    state = _env_state(states[which], np.broadcast_to(steps, len(strata))[which])
    return which, fx.batch_step_env(jax.random.key(seed), state, jnp.asarray(actions[which]), fx.params)


def test_batch_step_env_draws_an_agents_turn_against_a_random_ghost_with_the_kernels_distribution(
        agent_vs_random) -> None:
    # the slip (longitudinal, 0.2) and the random ghost's answer: two uniforms per game, jointly
    fx = agent_vs_random
    games = [Game(layout, LongitudinalSlip(0.2)) for layout in fx.env.layouts]
    cells = fx.cells
    strata = _strata(games, 24, seed=21)
    exact = [_agent_turn_against_random_ghost(games[m], m * cells * cells, a, g, action) for m, a, g, action in strata]
    which, (_, after, reward, _, info) = _batch_sample(fx, strata, 1, seed=22)
    assert not np.asarray(info["truncated"]).any()  # 2 steps of 4
    draws = [Counter() for _ in strata]
    for s, state, r, ended in zip(which, np.asarray(after.state), np.asarray(reward), np.asarray(info["terminated"]),
                                  strict=True):
        draws[s][_outcome(state, r, ended)] += 1
    assert sum(any(key[-1] for key in distribution) for distribution in exact) >= 3  # moves that end games
    statistic, dof, p, impossible = goodness_of_fit(list(zip(draws, exact, strict=True)))
    print(f"batch: agent vs random ghost: chi2 {statistic:.1f}, dof {dof}, p {p:.3f}")
    assert not impossible, f"outcomes the kernel says are impossible: {impossible[:5]}"
    assert dof > 100 and p > ALPHA, (statistic, dof, p)
    # the same draws against another slip probability: the test can tell
    other = [Game(layout, LongitudinalSlip(0.3)) for layout in fx.env.layouts]
    wrong = [_agent_turn_against_random_ghost(other[m], m * cells * cells, a, g, action) for m, a, g, action in strata]
    _, _, p_wrong, _ = goodness_of_fit(list(zip(draws, wrong, strict=True)))
    assert p_wrong < ALPHA, p_wrong


def test_batch_step_env_draws_a_ghosts_turn_against_a_random_agent_with_the_kernels_distribution(
        ghost_vs_random) -> None:
    # the random agent's answer and its slip (perpendicular, 0.2); at the episode's first step too
    fx = ghost_vs_random
    strata, expected = _ghost_turns_expected(fx, 12, seed=23, ending=2)
    which, (_, after, reward, _, info) = _batch_sample(fx, strata + strata, np.repeat([0, 5], len(strata)), seed=24)
    draws = [Counter() for _ in expected]
    for s, state, r, ended in zip(which, np.asarray(after.state), np.asarray(reward), np.asarray(info["terminated"]),
                                  strict=True):
        draws[s][_outcome(state, r, ended)] += 1
    statistic, dof, p, impossible = goodness_of_fit(list(zip(draws, expected, strict=True)))
    print(f"batch: ghost vs random agent: chi2 {statistic:.1f}, dof {dof}, p {p:.3f}")
    assert not impossible, f"outcomes the kernel says are impossible: {impossible[:5]}"
    assert dof > 30 and p > ALPHA, (statistic, dof, p)


#: Games of one batch_reset in the distribution tests.
BATCH_RESETS = 120_000


def test_batch_reset_draws_a_uniform_level_and_starts_on_its_start(two_sides_random) -> None:
    fx = two_sides_random
    starts = np.array([_start_state(layout, m) for m, layout in enumerate(fx.env.layouts)])
    observations, state = fx.batch_reset(jax.random.key(25), BATCH_RESETS, fx.params)
    states = np.asarray(state.state)
    maps = states // fx.cells**2
    assert np.array_equal(states, starts[maps])
    assert not np.asarray(state.steps).any() and not np.asarray(state.to_move).any()
    assert not np.asarray(state.ended).any()
    assert all(np.asarray(leaf).shape[0] == BATCH_RESETS for leaf in jax.tree_util.tree_leaves(observations))
    counts = Counter((int(m),) for m in maps)
    statistic, dof, p, impossible = goodness_of_fit([(counts, {(m,): 1 / LEVELS for m in range(LEVELS)})])
    assert not impossible and dof == LEVELS - 1 and p > ALPHA, (counts, statistic, p)
    # another key, other draws; the same key, the same draws
    other = np.asarray(fx.batch_reset(jax.random.key(26), BATCH_RESETS, fx.params)[1].state)
    assert (other != states).mean() > 0.5
    assert np.array_equal(np.asarray(fx.batch_reset(jax.random.key(25), BATCH_RESETS, fx.params)[1].state), states)


def test_a_learning_ghosts_batch_reset_draws_a_level_and_the_random_agents_opening_move(ghost_vs_random) -> None:
    fx = ghost_vs_random
    _, state = fx.batch_reset(jax.random.key(27), BATCH_RESETS, fx.params)
    drawn = Counter((int(s),) for s in np.asarray(state.state))
    statistic, dof, p, impossible = goodness_of_fit([(drawn, _ghost_reset_distribution(fx))])
    print(f"ghost's batch resets: chi2 {statistic:.1f}, dof {dof}, p {p:.3f}")
    assert not impossible, f"reset states the kernel says are impossible: {impossible[:5]}"
    assert not np.asarray(state.steps).any()
    assert dof > 15 and p > ALPHA, (statistic, dof, p)


def test_batch_reset_exploring_starts_are_uniform_over_the_allowed_states(agent_vs_random) -> None:
    fx = agent_vs_random
    distribution, _, _ = _exploring_starts(fx)
    _, state = fx.batch_reset(jax.random.key(28), BATCH_RESETS, fx.params._replace(explore_starts=jnp.float32(1.0)))
    drawn = Counter((int(s),) for s in np.asarray(state.state))
    statistic, dof, p, impossible = goodness_of_fit([(drawn, distribution)])
    print(f"batch exploring starts: chi2 {statistic:.1f}, dof {dof}, p {p:.3f}")
    assert not impossible, f"starts outside the allowed states: {impossible[:5]}"
    assert dof == len(distribution) - 1 and p > ALPHA, (statistic, dof, p)
    # a share of exploring starts: the map's start, or a uniform allowed state
    _, state = fx.batch_reset(jax.random.key(29), BATCH_RESETS, fx.params._replace(explore_starts=jnp.float32(0.25)))
    _check_a_share_of_exploring_starts(fx, np.asarray(state.state))


def _chi_square_uniform(counts: np.ndarray) -> tuple[float, int, float]:
    """Pearson's test that ``counts`` (any shape) are draws of equally likely cells."""
    counts = counts.ravel().astype(float)
    expected = counts.sum() / len(counts)
    statistic = float(((counts - expected) ** 2 / expected).sum())
    return statistic, len(counts) - 1, chi_square_p_value(statistic, len(counts) - 1)


def test_batch_uniforms_are_uniform_in_0_1_without_serial_correlation_and_keyed() -> None:
    from gridghost.jax.draws import batch_uniforms

    n = 10**6
    key = jax.random.key(31)
    u = np.asarray(batch_uniforms(key, (n,)))
    assert u.shape == (n,) and u.dtype == np.float32
    assert u.min() >= 0.0 and u.max() < 1.0
    assert u.min() < 1e-4 and u.max() > 1 - 1e-4  # the whole interval
    assert np.array_equal(u * 2.0**24, np.floor(u * 2.0**24))  # 24 bits each, as documented
    assert len(np.unique(u)) > 0.95 * n  # 2**24 values: about 3% collide by chance
    _, dof, p = _chi_square_uniform(np.bincount((u * 64).astype(int), minlength=64))
    assert dof == 63 and p > ALPHA, p
    # consecutive pairs (a game's neighbouring draws) fill an 8x8 grid evenly
    pairs = (u.reshape(-1, 2) * 8).astype(int)
    _, _, p = _chi_square_uniform(np.bincount(pairs[:, 0] * 8 + pairs[:, 1], minlength=64))
    assert p > ALPHA, p
    # the shape only arranges the draws: a 2-D shape keeps every game's row in [0, 1) too
    grid = np.asarray(batch_uniforms(key, (1000, 7)))
    assert grid.shape == (1000, 7) and grid.min() >= 0.0 and grid.max() < 1.0
    assert len(np.unique(grid)) > 0.99 * grid.size
    # the same key, the same numbers (a typed key or its raw uint32[2] data); another, others
    assert np.array_equal(np.asarray(batch_uniforms(key, (n,))), u)
    assert np.array_equal(np.asarray(batch_uniforms(jax.random.key_data(key), (n,))), u)
    first, second = jax.random.split(key)
    v, w = np.asarray(batch_uniforms(first, (n,))), np.asarray(batch_uniforms(second, (n,)))
    assert (v != u).mean() > 0.99 and (w != v).mean() > 0.99
    # and independent: the i-th draws of two split keys (a rollout's consecutive steps) fill the grid evenly
    _, _, p = _chi_square_uniform(np.bincount((v * 8).astype(int) * 8 + (w * 8).astype(int), minlength=64))
    assert p > ALPHA, p


@pytest.mark.parametrize("size", [1, 2, 3, 5, 12, 100, 1000, 1023, 1024, 1025, 4096, 4097])
def test_batch_permutation_is_a_permutation_of_every_size_and_keyed(size) -> None:
    from gridghost.jax.draws import batch_permutation

    key = jax.random.key(size)
    order = np.asarray(batch_permutation(key, size))
    assert order.dtype == np.int32 and np.array_equal(np.sort(order), np.arange(size))
    assert np.array_equal(np.asarray(batch_permutation(key, size)), order)
    assert np.array_equal(np.asarray(jax.jit(batch_permutation, static_argnums=1)(key, size)), order)
    if size >= 12:  # another key, another order (two orders of 12 agree by chance with p ~ 2e-9)
        assert not np.array_equal(np.asarray(batch_permutation(jax.random.split(key)[0], size)), order)


def _positions(size: int, draws: int, seed: int) -> np.ndarray:
    """``positions[d, i]``: where index ``i`` went in draw ``d`` of ``batch_permutation``."""
    from gridghost.jax.draws import batch_permutation

    orders = jax.vmap(lambda k: batch_permutation(k, size))(jax.random.split(jax.random.key(seed), draws))
    return np.argsort(np.asarray(orders), axis=1)


@pytest.mark.parametrize("size", [5, 12])
def test_small_batch_permutations_place_every_index_uniformly(size) -> None:
    # the whole index x position table: a cipher on a few bits fails this (6 rounds at 5 or 12: p < 1e-10)
    draws = 40_000
    positions = _positions(size, draws, seed=3)
    table = np.stack([np.bincount(positions[:, index], minlength=size) for index in range(size)])
    for row in table:
        _, dof, p = _chi_square_uniform(row)
        assert dof == size - 1 and p > ALPHA / size, (table, p)


@pytest.mark.parametrize("size", [1025, 4096])
def test_large_batch_permutations_place_indices_uniformly_and_share_minibatches_evenly(size) -> None:
    """The cipher's sizes, with (1,025: 11 bits) and without (4,096) cycle walking: each index's
    position is uniform, and two indices share a minibatch of 64 at the rate of a uniform
    permutation, whatever their distance (an affine map such as
    (a * i + b) % size passes the first test and fails this one)."""
    draws, bins, minibatch = 5_000, 32, 64
    positions = _positions(size, draws, seed=11)
    per_bin = np.bincount(np.arange(size) * bins // size, minlength=bins)  # positions in each bin
    for index in (0, 1, 2, size // 2, size - 2, size - 1):
        counts = np.bincount(positions[:, index] * bins // size, minlength=bins)
        expected = draws * per_bin / size
        statistic = float(((counts - expected) ** 2 / expected).sum())
        p = chi_square_p_value(statistic, bins - 1)
        assert p > ALPHA, (index, p)
    full = size // minibatch * minibatch  # the positions of whole minibatches
    uniform_rate = (minibatch - 1) / (full - 1)  # of two indices placed there
    for gap in (1, 2, 3, 32, 64, 512, size // 2):
        first, second = positions[:, : size - gap], positions[:, gap:]
        both_full = (first < full) & (second < full)
        rate = ((first // minibatch == second // minibatch) & both_full).sum() / both_full.sum()
        assert abs(rate / uniform_rate - 1) < 0.05, (gap, rate, uniform_rate)


@pytest.mark.parametrize("size", [0, -1, 2.5, True, "8"])
def test_batch_permutation_refuses_a_size_that_is_not_a_positive_int(size) -> None:
    from gridghost.jax.draws import batch_permutation

    with pytest.raises(ValueError, match="size must be a positive int"):
        batch_permutation(jax.random.key(0), size)


@pytest.mark.parametrize("num_games", [0, -1, 2.5, True])
def test_batch_reset_refuses_a_number_of_games_that_is_not_a_positive_int(num_games, agent_vs_random,
                                                                          two_sides_random) -> None:
    for fx in (agent_vs_random, two_sides_random):
        with pytest.raises(ValueError, match="num_games"):
            fx.env.batch_reset(jax.random.key(0), num_games)


def test_the_spaces_are_either_sides_and_refuse_another_name(agent_vs_random, two_sides_random) -> None:
    for fx in (agent_vs_random, two_sides_random):
        for side in (None, "agent", "ghost"):
            assert fx.env.observation_space(side) == fx.env.engine.observation_space
            assert fx.env.action_space(side).n == 4
        refusal = r"unknown agent 'player_0'; accepted: None or one of \['agent', 'ghost'\]"
        for method in (fx.env.observation_space, fx.env.action_space):
            with pytest.raises(ValueError, match=refusal):
                method("player_0")


# -- the batch functions under jit and lax.scan ----------------------------------------------------------------
@pytest.mark.parametrize("view", ["one side", "two sides: batch_step", "two sides: halves"])
def test_a_scan_of_batch_steps_is_the_python_loop_of_jitted_calls(view, agent_vs_random, two_sides_random) -> None:
    # with slip, random opponents, levels and limits: every draw of the steps and the resets counts
    fx = agent_vs_random if view == "one side" else two_sides_random
    env, n, steps = fx.env, 512, 12
    actions = jnp.asarray(np.random.default_rng(32).integers(0, 4, size=(steps, n)))

    def play(key, states, action, params):  # one scan step: a step, or both halves of a turn
        if view == "one side":
            return env.batch_step(key, states, action, params)
        if view == "two sides: batch_step":
            return env.batch_step(key, states, {"agent": action, "ghost": action[::-1]}, params)
        key, sub = jax.random.split(key)
        states = env.batch_step_agent(key, states, action, params)[1]
        return env.batch_step_ghost(sub, states, action[::-1], params)

    def rollout(key, params):
        key, sub = jax.random.split(key)
        first = env.batch_reset(sub, n, params)[1]

        def body(carry, action):
            key, states = carry
            key, sub = jax.random.split(key)
            out = play(sub, states, action, params)
            return (key, out[1]), out

        (_, last), outs = jax.lax.scan(body, (key, first), actions)
        return first, last, outs

    first, last, scanned = jax.jit(rollout)(jax.random.key(33), fx.params)
    # the loop: the jitted batch calls, the same keys
    key, sub = jax.random.split(jax.random.key(33))
    state = fx.batch_reset(sub, n, fx.params)[1]
    _assert_same_tree("the first states", first, state)
    looped = []
    for t in range(steps):
        key, sub = jax.random.split(key)
        if view == "one side":
            out = fx.batch_step(sub, state, actions[t], fx.params)
        elif view == "two sides: batch_step":
            out = fx.batch_step(sub, state, {"agent": actions[t], "ghost": actions[t][::-1]}, fx.params)
        else:
            agent_key, ghost_key = jax.random.split(sub)
            out = fx.batch_step_agent(agent_key, state, actions[t], fx.params)
            out = fx.batch_step_ghost(ghost_key, out[1], actions[t][::-1], fx.params)
        state = out[1]
        looped.append(out)
    stacked = jax.tree_util.tree_map(lambda *leaves: jnp.stack(leaves), *looped)
    _assert_same_tree("scan against loop", scanned, stacked)
    _assert_same_tree("the scan's last state", last, state)
    dones = np.asarray(scanned[3] if view == "one side" else scanned[3]["__all__"])
    assert dones.sum() > n  # games ended (the limits) and restarted within the scan
    # one key, yet the games drew apart: resets on every level, and games that played the same
    # action from the same state reached different states
    starts = np.asarray(first.state)
    assert len(np.unique(starts // fx.cells**2)) == LEVELS
    moves = np.stack([starts, np.asarray(actions[0]), np.asarray(scanned[1].state[0])], axis=1)
    assert len(np.unique(moves, axis=0)) > len(np.unique(moves[:, :2], axis=0)) + 8


def test_the_jax_views_take_spec_config_or_keywords_alike() -> None:
    from gridghost.config import resolve

    settings = dict(obs_type="grid", view_radius=1, slip="none", max_cycles=5, rewards="normalised")
    spec = resolve(**settings)
    views = [GridGhostJaxSingle("agent", **settings), GridGhostJaxSingle("agent", spec=spec),
             GridGhostJaxSingle("agent", config=spec.to_dict())]
    for view in views:
        assert view.spec.to_dict() == spec.to_dict()
    leaves = [jax.tree_util.tree_leaves(view.default_params) for view in views]
    for other in leaves[1:]:
        assert len(other) == len(leaves[0])
        for first, second in zip(leaves[0], other, strict=True):
            np.testing.assert_array_equal(np.asarray(first), np.asarray(second))
    assert GridGhostJax(spec=spec).spec.to_dict() == GridGhostJax(**settings).spec.to_dict()
