"""seqbook.tools.browser_path finds a user's browser, and a run without one says so at its end."""

from __future__ import annotations

import os
import stat

import pytest

from seqbook.tools import browser_path


def test_the_variable_wins_and_a_wrong_one_is_an_error(tmp_path, monkeypatch):
    fake = tmp_path / "my-chrome"
    fake.write_text("#!/bin/sh\n")
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv(browser_path.VARIABLE, str(fake))
    assert browser_path.find_browser() == str(fake)
    monkeypatch.setenv(browser_path.VARIABLE, str(tmp_path / "absent"))
    with pytest.raises(FileNotFoundError, match=browser_path.VARIABLE):
        browser_path.find_browser()


def test_names_on_path_then_install_paths(tmp_path, monkeypatch):
    monkeypatch.delenv(browser_path.VARIABLE, raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(browser_path, "PATHS", ())
    assert browser_path.find_browser() is None
    installed = tmp_path / "google-chrome"
    installed.write_text("#!/bin/sh\n")
    installed.chmod(installed.stat().st_mode | stat.S_IXUSR)
    assert browser_path.find_browser() == str(installed)
    os.remove(installed)
    elsewhere = tmp_path / "opt" / "Chromium"
    elsewhere.parent.mkdir()
    elsewhere.write_text("#!/bin/sh\n")
    elsewhere.chmod(elsewhere.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setattr(browser_path, "PATHS", (str(tmp_path / "nothing"), str(elsewhere)))
    assert browser_path.find_browser() == str(elsewhere)


def test_a_run_without_a_browser_ends_with_a_line_that_says_so():
    import conftest

    class Report:
        def __init__(self, why):
            self.longrepr = ("tests/test_browser.py", 1, f"Skipped: {why}")

    class Reporter:
        def __init__(self, skipped):
            self.stats, self.lines = {"skipped": skipped}, []

        def write_line(self, line, **markup):
            self.lines.append(line)

    three = Reporter([Report(browser_path.missing_message())] * 3 + [Report("something else")])
    conftest.pytest_terminal_summary(three)
    assert len(three.lines) == 1 and three.lines[0].startswith("3 browser tests did not run")
    assert browser_path.INSTALL in three.lines[0]
    none = Reporter([Report("something else")])
    conftest.pytest_terminal_summary(none)
    assert none.lines == []
