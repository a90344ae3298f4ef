"""Run the chaos benchmark: `python -m bench.chaos` (arguments and exit codes in run.py)."""

import sys

from bench.chaos.run import main

sys.exit(main())
