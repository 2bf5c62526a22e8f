"""Train teams of ghosts on a Ray cluster: one exploiter loop per map and seed, each in a Ray
worker around the JAX team PPO, every round scored exactly.

Each task is :class:`gridghost.training.ExploiterLoop` over :class:`gridghost.jax.team_ppo.TeamPPO`
(IPPO with shared parameters): the team trains against a pool of agents that holds the minimax
agent and, after every round, the agent's exact best response to the team. The driver hands the
tasks to Ray and prints each one's rounds and the least exploitable team it found, so the same
script runs on a laptop and on many machines:

    pip install "gridghost[jax,ray]"      # on every machine of the cluster
    python examples/ray_teams.py          # starts a local Ray head on this machine's cores
    ray start --head                      # or: a cluster; then, on each other machine,
    ray start --address=HEAD_IP:6379      # join it, and on any machine of it run
    python examples/ray_teams.py --address auto --seeds 0 1 2 3 4 5

``--address`` is ``ray.init``'s: ``auto`` joins the cluster this machine belongs to,
``ray://HOST:10001`` connects a Ray client to a remote head. A task asks Ray for ``--cpus`` cores
and ``--gpus`` GPUs (a fraction shares one: ``--gpus 0.25`` runs four tasks on each GPU); the
JAX trainer runs unchanged on whichever device the worker's jax has (install ``jax[cuda12]`` on GPU
machines). Every random draw of a task comes from its seed, so a task gives the same rounds on
any machine of the same jax build.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any


def train(layout: str, seed: int, rounds: int, updates_per_round: int, num_envs: int,
          num_steps: int) -> dict[str, Any]:
    """One exploiter loop on ``layout`` from ``seed`` (what a Ray worker runs): its rounds and
    the least exploitable team's scores."""
    from gridghost.jax import GridGhostJaxSingle
    from gridghost.jax.ppo import PPOConfig
    from gridghost.jax.team_ppo import TeamPPO
    from gridghost.training import ExploiterLoop

    env = GridGhostJaxSingle("ghosts", ghosts=2, layout=layout, opponent="minimax", rewards="normalised",
                             obs_type="vector", max_cycles=100)
    config = PPOConfig(num_envs=num_envs, num_steps=num_steps, minibatch_size=num_envs * num_steps // 4)
    learner = TeamPPO(env, config, "ippo", seed=seed)
    loop = ExploiterLoop(env, learner, rounds=rounds, updates_per_round=updates_per_round)
    history = loop.run()
    assert loop.best is not None  # a loop that ran has a best round
    import jax

    return {"layout": layout, "seed": seed, "device": jax.devices()[0].platform,
            "rounds": [(scores.team_steps, scores.exploitability, scores.minimax_capture) for scores in history],
            "best_round": loop.best.round, "best_exploitability": loop.best.scores.exploitability,
            "best_response_success": loop.best.scores.best_response_success}


def main(argv: Sequence[str] | None = None) -> list[dict[str, Any]]:
    """Start or join Ray, run a task per map and seed, and print their results."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--address", default=None, help="ray.init's address: none starts a local head, "
                        "'auto' joins this machine's cluster, ray://HOST:10001 a remote one")
    parser.add_argument("--maps", nargs="+", default=["team_eight", "team_crossroads"])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--rounds", type=int, default=6, help="exploiter rounds a task")
    parser.add_argument("--updates-per-round", type=int, default=8, help="PPO updates a round")
    parser.add_argument("--envs", type=int, default=32, help="games in lockstep")
    parser.add_argument("--steps", type=int, default=128, help="steps per game a rollout")
    parser.add_argument("--cpus", type=float, default=1.0, help="cores a task asks Ray for")
    parser.add_argument("--gpus", type=float, default=0.0, help="GPUs a task asks Ray for (0.25: four a GPU)")
    args = parser.parse_args(argv)

    import ray

    ray.init(address=args.address, ignore_reinit_error=True)
    task = ray.remote(num_cpus=args.cpus, num_gpus=args.gpus)(train)
    jobs = [task.remote(layout, seed, args.rounds, args.updates_per_round, args.envs, args.steps)
            for layout in args.maps for seed in args.seeds]
    results = ray.get(jobs)
    for result in results:
        rounds = ", ".join(f"{exploitability:.3f}" for _, exploitability, _ in result["rounds"])
        print(f"{result['layout']} seed {result['seed']} ({result['device']}): exploitability by round {rounds}; "
              f"least exploitable at round {result['best_round']}: {result['best_exploitability']:.4f} (best "
              f"response success {result['best_response_success']:.3f})")
    return results


if __name__ == "__main__":
    main()
