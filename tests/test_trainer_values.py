"""Value tests of SupportGRPOTrainer (training/trainer.py): every remedy on a tiny random Llama with a
scripted reward, checked against the number it must produce, computed here by hand.

What a test reads is what the loss received: the trainer's public `compute_loss(model, inputs)` hook
(Hugging Face Trainer's) records, for each optimizer step, the rows the loss saw (prompt, completion,
advantage), the loss it returned, and the rows' per-token log-probabilities under the policy at that
moment (computed here, with a plain forward pass): one optimizer step per rollout batch, so these are
the weights that drew the rollouts. The expected values follow from those rows alone:

* the scripted reward is the parity of a completion's token ids, so every row's reward is known;
* a group is the rows of one prompt (the dataset's prompts are distinct), in any order: the remedy
  functions of training/advantages.py are permutation-equivariant within a group, ties of the
  unlikeliness rank aside (identical completions, compared as a multiset);
* a reference or teacher is a copy taken here, before the trainer is built.

Each test first checks that the remedy changes the number on its data (the expected value differs
from plain GRPO's), so a trainer that drops the remedy fails it. The trainer's own names used:
`kl_reference()` (the reset test compares its weights) and `_memory.net` (the memory network whose
log-probabilities the sampling must subtract). Everything else is TRL's or Trainer's public surface.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from pathlib import Path

import pytest
import torch
import yaml
from datasets import Dataset
from transformers import AutoModelForCausalLM, TrainerCallback
from trl import GRPOTrainer

from rlvr_support.data.toyworld.tokenizer import build_tokenizer
from rlvr_support.models.loading import toy_llama
from rlvr_support.training import advantages as adv
from rlvr_support.training.memory_net import memory_loss
from rlvr_support.training.stage import grpo_config
from rlvr_support.training.trainer import SupportGRPOTrainer, resolve_remedies

REPO = Path(__file__).resolve().parents[1]
G = 4  # rollouts per prompt
PROMPTS = [f"Q : solve {a} + {b} . A :" for a in range(1, 5) for b in range(1, 5)]  # 16 distinct prompts
ARCH = {"hidden_size": 16, "intermediate_size": 32, "num_layers": 1, "num_heads": 2, "max_positions": 64}
TOL = 1e-5


def parity_reward(prompts, completions, completion_ids, **_):
    """1 for a completion whose token ids sum to an even number, else 0: about half of a group succeeds."""
    return [float(sum(ids) % 2 == 0) for ids in completion_ids]


def rl_section(**overrides) -> dict:
    """The smoke config's `rl` section (the pipeline's keys), with the test's sizes."""
    rl = yaml.safe_load((REPO / "tests/config/smoke.yaml").read_text())["rl"]
    rl.update(group_size=G, prompts_per_step=4, max_completion_tokens=8, save_every=10_000, log_every=1,
              monitor=None)
    rl.update(overrides)
    return rl


@dataclass
class Row:
    prompt: tuple[int, ...]
    completion: tuple[int, ...]
    advantage: torch.Tensor  # a scalar, or one value per completion token (distillation)
    logps: torch.Tensor  # per completion token, under the policy of this step


@torch.no_grad()
def token_logps(model, prompt_ids, prompt_mask, completion_ids, completion_mask, temperature) -> torch.Tensor:
    """log p(completion token | prefix) at `temperature`, (B, T): the forward pass TRL makes, without its fused head."""
    ids = torch.cat([prompt_ids, completion_ids], dim=1)
    att = torch.cat([prompt_mask, completion_mask], dim=1)
    T = completion_ids.shape[1]
    logits = model(input_ids=ids, attention_mask=att).logits[:, -T - 1:-1].float() / temperature
    return torch.log_softmax(logits, dim=-1).gather(-1, completion_ids.unsqueeze(-1)).squeeze(-1)


class Recorder:
    """Mixed into a trainer class: per optimizer step (1-based), the rows its loss saw, the loss, the policy's
    weights at that moment (`snapshots`: before the step's update)."""

    def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
        step = self.state.global_step + 1
        rec = self.__dict__.setdefault("records", {}).setdefault(step, {"rows": [], "loss": 0.0})
        if step not in self.__dict__.setdefault("snapshots", {}):
            self.snapshots[step] = {k: v.detach().clone() for k, v in model.state_dict().items()}
        logps = token_logps(model, inputs["prompt_ids"], inputs["prompt_mask"], inputs["completion_ids"],
                            inputs["completion_mask"], self.args.temperature)
        a = inputs["advantages"]
        for i in range(inputs["completion_ids"].shape[0]):
            pm, cm = inputs["prompt_mask"][i].bool(), inputs["completion_mask"][i].bool()
            rec["rows"].append(Row(tuple(inputs["prompt_ids"][i][pm].tolist()),
                                   tuple(inputs["completion_ids"][i][cm].tolist()),
                                   a[i][cm].detach().clone() if a.dim() == 2 else a[i].detach().clone(),
                                   logps[i][cm].clone()))
        loss = super().compute_loss(model, inputs, return_outputs, num_items_in_batch)
        rec["loss"] += float(loss.detach())  # micro-batch losses are already divided by the accumulation steps
        return loss


class SupportRecorder(Recorder, SupportGRPOTrainer):
    pass


class TRLRecorder(Recorder, GRPOTrainer):
    pass


def tiny_policy(tmp_path: Path, seed: int = 0):
    """(model, tokenizer): a random toy Llama, saved and reloaded so that TRL can build its own reference from
    the model's path (native k3 KL), as it does in the pipeline."""
    torch.manual_seed(seed)
    tok = build_tokenizer()
    tok.padding_side = "left"
    model = toy_llama(len(tok), ARCH, tok)
    with torch.no_grad():
        model.model.embed_tokens.weight.mul_(4.0)  # peakier distributions: log-probs that move visibly in a step
    model.save_pretrained(tmp_path / "init")
    return AutoModelForCausalLM.from_pretrained(tmp_path / "init"), tok


def make_trainer(tmp_path: Path, remedies: dict, *, steps: int = 2, cls=SupportRecorder, model=None,
                 trainer_kw: dict | None = None, **rl):
    """A trainer of the pipeline's GRPO config (training/stage.py grpo_config, `rl` keys overridden) on 16
    distinct prompts; returns (trainer, the policy's start weights as a frozen copy)."""
    if model is None:
        model, tok = tiny_policy(tmp_path)
    else:
        tok = build_tokenizer()
        tok.padding_side = "left"
    start = copy.deepcopy(model).eval()
    remedies = resolve_remedies(remedies)
    args = grpo_config(tmp_path / "out", rl_section(steps=steps, **rl), seed=0, remedies=remedies)
    args.disable_tqdm = True
    kwargs = dict(model=model, reward_funcs=[parity_reward], args=args, processing_class=tok,
                  train_dataset=Dataset.from_list([{"prompt": p} for p in PROMPTS]))
    if cls is not TRLRecorder:
        kwargs.update(remedies=remedies, **(trainer_kw or {}))
    return cls(**kwargs), start


def grouped(rows: list[Row]) -> list[list[Row]]:
    """The step's rows as groups of G (one prompt each), rows of a group in a canonical order."""
    by_prompt: dict[tuple, list[Row]] = {}
    for r in rows:
        by_prompt.setdefault(r.prompt, []).append(r)
    groups = [sorted(g, key=lambda r: r.completion) for _, g in sorted(by_prompt.items())]
    assert all(len(g) == G for g in groups), f"expected groups of {G} rollouts, got {[len(g) for g in groups]}"
    return groups


def flat(groups, fn) -> torch.Tensor:
    return torch.tensor([fn(r) for g in groups for r in g], dtype=torch.float32)


def rewards_of(groups) -> torch.Tensor:
    return flat(groups, lambda r: float(sum(r.completion) % 2 == 0))


def assert_advantages(groups, expected: torch.Tensor, what: str):
    """Each row's advantage equals `expected` (flat, group-major in `groups`' order); identical completions of
    a group may carry their values in any order (likelihood-rank ties)."""
    i = 0
    for g in groups:
        got = sorted((r.completion, float(r.advantage)) for r in g)
        want = sorted((r.completion, float(e)) for r, e in zip(g, expected[i:i + len(g)]))
        i += len(g)
        for (c, a), (_, e) in zip(got, want):
            assert a == pytest.approx(e, abs=TOL), f"{what}: advantage {a} of completion {c}, expected {e}"


def seq_kl(groups, ref_logps: dict, estimator: str) -> torch.Tensor:
    """sum_t kl_t per rollout, hand-computed: k1 = log pi - log ref, k3 = exp(ref - pi) - (ref - pi) - 1."""
    out = []
    for g in groups:
        for r in g:
            d = ref_logps[(r.prompt, r.completion)] - r.logps
            out.append(float((-d if estimator == "k1" else torch.exp(d) - d - 1).sum()))
    return torch.tensor(out)


def mean_kl(groups, ref_logps: dict, estimator: str) -> float:
    """mean over rollouts of the per-token mean KL: the term the loss adds (times beta) with loss_type grpo."""
    per = []
    for g in groups:
        for r in g:
            d = ref_logps[(r.prompt, r.completion)] - r.logps
            per.append(float((-d if estimator == "k1" else torch.exp(d) - d - 1).mean()))
    return sum(per) / len(per)


def logps_under(model, groups, temperature) -> dict:
    """{(prompt, completion): per-token log-probs under `model`}, each row on its own (no padding)."""
    out = {}
    for g in groups:
        for r in g:
            p, c = torch.tensor([r.prompt]), torch.tensor([r.completion])
            out[(r.prompt, r.completion)] = token_logps(model, p, torch.ones_like(p), c, torch.ones_like(c),
                                                        temperature)[0]
    return out


# ----------------------------------------------------------------------------- advantages
ADVANTAGE_REMEDIES = {
    "inverse_success": ({"inverse_success": {"alpha": 2.0}},
                        lambda r, s, seq: adv.inverse_success_scale(adv.group_advantages(r, G), s, G, 2.0)),
    "passk": ({"passk": {"k": 2}}, lambda r, s, seq: adv.passk_advantages(s, G, 2)),
    "unlikeliness": ({"unlikeliness": {"beta": 0.5}},
                     lambda r, s, seq: adv.group_advantages(adv.unlikeliness_rewards(r, seq, G, 0.5), G)),
}


@pytest.mark.parametrize("name", ADVANTAGE_REMEDIES)
def test_the_advantages_the_loss_uses_are_the_remedy_functions_of_the_step_rewards(tmp_path, name):
    remedies, expected_fn = ADVANTAGE_REMEDIES[name]
    t, _ = make_trainer(tmp_path, remedies, steps=2)
    t.train()
    for step, rec in t.records.items():
        groups = grouped(rec["rows"])
        r = rewards_of(groups)
        seq = flat(groups, lambda row: float(row.logps.sum()))
        expected = expected_fn(r, (r >= 1).float(), seq)
        plain = adv.group_advantages(r, G)
        assert not torch.allclose(expected, plain, atol=100 * TOL), f"step {step}: {name} changes nothing here"
        assert_advantages(groups, expected, f"{name}, step {step}")


# ----------------------------------------------------------------------------- KL
@pytest.mark.parametrize("estimator", ["k1", "k3"])
@pytest.mark.parametrize("where", ["loss", "reward"])
def test_kl_terms_equal_hand_computed_values_and_vanish_while_the_reference_is_the_policy(tmp_path, estimator,
                                                                                       where):
    beta, temperature = 0.5, 0.8  # a tempered policy: the reference must be read at the same temperature
    t, start = make_trainer(tmp_path, {"kl": {"beta": beta, "estimator": estimator, "where": where}}, steps=2,
                            lr=0.05, temperature=temperature)
    t.train()
    for step, rec in t.records.items():
        groups = grouped(rec["rows"])
        r = rewards_of(groups)
        ref = logps_under(start, groups, temperature)
        kl = seq_kl(groups, ref, estimator)
        if step == 1:  # the reference is the stage's start policy: the policy itself at step 1
            assert kl.abs().max() < TOL
        else:
            assert kl.abs().max() > 1e-2, "the policy did not move away from its reference: nothing to test"
        if where == "reward":
            expected = adv.group_advantages(r - beta * kl, G)
            if step > 1:
                assert not torch.allclose(expected, adv.group_advantages(r, G), atol=100 * TOL)
            assert_advantages(groups, expected, f"KL in the reward, step {step}")
        else:
            assert_advantages(groups, adv.group_advantages(r, G), f"KL in the loss leaves advantages, step {step}")
            # loss_type grpo, on-policy (ratio 1): mean over rollouts of mean_t(-A + beta kl_t)
            a = flat(groups, lambda row: float(row.advantage))
            kl_term = beta * mean_kl(groups, ref, estimator)
            if step > 1:
                assert abs(kl_term) > 100 * TOL
            assert rec["loss"] == pytest.approx(float(-a.mean()) + kl_term, abs=TOL), f"step {step}"
    logged = [h["kl"] for h in t.state.log_history if "kl" in h]  # reward_curve.csv's column
    assert len(logged) == 2 and logged[0] == 0.0 and logged[1] != 0.0


# ----------------------------------------------------------------------------- reference reset
@pytest.mark.parametrize("estimator,reset_optimizer", [("k1", True), ("k3", True), ("k1", False)])
def test_a_reset_makes_the_reference_the_policy_of_that_step(tmp_path, estimator, reset_optimizer):
    beta = 0.5
    kl = {"beta": beta, "estimator": estimator, "where": "loss", "reset_every": 2, "reset_optimizer": reset_optimizer}
    t, start = make_trainer(tmp_path, {"kl": kl}, steps=3, lr=0.05)
    t.train()
    # reset_every 2: after the second optimizer step, so step 3's reference is the policy step 3 starts from
    policy3 = copy.deepcopy(start)
    policy3.load_state_dict(t.snapshots[3])
    for step, ref_model in ((2, start), (3, policy3)):
        groups = grouped(t.records[step]["rows"])
        a = flat(groups, lambda row: float(row.advantage))
        kl_term = beta * mean_kl(groups, logps_under(ref_model, groups, 1.0), estimator)
        stale = beta * mean_kl(groups, logps_under(start, groups, 1.0), estimator)
        if step == 3:
            assert abs(kl_term) < TOL and abs(stale) > 100 * TOL, "without a reset the KL term would differ"
        assert t.records[step]["loss"] == pytest.approx(float(-a.mean()) + kl_term, abs=TOL), f"step {step}"
    ref = t.kl_reference().state_dict()
    for name, w in t.snapshots[3].items():
        assert torch.equal(ref[name], w), f"reference {name} is not the policy's of step 3"
    assert any(not torch.equal(ref[n], w) for n, w in t.model.state_dict().items()), "reference follows the policy"
    # Adam's step count restarts at the reset when asked: one update since (step 3), else three
    counts = {int(s["step"]) for s in t.optimizer.state_dict()["state"].values()}
    assert counts == ({1} if reset_optimizer else {3})


# ----------------------------------------------------------------------------- distillation
@pytest.mark.parametrize("teacher", ["given", "parent"])
def test_distillation_adds_coef_times_reverse_kl_to_the_teacher_per_token(tmp_path, teacher):
    coef = 0.5
    model, _ = tiny_policy(tmp_path)
    other = None
    if teacher == "given":
        torch.manual_seed(1)
        other = copy.deepcopy(model).eval()
        with torch.no_grad():
            for p in other.parameters():
                p.add_(0.3 * torch.randn_like(p))
    t, start = make_trainer(tmp_path, {"distill": {"coef": coef}}, steps=2, model=model, lr=0.05,
                            trainer_kw={"teacher": other})
    teacher_model = other if other is not None else start
    t.train()
    for step, rec in t.records.items():
        groups = grouped(rec["rows"])
        plain = adv.group_advantages(rewards_of(groups), G)
        tl = logps_under(teacher_model, groups, 1.0)
        i, moved, rkl_sum, tokens = 0, 0.0, 0.0, 0
        for g in groups:
            for row in g:
                rkl = row.logps - tl[(row.prompt, row.completion)]  # log pi - log teacher on the student's tokens
                want = plain[i] - coef * rkl
                moved = max(moved, float((want - plain[i]).abs().max()))
                assert torch.allclose(row.advantage, want, atol=TOL), f"step {step}, row {i}"
                rkl_sum, tokens, i = rkl_sum + float(rkl.sum()), tokens + len(rkl), i + 1
        if teacher == "given" or step > 1:
            assert moved > 100 * TOL, "student and teacher agree here: nothing to test"
        logged = [h["distill/reverse_kl"] for h in t.state.log_history if "distill/reverse_kl" in h]
        assert logged[step - 1] == pytest.approx(rkl_sum / tokens, abs=TOL)


# ----------------------------------------------------------------------------- memory calibration
def test_memory_calibration_shifts_the_sampling_logits_by_minus_mu_log_q(tmp_path):
    # a tempered policy: the shift applies to the sampling logits, logits / temperature (memory_net.py)
    mu, hidden, lr, steps, temperature = 0.7, 16, 0.05, 2, 0.8
    t, _ = make_trainer(tmp_path, {"memory": {"mu": mu, "hidden": hidden, "lr": lr, "steps": steps}}, steps=2,
                        temperature=temperature)
    policy = t.model
    generate, calls = policy.generate, []

    def spy(*args, **kw):
        net = copy.deepcopy(t._memory.net)  # the memory as it is when these rollouts are drawn
        out = generate(*args, **kw, output_logits=True, output_scores=True, return_dict_in_generate=True)
        calls.append((kw["input_ids"].shape[1], out, net))
        return out.sequences

    policy.generate = spy
    t.train()
    assert len(calls) == 2, "the memory remedy samples each step's rollouts through generate"
    eos = {t.processing_class.eos_token_id}
    for width, out, net in calls:
        gen = out.sequences[:, width:]
        with torch.no_grad():
            log_q = net(gen)  # position j: log q(. | the first j generated tokens)
        for j, (scores, logits) in enumerate(zip(out.scores, out.logits)):
            finite = torch.isfinite(scores)
            shift = (scores - logits / temperature)[finite]
            want = (-mu * log_q[:, j, : scores.shape[-1]])[finite]
            assert torch.allclose(shift, want, atol=TOL), f"position {j}"
            assert float(want.max() - want.min()) > 0.1, "a flat memory shift would not change sampling"
    # between the steps the memory is trained (cross-entropy, Adam) on the first step's rollouts
    width, out, net1 = calls[0]
    rows = []
    for seq in out.sequences[:, width:].tolist():
        cut = next((i + 1 for i, x in enumerate(seq) if x in eos), len(seq))
        rows.append(seq[:cut])
    n = max(map(len, rows))
    ids = torch.tensor([r + [0] * (n - len(r)) for r in rows])
    mask = torch.tensor([[1.0] * len(r) + [0.0] * (n - len(r)) for r in rows])
    replica = copy.deepcopy(net1).train()
    opt = torch.optim.Adam(replica.parameters(), lr=lr)
    for _ in range(steps):
        opt.zero_grad()
        memory_loss(replica, ids, mask).backward()
        opt.step()
    net2 = calls[1][2]
    for (name, p), q in zip(replica.named_parameters(), net2.parameters()):
        assert torch.allclose(p, q, atol=1e-6), f"memory {name} is not trained on the step's rollouts"
    assert any(not torch.equal(p, q) for p, q in zip(net1.parameters(), net2.parameters()))


# ----------------------------------------------------------------------------- no remedy: TRL's GRPO
class Weights(TrainerCallback):
    def __init__(self):
        self.per_step = []

    def on_step_end(self, args, state, control, model=None, **kw):
        self.per_step.append({k: v.detach().clone() for k, v in model.state_dict().items()})


def test_a_plain_stage_trains_exactly_like_trls_grpo_trainer(tmp_path):
    runs = {}
    for cls in (SupportRecorder, TRLRecorder):
        model, _ = tiny_policy(tmp_path / cls.__name__)
        # TRL's own generate path: the fast sampler (rollout_backend auto) draws from the same distribution,
        # not the same samples (tests/test_grpo_fast_rollouts.py)
        t, _ = make_trainer(tmp_path / cls.__name__, {}, steps=3, cls=cls, model=model, lr=0.05,
                            trainer_kw={"rollout_backend": "hf"})
        cb = Weights()
        t.add_callback(cb)
        t.train()
        runs[cls] = (t, cb)
    (ours, ours_w), (trl_t, trl_w) = runs[SupportRecorder], runs[TRLRecorder]
    assert len(ours_w.per_step) == len(trl_w.per_step) == 3
    for step in (1, 2, 3):
        assert ours.records[step]["loss"] == trl_t.records[step]["loss"], f"loss of step {step}"
        mine, theirs = ours_w.per_step[step - 1], trl_w.per_step[step - 1]
        for name in theirs:
            assert torch.equal(mine[name], theirs[name]), f"{name} after step {step}"
    assert any(not torch.equal(ours_w.per_step[0][n], ours_w.per_step[2][n]) for n in ours_w.per_step[0])
