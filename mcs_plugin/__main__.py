"""`python -m mcs_plugin` runs the `mcs-plugin` command."""

import sys

from mcs_plugin.cli import main

sys.exit(main())
