"""seqmodels: small, readable numpy models of sequences, used by every chapter of the book.

One concept per module:

- ``seqmodels.rnn``: the vanilla recurrent network, forward and backpropagation through time.
- ``seqmodels.linalg``: PCA projections for figures, norms and Jacobian helpers.
- ``seqmodels.plotting``: the book's matplotlib style (light and dark mode, reproducible SVG).
"""

__version__ = "0.1.0"
