"""Helpers shared by the advisory tests.

Each test names its advisory (test_tfsa_2021_029_...) and calls the op the
way the advisory's proof of concept does, through opkit.raw_ops or a
Session graph. `raises` asserts the error class TensorFlow's fix gives and
that the message says what was wrong.
"""

import contextlib
import re

import pytest

from opkit import errors


@contextlib.contextmanager
def raises(kind, match):
    """Asserts the block raises opkit.errors.<kind> (e.g. "InvalidArgument")
    with a message matching the regex `match` (searched, case-insensitive)."""
    cls = getattr(errors, kind + "Error")
    with pytest.raises(errors.OpError) as info:
        yield info
    err = info.value
    assert isinstance(err, cls), (
        f"expected {cls.__name__}, got {type(err).__name__}: {err}")
    assert re.search(match, str(err), re.IGNORECASE), (
        f"message {str(err)!r} does not match {match!r}")


@contextlib.contextmanager
def raises_any_error(match):
    """For advisories whose fix TensorFlow left to whichever check comes
    first: any opkit error (never a crash), with a message matching `match`."""
    with pytest.raises(errors.OpError) as info:
        yield info
    assert re.search(match, str(info.value), re.IGNORECASE), (
        f"message {str(info.value)!r} does not match {match!r}")
