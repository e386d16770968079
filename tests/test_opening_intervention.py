import pandas as pd
import pytest

from rlvr_support.probes.opening_intervention import intervention_run, intervention_tables, top_openings
from rlvr_support.data.toyworld.tokenizer import build_tokenizer
from rlvr_support.figures.intervention_bars import plot_intervention
from benchmark_samples import sample, write_benchmark_files
from support_helpers import math_prompts, tiny_checkpoint, write_samples, write_scores


def test_top_openings_weight_models_equally():
    a = pd.DataFrame({"token_ids": [[1, 2]] * 9 + [[3, 4]]})
    b = pd.DataFrame({"token_ids": [[3, 4]] * 2 + [[5, 6]] * 2})
    # mixture: (1,2) 0.45, (3,4) 0.05 + 0.25 = 0.30, (5,6) 0.25
    assert top_openings({"base": a, "x": b}, m=2, top=2) == [(1, 2), (3, 4)]


def _run_rows(model, opening, succ_by_prompt):
    return [{"model": model, "opening": opening, "opening_text": opening, "prompt_id": p, "sample_idx": i, "reward": r}
            for p, rs in succ_by_prompt.items() for i, r in enumerate(rs)]


def test_decomposition_hand_example(tmp_path):
    # base opens with "1 2" (step, success 1.0) half the time and "3 4" (direct, success 0) half;
    # the checkpoint opens with "3 4" 3/4 of the time.
    sm, sc = tmp_path / "samples", tmp_path / "scores"
    samples = {"base": write_samples(sm, "base", "math", {"p": [[1, 2], [1, 2], [3, 4], [3, 4]]}),
               "if/seed0": write_samples(sm, "if/seed0", "math", {"p": [[1, 2], [3, 4], [3, 4], [3, 4]]})}
    scores = {"base": write_scores(sc, "base", "math", {"p": [1, 1, 0, 0]}),
              "if/seed0": write_scores(sc, "if/seed0", "math", {"p": [1, 0, 0, 1]})}
    run = pd.DataFrame(_run_rows("base", "1 2", {"p": [1, 1]}) + _run_rows("base", "3 4", {"p": [0, 0]})
                       + _run_rows("if/seed0", "1 2", {"p": [1, 0]}) + _run_rows("if/seed0", "3 4", {"p": [0, 0]}))
    per, dec = intervention_tables(run, {k: str(v) for k, v in samples.items()}, {k: str(v) for k, v in scores.items()},
                                   m=2, n_boot=50, ci=0.9, seed=0)
    p = per.set_index(["model", "opening"])
    assert p.loc[("if/seed0", "1 2"), "success"] == 0.5 and p.loc[("if/seed0", "3 4"), "p_model"] == 0.75
    d = dec.set_index("model")
    assert d.loc["base", "covered"] == 1.0 and d.loc["base", "decomposed"] == pytest.approx(0.5)
    assert d.loc["base", "measured"] == 0.5
    assert d.loc["if/seed0", "decomposed"] == pytest.approx(0.25 * 0.5)
    assert d.loc["if/seed0", "rerank_only"] == pytest.approx(0.25 * 1.0)
    assert d.loc["if/seed0", "rerank_gain"] == pytest.approx(0.25 - 0.5)
    assert d.loc["if/seed0", "measured"] == 0.5


@pytest.mark.parametrize("backend", ["hf", "fast"])
def test_intervention_run_forces_the_opening(tmp_path, backend):
    m0 = tiny_checkpoint(tmp_path / "m0", seed=0)
    prompts = math_prompts(tmp_path / "math.jsonl", [("3 + 4", "7"), ("5 + 6", "11")])
    lines = prompts.read_text().splitlines()
    prompts.write_text(lines[0] + "\n" + lines[1][:-1] + ', "source": "gsm8k"}\n')
    tok = build_tokenizer()
    opening = tok("answer :", add_special_tokens=False)["input_ids"]
    s = write_samples(tmp_path / "samples", "base", "math", {"math-eval-00000": [opening + [9]] * 2,
                                                              "math-eval-00001": [opening] * 2})
    run = intervention_run({"base": str(m0)}, {"base": str(s)}, str(prompts), m=2,
                           cfg={"top": 1, "prompts": 2, "n": 2, "max_new_tokens": 3},
                           sampling={"backend": backend, "temperature": 1.0, "top_p": 1.0, "seed": 0,
                                     "prompt_batch": 4},
                           scoring={"timeout_s": 1.0, "workers": 1, "reasoning": "none"}, seed=0)
    assert len(run) == 4 and set(run["opening_text"]) == {"answer :"}
    # the prompt's source; a prompt without one: the eval set's name
    assert dict(zip(run["prompt_id"], run["benchmark"])) == {"math-eval-00000": "math", "math-eval-00001": "gsm8k"}
    assert all(t.startswith("answer :") for t in run["text"])
    assert set(run["reward"]) <= {0.0, 1.0}


def test_top_openings_read_only_samples_with_token_arrays():
    a = pd.DataFrame({"token_ids": [[1, 2], [], []], "has_token_arrays": [True, False, False]})
    assert top_openings({"base": a}, m=2, top=2) == [(1, 2)]  # not the empty opening of the bare rows


def test_decomposition_per_benchmark(tmp_path):
    # gsm8k (prompt g): base opens "1 2" twice (with arrays) and twice more without arrays (reward 0:
    # counted in `measured`, not in P(o)); math500 (prompt m): base opens "3 4" always
    base = [sample("g", "gsm8k", [1, 2], reward=1), sample("g", "gsm8k", [1, 2], reward=1),
            sample("g", "gsm8k", [1, 2], reward=0, arrays=False), sample("g", "gsm8k", [1, 2], reward=0, arrays=False),
            sample("m", "math500", [3, 4], reward=1), sample("m", "math500", [3, 4], reward=0)]
    rl = [sample("g", "gsm8k", [3, 4], reward=0), sample("g", "gsm8k", [1, 2], reward=1),
          sample("m", "math500", [3, 4], reward=1), sample("m", "math500", [3, 4], reward=1)]
    files = {"base": write_benchmark_files(tmp_path, "base", "math", base),
             "if/seed0": write_benchmark_files(tmp_path, "if/seed0", "math", rl)}
    rows = []
    for model, succ in (("base", {"1 2": 1.0, "3 4": 0.5}), ("if/seed0", {"1 2": 0.5, "3 4": 0.0})):
        for o, r in succ.items():
            for pid, bench in (("g", "gsm8k"), ("m", "math500")):
                rows += [{**x, "benchmark": bench} for x in _run_rows(model, o, {pid: [r, r]})]
    per, dec = intervention_tables(pd.DataFrame(rows), {k: str(v[0]) for k, v in files.items()},
                                   {k: str(v[1]) for k, v in files.items()}, m=2, n_boot=20, ci=0.9, seed=0)
    assert list(per.columns[3:5]) == list(dec.columns[3:5]) == ["eval_set", "benchmark"]
    p = per.set_index(["model", "benchmark", "opening"])
    assert p.loc[("base", "gsm8k", "1 2"), "p_model"] == 1.0 and p.loc[("base", "math500", "3 4"), "p_model"] == 1.0
    assert p.loc[("if/seed0", "gsm8k", "3 4"), "p_model"] == 0.5
    d = dec.set_index(["model", "benchmark"])
    assert d.loc[("base", "gsm8k"), "measured"] == 0.5  # every sample, with arrays or not
    assert d.loc[("base", "gsm8k"), "measured_on_covered"] == 1.0  # the samples whose opening is known
    assert d.loc[("base", "gsm8k"), "decomposed"] == pytest.approx(1.0)
    assert d.loc[("base", "math500"), "decomposed"] == pytest.approx(0.5)
    # if on gsm8k: P = (1 2) 0.5, (3 4) 0.5 -> base continuations give 0.5 * 1.0 + 0.5 * 0.5
    assert d.loc[("if/seed0", "gsm8k"), "rerank_only"] == pytest.approx(0.75)
    assert d.loc[("if/seed0", "gsm8k"), "rerank_gain"] == pytest.approx(0.75 - 1.0)
    assert d.loc[("if/seed0", "math500"), "rerank_gain"] == pytest.approx(0.0)


def test_intervention_figure_has_a_panel_per_benchmark(drawn):
    per = pd.DataFrame([{"chain": c, "benchmark": b, "opening": "1 2", "opening_text": "step :", "success": 0.5,
                         "success_lo": 0.4, "success_hi": 0.6, "p_model": 0.5}
                        for c in ("base", "if") for b in ("gsm8k", "math500")])
    plot_intervention(per, "math", "unused.png")
    assert [a.get_title() for a in drawn[0].axes] == ["gsm8k", "math500"]
