r"""The batched recurrent kernel: RNN, LSTM and GRU cells of many models at once, forward and back.

Packs of models and biLMs train their recurrent cells here (the package conventions say which
experiments train the readable cells instead); :mod:`seqmodels.models.rnn`,
:mod:`seqmodels.models.lstm` and :mod:`seqmodels.models.gru` are the readable step-by-step references the chapters
show, and this module computes the same functions (tests/test_recurrent.py checks values and
gradients against them and against central differences). It exists for speed: ``S`` models (seeds,
arms, the two directions of a bidirectional layer) run side by side, so one time step of all of
them is one batched matrix product and a handful of elementwise operations, and the Python loop
over time is paid once for all of them.

Layout (``S`` models, ``T`` steps, ``B`` sequences, ``k`` row blocks: 1 for the RNN, 4 for the
LSTM, 3 for the GRU)::

    W   (S, k H, d_in + H)   row blocks as in the references, columns [x | h]
                             (the RNN's W is [W_x | W_h]); b  (S, k H)
    xs  (T, B, d_in)         one input shared by every model, or (T, S, B, d_in), one per model
    hs  (T, S, B, H)         every state (:meth:`Pass.states`); the last one is :meth:`Pass.h_last`
    dhs (T, S, B, H)         gradient arriving at every state, or dh_last (S, B, H) at the last only

Every model starts from zero states (``h_{-1} = c_{-1} = 0``), as every experiment here does.

How it is computed (the results equal the references' to round-off):

- Inside the loops a model's state is stored hidden-major, ``(H, B)``, so every gate of every model
  is one contiguous block. The input of step ``t`` is ``z_t = [x_t; h_{t-1}; 1]`` (the bias is the
  weight of a constant input), and the inputs of all steps are kept side by side in
  ``Z (S, K, T + 1, B)``, ``K = d_in + H + 1``: one step's pre-activations are one product
  ``W~ (S, k H, K) @ Z[:, :, t]``, and the weight gradient summed over steps and batch is one
  product per model, ``dA (S, k H, T B) @ Z (S, K, T B)^T``, with no transposed copy.
- Every nonlinearity is one ``tanh`` call: ``sigmoid(a) = (1 + tanh(a / 2)) / 2`` (the readable
  LSTM computes its sigmoids directly). The factor 1/2 is folded into the gate rows of ``W~`` (a power of two, so
  exact). numpy's ``tanh`` is vectorised (SIMD) in both float32 and float64 and cannot overflow.
- Internally the LSTM's blocks are ordered output, forget, input, candidate (the references' order
  is forget, input, candidate, output), so the three sigmoid gates are one contiguous block, and so
  are the three blocks driven by the cell's gradient.
- The backward pass computes every local derivative of every step at once, before its loop; the
  loop over time carries only ``dh`` (and ``dc``) back: one product and a few elementwise
  operations per step.
- Intermediates are written into reused scratch arrays (:func:`seqmodels.common.numeric.workspace`) named
  by the call's ``tag``: a :class:`Pass` is valid until the next :func:`forward` with its tag.

The arithmetic is in the weights' dtype, float64 or float32 (numpy's float32 products and ``tanh``
cost about half as much).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from seqmodels.common._checks import as_float_array, one_of
from seqmodels.common.numeric import sigmoid_from_tanh, sigmoid_of_half, workspace

#: The recurrent cells the kernel runs.
KINDS = ("rnn", "lstm", "gru")
#: Row blocks of ``W`` per cell kind.
BLOCKS = {"rnn": 1, "lstm": 4, "gru": 3}
#: For each kind: the references' blocks in the kernel's internal order, and how many of them
#: (from the first) are sigmoid gates.
_ORDER = {"rnn": (0,), "lstm": (3, 0, 1, 2), "gru": (0, 1, 2)}
_N_SIGMOID = {"rnn": 0, "lstm": 3, "gru": 2}

_ws = workspace(768 * 2 ** 20)  #: this module's scratch arrays (numeric.workspace)


def _rows(kind: str, H: int) -> np.ndarray:
    """Row indices of the reference layout in the internal block order."""
    return np.concatenate([np.arange(k * H, (k + 1) * H) for k in _ORDER[kind]])


@dataclass
class Pass:
    """What :func:`forward` computed, and what :func:`backward` needs (scratch arrays: valid
    until the next :func:`forward` with the same ``tag``).

    ``Z`` holds ``[x_t; h_{t-1}; 1]`` of every step in slots ``0 .. T - 1`` and the last state in
    slot ``T`` (with ``keep=False`` only two slots, used in turn); ``acts`` the gate values of every
    step in the internal block order; ``extra`` the LSTM's cells and ``tanh(c)``, or the GRU's
    candidate inputs ``[x; r h; 1]`` and states.
    """

    kind: str
    W: np.ndarray  #: (S, kH, d_in + H), the reference layout, in the arithmetic dtype
    T: int
    B: int
    d_in: int
    H: int
    keep: bool
    Z: np.ndarray
    acts: np.ndarray | None
    extra: tuple
    tag: str

    def h_last(self) -> np.ndarray:
        """The last state of every model, (S, B, H) (a new array)."""
        slot = self.T if self.keep else self.T % 2
        return np.ascontiguousarray(self.Z[:, self.d_in:self.d_in + self.H, slot].transpose(0, 2, 1))

    def states(self) -> np.ndarray:
        """Every state, (T, S, B, H) (a new array). Needs ``keep=True``.

        Raises ``ValueError`` for a pass run with ``keep=False``.
        """
        if not self.keep:
            raise ValueError("states() needs a forward pass run with keep=True")
        return np.ascontiguousarray(self.Z[:, self.d_in:self.d_in + self.H, 1:].transpose(2, 0, 3, 1))


def _check(kind, W, b, xs):
    one_of("kind", kind, KINDS)
    dt = np.float32 if getattr(W, "dtype", None) == np.float32 else np.float64
    W = as_float_array("W", W, ndims=(3,), keep_float32=True)
    k = BLOCKS[kind]
    S, kH, cols = W.shape
    if S == 0 or kH == 0 or kH % k or cols <= kH // k:
        raise ValueError(f"W must have shape (S, {k} * d_hidden, d_in + d_hidden) with S, d_hidden, "
                         f"d_in >= 1 for a {kind}, got {W.shape}")
    H = kH // k
    b = as_float_array("b", b, ndims=(2,), keep_float32=True)
    if b.shape != (S, kH):
        raise ValueError(f"b must have shape (S, {k} * d_hidden) = {(S, kH)}, got {b.shape}")
    d_in = cols - H
    xs = as_float_array("xs", xs, ndims=(3, 4), keep_float32=True)
    want = "(T, batch, d_in) or (T, S, batch, d_in)"
    if xs.shape[-1] != d_in or (xs.ndim == 4 and xs.shape[1] != S) or xs.shape[0] == 0 or xs.shape[-2] == 0:
        raise ValueError(f"xs must have shape {want} with T, batch >= 1, d_in = {d_in} and S = {S}, "
                         f"got {xs.shape}")
    return W.astype(dt, copy=False), b.astype(dt, copy=False), xs.astype(dt, copy=False), S, H, d_in


def _augmented(kind: str, W: np.ndarray, b: np.ndarray, H: int, tag: str) -> np.ndarray:
    """``W~``: ``[W, b]`` with rows in the internal order, the sigmoid rows halved (S, kH, K), written
    block by block into a scratch array (a fresh one costs more than the copy)."""
    S, kH, cols = W.shape
    Wa = _ws(tag + "Wa", (S, kH, cols + 1), W.dtype)
    for m, block in enumerate(_ORDER[kind]):
        rows, src = slice(m * H, (m + 1) * H), slice(block * H, (block + 1) * H)
        Wa[:, rows, :cols] = W[:, src]
        Wa[:, rows, cols] = b[:, src]
    Wa[:, :_N_SIGMOID[kind] * H] *= 0.5
    return Wa


def forward(kind: str, W, b, xs, *, keep: bool = True, tag: str = "") -> Pass:
    """Run ``S`` cells of one kind over ``xs`` from zero states.

    Parameters
    ----------
    kind : ``"rnn"``, ``"lstm"`` or ``"gru"``
    W : ndarray (S, k d_hidden, d_in + d_hidden), model ``s``'s weights in its reference's layout
        (:func:`seqmodels.models.lstm.lstm_step`, :func:`seqmodels.models.gru.gru_step`; for the RNN
        ``[W_x | W_h]`` of :func:`seqmodels.models.rnn.rnn_step`); its dtype is the arithmetic's
    b : ndarray (S, k d_hidden)
    xs : ndarray (T, B, d_in), read by every model, or (T, S, B, d_in), one input per model
    keep : keep every step's intermediates (for :meth:`Pass.states` and :func:`backward`); with
        ``False`` only two steps' are stored and only :meth:`Pass.h_last` can be read
    tag : names the scratch arrays, so that passes with different tags can be alive at once

    Returns
    -------
    :class:`Pass`

    Raises
    ------
    ValueError
        ``kind`` not one of :data:`KINDS`; ``W``, ``b`` or ``xs`` of the wrong shape, or not
        finite.

    >>> from seqmodels.models.lstm import init_lstm, lstm_forward
    >>> rng = np.random.default_rng(0)
    >>> W, b = init_lstm(3, 2, rng)
    >>> xs = rng.normal(size=(5, 4, 3))
    >>> p = forward("lstm", W[None], b[None], xs)
    >>> bool(np.allclose(p.states()[:, 0], lstm_forward(xs, np.zeros((4, 2)), np.zeros((4, 2)), W, b)[0]))
    True
    """
    W, b, xs, S, H, d_in = _check(kind, W, b, xs)
    dt = W.dtype
    T, B = xs.shape[0], xs.shape[-2]
    k = BLOCKS[kind]
    Wa = _augmented(kind, W, b, H, tag)  # (S, kH, K)
    K = d_in + H + 1
    hr = slice(d_in, d_in + H)  # the rows of h in z_t
    n_slots = T + 1 if keep else 2
    Z = _ws(tag + "Z", (S, K, n_slots, B), dt)
    x_rows = Z[:, :d_in]
    if keep:
        x_rows[:, :, :T] = xs.transpose(2, 0, 1)[None] if xs.ndim == 3 else xs.transpose(1, 3, 0, 2)
    Z[:, d_in + H] = 1.0
    Z[:, hr, 0] = 0.0
    shared = xs.ndim == 3

    def slot(t):
        return t if keep else t % 2

    def load(t):  # without keep, write step t's input into its slot
        if not keep:
            x_rows[:, :, t % 2] = xs[t].T[None] if shared else xs[t].transpose(0, 2, 1)

    n_acts = T if keep else 1
    ns = _N_SIGMOID[kind] * H
    if kind == "rnn":
        acts = None
        a = _ws(tag + "rnn_a", (S, H, B), dt)
        for t in range(T):
            load(t)
            np.matmul(Wa, Z[:, :, slot(t)], out=a)
            np.tanh(a, out=Z[:, hr, slot(t + 1)])
        extra = ()
    elif kind == "lstm":
        acts = _ws(tag + "lstm_acts", (n_acts, S, 4 * H, B), dt)  # o, f, i, g
        cs = _ws(tag + "lstm_cs", (n_slots - 1 if keep else 2, S, H, B), dt)
        tcs = _ws(tag + "lstm_tcs", (n_acts, S, H, B), dt)
        c = _ws(tag + "lstm_c0", (S, H, B), dt)
        c.fill(0.0)
        tmp = _ws(tag + "lstm_tmp", (S, H, B), dt)
        for t in range(T):
            load(t)
            a = acts[t if keep else 0]
            np.matmul(Wa, Z[:, :, slot(t)], out=a)
            np.tanh(a, out=a)  # one call on contiguous memory; the gates' rows hold tanh(z / 2)
            sigmoid_from_tanh(a[:, :ns], out=a[:, :ns])  # o, f, i
            c_new = cs[slot(t)]
            np.multiply(a[:, H:2 * H], c, out=c_new)  # f * c_prev
            np.multiply(a[:, 2 * H:3 * H], a[:, 3 * H:], out=tmp)  # i * g
            np.add(c_new, tmp, out=c_new)
            c = c_new
            tc = tcs[t if keep else 0]
            np.tanh(c, out=tc)
            np.multiply(a[:, :H], tc, out=Z[:, hr, slot(t + 1)])  # h = o * tanh(c)
        extra = (cs, tcs)
    else:
        acts = _ws(tag + "gru_acts", (n_acts, S, 3 * H, B), dt)  # r, z, n
        Z2 = _ws(tag + "gru_Z2", (S, K, n_acts, B), dt)  # [x; r h; 1], the candidate's input
        if keep:
            Z2[:, :d_in] = x_rows[:, :, :T]
        Z2[:, d_in + H] = 1.0
        hs = _ws(tag + "gru_hs", (n_slots, S, H, B), dt)  # the states again, contiguous
        hs[0] = 0.0
        tmp = _ws(tag + "gru_tmp", (S, H, B), dt)
        for t in range(T):
            load(t)
            j = t if keep else 0
            a, z1, z2 = acts[j], Z[:, :, slot(t)], Z2[:, :, j]
            if not keep:
                z2[:, :d_in] = z1[:, :d_in]
            h = hs[slot(t)]
            rz = a[:, :2 * H]
            np.matmul(Wa[:, :2 * H], z1, out=rz)
            sigmoid_of_half(rz, out=rz)
            np.multiply(rz[:, :H], h, out=z2[:, hr])  # r * h
            n = a[:, 2 * H:]
            np.matmul(Wa[:, 2 * H:], z2, out=n)
            np.tanh(n, out=n)
            h_new = hs[slot(t + 1)]
            np.subtract(h, n, out=tmp)  # h_new = n + z (h - n) = z h + (1 - z) n
            np.multiply(rz[:, H:], tmp, out=tmp)
            np.add(n, tmp, out=h_new)
            Z[:, hr, slot(t + 1)] = h_new
        extra = (Z2, hs)
    return Pass(kind, W, T, B, d_in, H, keep, Z, acts, extra, tag)


def _weight_grads(das: np.ndarray, Z: np.ndarray, T: int) -> np.ndarray:
    """``sum_{t,b} das[s, :, t, b] Z[s, :, t, b]^T`` (S, m, K): one product per model, no copies."""
    S, m, _, B = das.shape
    K = Z.shape[1]
    return np.matmul(das.reshape(S, m, T * B), Z[:, :, :T].reshape(S, K, T * B).transpose(0, 2, 1))


def backward(p: Pass, *, dhs=None, dh_last=None, inputs: bool = False) -> dict[str, np.ndarray]:
    """Gradients of ``L = sum(hs * dhs) + sum(h_last * dh_last)`` for the pass ``p``.

    The formulas are the references' (:func:`seqmodels.models.rnn.rnn_backward`,
    :func:`seqmodels.models.lstm.lstm_backward`, :func:`seqmodels.models.gru.gru_backward`), for every model.

    Parameters
    ----------
    p : :class:`Pass` from :func:`forward` with ``keep=True`` (and no later pass with its tag)
    dhs : ndarray (T, S, B, H) or None, the gradient arriving at every state
    dh_last : ndarray (S, B, H) or None, the gradient arriving at the last state only
    inputs : also return the gradient at the inputs, ``"xs"``

    Returns
    -------
    dict with ``"W"`` (S, k H, d_in + H), ``"b"`` (S, k H) in the reference layout, and with
    ``inputs`` ``"xs"`` (T, S, B, d_in) (per model, also when the models shared one input)

    Raises
    ------
    ValueError
        ``p`` not a :class:`Pass` or run with ``keep=False``, neither ``dhs`` nor ``dh_last`` given,
        or either of the wrong shape or not finite.

    Not checked, for speed (this is the inner kernel of every training loop): that ``p`` is still
    valid (a later :func:`forward` with its tag overwrites its scratch arrays) and that ``p.W``, the
    weights it holds, has not been changed in place since; either gives wrong gradients, silently.

    >>> from seqmodels.models.rnn import init_rnn, rnn_backward
    >>> rng = np.random.default_rng(0)
    >>> W_h, W_x, b = init_rnn(3, 2, rng, spectral_radius=0.9)
    >>> xs, dhs = rng.normal(size=(4, 1, 3)), rng.normal(size=(4, 1, 2))
    >>> g = backward(forward("rnn", np.hstack([W_x, W_h])[None], b[None], xs), dhs=dhs[:, None])
    >>> ref = rnn_backward(xs, np.zeros((1, 2)), W_h, W_x, b, dhs)
    >>> bool(np.allclose(g["W"][0], np.hstack([ref["W_x"], ref["W_h"]])))
    True
    """
    if not isinstance(p, Pass):
        raise ValueError(f"p must be a Pass from forward(), got {type(p).__name__}")
    if not p.keep:
        raise ValueError("p must come from forward(..., keep=True): backward needs every step")
    S, T, B, H, d_in = p.W.shape[0], p.T, p.B, p.H, p.d_in
    dt = p.W.dtype
    if dhs is None and dh_last is None:
        raise ValueError("give dhs (T, S, B, H) or dh_last (S, B, H), got neither")
    if dhs is not None:
        dhs = as_float_array("dhs", dhs, ndims=(4,), keep_float32=True)
        if dhs.shape != (T, S, B, H):
            raise ValueError(f"dhs must have shape (T, S, B, H) = {(T, S, B, H)}, got {dhs.shape}")
        dhs = dhs.astype(dt, copy=False).transpose(0, 1, 3, 2)  # (T, S, H, B) view
    if dh_last is not None:
        dh_last = as_float_array("dh_last", dh_last, ndims=(3,), keep_float32=True)
        if dh_last.shape != (S, B, H):
            raise ValueError(f"dh_last must have shape (S, B, H) = {(S, B, H)}, got {dh_last.shape}")
        dh_last = dh_last.astype(dt, copy=False).transpose(0, 2, 1)  # (S, H, B)
    kind, tag, Z = p.kind, p.tag, p.Z
    k = BLOCKS[kind]
    kH = k * H
    hr = slice(d_in, d_in + H)
    Wi = p.W[:, _rows(kind, H)]  # (S, kH, d_in + H), internal row order, unscaled
    W_hT = np.ascontiguousarray(np.swapaxes(Wi[:, :, d_in:], 1, 2))  # (S, H, kH)
    das = _ws(tag + "das", (S, kH, T, B), dt)  # dL/d pre-activation, internal order, layout of Z
    ring = (_ws(tag + "dh0", (S, H, B), dt), _ws(tag + "dh1", (S, H, B), dt))
    dh = _ws(tag + "dh", (S, H, B), dt)
    dh_next = _ws(tag + "dh_next", (S, H, B), dt)
    dh_next.fill(0.0)
    if dh_last is not None:
        dh_next += dh_last

    def arriving(t):
        """dh_t: from the step after it, and from outside."""
        if dhs is None:
            return dh_next
        np.add(dh_next, dhs[t], out=dh)
        return dh

    if kind == "rnn":
        local = _ws(tag + "rnn_local", (T, S, H, B), dt)  # 1 - h_t ** 2
        np.square(Z[:, hr, 1:T + 1].transpose(2, 0, 1, 3), out=local)
        np.subtract(1.0, local, out=local)
        for t in reversed(range(T)):
            da = das[:, :, t]
            np.multiply(arriving(t), local[t], out=da)
            dh_next = np.matmul(W_hT, da, out=ring[t % 2])
        G = _weight_grads(das, Z, T)
    elif kind == "lstm":
        # Per step, on arrays that stay in cache (precomputing every step's local derivatives at
        # once was slower: those arrays are larger than the cache).
        acts = p.acts  # (T, S, 4H, B): o, f, i, g
        cs, tcs = p.extra
        local = _ws(tag + "lstm_local", (S, 4 * H, B), dt)  # per unit of dh (o) and of dc (f, i, g)
        l4 = local.reshape(S, 4, H, B)
        tmp = _ws(tag + "lstm_btmp", (S, H, B), dt)
        dc = _ws(tag + "lstm_dc", (S, H, B), dt)
        dc.fill(0.0)
        d4 = das.reshape(S, 4, H, T, B)
        for t in reversed(range(T)):
            a, tc = acts[t], tcs[t]
            o, f, i, g = (a[:, m * H:(m + 1) * H] for m in range(4))
            dht = arriving(t)
            np.square(tc, out=tmp)  # dc_t = dc from c_{t+1} + dh_t o (1 - tanh(c_t) ** 2)
            np.subtract(1.0, tmp, out=tmp)
            np.multiply(tmp, o, out=tmp)
            np.multiply(tmp, dht, out=tmp)
            np.add(dc, tmp, out=dc)
            sl = local[:, :3 * H]
            np.subtract(1.0, a[:, :3 * H], out=sl)
            np.multiply(sl, a[:, :3 * H], out=sl)  # s (1 - s) for o, f, i
            np.multiply(l4[:, 0], tc, out=l4[:, 0])  # tanh(c) o (1 - o)
            if t:
                np.multiply(l4[:, 1], cs[t - 1], out=l4[:, 1])  # c_prev f (1 - f)
            else:
                l4[:, 1] = 0.0  # c_{-1} = 0
            np.multiply(l4[:, 2], g, out=l4[:, 2])  # g i (1 - i)
            np.square(g, out=l4[:, 3])
            np.subtract(1.0, l4[:, 3], out=l4[:, 3])
            np.multiply(l4[:, 3], i, out=l4[:, 3])  # i (1 - g ** 2)
            np.multiply(dc[:, None], l4[:, 1:], out=d4[:, 1:, :, t])
            np.multiply(dht, l4[:, 0], out=d4[:, 0, :, t])
            dh_next = np.matmul(W_hT, das[:, :, t], out=ring[t % 2])
            np.multiply(dc, f, out=dc)  # the cell path: times the forget gate only
        G = _weight_grads(das, Z, T)
    else:
        acts = p.acts  # (T, S, 3H, B): r, z, n
        Z2, hs = p.extra
        r, z, n = (acts[:, :, m * H:(m + 1) * H] for m in range(3))
        h_prev = hs[:T]
        A_n = _ws(tag + "gru_An", (T, S, H, B), dt)  # (1 - z) (1 - n ** 2)
        A_z = _ws(tag + "gru_Az", (T, S, H, B), dt)  # (h_prev - n) z (1 - z)
        A_r = _ws(tag + "gru_Ar", (T, S, H, B), dt)  # h_prev r (1 - r)
        tmp = _ws(tag + "gru_btmp", (T, S, H, B), dt)
        np.subtract(1.0, z, out=tmp)
        np.square(n, out=A_n)
        np.subtract(1.0, A_n, out=A_n)
        np.multiply(A_n, tmp, out=A_n)
        np.multiply(z, tmp, out=A_z)
        np.subtract(h_prev, n, out=tmp)
        np.multiply(A_z, tmp, out=A_z)
        np.subtract(1.0, r, out=A_r)
        np.multiply(A_r, r, out=A_r)
        np.multiply(A_r, h_prev, out=A_r)
        W_nhT, W_rzhT = W_hT[:, :, 2 * H:], W_hT[:, :, :2 * H]
        drh = _ws(tag + "gru_drh", (S, H, B), dt)
        t1 = _ws(tag + "gru_t1", (S, H, B), dt)
        for t in reversed(range(T)):
            dht = arriving(t)
            da_n = das[:, 2 * H:, t]
            np.multiply(dht, A_n[t], out=da_n)
            np.multiply(dht, A_z[t], out=das[:, H:2 * H, t])
            np.matmul(W_nhT, da_n, out=drh)
            np.multiply(drh, A_r[t], out=das[:, :H, t])
            new = np.matmul(W_rzhT, das[:, :2 * H, t], out=ring[t % 2])  # + dh z + drh r
            np.multiply(dht, z[t], out=t1)
            np.add(new, t1, out=new)
            np.multiply(drh, r[t], out=t1)
            dh_next = np.add(new, t1, out=new)
        G = np.concatenate([_weight_grads(das[:, :2 * H], Z, T),  # the gates read [x; h; 1]
                            _weight_grads(das[:, 2 * H:], Z2, T)], axis=1)  # the candidate [x; r h; 1]
    back = np.argsort(_rows(kind, H))  # internal order -> reference order
    out = {"W": G[:, back, :-1], "b": G[:, back, -1]}
    if inputs:
        dx = np.matmul(np.swapaxes(Wi[:, :, :d_in], 1, 2), das.reshape(S, kH, T * B))  # (S, d_in, T B)
        out["xs"] = np.ascontiguousarray(dx.reshape(S, d_in, T, B).transpose(2, 0, 3, 1))
    return out
