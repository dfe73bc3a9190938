r"""What a fixed-size state holds: the bottlenecks chapter's experiments, read out by probes.

:func:`token_sequences` draws random tokens, :func:`final_states` runs each model over them,
:func:`attention_read` reads them back through one attention head, and :func:`state_probe` and
:func:`positions_recovered` measure how many earlier tokens a read-out recovers; :func:`count_probe`
is the baseline that knows only how often each symbol occurred (no order), and :func:`count_r2`
measures how much of such counts a state holds; :func:`next_token_leak` shows what an unmasked layer
leaks. Every read-out is the ridge regression :func:`.linear_probe`.
"""

from __future__ import annotations

import numpy as np

from seqmodels.common._checks import as_float_array, as_int_list, finite_float, one_of, positive_int
from seqmodels.models.attention import init_attention, self_attention, sinusoidal_positions
from seqmodels.models.birnn import bilstm_forward
from seqmodels.models.lstm import init_lstm, lstm_forward
from seqmodels.common.numeric import softmax
from seqmodels.common.probe import linear_probe
from seqmodels.models.rnn import init_rnn, rnn_forward
from seqmodels.common.clock import one_blas_thread


def token_sequences(n_seq: int, T: int, vocab_size: int, seed: int = 0):
    """``n_seq`` sequences of ``T`` uniformly random tokens: ids ``(n_seq, T)`` and their one-hot
    codes, time-major ``(T, n_seq, vocab_size)``. Raises ``ValueError`` unless the sizes are
    integers >= 1 and ``seed`` is an integer >= 0.

    >>> tokens, xs = token_sequences(2, 3, 4)
    >>> tokens.shape, xs.shape, bool((xs.argmax(axis=-1).T == tokens).all())
    ((2, 3), (3, 2, 4), True)
    """
    n_seq, T, vocab_size = positive_int("n_seq", n_seq), positive_int("T", T), positive_int("vocab_size", vocab_size)
    rng = np.random.default_rng(positive_int("seed", seed, minimum=0))
    tokens = rng.integers(0, vocab_size, size=(n_seq, T))
    return tokens, np.eye(vocab_size)[tokens].transpose(1, 0, 2)  # (N, T) ids, (T, N, vocab) one-hot


def _check_xs(xs) -> np.ndarray:
    xs = as_float_array("xs", xs, ndims=(3,))
    if 0 in xs.shape:
        raise ValueError(f"xs must have shape (T, N, d_in) with every size >= 1, got {xs.shape}")
    return xs


def final_states(model: str, xs, d_hidden: int, seed: int = 0) -> np.ndarray:
    """The representation at the last position of every sequence, ``(N, d_out)``, random weights.

    ``xs`` is ``(T, N, d_in)``. ``"RNN"``: ``h_T`` (``d_hidden`` numbers, spectral radius 0.9);
    ``"LSTM"``: ``h_T`` (``d_hidden``; the cell ``c_T`` is the other half of its state);
    ``"Bi-LSTM"``: ``[h_T of the forward LSTM, h at the last position of the backward LSTM]``
    (``2 d_hidden``); ``"Word2Vec"``: the input vector of the last token itself (no context).

    Raises ``ValueError`` for a ``model`` not among those four, ``xs`` that is not a finite
    ``(T, N, d_in)`` array with every size >= 1, or ``d_hidden`` not an integer >= 1.
    """
    one_of("model", model, ("Word2Vec", "RNN", "LSTM", "Bi-LSTM"))
    xs = _check_xs(xs)
    d_hidden = positive_int("d_hidden", d_hidden)
    rng = np.random.default_rng(seed)
    T, N, d_in = xs.shape
    zero = np.zeros((N, d_hidden))
    if model == "Word2Vec":
        return xs[-1]
    if model == "RNN":
        return rnn_forward(xs, zero, *init_rnn(d_in, d_hidden, rng, spectral_radius=0.9))[-1]
    if model == "LSTM":
        return lstm_forward(xs, zero, zero, *init_lstm(d_in, d_hidden, rng))[0][-1]
    if model == "Bi-LSTM":  # the backward half of the last row has read only the last input
        return bilstm_forward(xs, init_lstm(d_in, d_hidden, rng), init_lstm(d_in, d_hidden, rng))[-1]
    raise ValueError(f"model must be one of Word2Vec, RNN, LSTM, Bi-LSTM, got {model!r}")


def attention_read(xs, sharpness: float = 20.0) -> np.ndarray:
    """Read every earlier position back through one attention head, ``(N, T, d_in)``.

    Keys are the sinusoidal position codes ``P`` of the ``T`` positions and values are the inputs
    ``xs`` (``(T, N, d_in)``); the query that reads position ``t`` is ``sharpness * P[t]``. Because
    ``P[t] . P[j]`` is largest at ``j = t``, the softmax puts almost all weight on position ``t``. The
    cache this reads from holds every position, so nothing had to be squeezed into a fixed size.

    Raises ``ValueError`` for ``xs`` as :func:`final_states` does, or a ``sharpness`` that is not finite.
    """
    xs = _check_xs(xs)
    sharpness = finite_float("sharpness", sharpness)
    T, N, d_in = xs.shape
    P = sinusoidal_positions(T, 64)
    A = softmax(sharpness * P @ P.T / np.sqrt(P.shape[1]), axis=-1)  # (T queries, T keys)
    return np.einsum("tj,jnd->ntd", A, xs)  # (N, T, d_in)


@one_blas_thread
def state_probe(models=("RNN", "LSTM"), sizes=(8, 16, 32, 64), T: int = 30, vocab_size: int = 8,
                n_train: int = 1000, n_test: int = 500, seed: int = 0) -> dict:
    """How well the token at each earlier position can be read back from the last representation.

    ``n_train + n_test`` sequences of ``T`` uniformly random tokens (one-hot, ``vocab_size`` of them, so
    chance accuracy is ``1 / vocab_size``) run through each model with random weights at each state size;
    :func:`.linear_probe` is trained to recover all ``T`` tokens from the final representation. For
    ``"attention"`` the read-out is :func:`attention_read` at each position (no state size).

    Returns
    -------
    dict mapping ``(model, size)`` (``("attention", None)`` for attention) to an array of shape
    ``(T,)``: accuracy for the token ``k`` positions before the last, ``k = 0 .. T-1``.

    Raises
    ------
    ValueError
        a name in ``models`` not among :func:`final_states`' models; ``sizes`` not a non-empty
        list of integers >= 1; ``T``, ``n_train``, ``n_test`` not integers >= 1, ``vocab_size``
        not one >= 2.
    """
    models = list(models) if not isinstance(models, str) else [models]
    for model in models:
        one_of("models", model, ("Word2Vec", "RNN", "LSTM", "Bi-LSTM"))
    sizes = as_int_list("sizes", sizes)
    T, vocab_size = positive_int("T", T), positive_int("vocab_size", vocab_size, minimum=2)
    n_train, n_test = positive_int("n_train", n_train), positive_int("n_test", n_test)
    tokens, xs = token_sequences(n_train + n_test, T, vocab_size, seed)
    train, test = slice(0, n_train), slice(n_train, None)
    out = {}
    for model in models:
        for size in sizes:
            S = final_states(model, xs, int(size), seed=seed)
            acc = linear_probe(S[train], tokens[train], S[test], tokens[test], vocab_size)
            out[(model, int(size))] = acc[::-1]
    reads = attention_read(xs)  # (N, T, vocab): position t read by a query aimed at t
    acc = np.array([linear_probe(reads[train, t], tokens[train, t:t + 1], reads[test, t],
                                 tokens[test, t:t + 1], vocab_size)[0] for t in range(T)])
    out[("attention", None)] = acc[::-1]
    return out


def positions_recovered(accuracy, vocab_size: int) -> float:
    """``sum_k (acc_k - 1/vocab_size) / (1 - 1/vocab_size)``: how many positions' worth of tokens a read-out
    recovers, counting a perfectly read position as 1 and a position at chance as 0.

    Raises
    ------
    ValueError
        ``vocab_size`` not an integer >= 2; ``accuracy`` not a non-empty 1-D array of finite
        fractions in ``[0, 1]``.

    >>> positions_recovered([1.0, 1.0, 0.25, 0.25], vocab_size=4)
    2.0
    """
    vocab_size = positive_int("vocab_size", vocab_size, minimum=2)
    accuracy = as_float_array("accuracy", accuracy, ndims=(1,))
    if accuracy.size == 0 or accuracy.min() < 0 or accuracy.max() > 1:
        raise ValueError(f"accuracy must be a non-empty list of fractions in [0, 1], got {accuracy}")
    chance = 1.0 / vocab_size
    return float(np.sum((accuracy - chance) / (1.0 - chance)))


@one_blas_thread
def next_token_leak(T: int = 12, d: int = 32, vocab_size: int = 8, n_seq: int = 3000,
                    seed: int = 0) -> dict[str, float]:
    """Accuracy of predicting token ``t + 1`` from a self-attention layer's output at ``t``.

    Tokens are uniformly random, so no model can predict the next one from the past better than
    chance (``1 / vocab_size``). One random attention layer with a residual connection reads
    ``E[tokens] + sinusoidal positions``; a :func:`.linear_probe` (two thirds of the positions to
    train, one third to test) predicts the next token, with the causal mask (``"causal"``) and
    without it (``"bidirectional"``). Above chance without the mask means the future leaked in.
    Raises ``ValueError`` unless ``T >= 2``, ``n_seq >= 3``, ``vocab_size >= 2`` and ``d`` is even.
    """
    T, n_seq = positive_int("T", T, minimum=2), positive_int("n_seq", n_seq, minimum=3)
    vocab_size = positive_int("vocab_size", vocab_size, minimum=2)
    d = positive_int("d", d, minimum=2)
    if d % 2:
        raise ValueError(f"d must be even (the sinusoidal position code pairs sines and cosines), got {d}")
    rng = np.random.default_rng(seed)
    tokens = rng.integers(0, vocab_size, size=(n_seq, T))
    X = rng.normal(size=(vocab_size, d))[tokens] + sinusoidal_positions(T, d)  # (N, T, d)
    W_q, W_k, W_v = init_attention(d, d, d, rng)
    out = {}
    for name, causal in (("causal", True), ("bidirectional", False)):
        H = X + self_attention(X, W_q, W_k, W_v, causal=causal)[0]
        feats = H[:, :-1].reshape(-1, d)
        nxt = tokens[:, 1:].reshape(-1, 1)
        cut = 2 * len(feats) // 3
        out[name] = float(linear_probe(feats[:cut], nxt[:cut], feats[cut:], nxt[cut:], vocab_size)[0])
    out["chance"] = 1.0 / vocab_size
    return out


def count_probe(T: int = 30, vocab_size: int = 8, n_train: int = 1000, n_test: int = 500,
                seed: int = 0) -> np.ndarray:
    """The state probe's order-free baseline: read every position back from symbol counts alone.

    The features of a sequence are how many times each of the ``vocab_size`` symbols occurs in it
    (``vocab_size`` numbers, no order at all); :func:`.linear_probe` is trained on them to recover
    the token at every position, on the same sequences as :func:`state_probe` with the same
    ``seed``. Whatever this scores is not memory of any position.

    Returns
    -------
    ndarray of shape (T,): accuracy for the token ``k`` positions before the last.

    Raises
    ------
    ValueError
        If a size is not an integer >= 1 (``vocab_size`` >= 2) or ``seed`` is not an integer >= 0.

    >>> acc = count_probe(T=6, vocab_size=2, n_train=200, n_test=100)
    >>> acc.shape, bool(acc.min() > 0.5)
    ((6,), True)
    """
    T, n_train, n_test = positive_int("T", T), positive_int("n_train", n_train), positive_int("n_test", n_test)
    vocab_size = positive_int("vocab_size", vocab_size, minimum=2)
    tokens, xs = token_sequences(n_train + n_test, T, vocab_size, seed)
    counts = xs.sum(axis=0)  # (N, vocab): symbol counts of every sequence
    train, test = slice(0, n_train), slice(n_train, None)
    return linear_probe(counts[train], tokens[train], counts[test], tokens[test], vocab_size)[::-1]


@one_blas_thread
def count_r2(model: str, d_hidden: int, first: int, T: int = 30, vocab_size: int = 8, n_train: int = 1000,
             n_test: int = 500, seed: int = 0, ridge: float = 1e-3) -> float:
    """Held-out R^2 of a linear read-out of symbol counts over the first ``first`` positions from the
    final representation of ``model`` (:func:`final_states`), on the sequences of :func:`state_probe`.

    1 means the state holds how often each symbol occurred early in the sequence, whatever the
    order; 0 or below means a read-out does no better than predicting the mean counts.

    Raises
    ------
    ValueError
        If ``model`` is not one of :func:`final_states`' models, ``first`` is not an integer in
        ``[1, T]``, a size is not an integer >= 1, ``seed`` is not an integer >= 0 or ``ridge`` is
        not a finite number >= 0.

    >>> count_r2("LSTM", 16, first=2, T=4, vocab_size=3, n_train=200, n_test=100) > 0.5
    True
    """
    T, first = positive_int("T", T), positive_int("first", first)
    if first > T:
        raise ValueError(f"first must be an integer in [1, T={T}], got {first}")
    d_hidden, n_train, n_test = (positive_int("d_hidden", d_hidden), positive_int("n_train", n_train),
                                 positive_int("n_test", n_test))
    vocab_size = positive_int("vocab_size", vocab_size, minimum=2)
    ridge = finite_float("ridge", ridge, low=0)
    tokens, xs = token_sequences(n_train + n_test, T, vocab_size, seed)
    S = final_states(model, xs, d_hidden, seed=seed)
    Y = xs[:first].sum(axis=0)  # (N, vocab): counts over the first positions
    A = np.hstack([S, np.ones((len(S), 1))])
    W = np.linalg.solve(A[:n_train].T @ A[:n_train] + ridge * np.eye(A.shape[1]), A[:n_train].T @ Y[:n_train])
    residual = Y[n_train:] - A[n_train:] @ W
    spread = Y[n_train:] - Y[n_train:].mean(axis=0)
    return float(1.0 - (residual**2).sum() / (spread**2).sum())
