"""Gong Zhu scoring: the 29 reference cases of the scoring rules (docs/rules/gongzhu.md,
"Scoring a hand"), its variant detector and CLI."""

from __future__ import annotations

import subprocess
import sys

import pytest

from cardgames_env.envs.gongzhu.cli import main
from cardgames_env.envs.gongzhu.scoring import score

# The reference scoring table, input -> output.
SEED_CASES = [
    ("234", 0), ("56789T", -60), ("T", -10), ("J", -20), ("Q", -30), ("K", -40), ("A", -50),
    ("TJQK", -100), ("P", -100), ("G", 100), ("TJQKP", -200), ("PG", 0), ("2468TQKG", 0),
    ("D", 50), ("234D", 50), ("GD", 200), ("PGD", 0), ("TJQKGD", 0),
    ("23456789TJQK", -150), ("3456789TJQKA", -200), ("23456789TJQKA", 200),
    ("23456789TJQKAP", 100), ("23456789TJQKAG", 300), ("23456789TJQKAPG", 400),
    ("2356789TJQKAPD", -600), ("23456789TJQKAPGD", 800), ("DP2A45968TJK7QG3", 800),
    ("DP24", -200), ("G2P6D4", -20),
]


def test_seed_table_has_29_cases():
    assert len(SEED_CASES) == 29


@pytest.mark.parametrize("cards,expected", SEED_CASES)
def test_seed_cases(cards, expected):
    assert score(cards) == expected


@pytest.mark.parametrize("cards,expected", SEED_CASES)
def test_order_does_not_matter(cards, expected):
    assert score(cards[::-1]) == expected


def test_empty_capture_scores_zero():
    assert score("") == 0


@pytest.mark.parametrize(
    "cards,seed_value,other_variant_value",
    [("234D", 50, 0), ("23456789TJQKAPG", 400, 200), ("23456789TJQKAPGD", 800, 400)],
)
def test_variant_detector_seed_values(cards, seed_value, other_variant_value):
    """These cases tell this scoring from another published scorer's."""
    assert score(cards) == seed_value != other_variant_value


@pytest.mark.parametrize("bad", ["X", "23x", "1", "PP", "2345678910", " P"])
def test_bad_input_is_a_value_error(bad):
    with pytest.raises(ValueError):
        score(bad)


@pytest.mark.parametrize("cards,expected", SEED_CASES)
def test_cli_prints_the_score(cards, expected, capsys):
    assert main([cards]) == 0
    out = capsys.readouterr()
    assert out.out == f"{expected}\n" and out.err == ""


@pytest.mark.parametrize("bad", ["23Z", "PP", "hello"])
def test_cli_bad_input_exits_2_with_one_line(bad, capsys):
    assert main([bad]) == 2
    out = capsys.readouterr()
    assert out.out == ""
    assert len(out.err.strip().splitlines()) == 1 and "error" in out.err


def test_cli_without_cards_exits_2(capsys):
    assert main([]) == 2
    assert capsys.readouterr().out == ""


def test_console_script_module_runs():
    result = subprocess.run(
        [sys.executable, "-m", "cardgames_env.envs.gongzhu.cli", "23456789TJQKA"],
        capture_output=True, text=True,
    )
    assert result.returncode == 0 and result.stdout.strip() == "200"
    bad = subprocess.run(
        [sys.executable, "-m", "cardgames_env.envs.gongzhu.cli", "23Q9X"], capture_output=True, text=True
    )
    assert bad.returncode == 2 and bad.stdout == "" and "Traceback" not in bad.stderr


@pytest.mark.parametrize("argv", [[], ["TJ", "QK"], ["--bogus"], ["--bogus", "TJ"], ["23Q9X"], ["22"]])
def test_cli_usage_errors_are_one_stderr_line(capsys, argv):
    """docs/commands.md promises one error line and exit status 2 for bad input, usage mistakes included."""
    assert main(argv) == 2
    out = capsys.readouterr()
    assert out.out == ""
    lines = out.err.strip().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith("gongzhu-score: error:")


# Section 3 step 1 values, written out per symbol (hearts 2..A, then pig and goat).
HAND_VALUES = {"2": 0, "3": 0, "4": 0, "5": -10, "6": -10, "7": -10, "8": -10, "9": -10, "T": -10,
               "J": -20, "Q": -30, "K": -40, "A": -50, "P": -100, "G": 100}


@pytest.mark.parametrize("symbol", list(HAND_VALUES))
def test_transformer_with_one_other_point_card(symbol):
    """Step 5, decided per card ("Decisions this implementation takes"): ♣10 doubles any non-zero
    point card, ♥5 included (the lowest one: ``5D`` = -10 x 2 = -20), and is +50 next to a zero card
    (♥2-♥4)."""
    value = HAND_VALUES[symbol]
    expected = value * 2 if value != 0 else 50
    assert score(symbol + "D") == expected
    assert score("D" + symbol) == expected


def test_transformer_with_five_of_hearts_and_zero_cards():
    assert score("5D") == -20
    assert score("2345D") == -20  # ♥2-♥4 add nothing; ♥5 still makes the ♣10 double
    assert score("234D") == 50
