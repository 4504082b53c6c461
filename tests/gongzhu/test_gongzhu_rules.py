"""Gong Zhu rules from explicit deals (docs/rules/gongzhu.md, "Play of a hand", "Scoring a hand",
"End of the game"; hand-derived play vectors)."""

from __future__ import annotations

import numpy as np
import pytest

from cardgames_env.core.cards import cards_of, mask_of
from cardgames_env.core.game import CHANCE, TERMINAL, IllegalMoveError
from cardgames_env.envs.gongzhu import rules
from cardgames_env.envs.gongzhu.cards import parse_card
from cardgames_env.envs.gongzhu.rules import Config, Deal, Play, parse_move
from cardgames_env.envs.gongzhu.scoring import score


def C(text: str) -> int:
    return parse_card(text)


def hand(text: str) -> int:
    return mask_of(C(c) for c in text.split())


# A full explicit deal: each seat holds one suit entirely except that the 2s rotate, so the
# ♠2 is with seat 0 and seat 0 holds spades.
SUIT_DEAL = Deal.from_strings(
    [
        "2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS",
        "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH",
        "2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD",
        "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC",
    ]
)


def state_with(hands: list[str], leader: int, trick: list[str] = (), **kw) -> rules.State:
    """A mid-hand state with explicit hands and trick (other fields default)."""
    return rules.State(
        config=kw.pop("config", Config()),
        hands=tuple(hand(h) for h in hands),
        leader=leader,
        trick=tuple(C(c) for c in trick),
        **kw,
    )


def test_spade_two_holder_leads_first_hand():
    deal = Deal.from_strings(
        [
            "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH",
            "2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD",
            "2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS",
            "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC",
        ]
    )
    state = rules.new_game(Config(), deal)
    assert rules.current_player(state) == 2


def test_first_lead_is_any_card_by_default_and_spade_two_in_variant():
    default = rules.new_game(Config(), SUIT_DEAL)
    assert len(rules.legal_moves(default)) == 13
    forced = rules.new_game(Config(first_lead_must_be_spade2=True), SUIT_DEAL)
    assert rules.legal_moves(forced) == (Play(C("2S")),)
    with pytest.raises(IllegalMoveError):
        rules.apply_move(forced, Play(C("AS")))


def test_follow_suit_vectors():
    """Section 8.2: hand {♠2, ♥5, ♦9} with ♠ led -> {♠2}; {♥5, ♦9} with ♠ led -> both."""
    state = state_with(["2S 5H 9D", "", "", "3S"], leader=3, trick=["3S"])
    assert set(rules.legal_moves(state)) == {Play(C("2S"))}
    state = state_with(["5H 9D", "", "", "3S"], leader=3, trick=["3S"])
    assert set(rules.legal_moves(state)) == {Play(C("5H")), Play(C("9D"))}
    with pytest.raises(IllegalMoveError):
        rules.apply_move(state_with(["2S 5H 9D", "", "", ""], leader=3, trick=["3S"]), Play(C("5H")))


def test_leader_may_lead_hearts_in_trick_one():
    state = rules.new_game(Config(), SUIT_DEAL)
    state = state._replace(hands=(hand("2S 5H") | 0, *state.hands[1:]))
    assert Play(C("5H")) in rules.legal_moves(state)


def play_all(state: rules.State, cards: list[str]) -> rules.State:
    for card in cards:
        state = rules.apply_move(state, parse_move(card))
    return state


def test_trick_vector_club_lead():
    """Section 8.2: P0 ♣5, P1 ♣K, P2 ♥A (void), P3 ♣2 -> P1 wins, captures ♥A, leads next."""
    state = state_with(["5C 3D", "KC 4D", "AH 5D", "2C 6D"], leader=0)
    state = play_all(state, ["5C", "KC", "AH", "2C"])
    assert state.leader == 1 and state.trick == ()
    assert state.captured[1] == hand("5C KC AH 2C")
    assert rules.current_player(state) == 1
    assert state.voids[2] == 1 << 0  # P2 showed a club void
    assert state.hand_points[1] == -50


def test_trick_vector_spade_lead_pig_and_goat():
    """Section 8.2: P2 ♠3, P3 ♠Q, P0 ♠A, P1 ♦J (void) -> P0 wins pig and goat."""
    state = state_with(["AS 2D", "JD 3D", "3S 4D", "QS 5D"], leader=2)
    state = play_all(state, ["3S", "QS", "AS", "JD"])
    assert state.leader == 0
    assert state.captured[0] & (1 << C("QS")) and state.captured[0] & (1 << C("JD"))
    assert state.hand_points[0] == score("PG") == 0
    assert state.pig_taker == 0


def test_whole_hand_scores_each_player_through_the_scorer():
    """Seat 1 holds all hearts and wins every heart trick it leads; others follow."""
    state = rules.new_game(Config(), SUIT_DEAL)
    # Seat 0 leads spades 13 times; nobody else has spades, so seat 0 takes every trick.
    for _ in range(13):
        seat0 = next(cards_of(state.hands[0]))
        state = rules.apply_move(state, Play(seat0))
        for seat in (1, 2, 3):
            state = rules.apply_move(state, Play(next(cards_of(state.hands[seat]))))
    assert rules.is_terminal(state) and rules.current_player(state) == TERMINAL
    # Seat 0 captured all 13 hearts, the pig, the goat and the transformer: 800 (seed case).
    assert rules.points(state) == (800, 0, 0, 0)
    assert rules.returns(state) == (8.0, 0.0, 0.0, 0.0)


def random_hand(seed: int, config: Config | None = None) -> rules.State:
    config = config or Config()
    rng = np.random.default_rng(seed)
    state = rules.new_game(config, rules.sample_deal(config, rng))
    while rules.current_player(state) >= 0:
        moves = rules.legal_moves(state)
        state = rules.apply_move(state, moves[rng.integers(len(moves))])
    return state


@pytest.mark.parametrize("seed", range(40))
def test_hand_sum_invariant(seed):
    """Section 6 invariant: without a 13-heart capture the hand scores sum to -200 + (50 or x),
    x being the ♣10 taker's doubled subtotal; checked against captures, not the engine's sum."""
    state = random_hand(seed)
    from cardgames_env.envs.gongzhu.cards import notation_of

    notes = [notation_of(c) for c in state.captured]
    total = sum(rules.points(state))
    if any(sum(ch in n for ch in "23456789TJQKA") == 13 for n in notes):
        pytest.skip("a player took all hearts")
    holder = next(n for n in notes if "D" in n)
    rest = holder.replace("D", "")
    if set(rest) & set("56789TJQKAPG"):
        assert total == -200 + score(rest)
    else:
        assert total == -200 + 50
    assert sum(bin(c).count("1") for c in state.captured) == 52


def test_multi_hand_game_deals_again_and_pig_taker_leads():
    config = Config(game_end=-1000)
    rng = np.random.default_rng(4)
    state = rules.new_game(config, rules.sample_deal(config, rng))
    while rules.current_player(state) >= 0:
        moves = rules.legal_moves(state)
        state = rules.apply_move(state, moves[0])
    assert rules.current_player(state) == CHANCE
    pig_taker = state.pig_taker
    first_totals = state.totals
    state = rules.apply_deal(state, rules.sample_deal(state, rng))
    assert state.hand_number == 2
    assert rules.current_player(state) == pig_taker
    assert state.totals == first_totals and state.captured == (0, 0, 0, 0)


def test_game_end_threshold():
    config = Config(game_end=-1000)
    over = rules.State(config=config, hands=(0, 0, 0, 0), leader=0, totals=(-1000, 0, 0, 0))
    assert rules.is_terminal(over)
    not_over = over._replace(totals=(-999, 0, 0, 0))
    assert not rules.is_terminal(not_over) and rules.current_player(not_over) == CHANCE
    upper = Config(game_end=-1000, game_end_upper=1000)
    assert rules.is_terminal(rules.State(config=upper, hands=(0,) * 4, leader=0, totals=(1000, 0, 0, -5)))
    tied = rules.State(config=config, hands=(0,) * 4, leader=0, totals=(5, 5, -1000, 0))
    assert rules.winners(tied) == (0, 1)


@pytest.mark.parametrize(
    "options",
    [{"game_end": 1000}, {"game_end": "x"}, {"game_end_upper": 1000}, {"first_lead_must_be_spade2": 1}],
)
def test_bad_config_is_a_value_error(options):
    with pytest.raises(ValueError):
        Config(**options)


def test_bad_deals_are_rejected():
    with pytest.raises(ValueError):
        rules.new_game(Config(), Deal(SUIT_DEAL.hands[:3]))
    twice = Deal((SUIT_DEAL.hands[0], SUIT_DEAL.hands[0], SUIT_DEAL.hands[2], SUIT_DEAL.hands[3]))
    with pytest.raises(ValueError):
        rules.new_game(Config(), twice)


def test_move_notation_round_trip():
    for card in range(52):
        move = Play(card)
        assert parse_move(str(move)) == move
    assert parse_move("♠Q") == Play(C("QS")) == parse_move("play qs")
    assert parse_move("10H") == Play(C("TH"))
    with pytest.raises(ValueError):
        parse_move("play")
    with pytest.raises(ValueError):
        parse_move("play 1Z")


def test_resample_hidden_keeps_own_hand_sizes_and_voids():
    rng = np.random.default_rng(0)
    state = rules.new_game(Config(), rules.sample_deal(Config(), rng))
    for _ in range(23):
        moves = rules.legal_moves(state)
        state = rules.apply_move(state, moves[rng.integers(len(moves))])
    for _ in range(50):
        other = rules.resample_hidden(state, 1, rng)
        assert other.hands[1] == state.hands[1]
        assert [h.bit_count() for h in other.hands] == [h.bit_count() for h in state.hands]
        assert sum(other.hands) == sum(state.hands)
        for seat in range(4):
            for suit in range(4):
                if state.voids[seat] >> suit & 1:
                    assert not other.hands[seat] & (((1 << 13) - 1) << (13 * suit))


def test_resample_hidden_keeps_the_unplayed_spade2_with_the_first_leader():
    # docs/rules/gongzhu.md, "Play of a hand": in hand 1 the ♠2 holder leads, so while the ♠2 is
    # unplayed every seat knows it is with the first leader (seed 1000, actions [0, 11, 1, 2]:
    # player_1 led).
    from cardgames_env.envs.gongzhu import env as gongzhu_env

    env = gongzhu_env.raw_env()
    env.reset(seed=1000)
    first_leader = env.possible_agents.index(env.agent_selection)
    for action in (0, 11, 1, 2):
        env.step(action)
    state = env.game_state()
    rng = np.random.default_rng(1000)
    moved_other = 0
    for i in range(150):
        player = [0, 2, 3][i % 3]
        other = rules.resample_hidden(state, player, rng)
        assert other.hands[first_leader] >> C("2S") & 1, f"re-deal {i} moved the ♠2"
        moved_other += other.hands != state.hands
    assert moved_other > 100, "the other hidden cards are still re-dealt"


def test_next_hand_is_led_by_the_pig_taker_not_the_last_trick_winner():
    """Two tricks left in hand 1 of a multi-hand game ("Play of a hand", Decision: the previous
    pig-taker leads later hands).

    Trick 12, P0 leads: ♠Q, ♠3, ♠A, ♠4 -> P2's ♠A wins: P2 takes the pig and leads.
    Trick 13, P2 leads: ♣3, ♣4, ♣2, ♣A -> P1's ♣A wins the last trick.
    Hand 2 must be led by P2 (pig), not P1 (last trick).
    """
    state = state_with(["QS 2C", "3S AC", "AS 3C", "4S 4C"], leader=0, config=Config(game_end=-1000))
    for card in ("QS", "3S", "AS", "4S"):
        state = rules.apply_move(state, Play(C(card)))
    assert rules.current_player(state) == 2
    for card in ("3C", "4C", "2C", "AC"):
        state = rules.apply_move(state, Play(C(card)))
    assert state.hand_over and rules.current_player(state) == CHANCE
    assert state.leader == 1  # the last trick's winner
    assert state.hand_points[2] == -100  # P2 holds the pig ("Scoring a hand" step 3)
    nxt = rules.apply_deal(state, SUIT_DEAL)
    assert nxt.hand_number == 2
    assert rules.current_player(nxt) == 2
    assert nxt.leader == 2 and nxt.totals == (0, 0, -100, 0)
