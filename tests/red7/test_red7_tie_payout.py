"""The advanced game's payout when it stops for lack of cards with leaders tied, from hand-built
positions, in the rules, the AEC env and the batched engine.

docs/rules/red7.md: the round's winner scores the cards of their ``Q`` under the final rule; if
fewer than 8 x players unscored cards remain for a new deal, the game stops and the highest
score wins, players tied for the highest score draw; rewards are 0 until the end, then +1 to the
winner and -1 to every other player, players tied for the lead at a stop getting 0.
"""

from __future__ import annotations

import numpy as np
import pytest

from cardgames_env import vector
from cardgames_env.core.cards import mask_of
from cardgames_env.envs.red7 import rules
from cardgames_env.envs.red7.cards import COLOURS, parse_cards
from cardgames_env.envs.red7.encoding import GIVE_UP
from cardgames_env.envs.red7.env import raw_env
from cardgames_env.envs.red7.rules import Config, Deal

ALL_CARDS = (1 << 49) - 1


def _stop_position(
    hands: list[str], palettes: list[str], scores: tuple[int, ...], out: int | None
) -> rules.State:
    """An advanced-game position under Violet, seat 1 to move, seat ``out`` (if any) out of the
    round with its cards set aside, and exactly the 8 x players unscored cards a deal needs (the
    rest of them in the deck): once the round's winner scores a card, the game stops."""
    n = len(hands)
    state = rules.new_game(Config(num_players=n, advanced=True), Deal.from_strings(hands, palettes, ""))
    in_play = mask_of(parse_cards(" ".join(hands + palettes)))
    deck = tuple(c for c in range(49) if not in_play >> c & 1)[: 8 * n - in_play.bit_count()]
    state = state._replace(rule=COLOURS.index("V"), player=1, scores=scores, deck=deck,
                           scored=ALL_CARDS & ~in_play & ~mask_of(deck))
    if out is not None:
        state = state._replace(
            active=((1 << n) - 1) & ~(1 << out),
            out_public=state.out_public | state.palettes[out],
            out_hidden=tuple(h if s == out else 0 for s, h in enumerate(state.hands)),
            hands=tuple(0 if s == out else h for s, h in enumerate(state.hands)),
            palettes=tuple(0 if s == out else p for s, p in enumerate(state.palettes)),
        )
    return state


CASES = [
    # Two players, P1 gives up: P0 wins the round under Violet (cards below 4): Q = {V2}, worth
    # 2 points, so 0 + 2 = 2 against P1's 2. Too few cards remain: tied leaders, both draw.
    pytest.param(["R1", "O1"], ["V2", "Y3"], (0, 2), None, (2, 2), (0.0, 0.0), id="2 players tied"),
    # Three players, P2 already out of the round (its cards set aside), P1 gives up: P0 scores
    # V2 (2 points): scores 2, 2, 1; P0 and P1 lead together and draw (0 each), P2 is behind: -1.
    pytest.param(["R1", "O1", "B1"], ["V2", "Y3", "G4"], (0, 2, 1), 2, (2, 2, 1), (0.0, 0.0, -1.0),
                 id="3 players, two tied"),
    # Three players, all tied at the stop: 1 + 2 = 3 for P0, 3 for P1 and P2: all draw.
    pytest.param(["R1", "O1", "B1"], ["V2", "Y3", "G4"], (1, 3, 3), 2, (3, 3, 3), (0.0, 0.0, 0.0),
                 id="3 players, all tied"),
    # Control: P0 reaches 3 alone (1 + 2) against 2 and 1: a single winner, +1 and -1 each.
    pytest.param(["R1", "O1", "B1"], ["V2", "Y3", "G4"], (1, 2, 1), 2, (3, 2, 1), (1.0, -1.0, -1.0),
                 id="3 players, one leader"),
]


@pytest.mark.parametrize(("hands", "palettes", "scores", "out", "final", "payout"), CASES)
def test_a_stop_pays_the_tied_leaders_nothing_and_the_others_minus_one(
    hands, palettes, scores, out, final, payout
) -> None:
    state = _stop_position(hands, palettes, scores, out)
    after = rules.apply_move(state, rules.GiveUp())
    assert rules.is_terminal(after) and after.scores == final
    assert rules.returns(after) == payout

    env = raw_env(num_players=len(hands), advanced=True)
    env.reset(seed=0)
    env.set_game_state(state)
    env.step(GIVE_UP)
    assert all(env.terminations.values())
    assert tuple(env._cumulative_rewards[a] for a in env.possible_agents) == payout

    vec = vector.make("red7_v0", num_envs=1, seed=0, num_players=len(hands), advanced=True)
    vec.load(0, state)
    _, _, _, rewards, done = vec.step(np.array([GIVE_UP]))
    assert bool(done[0]) and tuple(rewards[0].tolist()) == payout
