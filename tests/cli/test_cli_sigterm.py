"""SIGTERM stops a command as Ctrl-C does (exit 143), only while the command runs and only
where the process left SIGTERM to its default."""

from __future__ import annotations

import os
import signal
import time

import pytest

import skmlfs.cli as cli


def _command_killed_by_sigterm(args):
    os.kill(os.getpid(), signal.SIGTERM)
    time.sleep(5)  # the handler interrupts this at once
    raise AssertionError("SIGTERM did not stop the command")


@pytest.fixture
def default_sigterm():
    prev = signal.signal(signal.SIGTERM, signal.SIG_DFL)
    yield
    signal.signal(signal.SIGTERM, prev)


def test_sigterm_stops_the_command_with_143(monkeypatch, capsys, default_sigterm):
    monkeypatch.setattr(cli, "load", lambda _: _command_killed_by_sigterm)
    assert cli.main(["methods"]) == 143
    assert capsys.readouterr().err.strip().endswith("terminated")
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL  # given back


def test_a_handler_of_the_caller_is_left_alone(monkeypatch, default_sigterm):
    got = []
    signal.signal(signal.SIGTERM, lambda s, f: got.append(s))
    monkeypatch.setattr(cli, "load", lambda _: _command_killed_by_sigterm)
    monkeypatch.setattr(time, "sleep", lambda s: None)
    with pytest.raises(AssertionError, match="did not stop"):  # the command went on
        cli.main(["methods"])
    assert got == [signal.SIGTERM]


def test_a_second_sigterm_does_not_cut_the_commands_cleanup(monkeypatch, default_sigterm):
    cleaned = []

    def command(args):  # `timeout` signals the command, then its process group
        try:
            _command_killed_by_sigterm(args)
        finally:
            os.kill(os.getpid(), signal.SIGTERM)
            cleaned.append(True)

    monkeypatch.setattr(cli, "load", lambda _: command)
    assert cli.main(["methods"]) == 143
    assert cleaned == [True]
