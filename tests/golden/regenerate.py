"""Rewrite every golden playthrough: ``python -m tests.golden.regenerate`` (from the repo root).

Run it only for an intended behaviour change, and bump the changed env's version with it
(``<game>_v0`` -> ``<game>_v1``, with a line in the env card's *Version history*); a refactor
never changes a playthrough. ``--only NAME`` limits it to files whose name starts with NAME;
files of envs or variants that no longer exist are removed.
"""

from __future__ import annotations

import argparse
import sys
import time

from tests.golden.playthrough import DATA, all_files, render


def main(argv: list[str] | None = None) -> int:
    """Write the playthroughs; print one progress line per file; return the exit status."""
    parser = argparse.ArgumentParser(prog="python -m tests.golden.regenerate", description=__doc__)
    parser.add_argument("--only", default="", help="regenerate only files whose name starts with this")
    args = parser.parse_args(argv)
    files = all_files()
    start = time.perf_counter()
    changed = 0
    for index, (path, lines) in enumerate(sorted(files.items()), 1):
        if not path.name.startswith(args.only):
            continue
        text = render(lines)
        old = path.read_text(encoding="utf-8") if path.exists() else None
        path.parent.mkdir(parents=True, exist_ok=True)
        if old != text:
            path.write_bytes(text.encode("utf-8"))
            changed += 1
        status = "unchanged" if old == text else "new" if old is None else "CHANGED"
        print(
            f"[{index}/{len(files)}] {path.relative_to(DATA)}: {status} "
            f"({len(text):,} bytes, {time.perf_counter() - start:.1f} s)",
            flush=True,
        )
    if not args.only:
        for stale in sorted(set(DATA.glob("*/*.txt")) - set(files)):
            stale.unlink()
            changed += 1
            print(f"removed {stale.relative_to(DATA)} (no such env or variant)", flush=True)
    print(f"{changed} file(s) written or removed", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
