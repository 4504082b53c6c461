"""SingleAgentEnv: env checkers, learner-perspective rewards, eliminations, masks under VecEnvs."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from cardgames_env.agents.pool import OpponentPool
from cardgames_env.core.game import IllegalMoveError
from cardgames_env.envs.gongzhu import rules as gongzhu_rules
from cardgames_env.envs.gongzhu.cards import parse_card
from cardgames_env.registry import ALL_ENVS, load
from cardgames_env.wrappers.single_agent import SingleAgentEnv

from .toy_game import PASS, STRIKE, Config, ToyEnv, passer, striker


def _quiet_check(check, env, **kw):
    with warnings.catch_warnings():
        # Observation bounds are unknown in general: the checkers warn about +-inf Box bounds.
        warnings.filterwarnings("ignore", message=".*infinity.*")
        warnings.filterwarnings("ignore", message=".*Box.*")
        check(env, **kw)


@pytest.mark.parametrize("name", ALL_ENVS)
@pytest.mark.parametrize("opponents", ["random", "heuristic"])
def test_gymnasium_env_checker_passes(name, opponents):
    from gymnasium.utils.env_checker import check_env

    _quiet_check(check_env, SingleAgentEnv(name, opponents=opponents), skip_render_check=True)


@pytest.mark.parametrize("name", ALL_ENVS)
def test_sb3_env_checker_passes(name):
    from stable_baselines3.common.env_checker import check_env

    _quiet_check(check_env, SingleAgentEnv(name, opponents="random"))


VARIANTS = [
    pytest.param(name, options, id=f"{name}[{','.join(f'{k}={v}' for k, v in options.items()) or 'default'}]")
    for name in ALL_ENVS
    for options in load(name).TEST_VARIANTS
]


@pytest.mark.parametrize(("name", "options"), VARIANTS)
def test_learner_rewards_add_up_to_its_final_return_in_every_seat(name, options):
    """Summed step rewards = the rules' final return of the learner's seat, for every seat.

    A wrapper that dropped rewards paid on opponents' turns (terminal rewards usually are),
    lost them to dead steps after an elimination, or mixed seats would fail this.
    """
    env = SingleAgentEnv(name, options, opponents="random", seed=3)
    seats_seen = set()
    nonzero_finals = 0
    rng = np.random.default_rng(0)
    for _ in range(12):
        obs, info = env.reset()
        seat = info["learner_seat"]
        seats_seen.add(seat)
        total, done = 0.0, False
        while not done:
            mask = env.action_masks()
            assert mask.dtype == bool and mask.any()
            obs, reward, done, truncated, info = env.step(int(rng.choice(np.flatnonzero(mask))))
            assert not truncated
            total += reward
        final = env.raw.rules.returns(env.raw.game_state())[seat]
        assert total == pytest.approx(final)
        assert info["episode_return"] == pytest.approx(final)
        nonzero_finals += final != 0
    assert len(seats_seen) > 1  # the seat is drawn per episode
    assert nonzero_finals > 0


def _last_trick_state(leader: int) -> gongzhu_rules.State:
    """Gong Zhu, last trick of the hand: the leader holds KS, then AS, QS (the pig), AH.

    Every other card was played earlier and no point card was captured, so the trick decides
    the whole hand's score: the AS wins the spade trick and takes the pig (-100) and the AH
    (-50) = -150 points = reward -1.5 (docs/rules/gongzhu.md, "Scoring a hand"), and nobody else scores.
    """
    n = 4
    last = [parse_card(c) for c in ("KS", "AS", "QS", "AH")]
    hands = [0] * n
    for i, card in enumerate(last):
        hands[(leader + i) % n] = 1 << card
    others = [c for c in range(52) if c not in last]
    played = tuple(sum(1 << c for c in others[12 * s: 12 * s + 12]) for s in range(n))
    config = gongzhu_rules.Config()
    return gongzhu_rules.State(config=config, hands=tuple(hands), leader=leader, played=played)


def test_a_loss_on_an_opponents_turn_reaches_the_learner(monkeypatch):
    """The learner (seat 1) must play AS; the opponents after it drop the pig and the AH on it.

    The hand ends on seat 3's move: the learner's own step paid nothing, the -1.5 arrives
    during the opponents' turns and must still be the learner's reward.
    """
    monkeypatch.setattr(gongzhu_rules, "new_game", lambda config, deal: _last_trick_state(0))
    env = SingleAgentEnv("gongzhu_v0", opponents="random", learner_seat=1, seed=0)
    obs, info = env.reset()
    assert np.flatnonzero(env.action_masks()).tolist() == [parse_card("AS")]
    obs, reward, terminated, truncated, info = env.step(parse_card("AS"))
    assert terminated and not truncated
    assert reward == pytest.approx(-1.5)
    assert info["points"] == -150


def test_an_opponents_loss_is_not_the_learners(monkeypatch):
    """Same trick with the learner in seat 3 (it plays the AH last): seat 1 takes the pig and
    the heart, so the learner's reward is 0, not the -1.5 of the seat that lost."""
    monkeypatch.setattr(gongzhu_rules, "new_game", lambda config, deal: _last_trick_state(0))
    env = SingleAgentEnv("gongzhu_v0", opponents="random", learner_seat=3, seed=0)
    env.reset()
    obs, reward, terminated, _, info = env.step(parse_card("AH"))
    assert terminated and reward == 0.0 and info["points"] == 0
    assert env.raw.rules.returns(env.raw.game_state())[1] == pytest.approx(-1.5)


def test_learner_eliminated_on_an_opponents_turn_ends_its_episode_with_the_penalty():
    """Toy game, 3 seats, learner in seat 0, a striker in seat 1 and a passer in seat 2.

    Step 1: learner passes; seat 1 strikes seat 2 (seat 2's dead step is played inside);
    learner to move again, reward 0. Step 2: learner passes; seat 1 strikes seat 0: the
    learner is eliminated on the opponent's turn: reward -1, episode over.
    """
    env = SingleAgentEnv(ToyEnv(num_players=3), opponents=[striker(), passer()], learner_seat=0, seed=0)
    env.reset()
    _, r1, done1, _, _ = env.step(PASS)
    assert (r1, done1) == (0.0, False)
    assert env.raw.agents == ["player_0", "player_1"]  # seat 2 took its dead step
    _, r2, done2, _, info = env.step(PASS)
    assert (r2, done2) == (-1.0, True)
    assert info["points"] == 0


def test_learner_eliminated_while_the_game_goes_on():
    """4 seats: the striker in seat 3 eliminates the learner (seat 0) at the end of the first
    round; the others are still playing, but the learner's episode ends with -1."""
    env = SingleAgentEnv(ToyEnv(num_players=4), opponents=[passer(), passer(), striker()], learner_seat=0)
    env.reset(seed=1)
    _, reward, done, _, _ = env.step(PASS)
    assert (reward, done) == (-1.0, True)
    assert not env.raw.rules.is_terminal(env.raw.game_state())
    with pytest.raises(RuntimeError, match="reset"):
        env.step(PASS)
    env.reset()  # a fresh game starts
    assert env.action_masks().all()


def test_learner_wins_after_eliminating_both_opponents():
    """Learner strikes seat 1 (dead step inside), seat 2 passes, learner strikes seat 2: +1."""
    env = SingleAgentEnv(ToyEnv(num_players=3), opponents=[passer(), passer()], learner_seat=0)
    env.reset(seed=0)
    _, r1, d1, _, _ = env.step(STRIKE)
    _, r2, d2, _, info = env.step(STRIKE)
    assert (r1, d1, r2, d2) == (0.0, False, 1.0, True)
    assert info["episode_return"] == 1.0


def test_illegal_learner_action_ends_the_episode_or_raises():
    env = SingleAgentEnv("gongzhu_v0", opponents="random", seed=0)
    env.reset()
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    _, reward, done, _, info = env.step(illegal)
    assert (reward, done, info["illegal_action"]) == (-1.0, True, True)
    strict = SingleAgentEnv("gongzhu_v0", opponents="random", seed=0, illegal_action="raise")
    strict.reset()
    with pytest.raises(IllegalMoveError):
        strict.step(illegal)


def test_same_seed_same_episode():
    def run(seed):
        env = SingleAgentEnv(ALL_ENVS[0], opponents="heuristic")
        obs, info = env.reset(seed=seed)
        trace = [obs.tobytes(), info["learner_seat"]]
        done = False
        while not done:
            action = int(np.flatnonzero(env.action_masks())[0])
            obs, reward, done, _, _ = env.step(action)
            trace += [obs.tobytes(), reward]
        return trace

    assert run(5) == run(5)
    assert run(5) != run(6)


def test_bad_arguments_raise_value_errors():
    with pytest.raises(ValueError, match="unknown env"):
        SingleAgentEnv("nope_v0")
    with pytest.raises(ValueError, match="learner_seat"):
        SingleAgentEnv(ALL_ENVS[0], learner_seat=9)
    with pytest.raises(ValueError, match="unknown agent"):
        SingleAgentEnv(ALL_ENVS[0], opponents="genius")
    with pytest.raises(ValueError, match="opponent seats"):
        SingleAgentEnv(ToyEnv(num_players=3), opponents=[passer()])
    with pytest.raises(ValueError, match="fixed opponents"):
        SingleAgentEnv(ALL_ENVS[0]).add_opponent("x.zip")


@pytest.mark.parametrize("name", ALL_ENVS)
def test_masks_reach_maskable_ppo_through_a_dummy_vec_env(name):
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported
    from stable_baselines3.common.vec_env import DummyVecEnv

    venv = DummyVecEnv([lambda s=s: SingleAgentEnv(name, seed=s) for s in range(2)])
    venv.seed(0)
    venv.reset()
    assert is_masking_supported(venv)
    masks = get_action_masks(venv)
    n_actions = load(name).raw_env().encoding.num_actions
    assert masks.shape == (2, n_actions) and masks.dtype == bool
    for i, env in enumerate(venv.envs):
        expected = env.raw.action_mask().astype(bool)
        assert (masks[i] == expected).all()


def test_pool_opponents_are_sampled_per_episode():
    pool = OpponentPool(base=("random", "heuristic"), sampling="uniform")
    env = SingleAgentEnv("gongzhu_v0", opponents=pool, seed=0)
    seen = set()
    for _ in range(10):
        env.reset()
        done = False
        while not done:
            _, _, done, _, info = env.step(int(np.flatnonzero(env.action_masks())[0]))
        seen.update(info["opponents"])
    assert seen == {"random", "heuristic"}


def test_toy_config_defaults_are_used():
    assert ToyEnv().config == Config()


def test_episode_return_after_an_illegal_action_adds_the_penalty_to_earlier_rewards(monkeypatch):
    """Gong Zhu to -1000 (per-hand rewards): the learner (seat 1) wins the last trick of hand 1
    with the AS and takes the pig and the AH: -150 points = reward -1.5 (docs/rules/gongzhu.md,
    "Scoring a hand"); the game goes on. Its first move of hand 2 is illegal: reward -3
    (``illegal_reward``), the episode ends, and ``episode_return`` is the sum of both, -4.5."""
    multi = gongzhu_rules.Config(game_end=-1000)
    monkeypatch.setattr(
        gongzhu_rules, "new_game", lambda config, deal: _last_trick_state(0)._replace(config=multi)
    )
    env = SingleAgentEnv("gongzhu_v0", {"game_end": -1000}, opponents="random", learner_seat=1, seed=0,
                         illegal_reward=-3.0)
    env.reset()
    _, reward, done, _, info = env.step(parse_card("AS"))
    assert (reward, done) == (pytest.approx(-1.5), False)
    assert "episode_return" not in info  # only at the end
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    _, reward, done, truncated, info = env.step(illegal)
    assert (reward, done, truncated, info["illegal_action"]) == (-3.0, True, False, True)
    assert info["episode_return"] == pytest.approx(-4.5)
    assert info["points"] == -150  # the completed hand's total; the illegal move scores no points
