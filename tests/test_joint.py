"""MathIF hard/soft accuracy."""

import pytest

from rlvr_support.scoring.verifiers.ifeval import IFResult
from rlvr_support.scoring.verifiers.joint import score_joint
from rlvr_support.scoring.verifiers.math import MathResult

OK, WRONG = MathResult(True, "1", False, None), MathResult(False, "2", False, None)


@pytest.mark.parametrize(
    "m,strict,expected",
    [
        (OK, (True, True), (1.0, 1.0)),
        (OK, (True, False), (0.0, 0.5)),
        (WRONG, (True, True), (0.0, 1.0)),
        (WRONG, (False, False, True, True), (0.0, 0.5)),
        (OK, (), (1.0, 1.0)),
        (MathResult(False, None, True, None), (), (0.0, 1.0)),
    ],
)
def test_score_joint(m, strict, expected):
    # loose results must not matter: joint uses strict checks
    assert score_joint(m, IFResult(strict, tuple(True for _ in strict))) == expected
