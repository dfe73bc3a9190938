"""Where the browser tests (and the page-weight benchmark) find Chromium or Chrome.

A user's browser, not a downloaded one: ``$SEQMODELS_BROWSER`` (a path or a command name) if set,
else the first of the usual command names on ``PATH``, else the usual install paths on Linux and
macOS. Playwright drives it with ``executable_path``; its own browser downloads are never used.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

VARIABLE = "SEQMODELS_BROWSER"
NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome")
PATHS = ("/usr/bin/chromium", "/usr/lib/chromium/chromium", "/snap/bin/chromium",
         "/Applications/Chromium.app/Contents/MacOS/Chromium",
         "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome")
#: The one command that installs it on Debian and Ubuntu, the machines the book is built on.
INSTALL = "sudo apt-get install chromium"
#: Starts every skip message, so the end of a test run can count the tests it skipped.
MISSING = "no Chromium or Chrome found"


def find_browser() -> str | None:
    """The browser's executable, or None. A ``$SEQMODELS_BROWSER`` that names nothing runnable is
    an error (a typo should not turn into skipped tests)."""
    chosen = os.environ.get(VARIABLE, "").strip()
    if chosen:
        path = shutil.which(chosen) or (chosen if Path(chosen).is_file() and os.access(chosen, os.X_OK) else None)
        if path is None:
            raise FileNotFoundError(f"{VARIABLE}={chosen!r} is not an executable file or a command on PATH")
        return path
    for name in NAMES:
        if (path := shutil.which(name)) is not None:
            return path
    return next((p for p in PATHS if Path(p).is_file() and os.access(p, os.X_OK)), None)


def missing_message() -> str:
    return (f"{MISSING} (looked for ${VARIABLE}, {', '.join(NAMES)} on PATH and the usual install "
            f"paths); install it with `{INSTALL}`, or set {VARIABLE} to a Chromium or Chrome executable")
