"""seqmodels.models.rnn.gradient_decay with a burn-in: the measured window starts from the settled state."""

from __future__ import annotations

import numpy as np
import pytest

from seqmodels.models.rnn import gradient_decay, init_rnn, rnn_forward, state_jacobian_norms


def test_burn_in_zero_is_the_default():
    np.testing.assert_array_equal(gradient_decay([0.9], T=8, n_sequences=2),
                                  gradient_decay([0.9], T=8, n_sequences=2, burn_in=0))


def test_burn_in_measures_the_last_T_steps_of_a_longer_sequence():
    T, burn, d_in, d_hidden = 6, 10, 3, 5
    curve = gradient_decay([1.2], T=T, d_in=d_in, d_hidden=d_hidden, n_sequences=1, burn_in=burn)
    rng = np.random.default_rng([0, 0, 0])
    W_h, W_x, b = init_rnn(d_in, d_hidden, rng, spectral_radius=1.2, input_scale=0.1)
    xs = rng.normal(size=(burn + T, d_in))
    h_start = rnn_forward(xs[:burn], np.zeros(d_hidden), W_h, W_x, b)[-1]
    expected = state_jacobian_norms(xs[burn:], h_start, W_h, W_x, b)
    np.testing.assert_allclose(curve[0], expected, rtol=1e-12)


@pytest.mark.parametrize("bad", [-1, 1.5, True, "10"])
def test_bad_burn_in(bad):
    with pytest.raises(ValueError, match="burn_in"):
        gradient_decay([0.5], T=4, n_sequences=1, burn_in=bad)
