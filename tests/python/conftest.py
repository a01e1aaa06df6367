"""Fixtures shared by the opkit Python tests."""

import os

import pytest

import opkit


@pytest.fixture(scope="session")
def zero_out():
    """The examples/zero_out library as a module (ctest passes its path in
    OPKIT_TEST_ZERO_OUT)."""
    path = os.environ.get("OPKIT_TEST_ZERO_OUT")
    if not path:
        pytest.skip("OPKIT_TEST_ZERO_OUT (path of zero_out.so) is not set")
    return opkit.load_op_library(path)
