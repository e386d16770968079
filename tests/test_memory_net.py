"""Memory network for distribution-level calibration (src/rlvr_support/training/memory_net.py)."""

from __future__ import annotations

import torch

from rlvr_support.training.memory_net import MemoryLogitsProcessor, MemoryNet, MemoryTrainer, memory_loss


def test_memory_outputs_normalised_log_probs():
    net = MemoryNet(vocab_size=7, hidden=8)
    logp = net(torch.tensor([[1, 2, 3]]))
    assert logp.shape == (1, 4, 7)
    assert torch.allclose(logp.exp().sum(-1), torch.ones(1, 4), atol=1e-5)


def test_training_on_repeated_rollouts_lowers_their_cross_entropy():
    torch.manual_seed(0)
    mem = MemoryTrainer(vocab_size=6, hidden=16, lr=5e-2, steps=1, seed=0)
    rollouts = torch.tensor([[1, 2, 3, 4], [1, 2, 3, 4]])
    mask = torch.ones_like(rollouts)
    before = float(memory_loss(mem.net, rollouts, mask.float()).detach())
    for _ in range(30):
        mem.update(rollouts, mask)
    after = float(memory_loss(mem.net, rollouts, mask.float()).detach())
    assert after < 0.5 * before


def test_masked_tokens_do_not_count():
    net = MemoryNet(vocab_size=5, hidden=4)
    a = memory_loss(net, torch.tensor([[1, 2, 0]]), torch.tensor([[1.0, 1.0, 0.0]]))
    b = memory_loss(net, torch.tensor([[1, 2, 4]]), torch.tensor([[1.0, 1.0, 0.0]]))
    assert torch.allclose(a, b)


def test_processor_damps_what_the_memory_remembers():
    """After learning that token 3 follows the start, the calibrated scores lower token 3 by mu * log q."""
    mem = MemoryTrainer(vocab_size=5, hidden=16, lr=5e-2, seed=0)
    for _ in range(40):
        mem.update(torch.tensor([[3, 1]]), torch.ones(1, 2))
    proc = MemoryLogitsProcessor(mem.net, mu=0.5, prompt_len=2)
    scores = torch.zeros(1, 5)
    out = proc(torch.tensor([[9 % 5, 4]]), scores)  # two prompt tokens, no completion yet
    logq = mem.net.next_logprobs(torch.zeros(1, 0, dtype=torch.long))
    assert torch.allclose(out, -0.5 * logq)
    assert out.argmin().item() == 3, "the remembered token must become the least likely"


def test_memory_init_does_not_shift_the_global_random_stream():
    torch.manual_seed(1)
    expected = torch.rand(3)
    torch.manual_seed(1)
    MemoryTrainer(vocab_size=5, hidden=4, seed=123)
    assert torch.equal(torch.rand(3), expected)
