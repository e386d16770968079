"""planning/study.py before any job: the memory check, the context-length check and the trainer/launcher
agreement on the paper configs, and how many frozen models the trainer really builds."""

from __future__ import annotations

import copy
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from rlvr_support.config.defaults import fill_defaults
from rlvr_support.config.validate import validate_config
from rlvr_support.planning.gpus import GPUS
from rlvr_support.planning.study import PlanError, check_study, launch_of, memory_plans

REPO = Path(__file__).resolve().parents[1]
PAPER = REPO / "configs" / "paper.yaml"
SNAKEMAKE = str(Path(sys.executable).with_name("snakemake"))


def _paper(edit=None) -> dict:
    raw = yaml.safe_load(PAPER.read_text())
    if edit:
        edit(raw)
    return fill_defaults(validate_config(raw))


def test_the_paper_config_fits_its_gpus():
    cfg = _paper()
    plans, missing = memory_plans(cfg)
    assert not missing, "both paper models' config.json are stored (planning/model_configs/)"
    assert {p.kind for p in plans} == {"train", "train (colocated vLLM)", "sample", "analyse"}
    assert all(p.fits for p in plans), [(p.kind, p.model, p.peak / 1e9) for p in plans if not p.fits]
    assert check_study(cfg) == []


def test_the_paper_config_as_it_was_is_refused_naming_the_keys():
    """One forward/backward of all 64 rollouts per GPU (no rl.micro_batch), as the config had it."""
    cfg = _paper(lambda raw: raw["rl"].pop("micro_batch"))
    with pytest.raises(PlanError) as e:
        check_study(cfg)
    msg = str(e.value)
    assert "a train job of qwen3-8b-base needs" in msg and "more than the 84.9 GB NVIDIA H100 SXM5 80GB reports" in msg
    assert "rl.micro_batch" in msg and "rl.gradient_checkpointing" in msg and "activations" in msg
    # ... and on a GPU that holds it, the same micro-batch passes the memory check
    big = _paper(lambda raw: (raw["rl"].pop("micro_batch"), raw["rl"].update(micro_batch=32),
                              raw["resources"]["train"].update(gpu_type="h200")))
    assert [p for p in memory_plans(big)[0] if p.kind == "train" and not p.fits] == []


def test_a_colocated_vllm_share_too_small_for_its_weights_is_refused():
    cfg = _paper(lambda raw: raw["rl"]["vllm"].update(gpu_memory_utilization=0.2))
    with pytest.raises(PlanError) as e:
        check_study(cfg)
    assert "train (colocated vLLM) job of qwen3-8b-base" in str(e.value) and "rl.vllm.gpu_memory_utilization" in str(e.value)


def test_checkpointing_off_is_refused_on_the_paper_gpus():
    cfg = _paper(lambda raw: raw["rl"].update(gradient_checkpointing=False))
    with pytest.raises(PlanError, match="rl.gradient_checkpointing"):
        check_study(cfg)


def test_qwen2_5_math_7b_at_4096_new_tokens_exceeds_its_positions():
    """The stored config.json of Qwen2.5-Math-7B has max_position_embeddings 4096."""
    def longer(raw):
        raw["rl"]["max_completion_tokens"] = 4096
        raw["rl"]["vllm"]["max_model_len"] = 5120
    with pytest.raises(PlanError) as e:
        check_study(_paper(longer))
    msg = str(e.value)
    assert "models.qwen2.5-math-7b: 1024 prompt + 4096 new tokens = 5120 exceed the model's 4096 positions" in msg
    assert "Qwen--Qwen2.5-Math-7B.json" in msg and "rl.max_completion_tokens" in msg
    assert "qwen3-8b-base:" not in msg.split("resources.")[0], "Qwen3-8B-Base has 32,768 positions"
    # a stated override (a run that extends the context) is trusted
    def extended(raw):
        longer(raw)
        raw["models"]["qwen2.5-math-7b"]["max_positions"] = 8192
    assert check_study(_paper(extended)) == []


def _toy_checkpoint(folder: Path, positions: int) -> Path:
    """A folder with a toy-sized llama config.json (what the context check reads) and a stand-in weights file
    (validation checks that one exists; nothing here loads it)."""
    folder.mkdir(parents=True)
    (folder / "config.json").write_text(json.dumps({
        "model_type": "llama", "architectures": ["LlamaForCausalLM"], "hidden_size": 64, "intermediate_size": 128,
        "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 4, "vocab_size": 300,
        "max_position_embeddings": positions, "torch_dtype": "float32"}))
    (folder / "model.safetensors").write_bytes(b"\0" * 8)
    return folder


@pytest.mark.parametrize("positions, fits", [(128, True), (24, False)])
def test_a_toy_world_study_checks_its_own_prompts_not_the_budgets(tmp_path, positions, fits):
    """On the toy world the prompt is the world's longest (measured), not budget.max_prompt_tokens (1024,
    stated for real data): a 128-position external toy checkpoint fits, a 24-position one does not."""
    raw = yaml.safe_load((REPO / "tests" / "config" / "smoke.yaml").read_text())
    raw["checkpoints"] = {"mine": {"kind": "local", "path": str(_toy_checkpoint(tmp_path / "m", positions)),
                                   "base": "base"}}
    cfg = fill_defaults(validate_config(raw))
    assert cfg["budget"]["max_prompt_tokens"] == 1024
    if fits:
        assert check_study(cfg) == []
    else:
        with pytest.raises(PlanError) as e:
            check_study(cfg)
        msg = str(e.value)
        assert "checkpoints.mine:" in msg and "exceed the model's 24 positions" in msg
        assert "1024 prompt" not in msg and "budget.max_prompt_tokens" not in msg


def test_an_accelerate_config_that_pins_another_accumulation_is_refused(tmp_path):
    pinned = yaml.safe_load((REPO / "configs" / "accelerate" / "zero3.yaml").read_text())
    pinned["deepspeed_config"]["gradient_accumulation_steps"] = 1
    path = tmp_path / "zero3-pinned.yaml"
    path.write_text(yaml.safe_dump(pinned))
    cfg = _paper(lambda raw: raw["resources"]["train"].update(accelerate_config=str(path)))
    with pytest.raises(PlanError, match="pins gradient_accumulation_steps 1, but the trainer accumulates 8"):
        check_study(cfg)


@pytest.mark.parametrize("name,sharding", [("zero3", "zero3"), ("fsdp", "fsdp")])
def test_the_shipped_accelerate_configs_take_the_trainers_accumulation(name, sharding):
    launch = launch_of({"launcher": "accelerate", "accelerate_config": f"configs/accelerate/{name}.yaml"})
    assert launch.sharding == sharding and launch.accumulation in (None, "auto")


def test_the_gpu_kinds_of_the_schema_are_the_planners():
    schema = yaml.safe_load((REPO / "workflow" / "schemas" / "config.schema.yaml").read_text())
    assert set(schema["$defs"]["gpu_type"]["enum"]) == set(GPUS)


@pytest.mark.snakemake
@pytest.mark.parametrize("accelerate", ["zero3", "fsdp"])
def test_the_planned_train_jobs_agree_on_launcher_accumulation_and_gpus(accelerate, tmp_path):
    """`snakemake --profile slurm -n -p` of the paper config: every train job's launcher starts one process per
    GPU it asks for, and its rl keys give 8 micro-batches of 8 per step, which the accelerate config leaves to
    the trainer."""
    raw = yaml.safe_load(PAPER.read_text())
    raw["resources"]["train"]["accelerate_config"] = f"configs/accelerate/{accelerate}.yaml"
    config = tmp_path / "paper.yaml"
    config.write_text(yaml.safe_dump(raw))
    env = dict(os.environ, RLVR_SLURM_PARTITION="cpu", RLVR_SLURM_ACCOUNT="test", RLVR_SLURM_GPU_PARTITION="gpu")
    proc = subprocess.run([SNAKEMAKE, "--profile", "slurm", "--configfile", str(config), "-n", "-p", "--",
                           "results/qwen3-8b-base/checkpoints/math/seed0/manifest.json"],
                          cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    out = proc.stdout + proc.stderr
    block = out[out.index("rule train_stage:"):]
    gpus = int(re.search(r"\bgpu=(\d+)", block).group(1))
    command = next(line for line in block.splitlines() if " train --parent " in line)
    assert f"--config_file {REPO}/configs/accelerate/{accelerate}.yaml" in command
    assert int(re.search(r"--num_processes (\d+)", command).group(1)) == gpus == raw["resources"]["train"]["gpu"]
    assert f"--gpus {gpus}" in command
    rl = json.loads(re.search(r"--cfg '([^']+)'", command).group(1))
    assert rl["micro_batch"] == 8 and rl["gradient_checkpointing"] is True
    assert rl["prompts_per_step"] * rl["group_size"] // rl["micro_batch"] == 8
    launch = launch_of({"launcher": "accelerate", "accelerate_config": f"configs/accelerate/{accelerate}.yaml"})
    assert launch.accumulation in (None, "auto")


@pytest.mark.parametrize("remedies,beta", [({}, 0.0), ({}, 0.05), ({"kl": {"where": "reward"}}, 0.0),
                                           ({"routing": {}, "distill": {}}, 0.0),
                                           ({"kl": {"where": "reward", "reset_every": 2}, "distill": {}}, 0.0),
                                           ({"distill": {}}, 0.0)])
def test_the_planned_frozen_copies_are_the_trainers(tmp_path, remedies, beta):
    """planning counts the reference and teacher models with training/frozen.py; the trainer builds exactly those."""
    import torch
    from datasets import Dataset
    from trl import GRPOConfig

    from rlvr_support.data.toyworld.tokenizer import build_tokenizer
    from rlvr_support.models.loading import toy_llama
    from rlvr_support.training.frozen import frozen_copies
    from rlvr_support.training.trainer import SupportGRPOTrainer, resolve_remedies

    torch.manual_seed(0)
    tok = build_tokenizer()
    model = toy_llama(len(tok), {"hidden_size": 16, "intermediate_size": 32, "num_layers": 1, "num_heads": 2,
                                 "max_positions": 64}, tok)
    model.save_pretrained(tmp_path / "m")
    model = type(model).from_pretrained(tmp_path / "m")  # TRL builds its own reference from the model's folder
    args = GRPOConfig(output_dir=str(tmp_path), max_steps=1, per_device_train_batch_size=4, num_generations=2,
                      max_completion_length=4, use_cpu=True, report_to=[], beta=beta, save_strategy="no")
    t = SupportGRPOTrainer(model=model, reward_funcs=[lambda completions, **_: [0.0] * len(completions)], args=args,
                           processing_class=tok, train_dataset=Dataset.from_list([{"prompt": "a"}] * 4),
                           remedies=copy.deepcopy(remedies), reference=tmp_path / "m")
    built = {id(m) for m in (t.ref_model, t._ref, t._teacher) if m is not None}
    assert len(built) == frozen_copies(resolve_remedies(remedies), beta)
