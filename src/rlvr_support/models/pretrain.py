"""Pretrain the toy base policy on the synthetic corpus (nanoGPT-style loop, resumable).

The loss covers response tokens only (prompts hold random numbers that are not worth
modelling). Batches are a pure function of (seed, step), so a run killed and resumed from
its last state reaches the same weights as an uninterrupted one; that state holds tensors,
numbers and lists only, and is loaded weights-only (a crafted `state.pt` cannot run code).
"""

from __future__ import annotations

import math
import pickle
import time
from pathlib import Path

import torch
from tqdm import tqdm

from rlvr_support.storage.atomic import atomic_dir, atomic_path, read_jsonl
from rlvr_support.models import resume as resume_state
from rlvr_support.models.devices import torch_device
from rlvr_support.models.loading import toy_llama
from rlvr_support.data.toyworld.tokenizer import build_tokenizer


def encode_corpus(tokenizer, examples: list[dict], max_len: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Right-padded (input_ids, labels) with prompt tokens masked to -100."""
    ids, labels = [], []
    for ex in examples:
        p = tokenizer(ex["prompt"])["input_ids"]
        r = tokenizer(ex["response"], add_special_tokens=False)["input_ids"] + [tokenizer.eos_token_id]
        seq = (p + r)[:max_len]
        lab = ([-100] * len(p) + r)[:max_len]
        ids.append(seq + [tokenizer.pad_token_id] * (max_len - len(seq)))
        labels.append(lab + [-100] * (max_len - len(lab)))
    return torch.tensor(ids), torch.tensor(labels)


def lr_at(step: int, total: int, peak: float, warmup: int, floor: float) -> float:
    if step < warmup:
        return peak * (step + 1) / warmup
    t = (step - warmup) / max(1, total - warmup)
    return floor + 0.5 * (peak - floor) * (1 + math.cos(math.pi * t))


def _saved_state(state_file: Path, device: str) -> dict | None:
    """The partial state to resume, or None: there is none, or it does not load weights-only
    (damaged, or crafted: a pickle that would import anything beyond tensors), which is dropped."""
    if not state_file.exists():
        return None
    try:
        state = torch.load(state_file, weights_only=True, map_location=device)
        if not isinstance(state, dict) or not {"model", "opt", "step"} <= state.keys():
            raise ValueError(f"expected a dict with model, opt and step, got {type(state).__name__}")
        return state
    except (pickle.UnpicklingError, RuntimeError, ValueError, EOFError, OSError) as e:
        print(f"dropping unreadable partial state {state_file} ({type(e).__name__}: {str(e)[:300]}); "
              "starting afresh", flush=True)
        state_file.unlink()
        return None


def pretrain(corpus_path: str, out_dir: str, cfg: dict, seed: int, threads: int = 1, device: str | None = None,
             code: str | None = None) -> dict:
    """Train and save a `save_pretrained` model + tokenizer to `out_dir/model`, return its summary.

    `device`: default the GPU when one is visible, else the CPU (where runs are reproducible byte for byte).
    `code`: the hash of the code this job runs (the `pretrain` verb passes it); another code's state is not resumed."""
    torch.set_num_threads(threads)
    device = device or torch_device()
    out = Path(out_dir)
    partial = out / "_partial"
    resume_state.prepare(partial, {"corpus": resume_state.file_digest(corpus_path), "cfg": cfg, "seed": seed,
                                   "code": code})
    tok = build_tokenizer()
    examples = read_jsonl(corpus_path)
    input_ids, labels = encode_corpus(tok, examples, cfg["arch"]["max_positions"])
    # Trim the common right padding once; every batch is cut to its own length below.
    torch.manual_seed(seed)
    model = toy_llama(len(tok), cfg["arch"], tok).to(device)
    tcfg = cfg["train"]
    opt = torch.optim.AdamW(model.parameters(), lr=tcfg["lr"], weight_decay=tcfg["weight_decay"], betas=(0.9, 0.95))
    start, losses = 0, []
    state_file = partial / "state.pt"
    if (state := _saved_state(state_file, device)) is not None:
        # The fingerprint matched (same arch and optimiser), so these loads fit; a weights-only load
        # of a crafted file fails above, before anything is copied into the model.
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["opt"])
        start, losses = int(state["step"]), list(state.get("losses", []))  # losses: final_loss spans the resume
        print(f"resuming pretraining from step {start}", flush=True)

    steps, bs = tcfg["steps"], tcfg["batch_size"]
    model.train()
    t0, tokens = time.time(), 0
    for step in (bar := tqdm(range(start, steps), initial=start, total=steps, desc="pretrain", mininterval=5)):
        g = torch.Generator().manual_seed(seed * 1_000_003 + step)
        idx = torch.randint(0, len(input_ids), (bs,), generator=g)
        x, y = input_ids[idx], labels[idx]
        width = int((x != tok.pad_token_id).sum(1).max())
        x, y = x[:, :width].to(device), y[:, :width].to(device)
        for group in opt.param_groups:
            group["lr"] = lr_at(step, steps, tcfg["lr"], tcfg["warmup"], tcfg["lr_floor"])
        loss = model(input_ids=x, attention_mask=(x != tok.pad_token_id).long(), labels=y).loss
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        tokens += int((x != tok.pad_token_id).sum())
        losses.append(loss.item())
        if (step + 1) % 50 == 0:
            bar.set_postfix(loss=f"{sum(losses[-50:]) / len(losses[-50:]):.3f}")
            print(f"step {step + 1} loss {sum(losses[-50:]) / len(losses[-50:]):.4f}", flush=True)
        if (step + 1) % tcfg["save_every"] == 0 and step + 1 < steps:
            with atomic_path(state_file) as tmp:
                torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "step": step + 1, "losses": losses}, tmp)
    elapsed = time.time() - t0
    model.eval()
    with atomic_dir(out / "model") as tmp:
        model.save_pretrained(tmp)
        tok.save_pretrained(tmp)
    summary = {
        "parameters": sum(p.numel() for p in model.parameters()),
        "steps": steps, "resumed_from": start, "seconds": round(elapsed, 1), "device": device,
        "tokens_per_second": round(tokens / max(elapsed, 1e-9), 1),
        "final_loss": round(sum(losses[-50:]) / max(1, len(losses[-50:])), 4) if losses else None,
    }
    resume_state.discard(partial)
    return summary
