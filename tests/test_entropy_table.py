import math

import pytest

from rlvr_support.analysis.entropy_table import entropy_table, normalise_text, per_prompt_entropies
from rlvr_support.analysis.runs import parse_files
from support_helpers import write_samples, write_scores


def _files(tmp_path, ckpt, answers, entropies, task="math", texts=None):
    ids = {p: [[1, 2]] * len(a) for p, a in answers.items()}
    s = write_samples(tmp_path / "samples", ckpt, "math", ids, texts=texts, entropies=entropies)
    c = write_scores(tmp_path / "scores", ckpt, "math", {p: [0.0] * len(a) for p, a in answers.items()},
                     task=task, answers=answers)
    return s, c


def test_per_prompt_values_hand_computed(tmp_path):
    answers = {"a": ["3", "3", "4", None], "b": ["7", "7", "7", "7"]}
    ent = {"a": [[1.0, 3.0], [2.0], [0.0, 0.0, 0.0], [4.0]], "b": [[1.0]] * 4}
    s, c = _files(tmp_path, "base", answers, ent)
    df = per_prompt_entropies(s, c)
    h_a = -(0.5 * math.log(0.5) + 2 * 0.25 * math.log(0.25))
    assert df.set_index("prompt_id").loc["a", "answer_entropy"] == pytest.approx(h_a)
    assert df.set_index("prompt_id").loc["b", "answer_entropy"] == 0.0
    assert df.set_index("prompt_id").loc["a", "token_entropy"] == pytest.approx((2.0 + 2.0 + 0.0 + 4.0) / 4)
    assert df["length"].tolist() == [3.0, 3.0]


def test_if_answers_are_normalised_texts(tmp_path):
    assert normalise_text("  Hello   WORLD ") == "hello world"
    answers = {"a": [None, None]}
    s, c = _files(tmp_path, "base", answers, {"a": [[1.0], [1.0]]}, task="if", texts={"a": ["Hi  there", "hi there"]})
    assert per_prompt_entropies(s, c)["answer_entropy"].iloc[0] == 0.0


def test_table_paired_difference(tmp_path):
    b = _files(tmp_path, "base", {"a": ["1", "2"], "b": ["1", "2"]}, {"a": [[1.0], [1.0]], "b": [[1.0], [1.0]]})
    m = _files(tmp_path, "math/seed0", {"a": ["1", "1"], "b": ["1", "2"]}, {"a": [[2.0], [2.0]], "b": [[1.0], [1.0]]})
    t = entropy_table(parse_files([b[0], m[0]], tmp_path / "samples"), parse_files([b[1], m[1]], tmp_path / "scores"),
                      n_boot=100, ci=0.95, seed=0)
    r = t[(t["chain"] == "math") & (t["metric"] == "answer_entropy")].iloc[0]
    assert r["diff"] == pytest.approx(-math.log(2) / 2)
    r = t[(t["chain"] == "math") & (t["metric"] == "token_entropy")].iloc[0]
    assert r["diff"] == pytest.approx(0.5)
    assert r["diff_lo"] <= r["diff"] <= r["diff_hi"]
