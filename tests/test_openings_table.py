import pytest

from rlvr_support.analysis.openings_table import opening_style, openings_tables
from rlvr_support.analysis.runs import parse_files
from rlvr_support.figures.openings_scatter import plot_openings_scatter
from benchmark_samples import sample, write_benchmark_files
from support_helpers import write_samples


def test_opening_style_reads_the_first_word():
    assert opening_style("step : 4 + 5 = 9 . answer : 9") == "step"
    assert opening_style('" ANSWER : 9 "') == "answer"
    assert opening_style("the sea is calm") == "other"
    assert opening_style("") == "other"


def test_rank_shift_in_base_mass_and_styles(tmp_path):
    root = tmp_path
    base = write_samples(root, "base", "math", {"a": [[1, 2], [1, 2], [3, 4]], "b": [[1, 2], [3, 4], [3, 4]]},
                         texts={"a": ["step : x", "step : y", "answer : 1"], "b": ["step : z", "answer : 2", "answer : 3"]})
    rl = write_samples(root, "if/seed0", "math", {"a": [[3, 4], [3, 4], [5, 6]], "b": [[3, 4], [3, 4], [3, 4]]},
                       texts={"a": ["answer : 1", "answer : 1", "so : 1"], "b": ["answer : 2"] * 3})
    shift, summary, styles = openings_tables(parse_files([base, rl], root), m=2, top=2, n_boot=100, ci=0.95, seed=0)
    s = shift.set_index("opening")
    # base: "1 2" and "3 4" tie at 3 samples each; the tie goes to the smaller string
    assert s.loc["3 4", "rl_rank"] == 1 and s.loc["3 4", "base_rank"] == 2 and s.loc["3 4", "rank_shift"] == 1
    assert s.loc["3 4", "rl_prob"] == pytest.approx(5 / 6) and s.loc["3 4", "base_prob"] == pytest.approx(0.5)
    assert not s.loc["5 6", "in_base_support"]
    row = summary[summary["chain"] == "if"].iloc[0]
    assert row["in_base_mass"] == pytest.approx((2 / 3 + 1) / 2)
    assert row["top_in_base_support"]
    d = styles[(styles["chain"] == "if") & (styles["style"] == "answer")].iloc[0]
    assert d["share"] == pytest.approx((2 / 3 + 1) / 2)
    assert d["diff"] == pytest.approx((2 / 3 + 1) / 2 - (1 / 3 + 2 / 3) / 2)


def test_openings_per_benchmark_read_only_samples_with_token_arrays(tmp_path, drawn):
    # gsm8k: base opens "1 2" twice; the checkpoint opens "3 4" once with arrays, and twice more
    # without (empty token ids: the opening "" if they were read), styles from all three texts
    base = [sample("g", "gsm8k", [1, 2, 9], text="step : 1"), sample("g", "gsm8k", [1, 2], text="step : 2"),
            sample("m", "math500", [5, 6], text="answer : 3"), sample("m", "math500", [5, 6], text="answer : 3")]
    rl = [sample("g", "gsm8k", [3, 4], text="answer : 1"),
          sample("g", "gsm8k", [3, 4], text="answer : 1", arrays=False),
          sample("g", "gsm8k", [3, 4], text="so : 1", arrays=False),
          sample("m", "math500", [5, 6], text="answer : 3"), sample("m", "math500", [7, 8], text="step : 3")]
    files = [write_benchmark_files(tmp_path, "base", "math", base)[0],
             write_benchmark_files(tmp_path, "if/seed0", "math", rl)[0]]
    shift, summary, styles = openings_tables(parse_files(files, tmp_path / "samples"), m=2, top=3, n_boot=20,
                                             ci=0.9, seed=0)
    for t in (shift, summary, styles):
        assert list(t.columns[:3]) == ["chain", "eval_set", "benchmark"]
    s = shift.set_index(["benchmark", "opening"])
    assert s.loc[("gsm8k", "3 4"), "rl_prob"] == 1.0 and ("gsm8k", "") not in s.index
    assert not s.loc[("gsm8k", "3 4"), "in_base_support"]
    assert s.loc[("math500", "5 6"), "rl_prob"] == 0.5 and s.loc[("math500", "5 6"), "in_base_support"]
    row = summary[(summary["chain"] == "if")].set_index("benchmark")
    assert row.loc["gsm8k", "n_samples"] == 1 and row.loc["gsm8k", "in_base_mass"] == 0.0
    assert row.loc["math500", "in_base_mass"] == 0.5
    st = styles[(styles["chain"] == "if") & (styles["benchmark"] == "gsm8k") & (styles["seed"] == "all")]
    st = st.set_index("style")
    assert st.loc["answer", "share"] == pytest.approx(2 / 3) and st.loc["so", "share"] == pytest.approx(1 / 3)
    # each RL seed has rows of its own (one seed here: the same shares); the base has pooled rows only
    one = styles[(styles["chain"] == "if") & (styles["benchmark"] == "gsm8k") & (styles["seed"] == "0")]
    assert one.set_index("style").loc["answer", "share"] == pytest.approx(2 / 3)
    assert set(styles[styles["chain"] == "base"]["seed"]) == {"all"}
    plot_openings_scatter(shift, "math", "unused.png")
    assert [a.get_title() for a in drawn[0].axes] == ["gsm8k", "math500"]


def test_openings_of_old_files_are_one_benchmark_and_bare_benchmarks_open_with_words(tmp_path):
    old = write_samples(tmp_path, "base", "if", {"a": [[1, 2]]})
    _, summary, _ = openings_tables(parse_files([old], tmp_path), m=2, top=2, n_boot=10, ci=0.9, seed=0)
    assert summary["benchmark"].tolist() == ["if"] and summary["unit"].tolist() == ["tokens"]
    bare = write_benchmark_files(tmp_path / "new", "base", "math", [sample("g", "gsm8k", [1]),
                                                                    sample("m", "math500", [1], arrays=False)])[0]
    _, summary, _ = openings_tables(parse_files([bare], tmp_path / "new" / "samples"), m=2, top=2, n_boot=10,
                                    ci=0.9, seed=0)
    assert dict(zip(summary["benchmark"], summary["unit"])) == {"gsm8k": "tokens", "math500": "words"}


# ---- an imported label's tokenizer (imports.<label>.tokenizer or its model's): openings in its first tokens

def _tok_ids(tok, text):
    return tok(text, add_special_tokens=False)["input_ids"]


def test_a_text_only_label_with_a_tokenizer_opens_in_its_tokens(tmp_path):
    """In first words the openings `answer : 12` and `answer : 13` differ (m = 3), in the toy tokenizer's
    tokens both are `answer : ▁` (each digit is a token), so the label's in-base mass is 0 in words, 1 in tokens."""
    from rlvr_support.data.toyworld.tokenizer import build_tokenizer

    tok = build_tokenizer()
    base = [sample("p", "math", _tok_ids(tok, "answer : 12"), text="answer : 12") for _ in range(2)]
    lab = [sample("p", "math", [], text="answer : 13", arrays=False) for _ in range(2)]
    files = [write_benchmark_files(tmp_path, "base", "math", base)[0],
             write_benchmark_files(tmp_path, "lab", "math", lab)[0]]
    args = dict(m=3, top=2, n_boot=10, ci=0.9, seed=0, tokenizer=tok)
    _, words, _ = openings_tables(parse_files(files, tmp_path / "samples"), **args)
    row = words.set_index("chain").loc["lab"]
    assert row["unit"] == "words" and row["tokenizer"] == "" and row["in_base_mass"] == 0.0
    shift, summary, _ = openings_tables(parse_files(files, tmp_path / "samples"), **args,
                                        label_tokenizers={"lab": build_tokenizer()})
    row = summary.set_index("chain").loc["lab"]
    assert row["unit"] == "tokens" and row["tokenizer"] == "lab" and row["in_base_mass"] == 1.0
    assert row["top_opening"] == tok.decode(_tok_ids(tok, "answer : 13")[:3])
    assert shift["opening"].tolist() == [" ".join(map(str, _tok_ids(tok, "answer : 12")[:3]))]
    base_row = summary.set_index("chain").loc["base"]  # the base's own row: its sampled ids
    assert base_row["unit"] == "tokens" and base_row["tokenizer"] == "base"


@pytest.mark.parametrize("base_tokenizer", ["toy", None], ids=["base-vocabulary", "imported-base"])
def test_a_label_with_a_tokenizer_splits_both_sides_texts_and_leaves_stored_ids_aside(tmp_path, base_tokenizer):
    """The label's tokens come from its text, so the base's do too: stored ids (here not the texts' split, as
    when a model samples a split its tokenizer would not make, or of another vocabulary) are left aside on both
    sides, whether the base has a tokenizer or, imported, none."""
    from rlvr_support.data.toyworld.tokenizer import build_tokenizer
    from test_imports_tokenizers import other_vocab_tokenizer

    base = [sample("p", "math", [9, 9, 9], text="answer : 12", arrays=base_tokenizer is not None)]
    lab = [sample("p", "math", [7, 7, 7], text="answer : 13"), sample("p", "math", [], text="step : 1", arrays=False)]
    files = [write_benchmark_files(tmp_path, "base", "math", base)[0],
             write_benchmark_files(tmp_path, "lab", "math", lab)[0]]
    other = other_vocab_tokenizer()
    shift, summary, _ = openings_tables(parse_files(files, tmp_path / "samples"), m=2, top=3, n_boot=10, ci=0.9,
                                        seed=0, tokenizer=build_tokenizer() if base_tokenizer else None,
                                        label_tokenizers={"lab": other})
    row = summary.set_index("chain").loc["lab"]
    assert row["unit"] == "tokens" and row["tokenizer"] == "lab" and row["in_base_mass"] == 0.5
    s = shift.set_index("opening")
    assert s.loc["1 2", "in_base_support"] and s.loc["1 2", "opening_text"] == other.decode([1, 2])
    assert not s.loc["3 2", "in_base_support"] and "7 7" not in s.index and "9 9" not in s.index
    assert summary.set_index("chain").loc["base", "unit"] == ("tokens" if base_tokenizer else "words")
