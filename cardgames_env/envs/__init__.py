"""One package per game, holding everything that knows the game: cards, scoring, rules,
encoding, env, batched kernel, heuristic, search hooks, browser view, training config, shipped
policy, and the ``SPEC`` that names them."""
