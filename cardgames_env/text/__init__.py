"""The text face: every game in plain words, for language-model agents.

* :func:`describe` ``(env, agent) -> str``: what a seat knows, ending with its legal moves,
  one per line, each written ``[move]`` in the game's notation;
* :func:`parse_move` ``(env, agent, reply) -> int``: the action of the last ``[move]`` of a
  free-text reply (a ``ValueError`` naming the problem otherwise; never another move);
* :func:`rules_summary` ``(game) -> str``: the game's rules for a system prompt.

The LLM agent (``llm:MODEL@BASE_URL``) is :mod:`cardgames_env.agents.llm`; the text env for
training language models is :class:`cardgames_env.wrappers.text_env.TextEnv`. Guide:
``docs/llm.md``.
"""

from .moves import MoveParseError, last_bracketed, normalise, parse_move, parse_reply
from .summary import rules_summary
from .view import LEGAL_MOVES_HEADER, describe, legal_moves

__all__ = [
    "LEGAL_MOVES_HEADER",
    "MoveParseError",
    "describe",
    "last_bracketed",
    "legal_moves",
    "normalise",
    "parse_move",
    "parse_reply",
    "rules_summary",
]
