"""examples/train_digits: both networks learn scikit-learn's digits in a few
epochs (the loss falls every epoch, the held-out accuracy passes 90%), and
the script prints one line per epoch and its results."""

import os
import subprocess
import sys

import pytest

EXAMPLE = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "train_digits")
sys.path.insert(0, EXAMPLE)

pytest.importorskip("sklearn", reason="python3-sklearn ships the digits data")

import train_digits  # noqa: E402


@pytest.fixture(scope="module")
def data():
    return train_digits.load_digits()


def test_data_split(data):
    x_train, y_train, x_test, y_test = data
    assert x_train.shape == (1437, 64) and x_test.shape == (360, 64)
    assert x_train.dtype.name == "float32" and y_train.dtype.name == "int32"
    assert 0.0 <= x_train.min() and x_train.max() <= 1.0
    assert set(y_test) == set(range(10))


def _losses(lines):
    return [float(line.split("loss ")[1].split()[0]) for line in lines]


def test_mlp_in_graph_mode_learns(data):
    lines = []
    accuracy = train_digits.train_mlp_graph(data, 4, lines.append)
    assert len(lines) == 4
    losses = _losses(lines)
    assert all(b < a for a, b in zip(losses, losses[1:])), losses
    assert accuracy > 0.9


def test_conv_net_on_the_tape_learns(data):
    lines = []
    accuracy = train_digits.train_conv_tape(data, 3, lines.append)
    losses = _losses(lines)
    assert all(b < a for a, b in zip(losses, losses[1:])), losses
    assert accuracy > 0.9


def test_script_prints_progress_and_results():
    out = subprocess.run(
        [sys.executable, os.path.join(EXAMPLE, "train_digits.py"), "--epochs", "2"],
        capture_output=True, text=True, timeout=600, check=True).stdout
    assert out.count("epoch") == 4
    assert "mlp (graph mode, SGD): held-out accuracy" in out
    assert "conv net (GradientTape, Adam): held-out accuracy" in out
