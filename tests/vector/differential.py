"""The differential check that holds each batched engine to its AEC env (the reference).

``run_differential`` plays random games on the AEC env; at the start of each game, after
every deal the AEC env samples (new rounds), and at random move starts it loads the AEC
env's ``game_state()`` into one slot of the batched engine, then compares move by move: the
mover, the observation bytes, the mask, every seat's rewards and the game end (and the
position it ended in, ``final_state``). The other
slots play their own random games meanwhile, so slots are also checked not to interfere.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from cardgames_env import registry, vector


def _alive_done(env: Any) -> bool:
    """Whether the AEC game has ended for every seat still in it."""
    return all(env.terminations[a] or env.truncations[a] for a in env.agents)


def _check_final(vec: Any, slot: int, env: Any, dealt: bool, where: str) -> None:
    """Check ``vec.final_state(slot)`` against the AEC env's position at the game's end: equal
    unless the last step dealt (the slot deals from its own stream), and every seat's
    observation of it equal unless the game was cut right after a deal or in the middle of a
    move built over sub-steps (a rules ``State`` holds no partial choice; Haggle's terminal
    cap draw changes no observation)."""
    final = vec.final_state(slot)
    check_final_outputs(vec, [slot])
    if not dealt:
        assert final == env.game_state(), f"{where}: final_state {final} != {env.game_state()}"
    encoding = env.encoding
    decision = encoding.to_decision(final)
    if any(env.truncations.values()):
        start = encoding.to_decision(env.game_state())
        at_move_start = all(
            encoding.observe(start, seat).tobytes() == env.observe(agent)["observation"].tobytes()
            for seat, agent in enumerate(env.possible_agents)
        )
        if dealt or not at_move_start:
            return
    for seat, agent in enumerate(env.possible_agents):
        seen = encoding.observe(decision, seat)
        assert seen.tobytes() == env.observe(agent)["observation"].tobytes(), (
            f"{where}: {agent}'s observation of final_state differs"
        )


def check_final_outputs(vec: Any, slots: Any) -> None:
    """Check ``vec.final_observations`` and ``vec.final_points`` of ``slots`` for every seat
    against the AEC encoding's ``observe`` and ``rules.points`` of ``vec.final_state``."""
    encoding = vec.encoding
    for seat in range(vec.num_players):
        seats = np.full(len(slots), seat)
        seen = vec.final_observations(slots, seats)
        points = vec.final_points(slots)
        for k, i in enumerate(slots):
            final = vec.final_state(int(i))
            expected = encoding.observe(encoding.to_decision(final), seat)
            assert seen[k].tobytes() == expected.tobytes(), (
                f"{vec.name} slot {i} seat {seat}: final observation differs at "
                f"{np.flatnonzero(seen[k] != expected).tolist()}"
            )
            assert tuple(points[k]) == tuple(vec.rules.points(final)), f"{vec.name} slot {i}: final points"


def run_differential(
    name: str,
    options: dict[str, Any],
    games: int,
    seed: int,
    num_envs: int = 3,
    reload_chance: float = 0.2,
    rewards_need_the_deal: Callable[[Any], bool] | None = None,
) -> int:
    """Play ``games`` random AEC games against slot ``num_envs // 2``; return decisions compared.

    ``rewards_need_the_deal(state)`` says whether the rewards of a step that made the AEC env
    deal, ending in ``state``, depend on that chance outcome (Haggle's random 13-card cap at
    scoring); such rewards come from a deal of the slot's own and are only checked to sum
    like the AEC env's. Elsewhere rewards are compared exactly.
    """
    env = registry.load(name).raw_env(**options)
    vec = vector.make(name, num_envs=num_envs, seed=seed, **options)
    rng = np.random.default_rng(seed)
    slot = num_envs // 2
    agents = env.possible_agents
    compared = 0
    for game in range(games):
        env.reset(seed=seed * 100_003 + game)
        synced = False
        move_start = True
        while not _alive_done(env):
            agent = env.agent_selection
            if env.terminations[agent] or env.truncations[agent]:
                env.step(None)  # a Red7 elimination's dead step: the engine skips it
                continue
            state = env.game_state()
            if move_start and (not synced or rng.random() < reload_chance):
                vec.load(slot, state)
                synced = True
                assert vec.state(slot) == state, f"{name} {options} game {game}: state(i) after load(i)"
            where = f"{name} {options} game {game} decision {env.num_steps}"
            mover = agents.index(agent)
            assert int(vec.player[slot]) == mover, f"{where}: mover {int(vec.player[slot])} != {mover}"
            aec_obs = env.observe(agent)["observation"]
            assert vec.obs[slot].tobytes() == aec_obs.tobytes(), (
                f"{where}: observation differs at {np.flatnonzero(vec.obs[slot] != aec_obs).tolist()}"
            )
            aec_mask = env.action_mask().astype(bool)
            assert np.array_equal(vec.mask[slot], aec_mask), (
                f"{where}: mask differs at {np.flatnonzero(vec.mask[slot] != aec_mask).tolist()}"
            )
            action = int(rng.choice(np.flatnonzero(aec_mask)))
            actions = np.array([int(rng.choice(np.flatnonzero(row))) for row in vec.mask])
            actions[slot] = action
            deals = env.deals_dealt
            env.step(action)
            _, _, _, rewards, done = vec.step(actions)
            expected = np.array([env.rewards.get(a, 0.0) for a in agents], dtype=np.float32)
            if env.deals_dealt != deals and rewards_need_the_deal is not None and rewards_need_the_deal(
                env.game_state()
            ):
                assert abs(float(rewards[slot].sum()) - float(expected.sum())) < 1e-4, where
            else:
                assert np.array_equal(rewards[slot], expected), f"{where}: {rewards[slot]} != {expected}"
            assert bool(done[slot]) == _alive_done(env), f"{where}: done {bool(done[slot])}"
            assert bool(vec.truncated[slot]) == (bool(done[slot]) and any(env.truncations.values())), where
            if done[slot]:
                _check_final(vec, slot, env, dealt=env.deals_dealt != deals, where=where)
            compared += 1
            move_start = env.game_state() is not state
            if env.deals_dealt != deals:
                synced = False  # the AEC env dealt a new round: the slot dealt its own
    return compared
