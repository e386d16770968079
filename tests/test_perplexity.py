import math

import numpy as np
import pandas as pd
import pytest
import torch

from rlvr_support.probes.perplexity import perplexity_run, perplexity_table
from rlvr_support.models.loading import load_policy
from rlvr_support.figures.perplexity_bars import plot_perplexity
from support_helpers import math_prompts, tiny_checkpoint


def test_nll_matches_the_models_own_loss(tmp_path):
    ck = tiny_checkpoint(tmp_path / "m", seed=0)
    prompts = math_prompts(tmp_path / "math.jsonl", [("3 + 4", "7"), ("12 + 3 * 4", "24")])
    df = perplexity_run(str(ck), str(prompts), count=5, seed=0)
    assert len(df) == 2 * 3 and set(df["style"]) == {"step", "so", "answer"}
    assert set(df["benchmark"]) == {"math"}  # prompts without a `source`: the toy world's math
    model, tok = load_policy(ck)
    row = df[(df["prompt_id"] == "math-eval-00000") & (df["style"] == "answer")].iloc[0]
    p = tok("Q : solve 3 + 4 . A :")["input_ids"]
    r = tok("answer : 7", add_special_tokens=False)["input_ids"] + [tok.eos_token_id]
    ids = torch.tensor([p + r])
    labels = torch.tensor([[-100] * len(p) + r])
    with torch.no_grad():
        loss = model(input_ids=ids, labels=labels).loss.item()  # mean NLL over the response tokens
    assert row["n_tokens"] == len(r)
    assert row["nll"] / row["n_tokens"] == pytest.approx(loss, rel=1e-4)


def test_table_is_exp_of_pooled_nll_per_token():
    base = pd.DataFrame({"prompt_id": ["a", "a", "b", "b"], "style": ["step", "answer"] * 2,
                         "nll": [4.0, 1.0, 6.0, 1.0], "n_tokens": [4, 2, 4, 2]})
    rl = base.assign(nll=base["nll"] * 2)
    t = perplexity_table({"base": base, "math/seed0": rl}, n_boot=50, ci=0.9, seed=0).set_index(["chain", "style"])
    assert t.loc[("base", "step"), "perplexity"] == pytest.approx(math.exp(10 / 8))
    assert t.loc[("base", "all"), "perplexity"] == pytest.approx(math.exp(12 / 12))
    assert t.loc[("math", "all"), "nll_diff"] == pytest.approx(np.mean([10 / 6, 14 / 6]) - np.mean([5 / 6, 7 / 6]))
    with pytest.raises(ValueError, match="base"):
        perplexity_table({"math/seed0": rl}, n_boot=10, ci=0.9, seed=0)


def test_table_rows_per_benchmark(drawn):
    base = pd.DataFrame({"prompt_id": ["a", "a", "b", "b"], "benchmark": ["gsm8k"] * 2 + ["math500"] * 2,
                         "style": ["step", "answer"] * 2, "nll": [4.0, 1.0, 6.0, 1.0], "n_tokens": [4, 2, 4, 2]})
    rl = base.assign(nll=base["nll"] * 2)
    t = perplexity_table({"base": base, "math/seed0": rl}, n_boot=20, ci=0.9, seed=0)
    assert list(t.columns[:4]) == ["chain", "eval_set", "benchmark", "style"]
    r = t.set_index(["chain", "benchmark", "style"])
    assert r.loc[("base", "gsm8k", "all"), "perplexity"] == pytest.approx(math.exp(5 / 6))
    assert r.loc[("base", "math500", "step"), "perplexity"] == pytest.approx(math.exp(6 / 4))
    assert r.loc[("math", "math500", "all"), "nll_diff"] == pytest.approx(14 / 6 - 7 / 6)
    assert set(t["n_prompts"]) == {1}
    plot_perplexity(t, "unused.png")
    assert [a.get_title() for a in drawn[0].axes] == ["gsm8k", "math500"]


def test_runs_without_the_column_are_the_math_benchmark():
    base = pd.DataFrame({"prompt_id": ["a"], "style": ["step"], "nll": [2.0], "n_tokens": [2]})
    t = perplexity_table({"base": base}, n_boot=10, ci=0.9, seed=0)
    assert set(zip(t["eval_set"], t["benchmark"])) == {("math", "math")}
