"""One package per game: cards, scoring, rules, encoding, env."""
