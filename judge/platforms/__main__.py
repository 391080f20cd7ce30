"""``python -m judge.platforms warm BUNDLE``: pre-compute a bundle's expected outputs (used by the packages' builds)."""

from __future__ import annotations

import sys


def main(argv: list[str]) -> int:
    if len(argv) != 2 or argv[0] != "warm":
        print("usage: python -m judge.platforms warm BUNDLE_FOLDER", file=sys.stderr)
        return 2
    from judge.errors import JudgeError
    from judge.platforms.assets import warm

    try:
        warm(argv[1])
    except JudgeError as exc:
        print(f"judge: error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
