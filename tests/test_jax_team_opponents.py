"""A learning team's opponent agent as a table, or a pool of tables, in both engines.

An agent table gives the agent's action in every joint state of every map
(``map * cells**(k + 1)`` + the flat joint state); a pool draws one table per episode, with
probability its weight, and plays it for the whole episode. The NumPy engine
(:class:`~gridghost.batched.positions.PositionGame`) and the JAX team view must play the same games
with the same table, and refuse what they cannot play by name. Expected values come from the
solver, the kernel and the maps; the tests marked ``jax`` need the jax extra.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from gridghost.batched import BatchedGame, UnsupportedSetting
from gridghost.config.opponents import GAME_OVER, AgentPool, agent_tables, draw_members, live_states
from gridghost.config.settings import resolve
from gridghost.planning import solve_agent, solve_game

from helpers import goodness_of_fit

try:
    import jax
    import jax.numpy as jnp

    from gridghost.jax import GridGhostJax, GridGhostJaxSingle, team_table
except ImportError:
    jax = None

MAP = "team_eight"
SETTINGS = dict(ghosts=2, layout=MAP, obs_type="vector", slip="none")
ALPHA = 1e-3
needs_jax = pytest.mark.jax


def _game(**changes):
    return resolve(**{**SETTINGS, **changes}).game()


def _minimax_agent(**changes):
    """The team game's minimax agent, as the solver gives it (-1 where the game is over)."""
    return solve_game(game=_game(**changes)).agent_policy


def _optimal_agent():
    """The agent's best response to two chasers (another deterministic agent)."""
    return solve_agent(game=_game(), ghost="chase").policy


# -- the tables: layout and checks (no engine) ---------------------------------------------------------------
def test_an_agent_table_is_read_in_every_form_the_solver_and_the_engines_write() -> None:
    game = _game()
    policy = _minimax_agent()  # int64[(rows, cols) * 3], -1 where the game is over
    cells = game.num_cells
    [flat], weights = agent_tables(policy, [game])
    assert flat.dtype == np.uint8 and flat.shape == (cells**3,) and weights.tolist() == [1.0]
    expected = policy.reshape(-1)
    assert np.array_equal(flat[expected >= 0], expected[expected >= 0])
    assert (flat[expected < 0] == GAME_OVER).all()
    # the same table flat, by cells, stacked by map, or in the engine's own uint8 layout
    for form in (policy.reshape(-1), policy.reshape((cells,) * 3), policy[None], flat):
        assert np.array_equal(agent_tables(form, [game])[0], flat[None])
    # where the game is over it goes on nowhere: the agent off the goals, no ghost on its cell
    live = live_states(np.asarray(game.goals)[None], 2)
    assert np.array_equal(live, expected >= 0)
    # a pool: a 2-D stack, a list, an AgentPool with weights
    second = _optimal_agent()
    stack, weights = agent_tables([policy, second], [game])
    assert stack.shape == (2, cells**3) and weights.tolist() == [0.5, 0.5]
    assert np.array_equal(agent_tables(stack, [game])[0], stack)
    assert agent_tables(AgentPool(stack, [0.25, 0.75]), [game])[1].tolist() == [0.25, 0.75]


@pytest.mark.parametrize(("opponent", "error", "match"), [
    (np.zeros(10, dtype=np.int64), ValueError, r"opponent must have shape \(42875,\)"),
    (np.zeros(42875, dtype=bool), TypeError, "must be an int array"),
    (np.zeros(42875, dtype=np.float32), TypeError, "got dtype float32"),
    ([], ValueError, "at least one agent table"),
    ("sideways", TypeError, "must be an int array"),
    (AgentPool(np.zeros((2, 42875), np.uint8), [0.5, 0.6]), ValueError, "summing to 1"),
    (AgentPool(np.zeros((2, 42875), np.uint8), [1.5, -0.5]), ValueError, ">= 0"),
    (AgentPool(np.zeros((2, 42875), np.uint8), [1.0]), ValueError, r"shape \(2,\), one per table"),
    (AgentPool(np.zeros((2, 42875), np.uint8), [np.nan, 1.0]), ValueError, "probabilities"),
    (AgentPool(np.zeros((2, 42875), np.uint8), ["a", "b"]), TypeError, "real probabilities"),
])
def test_agent_tables_of_another_shape_dtype_or_weights_are_refused_by_name(opponent, error, match) -> None:
    with pytest.raises(error, match=match):
        agent_tables(opponent, [_game()])


def test_a_table_entry_must_be_an_action_where_the_game_goes_on_and_may_be_the_marker_where_it_is_over() -> None:
    game = _game()
    table = _minimax_agent().reshape(-1).copy()
    live = np.flatnonzero(table >= 0)
    over = np.flatnonzero(table < 0)
    for value in (-1, GAME_OVER, 4):
        bad = table.copy()
        bad[live[7]] = value
        with pytest.raises(ValueError, match=f"actions 0..3 where the game goes on; entry {live[7]} .* holds {value}"):
            agent_tables(bad, [game])
    for value in (-2, 4):
        bad = table.copy()
        bad[over[3]] = value
        with pytest.raises(ValueError, match=f"where the game is over; entry {over[3]} .* holds {value}"):
            agent_tables(bad, [game])
    pooled = np.stack([table, table])
    pooled[1, live[0]] = 9
    with pytest.raises(ValueError, match="opponent's table 1 must hold"):
        agent_tables(list(pooled), [game])


def test_members_are_drawn_by_the_inverse_of_the_weights_cumulative_sum_never_a_member_of_weight_zero() -> None:
    weights = np.array([0.0, 0.25, 0.0, 0.75, 0.0])
    uniforms = np.array([0.0, 0.1, 0.2499, 0.25, 0.9, 0.999999999])
    assert draw_members(uniforms, weights).tolist() == [1, 1, 1, 3, 3, 3]
    # a sum that rounds below 1 never reaches past the last member of weight > 0
    assert draw_members(np.array([0.9999999]), np.array([0.5, 0.4999999, 0.0])).tolist() == [1]


# -- the NumPy engine --------------------------------------------------------------------------------------
def _numpy_games(opponent, games=16, seed=3, **changes):
    return BatchedGame(games, seed=seed, controlled="ghosts", opponent=opponent, **{**SETTINGS, **changes})


def _play_numpy(batch, actions):
    """Every step's cells, rewards, ends and members (copies: the engine reuses its buffers)."""
    batch.reset()
    trace = []
    for team in actions:
        result = batch.step_ghost(team)
        agents, ghosts = batch.positions
        trace.append((agents.copy(), ghosts.copy(), result.rewards["ghosts"].mean(axis=1), result.terminations.copy(),
                      result.truncations.copy(), batch.members))
    return trace


def test_the_numpy_engine_plays_a_table_as_the_named_opponent_it_was_taken_from() -> None:
    actions = np.random.default_rng(0).integers(0, 4, size=(30, 16, 2))
    for name, table in (("minimax", _minimax_agent()), ("optimal", _optimal_agent())):
        named = _play_numpy(_numpy_games(name), actions)
        for form in (table, AgentPool(table.reshape(-1))):  # a pool of one table is that table
            tabled = _play_numpy(_numpy_games(form), actions)
            for ours, theirs in zip(named, tabled, strict=True):
                for a, b in zip(ours, theirs, strict=True):
                    assert np.array_equal(a, b), name
        assert sum(step[3].sum() for step in named) > 10  # games ended and restarted


def test_the_numpy_engine_draws_one_member_per_episode_by_the_weights_from_its_own_generator() -> None:
    tables = [_minimax_agent(), _optimal_agent(), _minimax_agent()]
    weights = [0.2, 0.0, 0.8]
    actions = np.random.default_rng(1).integers(0, 4, size=(40, 64, 2))
    trace = _play_numpy(_numpy_games(AgentPool(tables, weights), games=64, max_cycles=6), actions)
    first = _numpy_games(AgentPool(tables, weights), games=64)
    first.reset(seed=3)
    drawn: Counter = Counter(first.members.tolist())  # the first episodes' members
    restarted = np.zeros(64, dtype=bool)
    for _, _, _, terminated, truncated, members in trace:
        # next-step auto-reset: a game that ended restarts in the next step, with a fresh member
        drawn.update(members[restarted].tolist())
        restarted = terminated | truncated
    assert drawn[1] == 0
    _, _, p, impossible = goodness_of_fit([(drawn, {0: 0.2, 2: 0.8})])
    assert not impossible and p > ALPHA and sum(drawn.values()) > 200, drawn
    # same seed, same members
    again = _play_numpy(_numpy_games(AgentPool(tables, weights), games=64, max_cycles=6), actions)
    assert all(np.array_equal(a[5], b[5]) for a, b in zip(trace, again, strict=True))


def test_a_member_plays_the_whole_episode() -> None:
    # two tables that differ: each game's agent answers with its own member's table every turn,
    # and a member changes only when its game restarts
    game = _game()
    tables = agent_tables([_minimax_agent(), _optimal_agent()], [game])[0]
    batch = _numpy_games(AgentPool(tables), games=32, seed=5)
    batch.reset()
    rng = np.random.default_rng(2)
    cells, moves = game.num_cells, np.asarray(game.moves)
    restarted = np.zeros(32, dtype=bool)
    checked = differ = 0
    for _ in range(25):
        agents, ghosts = (cells_.copy() for cells_ in batch.positions)
        members = batch.members
        team = rng.integers(0, 4, size=(32, 2))
        result = batch.step_ghost(team)
        assert np.array_equal(batch.members[~restarted], members[~restarted])
        moved = moves[ghosts, team]
        for g in np.flatnonzero(~restarted & (moved != agents[:, None]).all(axis=1)):
            joint = (agents[g] * cells + moved[g, 0]) * cells + moved[g, 1]
            assert batch.positions[0][g] == moves[agents[g], tables[members[g], joint]]
            differ += int(tables[0, joint] != tables[1, joint])
            checked += 1
        restarted = result.terminations | result.truncations
    assert checked > 100 and differ > 5


@pytest.mark.parametrize(("opponent", "error", "match"), [
    ("chase", UnsupportedSetting, r"\['random', 'minimax', 'optimal'\], an agent table or an AgentPool"),
    (np.zeros(12, dtype=np.int64), ValueError, "opponent must have shape"),
    (AgentPool([np.zeros(42875, np.uint8)], [2.0]), ValueError, "summing to 1"),
])
def test_the_numpy_engine_refuses_an_opponent_it_cannot_play_by_name(opponent, error, match) -> None:
    with pytest.raises(error, match=match):
        _numpy_games(opponent)


def test_a_pool_beyond_the_table_budget_is_refused_before_it_is_built() -> None:
    pool = AgentPool([np.zeros(42875, np.uint8)] * 3)
    with pytest.raises(ValueError, match="opponent's agent tables of 1 map"):
        _numpy_games(pool, table_bytes=3 * 42875 - 1)


# -- the JAX team view -----------------------------------------------------------------------------------
def _jax_team(opponent="minimax", **changes):
    return GridGhostJaxSingle("ghosts", opponent=opponent, **{**SETTINGS, **changes})


@needs_jax
def test_the_jax_team_plays_the_numpy_engines_games_with_each_member_of_a_pool() -> None:
    # no slip and a table agent: nothing random is left but the member, which one-hot weights fix
    tables = [_minimax_agent(), _optimal_agent()]
    env = _jax_team()
    games, steps = 32, 30
    actions = np.random.default_rng(4).integers(0, 4, size=(steps, games, 2))
    for member in range(2):
        weights = np.eye(2)[member]
        params = env.opponent_params(tables, weights, capacity=3)
        batch = _numpy_games(AgentPool(tables, weights), games=games)
        observations = batch.reset()["ghosts"]
        seen, states = jax.jit(env.batch_reset, static_argnums=1)(jax.random.key(0), games, params)
        assert np.array_equal(np.asarray(seen), observations)
        assert (np.asarray(states.member) == member).all() and (batch.members == member).all()
        live = np.ones(games, dtype=bool)  # compared until each game's first end (the resets differ)
        step = jax.jit(env.batch_step_env)
        for team in actions:
            result = batch.step_ghost(team)
            seen, states, rewards, _, infos = step(jax.random.key(1), states, jnp.asarray(team, dtype=jnp.int32),
                                                   params)
            agents, ghosts = batch.positions
            assert np.array_equal(np.asarray(states.agent)[live], agents[live])
            assert np.array_equal(np.asarray(states.ghosts)[live], ghosts[live])
            assert np.allclose(np.asarray(rewards)[live], result.rewards["ghosts"].mean(axis=1)[live])
            assert np.array_equal(np.asarray(infos["terminated"])[live], result.terminations[live])
            assert np.array_equal(np.asarray(seen)[live], result.observations["ghosts"][live])
            live &= ~(result.terminations | result.truncations)
        assert not live.all()


@needs_jax
def test_the_jax_team_draws_its_member_at_every_reset_from_the_key_and_keeps_it_for_the_episode() -> None:
    tables = [_minimax_agent(), _optimal_agent(), _minimax_agent()]
    env = _jax_team(max_episode_steps=5)
    params = env.opponent_params(tables, [0.3, 0.0, 0.7], capacity=5)
    reset = jax.jit(env.batch_reset, static_argnums=1)
    _, states = reset(jax.random.key(0), 2000, params)
    first_states = states
    first = Counter(np.asarray(states.member).tolist())
    _, _, p, impossible = goodness_of_fit([(first, {0: 0.3, 2: 0.7})])
    assert not impossible and p > ALPHA, first

    def turn(carry, key):
        states = carry
        _, after, _, done, _ = env.batch_step(key, states, jnp.zeros((512, 2), dtype=jnp.int32), params)
        return after, (states.member, after.member, done)

    _, states = reset(jax.random.key(1), 512, params)
    _, (before, after, done) = jax.jit(jax.lax.scan, static_argnums=0)(turn, states,
                                                                       jax.random.split(jax.random.key(2), 20))
    before, after, done = np.asarray(before), np.asarray(after), np.asarray(done)
    assert np.array_equal(after[~done], before[~done])  # kept while the episode goes on
    redrawn = Counter(after[done].tolist())  # auto-reset draws again
    _, _, p, impossible = goodness_of_fit([(redrawn, {0: 0.3, 2: 0.7})])
    assert not impossible and p > ALPHA and sum(redrawn.values()) > 1000, redrawn
    # same key, same members
    _, again = reset(jax.random.key(0), 2000, params)
    assert np.array_equal(np.asarray(again.member), np.asarray(first_states.member))


@needs_jax
def test_a_new_pool_of_the_same_capacity_plays_without_recompiling() -> None:
    env = _jax_team()
    traces = []

    @jax.jit
    def rollout(params, key):
        traces.append(1)
        _, states = env.batch_reset(key, 64, params)
        _, states, rewards, _, _ = env.batch_step(key, states, jnp.zeros((64, 2), dtype=jnp.int32), params)
        return states.member, rewards

    first = env.opponent_params([_minimax_agent()], capacity=4)
    second = env.opponent_params([_minimax_agent(), _optimal_agent(), _minimax_agent()], capacity=4)
    members, _ = rollout(first, jax.random.key(0))
    assert (np.asarray(members) == 0).all()
    members, _ = rollout(second, jax.random.key(0))
    assert set(np.asarray(members).tolist()) == {0, 1, 2} and len(traces) == 1
    # capacity pads with rows of weight 0 and no moves
    assert np.asarray(second.planned).shape == (4, 35**3) and np.asarray(second.pool).tolist()[3] == 0.0
    assert not np.asarray(second.planned)[3].any()


@needs_jax
@pytest.mark.parametrize(("call", "error", "match"), [
    (lambda env, tables: _jax_team("random").opponent_params(tables), ValueError, "plays no agent table"),
    (lambda env, tables: env.opponent_params(tables, capacity=1), ValueError, "capacity must be >= 2"),
    (lambda env, tables: env.opponent_params(tables, capacity=2.0), TypeError, "capacity must be an int"),
    (lambda env, tables: env.opponent_params(tables, capacity=True), TypeError, "capacity must be an int"),
    (lambda env, tables: env.opponent_params(tables, [0.7, 0.7]), ValueError, "summing to 1"),
    (lambda env, tables: env.opponent_params(tables[0][:9]), ValueError, "tables must have shape"),
    (lambda env, tables: env.opponent_params(np.full(35**3, 7)), ValueError, "entry 0 .* holds 7"),
])
def test_opponent_params_refuse_what_the_view_cannot_play_by_name(call, error, match) -> None:
    with pytest.raises(error, match=match):
        call(_jax_team(), [_minimax_agent().reshape(-1), _optimal_agent().reshape(-1)])


@needs_jax
@pytest.mark.parametrize(("change", "error", "match"), [
    (lambda p: p._replace(planned=p.planned.astype(jnp.int32)), ValueError,
     r"params\.planned must be uint8\[P, 42875\]"),
    (lambda p: p._replace(planned=p.planned[:, :9]), ValueError, r"params\.planned must be uint8"),
    (lambda p: p._replace(pool=jnp.ones(2, dtype=jnp.float32)), ValueError, r"params\.pool must be float32\[1\]"),
    (lambda p: p._replace(pool=jnp.array([0.5], dtype=jnp.float32)), ValueError, "summing to 1"),
    (lambda p: p._replace(planned=p.planned.at[0, 0].set(7)), ValueError, r"table 0, entry 0 holds 7"),
    (lambda p: p._replace(planned=None), ValueError, "params hold other tables"),
])
def test_steps_refuse_agent_tables_in_params_that_the_view_cannot_play(change, error, match) -> None:
    env = _jax_team()
    _, state = env.reset(jax.random.key(0))
    with pytest.raises(error, match=match):
        env.step(jax.random.key(1), state, np.zeros(2, np.int32), change(env.default_params))


@needs_jax
def test_a_state_names_its_member_within_the_pool() -> None:
    env = _jax_team()
    pool = env.opponent_params([_minimax_agent(), _optimal_agent()])
    _, state = env.reset(jax.random.key(0), pool)
    with pytest.raises(ValueError, match=r"state\.member must name a table of params\.planned, in 0\.\.1, got 2"):
        env.step(jax.random.key(1), state._replace(member=jnp.int32(2)), np.zeros(2, np.int32), pool)
    with pytest.raises(ValueError, match=r"state\.member is None, but params hold a pool of 2"):
        env.step(jax.random.key(1), state._replace(member=None), np.zeros(2, np.int32), pool)
    # a state built by hand without a member plays the one table of a view's own params
    one = env.step(jax.random.key(1), state._replace(member=None), np.zeros(2, np.int32))
    assert int(one[1].member) == 0
    # a view with no table keeps member 0
    _, plain = _jax_team("random").reset(jax.random.key(0))
    assert int(plain.member) == 0


# -- the team's table ------------------------------------------------------------------------------------
def _hashed_team(observations):
    """A deterministic team policy of the stacked observations: a hash of each ghost's own
    (exact) values."""
    values = np.round(np.asarray(observations).reshape(*np.shape(observations)[:2], -1) * 1000).astype(np.int64)
    return (values * (2 * np.arange(values.shape[-1]) + 3)).sum(axis=-1) % 4


@needs_jax
@pytest.mark.parametrize("encoding", [dict(obs_type="vector"), dict(obs_type="grid", view_radius=2)],
                         ids=["vector", "grid-r2"])
def test_the_team_table_of_a_jax_team_is_the_planning_tabulation_of_the_same_policy(encoding) -> None:
    from gridghost.planning import ghost_exploitability
    from gridghost.planning.tabulate import tabulate_team

    settings = {**SETTINGS, **encoding}
    game = resolve(**settings).game()
    expected = tabulate_team(_hashed_team, game, centralised=True, **encoding)
    for env in (GridGhostJaxSingle("ghosts", **settings), GridGhostJax(**settings)):
        table = team_table(env, _hashed_team, batch=10_000)
        assert table.shape == (1, *expected.shape) and np.array_equal(table[0], expected)
    # the exact best response to the JAX team is one call
    assert solve_agent(game=game, ghost=table[0]).value(*game_start(game)) - solve_game(game=game).value(
        *game_start(game)) == pytest.approx(ghost_exploitability(expected, game=game), abs=1e-9)


def game_start(game):
    layout = game.layout
    return layout.agent_start, tuple(layout.ghost_starts[:2])


@needs_jax
def test_the_team_table_covers_every_map_of_a_level_set() -> None:
    from gridghost.maps import MapGenerator
    from gridghost.planning.tabulate import tabulate_team

    env = GridGhostJaxSingle("ghosts", ghosts=2, layout=MapGenerator(5, 5, num_levels=3, ghosts=2),
                             obs_type="vector")
    table = team_table(env, _hashed_team)
    assert table.shape == (3, *(5, 5) * 3, 2)
    for m, layout in enumerate(env.layouts):
        game = resolve(ghosts=2, layout=layout, obs_type="vector").game()
        assert np.array_equal(table[m], tabulate_team(_hashed_team, game, centralised=True))


@needs_jax
@pytest.mark.parametrize(("env", "act", "error", "match"), [
    (lambda: GridGhostJaxSingle("agent", **SETTINGS), _hashed_team, TypeError, "whose team observes"),
    (lambda: _jax_team(), lambda obs: _hashed_team(obs).T, TypeError, r"shape \(\d+, 2\)"),
    (lambda: _jax_team(), lambda obs: _hashed_team(obs) + 4, ValueError, "act returned action"),
    (lambda: _jax_team(), "chase", TypeError, "act must be a callable"),
])
def test_the_team_table_refuses_views_and_answers_it_cannot_read(env, act, error, match) -> None:
    with pytest.raises(error, match=match):
        team_table(env(), act)


@needs_jax
def test_the_jax_pages_example_of_tables_and_pools_runs_and_does_what_it_says() -> None:
    from helpers import blocks_run_by

    (page, line, code), = blocks_run_by("tests/test_jax_team_opponents.py")
    assert page.name == "jax.md"
    namespace: dict = {"__name__": "__docs__"}
    exec(compile("\n" * (line - 1) + code, "docs/jax.md", "exec"), namespace)
    members = np.bincount(np.asarray(namespace["states"].member), minlength=8)
    assert members[2:].sum() == 0 and 200 < members[0] < 320
    assert namespace["table"].shape == (1, *(5, 7) * 3, 2) and not namespace["table"].any()
    assert namespace["response"].success_probability(*namespace["response"].start) == pytest.approx(1.0)


class _Shared:
    """A generator for the AEC env's slip whose ``random()`` is the uniform the JAX step draws."""

    uniform = 0.0

    def random(self) -> float:
        return self.uniform


@needs_jax
def test_a_learning_team_against_a_pool_is_the_aec_envs_game_with_that_member_under_shared_uniforms() -> None:
    # the AEC env's agent plays the member the JAX reset drew, its slip the uniform the JAX call drew
    import gridghost

    settings = dict(ghosts=2, layout=MAP, obs_type="vector", slip="longitudinal", slip_probability=0.4)
    tables = agent_tables([_minimax_agent(**settings), _optimal_agent()], [_game(**settings)])[0]
    weights = np.array([0.5, 0.5])
    env = GridGhostJaxSingle("ghosts", opponent=AgentPool(tables, weights), **settings)
    reset, step_env = jax.jit(env.reset), jax.jit(env.step_env)
    names, cells = ["ghost_0", "ghost_1"], _game().num_cells
    rng = np.random.default_rng(7)
    shared = _Shared()
    members, slipped, ended = Counter(), 0, 0

    moves = np.asarray(_game(**settings).moves)

    def agent_moves(aec, member) -> bool:
        """The member's move in the AEC env; whether it slipped."""
        state = aec.unwrapped.game_state
        action = int(tables[member, (state.agent * cells + state.ghosts[0]) * cells + state.ghosts[1]])
        before = state.agent
        aec.step(action)
        return aec.unwrapped.game_state.agent != moves[before, action]

    for episode in range(12):
        key = jax.random.key(episode)
        # a reset's own draws come first (the exploring start's follow)
        slip, member_uniform = np.asarray(jax.random.uniform(key, (env.reset_draws,)))[:2].tolist()
        member = int(draw_members(np.array([member_uniform]), weights)[0])
        members[member] += 1
        aec = gridghost.env(**settings)
        aec.reset(seed=episode)
        aec.unwrapped._np_random = shared
        shared.uniform = slip
        slipped += agent_moves(aec, member)  # the opening move
        observations, state = reset(key)
        assert int(state.member) == member
        for turn in range(25):
            for i, name in enumerate(names):
                np.testing.assert_array_equal(np.asarray(observations[i]), aec.observe(name))
            team = rng.integers(4, size=2).astype(np.int32)
            key = jax.random.key(1000 + 100 * episode + turn)
            shared.uniform = float(jax.random.uniform(key, (env.turn_draws,))[0])
            for action in team.tolist():
                aec.step(action)
            if not (aec.terminations["agent"] or aec.truncations["agent"]):
                slipped += agent_moves(aec, member)
            observations, state, _, done, infos = step_env(key, state, jnp.asarray(team))
            assert (int(state.agent), np.asarray(state.ghosts).tolist()) == (
                aec.unwrapped.game_state.agent, list(aec.unwrapped.game_state.ghosts))
            assert bool(infos["terminated"]) == aec.terminations["ghost_0"]
            if bool(done):
                ended += 1
                break
    assert set(members) == {0, 1} and slipped > 3 and ended > 5, (members, slipped, ended)


# -- exploring starts of a learning team -----------------------------------------------------------------------
def _explored_pairs(game, opening):
    """Each ghost's (agent, ghost) cells after an exploring start, exactly: the agent uniform off the
    goals, each ghost uniform on the other cells, then ``opening(agent, ghost 0, ghost 1)``'s
    ``{action: probability}`` moves the agent, not where it would land on a goal or a ghost."""
    cells, goals, moves = game.num_cells, np.asarray(game.goals), np.asarray(game.moves)
    free = int((~goals).sum())
    pairs = [Counter(), Counter()]
    for agent in np.flatnonzero(~goals).tolist():
        for first in range(cells):
            for second in range(cells):
                if agent in (first, second):
                    continue
                for action, p in opening(agent, first, second).items():
                    landed = int(moves[agent, action])
                    if goals[landed] or landed in (first, second):
                        landed = agent
                    weight = p / (free * (cells - 1) ** 2)
                    pairs[0][landed * cells + first] += weight
                    pairs[1][landed * cells + second] += weight
    return pairs


def _fits(agents, ghosts, cells, expected) -> None:
    for g in range(2):
        seen = Counter((agents * cells + ghosts[:, g]).tolist())
        statistic, dof, p, impossible = goodness_of_fit([(seen, dict(expected[g]))])
        assert not impossible and p > ALPHA, (g, statistic, dof, p)


def test_the_numpy_engine_explores_from_uniform_states_then_plays_the_agents_opening() -> None:
    game = _game()
    batch = _numpy_games("random", games=20000, seed=11)
    batch.explore_starts = 1.0
    batch.reset()
    agents, ghosts = batch.positions
    _fits(agents, ghosts, game.num_cells, _explored_pairs(game, lambda *_: dict.fromkeys(range(4), 0.25)))
    assert (agents != game.initial_state().agent).mean() > 0.9


def test_the_numpy_engine_at_zero_exploring_starts_draws_and_plays_what_it_did_before() -> None:
    actions = np.random.default_rng(5).integers(0, 4, size=(30, 16, 2))
    before = _play_numpy(_numpy_games("random", max_cycles=6), actions)
    zero = _numpy_games("random", max_cycles=6)
    zero.explore_starts = 0.0
    now = _play_numpy(zero, actions)
    for ours, theirs in zip(before, now, strict=True):
        assert all(np.array_equal(a, b) for a, b in zip(ours, theirs, strict=True))
    # with a half, about half the games have their ghosts on the map's starts (an exploring start
    # puts both there with probability 1/34**2)
    half = _numpy_games("random", games=400, max_cycles=6)
    half.explore_starts = 0.5
    half.reset()
    at_start = (half.positions[1] == _game().initial_state().ghosts).all(axis=1)
    assert 150 < at_start.sum() < 250


@pytest.mark.parametrize(("controlled", "value", "error", "match"), [
    ("ghosts", 1.5, ValueError, r"explore_starts must lie in \[0, 1\], got 1.5"),
    ("ghosts", float("nan"), ValueError, "explore_starts must lie in"),
    ("ghosts", True, TypeError, "explore_starts must be a real number"),
    ("ghosts", "0.5", TypeError, "explore_starts must be a real number"),
    ("agent", 0.5, ValueError, r"learning team \(controlled='ghosts'\).*reset\(starts=...\)"),
    (None, 0.5, ValueError, "controlled='ghosts'"),
])
def test_the_numpy_engine_refuses_exploring_starts_it_cannot_play_by_name(controlled, value, error, match) -> None:
    batch = BatchedGame(2, controlled=controlled, opponent="random" if controlled else None, **SETTINGS)
    with pytest.raises(error, match=match):
        batch.explore_starts = value
    assert batch.explore_starts == 0.0


def _grid_uniforms(rng, shape):
    """Uniforms on a 2**-12 grid, offset by half a step: exact in float32 and float64 alike, and
    never on a boundary of an int draw or a slip probability, so both engines read them the same."""
    return (rng.integers(0, 2**12, size=shape) + 0.5) / 2**12


@needs_jax
def test_the_two_engines_place_the_same_exploring_starts_under_shared_uniforms() -> None:
    # slip, a table agent whose opening may end the game from a drawn state, half the games exploring
    settings = dict(slip="longitudinal", slip_probability=0.4)
    env = _jax_team(**settings)
    params = env.default_params._replace(explore_starts=jnp.float32(0.5))
    games, k = 3000, 2
    uniforms = _grid_uniforms(np.random.default_rng(8), (games, env.reset_draws))
    slot = env._reset_slots
    _, states = jax.jit(jax.vmap(env._reset_core, in_axes=(0, None)))(jnp.asarray(uniforms, jnp.float32), params)
    batch = _numpy_games("minimax", games=games, **settings)
    batch.explore_starts = 0.5
    batch.reset()
    rows = np.arange(games)
    own = np.zeros((2, games))
    own[0] = uniforms[:, slot["opening_slip"]]
    explore = uniforms[:, slot["explore"]:slot["explore"] + 2 + k].T
    batch._place(rows, own, None, explore)
    agents, ghosts = batch.positions
    assert np.array_equal(np.asarray(states.agent), agents) and np.array_equal(np.asarray(states.ghosts), ghosts)
    explored = explore[0] < 0.5
    assert ((ghosts == _game(**settings).initial_state().ghosts).all(axis=1) | explored).all()
    assert 1300 < explored.sum() < 1700


@needs_jax
def test_the_jax_team_explores_uniformly_then_the_tables_opening_and_params_switch_it_without_recompiling() -> None:
    game = _game()
    env = _jax_team()
    table, cells = _minimax_agent().reshape(-1), game.num_cells
    expected = _explored_pairs(game, lambda a, g0, g1: {int(table[(a * cells + g0) * cells + g1]): 1.0})
    reset = jax.jit(env.batch_reset, static_argnums=1)
    _, states = reset(jax.random.key(2), 20000, env.default_params._replace(explore_starts=jnp.float32(1.0)))
    _fits(np.asarray(states.agent), np.asarray(states.ghosts), cells, expected)
    _, states = reset(jax.random.key(2), 20000, env.default_params)  # explore_starts 0: no new program
    assert (np.asarray(states.ghosts) == game.initial_state().ghosts).all() and reset._cache_size() == 1
    built = _jax_team(explore_starts=0.25)
    assert float(built.default_params.explore_starts) == 0.25
