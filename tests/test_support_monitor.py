"""Support monitor (src/rlvr_support/training/support_monitor.py): metrics of a probe, early stop, callback."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
import torch
from transformers import BatchEncoding, TrainerControl, TrainerState

from rlvr_support.training.support_monitor import COLUMNS, SupportMonitor, previous_task_drop, probe_metrics


def test_probe_metrics_hand_computed():
    success = np.array([[1, 0], [0, 0]], bool)
    graded = np.array([[1.0, 0.5], [0.0, 0.25]])
    # openings of length 1: (1,), (1,), (2,), (3,) -> probs 1/2, 1/4, 1/4
    m = probe_metrics(success, graded, [[1, 5], [1, 6], [2], [3, 3]], opening_tokens=1)
    assert m["pass@1"] == 0.25
    assert m["best@k"] == pytest.approx((1.0 + 0.25) / 2)  # best of all n = max per prompt
    assert m["coverage"] == 0.5
    assert m["opening_entropy"] == pytest.approx(-(0.5 * math.log(0.5) + 2 * 0.25 * math.log(0.25)))
    assert (m["n_prompts"], m["n"]) == (2, 2)


def test_probe_metrics_rejects_mismatched_shapes():
    with pytest.raises(ValueError, match="equal non-empty"):
        probe_metrics(np.zeros((2, 2), bool), np.zeros((2, 3)), [[1]] * 4, 1)


def _rows(prev_bestk):
    return pd.DataFrame([{"step": s, "task": "math", "role": "previous", "best@k": b}
                         for s, b in enumerate(prev_bestk)] +
                        [{"step": s, "task": "if", "role": "current", "best@k": 0.0} for s in range(len(prev_bestk))])


def test_previous_task_drop_uses_the_margin_and_ignores_the_current_task():
    assert previous_task_drop(_rows([0.8, 0.75]), margin=0.1) is None
    assert previous_task_drop(_rows([0.8, 0.65]), margin=0.1) == "math"
    assert previous_task_drop(_rows([0.8]), margin=0.0) is None


class _Tok:
    """Just enough of a tokenizer for generate_hf: token ids are characters' code points mod 50."""

    pad_token_id, eos_token_id = 0, 1

    def __call__(self, texts, return_tensors=None, padding=None):
        ids = [[2 + ord(c) % 48 for c in t] for t in texts]
        width = max(map(len, ids))
        return BatchEncoding({"input_ids": torch.tensor([[0] * (width - len(i)) + i for i in ids]),
                              "attention_mask": torch.tensor([[0] * (width - len(i)) + [1] * len(i) for i in ids])})

    def decode(self, ids, skip_special_tokens=True):
        return "The answer is " + " ".join(str(i) for i in ids)


class _Model(torch.nn.Module):
    """Emits token 7 then EOS; decoded, "The answer is 7", correct for our probe prompt."""

    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.zeros(1))

    @property
    def device(self):
        return self.w.device

    def generate(self, input_ids, attention_mask, num_return_sequences=1, max_new_tokens=4, **kw):
        b = input_ids.shape[0] * num_return_sequences
        new = torch.tensor([[7, 1]] * b)
        logits = torch.full((b, 50), -1e4)
        steps = []
        for t in range(2):
            lg = logits.clone()
            lg[:, new[0, t]] = 0.0
            steps.append(lg)
        seq = torch.cat([input_ids.repeat_interleave(num_return_sequences, 0), new], dim=1)
        return type("Out", (), {"sequences": seq, "logits": tuple(steps)})()


def test_callback_writes_csv_at_start_every_n_steps_and_end(tmp_path):
    probes = {"math": [{"id": "m1", "task": "math", "prompt": "What is 3 + 4?", "answer": "7",
                        "instruction_id_list": [], "kwargs": [], "split": "eval"}]}
    mon = SupportMonitor(_Tok(), probes, "math", tmp_path / "monitor.csv", every=2, n=3, max_new_tokens=4)
    model, state, control = _Model(), TrainerState(), TrainerControl()
    mon.on_train_begin(None, state, control, model=model)
    for step in (1, 2, 3):
        state.global_step = step
        mon.on_step_end(None, state, control, model=model)
    mon.on_train_end(None, state, control, model=model)
    df = pd.read_csv(tmp_path / "monitor.csv")
    assert list(df.columns) == COLUMNS
    assert df["step"].tolist() == [0, 2, 3]
    assert (df["pass@1"] == 1.0).all() and (df["coverage"] == 1.0).all() and (df["opening_entropy"] == 0).all()
    assert (df["role"] == "current").all()
    assert model.training, "the monitor must hand the model back in training mode"
