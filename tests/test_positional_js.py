import json

import numpy as np
import pandas as pd
import pytest
import torch

from rlvr_support.probes.positional_js import (
    _curve_stats,
    choose_prompts,
    js_tables,
    positional_js_run,
    select_samples,
)
from rlvr_support.analysis.runs import parse_files
from rlvr_support.probes.teacher_forcing import response_ids, response_logprobs
from rlvr_support.models.loading import load_policy
from rlvr_support.figures.js_curves import plot_js_curves
from support_helpers import math_prompts, tiny_checkpoint, write_samples


@pytest.fixture(scope="module")
def two_models(tmp_path_factory):
    d = tmp_path_factory.mktemp("models")
    return tiny_checkpoint(d / "a", seed=0), tiny_checkpoint(d / "b", seed=1)


def test_response_ids_append_eos_only_when_stopped():
    assert response_ids([5, 6], "stop", 2) == [5, 6, 2]
    assert response_ids([5, 6], "length", 2) == [5, 6]


def test_teacher_forcing_matches_unpadded_passes(two_models):
    model, tok = load_policy(two_models[0])
    prompts = [tok("Q : solve 3 + 4 . A :")["input_ids"], tok("Q : solve 12 + 30 . A :")["input_ids"]]
    resps = [[10, 11, 12, tok.eos_token_id], [20]]
    lp, mask = response_logprobs(model, prompts, resps, tok.pad_token_id)
    assert mask.tolist() == [[True] * 4, [True, False, False, False]]
    for p, r, i in zip(prompts, resps, range(2)):
        with torch.no_grad():
            ref = torch.log_softmax(model(input_ids=torch.tensor([p + r[:-1]])).logits[0].float(), -1)
        assert torch.allclose(lp[i, :len(r)], ref[len(p) - 1:len(p) - 1 + len(r)], atol=1e-5)


def test_js_is_zero_against_itself_and_positive_between_models(two_models, tmp_path):
    prompts = math_prompts(tmp_path / "math.jsonl", [("3 + 4", "7"), ("5 + 6", "11"), ("9 + 9", "18")])
    ids = {f"math-eval-{i:05d}": [[10, 11, 12], [13, 14]] for i in range(3)}
    s = write_samples(tmp_path / "samples", "base", "math", ids)
    cfg = {"prompts": 2, "samples_per_prompt": 1, "max_positions": 3, "batch": 4}
    same = positional_js_run(str(two_models[0]), str(two_models[0]), str(s), str(s), str(prompts), cfg, seed=0)
    assert same["js"].abs().max() < 1e-6
    assert set(same["source"]) == {"base", "ckpt"} and same["prompt_id"].nunique() == 2
    assert sorted(same["position"].unique()) == [0, 1, 2]  # 3 tokens + eos, cut at max_positions
    diff = positional_js_run(str(two_models[0]), str(two_models[1]), str(s), str(s), str(prompts), cfg, seed=0)
    assert (diff["js"] > 1e-4).all() and (diff["js"] <= np.log(2)).all()


def test_choose_prompts_is_seeded_and_sorted():
    ids = [f"p{i}" for i in range(20)]
    a = choose_prompts(ids, 5, seed=3)
    assert a == choose_prompts(list(reversed(ids)), 5, seed=3) and a == sorted(a) and len(a) == 5
    assert choose_prompts(ids, 50, seed=0) == sorted(ids)


def test_curve_statistics_hand_example():
    T, m = 4, 1
    # js sums at positions 0..3 then counts: curve = [0.4, 0.1, 0.1, nan]
    sums = np.array([0.8, 0.2, 0.1, 0.0, 2, 2, 1, 0], dtype=float)
    out = _curve_stats(m, T)(sums)
    assert out[:3] == pytest.approx([0.4, 0.1, 0.1]) and np.isnan(out[3])
    share, early, late, gap = out[T:]
    assert share == pytest.approx(0.4 / 0.6) and early == pytest.approx(0.4)
    assert late == pytest.approx(0.1) and gap == pytest.approx(0.3)


def test_js_tables_from_runs(tmp_path):
    rows = []
    for src in ("base", "ckpt"):
        for pid in ("a", "b"):
            for t, v in enumerate([0.3, 0.1, 0.1]):
                rows.append({"source": src, "prompt_id": pid, "sample_idx": 0, "position": t, "js": v})
    path = tmp_path / "math" / "seed0" / "math.parquet"
    path.parent.mkdir(parents=True)
    pd.DataFrame(rows).to_parquet(path)
    pos, share = js_tables(parse_files([path], tmp_path), m=1, n_boot=50, ci=0.9, seed=0)
    assert len(pos) == 6 and pos["n_tokens"].tolist() == [2] * 6
    r = share[share["source"] == "base"].iloc[0]
    assert r["share_first_m"] == pytest.approx(0.6) and r["uniform_share"] == pytest.approx(1 / 3)
    assert r["early_minus_late"] == pytest.approx(0.2)


def _run_rows(bench, pid, curve, column=True):
    return [{"source": src, **({"benchmark": bench} if column else {}), "prompt_id": pid, "sample_idx": 0,
             "position": t, "js": v} for src in ("base", "ckpt") for t, v in enumerate(curve)]


def test_js_tables_per_benchmark(tmp_path, drawn):
    from rlvr_support.storage.atomic import write_parquet

    path = tmp_path / "math" / "seed0" / "math.parquet"
    path.parent.mkdir(parents=True)
    write_parquet(path, pd.DataFrame(_run_rows("gsm8k", "g", [0.3, 0.1, 0.1]) + _run_rows("math500", "m", [0.1, 0.3])))
    pos, share = js_tables(parse_files([path], tmp_path), m=1, n_boot=20, ci=0.9, seed=0)
    assert list(pos.columns[:3]) == list(share.columns[:3]) == ["chain", "eval_set", "benchmark"]
    s = share[share["source"] == "base"].set_index("benchmark")
    assert s.loc["gsm8k", "share_first_m"] == pytest.approx(0.6) and s.loc["gsm8k", "n_positions"] == 3
    assert s.loc["math500", "share_first_m"] == pytest.approx(0.25)
    assert s.loc["math500", "early_minus_late"] == pytest.approx(-0.2)
    assert len(pos[pos["benchmark"] == "math500"]) == 2 * 2
    plot_js_curves(pos, "math", 1, "unused.png")
    assert [a.get_title() for a in drawn[0].axes] == [
        "gsm8k: prefixes from base samples", "math500: prefixes from base samples",
        "gsm8k: prefixes from checkpoint samples", "math500: prefixes from checkpoint samples"]


def test_js_runs_without_the_column_are_one_benchmark(tmp_path):
    path = tmp_path / "if" / "seed0" / "if.parquet"
    path.parent.mkdir(parents=True)
    pd.DataFrame(_run_rows("", "a", [0.2, 0.2], column=False)).to_parquet(path)
    _, share = js_tables(parse_files([path], tmp_path), m=1, n_boot=10, ci=0.9, seed=0)
    assert share["benchmark"].tolist() == ["if", "if"]


def test_prefixes_are_samples_with_token_arrays():
    s = pd.DataFrame({"prompt_id": ["a"] * 3 + ["b"], "sample_idx": [0, 1, 2, 0], "benchmark": ["x"] * 3 + ["y"],
                      "has_token_arrays": [False, True, True, False], "token_ids": [[], [1], [2], []]})
    sel = select_samples(s, ["a"], per_prompt=1)
    assert sel["sample_idx"].tolist() == [1]
    with pytest.raises(ValueError, match="benchmark y"):
        select_samples(s, ["a", "b"], per_prompt=1)


def test_js_run_rows_name_the_prompts_benchmark(two_models, tmp_path):
    prompts = math_prompts(tmp_path / "math.jsonl", [("3 + 4", "7"), ("5 + 6", "11")])
    lines = [json.loads(x) for x in prompts.read_text().splitlines()]
    lines[1]["source"] = "gsm8k"  # the first has no `source`: it is the eval set's benchmark
    prompts.write_text("".join(json.dumps(r) + "\n" for r in lines))
    s = write_samples(tmp_path / "samples", "base", "math", {f"math-eval-{i:05d}": [[10, 11]] for i in range(2)})
    cfg = {"prompts": 2, "samples_per_prompt": 1, "max_positions": 2, "batch": 4}
    run = positional_js_run(str(two_models[0]), str(two_models[1]), str(s), str(s), str(prompts), cfg, seed=0)
    assert dict(zip(run["prompt_id"], run["benchmark"])) == {"math-eval-00000": "math", "math-eval-00001": "gsm8k"}
