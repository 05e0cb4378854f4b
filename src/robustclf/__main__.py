"""``python -m robustclf ...``: the same command as ``robustclf ...``."""

import sys

from .cli import main

if __name__ == "__main__":  # pragma: no cover - run as ``python -m robustclf``
    sys.exit(main())
