r"""Token vectors from a biLM and ELMo's mix of its layers.

A trained biLM (:mod:`seqmodels.models.bilm`) gives every token of a sentence several representations:
the static embedding row ``E[id]``, the same wherever the word occurs, and at each layer ``l`` the
forward state (the left context and the token) and the backward state (the right context and the
token), side by side ``[hf, hb]``. :func:`token_vectors` reads them for one chosen token per
sentence, and :meth:`TokenVectors.layers` stacks them the way ELMo does, layer 0 being ``[x, x]``.

ELMo (Peters et al. 2018, eq. 1) hands a downstream task one vector per token, a learned mix of
the layers::

    ELMo_k = gamma * sum_j softmax(w)_j * h[k, j]       # j = 0 .. L over the layers of token k

which :func:`elmo_mix` computes for given ``w`` and ``gamma``; a downstream task learns them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from seqmodels.common._checks import as_float_array, as_token_ids, check_shape, finite_float
from seqmodels.models.bilm import Params, bilm_sizes, direction_states, n_layers_of
from seqmodels.common.numeric import softmax


@dataclass(frozen=True)
class TokenVectors:
    """The representations of one chosen token in each of ``N`` sentences.

    Attributes
    ----------
    static : ndarray of shape (N, d_embed), the embedding row: the same for every occurrence
    forward : ndarray of shape (n_layers, N, d_hidden), forward states (left context and the token)
    backward : ndarray of shape (n_layers, N, d_hidden), backward states (right context and the token)

    Raises
    ------
    ValueError
        ``forward`` not a finite 3-D array, ``backward`` not shaped like it or not finite, ``static``
        not a finite ``(N, d_embed)`` array with ``forward``'s ``N``.
    """

    static: np.ndarray
    forward: np.ndarray
    backward: np.ndarray

    def __post_init__(self):
        forward = as_float_array("forward", self.forward, ndims=(3,))
        check_shape("backward", as_float_array("backward", self.backward, ndims=(3,)), forward.shape,
                    "(n_layers, N, d_hidden) like forward")
        static = as_float_array("static", self.static, ndims=(2,))
        if static.shape[0] != forward.shape[1]:
            raise ValueError(f"static must have shape (N, d_embed) with N = {forward.shape[1]}, got {static.shape}")

    @property
    def concat(self) -> np.ndarray:
        """``[forward, backward]`` per layer, shape (n_layers, N, 2 * d_hidden)."""
        return np.concatenate([self.forward, self.backward], axis=-1)

    def layers(self) -> np.ndarray:
        """ELMo's stack of representations, shape (n_layers + 1, N, 2 * d_hidden): layer 0 is the
        static vector repeated for both directions, ``[x, x]`` (needs ``d_embed == d_hidden``),
        layers 1.. are :attr:`concat`.

        Raises
        ------
        ValueError
            ``d_embed`` (the width of ``static``) unlike ``d_hidden`` (of ``forward``): layer 0,
            ``[x, x]``, must be as wide as the others.
        """
        if self.static.shape[1] != self.forward.shape[2]:
            raise ValueError("layer 0 is [x, x], so d_embed must equal d_hidden, got "
                             f"d_embed={self.static.shape[1]}, d_hidden={self.forward.shape[2]}")
        return np.concatenate([np.concatenate([self.static] * 2, axis=-1)[None], self.concat])


def token_vectors(params: Params, sequences, positions) -> TokenVectors:
    """Static and contextual vectors of the token at ``positions[n]`` of ``sequences[n]``.

    ``positions`` index the id arrays, which start with ``<s>``: the word ``words[k]`` of a
    sentence sits at position ``k + 1``.

    The forward state at position ``p`` is a function of ``seq[:p + 1]`` only, and the backward
    state of ``seq[p:]`` only. So each distinct prefix runs once through the forward stack and each
    distinct suffix once through the backward stack (prefixes of equal length as one batch, so
    nothing is padded), and sentences that share a prefix get the same forward vector bit for bit.
    Computed separately, say as rows of different batches, they would agree only up to rounding:
    a BLAS kernel may round a row differently by its place in the batch.

    Raises
    ------
    ValueError
        ``params`` as :func:`seqmodels.models.bilm.bilm_sizes` refuses them; ``sequences`` empty, or a member
        that is not a 1-D array of at least 2 ids in ``[0, vocab)``; ``positions`` not one integer per
        sequence, each in ``0 .. len(sequence) - 1``.
    KeyError
        an entry missing from ``params``.

    >>> from seqmodels.models.bilm import BiLMConfig, init_bilm
    >>> p = init_bilm(6, BiLMConfig(d_embed=3, d_hidden=4), np.random.default_rng(0))
    >>> tv = token_vectors(p, [np.array([0, 3, 2, 1]), np.array([0, 3, 2, 5, 1])], [2, 2])
    >>> tv.static.shape, tv.forward.shape, tv.concat.shape
    ((2, 3), (1, 2, 4), (1, 2, 8))
    >>> bool(np.array_equal(tv.forward[0, 0], tv.forward[0, 1]))  # the same words up to position 2
    True
    >>> bool(np.allclose(tv.backward[0, 0], tv.backward[0, 1]))  # different words after it
    False
    """
    V, H = bilm_sizes(params)
    sequences, positions = list(sequences), list(positions)
    if len(sequences) != len(positions):
        raise ValueError(f"positions must have one entry per sequence ({len(sequences)}), got {len(positions)}")
    if len(sequences) == 0:
        raise ValueError("sequences must hold at least one sentence, got none")
    checked = []
    for n, seq in enumerate(sequences):
        seq = as_token_ids(f"sequences[{n}]", seq, V)
        if seq.ndim != 1:
            raise ValueError(f"sequences[{n}] must be a 1-D id array, got shape {seq.shape}")
        if isinstance(positions[n], (bool, np.bool_)) or not isinstance(positions[n], (int, np.integer)) \
                or not 0 <= positions[n] < len(seq):
            raise ValueError(f"positions[{n}] must lie in 0 .. {len(seq) - 1}, got {positions[n]}")
        checked.append(seq)
    # What each direction reads, in its own reading order, up to and including the token.
    read = {"fwd": [tuple(seq[:p + 1].tolist()) for seq, p in zip(checked, positions)],
            "bwd": [tuple(seq[p:][::-1].tolist()) for seq, p in zip(checked, positions)]}
    halves = {}
    for direction, pieces in read.items():
        distinct = list(dict.fromkeys(pieces))  # first-occurrence order: no dependence on hashing
        states = np.empty((n_layers_of(params), len(distinct), H))
        by_length: dict[int, list[int]] = {}
        for k, piece in enumerate(distinct):
            by_length.setdefault(len(piece), []).append(k)
        for members in by_length.values():
            ids = np.array([distinct[k] for k in members]).T  # (length, n), reading order
            for layer, h in enumerate(direction_states(params, direction, ids)):  # (length, n, H)
                states[layer, members] = h[-1]  # the state after reading the token
        row = {piece: k for k, piece in enumerate(distinct)}
        halves[direction] = states[:, [row[piece] for piece in pieces]]  # (L, N, H)
    static = params["E"][[seq[p] for seq, p in zip(checked, positions)]]
    return TokenVectors(static, halves["fwd"], halves["bwd"])


def elmo_mix(layers, w, gamma: float = 1.0) -> np.ndarray:
    r"""ELMo's task-specific combination of the layers, ``gamma * sum_j softmax(w)_j * layers[j]``.

    Peters et al. (2018, eq. 1): :math:`\mathrm{ELMo}_k = \gamma \sum_{j=0}^{L} s_j h_{k,j}` with
    ``s = softmax(w)``; a downstream task learns ``w`` and ``gamma``.

    Parameters
    ----------
    layers : ndarray of shape (L + 1, ..., D), e.g. :meth:`TokenVectors.layers`
    w : ndarray of shape (L + 1,), unnormalised layer weights
    gamma : float, overall scale

    Raises
    ------
    ValueError
        ``layers`` not a finite array of 2 to 7 dimensions, ``w`` not a finite vector of one weight
        per layer, ``gamma`` not a finite number.

    >>> layers = np.array([[[1.0, 0.0]], [[0.0, 1.0]]])  # 2 layers, 1 token, D = 2
    >>> elmo_mix(layers, np.zeros(2))  # equal weights: the average
    array([[0.5, 0.5]])
    """
    layers = as_float_array("layers", layers, ndims=tuple(range(2, 8)))
    w = as_float_array("w", w, ndims=(1,))
    check_shape("w", w, (layers.shape[0],), "(n_layers + 1,)")
    gamma = finite_float("gamma", gamma)
    return gamma * np.tensordot(softmax(w), layers, axes=1)
