"""Exceptions raised by opkit, one class per status code, as in tf.errors.

    try:
        opkit.raw_ops.MatMul(a=x, b=y)
    except opkit.errors.InvalidArgumentError as e:
        print(e.code, e.message)   # 3, "Matrix size-incompatible: ..."

Every class derives from OpError, which carries `.code` (the number of the
status code, also available as a constant such as opkit.errors.NOT_FOUND)
and `.message`. The C++ side picks the class from the Status code directly;
nothing parses message text.
"""

OK = 0
CANCELLED = 1
UNKNOWN = 2
INVALID_ARGUMENT = 3
DEADLINE_EXCEEDED = 4
NOT_FOUND = 5
ALREADY_EXISTS = 6
PERMISSION_DENIED = 7
RESOURCE_EXHAUSTED = 8
FAILED_PRECONDITION = 9
ABORTED = 10
OUT_OF_RANGE = 11
UNIMPLEMENTED = 12
INTERNAL = 13
UNAVAILABLE = 14
DATA_LOSS = 15
UNAUTHENTICATED = 16


class OpError(Exception):
    """An error reported by opkit's runtime: a non-OK Status.

    Attributes:
      code: the status code (an int, e.g. opkit.errors.INVALID_ARGUMENT).
      message: the Status message.
    """

    code = UNKNOWN

    def __init__(self, message="", code=None):
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code

    def __str__(self):
        return self.message


def _make(name, code, doc):
    cls = type(name, (OpError,), {"__doc__": doc, "code": code})
    cls.__module__ = __name__
    return cls


CancelledError = _make("CancelledError", CANCELLED, "The operation was cancelled.")
UnknownError = _make("UnknownError", UNKNOWN, "An unknown error.")
InvalidArgumentError = _make(
    "InvalidArgumentError", INVALID_ARGUMENT,
    "An op received an invalid argument (input, attr or graph).")
DeadlineExceededError = _make(
    "DeadlineExceededError", DEADLINE_EXCEEDED, "A deadline expired.")
NotFoundError = _make(
    "NotFoundError", NOT_FOUND, "A requested entity (op, kernel, file) was not found.")
AlreadyExistsError = _make(
    "AlreadyExistsError", ALREADY_EXISTS, "An entity being created already exists.")
PermissionDeniedError = _make(
    "PermissionDeniedError", PERMISSION_DENIED, "Permission denied.")
ResourceExhaustedError = _make(
    "ResourceExhaustedError", RESOURCE_EXHAUSTED, "A resource (e.g. memory) ran out.")
FailedPreconditionError = _make(
    "FailedPreconditionError", FAILED_PRECONDITION,
    "The system is not in a state the operation needs.")
AbortedError = _make("AbortedError", ABORTED, "The operation was aborted.")
OutOfRangeError = _make(
    "OutOfRangeError", OUT_OF_RANGE, "An operation went past the valid range.")
UnimplementedError = _make(
    "UnimplementedError", UNIMPLEMENTED, "The operation is not implemented.")
InternalError = _make("InternalError", INTERNAL, "An internal invariant broke.")
UnavailableError = _make("UnavailableError", UNAVAILABLE, "The service is unavailable.")
DataLossError = _make("DataLossError", DATA_LOSS, "Unrecoverable data loss.")
UnauthenticatedError = _make(
    "UnauthenticatedError", UNAUTHENTICATED, "The request lacks valid credentials.")

# Indexed by code; index 0 (OK) has no exception.
_BY_CODE = (
    None, CancelledError, UnknownError, InvalidArgumentError,
    DeadlineExceededError, NotFoundError, AlreadyExistsError,
    PermissionDeniedError, ResourceExhaustedError, FailedPreconditionError,
    AbortedError, OutOfRangeError, UnimplementedError, InternalError,
    UnavailableError, DataLossError, UnauthenticatedError)


def exception_type_from_error_code(code):
    """The OpError subclass of `code` (TensorFlow's helper of that name)."""
    if not isinstance(code, int) or not 0 < code < len(_BY_CODE):
        raise ValueError(f"Unknown error code {code!r}; expected 1..16")
    return _BY_CODE[code]


__all__ = ["OpError", "exception_type_from_error_code"] + [
    c.__name__ for c in _BY_CODE[1:]] + [
    "OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED",
    "NOT_FOUND", "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED",
    "FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED",
    "INTERNAL", "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED"]
