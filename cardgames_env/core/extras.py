"""The optional extras of the package: the one place that writes the command installing one.

The package is installed from its checkout (``pip install -e ".[train]"`` in the repository's
folder, as the README's set-up does), so a hint names the checkout when the package runs from
one, and the checkout's folder otherwise.
"""

from __future__ import annotations

import importlib.util
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parents[2]
"""The folder above the package: the repository's checkout when the package runs from one."""


def install_command(extra: str) -> str:
    """The shell command that installs the optional ``extra`` into the running interpreter.

    From a checkout (a ``pyproject.toml`` next to the package) the command names that folder, so
    it works from any directory; otherwise it is the README's form, run in the checkout.

    Args:
        extra: The extra's name in ``pyproject.toml`` (``train``, ``web``, ``pictures``...).

    Returns:
        For example ``/repo/.venv/bin/python -m pip install -e "/repo[train]"``.
    """
    if (CHECKOUT / "pyproject.toml").is_file():
        return f"{shlex.quote(sys.executable)} -m pip install -e {shlex.quote(f'{CHECKOUT}[{extra}]')}"
    return f'pip install -e ".[{extra}]"  (in the cardgames_env checkout)'


def missing_extra(what: str, extra: str) -> str:
    """One line saying that ``what`` needs ``extra``, and the command that installs it.

    Args:
        what: What needs the extra, as the start of a sentence (``"training"``).
        extra: The extra's name.
    """
    return f"{what} needs the '{extra}' extra: {install_command(extra)}"


def has_module(name: str) -> bool:
    """Whether ``name`` can be imported (without importing it; ``sys.modules[name] = None`` counts
    as missing, as the import system treats it)."""
    if name in sys.modules:
        return sys.modules[name] is not None
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def exit_unless_installed(what: str, extra: str, modules: Sequence[str]) -> None:
    """For a script: when any of ``modules`` is missing, print one line (what needs which extra,
    the command that installs it, the missing modules) on stderr and exit with status 2.

    Args:
        what: What needs the extra (``"examples/cleanrl_ppo_masked.py"``).
        extra: The extra that installs the modules.
        modules: The modules to look for, without importing them.
    """
    missing = [name for name in modules if not has_module(name)]
    if missing:
        print(f"{missing_extra(what, extra)} ({', '.join(missing)} not installed)", file=sys.stderr)
        raise SystemExit(2)
