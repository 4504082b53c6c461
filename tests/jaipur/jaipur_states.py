"""Builders of explicit Jaipur states for the tests (every card placed by hand)."""

from __future__ import annotations

import numpy as np

from cardgames_env.core.game import CHANCE
from cardgames_env.envs.jaipur import rules
from cardgames_env.envs.jaipur.cards import (
    BONUS_TOKENS,
    CAMEL,
    COMPOSITION,
    GOODS_TOKENS,
    NUM_TYPES,
    parse_card,
)


def kinds(text: str) -> list[int]:
    """Card types of a space/comma separated list of names."""
    return [parse_card(w) for w in text.replace(",", " ").split()]


def count7(text: str) -> tuple[int, ...]:
    """7-type count tuple of a list of names."""
    result = [0] * NUM_TYPES
    for k in kinds(text):
        result[k] += 1
    return tuple(result)


def make_state(
    hand: str = "",
    market: str = "camel camel camel diamond gold",
    herd: int = 0,
    opp_hand: str = "",
    opp_herd: int = 0,
    deck_top: str = "",
    deck_rest: bool = True,
    discard: str = "",
    player: int = 0,
    config: rules.Config | None = None,
    goods_stacks: tuple[tuple[int, ...], ...] = GOODS_TOKENS,
    bonus_piles: tuple[tuple[int, ...], ...] = BONUS_TOKENS,
    goods_tokens=None,
    bonus_tokens=None,
    seals: tuple[int, int] = (0, 0),
    starter: int = 0,
    round_number: int = 1,
    history: tuple = (),
) -> rules.State:
    """A mid-round state: ``player`` holds ``hand``; cards not placed anywhere go to the
    discard pile when ``deck_rest`` is False, else to the deck after ``deck_top`` (type order;
    camels beyond the 8 a deck can hold go to the opponent's herd)."""
    hands = [count7(hand), count7(opp_hand)]
    if player == 1:
        hands.reverse()
    herds = [[0] * NUM_TYPES, [0] * NUM_TYPES]
    herds[player][CAMEL] = herd
    herds[1 - player][CAMEL] = opp_herd
    placed = [0] * NUM_TYPES
    zones = [*hands, tuple(herds[0]), tuple(herds[1]), count7(market), count7(discard), count7(deck_top)]
    for zone in zones:
        for k in range(NUM_TYPES):
            placed[k] += zone[k]
    left = [COMPOSITION[k] - placed[k] for k in range(NUM_TYPES)]
    assert min(left) >= 0, "more cards placed than the deck holds"
    # At most 8 camels can be in the deck (3 start in the market); surplus camels have been
    # taken earlier: they sit in the opponent's herd.
    surplus = max(0, left[CAMEL] - (8 - kinds(deck_top).count(CAMEL))) if deck_rest else 0
    left[CAMEL] -= surplus
    herds[1 - player][CAMEL] += surplus
    rest = [k for k in range(NUM_TYPES) for _ in range(left[k])]
    deck = tuple(kinds(deck_top)) + (tuple(rest) if deck_rest else ())
    disc = list(count7(discard))
    if not deck_rest:
        for k in rest:
            disc[k] += 1
    return rules.State(
        config=config or rules.Config(),
        player=player,
        starter=starter,
        round=round_number,
        deck=deck,
        market=count7(market),
        hands=(hands[0], hands[1]),
        herds=(tuple(herds[0]), tuple(herds[1])),
        discard=tuple(disc),
        goods_stacks=goods_stacks,
        bonus_piles=bonus_piles,
        goods_tokens=goods_tokens or (((),) * 6, ((),) * 6),
        bonus_tokens=bonus_tokens or (((),) * 3, ((),) * 3),
        known=((0,) * NUM_TYPES, (0,) * NUM_TYPES),
        seals=seals,
        history=history,
    )


def with_stacks_left(state: rules.State, left: dict[int, int], owner: int | None = None) -> rules.State:
    """Shrink goods stacks to ``left[good]`` tokens; the removed top tokens go to ``owner``
    (default: the opponent of the player to move), so tokens stay conserved."""
    import dataclasses

    owner = 1 - state.player if owner is None else owner
    stacks = list(state.goods_stacks)
    mine = [list(v) for v in state.goods_tokens[owner]]
    for good, n in left.items():
        full = stacks[good]
        taken, stacks[good] = full[: len(full) - n], full[len(full) - n :]
        mine[good].extend(taken)
    tokens = list(state.goods_tokens)
    tokens[owner] = tuple(tuple(v) for v in mine)
    return dataclasses.replace(state, goods_stacks=tuple(stacks), goods_tokens=tuple(tokens))


def random_states(n: int, seed: int, config: rules.Config | None = None) -> list[rules.State]:
    """``n`` states met in seeded random play (a third of the moves drawn among take/camels/sell,
    so sales and takes are not drowned by the many exchanges)."""
    config = config or rules.Config()
    rng = np.random.default_rng(seed)
    state = rules.new_game(config, rules.sample_deal(config, rng))
    states: list[rules.State] = []
    while len(states) < n:
        if rules.is_terminal(state):
            state = rules.new_game(config, rules.sample_deal(config, rng))
            continue
        if rules.current_player(state) == CHANCE:
            state = rules.apply_deal(state, rules.sample_deal(state, rng))
            continue
        states.append(state)
        moves = rules.legal_moves(state)
        small = [m for m in moves if not isinstance(m, rules.Exchange)]
        pool = small if small and rng.random() < 0.35 else moves
        state = rules.apply_move(state, pool[int(rng.integers(len(pool)))])
    return states
