"""Write the small fixture files of tests/test_data_sources.py in each dataset's real column layout
(from the dataset cards). Rerun after editing: `python tests/data/sources/make_fixtures.py`."""

import json
from pathlib import Path

import pandas as pd

HERE = Path(__file__).parent


def jl(name, rows):
    with open(HERE / name, "w") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")


# openai/gsm8k (config main): question, answer ending in "#### <final>"
jl("gsm8k_test.jsonl", [
    {"question": "Natalia sold clips to 48 of her friends in April, and then she sold half as many clips in May. "
                 "How many clips did Natalia sell altogether in April and May?",
     "answer": "Natalia sold 48/2 = <<48/2=24>>24 clips in May.\nNatalia sold 48+24 = <<48+24=72>>72 clips "
               "altogether in April and May.\n#### 72"},
    {"question": "A shop sells 1,200 pens a week. How many pens does it sell in 2 weeks?",
     "answer": "1,200*2 = <<1200*2=2400>>2400\n#### 2,400"}])
# HuggingFaceH4/MATH-500: problem, solution, answer, subject, level, unique_id
pd.DataFrame([
    {"problem": "Convert the point $(0,3)$ in rectangular coordinates to polar coordinates.",
     "solution": "... $\\boxed{\\left( 3, \\frac{\\pi}{2} \\right)}.$", "answer": "\\left( 3, \\frac{\\pi}{2} \\right)",
     "subject": "Precalculus", "level": 2, "unique_id": "test/precalculus/807.json"},
    {"problem": "What is $1+1$?", "solution": "$\\boxed{2}$", "answer": "2", "subject": "Prealgebra", "level": 1,
     "unique_id": "test/prealgebra/1.json"}]).to_parquet(HERE / "math500_test.parquet", index=False)
# agentica-org/DeepScaleR-Preview-Dataset: problem, answer, solution
jl("deepscaler_train.jsonl", [{"problem": "Compute $2^{10}$.", "answer": "1024", "solution": "$2^{10}=1024$."},
                              {"problem": "Find $x$ if $3x=12$.", "answer": "4", "solution": "x=4"}])
# google/IFEval: key, prompt, instruction_id_list, kwargs (parquet: every kwargs key present, null when unused)
ALL = ["num_highlights", "relation", "num_words", "num_placeholders", "prompt_to_repeat", "num_bullets",
       "section_spliter", "num_sections", "capital_relation", "capital_frequency", "keywords", "num_paragraphs",
       "language", "let_relation", "letter", "let_frequency", "end_phrase", "forbidden_words", "keyword",
       "frequency", "num_sentences", "postscript_marker", "first_word", "nth_paragraph"]


def k(**kw):
    return {**{a: None for a in ALL}, **kw}


pd.DataFrame([
    {"key": 1000, "prompt": "Write a 300+ word summary of the wikipedia page. Do not use any commas and highlight at "
                            "least 3 sections that has titles in markdown format.",
     "instruction_id_list": ["punctuation:no_comma", "detectable_format:number_highlighted_sections",
                             "length_constraints:number_words"],
     "kwargs": [k(), k(num_highlights=3), k(relation="at least", num_words=300)]},
    {"key": 1001, "prompt": "I am planning a trip to Japan. You are not allowed to use any commas in your response.",
     "instruction_id_list": ["punctuation:no_comma"], "kwargs": [k()]},
    {"key": 1005, "prompt": "Write a resume for a fresh high school graduate. Include at least 12 placeholders in "
                            "square brackets.",
     "instruction_id_list": ["detectable_content:number_placeholders"], "kwargs": [k(num_placeholders=12)]},
]).to_parquet(HERE / "ifeval_train.parquet", index=False)
# allenai/RLVR-IFeval: messages, ground_truth (JSON string: func_name + every argument, null when unused),
# dataset, constraint_type, constraint
GT = ["N", "keyword_list", "word", "forbidden_words", "letter", "i", "first_word", "postscript_marker", "options",
      "section_splitter", "original_prompt", "quantifier", "end_phrase", "language"]


def gt(func, **kw):
    return json.dumps({"func_name": func, **{a: None for a in GT}, **kw})


def msg(text):
    return [{"role": "user", "content": text}]


pd.DataFrame([
    {"messages": msg("Write a poem about rain. Your entire response should be in English, and in all lowercase letters."),
     "ground_truth": gt("validate_lowercase"), "dataset": "ifeval", "constraint_type": "All Lowercase",
     "constraint": "Your entire response should be in English, and in all lowercase letters."},
    {"messages": msg("Describe a cat. In your response, the word fur should appear 3 times."),
     "ground_truth": gt("verify_keyword_frequency", word="fur", N=3), "dataset": "ifeval",
     "constraint_type": "Keyword Frequency", "constraint": "In your response, the word fur should appear 3 times."},
    {"messages": msg("Explain tides. Answer with around 50 words."),
     "ground_truth": gt("validate_word_constraint", N=50, quantifier="around"), "dataset": "ifeval",
     "constraint_type": "Number Words", "constraint": "Answer with around 50 words."},
    {"messages": msg("Is the sky blue? Answer with one of the following options: ('yes', 'no')"),
     "ground_truth": gt("validate_choice", options=["yes", "no"]), "dataset": "ifeval",
     "constraint_type": "Choose", "constraint": "Answer with one of the following options."},
]).to_parquet(HERE / "rlvr_ifeval_train.parquet", index=False)
# TingchenFu/MathIF (*_single.jsonl): source, id, prompt, answer, instruction_id_list, kwargs
jl("mathif_gsm8k_single.jsonl", [
    {"source": "gsm8k", "id": "gsm8k_0", "prompt": "Janet has 3 apples and buys 4 more. How many apples does she have? "
     "Your entire response should be in English, and in all lowercase letters.", "answer": "7",
     "instruction_id_list": ["change_case:english_lowercase"], "kwargs": [{}]},
    {"source": "gsm8k", "id": "gsm8k_1", "prompt": "What is 6 times 7? Answer with less than 50 words.", "answer": "42",
     "instruction_id_list": ["length_constraints:number_words"], "kwargs": [{"relation": "less than", "num_words": 50}]}])
# An IFEval row with an unknown kwarg: the loader must refuse it, naming the source and prompt.
jl("ifeval_bad.jsonl", [{"key": 7, "prompt": "x", "instruction_id_list": ["punctuation:no_comma"],
                         "kwargs": [{"num_commas": 2}]}])
# allenai/IF_multi_constraints_upto5 (IF-RLVR training): key, messages, ground_truth (a Python
# literal list whose first element is a JSON string, as open-instruct's IFEvalVerifier reads it),
# dataset, constraint_type, constraint. Row 2's empty keyword is refused (skipped, counted); row 3's
# word is a list, whose first element upstream takes.
def ifevalg(ids, kwargs):
    return str([json.dumps({"instruction_id": ids, "kwargs": kwargs})])


jl("iftrain_train.jsonl", [
    {"key": "if_0", "messages": msg("Describe the sea. Include keyword waves once in your response, keyword "
                                    "foam twice in your response. Do not use any dots."),
     "ground_truth": ifevalg(["count:count_increment_word", "punctuation:punctuation_dot"],
                             [{"keyword1": "waves", "keyword2": "foam", "N": None}, None]),
     "dataset": "ifeval", "constraint_type": "multi", "constraint": "..."},
    {"key": "if_1", "messages": msg("Name a fruit. The last word of your response should be the word apple."),
     "ground_truth": str([{"instruction_id": ["last_word:last_word_answer"], "kwargs": [{"last_word": "apple"}]}]),
     "dataset": "ifeval", "constraint_type": "single", "constraint": "..."},
    {"key": "if_2", "messages": msg("Say hi. Include keyword  once."),
     "ground_truth": ifevalg(["keywords:word_once"], [{"keyword": " "}]),
     "dataset": "ifeval", "constraint_type": "single", "constraint": "..."},
    {"key": "if_3", "messages": msg("Tell a story. The first word of each sentence should be the word Then."),
     "ground_truth": ifevalg(["first_word:first_word_sent"], [{"first_word": ["Then"]}]),
     "dataset": "ifeval", "constraint_type": "single", "constraint": "..."}])
