"""``python -m verifier.cli``: the same as ``cute-verify``."""

import sys

from verifier.cli.main import main

sys.exit(main())
