"""Status codes map to opkit.errors classes, from C++ by code."""

import numpy as np
import pytest

import opkit
from opkit import _opkit, errors

CLASSES = [
    (errors.CANCELLED, errors.CancelledError),
    (errors.UNKNOWN, errors.UnknownError),
    (errors.INVALID_ARGUMENT, errors.InvalidArgumentError),
    (errors.DEADLINE_EXCEEDED, errors.DeadlineExceededError),
    (errors.NOT_FOUND, errors.NotFoundError),
    (errors.ALREADY_EXISTS, errors.AlreadyExistsError),
    (errors.PERMISSION_DENIED, errors.PermissionDeniedError),
    (errors.RESOURCE_EXHAUSTED, errors.ResourceExhaustedError),
    (errors.FAILED_PRECONDITION, errors.FailedPreconditionError),
    (errors.ABORTED, errors.AbortedError),
    (errors.OUT_OF_RANGE, errors.OutOfRangeError),
    (errors.UNIMPLEMENTED, errors.UnimplementedError),
    (errors.INTERNAL, errors.InternalError),
    (errors.UNAVAILABLE, errors.UnavailableError),
    (errors.DATA_LOSS, errors.DataLossError),
    (errors.UNAUTHENTICATED, errors.UnauthenticatedError),
]


def test_codes_match_opkit():
    assert [c for c, _ in CLASSES] == list(range(1, 17))


@pytest.mark.parametrize("code,cls", CLASSES)
def test_status_code_maps_to_class(code, cls):
    with pytest.raises(cls) as info:
        _opkit._raise_status(code, f"message for {code}")
    assert isinstance(info.value, errors.OpError)
    assert info.value.code == code
    assert info.value.message == f"message for {code}"
    assert str(info.value) == f"message for {code}"
    assert errors.exception_type_from_error_code(code) is cls


def test_class_codes():
    for code, cls in CLASSES:
        assert cls.code == code
        assert cls.__name__.endswith("Error")


def test_bad_code_lookup():
    with pytest.raises(ValueError):
        errors.exception_type_from_error_code(99)


def test_runtime_errors_use_the_classes():
    with pytest.raises(errors.NotFoundError):
        opkit.kernels.explain("NoSuchOpAnywhere")
    with pytest.raises(errors.InvalidArgumentError) as info:
        opkit.ops.mat_mul(np.ones((2, 3), np.float32), np.ones((2, 3), np.float32))
    assert info.value.code == errors.INVALID_ARGUMENT
    assert info.value.message
