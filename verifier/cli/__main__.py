"""``python -m verifier.cli``: the same as ``cute-verify``."""

import sys

from verifier.cli import main

sys.exit(main())
