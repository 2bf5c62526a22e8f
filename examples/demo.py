"""Watch a short game: a random agent against the chasing ghost, printed as text.

    python examples/demo.py                # the default game
    python examples/demo.py --seed 8 --slip 0.5
"""

from __future__ import annotations

import argparse

import gridghost
from gridghost.core.policies import ChasePolicy, RandomPolicy
from gridghost.core.rules import ACTION_NAMES, describe_moves


def describe(name: str, before: tuple[int, int], after: tuple[int, int], info: dict) -> str:
    """One line about the half-turn that just happened, from the env's numeric info."""
    where = f"moves to {after}" if after != before else f"stays at {after}"
    if name == "ghost":
        steps = info["distance"]
        return f"The ghost {where}, {steps} step{'s' * (steps != 1)} from the agent."
    intended = info["intended_action"]
    moves = tuple(int(move) for move in info["actual_moves"] if move >= 0)  # -1 pads
    slip = f" but slips ({describe_moves(intended, moves)[1]})" if info["slipped"] else ""
    colour = gridghost.COLOURS[info["color_measurement"]]
    return f"The agent tries {ACTION_NAMES[intended]}{slip} and {where}; its sensor reads {colour}."


def main(argv: list[str] | None = None) -> int:
    """Play and print one game; returns the process exit code."""
    parser = argparse.ArgumentParser(description="A random agent against the chasing ghost, as text.")
    parser.add_argument("--seed", type=int, default=3, help="seeds the env and the random agent")
    parser.add_argument("--slip", type=float, default=0.2, help="the agent's slip probability")
    parser.add_argument("--max-cycles", type=int, default=25, help="agent+ghost moves before time runs out")
    args = parser.parse_args(argv)

    env = gridghost.env(render_mode="ansi", slip_probability=args.slip, max_cycles=args.max_cycles)
    policies = {"agent": RandomPolicy(seed=args.seed), "ghost": ChasePolicy()}
    position = {"agent": lambda: env.agent_pos, "ghost": lambda: env.ghost_pos}
    env.reset(seed=args.seed)
    print(env.render())
    score = 0.0
    for name in env.agent_iter():
        observation, reward, termination, truncation, _ = env.last()
        if name == "agent":
            score += reward
        if termination or truncation:
            env.step(None)
            continue
        before = position[name]()
        env.step(policies[name](observation))
        print()
        print(describe(name, before, position[name](), env.infos[name]))
        print(env.render())

    state = env.game_state
    ending = {gridghost.Outcome.GOAL: "reached a goal", gridghost.Outcome.CAUGHT: "was caught"}
    print()
    print(f"The agent {ending.get(state.outcome, 'ran out of time')} after {env.cycles} cycles; score {score:+.0f}.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
