r"""The parts a Transformer block wraps around attention: layer normalisation, the feed-forward
layer (MLP), and the two ways of placing the normalisation (after or before each sub-layer).

A block has an attention sub-layer and, optionally, an MLP sub-layer ``relu(X W_1) W_2`` of width
``4 d_model``, each with a residual connection. With ``norm``:

- ``None``: ``X = X + f(X)`` for each sub-layer ``f`` (no normalisation);
- ``"post"``: ``X = LN(X + f(X))``, the placement of Vaswani et al. (2017, Section 3.1);
- ``"pre"``: ``X = X + f(LN(X))``, normalising the sub-layer's input only (Xiong et al., 2020),
  so the residual path itself is never rescaled.

``LN`` has no learned gain or bias here (they start at 1 and 0 in training). Attention is causal,
single-head and batch-major as in :mod:`seqmodels.models.attention`; only the forward pass is needed by
the depth experiment of :mod:`seqmodels.experiments.bottlenecks.gradient_paths`.
"""

from __future__ import annotations

import numpy as np

from seqmodels.common._checks import as_float_array, as_rng, check_shape, finite_float, positive_int
from seqmodels.models.attention import init_attention, self_attention

NORMS = (None, "post", "pre")


def layer_norm(X, eps: float = 1e-5) -> np.ndarray:
    """Normalise every position's vector to mean 0 and variance 1 over its features (last axis).

    The result keeps ``X``'s float dtype (float32 stays float32; lists and integers become
    float64). :func:`seqmodels.models.pretrained.layer_norm` and the encoder there use it for BERT's
    LayerNorm, adding the learned gain and shift.

    Raises
    ------
    ValueError
        If ``X`` is not a finite array with at least one feature, or ``eps`` is not a finite
        number >= 0 (or is 0 while a vector of ``X`` is constant: that would divide 0 by 0).

    >>> layer_norm(np.array([[1.0, 3.0], [2.0, 2.0]])).round(3)
    array([[-1.,  1.],
           [ 0.,  0.]])
    >>> layer_norm(np.array([[1.0, 3.0]], dtype=np.float32)).dtype
    dtype('float32')
    """
    if isinstance(X, np.ndarray) and X.dtype == np.float32:
        if X.ndim not in (1, 2, 3) or not np.isfinite(X).all():
            as_float_array("X", X, ndims=(1, 2, 3))  # raises, naming X
    else:
        X = as_float_array("X", X, ndims=(1, 2, 3))
    eps = finite_float("eps", eps, low=0)
    if X.shape[-1] == 0:
        raise ValueError(f"X must have at least one feature, got shape {X.shape}")
    if eps == 0 and not np.all(X.var(axis=-1) > 0):
        raise ValueError("eps must be > 0 when a vector of X is constant (its variance is 0)")
    return _normalise(X, eps)


def _normalise(X, eps):
    """``(X - mean) / sqrt(var + eps)`` over the last axis (biased variance), unchecked, in
    ``X``'s dtype."""
    mean = X.mean(axis=-1, keepdims=True)
    centred = X - mean
    var = (centred * centred).mean(axis=-1, keepdims=True)
    return centred / np.sqrt(var + eps)


def init_mlp(d_model: int, rng, *, expansion: int = 4) -> tuple[np.ndarray, np.ndarray]:
    """Random ``(W_1, W_2)`` of shapes ``(d_model, expansion d_model)`` and ``(expansion d_model, d_model)``.

    ``W_1`` has entries ``N(0, 2 / d_model)`` (He initialisation, for the ReLU) and ``W_2``
    ``N(0, 1 / (expansion d_model))``, so the MLP keeps the scale of its input on average.

    Raises
    ------
    ValueError
        If ``d_model`` or ``expansion`` is not an integer >= 1, or ``rng`` is neither a Generator
        nor an int seed >= 0.

    >>> [W.shape for W in init_mlp(4, 0)]
    [(4, 16), (16, 4)]
    """
    d_model, expansion = positive_int("d_model", d_model), positive_int("expansion", expansion)
    rng = as_rng("rng", rng)
    d_ff = expansion * d_model
    return (rng.normal(scale=np.sqrt(2.0 / d_model), size=(d_model, d_ff)),
            rng.normal(scale=np.sqrt(1.0 / d_ff), size=(d_ff, d_model)))


def mlp(X, W_1, W_2) -> np.ndarray:
    """The position-wise feed-forward layer ``relu(X W_1) W_2`` (no biases), shaped like ``X``.

    Raises
    ------
    ValueError
        If the shapes do not chain: ``X (..., d_model)``, ``W_1 (d_model, d_ff)``, ``W_2 (d_ff, d_model)``.

    >>> mlp(np.ones((2, 3)), np.eye(3), -np.eye(3))
    array([[-1., -1., -1.],
           [-1., -1., -1.]])
    """
    X = as_float_array("X", X, ndims=(1, 2, 3))
    W_1 = as_float_array("W_1", W_1, ndims=(2,))
    W_2 = as_float_array("W_2", W_2, ndims=(2,))
    if W_1.shape[0] != X.shape[-1]:
        raise ValueError(f"W_1 must have shape (d_model, d_ff) with d_model = {X.shape[-1]}, got {W_1.shape}")
    check_shape("W_2", W_2, (W_1.shape[1], X.shape[-1]), "(d_ff, d_model)")
    return np.maximum(X @ W_1, 0.0) @ W_2


def init_blocks(n_blocks: int, d_model: int, rng, *, with_mlp: bool = True) -> list[tuple]:
    """``n_blocks`` random blocks: ``(W_q, W_k, W_v)`` from :func:`~seqmodels.models.attention.init_attention`,
    followed by ``(W_1, W_2)`` from :func:`init_mlp` when ``with_mlp``.

    Raises
    ------
    ValueError
        If ``n_blocks`` or ``d_model`` is not an integer >= 1, or ``rng`` is neither a Generator
        nor an int seed >= 0.

    >>> [len(b) for b in init_blocks(2, 4, 0)], len(init_blocks(1, 4, 0, with_mlp=False)[0])
    ([5, 5], 3)
    """
    n_blocks, d_model = positive_int("n_blocks", n_blocks), positive_int("d_model", d_model)
    rng = as_rng("rng", rng)
    blocks = []
    for _ in range(n_blocks):
        block = tuple(init_attention(d_model, d_model, d_model, rng))
        blocks.append(block + (tuple(init_mlp(d_model, rng)) if with_mlp else ()))
    return blocks


def block_stack_states(X, blocks, *, residual: bool = True, norm: str | None = None,
                       branch_scale: float = 1.0) -> list[np.ndarray]:
    """Run causal blocks over ``X`` (``([batch,] T, d_model)``); return ``[X_0, X_1, ..., X_L]``.

    ``blocks`` come from :func:`init_blocks`: 3 arrays (attention only) or 5 (attention and MLP).
    ``residual=False`` (allowed only with ``norm=None``) replaces the input by each sub-layer's
    output, ``X = f(X)``: "pure" attention, or attention and MLP without skip connections.
    ``branch_scale`` multiplies each sub-layer's output before it is added to the stream,
    ``X + branch_scale * f(X)`` (for example ``1 / sqrt(n_blocks)``); it needs ``residual=True``.

    Raises
    ------
    ValueError
        If ``norm`` is not one of ``None, "post", "pre"``, if ``residual=False`` is combined with a
        normalisation, if ``branch_scale`` is not a finite number > 0 or is set without a residual,
        or if a block does not hold 3 or 5 arrays.

    >>> rng = np.random.default_rng(0)
    >>> states = block_stack_states(rng.normal(size=(5, 4)), init_blocks(3, 4, rng), norm="pre")
    >>> len(states), states[-1].shape
    (4, (5, 4))
    """
    X = as_float_array("X", X, ndims=(2, 3))
    if norm not in NORMS:
        raise ValueError(f"norm must be one of {NORMS}, got {norm!r}")
    if not residual and norm is not None:
        raise ValueError(f"residual=False is the pure stack and takes norm=None, got norm={norm!r}")
    branch_scale = float(branch_scale)
    if not (np.isfinite(branch_scale) and branch_scale > 0):
        raise ValueError(f"branch_scale must be a finite number > 0, got {branch_scale}")
    if not residual and branch_scale != 1.0:
        raise ValueError(f"branch_scale scales a residual branch and needs residual=True, got {branch_scale}")

    def apply(X, f):
        if not residual:
            return f(X)
        if norm == "post":
            return layer_norm(X + branch_scale * f(X))
        if norm == "pre":
            return X + branch_scale * f(layer_norm(X))
        return X + branch_scale * f(X)

    states = [X]
    for i, block in enumerate(blocks):
        if len(block) not in (3, 5):
            raise ValueError(f"blocks[{i}] must hold 3 arrays (attention) or 5 (attention and MLP), got {len(block)}")
        W_q, W_k, W_v = block[:3]
        X = apply(X, lambda Z: self_attention(Z, W_q, W_k, W_v, causal=True)[0])
        if len(block) == 5:
            X = apply(X, lambda Z: mlp(Z, block[3], block[4]))
        states.append(X)
    return states
