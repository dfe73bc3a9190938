"""seqmodels: small, readable numpy models of sequences, used by every chapter of the book.

One concept per module:

- ``seqmodels.rnn``: the vanilla recurrent network, forward and backpropagation through time.
- ``seqmodels.lstm``: the LSTM cell (forget, input, candidate, output gates), forward and BPTT.
- ``seqmodels.train``: training shared by every recurrent model (softmax head, Adam, clipping).
- ``seqmodels.delay``: the delayed-recall task and the RNN-versus-LSTM memory experiment.
- ``seqmodels.linalg``: PCA projections for figures, norms and Jacobian helpers.
- ``seqmodels.plotting``: the book's matplotlib style (light and dark mode, reproducible SVG).
- ``seqmodels.pretrained``: all-MiniLM-L6-v2, a pretrained 6-layer Transformer encoder, run in numpy.
"""

__version__ = "0.1.0"
