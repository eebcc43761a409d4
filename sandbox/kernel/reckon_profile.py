# SPDX-License-Identifier: GPL-3.0-or-later
"""reckon_profile.py [--partial] FILE... — print one JSON document profiling each file.

Run by the host inside reckon-sandbox (never outside it: the files are
untrusted). The document: {"version": 1, "files": [{"name": ..., ...}]},
one entry per argument, each with either a profile or one "error" sentence.
With --partial, a big CSV's profile from its sample (rows estimated) comes
first, as a line of its own: {"version": 1, "partial": true, "index": I,
"files": [FILE]}, while its rows are still counted.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from reckon.profile import main  # noqa: E402

if __name__ == "__main__":
    out = main(sys.argv[1:])
    sys.stdout.write(out)
    sys.stdout.write("\n")
    sys.stdout.flush()
