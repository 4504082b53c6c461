"""Red7 rules from explicit deals: docs/rules/red7.md ("Setting up" to "The action rule") and
hand-derived vectors."""

from __future__ import annotations

import numpy as np
import pytest

from cardgames_env.core.cards import cards_of, mask_of
from cardgames_env.core.game import CHANCE, TERMINAL, IllegalMoveError
from cardgames_env.envs.red7 import rules
from cardgames_env.envs.red7.cards import COLOURS, parse_card
from cardgames_env.envs.red7.rules import (
    CANVAS,
    EXTRA,
    MAIN,
    SEVEN,
    TAKE,
    Config,
    Deal,
    Discard,
    GiveUp,
    Play,
    PlayDiscard,
    parse_move,
)


def C(text: str) -> int:
    return parse_card(text)


def M(text: str) -> int:
    return mask_of(C(c) for c in text.split())


def moves(*texts: str) -> set:
    return {parse_move(t) for t in texts}


def game(hands: list[str], palettes: list[str], deck: str = "", rule: str = "R", player: int | None = None,
         **config) -> rules.State:
    """A state from an explicit deal, optionally with another rule or player to move."""
    state = rules.new_game(Config(num_players=len(hands), **config), Deal.from_strings(hands, palettes, deck))
    changes: dict = {"rule": COLOURS.index(rule)}
    if player is not None:
        changes["player"] = player
    return state._replace(**changes)


def play(state: rules.State, *texts: str) -> rules.State:
    for text in texts:
        state = rules.apply_move(state, parse_move(text))
    return state


# -- seed 1: setup ----------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4])
def test_setup_deals_seven_plus_one_from_49_distinct_cards(players: int) -> None:
    config = Config(num_players=players)
    deal = rules.sample_deal(config, np.random.default_rng(players))
    state = rules.new_game(config, deal)
    assert all(h.bit_count() == 7 for h in state.hands)
    assert all(p.bit_count() == 1 for p in state.palettes)
    assert len(state.deck) == 49 - 8 * players == len(set(state.deck))
    everything = [*state.deck, *(c for m in (*state.hands, *state.palettes) for c in cards_of(m))]
    assert sorted(everything) == list(range(49))  # no duplicates, the Red start card is not a card
    assert state.rule == COLOURS.index("R") and state.canvas == 0
    assert state.active == (1 << players) - 1


def test_player_count_and_config_errors() -> None:
    for bad in (1, 5, "2", True):
        with pytest.raises(ValueError, match="num_players"):
            Config(num_players=bad)
    with pytest.raises(ValueError, match="strict"):
        Config(strict=1)
    with pytest.raises(ValueError, match="seven_to_deck"):
        Config(seven_to_deck=True)
    with pytest.raises(ValueError, match="target_score"):
        Config(advanced=True, target_score=0)
    assert Config(num_players=3, advanced=True).target == 35
    assert Config(num_players=4, advanced=True).target == 30
    assert Config(advanced=True).target == 40


def test_bad_deals_are_rejected() -> None:
    with pytest.raises(ValueError, match="twice"):
        rules.new_game(Config(), Deal.from_strings(["R1", "R1"], ["O5", "R6"]))
    with pytest.raises(ValueError, match="2 hands"):
        rules.new_game(Config(), Deal.from_strings(["R1"], ["O5"]))


# -- seed 2: start player -----------------------------------------------------------------------


def test_start_player_is_after_the_red_leader() -> None:
    # Hand-derived: palettes B5, O5, R2 -> Red leader P1 (O5 > B5) -> P2 starts.
    state = rules.new_game(Config(num_players=3), Deal.from_strings(["", "", ""], ["B5", "O5", "R2"]))
    assert rules.current_player(state) == 2
    # The leader in the last seat: the first seat starts (clockwise wrap).
    state = rules.new_game(Config(num_players=3), Deal.from_strings(["", "", ""], ["B5", "O4", "R6"]))
    assert rules.current_player(state) == 0


# -- a hand-derived legality vector ----------------------------------------------------------


def test_reference_legality_vector() -> None:
    state = game(["V6 B1", ""], ["O5", "R6"])
    assert rules.current_player(state) == 0  # P1 leads Red with R6
    assert set(rules.legal_moves(state)) == moves("play V6 discard B1", "play B1 discard V6", "give up")
    for text in ("play V6", "play B1", "discard V6", "discard B1"):
        with pytest.raises(IllegalMoveError):
            rules.apply_move(state, parse_move(text))


# -- seed 3: giving up --------------------------------------------------------------------------


def test_give_up_removes_all_cards_and_skips_the_player() -> None:
    state = game(["R1 O1", "Y1 G1", "B1 I1"], ["V7", "V6", "V5"])
    assert rules.current_player(state) == 1
    state = play(state, "give up")
    assert rules.eliminated(state) == (False, True, False)
    assert state.hands[1] == 0 and state.palettes[1] == 0
    assert state.out_public == M("V6") and state.out_hidden[1] == M("Y1 G1")
    assert rules.returns(state) == (0.0, -1.0, 0.0)
    assert rules.current_player(state) == 2
    state = play(state, "give up")  # P2 gives up: P0 is the last player standing and wins
    assert rules.is_terminal(state) and rules.current_player(state) == TERMINAL
    assert rules.returns(state) == (1.0, -1.0, -1.0)
    assert rules.points(state) == (1, 0, 0)
    assert rules.legal_moves(state) == ()


def test_giving_up_is_legal_even_while_winning() -> None:
    state = game(["R7", ""], ["O5", "Y1"])
    assert GiveUp() in rules.legal_moves(state)


def test_empty_hand_at_turn_start_leaves_only_give_up() -> None:
    state = game(["", "R1"], ["R7", "O1"])
    assert rules.current_player(state) == 1
    state = state._replace(player=0)
    assert rules.legal_moves(state) == (GiveUp(),)


# -- seed 4: play to the palette ----------------------------------------------------------------


def test_play_is_legal_only_if_it_makes_you_win() -> None:
    state = game(["R6 O7 V2", ""], ["G3", "B6"])  # rule Red, P1 leads with B6
    legal = set(rules.legal_moves(state))
    assert Play(C("R6")) in legal and Play(C("O7")) in legal  # R6 > B6 and O7 > B6
    assert Play(C("V2")) not in legal
    after = play(state, "play O7")
    assert after.palettes[0] == M("G3 O7") and after.hands[0] == M("R6 V2")
    assert rules.current_player(after) == 1
    with pytest.raises(IllegalMoveError):
        rules.apply_move(state, Play(C("Y5")))  # not in the hand


# -- seed 5: change the rule --------------------------------------------------------------------


def test_discard_changes_the_rule_only_if_it_makes_you_win() -> None:
    state = game(["G5 V1", ""], ["Y2", "R5"])
    legal = set(rules.legal_moves(state))
    assert Discard(C("G5")) in legal  # Green: Y2 even vs none
    assert Discard(C("V1")) in legal  # Violet: Y2 below 4 vs none
    state2 = game(["O3", ""], ["Y2", "R5"])
    assert Discard(C("O3")) not in rules.legal_moves(state2)  # Orange: R5 beats Y2
    state3 = game(["G5", ""], ["Y2", "R4"])
    assert Discard(C("G5")) not in rules.legal_moves(state3)  # Green: R4 beats Y2
    after = play(state, "discard G5")
    assert after.rule == COLOURS.index("G") and after.canvas == M("G5")


# -- seed 6: play then discard -------------------------------------------------------------------


def test_play_then_discard_uses_the_new_palette() -> None:
    # Yellow only wins with the played card: palette B2 + B4 (2 blue) vs P1 R6.
    state = game(["B4 Y1", ""], ["B2", "R6"])
    legal = set(rules.legal_moves(state))
    assert PlayDiscard(C("B4"), C("Y1")) in legal
    assert Discard(C("Y1")) not in legal and Play(C("B4")) not in legal
    after = play(state, "play B4 discard Y1")
    assert after.palettes[0] == M("B2 B4") and after.rule == COLOURS.index("Y") and after.hands[0] == 0
    with pytest.raises(ValueError, match="differ"):
        parse_move("play B4 discard B4")
    assert PlayDiscard(C("B4"), C("B4")) not in rules.legal_moves(state)


# -- seed 7: a complete game ----------------------------------------------------------------------


def test_complete_game() -> None:
    state = game(["R1 O2 B6", "G4 B5 I7"], ["Y3", "V2"])
    assert rules.current_player(state) == 1  # P0 leads Red with Y3
    state = play(state, "play G4")  # Red: G4 > Y3
    state = play(state, "play B6")  # Red: B6 > G4
    assert set(rules.legal_moves(state)) == moves(
        "play I7", "play B5 discard I7", "play I7 discard B5", "give up"
    )
    state = play(state, "play B5 discard I7")  # Indigo: P1 run 4-5 vs P0 singles
    assert set(rules.legal_moves(state)) == moves(
        "discard R1", "discard O2", "play O2 discard R1", "play R1 discard O2", "give up"
    )
    state = play(state, "play O2 discard R1")  # Red: B6 > B5
    assert rules.legal_moves(state) == (GiveUp(),)  # P1 has no cards
    state = play(state, "give up")
    assert rules.is_terminal(state) and state.game_winner == 0
    assert rules.returns(state) == (1.0, -1.0)


# -- official legality (strict=False) ------------------------------------------------------------


def test_official_rule_allows_any_move_and_eliminates_the_loser() -> None:
    state = game(["V6 B1", "R1"], ["O5", "R6"], strict=False)
    legal = set(rules.legal_moves(state))
    assert Play(C("V6")) in legal and Discard(C("B1")) in legal and len(legal) == 2 + 2 + 2 + 1
    after = play(state, "play V6")  # V6 < R6: not winning at the end of the turn -> out
    assert rules.is_terminal(after) and after.game_winner == 1


# -- advanced game --------------------------------------------------------------------------------


def test_draw_rule_when_number_exceeds_palette_size() -> None:
    state = game(["G5 V1", "R1"], ["Y2", "R5"], deck="O6 O1", advanced=True)
    after = play(state, "discard G5")  # 5 > 1 palette card: draw O6
    assert after.hands[0] == M("V1 O6") and after.deck == (C("O1"),)
    after = play(state, "discard V1")  # 1 is not > 1: no draw
    assert after.hands[0] == M("G5") and len(after.deck) == 2


def test_draw_rule_counts_the_palette_after_playing() -> None:
    state = game(["B4 Y3", "R1"], ["B2", "R6"], deck="O6", advanced=True)
    after = play(state, "play B4 discard Y3")  # 3 > 2 palette cards: draw
    assert after.hands[0] == M("O6")
    state = game(["B4 Y2", "R1"], ["B2", "R6"], deck="O6", advanced=True)
    after = play(state, "play B4 discard Y2")  # 2 is not > 2
    assert after.hands[0] == 0


def test_round_scoring_and_next_round() -> None:
    state = game(["R1", "O1"], ["G7 R6 V2", "Y3"], advanced=True, player=1)
    state = play(state, "give up")  # P0 wins the round under Red: scores R6? no, the highest card G7
    assert state.scores == (7, 0) and state.scored == M("G7")
    assert rules.current_player(state) == CHANCE and not rules.is_terminal(state)
    assert rules.returns(state) == (0.0, 0.0)
    deal = rules.sample_deal(state, np.random.default_rng(0))
    used = [c for part in (*deal.hands, *deal.palettes) for c in part] + list(deal.deck)
    assert len(used) == 48 and C("G7") not in used
    nxt = rules.apply_deal(state, deal)
    assert nxt.round_number == 2 and nxt.scores == (7, 0) and nxt.active == 3
    with pytest.raises(ValueError, match="scored"):
        rules.apply_deal(state, Deal.from_strings(["G7", ""], ["R1", "O1"]))


def test_game_ends_at_target() -> None:
    state = game(["R1", "O1"], ["G7 R6 V2", "Y3"], advanced=True, target_score=7, player=1, rule="V")
    state = play(state, "give up")  # Violet: Q = {V2} -> only 2 points
    assert state.scores == (2, 0) and rules.current_player(state) == CHANCE
    state = game(["R1", "O1"], ["G7 R6 V2", "Y3"], advanced=True, target_score=7, player=1)
    state = play(state, "give up")
    assert rules.is_terminal(state) and rules.returns(state) == (1.0, -1.0) and rules.points(state) == (7, 0)


def test_game_stops_when_too_few_cards_remain() -> None:
    # 2 players need 16 cards for a deal: every card not in play has been scored already.
    state = game(["R1", "O1"], ["G7 R6 V2", "Y3"], advanced=True, player=1)
    in_play = M("R1 O1 G7 R6 V2 Y3")
    state = state._replace(scored=(1 << 49) - 1 & ~in_play)
    state = play(state, "give up")  # P0 scores G7; 5 unscored cards remain
    assert rules.is_terminal(state) and state.game_winner == 0 and state.scores == (7, 0)


def test_tied_leaders_at_a_stop_draw() -> None:
    state = game(["R1", "O1"], ["V2", "Y3"], advanced=True, player=1, rule="V")
    state = state._replace(scores=(0, 2), scored=(1 << 49) - 1 & ~M("R1 O1 V2 Y3"))
    state = play(state, "give up")  # P0 scores V2: 2 points each
    assert rules.is_terminal(state) and state.game_winner == -1
    assert rules.returns(state) == (0.0, 0.0)


# -- action rule ----------------------------------------------------------------------------------


def test_one_takes_from_a_palette_at_least_as_large() -> None:
    state = game(["R1 B3", "", "G2"], ["G5", "O6 B2", "Y4"], action_rule=True, player=0)
    assert Play(C("R1")) in rules.legal_moves(state)  # Red: O6 leads, but the 1 can take it
    state = play(state, "play R1")
    assert state.phase == TAKE and rules.current_player(state) == 0
    # Targets: P1 (2 cards >= my 2), not P2 (1 card). Taking O6 wins Red at once; after
    # taking B2, discarding B3 wins Blue (G5 R1: 2 colours against 1).
    assert set(rules.legal_moves(state)) == moves("take O6", "take B2", "give up")
    state = play(state, "take O6")
    assert state.palettes[1] == M("B2") and state.deck[0] == C("O6") and state.known_top == 1
    assert state.phase == CANVAS


def test_one_without_target_has_no_effect() -> None:
    state = game(["R1 Y4", ""], ["G5", "O6"], action_rule=True, player=0, rule="Y", strict=False)
    state = play(state, "play R1")
    assert state.phase == CANVAS
    assert set(rules.legal_moves(state)) == moves("discard Y4", "end turn", "give up")


def test_three_draws_and_is_always_playable() -> None:
    state = game(["G3", ""], ["V1", "R7"], deck="B6 Y5", action_rule=True)
    assert Play(C("G3")) in rules.legal_moves(state)  # not winning, but a 3
    state = play(state, "play G3")
    assert state.hands[0] == M("B6") and state.phase == CANVAS
    # Blue: P0 G3,V1 (2 colours) beats R7. Ending the turn under Red would lose.
    assert set(rules.legal_moves(state)) == moves("discard B6", "give up")
    state = play(state, "discard B6")
    assert rules.current_player(state) == 1 and state.rule == COLOURS.index("B")


def test_five_plays_an_extra_card_with_its_own_effect() -> None:
    state = game(["R5 O7 B2", ""], ["G1", "V6"], action_rule=True)
    state = play(state, "play R5")
    assert state.phase == EXTRA
    # B2 cannot win: Red R5 < V6, Orange R5 < V6.
    assert set(rules.legal_moves(state)) == moves("play O7", "give up")
    state = play(state, "play O7")  # chain: the 7's effect
    assert state.phase == SEVEN
    # The 7 itself cannot be picked; G1 -> Green (nobody even) loses, R5 -> Red wins with O7.
    assert set(rules.legal_moves(state)) == moves("canvas R5", "give up")
    state = play(state, "canvas R5")
    assert state.rule == COLOURS.index("R") and state.palettes[0] == M("G1 O7")
    assert rules.current_player(state) == 1  # the 7 used the turn's canvas discard


def test_seven_alone_has_no_effect_and_seven_to_deck() -> None:
    state = game(["O7 B4", ""], ["R1", "V6"], action_rule=True, seven_to_deck=True, player=0, rule="R")
    state = play(state, "play O7")
    assert state.phase == SEVEN
    # R1 to the canvas keeps Red (O7 beats V6); R1 to the deck also leaves O7 on top.
    assert set(rules.legal_moves(state)) == moves("canvas R1", "deck R1", "give up")
    state = play(state, "deck R1")
    assert state.deck[0] == C("R1") and state.phase == CANVAS
    lone = game(["O7", ""], ["V6", "V5"], action_rule=True, player=0, strict=False)
    lone = lone._replace(palettes=(0, M("V5")))
    assert play(lone, "play O7").phase == CANVAS


def test_odd_play_is_masked_when_no_completion_wins() -> None:
    # Red, P1 leads with R7; a 5 then B2 cannot beat R7, and no discard helps either.
    state = game(["Y5 B2", ""], ["G1", "R7"], action_rule=True)
    legal = set(rules.legal_moves(state))
    assert Play(C("Y5")) not in legal
    assert legal == moves("give up") | {m for m in legal if isinstance(m, (PlayDiscard, Discard))}
    assert PlayDiscard(C("B2"), C("Y5")) not in legal  # Yellow: one card each, R7 leads


def test_known_card_on_the_deck_is_known_in_the_drawers_hand() -> None:
    state = game(["R1 G3", "O2", ""], ["G5", "O6 B2", "Y4"], deck="V4", action_rule=True, player=0,
                 strict=False)
    state = play(state, "play R1", "take O6", "end turn")
    assert state.known_top == 1
    state = state._replace(player=0, phase=MAIN)
    state = play(state, "play G3")
    assert state.hands[0] >> C("O6") & 1 and state.known_hands[0] == M("O6") and state.known_top == 0


# -- notation, hidden information -----------------------------------------------------------------


@pytest.mark.parametrize(
    "text", ["play R7", "discard B3", "play R7 discard B3", "give up", "take B4", "canvas G4", "deck G4",
             "end turn"],
)
def test_move_notation_round_trips(text: str) -> None:
    assert str(parse_move(text)) == text
    assert parse_move(text.upper()) == parse_move(text)


@pytest.mark.parametrize("text", ["", "play", "play X9", "discard R7 R6", "give", "play R1 play R2"])
def test_bad_notation_is_a_value_error(text: str) -> None:
    with pytest.raises(ValueError):
        parse_move(text)


def test_resample_hidden_keeps_what_the_player_knows() -> None:
    config = Config(num_players=3)
    state = rules.new_game(config, rules.sample_deal(config, np.random.default_rng(1)))
    state = state._replace(deck=(C("O6"), *state.deck[1:]), known_top=0)
    other = rules.resample_hidden(state, 0, np.random.default_rng(2))
    assert other.hands[0] == state.hands[0] and other.palettes == state.palettes
    assert [h.bit_count() for h in other.hands] == [h.bit_count() for h in state.hands]
    assert len(other.deck) == len(state.deck)
    assert other != state
    pool = lambda s: s.hands[1] | s.hands[2] | mask_of(s.deck)  # noqa: E731
    assert pool(other) == pool(state)


def test_game_info() -> None:
    assert rules.INFO.max_game_length == 15 and rules.INFO.zero_sum
    assert rules.game_info(Config(num_players=4)).max_game_length == 31
    assert not rules.game_info(Config(num_players=3)).zero_sum
    assert rules.game_info(Config(advanced=True)).max_game_length is None



@pytest.mark.parametrize(
    ("rule", "palette", "q", "gained"),
    [
        # Orange: the largest group of one number, the three 6s: 6 + 6 + 6 (G7, V2 stay).
        ("O", "G7 R6 B6 O6 V2", "R6 B6 O6", 18),
        # Blue: the highest card of each colour: R6, B4, G7 (the second red, R2, is not scored).
        ("B", "R6 R2 B4 G7", "R6 B4 G7", 17),
        # Indigo: the run 3-4-5, one card per number (the higher 4, R4); V1 is not in the run.
        ("I", "Y3 R4 B4 G5 V1", "Y3 R4 G5", 12),
        # Violet: the cards below 4: 1 + 3 (O5 is not).
        ("V", "O5 Y1 G3", "Y1 G3", 4),
    ],
)
def test_round_winner_scores_its_q_under_the_rule_in_force(rule, palette, q, gained) -> None:
    """Section 4.3 as the engine applies it: 3 players, the winner in seat 2 with 5 points from
    earlier rounds; the two others give up under ``rule``. Seat 2 gains the numbers of its Q
    under that rule (not Red's, not its whole palette), exactly Q leaves the game, and the
    others keep their scores."""
    state = game(["R1", "O1", "Y2"], ["I7", "V7", palette], rule=rule, player=0, advanced=True)
    state = state._replace(scores=(3, 0, 5))
    state = play(state, "give up", "give up")
    assert state.scores == (3, 0, 5 + gained)
    assert state.scored == M(q)
    assert rules.current_player(state) == CHANCE
    deal = rules.sample_deal(state, np.random.default_rng(0))
    dealt = {c for part in (*deal.hands, *deal.palettes, deal.deck) for c in part}
    assert dealt == set(range(49)) - set(cards_of(M(q)))


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("left", [0, -1, 1])
def test_game_stops_below_exactly_eight_cards_per_player(players: int, left: int) -> None:
    """Section 4.3 Decision: a new deal needs 8 x players unscored cards (7 in hand + 1 on the
    palette each). Exactly 8 x players left: the game goes on; one fewer: it stops."""
    hands = ["R1", "O1", "Y1", "G1"][:players]
    palettes = ["G7 R6 V2", "Y3", "B3", "I3"][:players]
    state = game(hands, palettes, advanced=True, player=1)
    in_play = M(" ".join(hands + palettes))
    others = [c for c in range(49) if not in_play >> c & 1]
    # P0 will score G7 (Red: the highest card), so unscored after the round = 48 - pre-scored.
    remaining = 8 * players + left
    pre_scored = 48 - remaining
    state = state._replace(scored=mask_of(others[:pre_scored]))
    state = play(state, *["give up"] * (players - 1))
    assert state.scores[0] == 7 and state.scored.bit_count() == pre_scored + 1
    assert 49 - state.scored.bit_count() == remaining
    if left >= 0:
        assert rules.current_player(state) == CHANCE and not rules.is_terminal(state)
        deal = rules.sample_deal(state, np.random.default_rng(1))
        assert len(deal.deck) == left  # everything else is dealt: 7 + 1 per player
        nxt = rules.apply_deal(state, deal)
        assert nxt.round_number == 2 and nxt.scores[0] == 7
    else:
        assert rules.current_player(state) == TERMINAL and rules.is_terminal(state)
        assert state.game_winner == 0
