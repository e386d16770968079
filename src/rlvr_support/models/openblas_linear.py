"""Linear layers computed by numpy's OpenBLAS: the pinned CPU matmul path `numerics.matmul: openblas`.

Why: under pinned numerics (config/numerics.py) torch's float32 matmuls run in MKL's COMPATIBLE branch,
the only MKL branch that gives the same bits on Intel and AMD CPUs, and it is SSE2 code: on the toy
model's shapes it is 1.75x slower than OpenBLAS's AVX2 kernels on one thread (a pretraining step of
64 x 69 tokens 0.78 s vs 0.45 s, 2-core AMD EPYC, 2026-12-07). numpy's OpenBLAS runs the kernel set that
OPENBLAS_CORETYPE names (pinned: HASWELL for avx2) whatever the CPU, so, like MKL's COMPATIBLE branch, it is
meant to give the same bits on every CPU with that vector unit; tests/test_kernel_choices.py checks it under
another vector unit of one machine's environment (an Intel and an AMD run have not been compared byte for
byte yet, for either path: `compare` does it).

What goes through it: every `torch.nn.functional.linear` (so every `nn.Linear`, the language-model head
included, and the fast sampler's fused projections) on float32 CPU tensors, forward and backward. Anything
else (another dtype or device, attention's own products inside scaled_dot_product_attention) stays with
torch, under the pinned MKL branch. The bias is added by torch, the gradients of the weight and the input
are OpenBLAS products, the bias's gradient a torch sum. Switching paths changes a study's bytes (another
summation order), so it is part of the pinned spec, and every job of a study uses the same one.

`route_linear` installs it in this process, once, where a job's numerics ask for it (models/loading.py
calls it before it builds or loads a model); `blas_linear` is the function itself.
"""

from __future__ import annotations

import os

import numpy as np
import torch
from torch.autograd.function import once_differentiable

from rlvr_support.config.numerics import chosen

_torch_linear = torch.nn.functional.linear


def _as_numpy(t: torch.Tensor) -> np.ndarray:
    return t.detach().resolve_neg().numpy()


def _product(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """a @ b by numpy (2-D; transposed views are passed to BLAS as such, not copied)."""
    return torch.from_numpy(np.matmul(_as_numpy(a), _as_numpy(b)))


def _forward(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None) -> torch.Tensor:
    y = _product(x.reshape(-1, x.shape[-1]), weight.T)
    if bias is not None:
        y = y.add_(bias)
    return y.reshape(*x.shape[:-1], weight.shape[0])


class _BlasLinear(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, bias):
        ctx.save_for_backward(x, weight)
        ctx.has_bias = bias is not None
        return _forward(x, weight, bias)

    @staticmethod
    @once_differentiable
    def backward(ctx, grad):
        x, weight = ctx.saved_tensors
        g = grad.reshape(-1, grad.shape[-1])
        gx = gw = gb = None
        if ctx.needs_input_grad[0]:
            gx = _product(g, weight).reshape(x.shape)
        if ctx.needs_input_grad[1]:
            gw = _product(g.T, x.reshape(-1, x.shape[-1]))
        if ctx.has_bias and ctx.needs_input_grad[2]:
            gb = g.sum(0)
        return gx, gw, gb


def _routable(t: torch.Tensor | None) -> bool:
    return t is None or (t.dtype == torch.float32 and t.device.type == "cpu" and t.layout == torch.strided)


def blas_linear(input: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None = None) -> torch.Tensor:
    """`torch.nn.functional.linear` with the products in numpy's OpenBLAS (float32 CPU tensors; else torch's)."""
    if not (_routable(input) and _routable(weight) and _routable(bias)) or weight.dim() != 2 or input.dim() == 0:
        return _torch_linear(input, weight, bias)
    if torch.is_grad_enabled() and any(t is not None and t.requires_grad for t in (input, weight, bias)):
        return _BlasLinear.apply(input, weight, bias)
    return _forward(input, weight, bias)


def route_linear(environ=os.environ) -> bool:
    """Send this process's linear layers through OpenBLAS where its pinned numerics say `matmul: openblas`
    (RLVR_NUMERICS); True when they go there. Idempotent; an unpinned or MKL job is left as it is."""
    if chosen("matmul", environ) != "openblas":
        return False
    torch.nn.functional.linear = blas_linear
    return True
