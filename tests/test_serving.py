"""seqmodels.experiments.production.serving and seqmodels.models.blocks: published shapes, cache bytes, costs; LayerNorm and the MLP."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from seqmodels.models.blocks import block_stack_states, init_blocks, init_mlp, layer_norm, mlp
from seqmodels.experiments.production.serving import (CPUS, DEVICES, MODEL_SHAPES, ModelShape, arithmetic_intensity, decode_step_cost,
                               intensity_limit, kv_cache_bytes, max_batch, prefill_cost, ridge_point,
                               roofline_time, weight_count)


def test_shapes_match_published_sizes():
    for shape in MODEL_SHAPES.values():
        assert abs(weight_count(shape) / shape.published_params - 1) < 0.05, shape.name


def test_cache_bytes_match_the_vllm_paper_and_gqa_divides_them():
    opt = MODEL_SHAPES["OPT-13B"]
    assert kv_cache_bytes(opt) == 2 * 5120 * 40 * 2  # Kwon et al. 2023, Section 3: 800 KB per token
    assert abs(kv_cache_bytes(opt, 2048) / 1e9 - 1.6) < 0.1  # ... and "up to 1.6 GB" for 2048 tokens
    l2, l3 = MODEL_SHAPES["Llama-2-7B"], MODEL_SHAPES["Llama-3.1-8B"]
    assert kv_cache_bytes(l2) == 4 * kv_cache_bytes(l3)  # 32 against 8 key-value heads


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 100_000), st.integers(1, 64))
def test_decode_costs_add_up(t, batch):
    shape = MODEL_SHAPES["Llama-2-7B"]
    one, many = decode_step_cost(shape, t), decode_step_cost(shape, t, batch=batch)
    assert many["weight_bytes"] == one["weight_bytes"]  # the weights are read once per step
    assert many["cache_bytes"] == batch * one["cache_bytes"] == batch * kv_cache_bytes(shape, t)
    assert np.isclose(many["weight_flops"] + many["attention_flops"], batch * (one["weight_flops"] + one["attention_flops"]))


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(sorted(MODEL_SHAPES)), st.integers(1, 300_000), st.integers(1, 10**6))
def test_intensity_limit_bounds_every_batch_from_above(name, t, batch):
    shape = MODEL_SHAPES[name]
    limit = intensity_limit(shape, t)
    assert arithmetic_intensity(decode_step_cost(shape, t, batch)) < limit
    # ... and is approached: within 1% once the weights are a negligible share of the bytes
    big = 10**9
    assert arithmetic_intensity(decode_step_cost(shape, t, big)) > 0.99 * limit


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(sorted(MODEL_SHAPES)), st.sampled_from(sorted(DEVICES)), st.integers(1, 300_000))
def test_max_batch_fits_and_one_more_does_not(name, device, t):
    shape, dev = MODEL_SHAPES[name], DEVICES[device]
    b = max_batch(shape, dev, t)
    weights = weight_count(shape) * shape.bytes_per_number
    assert b >= 0
    assert weights + b * kv_cache_bytes(shape, t) <= dev.memory or b == 0
    assert weights + (b + 1) * kv_cache_bytes(shape, t) > dev.memory


def test_roofline_and_ridges():
    for dev in DEVICES.values():
        at_ridge = {"weight_flops": ridge_point(dev) * 1e9, "attention_flops": 0.0, "weight_bytes": 1e9,
                    "cache_bytes": 0.0}
        r = roofline_time(at_ridge, dev)
        assert np.isclose(r["compute"], r["memory"]) and r["bound"] == max(r["compute"], r["memory"])
    # the datasheet numbers: A100 dense 312 TFLOPS at 2,039 GB/s; H100 and H200 half of 1,979 with sparsity
    assert round(ridge_point(DEVICES["A100 80GB"])) == 153
    assert round(ridge_point(DEVICES["H100"])) == 295 and round(ridge_point(DEVICES["H200"])) == 206
    # the check: an 80 GB device fits 30 Llama-2-7B sequences of 4,096 tokens, 119 of Llama-3.1-8B
    assert max_batch(MODEL_SHAPES["Llama-2-7B"], DEVICES["H100"], 4096) == 30
    assert max_batch(MODEL_SHAPES["Llama-3.1-8B"], DEVICES["A100 80GB"], 4096) == 119


def test_the_cpu_for_contrast():
    """The Grace CPU Superchip's table: FP64 peak 7.1 TFLOPS, up to 1 TB/s, so a 64-bit ridge of
    7.1 FLOP per byte; the GPUs' rates are their dense 16-bit ones."""
    cpu = CPUS["Grace CPU Superchip"]
    assert cpu.rate == "FP64" and np.isclose(ridge_point(cpu), 7.1)
    assert all(d.rate == "dense BF16" for d in DEVICES.values())
    # a batch-1 step is below the CPU's ridge: its bound is the bytes over the bandwidth
    cost = decode_step_cost(MODEL_SHAPES["Llama-2-7B"], 1)
    r = roofline_time(cost, cpu)
    assert r["bound"] == r["memory"] and np.isclose(r["memory"], (cost["weight_bytes"] + cost["cache_bytes"]) / 1e12)


def test_intensity_of_decode_and_prefill():
    shape = MODEL_SHAPES["Llama-2-7B"]
    decode = arithmetic_intensity(decode_step_cost(shape, t=1))
    assert 0.9 < decode < 1.1  # about 2 FLOPs per 2-byte weight
    assert arithmetic_intensity(prefill_cost(shape, 512)) > 200 * decode
    assert arithmetic_intensity(decode_step_cost(shape, t=1, batch=64)) > 50 * decode


def test_bad_shapes_and_costs():
    with pytest.raises(ValueError, match=r"n_kv_heads must divide n_heads=32, got 5"):
        ModelShape("x", 2, 64 * 32, 32, 5, 64, 10, 10, False, False, 1.0, 16, "none")
    with pytest.raises(ValueError, match=r"n_heads \* d_head must equal d_model"):
        ModelShape("x", 2, 100, 4, 4, 16, 10, 10, False, False, 1.0, 16, "none")
    with pytest.raises(ValueError, match=r"t must be an integer >= 1"):
        kv_cache_bytes(MODEL_SHAPES["OPT-13B"], 0)
    with pytest.raises(ValueError, match=r"batch must be an integer >= 1"):
        decode_step_cost(MODEL_SHAPES["OPT-13B"], 4, batch=0)
    with pytest.raises(KeyError, match=r"cost must hold"):
        arithmetic_intensity({"weight_flops": 1.0})


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 1000), st.floats(0.1, 100))
def test_layer_norm_is_scale_free_with_zero_mean_unit_variance(seed, scale):
    X = np.random.default_rng(seed).normal(size=(4, 8))
    Y = layer_norm(scale * X, eps=0.0)
    assert np.allclose(Y.mean(axis=-1), 0, atol=1e-12) and np.allclose(Y.var(axis=-1), 1, atol=1e-9)
    assert np.allclose(Y, layer_norm(X, eps=0.0), atol=1e-9)


def test_mlp_and_blocks():
    rng = np.random.default_rng(0)
    W_1, W_2 = init_mlp(8, rng)
    X = rng.normal(size=(5, 8))
    assert np.allclose(mlp(X, W_1, W_2), np.maximum(X @ W_1, 0) @ W_2)
    blocks = init_blocks(3, 8, rng)
    for norm in (None, "post", "pre"):
        states = block_stack_states(X, blocks, norm=norm)
        assert len(states) == 4 and all(s.shape == X.shape for s in states)
    post = block_stack_states(X, blocks, norm="post")[-1]
    assert np.allclose(post.mean(axis=-1), 0, atol=1e-12)  # post-LN ends on a normalised vector
    # A branch scale of 1 is the plain residual stack; a smaller one moves the stream less per block.
    plain = block_stack_states(X, blocks)
    assert np.allclose(block_stack_states(X, blocks, branch_scale=1.0)[-1], plain[-1])
    small = block_stack_states(X, blocks, branch_scale=0.01)
    assert np.linalg.norm(small[1] - X) < np.linalg.norm(plain[1] - X)
    # Causal: changing the last position changes nothing before it.
    Z = X.copy()
    Z[-1] += 1.0
    assert np.allclose(block_stack_states(Z, blocks, norm="pre")[-1][:-1], block_stack_states(X, blocks, norm="pre")[-1][:-1])


def test_blocks_reject_bad_input():
    X = np.zeros((3, 4))
    with pytest.raises(ValueError, match=r"norm must be one of"):
        block_stack_states(X, init_blocks(1, 4, 0), norm="mid")
    with pytest.raises(ValueError, match=r"residual=False is the pure stack"):
        block_stack_states(X, init_blocks(1, 4, 0), residual=False, norm="pre")
    with pytest.raises(ValueError, match=r"branch_scale must be a finite number > 0"):
        block_stack_states(X, init_blocks(1, 4, 0), branch_scale=float("nan"))
    with pytest.raises(ValueError, match=r"branch_scale scales a residual branch"):
        block_stack_states(X, init_blocks(1, 4, 0), residual=False, branch_scale=0.5)
    with pytest.raises(ValueError, match=r"W_1 must have shape \(d_model, d_ff\) with d_model = 4"):
        mlp(X, np.zeros((3, 2)), np.zeros((2, 4)))
    with pytest.raises(ValueError, match=r"X must be finite"):
        layer_norm(np.full((2, 2), np.nan))
    with pytest.raises(ValueError, match=r"d_model must be an integer >= 1"):
        init_mlp(0, 0)


def test_costs_reject_something_that_is_not_a_shape():
    with pytest.raises(ValueError, match=r"shape must be a ModelShape"):
        kv_cache_bytes("Llama-2-7B")
    with pytest.raises(ValueError, match=r"cost must be a dict"):
        arithmetic_intensity([1.0])
