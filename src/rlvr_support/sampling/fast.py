"""A fast CPU sampler for small Llama / Qwen2 models: the same samples' distribution as `generate_hf`.

Hugging Face `generate` spends most of its CPU time on work that repeated sampling does not
need: it prefills every prompt n times, grows its KV cache by concatenation (quadratic
copying), runs a generic logits-processor pipeline and keeps decoding rows that already
finished. This module decodes with a hand-written loop over the model's own weights:

* prefill once per prompt, then copy the prompt's KV cache to its n sample rows;
* a static KV cache (preallocated, written in place; attention reads only the filled prefix);
* fused q/k/v and gate/up projections, so a layer is a handful of matrix products;
* finished rows are dropped from the batch (the cache is compacted) once enough have ended;
* sampling as in `generate`: logits / temperature, then top-p exactly as transformers'
  `TopPLogitsWarper` (drop the sorted tokens whose cumulative probability is <= 1 - top_p,
  keep at least one), then a categorical draw.

The arithmetic is the model's (RMSNorm in float32, rotary embeddings from the model's own
`rotary_emb`, softmax attention with scale head_dim**-0.5, SiLU MLP), so greedy decoding
matches `generate_hf` token for token and sampled outputs follow the same distribution
(tests/test_sampling_fast.py); the random stream differs, so individual samples do not.
Per generated token it stores the log-probability of the chosen token and the entropy of
the next-token distribution at the sampling temperature (before top-p), as `generate_hf`.

Two entry points share the decode loop (`_decode`): `generate_fast` (text prompts, sample rows
as `generate_hf`) and `sample_ids` (token-id prompts, completion ids only, a set of eos ids:
GRPO rollouts, training/trainer.py).
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from tqdm import tqdm

from rlvr_support.sampling.hf import sample_row
from rlvr_support.sampling.prompts import Prompt, left_pad, prompt_ids

SUPPORTED_TYPES = ("llama", "qwen2")


def fast_supported(model) -> str | None:
    """None if `fast_generate` can run `model`, else why not (the caller falls back to `generate`)."""
    cfg = getattr(model, "config", None)
    if cfg is None:
        return "not a transformers model (no config)"
    if cfg.model_type not in SUPPORTED_TYPES:
        return f"model_type {cfg.model_type!r} is not one of {SUPPORTED_TYPES}"
    if next(model.parameters()).device.type != "cpu":
        return "the fast sampler is for CPU; on GPU use vLLM"
    if getattr(cfg, "hidden_act", "silu") != "silu":
        return f"hidden_act {cfg.hidden_act!r} is not silu"
    if getattr(cfg, "use_sliding_window", False):
        return "sliding-window attention is not implemented"
    return None


class _Layer:
    __slots__ = ("ln1", "qkv_w", "qkv_b", "o_w", "o_b", "ln2", "gu_w", "gu_b", "down_w", "down_b")


def _cat_bias(*linears):
    if all(lin.bias is None for lin in linears):
        return None
    return torch.cat([lin.bias if lin.bias is not None else torch.zeros(lin.out_features) for lin in linears])


class _Weights:
    """The model's tensors, with q/k/v and gate/up fused (views of the same numbers, concatenated once)."""

    def __init__(self, model):
        cfg = model.config
        self.n_heads = cfg.num_attention_heads
        self.n_kv = getattr(cfg, "num_key_value_heads", None) or self.n_heads
        self.head_dim = getattr(cfg, "head_dim", None) or cfg.hidden_size // self.n_heads
        self.eps = cfg.rms_norm_eps
        self.embed = model.model.embed_tokens.weight
        self.norm = model.model.norm.weight
        self.lm_head = model.lm_head.weight
        self.rotary = model.model.rotary_emb
        self.layers = []
        for blk in model.model.layers:
            a, m, lyr = blk.self_attn, blk.mlp, _Layer()
            lyr.ln1, lyr.ln2 = blk.input_layernorm.weight, blk.post_attention_layernorm.weight
            lyr.qkv_w = torch.cat([a.q_proj.weight, a.k_proj.weight, a.v_proj.weight])
            lyr.qkv_b = _cat_bias(a.q_proj, a.k_proj, a.v_proj)
            lyr.o_w, lyr.o_b = a.o_proj.weight, a.o_proj.bias
            lyr.gu_w = torch.cat([m.gate_proj.weight, m.up_proj.weight])
            lyr.gu_b = _cat_bias(m.gate_proj, m.up_proj)
            lyr.down_w, lyr.down_b = m.down_proj.weight, m.down_proj.bias
            self.layers.append(lyr)

    def rope_table(self, n_positions: int) -> tuple[torch.Tensor, torch.Tensor]:
        """cos, sin of shape (n_positions, head_dim) from the model's own rotary module (incl. scaling)."""
        pos = torch.arange(n_positions).unsqueeze(0)
        cos, sin = self.rotary(self.embed[:1].unsqueeze(0), pos)
        return cos[0], sin[0]


def _rms(x, w, eps):
    # as transformers' LlamaRMSNorm: normalise in float32, then scale
    xf = x.float()
    return w * (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)).to(x.dtype)


def _rotate(x, cos, sin):
    # x (B, H, T, d); cos/sin (B, 1, T, d); rotate_half as in transformers
    half = x.shape[-1] // 2
    rot = torch.cat((-x[..., half:], x[..., :half]), dim=-1)
    return x * cos + rot * sin


def _forward(W: _Weights, cache_k, cache_v, tokens, cos, sin, slot: int, key_bias):
    """Run T new tokens per row through the model, writing their K/V at cache slots [slot, slot+T).

    tokens (B, T); cos/sin (B, 1, T, d); key_bias (B, 1, T, cache length) additive (0 or -inf):
    it hides left padding, unfilled cache slots and, in the prefill, future tokens. Returns last-position logits (B, V).
    """
    B, T = tokens.shape
    H, Hkv, d = W.n_heads, W.n_kv, W.head_dim
    g = H // Hkv
    end = slot + T
    x = W.embed[tokens]
    for li, L in enumerate(W.layers):
        h = _rms(x, L.ln1, W.eps)
        qkv = F.linear(h, L.qkv_w, L.qkv_b)
        q, k, v = qkv.split([H * d, Hkv * d, Hkv * d], dim=-1)
        q = _rotate(q.view(B, T, H, d).transpose(1, 2), cos, sin)
        k = _rotate(k.view(B, T, Hkv, d).transpose(1, 2), cos, sin)
        cache_k[li][:, :, slot:end] = k
        cache_v[li][:, :, slot:end] = v.view(B, T, Hkv, d).transpose(1, 2)
        # attend over the whole static cache (unfilled slots are zeros, hidden by key_bias): a slice
        # [:end] would be non-contiguous and matmul would copy it each step, which cost 2-3x more
        keys, vals = cache_k[li], cache_v[li]
        # grouped-query attention without copying K/V: (B, Hkv, g*T, d) x (B, Hkv, d, S)
        qg = q.reshape(B, Hkv, g * T, d)
        scores = torch.matmul(qg, keys.transpose(-1, -2)) * (d ** -0.5)
        scores = scores.view(B, Hkv, g, T, -1) + key_bias.unsqueeze(2)
        att = torch.softmax(scores, dim=-1).view(B, Hkv, g * T, -1)
        out = torch.matmul(att, vals).view(B, H, T, d).transpose(1, 2).reshape(B, T, H * d)
        x = x + F.linear(out, L.o_w, L.o_b)
        h = _rms(x, L.ln2, W.eps)
        gate, up = F.linear(h, L.gu_w, L.gu_b).chunk(2, dim=-1)
        x = x + F.linear(F.silu(gate) * up, L.down_w, L.down_b)
    return F.linear(_rms(x[:, -1], W.norm, W.eps), W.lm_head)


def top_p_filter(scores: torch.Tensor, top_p: float) -> torch.Tensor:
    """transformers' TopPLogitsWarper: mask sorted tokens with cumulative prob <= 1 - top_p, keep >= 1."""
    sorted_logits, sorted_idx = torch.sort(scores, descending=False)
    remove = sorted_logits.softmax(dim=-1).cumsum(dim=-1) <= (1 - top_p)
    remove[..., -1:] = False
    return scores.masked_fill(remove.scatter(1, sorted_idx, remove), float("-inf"))


def sample_categorical(probs: torch.Tensor, gen: torch.Generator) -> torch.Tensor:
    """One draw per row from unnormalised probabilities by inverting the CDF.

    Same distribution as `torch.multinomial(probs, 1)`, but one uniform per row instead of
    one exponential per vocabulary entry (multinomial's method), which made it 12% of a step.
    A zero-probability token never has the first CDF value above u, so it is never drawn.
    """
    cdf = probs.cumsum(-1)
    u = torch.rand(probs.shape[0], 1, generator=gen, dtype=cdf.dtype) * cdf[:, -1:]
    return torch.searchsorted(cdf, u, right=True).squeeze(1).clamp_max(probs.shape[-1] - 1)


def _decode(W, ids, mask, *, n, temperature, top_p, max_new_tokens, eos_ids, pad_id, gen, drop_at, stats=True):
    """Sample n continuations of each left-padded prompt row of `ids` (P, S), `mask` its attention mask.

    Returns (tokens, logp, entropy, lengths), row r = prompt r // n, sample r % n; a row ends at its
    first token in `eos_ids` (its length counts it) and is `pad_id` after. Without `stats`, logp and
    entropy are not computed (None), which the GRPO rollouts do not need.
    """
    greedy = temperature == 0
    eos = torch.tensor(sorted(set(eos_ids)), dtype=torch.long)
    mask = mask.bool()
    P, S = ids.shape
    total = S + max_new_tokens
    cos_t, sin_t = W.rope_table(total)
    # positions as in `generate` with left padding: cumsum(mask) - 1 (padding slots get 1; they are masked anyway)
    pos = (mask.long().cumsum(-1) - 1).masked_fill(~mask, 1)
    causal = torch.ones(S, S, dtype=torch.bool).tril()
    allowed = causal.unsqueeze(0) & mask.unsqueeze(1)  # (P, S_query, S_key)
    bias = torch.zeros(P, 1, S, S).masked_fill(~allowed.unsqueeze(1), float("-inf"))
    # a padded query row would see no key at all; let it see itself (its output is never used)
    bias[:, :, torch.arange(S), torch.arange(S)] = 0.0
    dt = W.embed.dtype
    shape_p = (P, W.n_kv, S, W.head_dim)
    pk = [torch.empty(shape_p, dtype=dt) for _ in W.layers]
    pv = [torch.empty(shape_p, dtype=dt) for _ in W.layers]
    logits = _forward(W, pk, pv, ids, cos_t[pos].unsqueeze(1), sin_t[pos].unsqueeze(1), 0, bias)
    # expand: row r = prompt r // n, sample r % n; the static cache holds prompt + max_new_tokens slots
    B = P * n
    shape = (B, W.n_kv, total, W.head_dim)
    ck, cv = [], []
    for li in range(len(W.layers)):
        k, v = torch.zeros(shape, dtype=dt), torch.zeros(shape, dtype=dt)  # zeros: 0 * NaN garbage would leak
        k[:, :, :S] = pk[li].repeat_interleave(n, 0)
        v[:, :, :S] = pv[li].repeat_interleave(n, 0)
        ck.append(k)
        cv.append(v)
    del pk, pv
    logits = logits.repeat_interleave(n, 0)
    key_ok = torch.zeros(B, total, dtype=torch.bool)
    key_ok[:, :S] = mask.repeat_interleave(n, 0)
    next_pos = pos[:, -1].repeat_interleave(n, 0) + 1
    rows = torch.arange(B)  # original row of each row still in the batch
    live = torch.ones(B, dtype=torch.bool)  # rows in the batch that have not finished
    out_tok = torch.full((B, max_new_tokens), pad_id, dtype=torch.long)
    out_lp = torch.zeros(B, max_new_tokens) if stats else None
    out_ent = torch.zeros(B, max_new_tokens) if stats else None
    length = torch.full((B,), max_new_tokens, dtype=torch.long)
    for t in range(max_new_tokens):
        scores = logits.float() / (1.0 if greedy else temperature)
        logp = torch.log_softmax(scores, dim=-1) if stats or (not greedy and top_p >= 1.0) else None
        if greedy:
            tok = scores.argmax(-1)
        else:
            probs = logp.exp() if top_p >= 1.0 else torch.softmax(top_p_filter(scores, top_p), dim=-1)
            tok = sample_categorical(probs, gen)
        r = rows[live]
        out_tok[r, t] = tok[live]
        if stats:
            lp_live = logp[live]
            out_lp[r, t] = lp_live.gather(-1, tok[live].unsqueeze(-1)).squeeze(-1)
            out_ent[r, t] = -(lp_live.exp() * lp_live.clamp_min(-1e30)).sum(-1)
        done = live & torch.isin(tok, eos)
        length[rows[done]] = t + 1
        live = live & ~done
        n_live = int(live.sum())
        if n_live == 0 or t == max_new_tokens - 1:
            break
        if n_live <= drop_at * len(rows):
            # compaction copies the cache once; it pays when a good share of rows has ended
            keep = live.nonzero().squeeze(1)
            ck = [c.index_select(0, keep) for c in ck]
            cv = [c.index_select(0, keep) for c in cv]
            key_ok, next_pos, rows, tok, live = key_ok[keep], next_pos[keep], rows[keep], tok[keep], live[keep]
        else:
            tok = tok.masked_fill(~live, pad_id)  # finished rows ride along until the next compaction
        slot = S + t
        key_ok[:, slot] = True
        bias = torch.zeros(len(rows), 1, 1, total).masked_fill(~key_ok[:, None, None, :], float("-inf"))
        p = next_pos.unsqueeze(1)
        logits = _forward(W, ck, cv, tok.unsqueeze(1), cos_t[p].unsqueeze(1), sin_t[p].unsqueeze(1), slot, bias)
        next_pos = next_pos + 1
    return out_tok, out_lp, out_ent, length


@torch.no_grad()
def generate_fast(model, tokenizer, prompts: list[Prompt], *, n: int, temperature: float, top_p: float,
                  max_new_tokens: int, seed: int, prompt_batch: int = 16, drop_at: float = 0.75) -> list[dict]:
    """n samples per prompt (text or token ids), as `generate_hf` returns them (same keys, same conventions).

    `prompt_batch` prompts (prompt_batch * n rows) are decoded together; the batch is
    compacted when at most `drop_at` of its rows are still running.
    """
    why = fast_supported(model)
    if why:
        raise ValueError(f"fast sampler cannot run this model: {why}")
    if temperature == 0 and n > 1:
        raise ValueError("greedy decoding (temperature 0) gives one sample per prompt; set n: 1")
    W = _Weights(model)
    gen = torch.Generator().manual_seed(seed)
    rows: list[dict] = []
    for start in tqdm(range(0, len(prompts), prompt_batch), desc="sample (fast)", mininterval=5):
        chunk = prompts[start:start + prompt_batch]
        ids, mask = left_pad(prompt_ids(tokenizer, chunk), tokenizer.pad_token_id)
        toks, lps, ents, lens = _decode(W, ids, mask, n=n, temperature=temperature,
                                        top_p=top_p, max_new_tokens=max_new_tokens, eos_ids=[tokenizer.eos_token_id],
                                        pad_id=tokenizer.pad_token_id, gen=gen, drop_at=drop_at)
        toks, lps, ents, lens = toks.tolist(), lps.tolist(), ents.tolist(), lens.tolist()
        for b in range(len(toks)):
            length = lens[b]
            rows.append(sample_row(tokenizer, toks[b], length, lps[b][:length], ents[b][:length],
                                   start + b // n, b % n))
    return rows


def sample_ids(model, prompt_ids: list[list[int]], *, n: int, temperature: float, top_p: float, max_new_tokens: int,
               eos_ids, pad_id: int, generator: torch.Generator, drop_at: float = 0.75) -> list[list[int]]:
    """n continuations of each tokenised prompt (prompt-major order), each cut right after its first
    token in `eos_ids` (kept, as TRL's completion ids keep it). One prefill per prompt, shared by its n rows."""
    if not prompt_ids:
        return []
    why = fast_supported(model)
    if why:
        raise ValueError(f"fast sampler cannot run this model: {why}")
    ids, mask = left_pad(prompt_ids, pad_id)
    toks, _, _, lens = _decode(_Weights(model), ids, mask, n=n, temperature=temperature, top_p=top_p,
                               max_new_tokens=max_new_tokens, eos_ids=eos_ids, pad_id=pad_id, gen=generator,
                               drop_at=drop_at, stats=False)
    return [row[:length] for row, length in zip(toks.tolist(), lens.tolist())]
