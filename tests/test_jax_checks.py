"""The JAX engine refuses what it cannot play, as the NumPy engine does.

Every public call of :mod:`gridghost.jax` checks its state, actions and params before play:
shapes and dtypes always (they are static under ``jit`` and ``vmap`` too), values where they are
concrete. Before these checks, action 4 teleported the ghost, action 100 left both pieces on one
cell, ``True`` played as 1, a ``levels`` entry naming a missing map played the last map, another
view's params were played with this view's layout, and the one-game ``step`` under ``jit`` took
1,000 games' state and gave them all one draw. Valid inputs of every kind still play.

Marked ``jax``: needs the jax extra.
"""

from __future__ import annotations

import numpy as np
import pytest

try:
    import jax
    import jax.numpy as jnp

    from gridghost.core.rules import Action
    from gridghost.jax import EnvState, GridGhostJax, GridGhostJaxSingle, ppo
    from gridghost.maps import MapGenerator
except ImportError:  # the light run deselects these tests; collecting must not fail
    jax = None

pytestmark = pytest.mark.jax


@pytest.fixture(autouse=True, scope="module")
def _needs_jax() -> None:
    assert jax is not None, 'needs the jax extra: pip install "gridghost[jax]"'


@pytest.fixture(scope="module")
def single():
    """One side, the classic map (one level), and one game's first state."""
    env = GridGhostJaxSingle(opponent="chase", max_episode_steps=20)
    return env, env.reset(jax.random.key(0))[1]


@pytest.fixture(scope="module")
def levels():
    """One side on three generated 5x5 levels, and a batch of 8 games."""
    env = GridGhostJaxSingle(opponent="random", layout=MapGenerator(5, 5, num_levels=3), max_episode_steps=20)
    return env, env.batch_reset(jax.random.key(0), 8)[1]


@pytest.fixture(scope="module")
def both():
    """Both sides, the classic map, and one game's first state (the agent to move)."""
    env = GridGhostJax(max_cycles=20)
    return env, env.reset(jax.random.key(0))[1]


KEY = None if jax is None else jax.random.key(1)


# -- actions --------------------------------------------------------------------------------------------
BAD_ACTIONS = [
    (4, ValueError, r"action must lie in 0\.\.3, got 4"),
    (-1, ValueError, r"action must lie in 0\.\.3, got -1"),
    (100, ValueError, r"action must lie in 0\.\.3, got 100"),
    (True, TypeError, r"action must be an int in 0\.\.3 \(0=left, 1=down, 2=right, 3=up\), got dtype bool"),
    (np.bool_(False), TypeError, "got dtype bool"),
    (2.0, TypeError, "got dtype float"),
    (None, TypeError, "got dtype object"),
    (np.array([1, 2]), ValueError, r"action must have shape \(\), one action for the game, got shape \(2,\)"),
    (np.array([[1]]), ValueError, r"got shape \(1, 1\)"),
]


@pytest.mark.parametrize(("action", "error", "match"), BAD_ACTIONS, ids=[repr(a) for a, *_ in BAD_ACTIONS])
def test_one_sides_steps_refuse_an_action_that_is_not_one_int_in_0_to_3(single, action, error, match) -> None:
    env, state = single
    for step in (env.step, env.step_env):
        with pytest.raises(error, match=match):
            step(KEY, state, action)
    if action is not None:  # the same refusal for a JAX array of that value
        with pytest.raises(error, match=match):
            env.step(KEY, state, jnp.asarray(action))


@pytest.mark.parametrize(("action", "error", "match"), BAD_ACTIONS[:4], ids=[repr(a) for a, *_ in BAD_ACTIONS[:4]])
def test_both_sides_steps_refuse_a_bad_action_of_either_side(both, action, error, match) -> None:
    env, state = both
    for side in ("agent", "ghost"):  # the side not to move is ignored in play, but checked
        actions = {"agent": 0, "ghost": 0, side: action}
        for step in (env.step, env.step_env):
            with pytest.raises(error, match=match.replace("action must", rf"actions\['{side}'\] must")):
                step(KEY, state, actions)
    with pytest.raises(error, match=match):
        env.step_agent(KEY, state, action)


def test_both_sides_steps_take_a_dict_of_both_sides_actions(both) -> None:
    env, state = both
    with pytest.raises(TypeError, match=r"actions must be a dict with both sides' actions.*got int"):
        env.step(KEY, state, 1)
    with pytest.raises(ValueError, match=r"actions must have the keys \['agent', 'ghost'\].*got \['agent'\]"):
        env.step(KEY, state, {"agent": 1})
    with pytest.raises(ValueError, match=r"got \['agent', 'ghost', 'referee'\]"):
        env.step(KEY, state, {"agent": 1, "ghost": 0, "referee": 2})


def test_batch_steps_refuse_actions_of_another_shape_dtype_or_range(levels, both) -> None:
    env, states = levels
    with pytest.raises(ValueError, match=r"actions must have shape \(8,\), one action per game, got shape \(8, 1\)"):
        env.batch_step(KEY, states, jnp.zeros((8, 1), dtype=jnp.int32))
    with pytest.raises(ValueError, match=r"got shape \(\)"):
        env.batch_step(KEY, states, 1)
    with pytest.raises(TypeError, match=r"actions must be an int array of actions in 0\.\.3 .* got dtype bool"):
        env.batch_step_env(KEY, states, jnp.ones(8, dtype=bool))
    with pytest.raises(ValueError, match=r"actions must lie in 0\.\.3, got values -1\.\.4"):
        env.batch_step(KEY, states, np.array([0, 1, 2, 3, 4, -1, 0, 0]))
    two, state = both
    many = jax.tree_util.tree_map(lambda leaf: jnp.broadcast_to(leaf, (8,)), state)
    with pytest.raises(ValueError, match=r"actions\['ghost'\] must have shape \(8,\)"):
        two.batch_step(KEY, many, {"agent": jnp.zeros(8, dtype=jnp.int32), "ghost": jnp.zeros(4, dtype=jnp.int32)})
    with pytest.raises(ValueError, match=r"actions must lie in 0\.\.3, got values 0\.\.7"):
        two.batch_step_agent(KEY, many, jnp.arange(8))


def test_every_kind_of_valid_action_plays_and_plays_alike(single) -> None:
    env, state = single
    expected = env.step(KEY, state, 2)
    for action in (np.int64(2), np.uint8(2), np.array(2), jnp.int32(2), jnp.asarray(2, dtype=jnp.uint32), Action(2)):
        got = env.step(KEY, state, action)
        for a, b in zip(jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(expected), strict=True):
            np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


# -- under jit: shapes and dtypes are static ------------------------------------------------------------
def test_under_jit_the_one_game_step_refuses_a_batch_of_games(levels) -> None:
    env, states = levels
    for step in (env.step, env.step_env):
        with pytest.raises(ValueError, match=r"state must be one game's EnvState \(each field a scalar\), got "
                                             r"state\.state of shape \(8,\): step a batch with the batch_ functions or "
                                             r"jax\.vmap"):
            jax.jit(step)(KEY, states, 1)
    # vmapped, each game's state is a scalar again: it plays
    out = jax.jit(jax.vmap(env.step))(jax.random.split(KEY, 8), states, jnp.zeros(8, dtype=jnp.int32))
    assert out[1].state.shape == (8,)


def test_under_jit_batch_steps_refuse_actions_of_shape_n_by_1_and_bools(levels, both) -> None:
    env, states = levels
    with pytest.raises(ValueError, match=r"actions must have shape \(8,\), one action per game, got shape \(8, 1\)"):
        jax.jit(env.batch_step)(KEY, states, jnp.zeros((8, 1), dtype=jnp.int32))
    with pytest.raises(TypeError, match="got dtype bool"):
        jax.jit(env.batch_step)(KEY, states, jnp.zeros(8, dtype=bool))
    with pytest.raises(TypeError, match=r"action must be an int in 0\.\.3.*got dtype bool"):
        jax.jit(jax.vmap(env.step))(jax.random.split(KEY, 8), states, jnp.zeros(8, dtype=bool))
    two, state = both
    with pytest.raises(TypeError, match=r"actions\['agent'\] must be an int.*got dtype float32"):
        jax.jit(two.step)(KEY, state, {"agent": jnp.float32(1.0), "ghost": jnp.int32(0)})
    # the values cannot be checked under jit (documented): an action in range plays
    assert jax.jit(env.batch_step)(KEY, states, jnp.zeros(8, dtype=jnp.int32))[1].state.shape == (8,)


def test_a_batch_step_refuses_one_games_state_and_fields_of_different_lengths(levels, single) -> None:
    env, states = levels
    with pytest.raises(ValueError, match=r"states must be a batch of games, each field of shape \(N,\), got "
                                         r"states\.state of shape \(\)"):
        env.batch_step(KEY, jax.tree_util.tree_map(lambda leaf: leaf[0], states), jnp.zeros(8, dtype=jnp.int32))
    short = states._replace(steps=states.steps[:4])
    with pytest.raises(ValueError, match=r"states\.steps has shape \(4,\) and states\.state \(8,\)"):
        jax.jit(env.batch_step)(KEY, short, jnp.zeros(8, dtype=jnp.int32))


# -- states ---------------------------------------------------------------------------------------------
def test_a_state_that_is_not_one_of_this_views_is_refused(single, levels) -> None:
    env, state = single
    joint = env.num_maps * env.layout.states
    cases = [
        ((int(state.state), 0, 0, False), TypeError, r"state must be a gridghost\.jax\.EnvState .* got tuple"),
        (state._replace(state=jnp.int32(joint)), ValueError,
         rf"state\.state must be a joint state of this view in 0\.\.{joint - 1} \(1 map of 20 cells\), got {joint}"),
        (state._replace(state=jnp.int32(-1)), ValueError, r"state\.state must be a joint state.*got -1"),
        (state._replace(steps=jnp.int32(-3)), ValueError, r"state\.steps must be >= 0, got -3"),
        (state._replace(to_move=jnp.int32(1)), ValueError,
         r"state\.to_move must be 0 \(one side: a step is a whole turn\), got 1"),
        (state._replace(ended=jnp.bool_(True)), ValueError, r"state\.ended marks a game that ended in the agent's"),
        (state._replace(state=jnp.float32(3.0)), TypeError, r"state\.state must be int, got dtype float32"),
        (state._replace(ended=jnp.int32(0)), TypeError, r"state\.ended must be bool, got dtype int32"),
    ]
    for bad, error, match in cases:
        for call in (lambda s: env.step(KEY, s, 0), lambda s: env.step_env(KEY, s, 0), env.action_masks,
                     lambda s: env.observe(s, jnp.bool_(False))):
            with pytest.raises(error, match=match):
                call(bad)
    # a state of another view's larger maps: refused here, where it would index past the tables
    _, states = levels
    with pytest.raises(ValueError, match=r"state\.state must be a joint state of this view in 0\.\.399"):
        env.step(KEY, jax.tree_util.tree_map(lambda leaf: leaf[0], states)._replace(state=jnp.int32(1000)), 0)


def test_the_half_turns_refuse_a_game_whose_other_side_is_to_move(both) -> None:
    env, state = both
    with pytest.raises(ValueError, match=r"it is the agent's half-turn; call step_agent \(or step, which follows "
                                         r"state\.to_move\)"):
        env.step_ghost(KEY, state, 0)
    after = env.step_agent(KEY, state, 2)[1]
    assert int(after.to_move) == 1
    with pytest.raises(ValueError, match="it is the ghost's half-turn; call step_ghost"):
        env.step_agent(KEY, after, 0)
    env.step_ghost(KEY, after, 0)  # in turn: plays
    many = jax.tree_util.tree_map(lambda a, b: jnp.stack([a, b, a]), state, after)
    with pytest.raises(ValueError, match=r"it is the ghost's half-turn in games \[1\]; call step_ghost"):
        env.batch_step_agent(KEY, many, jnp.zeros(3, dtype=jnp.int32))
    with pytest.raises(ValueError, match=r"it is the agent's half-turn in games \[0, 2\]; call step_agent"):
        env.batch_step_ghost(KEY, many, jnp.zeros(3, dtype=jnp.int32))
    with pytest.raises(ValueError, match=r"state\.to_move must be 0 or 1, got 2"):
        env.step(KEY, state._replace(to_move=jnp.int32(2)), {"agent": 0, "ghost": 0})
    with pytest.raises(ValueError, match=r"state\.ended marks a game that ended in the agent's half-turn"):
        env.step(KEY, state._replace(ended=jnp.bool_(True)), {"agent": 0, "ghost": 0})


def test_the_observation_and_mask_functions_take_one_games_state(both, levels) -> None:
    env, state = both
    many = jax.tree_util.tree_map(lambda leaf: jnp.broadcast_to(leaf, (4,)), state)
    for call in (env.observations, env.get_avail_actions):
        with pytest.raises(ValueError, match=r"state must be one game's EnvState \(each field a scalar\), got "
                                             r"state\.state of shape \(4,\)"):
            call(many)
        assert set(jax.vmap(call)(many)) == {"agent", "ghost"}
    single, states = levels
    with pytest.raises(ValueError, match=r"got state\.state of shape \(8,\)"):
        single.action_masks(states)
    assert jax.vmap(single.action_masks)(states).shape == (8, 4)
    one = jax.tree_util.tree_map(lambda leaf: leaf[0], states)
    with pytest.raises(TypeError, match=r"terminated must be a bool scalar, got shape \(\) and dtype int"):
        single.observe(one, 0)
    with pytest.raises(TypeError, match=r"terminated must be a bool scalar, got shape \(8,\)"):
        single.observe(one, jnp.zeros(8, dtype=bool))


# -- params ---------------------------------------------------------------------------------------------
def test_params_levels_must_name_this_views_maps(single, levels) -> None:
    env, _ = single
    params = env.default_params
    with pytest.raises(ValueError, match=r"params\.levels must be a non-empty int array of map indices in 0\.\.0 "
                                         r"\(this view stacks 1 map\), got \[1\]"):
        env.reset(KEY, params._replace(levels=jnp.array([1])))
    many, states = levels
    for bad, error, match in [
        (jnp.array([0, 3]), ValueError, r"in 0\.\.2 \(this view stacks 3 maps\), got \[0, 3\]"),
        (jnp.array([-1]), ValueError, r"got \[-1\]"),
        (jnp.zeros(0, dtype=jnp.int32), ValueError, r"got shape \(0,\)"),
        (jnp.int32(1), ValueError, r"got shape \(\)"),
        (jnp.array([0.0, 1.0]), TypeError, "got dtype float32"),
        (jnp.array([True]), TypeError, "got dtype bool"),
    ]:
        bad_params = many.default_params._replace(levels=bad)
        for call in (lambda p: many.reset(KEY, p), lambda p: many.batch_reset(KEY, 8, p),
                     lambda p: many.batch_step(KEY, states, jnp.zeros(8, dtype=jnp.int32), p)):
            with pytest.raises(error, match=match):
                call(bad_params)
    # the shape is checked under jit too
    with pytest.raises(ValueError, match=r"params\.levels must be .* got shape \(0,\)"):
        jax.jit(many.reset)(KEY, many.default_params._replace(levels=jnp.zeros(0, dtype=jnp.int32)))
    _, first = many.reset(KEY, many.default_params._replace(levels=jnp.array([2])))
    assert int(first.state) // many.layout.states == 2


def test_a_trusted_table_moved_to_another_field_is_checked_there(single) -> None:
    # start and start_counts are both int32[1]: the view's own arrays, swapped, are other values
    env, state = single
    params = env.default_params
    swapped = params._replace(start=params.start_counts, start_counts=params.start)
    with pytest.raises(ValueError, match=r"params\.start holds other values than this view's table"):
        env.step(KEY, state, 0, swapped)


@pytest.mark.parametrize(("share", "error", "match"), [
    (2.0, ValueError, r"params\.explore_starts must be a probability in \[0, 1\] \(a float scalar\), got 2\.0"),
    (-1, ValueError, r"got -1\.0"),
    (float("nan"), ValueError, "got nan"),
    (lambda: jnp.float32(1.5), ValueError, r"got 1\.5"),  # JAX values are made in the test: collecting needs no jax
    (True, TypeError, "got dtype bool"),
    (lambda: jnp.full(3, 0.5), ValueError, r"got shape \(3,\)"),
], ids=["2.0", "-1", "nan", "float32-1.5", "True", "shape-3"])
def test_params_explore_starts_must_be_a_probability(single, share, error, match) -> None:
    env, state = single
    params = env.default_params._replace(explore_starts=share() if callable(share) else share)
    with pytest.raises(error, match=match):
        env.reset(KEY, params)
    with pytest.raises(error, match=match):
        env.step(KEY, state, 0, params)


def test_a_learning_ghosts_params_refuse_exploring_starts() -> None:
    env = GridGhostJaxSingle("ghost")
    with pytest.raises(ValueError, match=r"params\.explore_starts places games with the agent to move"):
        env.reset(KEY, env.default_params._replace(explore_starts=0.5))
    env.reset(KEY, env.default_params._replace(explore_starts=0.0))  # none: plays


def test_params_of_another_view_are_refused(single, levels, both) -> None:
    env, state = single
    other, _ = levels
    # another map size: refused by shape, outside jit and under it
    match = (r"params\.turns\['next'\] has shape \(\d+,\) and dtype int32, this view's table \(\d+,\) and int32: "
             r"params of another view")
    with pytest.raises(ValueError, match=match):
        env.step(KEY, state, 0, other.default_params)
    with pytest.raises(ValueError, match=match):
        jax.jit(env.step)(KEY, state, 0, other.default_params)
    with pytest.raises(ValueError, match=match):
        env.reset(KEY, other.default_params)
    # both sides' params: other tables altogether
    two, _ = both
    with pytest.raises(ValueError, match="params hold other tables than this view's"):
        env.reset(KEY, two.default_params)
    with pytest.raises(TypeError, match=r"params must be a gridghost\.jax\.EnvParams .* got dict"):
        env.reset(KEY, {"levels": [0]})
    # the same shapes, other rewards: refused where the values are concrete
    normalised = GridGhostJaxSingle(opponent="chase", max_episode_steps=20, rewards="normalised")
    with pytest.raises(ValueError, match=r"params\.turns\['reward'\] holds other values than this view's table"):
        env.step(KEY, state, 0, normalised.default_params)
    # an equal copy (another view built alike) plays, and so does a device copy of this view's
    twin = GridGhostJaxSingle(opponent="chase", max_episode_steps=20)
    expected = env.step(KEY, state, 0)
    for params in (twin.default_params, jax.device_put(env.default_params)):
        got = env.step(KEY, state, 0, params)
        for a, b in zip(jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(expected), strict=True):
            np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


# -- the trainers ---------------------------------------------------------------------------------------
def test_the_trainers_refuse_planes_of_a_channels_last_grid_as_wide_as_its_channels() -> None:
    # a 4x15 map in "hwc": shape (4, 15, 15), which looks channels first; planes would pick rows
    env = GridGhostJaxSingle(obs_type="grid", grid_layout="hwc", layout=MapGenerator(4, 15, num_levels=1))
    assert env.observation_space().shape == (4, 15, 15)
    config = ppo.PPOConfig(planes=(0, 1), num_envs=4, num_steps=8, minibatch_size=32)
    with pytest.raises(ValueError, match=r"planes selects channels of a channels-first grid .* \(channels last\)"):
        ppo.make_train(env, config)
    networks = ppo.init_networks(KEY, 2 * 15 * 15, config)
    with pytest.raises(ValueError, match=r"\(channels last\)"):
        ppo.policy_table(env, networks, "agent", config)
    with pytest.raises(ValueError, match=r"\(channels last\)"):
        ppo.make_selfplay(GridGhostJax(obs_type="grid", grid_layout="hwc", layout=MapGenerator(4, 15, num_levels=1)),
                          config)


def test_the_trainers_refuse_params_configs_and_planes_they_cannot_use(single, levels) -> None:
    env, _ = single
    other, _ = levels
    config = ppo.PPOConfig(num_envs=4, num_steps=8, minibatch_size=32)
    with pytest.raises(ValueError, match=r"params\.turns\['next'\] has shape"):
        ppo.make_train(env, config, other.default_params)
    with pytest.raises(ValueError, match=r"params\.levels must be"):
        ppo.make_train(env, config, env.default_params._replace(levels=jnp.array([4])))
    with pytest.raises(ValueError, match=r"params\.explore_starts must be"):
        ppo.make_selfplay(GridGhostJax(), config, GridGhostJax().default_params._replace(explore_starts=1.5))
    with pytest.raises(TypeError, match=r"make_train takes a gridghost\.jax\.ppo\.PPOConfig, got dict"):
        ppo.make_train(env, {"num_envs": 4})
    networks = ppo.init_networks(KEY, 26, config)
    with pytest.raises(ValueError, match=r"params\.turns\['next'\] has shape"):
        ppo.policy_table(env, networks, "agent", config, params=other.default_params)
    with pytest.raises(TypeError, match=r"policy_table takes a gridghost\.jax\.GridGhostJax or "
                                        r"gridghost\.jax\.GridGhostJaxSingle, got str"):
        ppo.policy_table("env", networks, "agent", config)
    grid = GridGhostJaxSingle(obs_type="grid")
    with pytest.raises(ValueError, match="planes must name at least one channel"):
        ppo.make_train(grid, ppo.PPOConfig(planes=()))


def test_the_trainers_take_planes_of_a_channels_first_grid_of_a_map_that_is_not_square() -> None:
    # the classic 4x5 map's full grid, (15, 4, 5): channels first, though its last two axes differ
    env = GridGhostJaxSingle(obs_type="grid")
    assert env.observation_space().shape == (15, 4, 5)
    config = ppo.PPOConfig(planes=(0, 1, 2), num_envs=4, num_steps=8, minibatch_size=32)
    init, _ = ppo.make_train(env, config)
    assert init(KEY).learner.networks["pi"][0]["w"].shape[0] == 3 * 4 * 5


@pytest.mark.parametrize(("settings", "error", "match"), [
    ({"hidden": (True, 64)}, ValueError, "hidden must be a non-empty tuple of ints >= 1"),
    ({"gamma": True}, TypeError, r"gamma must be a real number in \[0, 1\], got True"),
    ({"learning_rate": "3e-4"}, TypeError, "learning_rate must be a finite number > 0, got '3e-4'"),
    ({"ent_coef": None}, TypeError, "ent_coef must be a finite number >= 0, got None"),
    ({"learning_rate": float("inf")}, ValueError, "learning_rate must be a finite number > 0, got inf"),
    ({"vf_coef": float("nan")}, ValueError, "vf_coef must be a finite number >= 0, got nan"),
], ids=["hidden-bool", "gamma-bool", "learning_rate-str", "ent_coef-None", "learning_rate-inf", "vf_coef-nan"])
def test_ppo_settings_of_the_wrong_kind_are_refused(settings, error, match) -> None:
    with pytest.raises(error, match=match):
        ppo.PPOConfig(**settings)


def test_checks_leave_the_jitted_step_as_it_was(levels) -> None:
    # the checks run while tracing: the compiled step holds no more operations with them than
    # the step of the same view's unchecked core
    env, states = levels
    actions = jnp.zeros(8, dtype=jnp.int32)
    checked = jax.jit(env.batch_step).lower(KEY, states, actions, env.default_params).as_text()
    core = env.turn_draws + env.reset_draws

    def unchecked(key, states, actions, params):
        from gridghost.jax.draws import batch_uniforms

        uniforms = batch_uniforms(key, (states.state.shape[0], core))
        return jax.vmap(env._step_core, in_axes=(0, 0, 0, None))(uniforms, states, actions, params)

    plain = jax.jit(unchecked).lower(KEY, states, actions, env.default_params).as_text()
    assert checked.count("\n") == plain.count("\n")
    assert isinstance(states, EnvState)
