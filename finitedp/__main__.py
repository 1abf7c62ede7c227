"""``python -m finitedp`` and the ``finitedp`` command: the command-line interface.

The command's modules take most of a second to import; Ctrl-C then must still end in
one line and exit status 130, not a traceback of the import (issue 40), so the
import itself is inside the handler.
"""

from __future__ import annotations

import contextlib
import os
import sys


def entry() -> int:
    """Import the command line and run it; Ctrl-C at any point is one line, status 130."""
    try:
        if sys.argv[1:] == ["--version"]:  # answered without importing the commands
            from . import __version__

            print(f"finitedp {__version__}")
            return 0
        from .cli import main

        return main()
    except KeyboardInterrupt:
        with_command = f" {sys.argv[1]}" if len(sys.argv) > 1 and sys.argv[1].isalpha() else ""
        with contextlib.suppress(OSError):
            os.write(2, f"finitedp{with_command}: interrupted; nothing was written\n".encode())
        return 130


if __name__ == "__main__":
    raise SystemExit(entry())
