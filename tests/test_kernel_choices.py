"""The kernel choices of pinned numerics (config/numerics.py CHOICES): the linear layers in OpenBLAS
(models/openblas_linear.py, `matmul: openblas`) give torch's results within float32 rounding, and the
same bits under another vector unit of the environment."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
import torch

from rlvr_support.config import numerics
from rlvr_support.models import openblas_linear
from rlvr_support.models.openblas_linear import blas_linear, route_linear


def test_forward_and_gradients_are_torchs_within_rounding():
    torch.manual_seed(0)
    for shape, bias in (((4, 7, 16), True), ((5, 16), False), ((16,), True)):
        x = torch.randn(shape, requires_grad=True)
        w = torch.randn(24, 16, requires_grad=True)
        b = torch.randn(24, requires_grad=True) if bias else None
        ours = blas_linear(x, w, b)
        ref = torch.nn.functional.linear(x, w, b)
        assert ours.shape == ref.shape
        torch.testing.assert_close(ours, ref)
        g = torch.randn_like(ref)
        got = torch.autograd.grad(ours, [t for t in (x, w, b) if t is not None], g)
        want = torch.autograd.grad(ref, [t for t in (x, w, b) if t is not None], g)
        for a, e in zip(got, want):
            torch.testing.assert_close(a, e)


def test_a_frozen_weight_gets_no_gradient_and_no_product():
    x, w = torch.randn(3, 8, requires_grad=True), torch.randn(4, 8)
    y = blas_linear(x, w)
    (gx,) = torch.autograd.grad(y.sum(), [x])
    torch.testing.assert_close(gx, torch.ones(3, 4) @ w)
    with torch.no_grad():
        assert not blas_linear(x, w).requires_grad


def test_tensors_off_the_cpu_stay_with_torch(monkeypatch):
    # what a GPU study's tensors would take (shown with the meta device, which has no data): torch's own linear
    called = []
    monkeypatch.setattr(openblas_linear, "_torch_linear",
                        lambda *a: called.append(a) or torch.empty(3, 4, device="meta"))
    out = blas_linear(torch.empty(3, 8, device="meta"), torch.empty(4, 8, device="meta"))
    assert out.device.type == "meta" and len(called) == 1


def test_other_dtypes_stay_with_torch():
    x, w = torch.randn(3, 8, dtype=torch.bfloat16), torch.randn(4, 8, dtype=torch.bfloat16)
    assert torch.equal(blas_linear(x, w), torch.nn.functional.linear(x, w))
    x64, w64 = x.double(), w.double()
    assert torch.equal(blas_linear(x64, w64), torch.nn.functional.linear(x64, w64))


def test_it_is_routed_only_where_pinned_numerics_ask_for_it(monkeypatch):
    monkeypatch.setattr(torch.nn.functional, "linear", openblas_linear._torch_linear)
    for spec, routed in (({"pin": True}, False), ({"pin": True, "matmul": "mkl"}, False),
                         ({"pin": False, "matmul": "openblas"}, False), ({"pin": True, "matmul": "openblas"}, True)):
        assert route_linear({numerics.ENV_VAR: json.dumps(spec)}) is routed
        assert (torch.nn.functional.linear is blas_linear) is routed
    assert route_linear({}) is False


def test_the_default_choices_are_not_written_and_a_bad_one_is_named():
    spec = numerics.requested({numerics.ENV_VAR: json.dumps({"pin": True, "matmul": "mkl"})})
    unnamed = numerics.requested({numerics.ENV_VAR: json.dumps({"pin": True})})
    assert spec == unnamed == {"pin": True, **numerics.DEFAULTS}
    with pytest.raises(ValueError, match="matmul 'cublas' is none of mkl, openblas"):
        numerics.requested({numerics.ENV_VAR: json.dumps({"matmul": "cublas"})})
    assert numerics.chosen("matmul", {numerics.ENV_VAR: json.dumps({"pin": False, "matmul": "openblas"})}) == "mkl"


# Three training steps of the toy Llama (models/loading.py routes its linears where the numerics say),
# in a fresh process that pins its numerics first, as `python -m rlvr_support` does: the weights' digest.
STEPS = """
import hashlib, sys
from rlvr_support.config.numerics import apply
apply(["--threads", "2"])
import torch
from rlvr_support.models.loading import toy_llama
from types import SimpleNamespace
torch.set_num_threads(2)
torch.manual_seed(0)
tok = SimpleNamespace(bos_token_id=1, eos_token_id=2, pad_token_id=0)
m = toy_llama(97, {"hidden_size": 64, "intermediate_size": 128, "num_layers": 2, "num_heads": 4,
                   "max_positions": 64}, tok)
opt = torch.optim.AdamW(m.parameters(), lr=1e-2)
for step in range(3):
    x = torch.randint(3, 97, (8, 48), generator=torch.Generator().manual_seed(step))
    m(input_ids=x, labels=x).loss.backward()
    opt.step(); opt.zero_grad()
h = hashlib.sha256(b"".join(p.detach().numpy().tobytes() for p in m.parameters())).hexdigest()
print(torch.nn.functional.linear.__name__, h)
"""


def _steps(spec: dict, outer: dict) -> tuple[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in (*numerics.OVERRIDDEN, "ATEN_CPU_CAPABILITY",
                                                            "OPENBLAS_CORETYPE", "NPY_ENABLE_CPU_FEATURES")}
    env.update(outer, **{numerics.ENV_VAR: json.dumps(spec)})
    p = subprocess.run([sys.executable, "-c", STEPS], env=env, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr[-2000:]
    name, digest = p.stdout.split()
    return name, digest


@pytest.mark.slow
def test_pinned_openblas_steps_give_the_same_bits_under_another_vector_unit():
    flags = numerics.cpu_flags()
    if flags is None or not {"avx2", "fma"} <= flags:
        pytest.skip("needs an x86-64 CPU with AVX2 and FMA (the pinned capability) and /proc/cpuinfo")
    narrower = {"ATEN_CPU_CAPABILITY": "default", "OPENBLAS_CORETYPE": "NEHALEM",
                "NPY_DISABLE_CPU_FEATURES": "X86_V3"}
    fast = {"pin": True, "matmul": "openblas"}
    native = _steps(fast, {})
    assert native[0] == "blas_linear"
    assert _steps(fast, narrower) == native, "pinned OpenBLAS steps differ under another vector unit"
    # the test can fail: the steps do go through OpenBLAS (MKL's bits differ), and the kernels decide the bits
    # (the narrower width pinned on purpose, ATen's and OpenBLAS's kernel sets both, differs), so the pins keep them
    assert _steps({**fast, "matmul": "mkl"}, {})[1] != native[1]
    assert _steps({**fast, "cpu_capability": "default"}, {})[1] != native[1]


def test_an_openblas_job_in_an_mkl_tree_is_reported_by_audit():
    from rlvr_support.review.mixed_numerics import mixed_numerics

    mkl = numerics.requested({numerics.ENV_VAR: json.dumps({"pin": True, "matmul": "mkl"})})
    older = {"pin": True, **numerics.DEFAULTS}  # a sidecar from before `matmul` existed: an MKL run
    blas = numerics.requested({numerics.ENV_VAR: json.dumps({"pin": True, "matmul": "openblas"})})
    records = {f"{name}.csv": {"rule": "sample", "numerics": {"pinned": True, "spec": spec}}
               for name, spec in (("a", mkl), ("b", older), ("c", mkl))}
    assert mixed_numerics(records) == []
    records["d.csv"] = {"rule": "sample", "numerics": {"pinned": True, "spec": blas}}
    (problem,) = mixed_numerics(records)
    assert problem.path == "d.csv" and "\"matmul\": \"openblas\"" in problem.detail
