r"""Scaled dot-product self-attention, its gradient, and causal decoding with and without a KV cache.

One attention layer reads a whole sequence ``X`` at once::

    Q = X @ W_q;  K = X @ W_k;  V = X @ W_v
    S = Q @ K^T / sqrt(d_k)          (-inf where the causal mask forbids a pair)
    A = softmax(S, axis=-1)          (every row sums to 1)
    out = A @ V

Shapes (``B`` is an optional batch axis, ``T`` the number of positions):

==========  ==================================
``X``       ``(T, d_model)`` or ``(B, T, d_model)``
``W_q``     ``(d_model, d_k)``
``W_k``     ``(d_model, d_k)``
``W_v``     ``(d_model, d_v)``
``A``       ``(T, T)`` or ``(B, T, T)``; ``A[i, j]`` is how much position ``i`` reads position ``j``
``out``     ``(T, d_v)`` or ``(B, T, d_v)``
==========  ==================================

This module is **batch-major**, with weights ``(in, out)``, unlike the time-major recurrent modules
(see the package conventions): ``X`` is ``([batch,] T, d_model)`` and weights multiply from the
right (``X @ W_q``), the layout of Vaswani et al. (2017) and of most attention code. Its arrays are
capitalised (``X``, ``Q``, ``K``, ``V``, ``A``) so they are not mistaken for time-major ``xs`` and
``hs``, and the read-out of :func:`generate` is ``W_unembed`` ``(d_model, vocab)``, not the
recurrent ``W_out`` ``(n_out, d_hidden)``.

A *stack* is a list of layers ``(W_q, W_k, W_v)`` with ``d_v = d_model`` and a residual connection,
``X_{l+1} = X_l + attention_l(X_l)``. Causal decoding produces the stack's output one position at a
time; :class:`KVCache` keeps every layer's keys and values so that each step computes them only for
the new position, and :func:`decode` with ``cache=False`` recomputes them for the whole prefix.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from seqmodels.common._checks import as_float_array, as_ids, as_rng, check_sequence, check_shape, positive_int
from seqmodels.common.numeric import softmax

# --- the layer ----------------------------------------------------------------------------------



def causal_mask(T: int) -> np.ndarray:
    """Boolean ``(T, T)`` matrix, True where position ``i`` may read position ``j`` (``j <= i``).

    Raises
    ------
    ValueError
        ``T`` not an integer >= 1.

    >>> causal_mask(3).astype(int)
    array([[1, 0, 0],
           [1, 1, 0],
           [1, 1, 1]])
    """
    T = positive_int("T", T)
    return np.tril(np.ones((T, T), dtype=bool))


def _check_layer(X, W_q, W_k, W_v):
    X = as_float_array("X", X, ndims=(2, 3))
    if X.shape[-2] == 0:
        raise ValueError(f"X must hold at least one position (T >= 1), got shape {X.shape}")
    if X.ndim == 3 and X.shape[0] == 0:
        raise ValueError(f"X must hold at least one sequence (batch >= 1), got shape {X.shape}")
    d_model = X.shape[-1]
    W_q = as_float_array("W_q", W_q, ndims=(2,))
    W_k = as_float_array("W_k", W_k, ndims=(2,))
    W_v = as_float_array("W_v", W_v, ndims=(2,))
    if W_q.shape[0] != d_model or W_q.shape[1] == 0:
        raise ValueError(f"W_q must have shape (d_model, d_k) with d_model = {d_model} and d_k >= 1, got {W_q.shape}")
    check_shape("W_k", W_k, W_q.shape, "(d_model, d_k), like W_q")
    if W_v.shape[0] != d_model or W_v.shape[1] == 0:
        raise ValueError(f"W_v must have shape (d_model, d_v) with d_model = {d_model} and d_v >= 1, got {W_v.shape}")
    return X, W_q, W_k, W_v


def _check_flag(name, value) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be True or False, got {value!r}")
    return bool(value)


def _attend(X, W_q, W_k, W_v, causal):
    """The layer on checked arrays; returns everything the backward pass needs."""
    Q, K, V = X @ W_q, X @ W_k, X @ W_v  # ([B,] T, d_k), ([B,] T, d_k), ([B,] T, d_v)
    S = Q @ np.swapaxes(K, -1, -2) / np.sqrt(W_q.shape[-1])  # ([B,] T, T)
    if causal:
        S = np.where(causal_mask(X.shape[-2]), S, -np.inf)
    A = softmax(S, axis=-1)  # ([B,] T, T), rows sum to 1
    return A @ V, A, Q, K, V  # ([B,] T, T) x ([B,] T, d_v) -> ([B,] T, d_v)


def self_attention(X, W_q, W_k, W_v, causal: bool = False):
    """Scaled dot-product self-attention, ``out = softmax(Q K^T / sqrt(d_k)) V``.

    Parameters
    ----------
    X : ndarray of shape (T, d_model) or (batch, T, d_model), T >= 1
    W_q, W_k : ndarray of shape (d_model, d_k)
    W_v : ndarray of shape (d_model, d_v)
    causal : bool
        If True, position ``i`` reads only positions ``j <= i`` (``A[i, j] = 0`` for ``j > i``).

    Returns
    -------
    out : ndarray of shape (T, d_v) or (batch, T, d_v)
    weights : ndarray of shape (T, T) or (batch, T, T); every row sums to 1

    Raises
    ------
    ValueError
        ``X`` not a finite ``(T, d_model)`` or ``(batch, T, d_model)`` array with ``T, batch >= 1``;
        ``W_q`` not finite ``(d_model, d_k)`` with ``d_k >= 1``, ``W_k`` not shaped like ``W_q``,
        ``W_v`` not finite ``(d_model, d_v)`` with ``d_v >= 1``; ``causal`` not True or False.

    >>> X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    >>> out, A = self_attention(X, np.eye(2), np.eye(2), np.eye(2), causal=True)
    >>> A.round(3)
    array([[1.   , 0.   , 0.   ],
           [0.33 , 0.67 , 0.   ],
           [0.248, 0.248, 0.503]])
    >>> A.sum(axis=-1)
    array([1., 1., 1.])
    """
    X, W_q, W_k, W_v = _check_layer(X, W_q, W_k, W_v)
    out, A, *_ = _attend(X, W_q, W_k, W_v, _check_flag("causal", causal))
    return out, A


def self_attention_backward(X, W_q, W_k, W_v, dout, causal: bool = False) -> dict[str, np.ndarray]:
    r"""Gradients of ``L = sum(out * dout)`` for :func:`self_attention`.

    Backwards through the forward equations (``@`` batched over a leading axis)::

        dV = A^T dout;            dA = dout V^T
        dS = A * (dA - sum(dA * A, axis=-1))     # through the softmax, row by row
        dQ = dS K / sqrt(d_k);    dK = dS^T Q / sqrt(d_k)
        dW_q = X^T dQ;  dW_k = X^T dK;  dW_v = X^T dV
        dX = dQ W_q^T + dK W_k^T + dV W_v^T

    Masked entries have ``A = 0``, so ``dS`` is 0 there and nothing flows to the future.

    Returns
    -------
    dict with keys ``"X", "W_q", "W_k", "W_v"``, each shaped like that argument.

    Raises
    ------
    ValueError
        ``X``, ``W_q``, ``W_k``, ``W_v``, ``causal`` as :func:`self_attention` refuses them;
        ``dout`` not finite or not shaped like ``out``.

    >>> rng = np.random.default_rng(0)
    >>> X, W = rng.normal(size=(4, 3)), rng.normal(size=(3, 3))
    >>> g = self_attention_backward(X, W, W, W, np.ones((4, 3)), causal=True)
    >>> sorted(g), g["X"].shape
    (['W_k', 'W_q', 'W_v', 'X'], (4, 3))
    """
    X, W_q, W_k, W_v = _check_layer(X, W_q, W_k, W_v)
    out, A, Q, K, V = _attend(X, W_q, W_k, W_v, _check_flag("causal", causal))
    dout = as_float_array("dout", dout, ndims=(out.ndim,))
    check_shape("dout", dout, out.shape, "like out: ([batch,] T, d_v)")
    scale = 1.0 / np.sqrt(W_q.shape[1])
    dV = np.swapaxes(A, -1, -2) @ dout
    dA = dout @ np.swapaxes(V, -1, -2)
    dS = A * (dA - np.sum(dA * A, axis=-1, keepdims=True))
    dQ = dS @ K * scale
    dK = np.swapaxes(dS, -1, -2) @ Q * scale
    d_model = X.shape[-1]

    def weight_grad(dY):  # sum over batch and positions of X^T dY
        return X.reshape(-1, d_model).T @ dY.reshape(-1, dY.shape[-1])

    return {"X": dQ @ W_q.T + dK @ W_k.T + dV @ W_v.T,
            "W_q": weight_grad(dQ), "W_k": weight_grad(dK), "W_v": weight_grad(dV)}


def multi_head_attention(X, W_q, W_k, W_v, W_o, n_heads: int, causal: bool = False):
    """``n_heads`` attention heads side by side, concatenated and mixed by ``W_o``.

    Head ``h`` uses columns ``h*d_head:(h+1)*d_head`` of ``W_q``, ``W_k`` and ``W_v``
    (``d_head = d_k / n_heads``), so each head attends in its own subspace::

        out = concat(head_1, ..., head_H) @ W_o

    Parameters
    ----------
    X : ndarray of shape (T, d_model) or (batch, T, d_model)
    W_q, W_k, W_v : ndarray of shape (d_model, d_k), with ``d_k`` divisible by ``n_heads``
    W_o : ndarray of shape (d_k, d_out)

    Returns
    -------
    out : ndarray of shape (T, d_out) or (batch, T, d_out)
    weights : ndarray of shape (n_heads, T, T) or (batch, n_heads, T, T)

    Raises
    ------
    ValueError
        ``X``, ``W_q``, ``W_k``, ``W_v``, ``causal`` as :func:`self_attention` refuses them, or
        ``W_v`` not shaped like ``W_q``; ``n_heads`` not an integer >= 1 dividing ``d_k``; ``W_o``
        not finite ``(d_k, d_out)``.

    >>> rng = np.random.default_rng(0)
    >>> X, W = rng.normal(size=(5, 4)), rng.normal(size=(4, 4))
    >>> out, A = multi_head_attention(X, W, W, W, np.eye(4), n_heads=2)
    >>> out.shape, A.shape
    ((5, 4), (2, 5, 5))
    """
    X, W_q, W_k, W_v = _check_layer(X, W_q, W_k, W_v)
    check_shape("W_v", W_v, W_q.shape, "(d_model, d_k), like W_q")
    d_k = W_q.shape[1]
    if isinstance(n_heads, bool) or not isinstance(n_heads, (int, np.integer)) or n_heads < 1 or d_k % n_heads:
        raise ValueError(f"n_heads must be a positive divisor of d_k = {d_k}, got {n_heads}")
    W_o = as_float_array("W_o", W_o, ndims=(2,))
    if W_o.shape[0] != d_k:
        raise ValueError(f"W_o must have shape (d_k, d_out) with d_k = {d_k}, got {W_o.shape}")
    d_head = d_k // n_heads
    causal = _check_flag("causal", causal)

    def split(W):  # (d_model, d_k) -> (n_heads, d_model, d_head)
        return W.reshape(W.shape[0], n_heads, d_head).transpose(1, 0, 2)

    Xh = X[..., None, :, :]  # ([B,] 1, T, d_model): broadcasts over the head axis
    heads, A, *_ = _attend(Xh, split(W_q), split(W_k), split(W_v), causal)  # ([B,] H, T, d_head)
    concat = np.moveaxis(heads, -3, -2).reshape(X.shape[:-1] + (d_k,))  # ([B,] T, H * d_head)
    return concat @ W_o, A


def sinusoidal_positions(T: int, d_model: int) -> np.ndarray:
    r"""The sinusoidal position code of Vaswani et al. (2017), shape ``(T, d_model)``.

    ``P[t, 2i] = sin(t / 10000^(2i / d_model))``, ``P[t, 2i + 1] = cos(t / 10000^(2i / d_model))``.

    Raises
    ------
    ValueError
        ``T`` not an integer >= 1, ``d_model`` not an even integer >= 2.

    >>> sinusoidal_positions(2, 4).round(4)
    array([[0.    , 1.    , 0.    , 1.    ],
           [0.8415, 0.5403, 0.01  , 1.    ]])
    """
    T, d_model = positive_int("T", T), positive_int("d_model", d_model, minimum=2)
    if d_model % 2:
        raise ValueError(f"d_model must be even (sines and cosines in pairs), got {d_model}")
    t = np.arange(T)[:, None]
    freq = 10000.0 ** (-np.arange(0, d_model, 2) / d_model)  # (d_model / 2,)
    P = np.empty((T, d_model))
    P[:, 0::2] = np.sin(t * freq)
    P[:, 1::2] = np.cos(t * freq)
    return P


def init_attention(d_model: int, d_k: int, d_v: int, rng: np.random.Generator):
    """Random ``(W_q, W_k, W_v)`` with entries ``N(0, 1 / d_model)``, so ``X @ W`` keeps the scale of ``X``.

    Raises
    ------
    ValueError
        ``d_model``, ``d_k`` or ``d_v`` not an integer >= 1; ``rng`` not a Generator or an int
        seed >= 0.

    >>> W_q, W_k, W_v = init_attention(8, 4, 8, np.random.default_rng(0))
    >>> W_q.shape, W_k.shape, W_v.shape
    ((8, 4), (8, 4), (8, 8))
    """
    d_model, d_k, d_v = positive_int("d_model", d_model), positive_int("d_k", d_k), positive_int("d_v", d_v)
    rng = as_rng("rng", rng)
    scale = 1.0 / np.sqrt(d_model)
    return (rng.normal(scale=scale, size=(d_model, d_k)), rng.normal(scale=scale, size=(d_model, d_k)),
            rng.normal(scale=scale, size=(d_model, d_v)))


# --- a causal stack and its decoding, with and without a KV cache ------------------------------


def _check_stack(layers, d_model):
    if not isinstance(layers, (list, tuple)):
        raise ValueError(f"layers must be a list of (W_q, W_k, W_v) triples, got {type(layers).__name__}")
    if len(layers) == 0:
        raise ValueError("layers must hold at least one (W_q, W_k, W_v) triple, got none")
    checked = []
    probe = np.zeros((1, d_model))
    for i, layer in enumerate(layers):
        if not isinstance(layer, (list, tuple)) or len(layer) != 3:
            raise ValueError(f"layers[{i}] must be a triple (W_q, W_k, W_v), got "
                             f"{len(layer) if isinstance(layer, (list, tuple)) else type(layer).__name__}")
        try:
            _, W_q, W_k, W_v = _check_layer(probe, *layer)
        except ValueError as err:
            raise ValueError(f"layers[{i}]: {err}") from None
        check_shape(f"layers[{i}] W_v", W_v, (d_model, d_model), "(d_model, d_model) for the residual")
        checked.append((W_q, W_k, W_v))
    return checked


def attention_stack(X, layers, causal: bool = True, residual: bool = True) -> np.ndarray:
    """Run a stack of attention layers, ``X_{l+1} = X_l + self_attention(X_l, *layers[l])``.

    Parameters
    ----------
    X : ndarray of shape (T, d_model) or (batch, T, d_model)
    layers : list of (W_q, W_k, W_v), with W_q, W_k of shape (d_model, d_k) and W_v of shape
        (d_model, d_model)
    causal : bool, mask the future in every layer
    residual : bool
        With ``False`` each layer replaces its input, ``X_{l+1} = self_attention(X_l, ...)``: a
        "pure attention" stack, for experiments on depth. Decoding always uses the residual form.

    Returns
    -------
    out : ndarray shaped like ``X``, the last layer's output at every position.

    Raises
    ------
    ValueError
        ``X`` not a finite ``(T, d_model)`` or ``(batch, T, d_model)`` array with ``T, batch >= 1``;
        ``layers`` not a non-empty list of ``(W_q, W_k, W_v)`` triples as :func:`self_attention`
        takes them, with ``W_v`` ``(d_model, d_model)``; ``causal`` or ``residual`` not True or False.

    >>> rng = np.random.default_rng(0)
    >>> layers = [init_attention(4, 4, 4, rng) for _ in range(2)]
    >>> attention_stack(rng.normal(size=(3, 4)), layers).shape
    (3, 4)
    """
    X = as_float_array("X", X, ndims=(2, 3))
    layers = _check_stack(layers, X.shape[-1])
    causal, residual = _check_flag("causal", causal), _check_flag("residual", residual)
    for W_q, W_k, W_v in layers:
        X, W_q, W_k, W_v = _check_layer(X, W_q, W_k, W_v)
        out = _attend(X, W_q, W_k, W_v, causal)[0]
        X = X + out if residual else out
    return X


@dataclass
class KVCache:
    """The keys and values of every position decoded so far, for every layer.

    ``keys[l][:length]`` is ``(length, d_k)`` and ``values[l][:length]`` is ``(length, d_model)``.
    Storage grows by doubling, so appending one position costs ``O(d)`` on average and nothing
    already stored is ever recomputed or copied per step. Memory: ``length * (d_k + d_model)``
    numbers per layer, growing linearly with the number of positions.

    Raises
    ------
    ValueError
        keys and values for different numbers of layers or of rows, or a ``length`` that is
        negative or beyond the rows stored.
    """

    keys: list[np.ndarray] = field(default_factory=list)
    values: list[np.ndarray] = field(default_factory=list)
    length: int = 0
    #: The weights :func:`decode_step` filled the cache with (so it can refuse other ones); None
    #: for an empty cache or one built by hand.
    _layers: tuple | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self):
        if len(self.values) != len(self.keys):
            raise ValueError(f"values must hold one array per layer like keys ({len(self.keys)}), got {len(self.values)}")
        rows = {np.shape(a)[0] for a in [*self.keys, *self.values]}
        if len(rows) > 1:
            raise ValueError(f"keys and values must all have the same number of rows, got {sorted(rows)}")
        positive_int("length", self.length, minimum=0)
        if self.keys and self.length > rows.pop():
            raise ValueError(f"length must be at most the {np.shape(self.keys[0])[0]} rows stored, got {self.length}")

    @classmethod
    def empty(cls, layers, capacity: int = 16) -> "KVCache":
        """An empty cache shaped for ``layers``, with room for ``capacity`` positions before it grows.

        Raises
        ------
        ValueError
            ``layers`` not a non-empty list of valid ``(W_q, W_k, W_v)`` triples, or ``capacity``
            not an integer >= 1 (a cache of 0 rows could never grow by doubling).
        """
        capacity = positive_int("capacity", capacity)
        if not isinstance(layers, (list, tuple)) or not layers or not all(
                isinstance(layer, (list, tuple)) and len(layer) == 3 for layer in layers):
            raise ValueError("layers must be a non-empty list of (W_q, W_k, W_v) triples")
        layers = _check_stack(layers, np.shape(layers[0][0])[0])
        return cls([np.empty((capacity, W_k.shape[1])) for _, W_k, _ in layers],
                   [np.empty((capacity, W_v.shape[1])) for _, _, W_v in layers], 0)

    def _grow(self, needed: int) -> None:
        while needed > self.keys[0].shape[0]:
            self.keys = [np.concatenate([k, np.empty_like(k)]) for k in self.keys]
            self.values = [np.concatenate([v, np.empty_like(v)]) for v in self.values]

    def n_numbers(self) -> int:
        """How many floats the cache holds (``length * sum over layers of (d_k + d_v)``)."""
        return self.length * sum(k.shape[1] + v.shape[1] for k, v in zip(self.keys, self.values))


def decode_step(x_t, layers, cache: KVCache, *, check: bool = True) -> np.ndarray:
    """Append one position to ``cache`` and return the stack's output there, ``(d_model,)``.

    With ``check=False`` the arguments are taken as valid and none of the checks below runs (what
    :func:`decode` and :func:`generate` do at every step, and what the timings of
    :mod:`seqmodels.experiments.production.timing` measure); wrong arguments then give wrong results or numpy's errors.

    Per layer, only the new position's query, key and value are computed; the past keys and values
    are read from the cache::

        q, k, v = h @ W_q, h @ W_k, h @ W_v       # (d_k,), (d_k,), (d_model,)
        K, V = cache (length + 1 rows)            # (t, d_k), (t, d_model)
        h = h + softmax(K @ q / sqrt(d_k)) @ V    # t scores: the part that still grows with t

    Raises
    ------
    ValueError
        ``x_t`` not a finite ``(d_model,)`` vector, ``layers`` not a valid stack, or ``cache`` not a
        :class:`KVCache` of these layers' widths, or one that :func:`decode_step` filled with other
        weights (compared by identity, or by value when they are other arrays; weights changed in
        place are not detected, nor is a cache built by hand with ``length > 0``); ``check`` not
        True or False.
    """
    if not _check_flag("check", check):
        return _decode_step(x_t, layers, cache)
    x_t = as_float_array("x_t", x_t, ndims=(1,))
    if not isinstance(layers, (list, tuple)) or not layers or np.shape(layers[0][0])[:1] != x_t.shape:
        raise ValueError(f"x_t must have shape (d_model,) with d_model the rows of layers[0]'s W_q, got {x_t.shape}")
    layers = _check_stack(layers, x_t.shape[0])
    if not isinstance(cache, KVCache):
        raise ValueError(f"cache must be a KVCache (KVCache.empty(layers)), got {type(cache).__name__}")
    if len(cache.keys) != len(layers) or any(
            k.shape[1] != W_k.shape[1] or v.shape[1] != W_v.shape[1]
            for k, v, (_, W_k, W_v) in zip(cache.keys, cache.values, layers)):
        raise ValueError(f"cache must be built for these {len(layers)} layers (KVCache.empty(layers)), "
                         f"got one for {len(cache.keys)} layers of other widths")
    weights = tuple(W for layer in layers for W in layer)
    if cache.length and cache._layers is not None and any(
            now is not then and not np.array_equal(now, then) for now, then in zip(weights, cache._layers)):
        raise ValueError(f"cache holds the keys and values of {cache.length} positions decoded with other "
                         "layers (other weights): start a new KVCache.empty(layers) for these layers")
    out = _decode_step(x_t, layers, cache)
    cache._layers = weights
    return out


def _decode_step(x_t, layers, cache: KVCache) -> np.ndarray:
    """:func:`decode_step` on checked arguments."""
    t = cache.length
    cache._grow(t + 1)
    h = x_t
    for l, (W_q, W_k, W_v) in enumerate(layers):
        cache.keys[l][t] = h @ W_k
        cache.values[l][t] = h @ W_v
        K, V = cache.keys[l][: t + 1], cache.values[l][: t + 1]
        a = softmax(K @ (h @ W_q) / np.sqrt(W_q.shape[1]))  # (t + 1,) weights over the prefix
        h = h + a @ V
    cache.length = t + 1
    return h


def decode_step_without_cache(X_prefix, layers, *, check: bool = True) -> np.ndarray:
    """The stack's output at the last row of ``X_prefix`` ``(t, d_model)``, recomputing everything.
    ``check=False`` skips the argument checks, as in :func:`decode_step`.

    Without a cache the keys and values of all ``t`` positions are recomputed in every layer. Below
    the top layer that means the full causal attention over the prefix (every position's output
    feeds the next layer's keys and values); in the top layer only the last position's query is
    needed.

    Raises
    ------
    ValueError
        ``X_prefix`` not a finite ``(t, d_model)`` array with ``t >= 1``, or ``layers`` not a valid
        stack; ``check`` not True or False.
    """
    if not _check_flag("check", check):
        return _decode_without_cache(X_prefix, layers)
    X_prefix = as_float_array("X_prefix", X_prefix, ndims=(2,))
    check_sequence("X_prefix", X_prefix)
    return _decode_without_cache(X_prefix, _check_stack(layers, X_prefix.shape[1]))


def _decode_without_cache(X_prefix, layers) -> np.ndarray:
    """:func:`decode_step_without_cache` on checked arguments."""
    H = X_prefix
    for W_q, W_k, W_v in layers[:-1]:
        H = H + _attend(H, W_q, W_k, W_v, causal=True)[0]  # (t, d_model)
    W_q, W_k, W_v = layers[-1]
    K, V = H @ W_k, H @ W_v  # (t, d_k), (t, d_model): recomputed for the whole prefix
    a = softmax(K @ (H[-1] @ W_q) / np.sqrt(W_q.shape[1]))
    return H[-1] + a @ V


def decode(X, layers, cache: bool = True) -> np.ndarray:
    """Causal decoding one position at a time; equals ``attention_stack(X, layers, causal=True)``.

    Parameters
    ----------
    X : ndarray of shape (T, d_model), the inputs in order (one new position per step)
    layers : as in :func:`attention_stack`
    cache : bool
        True: keep every layer's keys and values in a :class:`KVCache`. False: recompute them for
        the whole prefix at every step (:func:`decode_step_without_cache`).

    Returns
    -------
    out : ndarray of shape (T, d_model)

    Raises
    ------
    ValueError
        ``X`` not a finite ``(T, d_model)`` array with ``T >= 1``; ``layers`` as
        :func:`attention_stack` refuses them; ``cache`` not True or False.

    >>> rng = np.random.default_rng(0)
    >>> layers = [init_attention(4, 4, 4, rng) for _ in range(2)]
    >>> X = rng.normal(size=(6, 4))
    >>> full = attention_stack(X, layers, causal=True)
    >>> bool(np.allclose(decode(X, layers, cache=True), full, rtol=0, atol=1e-12))
    True
    >>> bool(np.allclose(decode(X, layers, cache=False), full, rtol=0, atol=1e-12))
    True
    """
    X = as_float_array("X", X, ndims=(2,))
    check_sequence("X", X)
    layers = _check_stack(layers, X.shape[-1])
    cache = _check_flag("cache", cache)
    out = np.empty_like(X)
    if cache:
        kv = KVCache.empty(layers)
        for t in range(X.shape[0]):
            out[t] = _decode_step(X[t], layers, kv)
    else:
        for t in range(X.shape[0]):
            out[t] = _decode_without_cache(X[: t + 1], layers)
    return out


def generate(prompt, n_new: int, embedding, layers, W_unembed, cache: bool = True) -> np.ndarray:
    """Greedy generation: each new token is ``argmax(h_t @ W_unembed)``, fed back as the next input.

    The input at position ``t`` is ``embedding[token] + sinusoidal_positions(...)[t]``. The prompt
    is processed in one parallel pass (prefill); after that every token depends on the previous
    one, so the loop is sequential whatever the architecture.

    Parameters
    ----------
    prompt : sequence of int, length >= 1, each in ``[0, vocab)``
    n_new : int, number of tokens to generate
    embedding : ndarray of shape (vocab, d_model)
    layers : as in :func:`attention_stack`
    W_unembed : ndarray of shape (d_model, vocab)
    cache : bool, decode with a :class:`KVCache` (True) or recompute the prefix each step (False)

    Returns
    -------
    tokens : ndarray of int, shape (len(prompt) + n_new,)

    Raises
    ------
    ValueError
        a prompt that is empty or holds anything but ids in ``[0, vocab)``, ``n_new`` not an
        integer >= 0, or weights of the wrong shape or not finite.

    >>> rng = np.random.default_rng(0)
    >>> E, W_unembed = rng.normal(size=(5, 4)), rng.normal(size=(4, 5))
    >>> layers = [init_attention(4, 4, 4, rng)]
    >>> a = generate([1, 2], 6, E, layers, W_unembed, cache=True)
    >>> b = generate([1, 2], 6, E, layers, W_unembed, cache=False)
    >>> a.tolist() == b.tolist(), len(a)
    (True, 8)
    """
    embedding = as_float_array("embedding", embedding, ndims=(2,))
    vocab, d_model = embedding.shape
    layers = _check_stack(layers, d_model)
    W_unembed = as_float_array("W_unembed", W_unembed, ndims=(2,))
    check_shape("W_unembed", W_unembed, (d_model, vocab), "(d_model, vocab)")
    tokens = as_ids("prompt", prompt, vocab, what="token ids", min_length=1)
    if tokens.size == 0:
        raise ValueError("prompt must be a non-empty 1-D sequence of ints, got an empty one")
    n_new = positive_int("n_new", n_new, minimum=0)
    cache = _check_flag("cache", cache)
    n_total = tokens.size + n_new
    P = sinusoidal_positions(n_total, d_model)
    out = np.empty(n_total, dtype=np.int64)
    out[: tokens.size] = tokens
    X = embedding[tokens] + P[: tokens.size]  # (prompt length, d_model)
    if cache:  # prefill: the whole prompt in one pass per layer, keys and values kept
        kv = KVCache.empty(layers, capacity=n_total)
        H = X
        for l, (W_q, W_k, W_v) in enumerate(layers):
            kv.keys[l][: tokens.size], kv.values[l][: tokens.size] = H @ W_k, H @ W_v
            H = H + _attend(H, W_q, W_k, W_v, causal=True)[0]
        kv.length = tokens.size
        h = H[-1]
    else:
        h = _decode_without_cache(X, layers)
    for t in range(tokens.size, n_total):
        out[t] = int(np.argmax(h @ W_unembed))
        if t + 1 == n_total:
            break
        x = embedding[out[t]] + P[t]
        if cache:
            h = _decode_step(x, layers, kv)
        else:
            X = np.vstack([X, x])
            h = _decode_without_cache(X, layers)
    return out


def decode_flops(n: int, d_model: int, d_k: int | None = None, n_layers: int = 1,
                 cache: bool = True) -> np.ndarray:
    """Floating-point operations of each step of :func:`decode`, counted from its matrix products.

    A product of an ``(a, b)`` and a ``(b, c)`` matrix costs ``2abc`` FLOPs (a multiply and an add
    per term); softmax and additions (``O(t)`` per step) are left out. At step ``t`` (``t``
    positions, ``t = 1 .. n``), per layer, with ``d = d_model``:

    - with the cache: ``2 d (2 d_k + d)`` for the new query, key and value, ``2 t d_k`` for the
      scores and ``2 t d`` for the weighted sum of values;
    - without it, top layer: ``2 t d (d_k + d)`` for all keys and values, ``2 d d_k`` for the query,
      and the same ``2 t (d_k + d)`` for scores and sum; every lower layer: full causal attention over
      the prefix, ``2 t d (2 d_k + d)`` for projections and ``2 t^2 (d_k + d)`` for the ``t x t``
      scores and the weighted sums (the code computes the full square and masks it).

    Returns
    -------
    flops : ndarray of shape (n,), ``flops[t - 1]`` for step ``t``

    Raises
    ------
    ValueError
        ``n``, ``d_model``, ``n_layers`` or ``d_k`` (unless None) not an integer >= 1; ``cache``
        not True or False.

    >>> decode_flops(3, 2, cache=True)
    array([32., 40., 48.])
    >>> decode_flops(3, 2, cache=False)
    array([32., 56., 80.])
    """
    n, d_model, n_layers = positive_int("n", n), positive_int("d_model", d_model), positive_int("n_layers", n_layers)
    d_k = d_model if d_k is None else positive_int("d_k", d_k)
    cache = _check_flag("cache", cache)
    t = np.arange(1, n + 1, dtype=np.float64)
    d = float(d_model)
    attend = 2 * t * (d_k + d)  # scores and weighted sum of one query over t positions
    if cache:
        return n_layers * (2 * d * (2 * d_k + d) + attend)
    top = 2 * t * d * (d_k + d) + 2 * d * d_k + attend
    lower = 2 * t * d * (2 * d_k + d) + 2 * t**2 * (d_k + d)
    return top + (n_layers - 1) * lower
