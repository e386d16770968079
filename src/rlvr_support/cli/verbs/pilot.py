"""CLI verb `pilot`: a few GRPO steps and one sample shard of a real architecture with random weights, timed by
phase, in the file `budget --measured` reads (planning/pilot.py). Registered by cli.main.build_parser.

On one GPU node:   python -m rlvr_support pilot --model Qwen/Qwen2.5-1.5B --configfile configs/paper.yaml
On eight (ZeRO-3): accelerate launch --config_file configs/accelerate/zero3.yaml --num_processes 8 \
                       -m rlvr_support pilot --model Qwen/Qwen3-8B-Base --configfile configs/paper.yaml
On a CPU:          python -m rlvr_support pilot --quick ...   (the same code path on a shrunk model)
"""

from __future__ import annotations

import json
from pathlib import Path


def cmd_pilot(a):
    from rlvr_support.config.defaults import fill_defaults
    from rlvr_support.config.validate import load_config
    from rlvr_support.planning.pilot import run_pilot, write_pilot
    from rlvr_support.planning.shapes import read_model_config

    model_config = read_model_config(a.model)
    cfg = fill_defaults(load_config(a.configfile))
    rl = {k: v for k, v in cfg["rl"].items() if k != "seeds"}
    if a.rollout_backend:
        rl["rollout_backend"] = a.rollout_backend
    if rl.get("rollout_backend") == "vllm":
        from rlvr_support.training.vllm_rollouts import run_train_in_vllm_env, vllm_importable

        if not vllm_importable():  # TRL's colocated engine lives in the vLLM environment here
            return run_train_in_vllm_env(a.prov_argv)
        if a.quick:  # vLLM's CPU backend has no sleep mode (a GPU feature)
            rl["vllm"] = {**(rl.get("vllm") or {}), "enable_sleep_mode": False}
    sampling = {**cfg["sampling"], **({"backend": a.sample_backend} if a.sample_backend else {})}
    result = run_pilot(model_config, rl, sampling, cfg["budget"]["max_prompt_tokens"], a.steps,
                       Path(a.workdir), a.quick, a.gpu_type)
    result["model"], result["configfile"] = str(a.model), str(a.configfile)
    if "sample" in result:  # the main process
        write_pilot(a.out, result)
        print(json.dumps(result["grpo"], indent=1))


def register(verb) -> None:
    s = verb("pilot", cmd_pilot,
             "A GPU pilot: a few GRPO steps and one sample shard of a real architecture with random weights (no hub), "
             "with the study's rl and sampling keys; writes measured step time by phase, tokens/s and peak memory per "
             "rank, which `budget --measured FILE` reads.")
    s.add_argument("--model", default="Qwen/Qwen2.5-1.5B",
                   help="a stored model config (hub id, planning/model_configs/) or a config.json file "
                        "(default: %(default)s)")
    s.add_argument("--configfile", default="configs/paper.yaml", help="the study whose rl and sampling keys to run")
    s.add_argument("--steps", type=int, default=4, help="GRPO steps; the first is warm-up (default: %(default)s)")
    s.add_argument("--workdir", default="measurements/pilot/work",
                   help="where the random model and the run go (outside results/: no rule makes them)")
    s.add_argument("--out", default="measurements/pilot/pilot.json",
                   help="the measured result (JSON: step time by phase, tokens/s, peak memory per rank) that "
                        "`budget --measured FILE` reads (default: %(default)s)")
    s.add_argument("--gpu-type", help="the planner's GPU kind of this node (default: from the device name)")
    s.add_argument("--rollout-backend", choices=["auto", "hf", "vllm"], help="GRPO's rollouts (default: the study's)")
    s.add_argument("--sample-backend", choices=["hf", "vllm"], help="the sample shard's backend (default: the study's)")
    s.add_argument("--quick", action="store_true",
                   help="a shrunk model of the same family and tiny batches (CPU, tests)")
