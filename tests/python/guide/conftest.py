"""The guide's files are run by tests/python/test_guide_gradient.py (the
test loads './zero_out.so', so it runs in a folder that has one), not
collected here."""

collect_ignore = ["zero_out_op_test.py", "zero_out_grad.py"]
