r"""A character-level recurrent language model, trained with truncated BPTT on the Wikipedia sample.

The model reads one character at a time and predicts the next one::

    h_t      = tanh(W_h h_{t-1} + W_x onehot(c_t) + b)     (seqmodels.models.rnn)
    logits_t = h_t @ W_out.T + b_out                      (the read-out of the package conventions)
    loss     = mean_t  -log softmax(logits_t)[c_{t+1}]

Training walks ``batch`` parallel streams of the training text in chunks of ``T`` characters.
The state is carried from one chunk to the next but the gradient is not (truncated BPTT), the
gradient norm is clipped (:func:`seqmodels.common.optim.clip_grad_norm`) and Adam takes the step.
Quality is reported in bits per character on held-out articles, beside n-gram baselines
(:func:`ngram_bits_per_char`) computed on the same split.

Ids are time-major, ``(T + 1, batch)``: positions ``0 .. T - 1`` are read, ``1 .. T`` predicted.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field

import numpy as np

from seqmodels.common._checks import as_ids, as_rng, finite_float, positive_int
from seqmodels.common.numeric import log_softmax, softmax, softmax_cross_entropy
from seqmodels.common.optim import Adam, clip_grad_norm
from seqmodels.models.rnn import init_rnn, rnn_backward, rnn_forward, rnn_step

#: The characters the model reads: lower-case letters, digits, space and a little punctuation.
ALPHABET = " abcdefghijklmnopqrstuvwxyz0123456789.,'-()"

#: The keys of the parameter dict: the RNN's weights and the output layer's.
PARAM_NAMES = ("W_h", "W_x", "b", "W_out", "b_out")


def normalize_text(text: str) -> str:
    """Lower-case ``text``, drop wiki headings, bold/italic quotes and characters outside
    :data:`ALPHABET`, and collapse every run of whitespace to one space.

    Raises
    ------
    ValueError
        If ``text`` is not a ``str``.

    >>> normalize_text("== History ==\\n'''Anarchism''' is *old*; 1840s!\\n")
    'anarchism is old 1840s'
    """
    if not isinstance(text, str):
        raise ValueError(f"text must be a str, got {type(text).__name__}")
    lines = [line for line in text.splitlines() if not line.lstrip().startswith("=")]
    text = "\n".join(lines).replace("'''", "").replace("''", "").lower()
    keep = set(ALPHABET)
    text = "".join(ch if ch in keep else (" " if ch.isspace() else "") for ch in text)
    return re.sub(r" +", " ", text).strip()


def encode(text: str) -> np.ndarray:
    """Ids of the characters of ``text`` in :data:`ALPHABET`, shape ``(len(text),)``.

    Raises
    ------
    ValueError
        If ``text`` is not a ``str``.
    KeyError
        a character that is not in the alphabet (normalise with :func:`normalize_text` first).

    >>> encode("ab c").tolist()
    [1, 2, 0, 3]
    """
    if not isinstance(text, str):
        raise ValueError(f"text must be a str, got {type(text).__name__}")
    index = {ch: i for i, ch in enumerate(ALPHABET)}
    try:
        return np.fromiter((index[ch] for ch in text), dtype=np.int64, count=len(text))
    except KeyError as err:
        raise KeyError(f"text holds character {err.args[0]!r}, which is not in the alphabet {ALPHABET!r}") from None


def decode(ids) -> str:
    """The text of character ids (inverse of :func:`encode`).

    Raises
    ------
    ValueError
        If ``ids`` is not a 1-D integer array of ids in ``[0, len(ALPHABET))``.

    >>> decode([1, 2, 0, 3])
    'ab c'
    """
    ids = as_ids("ids", ids, len(ALPHABET), ndims=(1,), what="character ids")
    return "".join(ALPHABET[i] for i in ids)


def wikipedia_split(held_out_fraction: float = 0.1) -> tuple[np.ndarray, np.ndarray, int]:
    """The Wikipedia sample as character ids, split by whole articles: the first articles (in file
    order) are for training, the last ``held_out_fraction`` of the characters for evaluation.

    Returns ``(train_ids, held_out_ids, n_held_out_articles)``; articles are joined by a space.

    Raises
    ------
    ValueError
        If ``held_out_fraction`` is not a finite number in ``(0, 1)``.
    """
    from seqmodels.datasets.corpus import wikipedia_articles

    held_out_fraction = finite_float("held_out_fraction", held_out_fraction, low=0)
    if not 0 < held_out_fraction < 1:
        raise ValueError(f"held_out_fraction must be in (0, 1), got {held_out_fraction}")
    texts = [normalize_text(t) for _, t in wikipedia_articles()]
    texts = [t for t in texts if t]
    lengths = np.array([len(t) + 1 for t in texts])
    split = int(np.searchsorted(np.cumsum(lengths), (1 - held_out_fraction) * lengths.sum()))
    split = min(max(split, 1), len(texts) - 1)
    return encode(" ".join(texts[:split])), encode(" ".join(texts[split:])), len(texts) - split


# --- the model ---------------------------------------------------------------------------------


def init_charlm(vocab_size: int, d_hidden: int, rng, *, spectral_radius: float = 0.9):
    """Parameters of a character RNN language model, ``dict`` with keys :data:`PARAM_NAMES`.

    ``W_h``, ``W_x``, ``b`` come from :func:`seqmodels.models.rnn.init_rnn` with ``d_in = vocab_size``
    (a one-hot input, so column ``c`` of ``W_x`` is character ``c``'s input vector) and
    ``input_scale = sqrt(vocab_size)`` (entries of unit variance); ``W_out`` is
    ``N(0, 1 / d_hidden)`` and ``b_out = 0``.

    Raises
    ------
    ValueError
        sizes that are not integers >= 1 (``vocab_size >= 2``), a bad radius or ``rng``.

    >>> p = init_charlm(5, 8, 0)
    >>> {k: v.shape for k, v in p.items()}
    {'W_h': (8, 8), 'W_x': (8, 5), 'b': (8,), 'W_out': (5, 8), 'b_out': (5,)}
    """
    vocab_size = positive_int("vocab_size", vocab_size, minimum=2)
    d_hidden = positive_int("d_hidden", d_hidden)
    rng = as_rng("rng", rng)
    W_h, W_x, b = init_rnn(vocab_size, d_hidden, rng, spectral_radius=spectral_radius,
                           input_scale=float(np.sqrt(vocab_size)))
    W_out = rng.normal(scale=1 / np.sqrt(d_hidden), size=(vocab_size, d_hidden))
    return {"W_h": W_h, "W_x": W_x, "b": b, "W_out": W_out, "b_out": np.zeros(vocab_size)}


def _check_params(params) -> tuple[int, int]:
    if not isinstance(params, dict):
        raise ValueError(f"params must be a dict with keys {PARAM_NAMES}, got {type(params).__name__}")
    for k in PARAM_NAMES:
        if k not in params:
            raise KeyError(f"params is missing {k!r} (expected keys {PARAM_NAMES})")
        if np.asarray(params[k]).dtype.kind not in "fiu" or not np.isfinite(params[k]).all():
            raise ValueError(f"params[{k!r}] must be a finite real array")
    vocab_size, d_hidden = np.shape(params["W_out"]) if np.ndim(params["W_out"]) == 2 else (0, 0)
    if vocab_size < 2 or np.shape(params["W_x"]) != (d_hidden, vocab_size) \
            or np.shape(params["b_out"]) != (vocab_size,):
        raise ValueError(f"params must hold W_out (vocab, d_hidden), W_x (d_hidden, vocab) and "
                         f"b_out (vocab,), got {np.shape(params['W_out'])}, {np.shape(params['W_x'])}, "
                         f"{np.shape(params['b_out'])}")
    return vocab_size, d_hidden


def _check_ids(ids, vocab_size):
    ids = as_ids("ids", ids, vocab_size, ndims=(2,), what="character ids")
    if ids.shape[0] < 2 or ids.shape[1] < 1:
        raise ValueError(f"ids must have shape (T + 1, batch) with T >= 1 and batch >= 1, got {ids.shape}")
    return ids


def _state(h0, d_hidden, batch):
    if h0 is None:
        return np.zeros((batch, d_hidden))
    h0 = np.asarray(h0, dtype=np.float64)
    if h0.shape != (batch, d_hidden) or not np.isfinite(h0).all():
        raise ValueError(f"h0 must be a finite array of shape (batch, d_hidden) = {(batch, d_hidden)}, "
                         f"got shape {h0.shape}")
    return h0


def charlm_loss_and_grads(params, ids, h0=None):
    """Mean next-character cross-entropy (nats) of a chunk, its gradients and the last state.

    Parameters
    ----------
    params : dict from :func:`init_charlm`
    ids : integer ndarray of shape (T + 1, batch); ``ids[:-1]`` are read, ``ids[1:]`` predicted
    h0 : ndarray of shape (batch, d_hidden) or None (zeros): the state carried in from the
        previous chunk. No gradient flows into it (truncated BPTT).

    Returns
    -------
    loss : float, mean over the ``T * batch`` predictions
    grads : dict keyed like ``params``
    h_last : ndarray of shape (batch, d_hidden), the state to carry into the next chunk

    Raises
    ------
    ValueError
        ids of the wrong shape, dtype or range; parameters or a state of the wrong shape, or not finite.
    KeyError
        ``params`` without one of :data:`PARAM_NAMES`.
    """
    vocab_size, d_hidden = _check_params(params)
    ids = _check_ids(ids, vocab_size)
    T, batch = ids.shape[0] - 1, ids.shape[1]
    h0 = _state(h0, d_hidden, batch)
    xs = np.eye(vocab_size)[ids[:-1]]  # (T, batch, vocab) one-hot inputs
    W_h, W_x, b = params["W_h"], params["W_x"], params["b"]
    hs = rnn_forward(xs, h0, W_h, W_x, b)  # (T, batch, d_hidden)
    logits = hs @ params["W_out"].T + params["b_out"]  # (T, batch, vocab)
    n = T * batch
    loss, dlogits = softmax_cross_entropy(logits.reshape(n, vocab_size), ids[1:].ravel())
    dlogits = dlogits.reshape(T, batch, vocab_size)
    grads = rnn_backward(xs, h0, W_h, W_x, b, dlogits @ params["W_out"])
    out = {"W_h": grads["W_h"], "W_x": grads["W_x"], "b": grads["b"],
           "W_out": dlogits.reshape(n, vocab_size).T @ hs.reshape(n, d_hidden),
           "b_out": dlogits.reshape(n, vocab_size).sum(axis=0)}
    return loss, out, hs[-1]


def _streams(ids: np.ndarray, batch: int) -> np.ndarray:
    """Cut one id stream into ``batch`` contiguous streams side by side, shape ``(L, batch)``."""
    L = ids.size // batch
    return ids[:L * batch].reshape(batch, L).T


def bits_per_char(params, ids, *, batch: int = 16, chunk: int = 256) -> float:
    """Bits per character of a held-out id stream under the model.

    The stream is cut into ``batch`` contiguous pieces read side by side, each from a zero state,
    in chunks of ``chunk`` characters with the state carried across; every character after the
    first of each piece is predicted once. The result is the mean of ``-log2 p``.

    Raises
    ------
    ValueError
        fewer than ``2 * batch`` ids, ids out of range, ``batch`` or ``chunk`` not an integer >= 1,
        or parameters of the wrong shape or not finite.
    """
    vocab_size, d_hidden = _check_params(params)
    ids = as_ids("ids", ids, vocab_size, ndims=(1,), what="character ids")
    batch, chunk = positive_int("batch", batch), positive_int("chunk", chunk)
    if ids.size < 2 * batch:
        raise ValueError(f"ids must hold at least 2 * batch = {2 * batch} characters, got {ids.size}")
    S = _streams(ids, batch)  # (L, batch)
    h, total, count = np.zeros((batch, d_hidden)), 0.0, 0
    for s in range(0, S.shape[0] - 1, chunk):
        piece = S[s:s + chunk + 1]
        loss, _, h = _forward_loss(params, piece, h)
        total += loss * (piece.shape[0] - 1) * batch
        count += (piece.shape[0] - 1) * batch
    return float(total / count / np.log(2))


def _forward_loss(params, ids, h0):
    """The loss of :func:`charlm_loss_and_grads` without the backward pass (for evaluation)."""
    vocab_size = params["W_out"].shape[0]
    xs = np.eye(vocab_size)[ids[:-1]]
    hs = rnn_forward(xs, h0, params["W_h"], params["W_x"], params["b"])
    log_p = log_softmax(hs @ params["W_out"].T + params["b_out"], axis=-1)
    loss = -float(np.take_along_axis(log_p, ids[1:, :, None], axis=-1).mean())
    return loss, None, hs[-1]


# --- n-gram baselines --------------------------------------------------------------------------


def _ngram_codes(x: np.ndarray, n: int, vocab_size: int) -> np.ndarray:
    """One integer per n-gram of ``x``, ``(x.size - n + 1,)``: the n-gram ending at position ``i``
    is ``x[i - n + 1] * V**(n - 1) + ... + x[i]``."""
    c = np.zeros(x.size - n + 1, dtype=np.int64)
    for j in range(n):
        c = c * vocab_size + x[j:x.size - n + 1 + j]
    return c


def ngram_bits_per_char(train_ids, test_ids, vocab_size: int, order: int, alpha: float = 1.0) -> float:
    """Held-out bits per character of an add-``alpha`` smoothed character n-gram model.

    ``order = 1`` is the unigram model (character frequencies), ``order = 2`` the bigram model
    ``p(c_t | c_{t-1})``, and so on; counts come from ``train_ids``, and every character of
    ``test_ids`` from position ``order - 1`` on is scored.

    Raises
    ------
    ValueError
        ``order`` < 1 or so large that the table of ``vocab_size ** order`` counts would exceed
        2**24 entries, ``alpha`` <= 0, ids out of range, or a test stream shorter than ``order``.

    >>> round(ngram_bits_per_char([0, 1, 0, 1], [0, 1, 0], vocab_size=2, order=1), 3)
    1.0
    """
    vocab_size = positive_int("vocab_size", vocab_size, minimum=2)
    order = positive_int("order", order)
    if vocab_size ** order > 2 ** 24:
        raise ValueError(f"order must keep the count table vocab_size ** order within 2**24 entries, "
                         f"got {vocab_size} ** {order}")
    alpha = finite_float("alpha", alpha, low=0)
    if alpha == 0:
        raise ValueError("alpha must be > 0 (an unseen n-gram would get probability 0)")
    train = as_ids("train_ids", train_ids, vocab_size, ndims=(1,), what="character ids")
    test = as_ids("test_ids", test_ids, vocab_size, ndims=(1,), what="character ids")
    if train.size < order or test.size < order:
        raise ValueError(f"train_ids and test_ids must hold at least order = {order} ids")

    counts = np.bincount(_ngram_codes(train, order, vocab_size), minlength=vocab_size ** order)
    counts = counts.reshape(-1, vocab_size)
    probs = (counts + alpha) / (counts.sum(axis=1, keepdims=True) + alpha * vocab_size)
    test_codes = _ngram_codes(test, order, vocab_size)
    return float(-np.log2(probs.reshape(-1)[test_codes]).mean())


def interpolated_ngram_bits_per_char(train_ids, test_ids, vocab_size: int, order: int) -> float:
    """Held-out bits per character of an interpolated character n-gram model with absolute
    discounting (Ney, Essen and Kneser 1994; the "interpolated absolute discounting" of Chen and
    Goodman 1999), a stronger baseline than add-one smoothing.

    Each order ``n`` takes a fixed discount ``D_n = n1 / (n1 + 2 n2)`` from every seen n-gram
    (``n1``, ``n2``: the numbers of n-grams seen once and twice in ``train_ids``; 0.5 when there
    are none) and gives the
    freed mass to the order below, in proportion to its probabilities::

        p_n(c | h) = (max(C(h c) - D_n, 0) + D_n N(h) p_{n-1}(c | h')) / C(h)

    with ``C(h)`` the count of the context ``h`` (its last ``n - 1`` characters), ``N(h)`` the
    number of distinct characters seen after it and ``h'`` the context one character shorter; an
    unseen context uses ``p_{n-1}`` alone, and the order below 1 is uniform over ``vocab_size``.
    Counts are kept sparse, so high orders cost only what the training text holds. Every character
    of ``test_ids`` from position ``order - 1`` on is scored.

    Raises
    ------
    ValueError
        ``order`` < 1, ids out of range, or a stream shorter than ``order``.

    >>> round(interpolated_ngram_bits_per_char([0, 1] * 20, [0, 1, 0, 1], vocab_size=2, order=2), 2)
    0.02
    """
    vocab_size = positive_int("vocab_size", vocab_size, minimum=2)
    order = positive_int("order", order)
    train = as_ids("train_ids", train_ids, vocab_size, ndims=(1,), what="character ids").astype(np.int64)
    test = as_ids("test_ids", test_ids, vocab_size, ndims=(1,), what="character ids").astype(np.int64)
    if train.size < order or test.size < order:
        raise ValueError(f"train_ids and test_ids must hold at least order = {order} ids")
    n_test = test.size - order + 1                      # the scored positions: order - 1 .. end
    p = np.full(n_test, 1.0 / vocab_size)               # order 0: uniform
    for n in range(1, order + 1):
        keys, counts = np.unique(_ngram_codes(train, n, vocab_size), return_counts=True)
        n1, n2 = int((counts == 1).sum()), int((counts == 2).sum())
        D = n1 / (n1 + 2 * n2) if n1 + 2 * n2 else 0.5
        ctx_keys, first = np.unique(keys // vocab_size, return_index=True)
        ctx_total = np.add.reduceat(counts, first)      # C(h)
        ctx_kinds = np.diff(np.append(first, keys.size))  # N(h)
        q = _ngram_codes(test, n, vocab_size)[order - n:]  # aligned with the scored positions
        i = np.minimum(np.searchsorted(keys, q), keys.size - 1)
        c_hc = np.where(keys[i] == q, counts[i], 0)
        j = np.minimum(np.searchsorted(ctx_keys, q // vocab_size), ctx_keys.size - 1)
        seen = ctx_keys[j] == q // vocab_size
        C_h, N_h = np.where(seen, ctx_total[j], 1), np.where(seen, ctx_kinds[j], 0)
        p = np.where(seen, (np.maximum(c_hc - D, 0) + D * N_h * p) / C_h, p)
    return float(-np.log2(p).mean())


# --- training ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class CharLMConfig:
    """Settings of :func:`train_charlm`.

    d_hidden: 64 units. T: 32 characters per chunk (truncated BPTT length). batch: 32 streams.
    steps: 400 updates (a few seconds in numpy). lr: 1e-2 for Adam. clip: global gradient norm 1.0.
    eval_every: held-out bits per character every this many steps (on ``eval_chars`` characters).
    seed: the initial weights derive from it. The streams do not: the training text is cut into
    ``batch`` contiguous streams at fixed offsets (``_streams``), the same for every seed, so two
    seeds differ only in their initial weights.

    Raises
    ------
    ValueError
        A size that is not an integer >= 1, ``lr`` or ``clip`` that is not a finite number > 0, or
        ``seed`` that is not an integer >= 0.
    """

    d_hidden: int = 64
    T: int = 32
    batch: int = 32
    steps: int = 400
    lr: float = 1e-2
    clip: float = 1.0
    eval_every: int = 50
    eval_chars: int = 10_000
    seed: int = 0

    def __post_init__(self):
        for name in ("d_hidden", "T", "batch", "steps", "eval_every", "eval_chars"):
            positive_int(f"config.{name}", getattr(self, name))
        positive_int("config.seed", self.seed, minimum=0)
        for name in ("lr", "clip"):
            if not finite_float(f"config.{name}", getattr(self, name), low=0) > 0:
                raise ValueError(f"config.{name} must be > 0, got {getattr(self, name)}")


@dataclass
class CharLMResult:
    """Trained parameters and the record of training.

    ``params``
        dict of the final weights
    ``losses``
        ndarray of shape (steps,), training loss of each chunk in bits per character
    ``grad_norms``
        ndarray of shape (steps,), gradient norm before clipping
    ``eval_steps``, ``eval_bpc``
        held-out bits per character (on the first ``eval_chars`` held-out
        characters) after the listed numbers of steps, step 0 included: the held-out curve
    ``seconds``
        wall-clock training time
    ``stopped_at``
        with ``patience``, the step count after which the patience rule stopped training
        (``losses`` then has that many entries); None if training ran all ``config.steps``
    ``kept_best``
        whether ``params`` are the weights of the best evaluation, after
        :attr:`best_step` steps (``keep_best=True``), rather than the last ones
    """

    params: dict
    losses: np.ndarray
    grad_norms: np.ndarray
    eval_steps: np.ndarray
    eval_bpc: np.ndarray
    seconds: float
    config: CharLMConfig = field(default_factory=CharLMConfig)
    stopped_at: int | None = None
    kept_best: bool = False

    @property
    def n_params(self) -> int:
        return int(sum(p.size for p in self.params.values()))

    @property
    def best_step(self) -> int:
        """Steps after which the held-out bits per character were lowest (the first such evaluation)."""
        return int(self.eval_steps[int(np.argmin(self.eval_bpc))])


def train_charlm(train_ids, held_out_ids, config: CharLMConfig = CharLMConfig(), *,
                 patience: int | None = None, keep_best: bool = False) -> CharLMResult:
    """Train a character RNN language model with truncated BPTT, clipping and Adam.

    The training ids are cut into ``config.batch`` contiguous streams; step ``s`` reads chunk
    ``s`` of every stream (wrapping round at the end) from the state the previous chunk left.

    Held-out bits per character are measured at step 0 and every ``config.eval_every`` steps.
    With ``patience`` training stops early, after the evaluation that makes ``patience``
    evaluations in a row without a new lowest held-out bpc (an improvement is any decrease below
    the lowest so far); ``config.steps`` is then the cap, and the result records where it
    stopped (``stopped_at``) beside the curve (``eval_steps``, ``eval_bpc``). With ``keep_best``
    the result's ``params`` are the weights of the lowest held-out bpc (``best_step``) instead of
    the last ones, so with patience they are ``patience * eval_every`` steps older than where it
    stopped. The defaults train the full ``config.steps`` and return the last weights.

    Raises
    ------
    ValueError
        ids out of range or too short for one chunk per stream (or no held-out id), ``config``
        that is not a :class:`CharLMConfig`, ``patience`` neither None nor an integer >= 1, or
        ``keep_best`` not a bool.
    """
    if not isinstance(config, CharLMConfig):
        raise ValueError(f"config must be a CharLMConfig, got {type(config).__name__}")
    if patience is not None:
        patience = positive_int("patience", patience)
    if not isinstance(keep_best, (bool, np.bool_)):
        raise ValueError(f"keep_best must be True or False, got {keep_best!r}")
    cfg = config
    V = len(ALPHABET)
    train = as_ids("train_ids", train_ids, V, ndims=(1,), what="character ids")
    held = as_ids("held_out_ids", held_out_ids, V, ndims=(1,), what="character ids")
    if min(held.size, cfg.eval_chars) < 2 * 16:  # bits_per_char's default batch of 16 streams
        raise ValueError(f"held_out_ids (its first config.eval_chars = {cfg.eval_chars}) must hold at least "
                         f"32 ids, got {held.size}")
    if train.size < cfg.batch * (cfg.T + 1):
        raise ValueError(f"train_ids must hold at least batch * (T + 1) = {cfg.batch * (cfg.T + 1)} ids")
    rng = np.random.default_rng(cfg.seed)
    params = init_charlm(V, cfg.d_hidden, rng)
    S = _streams(train, cfg.batch)  # (L, batch)
    n_chunks = (S.shape[0] - 1) // cfg.T
    opt = Adam(lr=cfg.lr)
    h = np.zeros((cfg.batch, cfg.d_hidden))
    held_eval = held[:cfg.eval_chars]
    losses, norms, eval_steps, eval_bpc = [], [], [0], [bits_per_char(params, held_eval)]
    best_bpc, since_best, stopped_at = eval_bpc[0], 0, None
    best_params = {k: v.copy() for k, v in params.items()} if keep_best else None
    start = time.perf_counter()
    for step in range(cfg.steps):
        c = step % n_chunks
        if c == 0:
            h = np.zeros_like(h)
        chunk = S[c * cfg.T:(c + 1) * cfg.T + 1]  # (T + 1, batch)
        loss, grads, h = charlm_loss_and_grads(params, chunk, h)
        grads, norm = clip_grad_norm(grads, cfg.clip)
        opt.step(params, grads)
        losses.append(loss / np.log(2))
        norms.append(norm)
        if (step + 1) % cfg.eval_every == 0 or step + 1 == cfg.steps:
            eval_steps.append(step + 1)
            eval_bpc.append(bits_per_char(params, held_eval))
            if eval_bpc[-1] < best_bpc:
                best_bpc, since_best = eval_bpc[-1], 0
                if keep_best:
                    best_params = {k: v.copy() for k, v in params.items()}
            else:
                since_best += 1
            if patience is not None and since_best >= patience and step + 1 < cfg.steps:
                stopped_at = step + 1
                break
    seconds = time.perf_counter() - start
    return CharLMResult(best_params if keep_best else params, np.array(losses), np.array(norms),
                        np.array(eval_steps), np.array(eval_bpc), seconds, cfg, stopped_at, bool(keep_best))


def sample(params, prefix: str, n: int, temperature: float, rng) -> str:
    """``n`` characters drawn from the model after reading ``prefix``, at a softmax temperature.

    Each next character is drawn from ``softmax(logits / temperature)``: below 1 the draw is
    sharper (closer to always taking the most likely character), above 1 flatter.

    Raises
    ------
    ValueError
        an empty prefix, ``n`` < 1, a temperature that is not > 0, a bad ``rng``, parameters of
        the wrong shape or not finite.
    KeyError
        a prefix character outside the alphabet, or ``params`` without one of :data:`PARAM_NAMES`.
    """
    vocab_size, d_hidden = _check_params(params)
    if not isinstance(prefix, str) or not prefix:
        raise ValueError(f"prefix must be a non-empty str, got {prefix!r}")
    n = positive_int("n", n)
    temperature = finite_float("temperature", temperature, low=0)
    if temperature == 0:
        raise ValueError("temperature must be > 0")
    rng = as_rng("rng", rng)
    try:
        ids = encode(prefix)
    except KeyError as err:
        raise KeyError(f"prefix: {err.args[0]}") from None
    eye = np.eye(vocab_size)
    hs = rnn_forward(eye[ids], np.zeros(d_hidden), params["W_h"], params["W_x"], params["b"])
    h, out = hs[-1], []
    for _ in range(n):
        p = softmax((h @ params["W_out"].T + params["b_out"]) / temperature)
        c = int(rng.choice(vocab_size, p=p))
        out.append(c)
        h = rnn_step(eye[c], h, params["W_h"], params["W_x"], params["b"])
    return decode(out)
