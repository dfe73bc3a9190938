"""seqmodels: small, readable numpy models of sequences, used by every chapter of the book.

Modules
-------
One concept per module; a chapter imports the modules it uses, and no module imports another's
private (``_``-prefixed) names.

Models and their gradients:

- ``seqmodels.models.rnn``: the vanilla recurrent network, forward and backpropagation through time.
- ``seqmodels.models.lstm``: the LSTM cell (forget, input, candidate, output gates), forward and BPTT.
- ``seqmodels.models.gru``: the gated recurrent unit (reset, update, candidate), forward and BPTT.
- ``seqmodels.kernels.recurrent``: the batched kernel every experiment trains with: RNN, LSTM and GRU cells of
  many models at once, forward and backward (tested against the three readable modules above).
- ``seqmodels.experiments.lstm.ablation``: an LSTM run with gates clamped or its recurrent read replaced at chosen steps.
- ``seqmodels.models.birnn``: the bidirectional LSTM, a forward and a backward LSTM side by side.
- ``seqmodels.models.bilm``: the ELMo-style bidirectional language model, its loss and gradient.
- ``seqmodels.training.bilm_train``: training biLMs, one seed or several as one batched model; early stopping.
- ``seqmodels.models.elmo``: a token's static and contextual vectors from a biLM, and ELMo's mix of layers.
- ``seqmodels.models.attention``: scaled dot-product and multi-head attention, stacks, KV-cache decoding.
- ``seqmodels.models.pretrained``: all-MiniLM-L6-v2, a pretrained 6-layer Transformer encoder, run in numpy.
- ``seqmodels.models.blocks``: layer normalisation, the feed-forward layer, post- and pre-LN causal blocks.
- ``seqmodels.models.charlm``: a character-level RNN language model (truncated BPTT) and n-gram baselines.

Words as vectors:

- ``seqmodels.models.word2vec``: the word2vec vocabulary and the skip-gram negative-sampling trainer.
- ``seqmodels.common.vectors``: one-hot codes, cosine similarity, nearest neighbours and analogies.
- ``seqmodels.datasets.glove``: the pretrained GloVe 6B 50-d vectors, read from an installed wheel.
- ``seqmodels.experiments.embeddings.pmi``: SGNS as implicit shifted-PMI factorisation: pair counts as training draws them,
  the optimum, and its comparison with trained scores once word frequency is taken out.
- ``seqmodels.experiments.embeddings.offsets``: relations as offsets between word vectors, against the same words mispaired.
- ``seqmodels.datasets.corpus``: Wikipedia text and the analogy questions shipped in the gensim wheel.
- ``seqmodels.datasets.senses``: the generated two-sense "bank" corpus of the bidirectional chapter.

Shared machinery:

- ``seqmodels.common.numeric``: stable sigmoid, log-sigmoid, softmax, log-softmax and cross-entropy; the
  gate nonlinearities and the in-place softmax of the inner loops.
- ``seqmodels.common.optim``: gradient-norm clipping and the Adam optimiser.
- ``seqmodels.training.train``: training any recurrent layer with a classifier head on its final state.
- ``seqmodels.training.pack``: many seeds of one recurrent classifier trained as a single stacked model.
- ``seqmodels.common.projection``: PCA, for drawing high-dimensional vectors in 2-D.
- ``seqmodels.display.plotting``: the book's matplotlib style.
- ``seqmodels.display.cell_diagram``: drawings of the LSTM cell and the GRU cell in the chapter's symbols.
- ``seqmodels.display.tables``: tabular results shown as HTML tables, with units and one format per column.
- ``seqmodels.display.diagrams``: the skip-gram window and its pairs; unrolled recurrent networks (the three
  shapes of use, shared weights).
- ``seqmodels.display.explore``: figures a reader can explore, one pre-drawn SVG per setting of a slider or menu.

Experiments:

- ``seqmodels.experiments.lstm.delay``: the delayed-recall task and the RNN-versus-LSTM memory experiment.
- ``seqmodels.experiments.lstm.agreement``: subject-verb number agreement across distance and attractors.
- ``seqmodels.experiments.bottlenecks.complexity``: dependency graphs, sequential steps, path lengths and FLOP counts.
- ``seqmodels.experiments.production.timing``: timing on one BLAS thread, the timed experiments and ``TIMING_PAGES``.
- ``seqmodels.experiments.bottlenecks.gradient_paths``: gradient norms by distance in time and by depth of a stack.
- ``seqmodels.common.probe``: read-out probes: nearest centroid, logistic regression, scalar mix, ridge.
- ``seqmodels.experiments.pretrained.contextuality``: corrections for contextual cosines (baseline subtracted or rescaled,
  vectors centred or standardised), rogue-dimension contributions, a bootstrap over words.
- ``seqmodels.experiments.bottlenecks.capacity``: what a fixed-size state holds: reading earlier tokens back from a state.
- ``seqmodels.experiments.bottlenecks.comparison``: the five-model comparison table of the bottlenecks chapter.
- ``seqmodels.experiments.production.serving``: published model shapes, KV-cache bytes, FLOPs and bytes per decoding step.

``seqmodels.common._checks`` (private) holds the input checks every module shares.

Conventions
-----------
Written once here; every module follows them, and says so where it departs.

Sizes. ``T`` positions (time steps) of a sequence, ``batch`` sequences side by side, ``d_in`` the
width of an input vector, ``d_hidden`` of a recurrent state (per direction), ``d_model`` of the
vectors an attention stack reads and writes (``d_k``, ``d_v`` of its queries/keys and values),
``vocab`` words or tokens (an integer argument counting them is ``vocab_size``, because ``vocab``
also names a word list), ``n_classes`` labels. ``d`` is a word vector's width (``SGNSConfig.dim``,
the chapter's name), and the one width of experiments that tie ``d_in = d_hidden = d_model = d``.
Cost formulas (:mod:`seqmodels.experiments.bottlenecks.complexity`, ``decode_flops``) count ``n`` tokens, as Vaswani et al.
(2017, Table 1) do; ``n`` is ``T`` there.

Axis order. Recurrent models (``rnn``, ``lstm``, ``birnn``, ``bilm``, ``train``, ``delay``) are
time-major: ``xs`` is ``(T, d_in)`` or ``(T, batch, d_in)`` and states ``hs`` are
``(T, [batch,] d_hidden)``, so ``xs[t]`` is one step. Attention is batch-major, as its literature
is: ``X`` (capitalised, so it cannot be mistaken for ``xs``) is ``(T, d_model)`` or
``(batch, T, d_model)``, attention weights ``A`` are ``([batch,] T, T)``. Token ids follow their
model's order: ``(T, batch)`` for the biLM.

Many models at once. Code that trains several models side by side (seeds, arms, directions) puts
them on a leading model axis ``S`` of every weight, ``(S, out, in)``, and time-major arrays get it
after time: ``xs`` ``(T, [S,] batch, d_in)``, ``hs`` ``(T, S, batch, d_hidden)``
(:mod:`seqmodels.kernels.recurrent`, ``stacked``, ``bilm``). Every recurrent cell that trains runs in
:mod:`seqmodels.kernels.recurrent`; ``rnn``, ``lstm`` and ``gru`` are the readable references it is tested
against, and no other module writes a cell's step of its own except ``ablation``, whose point is
to intervene inside the LSTM's step. The numerical primitives (sigmoid, softmax, their logs, the
cross-entropy) are :mod:`seqmodels.common.numeric`'s; a trailing underscore (``softmax_``,
``packed_cross_entropy_``) marks the unchecked or in-place form for inner loops.

Weight layout. Recurrent weights are ``(out, in)`` and multiply from the right transposed,
``h @ W_h.T`` (so one line serves one sequence and a batch). Attention weights are ``(in, out)``,
``X @ W_q``, the convention of Vaswani et al. (2017). The read-out from a state to logits is
``W_out`` of shape ``(n_out, d_hidden)`` with ``b_out``, ``logits = h @ W_out.T + b_out``
(``train``, ``bilm``); attention's read-out, in its own layout ``(d_model, vocab)``, is
``W_unembed``. word2vec keeps its paper's names: ``W_in`` (word vectors) and ``W_out`` (context
vectors), both ``(vocab, d)``. Gradients are named ``d`` + the name (``dW_h``, ``dxs``), and a
backward pass returns them in a dict keyed by the argument's name.

Initialisation. ``init_*(<sizes>, rng, *, <options>)``: the sizes first, then ``rng`` (a
``numpy.random.Generator`` or an int seed), then keyword-only options such as
``spectral_radius`` or ``forget_bias``. Experiments take a ``seed`` and derive every generator
from it.

Errors. One exception per mistake. Bad values, types and shapes raise ``ValueError`` naming the
argument and what was expected, and so does an option outside its allowed set (``kind="GRU"``
where the kinds are ``"rnn"``, ``"lstm"``; an unknown ``model``, ``method``, ``direction``,
``shape``, gate or format): the choices are fixed by the code. ``KeyError`` is only for a key
looked up in a table of data that lacks it: a word or character not in a vocabulary, an entry
missing from a dict of parameters, gradients or config, a file an installed package does not
ship, an arm a result did not run. Lists are accepted where an array is expected and the meaning
is unambiguous. Each validating function has a "Raises" section saying what it rejects; config
dataclasses validate in ``__post_init__``.
"""

__version__ = "0.1.0"
