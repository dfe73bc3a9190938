"""seqmodels.models.elmo: token vectors against bilm_states, shared prefixes bit for bit, the scalar mix."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from seqmodels.models.bilm import bilm_states
from seqmodels.models.elmo import TokenVectors, elmo_mix, token_vectors
from test_bilm import make_bilm


def test_token_vectors_pick_the_right_rows_across_lengths():
    params, _ = make_bilm(6, 2)
    seqs = [np.array([0, 3, 2, 1]), np.array([0, 4, 5, 2, 1]), np.array([0, 2, 6, 1])]
    positions = [2, 3, 1]
    tv = token_vectors(params, seqs, positions)
    assert tv.forward.shape == (2, 3, 4) and tv.static.shape == (3, 3)
    for n, (seq, pos) in enumerate(zip(seqs, positions)):
        np.testing.assert_allclose(tv.static[n], params["E"][2])
        for layer, h in enumerate(bilm_states(params, seq)):
            np.testing.assert_allclose(tv.concat[layer, n], h[pos], atol=1e-14)


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 2), st.lists(st.lists(st.integers(2, 6), min_size=0, max_size=4), min_size=2, max_size=9),
       st.integers(0, 2**32 - 1))
def test_token_vectors_share_a_prefix_bit_for_bit(n_layers, rights, seed):
    """Sentences with the same words up to the token get identical forward vectors, and the same
    words from it on identical backward vectors, whatever else is in the call (by construction:
    each distinct prefix and suffix is computed once); all agree with bilm_states."""
    params, rng = make_bilm(seed, n_layers)
    left = [int(w) for w in rng.integers(2, 7, size=2)]
    seqs = [np.array([0, *left, 3, *right, 1]) for right in rights]  # the token 3 at position 3
    seqs.append(np.array([0, 5, 3, *rights[0], 1]))  # another prefix, the first one's suffix
    positions = [3] * len(rights) + [2]
    tv = token_vectors(params, seqs, positions)
    for n in range(len(rights)):
        np.testing.assert_array_equal(tv.forward[:, n], tv.forward[:, 0])
        for layer, h in enumerate(bilm_states(params, seqs[n])):
            np.testing.assert_allclose(tv.concat[layer, n], h[3], rtol=0, atol=1e-14)
    np.testing.assert_array_equal(tv.backward[:, -1], tv.backward[:, 0])
    assert not np.allclose(tv.forward[:, -1], tv.forward[:, 0])


def test_elmo_mix_weights_are_a_softmax_and_layers_need_matching_sizes():
    layers = np.random.default_rng(0).normal(size=(3, 5, 4))
    mixed = elmo_mix(layers, np.array([0.0, np.log(3.0), 0.0]), gamma=2.0)
    np.testing.assert_allclose(mixed, 2.0 * (layers[0] + 3 * layers[1] + layers[2]) / 5)
    np.testing.assert_allclose(elmo_mix(layers, np.array([50.0, 0.0, 0.0])), layers[0], atol=1e-20)
    tv = TokenVectors(np.zeros((5, 2)), np.zeros((1, 5, 2)), np.ones((1, 5, 2)))
    assert tv.layers().shape == (2, 5, 4)
    with pytest.raises(ValueError, match=r"d_embed must equal d_hidden, got d_embed=3, d_hidden=2"):
        TokenVectors(np.zeros((5, 3)), np.zeros((1, 5, 2)), np.ones((1, 5, 2))).layers()
    with pytest.raises(ValueError, match=r"w must have shape \(n_layers \+ 1,\) = \(3,\), got \(2,\)"):
        elmo_mix(layers, np.zeros(2))
