"""Two ghosts learn to work together, scored exactly: independent PPO with shared parameters.

Two learning ghosts play the minimax agent (the exact team solver's) on a coordination map, where
one ghost alone, or two that chase on their own, let the agent through, and the exact team
optimum holds it. Each ghost acts on its own observation with one shared network: the ghosts
are the agents of ``gridghost.parallel_env(ghosts=2, controlled="ghosts", opponent=...)`` (the
agent played inside the env), which :class:`gridghost.integrations.sb3.TeamVecEnv` turns,
through SuperSuit, into a Stable-Baselines3 vector env with one entry per ghost of every copy,
the usual parameter-sharing recipe for PettingZoo, with no glue. Every
``--eval-every`` team steps, and at the end, the learned team is tabulated as an exact table of
moves (:func:`gridghost.planning.tabulate_policy`) and the team solver prints, within 100
cycles from the start:

- the learned team's capture probability against the agent it trains against (``--opponent``:
  the minimax agent by default), and that agent's success probability;
- its exploitability: how much an agent that best-responds to this team gains over the team
  game's value (:func:`gridghost.planning.ghost_exploitability`), in the units of
  ``--rewards``, with the success probability of that best response;
- for comparison, the team optimum (the minimax team against the minimax agent) and two
  independent chasers against the agent's best response to them.

    pip install gridghost stable-baselines3 supersuit   # and a torch build of your choice
    python examples/team_ppo.py                          # 200,000 team steps on team_eight
    python examples/team_ppo.py --map team_crossroads --team-steps 50000

``--opponent pool`` trains against a pool of both agents, the minimax agent and the best
response to two chasers, one drawn per episode (:class:`gridghost.training.SelfPlayParallelEnv`),
and scores against the minimax agent.

Every random draw comes from ``--seed``: the networks' weights and PPO's sampling, and every
env copy's game and opponent, each copy from a seed of its own spawned from it. A progress bar
counts the team steps on stderr (``--no-progress`` turns it off); the scores on stdout are the
same either way.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from tqdm import tqdm

import gridghost
from gridghost.config import resolve
from gridghost.planning import evaluate_policies, solve_agent, solve_game, tabulate_policy
from gridghost.training import OpponentPool


def scores(model: Any, spec: gridghost.GameSpec, agent_policy: Any, optimum: Any) -> dict[str, float]:
    """The learned team's exact scores (see the module docstring), from the map's start.

    ``optimum`` is the team game's solution: the exploitability is the best-responding agent's
    value over the game's value (what :func:`gridghost.planning.ghost_exploitability`
    computes, without solving the game and the best response a second time)."""
    table = tabulate_policy(lambda obs: model.predict(obs, deterministic=True)[0], "ghost", batch=True, spec=spec,
                            view="parallel")
    start = optimum.start
    played = evaluate_policies(agent_policy, table, spec=spec)
    exploiter = solve_agent(ghost=table, spec=spec)
    return {
        "capture": played.capture_probability(*start),
        "success": played.success_probability(*start),
        "exploitability": exploiter.value(*start) - optimum.value(*start),
        "best_response_success": exploiter.success_probability(*start),
    }


def main(argv: list[str] | None = None) -> None:
    """Train, scoring the learned team exactly along the way."""
    import torch
    from stable_baselines3 import PPO
    from stable_baselines3.common.callbacks import BaseCallback

    from gridghost.integrations.sb3 import TeamVecEnv

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--map", default="team_eight", help="a shipped map with two ghost starts")
    parser.add_argument("--team-steps", type=int, default=200_000, help="team decisions to train for")
    parser.add_argument("--eval-every", type=int, default=25_000, help="team steps between exact scores")
    parser.add_argument("--envs", type=int, default=8, help="copies of the team env")
    parser.add_argument("--opponent", default="minimax", choices=["minimax", "optimal", "random", "pool"],
                        help="the agent the team trains against (optimal: the best response to two chasers; "
                             "pool: both, one drawn per episode)")
    parser.add_argument("--rewards", default="normalised")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-progress", dest="progress", action="store_false",
                        help="draw no progress bar (it goes to stderr, the scores to stdout)")
    args = parser.parse_args(argv)

    settings = dict(layout=args.map, ghosts=2, obs_type="vector", rewards=args.rewards)
    spec = resolve(**settings)
    ghosts = spec.ghosts
    optimum = solve_game(spec=spec)
    start = optimum.start
    chasers = solve_agent(ghost="chase", spec=spec)
    # the agents as the solver's state tables, which the env plays from the true state
    agents = {"minimax": optimum.agent_policy, "optimal": chasers.policy, "random": "random"}
    pool = OpponentPool()
    for name in ("minimax", "optimal"):
        pool.add(agents[name], "agent", name=name)
    against = {"pool": {"pool": pool}}.get(args.opponent, {"opponent": agents.get(args.opponent)})
    opponent = agents.get(args.opponent, agents["minimax"])  # the agent of the exact scores
    print(f"{args.map}: the team optimum holds the minimax agent to success {optimum.success_probability(*start):.3f} "
          f"(capture {optimum.capture_probability(*start):.3f}); two chasers leave its best response "
          f"{chasers.success_probability(*start):.3f}; team game value {optimum.value(*start):.4f}")

    torch.set_num_threads(1)  # a small network: more threads only contend
    # one slot per ghost of every copy; PPO's seed reaches the networks and, spawned per copy, every
    # copy's game and opponent
    vec = TeamVecEnv(args.envs, **against, **settings)
    model = PPO("MlpPolicy", vec, n_steps=256, batch_size=512, ent_coef=0.01, gamma=0.99, verbose=0, seed=args.seed)

    began = time.perf_counter()
    bar = tqdm(total=args.team_steps, desc="team PPO", unit="team step", disable=not args.progress)

    class Scores(BaseCallback):  # type: ignore[misc]
        """Prints the exact scores every ``--eval-every`` team steps."""

        def __init__(self) -> None:
            super().__init__()
            self.next = args.eval_every

        def _on_step(self) -> bool:
            team_steps = self.num_timesteps // ghosts
            bar.update(min(team_steps, args.team_steps) - bar.n)
            if team_steps >= self.next:
                self.next += args.eval_every
                report(team_steps)
            return True

    def report(team_steps: int) -> None:
        score = scores(model, spec, opponent, optimum)
        print(f"team steps {team_steps:>8,}: capture {score['capture']:.3f}, agent success {score['success']:.3f}; "
              f"exploitability {score['exploitability']:.4f} (best response success "
              f"{score['best_response_success']:.3f}); {time.perf_counter() - began:.0f} s", flush=True)

    model.learn(total_timesteps=args.team_steps * ghosts, callback=Scores())
    bar.close()
    report(model.num_timesteps // ghosts)


if __name__ == "__main__":
    main()
