#!/usr/bin/env python3
"""End-to-end decode steps of dense decoder-only LLMs on one GPU (tp 1), for `llm_decode`.

One decode step, built from PyTorch ops as ../shared/VALIDATION.md says (GEMMs, SDPA, norms),
captured in a CUDA graph and timed per step. Per layer, in order:

  h = rms_norm(x)                     F.rms_norm
  qkv = h @ Wqkv                      [batch, (heads + 2 kv_heads) * head_dim]
  o = SDPA(q, K cache, V cache)       FLASH_ATTENTION backend, over a pre-filled cache of ctx keys
  x = x + o @ Wo                      GEMM, then the residual add
  h = rms_norm(x)
  g, u = (h @ Wgate_up).chunk(2)      one GEMM, [batch, 2 ffn]
  a = F.silu(g) * u                   eager: two kernels
  x = x + a @ Wdown                   GEMM, then the residual add

then rms_norm and the lm_head GEMM once. Every layer has weights and a KV cache of its own
(bf16, torch.randn), so each step streams all of them from memory as a real decode does.

Grouped-query attention: SDPA's enable_gqa, where the flash backend takes it; FlashAttention-2
then folds the query heads of one KV head into its query rows for one-token decode
(flash_api.cpp, seqlenq_ngroups_swapped). Where it does not (column gqa = "folded"), the
script folds them itself (q viewed as [batch, kv_heads, heads / kv_heads, head_dim]), at the
cost of a copy of the output back into head order. Left out of the step, as out of
the model: the embedding lookup, rotary embeddings, writing the new token's K and V into
the cache, and sampling.

Timing: the step is captured in a CUDA graph (after 3 eager warm-up calls); each of 5 rounds
replays it back to back for about 0.3 s between two CUDA events; the step time is the median
round's time per replay (as serving engines replay one graph per step). No L2 flush: the
weights of one step are much larger than the L2 and stream either way.

Sets: `--set dev` (MODELS x CASES, llm_decode.csv: the set the model's decode step was
checked and changed on), `--set heldout` (HELDOUT_MODELS x HELDOUT_CASES,
llm_decode_heldout.csv: measured after those changes), `--tp 2` (TP_MODELS x TP_CASES on two
GPUs under torchrun, llm_decode_tp2.csv, for the h200x2 system profile), `--ep 2` (EP_MODELS x
EP_CASES, mixture of experts with expert parallelism, llm_decode_ep2.csv).

Outputs (--out DIR), NAME as above:
  NAME.csv               one row per case: the llm_decode parameters, us (the step time), the
                         number of kernels in one step and the sum of their profiled durations
  NAME_kernels.csv       per case, the kernels of one eager step grouped by name: count and
                         total profiled microseconds (where the time goes)

Run on the H200 from the repository root (~1 min a set):
  python3 tests/validation/h200/llm_decode.py --out $OUT [--set heldout|moe]
  NCCL_NVLS_ENABLE=0 torchrun --standalone --nproc_per_node=2 \
      tests/validation/h200/llm_decode.py --tp 2 --out $OUT     (or --ep 2)
"""
import argparse
import csv
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from torch.nn.attention import SDPBackend, sdpa_kernel  # noqa: E402

from attention_common import capture_graph, header, profile_kernels, replay_us  # noqa: E402

# name: (layers, hidden, heads, kv_heads, head_dim, ffn, vocab), the shapes of public models
# (a 70B's width with 8 of its 80 layers, so that weights and caches fit one H200).
MODELS = {
    "llama3_8b": (32, 4096, 32, 8, 128, 14336, 128256),
    "llama2_7b": (32, 4096, 32, 32, 128, 11008, 32000),
    "llama3_70b_8l": (8, 8192, 64, 8, 128, 28672, 128256),
    "qwen2_1.5b": (28, 1536, 12, 2, 128, 8960, 151936),
}
# The held-out set (--set heldout): other public shapes (head dims 96 and 256 among them) and
# other batches and contexts, measured after the model was changed on the set above.
HELDOUT_MODELS = {
    "mistral_7b": (32, 4096, 32, 8, 128, 14336, 32768),
    "qwen2.5_7b": (28, 3584, 28, 4, 128, 18944, 152064),
    "phi3_mini": (32, 3072, 32, 32, 96, 8192, 32064),
    "gemma_2b": (18, 2048, 8, 1, 256, 16384, 256000),
    "llama3_70b_4l": (4, 8192, 64, 8, 128, 28672, 128256),
}
HELDOUT_CASES = [(2, 2048), (4, 16384), (16, 2048), (64, 512), (256, 512)]
# Tensor parallel (--tp 2, under torchrun on two GPUs): each rank holds 1/tp of the heads, the
# FFN and the vocabulary; the attention and MLP outputs are all-reduced (NCCL, in the graph).
TP_MODELS = {k: MODELS[k] for k in ("llama3_8b", "llama3_70b_8l")}
TP_MODELS["qwen2.5_7b"] = HELDOUT_MODELS["qwen2.5_7b"]
TP_CASES = [(1, 1024), (8, 4096), (32, 2048), (128, 1024)]
# Mixture of experts (--set moe): (layers, hidden, heads, kv_heads, head_dim, ffn, vocab,
# experts, experts_per_token, expert_ffn), Mixtral-8x7B's shapes with 16 of its 32 layers and
# Qwen1.5-MoE-A2.7B's routed experts (no shared expert). Routing is uniform and fixed (token b's
# j-th expert is (b k + j) mod experts, so a CUDA graph can hold it): the router GEMM and its
# top-k run, the tokens are gathered expert by expert (index_select), each expert's two GEMMs
# run as one torch.bmm over the experts, SiLU x up between them, and the outputs, weighted
# 1 / k, are added back into the residual (index_add).
MOE_MODELS = {
    "mixtral_8x7b_16l": (16, 4096, 32, 8, 128, 14336, 32000, 8, 2, 14336),
    "qwen1.5_moe_a2.7b": (24, 2048, 16, 16, 128, 5632, 151936, 60, 4, 1408),
}
MOE_CASES = {"mixtral_8x7b_16l": [(4, 2048), (8, 4096), (32, 2048), (128, 1024)],
             "qwen1.5_moe_a2.7b": [(15, 2048), (60, 2048), (240, 1024)]}
# Expert parallel (--ep 2, under torchrun on two GPUs): each GPU decodes `batch` sequences of
# its own (attention replicated, tp 1), holds half the experts, and sends each expert group its
# token copies and gets the results back by all-to-all (NCCL, in the graph), regrouping them
# expert by expert around the GEMMs (a copy each way).
EP_MODELS = {"mixtral_8x7b_16l": MOE_MODELS["mixtral_8x7b_16l"], "qwen1.5_moe_a2.7b": MOE_MODELS["qwen1.5_moe_a2.7b"]}
EP_CASES = {"mixtral_8x7b_16l": [(4, 2048), (32, 2048), (128, 1024)], "qwen1.5_moe_a2.7b": [(15, 2048), (60, 2048)]}
# (batch, ctx) per model: KV caches of at most ~34 GB.
CASES = {
    "llama3_8b": [(1, 1024), (1, 8192), (8, 1024), (8, 8192), (32, 1024), (32, 4096), (128, 1024), (128, 2048)],
    "llama2_7b": [(1, 1024), (1, 8192), (8, 1024), (8, 4096), (32, 1024), (64, 1024)],
    "llama3_70b_8l": [(1, 1024), (1, 8192), (8, 4096), (32, 4096), (128, 2048)],
    "qwen2_1.5b": [(1, 1024), (1, 8192), (8, 4096), (32, 4096), (128, 2048)],
}


NATIVE_GQA = True  # set by probe_gqa()


def probe_gqa(dev, dt):
    """Whether the flash backend runs SDPA's enable_gqa for one-token decode."""
    global NATIVE_GQA
    q = torch.randn(2, 8, 1, 128, device=dev, dtype=dt)
    k = torch.randn(2, 2, 256, 128, device=dev, dtype=dt)
    try:
        with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
            o = F.scaled_dot_product_attention(q, k, k, enable_gqa=True)
        ref = F.scaled_dot_product_attention(q, k.repeat_interleave(4, 1), k.repeat_interleave(4, 1))
        NATIVE_GQA = bool(torch.allclose(o.float(), ref.float(), atol=2e-2))
    except Exception as exc:
        print(f"flash backend without enable_gqa: {type(exc).__name__}: {exc}", flush=True)
        NATIVE_GQA = False
    return NATIVE_GQA


class Decoder:
    def __init__(self, dims, batch, ctx, dev, dt, tp=1, ep=1):
        self.moe = dims[7:] if len(dims) > 7 else None
        self.ep = ep
        dims = dims[:7]
        L, hidden, heads, kv, hd, ffn, vocab = dims
        self.tp = tp
        heads, kv, ffn, vocab = heads // tp, max(1, kv // tp), ffn // tp, vocab // tp
        self.local = (L, hidden, heads, kv, hd, ffn, vocab)
        self.dims, self.batch, self.ctx = dims, batch, ctx
        L, hidden, heads, kv, hd, ffn, vocab = self.local
        r = lambda *s: torch.randn(*s, device=dev, dtype=dt) * 0.02  # noqa: E731
        self.layers = []
        for _ in range(L):
            self.layers.append({
                "n1": torch.ones(hidden, device=dev, dtype=dt),
                "qkv": r(hidden, (heads + 2 * kv) * hd),
                "o": r(heads * hd, hidden),
                "n2": torch.ones(hidden, device=dev, dtype=dt),
                "gu": r(hidden, 2 * ffn),
                "down": r(ffn, hidden),
                "k": r(batch, kv, ctx, hd),
                "v": r(batch, kv, ctx, hd),
            })
        if self.moe:
            E, k, ef = self.moe
            t = batch * k // E
            if t * E != batch * k:
                raise ValueError(f"batch x experts_per_token ({batch * k}) is not a multiple of {E} experts")
            for w in self.layers:
                del w["gu"], w["down"]
                w["router"] = r(hidden, E)
                w["egu"] = r(E // ep, hidden, 2 * ef)  # this GPU's experts
                w["edown"] = r(E // ep, ef, hidden)
            # Expert-major order of the token copies: expert e takes the copies j of tokens b
            # with (b k + j) mod E == e.
            order = sorted(range(batch * k), key=lambda c: (c % E, c))
            self.src = torch.tensor([c // k for c in order], device=dev)
            self.weight = torch.full((batch * k, 1), 1.0 / k, device=dev, dtype=dt)
            self.t = t
        self.nf = torch.ones(hidden, device=dev, dtype=dt)
        self.head = r(hidden, vocab)
        self.x = r(batch, hidden)

    def reduce(self, t):
        if self.tp > 1:
            import torch.distributed as dist
            dist.all_reduce(t)
        return t

    def attention(self, qkv, w):
        L, hidden, heads, kv, hd, ffn, vocab = self.local
        B, G = self.batch, heads // kv
        with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
            if G == 1 or NATIVE_GQA:
                q = qkv[:, : heads * hd].view(B, 1, heads, hd).transpose(1, 2)
                o = F.scaled_dot_product_attention(q, w["k"], w["v"], enable_gqa=G > 1)
                return o.transpose(1, 2).reshape(B, heads * hd)
            q = qkv[:, : heads * hd].view(B, kv, G, hd)  # a KV head's query heads as its rows
            return F.scaled_dot_product_attention(q, w["k"], w["v"]).reshape(B, heads * hd)

    def experts(self, x, h, w):
        E, k, ef = self.moe
        torch.topk(h @ w["router"], k, dim=-1)  # the routing decision (the dispatch is fixed)
        xs = h.index_select(0, self.src)  # expert-major: the first E / ep experts' copies first
        if self.ep > 1:
            # Expert parallel: each GPU sends every expert group its copies (equal splits) and
            # gets back [source GPU, its expert, copy], regrouped expert by expert for the GEMMs.
            import torch.distributed as dist
            recv = torch.empty_like(xs)
            dist.all_to_all_single(recv, xs)
            local, ep = E // self.ep, self.ep
            xs = recv.view(ep, local, self.t, -1).transpose(0, 1).reshape(local, ep * self.t, -1)
            g, u = torch.bmm(xs, w["egu"]).chunk(2, dim=-1)
            ys = torch.bmm(F.silu(g) * u, w["edown"])
            ys = ys.view(local, ep, self.t, -1).transpose(0, 1).reshape(ep * local * self.t, -1)
            back = torch.empty_like(ys)
            dist.all_to_all_single(back, ys)
            return x.index_add(0, self.src, back * self.weight)
        g, u = torch.bmm(xs.view(E, self.t, -1), w["egu"]).chunk(2, dim=-1)
        ys = torch.bmm(F.silu(g) * u, w["edown"]).view(E * self.t, -1) * self.weight
        return x.index_add(0, self.src, ys)

    def step(self):
        L, hidden, heads, kv, hd, ffn, vocab = self.local
        x = self.x
        for w in self.layers:
            h = F.rms_norm(x, (hidden,), w["n1"], eps=1e-6)
            qkv = h @ w["qkv"]
            x = x + self.reduce(self.attention(qkv, w) @ w["o"])
            h = F.rms_norm(x, (hidden,), w["n2"], eps=1e-6)
            if self.moe:
                x = self.experts(x, h, w)
                continue
            g, u = (h @ w["gu"]).chunk(2, dim=-1)
            x = x + self.reduce((F.silu(g) * u) @ w["down"])
        h = F.rms_norm(x, (hidden,), self.nf, eps=1e-6)
        return h @ self.head


def agreed(n, op="max"):
    """n as every rank agrees on it (the largest); n itself on one GPU."""
    import torch.distributed as dist
    if not (dist.is_available() and dist.is_initialized()):
        return n
    t = torch.tensor([float(n)], device="cuda")
    dist.all_reduce(t, op=dist.ReduceOp.MAX)
    return t.item()


def time_graph(fn, rounds=5, seconds=0.3):
    g = capture_graph(fn)
    g.replay()
    torch.cuda.synchronize()
    t0 = time.time()
    g.replay()
    torch.cuda.synchronize()
    one = max(time.time() - t0, 1e-5)
    n = int(agreed(max(3, min(2000, int(seconds / one)))))  # every rank replays as often
    per = [replay_us(g, n) for _ in range(rounds)]
    del g
    return agreed(statistics.median(per)), n  # tp: the slowest rank's median


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=".")
    ap.add_argument("--set", choices=["dev", "heldout", "moe"], default="dev",
                    help="dev: MODELS x CASES (llm_decode.csv); heldout: HELDOUT_MODELS x HELDOUT_CASES; "
                         "moe: MOE_MODELS x MOE_CASES")
    ap.add_argument("--tp", type=int, default=1,
                    help="tensor parallel over the GPUs of torchrun (TP_MODELS x TP_CASES)")
    ap.add_argument("--ep", type=int, default=1,
                    help="expert parallel over the GPUs of torchrun (EP_MODELS x EP_CASES)")
    ap.add_argument("--name", default="", help="CSV base name (default by set, tp and ep)")
    ap.add_argument("--models", default="", help="comma list of model keys (default: the set's)")
    ap.add_argument("--budget-s", type=float, default=400.0)
    ap.add_argument("--gqa", choices=["auto", "folded"], default="auto",
                    help="folded: fold the query heads by hand even where enable_gqa runs")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    dev, dt = "cuda", torch.bfloat16
    rank = 0
    if args.ep > 1 and args.tp > 1:
        raise SystemExit("--tp and --ep: one at a time")
    world = max(args.tp, args.ep)
    if world > 1:
        import torch.distributed as dist
        os.environ.setdefault("NCCL_NVLS_ENABLE", "0")
        rank = int(os.environ["RANK"])
        torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", rank)))
        dist.init_process_group("nccl", device_id=torch.device("cuda", torch.cuda.current_device()))
        if dist.get_world_size() != world:
            raise SystemExit(f"--tp/--ep {world} needs {world} torchrun processes")
        models, cases = (TP_MODELS, {k: TP_CASES for k in TP_MODELS}) if args.tp > 1 else (EP_MODELS, EP_CASES)
    elif args.set == "moe":
        models, cases = MOE_MODELS, MOE_CASES
    elif args.set == "heldout":
        models, cases = HELDOUT_MODELS, {k: HELDOUT_CASES for k in HELDOUT_MODELS}
    else:
        models, cases = MODELS, CASES
    name = args.name or ("llm_decode" + (f"_{args.set}" if args.set != "dev" and world == 1 else "") +
                         (f"_tp{args.tp}" if args.tp > 1 else "") + (f"_ep{args.ep}" if args.ep > 1 else ""))
    t_start = time.time()
    print(f"enable_gqa on the flash backend: {probe_gqa(dev, dt)}", flush=True)
    if args.gqa == "folded":
        global NATIVE_GQA
        NATIVE_GQA = False
    main_path = os.path.join(args.out, f"{name}.csv" if rank == 0 else f".{name}.rank{rank}.csv")
    kern_path = os.path.join(args.out, f"{name}_kernels.csv" if rank == 0 else f".{name}_kernels.rank{rank}.csv")
    with open(main_path, "w", newline="") as f, open(kern_path, "w", newline="") as fk:
        f.write(header("tests/validation/h200/llm_decode.py", {
            "timing": "CUDA graph of one decode step, replayed back to back between two CUDA events "
                      "for ~0.3 s a round, median of 5 rounds (step_us); no L2 flush",
            "kernels": "torch.profiler CUDA activity of one eager step: kernel count and summed "
                       "durations (kernel_sum_us)",
        }))
        w = csv.writer(f)
        moe_cols = ["experts", "experts_per_token", "expert_ffn"] if any(len(d) > 7 for d in models.values()) else []
        w.writerow(["model", "layers", "hidden", "heads", "kv_heads", "head_dim", "ffn", "vocab"] + moe_cols +
                   ["batch", "ctx", "tp", "ep", "dtype", "gqa", "us", "replays", "kernels_per_step", "kernel_sum_us"])
        wk = csv.writer(fk)
        wk.writerow(["model", "batch", "ctx", "kernel", "count", "total_us", "grid", "block"])
        for model in (args.models.split(",") if args.models else list(models)):
            dims = models[model]
            for batch, ctx in cases[model]:
                if world == 1 and time.time() - t_start > args.budget_s:
                    print(f"budget reached before {model} b{batch} ctx{ctx}", flush=True)
                    break
                dec = None
                try:
                    dec = Decoder(dims, batch, ctx, dev, dt, args.tp, args.ep)
                    with torch.no_grad():
                        step_us, n = time_graph(dec.step)
                        names, grids, blocks, durs = profile_kernels(dec.step)
                except Exception as exc:  # a case that does not run is reported, the rest go on
                    print(f"{model} b{batch} ctx{ctx}: {type(exc).__name__}: {exc}", flush=True)
                    if world > 1:
                        raise  # the other ranks would wait for this one's collectives
                    del dec
                    torch.cuda.empty_cache()
                    continue
                total = sum(float(d) for d in durs)
                L, hidden, heads, kv, hd, ffn, vocab = dims[:7]
                w.writerow([model, L, hidden, heads, kv, hd, ffn, vocab] + list(dims[7:]) +
                           [batch, ctx, args.tp, args.ep, "bf16",
                            "native" if kv == heads or NATIVE_GQA else "folded",
                            f"{step_us:.2f}", n, len(names), f"{total:.2f}"])
                f.flush()
                groups = {}
                for k, g_, b_, d in zip(names, grids, blocks, durs):
                    key = k[:160]
                    c = groups.setdefault(key, [0, 0.0, g_, b_])
                    c[0] += 1
                    c[1] += float(d)
                for k, (c, tot, g_, b_) in sorted(groups.items(), key=lambda kv_: -kv_[1][1]):
                    wk.writerow([model, batch, ctx, k, c, f"{tot:.2f}", g_, b_])
                fk.flush()
                print(f"{model} b{batch} ctx{ctx}: {step_us:.1f} us/step ({len(names)} kernels, "
                      f"{total:.1f} us profiled) [{time.time() - t_start:.0f} s]", flush=True)
                del dec
                torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
