"""Every public function and class of seqmodels meets bad input with a clear error.

The package is walked by introspection (every module, every public function, class and method
defined there), and each one must have at least one case below or an entry in ``NO_INPUT`` saying
why it has nothing to get wrong; a new public function without a case fails
:func:`test_every_public_callable_has_a_bad_input_case`. Each case must raise ``ValueError`` (an
option outside its allowed set included), or ``KeyError`` for a key a table of data lacks (the
rule is stated once, in the Conventions of ``seqmodels/__init__.py``), whose message names the
argument as a whole word, within
a time limit (so a hang fails rather than stalls the suite); returning anything, a NaN or an inf
included, fails.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import importlib
import inspect
import pkgutil
import re
import signal

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import seqmodels  # noqa: E402
from seqmodels.display import tables  # noqa: E402
from seqmodels.models import attention, birnn, blocks, charlm, lstm, pretrained, rnn, word2vec  # noqa: E402
from seqmodels.experiments.bottlenecks import capacity, comparison, complexity, gradient_paths  # noqa: E402
from seqmodels.datasets import corpus, senses  # noqa: E402
from seqmodels.experiments.lstm import delay  # noqa: E402
from seqmodels.display import diagrams, explore, plotting  # noqa: E402
from seqmodels.common import clock, numeric, optim, probe, projection, statistics, vectors  # noqa: E402
from seqmodels.experiments.production import serving, timing  # noqa: E402
from seqmodels.training import train  # noqa: E402
from seqmodels.models import bilm, elmo  # noqa: E402
from seqmodels.training import bilm_train  # noqa: E402
from seqmodels.experiments.lstm import ablation, agreement, paths  # noqa: E402
from seqmodels.display import cell_diagram  # noqa: E402
from seqmodels.models import gru  # noqa: E402
from seqmodels.kernels import recurrent  # noqa: E402
from seqmodels.training import pack  # noqa: E402
from seqmodels.experiments.pretrained import contextuality  # noqa: E402
from seqmodels.experiments.embeddings import offsets, pmi  # noqa: E402

NAN, INF = float("nan"), float("inf")
TIME_LIMIT = 30  # seconds per case; every case should fail in well under one


def public_callables() -> dict[str, object]:
    """``"module.name"`` (and ``"module.Class.method"``) -> object, for everything public that
    a module of seqmodels defines itself (re-exported names belong to the module defining them)."""
    found = {}
    for info in pkgutil.walk_packages(seqmodels.__path__, "seqmodels."):
        leaf = info.name.rpartition(".")[2]  # unique across the layers (tests/test_package.py)
        if info.ispkg or any(part.startswith("_") for part in info.name.split(".")):
            continue
        module = importlib.import_module(info.name)
        for name, obj in vars(module).items():
            if name.startswith("_") or not callable(obj) or getattr(obj, "__module__", None) != module.__name__:
                continue
            found[f"{leaf}.{name}"] = obj
            if inspect.isclass(obj):
                for attr, member in vars(obj).items():
                    if not attr.startswith("_") and (inspect.isfunction(member)
                                                     or isinstance(member, (classmethod, staticmethod))):
                        found[f"{leaf}.{name}.{attr}"] = getattr(obj, attr)
    return found


#: Public callables with no input a caller could get wrong, and why.
NO_INPUT = {
    "corpus.wikipedia_articles": "takes no arguments",
    "corpus.wikipedia_tokens": "takes no arguments",
    "corpus.analogy_questions": "takes no arguments",
    "glove.load_glove": "takes no arguments",
    "attention.KVCache.n_numbers": "takes no arguments",
    "word2vec.SGNSResult.vectors": "one flag; any truthy value selects the initial vectors",
    # Records that a function of the package returns; their fields are what it computed.
    "train.Trained": "record returned by train_classifier",
    "bilm_train.TrainedBiLM": "record returned by train_bilm",
    "probe.ScalarMix": "record returned by scalar_mix_probe",
    "probe.ScalarMixes": "record returned by scalar_mix_probes",
    "word2vec.SGNSResult": "record returned by train_sgns",
    "senses.Corpus": "record returned by make_corpus",
    "pretrained.Encoding": "record returned by MiniLM.encode",
    "pretrained.load_minilm": "takes no arguments",
    "pretrained.model_zip_path": "takes no arguments",
    "pretrained.BertConfig.n_parameters": "takes no arguments",
    "pretrained.MiniLM.n_parameters": "takes no arguments",
    # Exception classes are raised by the package, not called with a reader's input.
    "pretrained.ModelFilesError": "exception raised when the model's files are missing or altered",
    "charlm.CharLMResult": "record returned by train_charlm",
    "agreement.AgreementResult": "record returned by agreement_experiment",
    "cell_diagram.CellDrawing": "record returned by draw_lstm_cell and draw_gru_cell",
    "cell_diagram.Node": "record of one node of a CellDrawing",
    "delay.ArmsResult": "record returned by arms_experiment",
    "delay.ArmsResult.final": "takes no arguments",
    "delay.ArmsResult.solved": "takes no arguments",
    "delay.ArmsResult.table": "takes no arguments",
    "delay.ArmsResult.solved_table": "takes no arguments",
    "delay.ArmsResult.steps_table": "takes no arguments",
    "delay.ArmsResult.ran": "takes no arguments",
    "pack.PackRun": "record returned by train_arms",
    "pack.StepsToSolve": "mixin of the experiments' result records (no __init__ of its own)",
    "pack.StepsToSolve.median_steps_to_solve": "takes no arguments",
    "pack.StepsToSolve.n_censored": "takes no arguments",
    "recurrent.Pass": "record returned by recurrent.forward",
    "recurrent.Pass.h_last": "takes no arguments",
    "pack.Arm.cell": "takes no arguments",
    "explore.State": "record made by explorable",
    "explore.Explorable": "record returned by explorable",
    "explore.Explorable.html": "takes no arguments",
}

# --- small valid arguments ---------------------------------------------------------------------

W_h, W_x, b_rnn = rnn.init_rnn(3, 4, 0, spectral_radius=0.9)
W_lstm, b_lstm = lstm.init_lstm(3, 4, 0)
ATT = attention.init_attention(4, 4, 4, 0)
E5, W_UN = np.random.default_rng(1).normal(size=(5, 4)), np.random.default_rng(2).normal(size=(4, 5))
BILM = bilm.init_bilm(6, bilm.BiLMConfig(d_embed=3, d_hidden=4), 0)
IDS = np.array([0, 3, 2, 1])
_SEEDS = {k: np.stack([v, v]) for k, v in BILM.items()}  # two biLMs packed (seeds_loss_and_grads)
EMB = vectors.WordVectors(["cat", "kitten", "car", "Paris"],
                          np.array([[1.0, 0.1], [0.9, 0.2], [0.0, 1.0], [0.5, 0.5]]))
VOCAB = word2vec.build_vocabulary([["a", "b", "a", "c"]], min_count=1)
XS = np.random.default_rng(3).normal(size=(5, 2, 3))  # (T, batch, d_in)
RNN_PARAMS = train.init_classifier(train.RNN, 3, 2, 4, 0)
SENT = senses.make_corpus().train[0]
GRAPH = complexity.dependency_graph("RNN", 3)


def _sample(rng, n):
    xs = rng.normal(size=(3, n, 1))
    return xs, (xs[0, :, 0] > 0).astype(int)


def _tv(static=(2, 3), fwd=(1, 2, 4)):
    return elmo.TokenVectors(np.zeros(static), np.zeros(fwd), np.zeros(fwd))


# --- the cases: (callable, what is wrong, argument the message must name, thunk, exception) ------

CASES: list[tuple[str, str, str, object, type]] = []


def case(target: str, label: str, arg: str, thunk, exc: type = ValueError) -> None:
    CASES.append((target, label, arg, thunk, exc))


# tables
case("clock.interleaved_best", "no functions", "fns", lambda: clock.interleaved_best({}, 1))
case("clock.interleaved_best", "not callable", "fns", lambda: clock.interleaved_best({"a": 3}, 1))
case("clock.interleaved_best", "repeat 0", "repeat", lambda: clock.interleaved_best({"a": lambda: None}, 0))
case("tables.Column", "header not a str", "header", lambda: tables.Column(3))
case("tables.Column", "bad format spec", "fmt", lambda: tables.Column("loss", fmt=".2q"))
case("tables.Table", "columns not Columns", "columns", lambda: tables.Table(["a"], [], ""))
case("tables.Table", "a cell missing", "cells", lambda: tables.Table([tables.Column("a")], [[]], ""))
case("tables.result_table", "no rows", "rows", lambda: tables.result_table([], ["a"]))
case("tables.result_table", "no columns", "columns", lambda: tables.result_table([(1,)], []))
case("tables.result_table", "row too long", "rows", lambda: tables.result_table([(1, 2)], ["a"]))
case("tables.result_table", "NaN cell", "rows", lambda: tables.result_table([(NAN,)], [tables.Column("x", fmt=".2f")]))
case("tables.result_table", "object cell", "rows", lambda: tables.result_table([(object(),)], ["x"]))

# recurrent
_KW, _KB = np.zeros((2, 8, 5)), np.zeros((2, 8))  # two LSTMs, d_in 3, d_hidden 2
_KX = np.zeros((4, 3, 3))  # T 4, batch 3, d_in 3
case("recurrent.forward", "unknown kind", "kind", lambda: recurrent.forward("transformer", _KW, _KB, _KX))
case("recurrent.forward", "W rows no multiple of 3 for a GRU", "W", lambda: recurrent.forward("gru", _KW, _KB, _KX))
case("recurrent.forward", "NaN in W", "W", lambda: recurrent.forward("lstm", np.full((2, 8, 5), NAN), _KB, _KX))
case("recurrent.forward", "b of the wrong length", "b", lambda: recurrent.forward("lstm", _KW, _KB[:, :7], _KX))
case("recurrent.forward", "xs of another width", "xs", lambda: recurrent.forward("lstm", _KW, _KB, _KX[..., :2]))
case("recurrent.forward", "empty sequence", "xs", lambda: recurrent.forward("lstm", _KW, _KB, np.zeros((0, 3, 3))))
case("recurrent.forward", "inputs for three models, two models", "xs",
     lambda: recurrent.forward("lstm", _KW, _KB, np.zeros((4, 3, 3, 3))))
case("recurrent.backward", "not a Pass", "p", lambda: recurrent.backward({"W": _KW}, dh_last=np.zeros((2, 3, 2))))
case("recurrent.backward", "a pass without keep", "p",
     lambda: recurrent.backward(recurrent.forward("lstm", _KW, _KB, _KX, keep=False, tag="bad"),
                                dh_last=np.zeros((2, 3, 2))))
case("recurrent.backward", "neither dhs nor dh_last", "dhs",
     lambda: recurrent.backward(recurrent.forward("lstm", _KW, _KB, _KX, tag="bad")))
case("recurrent.backward", "dhs of the wrong shape", "dhs",
     lambda: recurrent.backward(recurrent.forward("lstm", _KW, _KB, _KX, tag="bad"), dhs=np.zeros((4, 2, 3, 3))))
case("recurrent.backward", "inf in dh_last", "dh_last",
     lambda: recurrent.backward(recurrent.forward("lstm", _KW, _KB, _KX, tag="bad"), dh_last=np.full((2, 3, 2), INF)))
case("recurrent.Pass.states", "a pass without keep", "keep",
     lambda: recurrent.forward("lstm", _KW, _KB, _KX, keep=False, tag="bad").states())

# numeric
case("numeric.sigmoid", "NaN", "z", lambda: numeric.sigmoid([0.0, NAN]))
case("numeric.sigmoid_from_tanh", "a list", "t", lambda: numeric.sigmoid_from_tanh([0.5]))
case("numeric.sigmoid_of_half", "integers", "a", lambda: numeric.sigmoid_of_half(np.arange(3)))
case("numeric.softmax_", "a list", "s", lambda: numeric.softmax_([0.0, 1.0]))
case("numeric.packed_cross_entropy_", "2-D logits", "logits", lambda: numeric.packed_cross_entropy_(np.zeros((2, 3)), np.zeros(2, int)))
case("numeric.workspace", "zero bytes", "max_bytes", lambda: numeric.workspace(0))
case("numeric.workspace", "a string", "max_bytes", lambda: numeric.workspace("1"))
case("numeric.sigmoid", "object dtype", "z", lambda: numeric.sigmoid(np.array([1, "a"], dtype=object)))
case("numeric.log_sigmoid", "inf", "z", lambda: numeric.log_sigmoid([INF]))
case("numeric.log_sigmoid", "strings", "z", lambda: numeric.log_sigmoid(["1"]))
case("numeric.softmax", "all masked", "scores", lambda: numeric.softmax([-INF, -INF]))
case("numeric.softmax", "NaN", "scores", lambda: numeric.softmax([0.0, NAN]))
case("numeric.softmax", "+inf", "scores", lambda: numeric.softmax([0.0, INF]))
case("numeric.softmax", "axis out of range", "axis", lambda: numeric.softmax(np.zeros((2, 3)), axis=2))
case("numeric.softmax", "empty", "scores", lambda: numeric.softmax(np.zeros((2, 0))))
case("numeric.log_softmax", "NaN", "scores", lambda: numeric.log_softmax([NAN, 1.0]))
case("numeric.log_softmax", "object dtype", "scores", lambda: numeric.log_softmax(np.array([None, 1.0])))
case("numeric.softmax_cross_entropy", "labels (B, 1)", "labels",
     lambda: numeric.softmax_cross_entropy(np.zeros((2, 3)), np.zeros((2, 1), int)))
case("numeric.softmax_cross_entropy", "float labels", "labels",
     lambda: numeric.softmax_cross_entropy(np.zeros((2, 3)), [0.0, 1.0]))
case("numeric.softmax_cross_entropy", "negative label", "labels",
     lambda: numeric.softmax_cross_entropy(np.zeros((2, 3)), [0, -1]))
case("numeric.softmax_cross_entropy", "empty batch", "logits",
     lambda: numeric.softmax_cross_entropy(np.zeros((0, 3)), np.zeros(0, int)))
case("numeric.softmax_cross_entropy", "NaN logits", "logits",
     lambda: numeric.softmax_cross_entropy([[0.0, NAN]], [0]))

# rnn
case("rnn.rnn_step", "x_t of the wrong width", "x_t", lambda: rnn.rnn_step(np.zeros(2), np.zeros(4), W_h, W_x, b_rnn))
case("rnn.rnn_step", "NaN state", "h_prev", lambda: rnn.rnn_step(np.zeros(3), [NAN] * 4, W_h, W_x, b_rnn))
case("rnn.rnn_step", "W_h not square", "W_h", lambda: rnn.rnn_step(np.zeros(3), np.zeros(4), W_h[:3], W_x, b_rnn))
case("rnn.rnn_step", "b of the wrong length", "b", lambda: rnn.rnn_step(np.zeros(3), np.zeros(4), W_h, W_x, b_rnn[:3]))
case("rnn.rnn_forward", "empty sequence", "xs", lambda: rnn.rnn_forward(np.zeros((0, 3)), np.zeros(4), W_h, W_x, b_rnn))
case("rnn.rnn_forward", "zero batch", "xs", lambda: rnn.rnn_forward(np.zeros((2, 0, 3)), np.zeros((0, 4)), W_h, W_x, b_rnn))
case("rnn.rnn_forward", "1-D xs", "xs", lambda: rnn.rnn_forward(np.zeros(3), np.zeros(4), W_h, W_x, b_rnn))
case("rnn.rnn_forward", "int W_x object", "W_x",
     lambda: rnn.rnn_forward(np.zeros((2, 3)), np.zeros(4), W_h, W_x.astype(object), b_rnn))
case("rnn.rnn_forward", "batched h0 for one sequence", "h0",
     lambda: rnn.rnn_forward(np.zeros((2, 3)), np.zeros((1, 4)), W_h, W_x, b_rnn))
case("rnn.rnn_backward", "dhs of the wrong shape", "dhs",
     lambda: rnn.rnn_backward(np.zeros((2, 3)), np.zeros(4), W_h, W_x, b_rnn, np.zeros((3, 4))))
case("rnn.rnn_backward", "NaN dhs", "dhs",
     lambda: rnn.rnn_backward(np.zeros((1, 3)), np.zeros(4), W_h, W_x, b_rnn, [[NAN] * 4]))
case("rnn.state_jacobian_norms", "batched xs", "xs",
     lambda: rnn.state_jacobian_norms(XS, np.zeros((2, 4)), W_h, W_x, b_rnn))
case("rnn.state_jacobian_norms", "inf input", "xs",
     lambda: rnn.state_jacobian_norms([[INF, 0, 0]], np.zeros(4), W_h, W_x, b_rnn))
case("rnn.init_rnn", "input_scale NaN", "input_scale", lambda: rnn.init_rnn(3, 4, 0, spectral_radius=1, input_scale=NAN))
case("rnn.init_rnn", "spectral_radius < 0", "spectral_radius", lambda: rnn.init_rnn(3, 4, 0, spectral_radius=-1))
case("rnn.init_rnn", "d_hidden 2.5", "d_hidden", lambda: rnn.init_rnn(3, 2.5, 0, spectral_radius=1))
case("rnn.init_rnn", "d_in 0", "d_in", lambda: rnn.init_rnn(0, 4, 0, spectral_radius=1))
case("rnn.init_rnn", "rng a string", "rng", lambda: rnn.init_rnn(3, 4, "seed", spectral_radius=1))
case("rnn.gradient_decay", "no radii", "radii", lambda: rnn.gradient_decay([]))
case("rnn.gradient_decay", "NaN radius", "radii", lambda: rnn.gradient_decay([0.5, NAN], T=3))
case("rnn.gradient_decay", "T = 0", "T", lambda: rnn.gradient_decay([0.5], T=0))
case("rnn.gradient_decay", "rows beyond radii", "rows", lambda: rnn.gradient_decay([0.5], T=3, rows=[1]))
case("rnn.gradient_decay", "rows empty", "rows", lambda: rnn.gradient_decay([0.5], T=3, rows=[]))
case("rnn.gradient_decay", "input_seed negative", "input_seed", lambda: rnn.gradient_decay([0.5], T=3, input_seed=-1))
case("rnn.gradient_decay", "n_sequences 2.5", "n_sequences", lambda: rnn.gradient_decay([0.5], n_sequences=2.5))

# lstm
case("lstm.lstm_step", "x_t of the wrong width", "x_t",
     lambda: lstm.lstm_step(np.zeros(2), np.zeros(4), np.zeros(4), W_lstm, b_lstm))
case("lstm.lstm_step", "NaN cell", "c_prev",
     lambda: lstm.lstm_step(np.zeros(3), np.zeros(4), [NAN] * 4, W_lstm, b_lstm))
case("lstm.lstm_step", "W with 4 d_hidden + 1 rows", "W",
     lambda: lstm.lstm_step(np.zeros(3), np.zeros(4), np.zeros(4), np.zeros((17, 7)), b_lstm))
case("lstm.lstm_step", "b of the wrong length", "b",
     lambda: lstm.lstm_step(np.zeros(3), np.zeros(4), np.zeros(4), W_lstm, b_lstm[:4]))
case("lstm.lstm_forward", "empty sequence", "xs",
     lambda: lstm.lstm_forward(np.zeros((0, 3)), np.zeros(4), np.zeros(4), W_lstm, b_lstm))
case("lstm.lstm_forward", "zero batch", "xs",
     lambda: lstm.lstm_forward(np.zeros((2, 0, 3)), np.zeros((0, 4)), np.zeros((0, 4)), W_lstm, b_lstm))
case("lstm.lstm_forward", "h0 for another batch", "h0",
     lambda: lstm.lstm_forward(XS, np.zeros((3, 4)), np.zeros((2, 4)), W_lstm, b_lstm))
case("lstm.lstm_backward", "dhs of the wrong shape", "dhs",
     lambda: lstm.lstm_backward(np.zeros((2, 3)), np.zeros(4), np.zeros(4), W_lstm, b_lstm, np.zeros((2, 3))))
case("lstm.lstm_backward", "NaN dcs", "dcs",
     lambda: lstm.lstm_backward(np.zeros((1, 3)), np.zeros(4), np.zeros(4), W_lstm, b_lstm, np.zeros((1, 4)),
                                dcs=[[NAN] * 4]))
case("lstm.lstm_backward_paths", "dhs of the wrong shape", "dhs",
     lambda: lstm.lstm_backward_paths(np.zeros((2, 3)), np.zeros(4), np.zeros(4), W_lstm, b_lstm, np.zeros((2, 3))))
case("lstm.init_lstm", "forget_bias NaN", "forget_bias", lambda: lstm.init_lstm(3, 4, 0, forget_bias=NAN))
case("lstm.init_lstm", "d_hidden 2.5", "d_hidden", lambda: lstm.init_lstm(3, 2.5, 0))
case("lstm.init_lstm", "d_in 0", "d_in", lambda: lstm.init_lstm(0, 4, 0))
case("lstm.init_lstm", "negative seed", "rng", lambda: lstm.init_lstm(3, 4, -1))

# attention
case("attention.causal_mask", "T = 0", "T", lambda: attention.causal_mask(0))
case("attention.causal_mask", "T = 2.5", "T", lambda: attention.causal_mask(2.5))
case("attention.self_attention", "1-D X", "X", lambda: attention.self_attention(np.zeros(4), *ATT))
case("attention.self_attention", "no positions", "X", lambda: attention.self_attention(np.zeros((0, 4)), *ATT))
case("attention.self_attention", "zero batch", "X", lambda: attention.self_attention(np.zeros((0, 3, 4)), *ATT))
case("attention.self_attention", "NaN X", "X", lambda: attention.self_attention([[NAN] * 4], *ATT))
case("attention.self_attention", "d_k = 0", "W_q",
     lambda: attention.self_attention(np.zeros((3, 4)), np.zeros((4, 0)), np.zeros((4, 0)), np.zeros((4, 2))))
case("attention.self_attention", "d_v = 0", "W_v",
     lambda: attention.self_attention(np.zeros((3, 4)), np.zeros((4, 2)), np.zeros((4, 2)), np.zeros((4, 0))))
case("attention.self_attention", "W_q of another width", "W_q",
     lambda: attention.self_attention(np.zeros((3, 4)), np.zeros((3, 4)), ATT[1], ATT[2]))
case("attention.self_attention", "W_k unlike W_q", "W_k",
     lambda: attention.self_attention(np.zeros((3, 4)), ATT[0], np.zeros((4, 2)), ATT[2]))
case("attention.self_attention", "causal not a bool", "causal",
     lambda: attention.self_attention(np.zeros((3, 4)), *ATT, causal="yes"))
case("attention.self_attention_backward", "dout of the wrong shape", "dout",
     lambda: attention.self_attention_backward(np.zeros((3, 4)), *ATT, dout=np.zeros((2, 4))))
case("attention.self_attention_backward", "inf dout", "dout",
     lambda: attention.self_attention_backward(np.zeros((1, 4)), *ATT, dout=[[INF] * 4]))
case("attention.multi_head_attention", "n_heads 3 of d_k 4", "n_heads",
     lambda: attention.multi_head_attention(np.zeros((3, 4)), *ATT, np.eye(4), n_heads=3))
case("attention.multi_head_attention", "n_heads 2.0", "n_heads",
     lambda: attention.multi_head_attention(np.zeros((3, 4)), *ATT, np.eye(4), n_heads=2.0))
case("attention.multi_head_attention", "W_o of the wrong shape", "W_o",
     lambda: attention.multi_head_attention(np.zeros((3, 4)), *ATT, np.zeros((3, 4)), n_heads=2))
case("attention.sinusoidal_positions", "odd d_model", "d_model", lambda: attention.sinusoidal_positions(3, 5))
case("attention.sinusoidal_positions", "T = 0", "T", lambda: attention.sinusoidal_positions(0, 4))
case("attention.sinusoidal_positions", "T = 2.5", "T", lambda: attention.sinusoidal_positions(2.5, 4))
case("attention.init_attention", "d_k 0", "d_k", lambda: attention.init_attention(4, 0, 4, 0))
case("attention.init_attention", "d_model 2.5", "d_model", lambda: attention.init_attention(2.5, 4, 4, 0))
case("attention.init_attention", "rng None", "rng", lambda: attention.init_attention(4, 4, 4, None))
case("attention.attention_stack", "no layers", "layers", lambda: attention.attention_stack(np.zeros((3, 4)), []))
case("attention.attention_stack", "W_v not square", "layers",
     lambda: attention.attention_stack(np.zeros((3, 4)), [attention.init_attention(4, 4, 2, 0)]))
case("attention.attention_stack", "a layer of two arrays", "layers",
     lambda: attention.attention_stack(np.zeros((3, 4)), [ATT[:2]]))
case("attention.attention_stack", "NaN X", "X", lambda: attention.attention_stack([[NAN] * 4], [ATT]))
case("attention.KVCache", "keys and values of different layer counts", "values",
     lambda: attention.KVCache([np.zeros((2, 4))], [], 0))
case("attention.KVCache", "length beyond the storage", "length",
     lambda: attention.KVCache([np.zeros((2, 4))], [np.zeros((2, 4))], 3))
case("attention.KVCache.empty", "capacity 0 (used to hang decode_step)", "capacity",
     lambda: attention.KVCache.empty([ATT], capacity=0))
case("attention.KVCache.empty", "capacity 2.5", "capacity", lambda: attention.KVCache.empty([ATT], capacity=2.5))
case("attention.KVCache.empty", "no layers", "layers", lambda: attention.KVCache.empty([]))
case("attention.decode_step", "x_t of the wrong width", "x_t",
     lambda: attention.decode_step(np.zeros(3), [ATT], attention.KVCache.empty([ATT])))
case("attention.decode_step", "NaN x_t", "x_t",
     lambda: attention.decode_step([NAN] * 4, [ATT], attention.KVCache.empty([ATT])))
case("attention.decode_step", "cache not a KVCache", "cache", lambda: attention.decode_step(np.zeros(4), [ATT], {}))
case("attention.decode_step", "check not a bool", "check",
     lambda: attention.decode_step(np.zeros(4), [ATT], attention.KVCache.empty([ATT]), check="no"))
case("attention.decode_step_without_cache", "check not a bool", "check",
     lambda: attention.decode_step_without_cache(np.zeros((2, 4)), [ATT], check=1))
case("attention.decode_step", "cache of another stack", "cache",
     lambda: attention.decode_step(np.zeros(4), [ATT], attention.KVCache.empty([ATT, ATT])))
_KV_OTHER = attention.KVCache.empty([ATT])
attention.decode_step(np.ones(4), [attention.init_attention(4, 4, 4, 1)], _KV_OTHER)
case("attention.decode_step", "cache filled by other layers of the same shapes (used to mix them, silently)", "cache",
     lambda: attention.decode_step(np.ones(4), [ATT], _KV_OTHER))
case("attention.decode_step_without_cache", "empty prefix", "X_prefix",
     lambda: attention.decode_step_without_cache(np.zeros((0, 4)), [ATT]))
case("attention.decode_step_without_cache", "1-D prefix", "X_prefix",
     lambda: attention.decode_step_without_cache(np.zeros(4), [ATT]))
case("attention.decode_step_without_cache", "no layers", "layers",
     lambda: attention.decode_step_without_cache(np.zeros((2, 4)), []))
case("attention.decode", "batched X", "X", lambda: attention.decode(np.zeros((2, 3, 4)), [ATT]))
case("attention.decode", "empty X", "X", lambda: attention.decode(np.zeros((0, 4)), [ATT]))
case("attention.generate", "float prompt", "prompt", lambda: attention.generate([1.0, 2.0], 3, E5, [ATT], W_UN))
case("attention.generate", "negative token", "prompt", lambda: attention.generate([1, -1], 3, E5, [ATT], W_UN))
case("attention.generate", "token beyond vocab", "prompt", lambda: attention.generate([1, 7], 3, E5, [ATT], W_UN))
case("attention.generate", "empty prompt", "prompt", lambda: attention.generate([], 3, E5, [ATT], W_UN))
case("attention.generate", "n_new -1", "n_new", lambda: attention.generate([1], -1, E5, [ATT], W_UN))
case("attention.generate", "n_new 2.5", "n_new", lambda: attention.generate([1], 2.5, E5, [ATT], W_UN))
case("attention.generate", "W_unembed transposed", "W_unembed", lambda: attention.generate([1], 3, E5, [ATT], W_UN.T))
case("attention.generate", "NaN embedding", "embedding",
     lambda: attention.generate([1], 3, np.full((5, 4), NAN), [ATT], W_UN))
case("attention.decode_flops", "n 0", "n", lambda: attention.decode_flops(0, 4))
case("attention.decode_flops", "d_model 2.5", "d_model", lambda: attention.decode_flops(3, 2.5))
case("attention.decode_flops", "n_layers 0", "n_layers", lambda: attention.decode_flops(3, 4, n_layers=0))
case("attention.decode_flops", "d_k 0", "d_k", lambda: attention.decode_flops(3, 4, d_k=0))
case("attention.decode_flops", "cache a string (used to be read as True)", "cache",
     lambda: attention.decode_flops(3, 4, cache="no"))
case("attention.self_attention_backward", "causal a string (used to be read as True)", "causal",
     lambda: attention.self_attention_backward(np.zeros((3, 4)), *ATT, dout=np.zeros((3, 4)), causal="no"))
case("attention.multi_head_attention", "causal a string (used to be read as True)", "causal",
     lambda: attention.multi_head_attention(np.zeros((3, 4)), *ATT, np.eye(4), n_heads=2, causal="no"))

# birnn
case("birnn.bilstm_forward", "fwd a single array", "fwd", lambda: birnn.bilstm_forward(XS, W_lstm, (W_lstm, b_lstm)))
case("birnn.bilstm_forward", "bwd bias of the wrong length", "bwd",
     lambda: birnn.bilstm_forward(XS, (W_lstm, b_lstm), (W_lstm, b_lstm[:3])))
case("birnn.bilstm_forward", "fwd and bwd for other input widths", "bwd",
     lambda: birnn.bilstm_forward(XS, (W_lstm, b_lstm), lstm.init_lstm(2, 4, 0)))
case("birnn.bilstm_forward", "empty sequence", "xs", lambda: birnn.bilstm_forward(np.zeros((0, 3)), (W_lstm, b_lstm), (W_lstm, b_lstm)))
# bilm
case("bilm.BiLMConfig", "d_hidden 0", "d_hidden", lambda: bilm.BiLMConfig(d_hidden=0))
case("bilm.BiLMConfig", "d_embed 2.5", "d_embed", lambda: bilm.BiLMConfig(d_embed=2.5))
case("bilm.BiLMConfig", "lr NaN", "lr", lambda: bilm.BiLMConfig(lr=NAN))
case("bilm.BiLMConfig", "epochs 0", "epochs", lambda: bilm.BiLMConfig(epochs=0))
case("bilm.BiLMConfig", "clip -1", "clip", lambda: bilm.BiLMConfig(clip=-1.0))
case("bilm.BiLMConfig", "negative seed", "seed", lambda: bilm.BiLMConfig(seed=-1))
case("bilm.n_layers_of", "no layers", "params", lambda: bilm.n_layers_of({"E": np.zeros((3, 2))}), KeyError)
case("bilm.n_layers_of", "a list", "params", lambda: bilm.n_layers_of([]))
case("bilm.init_bilm", "vocab_size 1", "vocab_size", lambda: bilm.init_bilm(1, bilm.BiLMConfig(), 0))
case("bilm.init_bilm", "vocab_size 2.5", "vocab_size", lambda: bilm.init_bilm(2.5, bilm.BiLMConfig(), 0))
case("bilm.init_bilm", "config a dict", "config", lambda: bilm.init_bilm(6, {"d_hidden": 4}, 0))
case("bilm.init_bilm", "rng a float", "rng", lambda: bilm.init_bilm(6, bilm.BiLMConfig(), 0.5))
case("bilm.bilm_states", "float ids", "ids", lambda: bilm.bilm_states(BILM, IDS.astype(float)))
case("bilm.bilm_states", "negative id", "ids", lambda: bilm.bilm_states(BILM, [0, -1, 1]))
case("bilm.bilm_states", "T = 1", "ids", lambda: bilm.bilm_states(BILM, [0]))
case("bilm.bilm_states", "3-D ids", "ids", lambda: bilm.bilm_states(BILM, np.zeros((3, 2, 1), int)))
case("bilm.bilm_states", "missing W_out", "params",
     lambda: bilm.bilm_states({k: v for k, v in BILM.items() if k != "W_out"}, IDS), KeyError)
case("bilm.bilm_loss", "id beyond vocab", "ids", lambda: bilm.bilm_loss(BILM, [0, 6, 1]))
case("bilm.next_token_probs", "T = 1", "ids", lambda: bilm.next_token_probs(BILM, [0]))
case("bilm.next_token_probs", "unknown direction", "direction", lambda: bilm.next_token_probs(BILM, IDS, "up"))
case("bilm.bilm_loss_and_grads", "zero batch", "ids", lambda: bilm.bilm_loss_and_grads(BILM, np.zeros((3, 0), int)))
case("bilm.bilm_loss_and_grads", "NaN embedding", "params",
     lambda: bilm.bilm_loss_and_grads({**BILM, "E": np.full((6, 3), NAN)}, IDS))
case("bilm.bilm_sizes", "a list", "params", lambda: bilm.bilm_sizes([]))
case("bilm.bilm_sizes", "b_out of another vocab", "params['b_out']",
     lambda: bilm.bilm_sizes({**BILM, "b_out": np.zeros(5)}))
case("bilm.direction_states", "unknown direction", "direction",
     lambda: bilm.direction_states(BILM, "up", IDS))
case("bilm.direction_states", "empty ids", "ids", lambda: bilm.direction_states(BILM, "fwd", np.zeros(0, int)))
case("bilm.direction_states", "id beyond vocab", "ids", lambda: bilm.direction_states(BILM, "bwd", [6]))
case("bilm.seeds_loss_and_grads", "params without a seeds axis", "P['E']", lambda: bilm.seeds_loss_and_grads(BILM, IDS[:, None, None]))
case("bilm.seeds_loss_and_grads", "ids for another number of seeds", "ids",
     lambda: bilm.seeds_loss_and_grads(_SEEDS, np.zeros((3, 3, 1), int)))
case("bilm.seeds_loss_and_grads", "2-D ids", "ids", lambda: bilm.seeds_loss_and_grads(_SEEDS, np.zeros((3, 2), int)))
case("bilm.seeds_loss_and_grads", "b_out for three seeds", "P['b_out']",
     lambda: bilm.seeds_loss_and_grads({**_SEEDS, "b_out": np.zeros((3, 6))}, np.zeros((3, 2, 1), int)))
case("bilm.seeds_loss_and_grads", "dtype int", "dtype",
     lambda: bilm.seeds_loss_and_grads(_SEEDS, np.zeros((3, 2, 1), int), dtype=np.int32))
# bilm_train
case("bilm_train.length_batches", "batch 0", "batch", lambda: bilm_train.length_batches([IDS], 0, np.random.default_rng(0)))
case("bilm_train.length_batches", "batch 2.5", "batch", lambda: bilm_train.length_batches([IDS], 2.5, np.random.default_rng(0)))
case("bilm_train.length_batches", "rng a string", "rng", lambda: bilm_train.length_batches([IDS], 2, "rng"))
case("bilm_train.length_batches", "a 2-D sequence", "sequences",
     lambda: bilm_train.length_batches([np.zeros((2, 2), int)], 2, np.random.default_rng(0)))
case("bilm_train.train_bilm", "no sentences", "sequences", lambda: bilm_train.train_bilm([], 6))
case("bilm_train.train_bilm", "id beyond vocab_size", "sequences", lambda: bilm_train.train_bilm([IDS], 3))
case("bilm_train.train_bilm", "vocab_size 0", "vocab_size", lambda: bilm_train.train_bilm([IDS], 0))
# elmo
case("elmo.TokenVectors", "forward and backward of different shapes", "backward",
     lambda: elmo.TokenVectors(np.zeros((2, 3)), np.zeros((1, 2, 4)), np.zeros((1, 2, 5))))
case("elmo.TokenVectors", "static for another N", "static",
     lambda: elmo.TokenVectors(np.zeros((3, 3)), np.zeros((1, 2, 4)), np.zeros((1, 2, 4))))
case("elmo.TokenVectors.layers", "d_embed != d_hidden", "d_embed", lambda: _tv().layers())
case("elmo.token_vectors", "positions of another length", "positions",
     lambda: elmo.token_vectors(BILM, [IDS, IDS], [1]))
case("elmo.token_vectors", "position beyond the sentence", "positions",
     lambda: elmo.token_vectors(BILM, [IDS], [4]))
case("elmo.token_vectors", "position 1.5", "positions", lambda: elmo.token_vectors(BILM, [IDS], [1.5]))
case("elmo.token_vectors", "no sentences", "sequences", lambda: elmo.token_vectors(BILM, [], []))
case("elmo.elmo_mix", "w of the wrong length", "w", lambda: elmo.elmo_mix(np.zeros((2, 1, 2)), np.zeros(3)))
case("elmo.elmo_mix", "gamma NaN", "gamma", lambda: elmo.elmo_mix(np.zeros((2, 1, 2)), np.zeros(2), gamma=NAN))
case("elmo.elmo_mix", "1-D layers", "layers", lambda: elmo.elmo_mix(np.zeros(2), np.zeros(2)))

# optim
case("optim.clip_grad_norm", "inf gradient (used to become NaN)", "grads",
     lambda: optim.clip_grad_norm({"a": np.array([INF, 1.0])}, 1.0))
case("optim.clip_grad_norm", "max_norm NaN", "max_norm", lambda: optim.clip_grad_norm({"a": np.ones(2)}, NAN))
case("optim.clip_grad_norm", "max_norm 0", "max_norm", lambda: optim.clip_grad_norm({"a": np.ones(2)}, 0.0))
case("optim.clip_grad_norm", "a list of arrays", "grads", lambda: optim.clip_grad_norm([np.ones(2)], 1.0))
case("optim.Adam", "lr NaN", "lr", lambda: optim.Adam(lr=NAN))
case("optim.Adam", "beta1 1", "beta1", lambda: optim.Adam(beta1=1.0))
case("optim.Adam", "beta2 -0.1", "beta2", lambda: optim.Adam(beta2=-0.1))
case("optim.Adam", "eps 0", "eps", lambda: optim.Adam(eps=0.0))
case("optim.Adam.step", "(1,) gradient for a (3,) parameter", "grads",
     lambda: optim.Adam().step({"w": np.zeros(3)}, {"w": np.ones(1)}))
case("optim.Adam.step", "missing gradient", "grads", lambda: optim.Adam().step({"w": np.zeros(3)}, {}), KeyError)
case("optim.Adam.step", "NaN gradient", "grads", lambda: optim.Adam().step({"w": np.zeros(2)}, {"w": np.array([NAN, 0])}))
case("optim.Adam.step", "an int parameter (cannot update in place)", "params",
     lambda: optim.Adam().step({"w": np.zeros(2, int)}, {"w": np.ones(2)}))

# train
case("train.Recurrence", "init not callable", "init", lambda: train.Recurrence("x", 1, train.RNN.forward, train.RNN.backward))
case("train.rnn_cell", "spectral_radius NaN", "spectral_radius", lambda: train.rnn_cell(NAN))
case("train.lstm_cell", "forget_bias inf", "forget_bias", lambda: train.lstm_cell(INF))
case("train.classifier_head", "W_out for another d_hidden", "W_out",
     lambda: train.classifier_head(np.zeros((2, 4)), np.zeros((3, 5)), np.zeros(3), [0, 1]))
case("train.classifier_head", "b_out of the wrong length", "b_out",
     lambda: train.classifier_head(np.zeros((2, 4)), np.zeros((3, 4)), np.zeros(2), [0, 1]))
case("train.classifier_head", "labels (B, 1)", "labels",
     lambda: train.classifier_head(np.zeros((2, 4)), np.zeros((3, 4)), np.zeros(3), [[0], [1]]))
case("train.classifier_head", "NaN state", "h",
     lambda: train.classifier_head([[NAN] * 4], np.zeros((3, 4)), np.zeros(3), [0]))
case("train.predict", "unbatched xs", "xs", lambda: train.predict(train.RNN, RNN_PARAMS, np.zeros((5, 3))))
case("train.predict", "missing W_out", "params",
     lambda: train.predict(train.RNN, {k: v for k, v in RNN_PARAMS.items() if k != "W_out"}, XS), KeyError)
case("train.loss_and_grads", "labels for another batch", "labels",
     lambda: train.loss_and_grads(train.RNN, RNN_PARAMS, XS, [0, 1, 1]))
case("train.loss_and_grads", "NaN xs", "xs", lambda: train.loss_and_grads(train.RNN, RNN_PARAMS, XS * NAN, [0, 1]))
case("train.TrainConfig", "lr NaN (used to fail later, naming W_h)", "lr", lambda: train.TrainConfig(lr=NAN))
case("train.TrainConfig", "d_hidden 2.5", "d_hidden", lambda: train.TrainConfig(d_hidden=2.5))
case("train.TrainConfig", "steps 0", "steps", lambda: train.TrainConfig(steps=0))
case("train.TrainConfig", "batch 0", "batch", lambda: train.TrainConfig(batch=0))
case("train.TrainConfig", "clip 0", "clip", lambda: train.TrainConfig(clip=0.0))
case("train.TrainConfig", "stop_loss NaN", "stop_loss", lambda: train.TrainConfig(stop_loss=NAN))
case("train.TrainConfig", "negative seed", "seed", lambda: train.TrainConfig(seed=-1))
case("train.init_classifier", "n_classes 1", "n_classes", lambda: train.init_classifier(train.RNN, 3, 1, 4, 0))
case("train.init_classifier", "d_hidden 2.5", "d_hidden", lambda: train.init_classifier(train.RNN, 3, 2, 2.5, 0))
case("train.init_classifier", "cell a string", "cell", lambda: train.init_classifier("RNN", 3, 2, 4, 0))
case("train.init_classifier", "rng a list", "rng", lambda: train.init_classifier(train.RNN, 3, 2, 4, [0]))
case("train.train_classifier", "sample not callable", "sample",
     lambda: train.train_classifier(train.RNN, None, 1, 2))
case("train.train_classifier", "config a dict", "config",
     lambda: train.train_classifier(train.RNN, _sample, 1, 2, {"steps": 3}))
case("train.train_classifier", "n_classes 1", "n_classes", lambda: train.train_classifier(train.RNN, _sample, 1, 1))
case("train.train_classifier", "sample of the wrong width", "sample",
     lambda: train.train_classifier(train.RNN, _sample, 2, 2, train.TrainConfig(steps=2)))
case("train.accuracy", "labels (B, 1) (used to broadcast to (B, B))", "labels",
     lambda: train.accuracy(train.RNN, RNN_PARAMS, XS, np.zeros((2, 1), int)))
case("train.accuracy", "float labels", "labels", lambda: train.accuracy(train.RNN, RNN_PARAMS, XS, [0.0, 1.0]))
case("train.accuracy", "zero batch", "xs", lambda: train.accuracy(train.RNN, RNN_PARAMS, XS[:, :0], np.zeros(0, int)))
case("train.input_sensitivity", "unbatched xs", "xs", lambda: train.input_sensitivity(train.RNN, RNN_PARAMS, np.zeros((5, 3))))
case("train.input_sensitivity", "NaN xs", "xs", lambda: train.input_sensitivity(train.RNN, RNN_PARAMS, XS * NAN))

# delay
case("delay.DelayTask", "n_symbols 1", "n_symbols", lambda: delay.DelayTask(n_symbols=1))
case("delay.DelayTask", "n_symbols 2.5", "n_symbols", lambda: delay.DelayTask(n_symbols=2.5))
case("delay.DelayTask", "n_distractors 0", "n_distractors", lambda: delay.DelayTask(n_distractors=0))
case("delay.DelayTask", "p_new_key NaN", "p_new_key", lambda: delay.DelayTask(p_new_key=NAN))
case("delay.DelayTask.sample", "n 0", "n", lambda: delay.DelayTask().sample(np.random.default_rng(0), 0, 2))
case("delay.DelayTask.sample", "delay -1", "delay", lambda: delay.DelayTask().sample(np.random.default_rng(0), 2, -1))
case("delay.DelayTask.sample", "delay 1.5", "delay", lambda: delay.DelayTask().sample(np.random.default_rng(0), 2, 1.5))
case("delay.DelayTask.sample", "rng a string", "rng", lambda: delay.DelayTask().sample("rng", 2, 1))

# complexity
case("complexity.layer_flops", "unknown model", "model", lambda: complexity.layer_flops("GRU", 3, 4))
case("complexity.layer_flops", "n 0", "n", lambda: complexity.layer_flops("RNN", 0, 4))
case("complexity.layer_flops", "d 2.5", "d", lambda: complexity.layer_flops("RNN", 3, 2.5))
case("complexity.dependency_graph", "unknown model", "model", lambda: complexity.dependency_graph("GRU", 3))
case("complexity.dependency_graph", "n 0", "n", lambda: complexity.dependency_graph("RNN", 0))
case("complexity.dependency_graph", "n 2.5", "n", lambda: complexity.dependency_graph("RNN", 2.5))
case("complexity.critical_path", "empty graph", "graph", lambda: complexity.critical_path({}))
case("complexity.critical_path", "a node read before it is defined", "graph",
     lambda: complexity.critical_path({("h", 0): (("x", 0),), ("x", 0): ()}))
case("complexity.max_path_length", "n unlike the graph", "n", lambda: complexity.max_path_length(GRAPH, 5))
case("complexity.max_path_length", "empty graph", "graph", lambda: complexity.max_path_length({}, 3))

# timing
case("clock.one_blas_thread", "not callable", "fn", lambda: clock.one_blas_thread(3))
case("timing.kv_step_times", "no lengths", "lengths", lambda: timing.kv_step_times([], 4))
case("timing.kv_step_times", "length 0", "lengths", lambda: timing.kv_step_times([0, 2], 4))
case("timing.kv_step_times", "d_model 0", "d_model", lambda: timing.kv_step_times([2], 0))
case("timing.kv_step_times", "n_layers 0", "n_layers", lambda: timing.kv_step_times([2], 4, n_layers=0))
case("timing.kv_total_times", "n 1.5 (used to be cut to 1)", "ns", lambda: timing.kv_total_times([1.5], 4))
case("timing.kv_total_times", "repeat 0", "repeat", lambda: timing.kv_total_times([2], 4, repeat=0))

# gradient_paths
case("paths.lstm_path_sensitivity", "params not a dict", "params",
     lambda: paths.lstm_path_sensitivity([W_lstm, b_lstm], XS))
case("paths.lstm_path_sensitivity", "no b", "params",
     lambda: paths.lstm_path_sensitivity({"W": W_lstm}, XS), KeyError)
case("paths.lstm_path_sensitivity", "NaN xs", "xs",
     lambda: paths.lstm_path_sensitivity({"W": W_lstm, "b": b_lstm}, XS * NAN))
case("paths.lstm_path_sensitivity", "unbatched xs", "xs",
     lambda: paths.lstm_path_sensitivity({"W": W_lstm, "b": b_lstm}, np.zeros((5, 3))))
case("paths.lstm_path_sensitivity", "W of one dimension", "W",
     lambda: paths.lstm_path_sensitivity({"W": np.zeros(4), "b": b_lstm}, XS))
case("gradient_paths.gradient_by_distance", "T 1", "T", lambda: gradient_paths.gradient_by_distance(T=1))
case("gradient_paths.gradient_by_distance", "d 2.5", "d", lambda: gradient_paths.gradient_by_distance(T=4, d=2.5))
case("gradient_paths.gradient_by_distance", "n_draws 0", "n_draws", lambda: gradient_paths.gradient_by_distance(n_draws=0))
case("gradient_paths.gradient_by_distance", "spectral_radius NaN", "spectral_radius",
     lambda: gradient_paths.gradient_by_distance(T=4, d=2, spectral_radius=NAN))

# probe
_X, _Y = np.array([[0.0, 0.0], [0.0, 2.0], [4.0, 0.0], [4.0, 2.0]]), np.array([0, 0, 1, 1])
_ML = np.random.default_rng(0).normal(size=(2, 4, 3))
_MP = {"w": np.zeros(2), "gamma": np.ones(1), "W": np.zeros((2, 3)), "b": np.zeros(2)}
case("probe.scalar_mix_loss_and_grads", "params a list", "params",
     lambda: probe.scalar_mix_loss_and_grads([], _ML, [0, 1, 0, 1]))
case("probe.scalar_mix_loss_and_grads", "no gamma", "params",
     lambda: probe.scalar_mix_loss_and_grads({k: v for k, v in _MP.items() if k != "gamma"}, _ML, [0, 1, 0, 1]),
     KeyError)
case("probe.scalar_mix_loss_and_grads", "w of the wrong length", "params['w']",
     lambda: probe.scalar_mix_loss_and_grads({**_MP, "w": np.zeros(3)}, _ML, [0, 1, 0, 1]))
case("probe.scalar_mix_loss_and_grads", "layers 2-D", "layers",
     lambda: probe.scalar_mix_loss_and_grads(_MP, _ML[0], [0, 1, 0, 1]))
case("probe.scalar_mix_loss_and_grads", "layers with NaN", "layers",
     lambda: probe.scalar_mix_loss_and_grads(_MP, np.full((2, 4, 3), NAN), [0, 1, 0, 1]))
case("probe.scalar_mix_loss_and_grads", "y of another length", "y",
     lambda: probe.scalar_mix_loss_and_grads(_MP, _ML, [0, 1]))
case("probe.scalar_mix_loss_and_grads", "negative weight_decay", "weight_decay",
     lambda: probe.scalar_mix_loss_and_grads(_MP, _ML, [0, 1, 0, 1], weight_decay=-1.0))
case("probe.scalar_mix_probe", "layers_test of another width", "layers_test",
     lambda: probe.scalar_mix_probe(_ML, [0, 1, 0, 1], np.zeros((2, 4, 2)), [0, 1, 0, 1]))
case("probe.scalar_mix_probe", "empty layers_train", "layers_train",
     lambda: probe.scalar_mix_probe(np.zeros((2, 0, 3)), [], _ML, [0, 1, 0, 1]))
case("probe.scalar_mix_probe", "float y_train", "y_train",
     lambda: probe.scalar_mix_probe(_ML, [0.0, 1.0, 0.0, 1.0], _ML, [0, 1, 0, 1]))
case("probe.scalar_mix_probe", "steps 0", "steps",
     lambda: probe.scalar_mix_probe(_ML, [0, 1, 0, 1], _ML, [0, 1, 0, 1], steps=0))
case("probe.linear_probe_accuracies", "X_train 2-D", "X_train",
     lambda: probe.linear_probe_accuracies(_ML[0], [0, 1, 0, 1], _ML, [0, 1, 0, 1]))
case("probe.linear_probe_accuracies", "X_test of another count", "X_test",
     lambda: probe.linear_probe_accuracies(_ML, [0, 1, 0, 1], _ML[:1], [0, 1, 0, 1]))
case("probe.linear_probe_accuracies", "lr 0", "lr",
     lambda: probe.linear_probe_accuracies(_ML, [0, 1, 0, 1], _ML, [0, 1, 0, 1], lr=0.0))
case("probe.linear_probe_accuracies", "4-D X_test of another count", "X_test",
     lambda: probe.linear_probe_accuracies(_ML, [0, 1, 0, 1], _ML[None, :1], [0, 1, 0, 1]))
case("probe.linear_probe_accuracies", "4-D X_test with no samples", "X_test",
     lambda: probe.linear_probe_accuracies(_ML, [0, 1, 0, 1], _ML[None][:0], [0, 1, 0, 1]))
case("probe.linear_probe_accuracies", "4-D X_test, y_test of another length", "y_test",
     lambda: probe.linear_probe_accuracies(_ML, [0, 1, 0, 1], _ML[None], [0, 1, 0]))
case("probe.linear_probe_accuracies", "5-D X_test", "X_test",
     lambda: probe.linear_probe_accuracies(_ML, [0, 1, 0, 1], _ML[None, None], [0, 1, 0, 1]))
case("probe.scalar_mix_loss_and_grads", "negative mix_penalty", "mix_penalty",
     lambda: probe.scalar_mix_loss_and_grads(_MP, _ML, [0, 1, 0, 1], mix_penalty=-1.0))
case("probe.scalar_mix_probe", "mix_penalty NaN", "mix_penalty",
     lambda: probe.scalar_mix_probe(_ML, [0, 1, 0, 1], _ML, [0, 1, 0, 1], mix_penalty=NAN))
case("probe.scalar_mix_probes", "layers_train 3-D", "layers_train",
     lambda: probe.scalar_mix_probes(_ML, [0, 1, 0, 1], _ML[None], [0, 1, 0, 1]))
case("probe.scalar_mix_probes", "layers_test of another width", "layers_test",
     lambda: probe.scalar_mix_probes(_ML[None], [0, 1, 0, 1], np.zeros((1, 2, 4, 2)), [0, 1, 0, 1]))
case("probe.scalar_mix_probes", "empty layers_test", "layers_test",
     lambda: probe.scalar_mix_probes(_ML[None], [0, 1, 0, 1], np.zeros((1, 2, 0, 3)), []))
case("probe.scalar_mix_probes", "steps decreasing", "steps",
     lambda: probe.scalar_mix_probes(_ML[None], [0, 1, 0, 1], _ML[None], [0, 1, 0, 1], steps=(10, 5)))
case("probe.scalar_mix_probes", "steps an int", "steps",
     lambda: probe.scalar_mix_probes(_ML[None], [0, 1, 0, 1], _ML[None], [0, 1, 0, 1], steps=10))
case("probe.scalar_mix_probes", "steps 0", "steps",
     lambda: probe.scalar_mix_probes(_ML[None], [0, 1, 0, 1], _ML[None], [0, 1, 0, 1], steps=(0,)))
case("probe.scalar_mix_probes", "lr 0", "lr",
     lambda: probe.scalar_mix_probes(_ML[None], [0, 1, 0, 1], _ML[None], [0, 1, 0, 1], lr=0.0))
case("probe.scalar_mix_probes", "lr one per probe, too many", "lr",
     lambda: probe.scalar_mix_probes(_ML[None], [0, 1, 0, 1], _ML[None], [0, 1, 0, 1], lr=[0.1, 0.1]))
case("probe.scalar_mix_probes", "negative mix_penalty", "mix_penalty",
     lambda: probe.scalar_mix_probes(_ML[None], [0, 1, 0, 1], _ML[None], [0, 1, 0, 1], mix_penalty=[-1.0]))
case("probe.scalar_mix_probes", "y_train of another length", "y_train",
     lambda: probe.scalar_mix_probes(_ML[None], [0, 1], _ML[None], [0, 1, 0, 1]))
case("bilm_train.train_bilms", "no sequences", "sequences", lambda: bilm_train.train_bilms([], 4))
case("bilm_train.train_bilms", "repeated seeds", "seeds",
     lambda: bilm_train.train_bilms([np.array([0, 2, 1])], 4, bilm.BiLMConfig(epochs=1), seeds=(1, 1)))
case("bilm_train.train_bilms", "config a dict", "config", lambda: bilm_train.train_bilms([np.array([0, 2, 1])], 4, {}))
case("bilm_train.train_bilms", "vocab_size 1", "vocab_size", lambda: bilm_train.train_bilms([np.array([0, 2, 1])], 1))
case("bilm_train.train_bilms", "dtype int", "dtype",
     lambda: bilm_train.train_bilms([np.array([0, 2, 1])], 4, bilm.BiLMConfig(epochs=1), dtype=np.int32))
case("bilm_train.train_bilms", "patience 0", "patience",
     lambda: bilm_train.train_bilms([IDS], 6, bilm.BiLMConfig(epochs=1), held_out=[IDS], patience=0))
case("bilm_train.train_bilms", "negative patience", "patience",
     lambda: bilm_train.train_bilms([IDS], 6, bilm.BiLMConfig(epochs=1), held_out=[IDS], patience=-1))
case("bilm_train.train_bilms", "patience 1.5", "patience",
     lambda: bilm_train.train_bilms([IDS], 6, bilm.BiLMConfig(epochs=1), held_out=[IDS], patience=1.5))
case("bilm_train.train_bilms", "patience without held_out", "patience",
     lambda: bilm_train.train_bilms([IDS], 6, bilm.BiLMConfig(epochs=1), patience=2))
case("bilm_train.train_bilms", "empty held_out", "held_out",
     lambda: bilm_train.train_bilms([IDS], 6, bilm.BiLMConfig(epochs=1), held_out=[]))
case("bilm_train.train_bilms", "held_out id beyond vocab_size", "held_out",
     lambda: bilm_train.train_bilms([IDS], 6, bilm.BiLMConfig(epochs=1), held_out=[IDS, [0, 6, 1]]))
case("bilm_train.train_bilms", "held_out sentence of one token", "held_out",
     lambda: bilm_train.train_bilms([IDS], 6, bilm.BiLMConfig(epochs=1), held_out=[[0]]))
case("bilm_train.train_bilms", "held_out a 2-D sentence", "held_out",
     lambda: bilm_train.train_bilms([IDS], 6, bilm.BiLMConfig(epochs=1), held_out=[np.zeros((3, 2), int)]))
case("bilm_train.train_bilms", "held_out a number", "held_out",
     lambda: bilm_train.train_bilms([IDS], 6, bilm.BiLMConfig(epochs=1), held_out=3))
case("bilm_train.train_bilms", "checkpoint beyond the epochs", "checkpoints",
     lambda: bilm_train.train_bilms([IDS], 6, bilm.BiLMConfig(epochs=2), checkpoints=[3]))
case("bilm_train.train_bilms", "checkpoint 0", "checkpoints",
     lambda: bilm_train.train_bilms([IDS], 6, bilm.BiLMConfig(epochs=2), checkpoints=[0]))
case("bilm_train.train_bilms", "repeated checkpoints", "checkpoints",
     lambda: bilm_train.train_bilms([IDS], 6, bilm.BiLMConfig(epochs=2), checkpoints=[1, 1]))
case("bilm_train.train_bilms", "checkpoints an int", "checkpoints",
     lambda: bilm_train.train_bilms([IDS], 6, bilm.BiLMConfig(epochs=2), checkpoints=2))
case("bilm_train.train_bilms", "checkpoint 1.5", "checkpoints",
     lambda: bilm_train.train_bilms([IDS], 6, bilm.BiLMConfig(epochs=2), checkpoints=[1.5]))
case("senses.make_distant_corpus", "held_out 28", "held_out", lambda: senses.make_distant_corpus(held_out=28))
case("probe.nearest_centroid_accuracy", "X_test of another width", "X_test",
     lambda: probe.nearest_centroid_accuracy(_X, _Y, np.zeros((2, 3)), [0, 1]))
case("probe.nearest_centroid_accuracy", "float y_train", "y_train",
     lambda: probe.nearest_centroid_accuracy(_X, _Y.astype(float), _X, _Y))
case("probe.nearest_centroid_accuracy", "no labels", "y_train",
     lambda: probe.nearest_centroid_accuracy(_X[:0], _Y[:0], _X, _Y))
case("probe.nearest_centroid_accuracy", "negative y_test", "y_test",
     lambda: probe.nearest_centroid_accuracy(_X, _Y, _X[:1], [-1]))
case("probe.nearest_centroid_accuracy", "y_test class never trained", "y_test",
     lambda: probe.nearest_centroid_accuracy(_X, _Y, _X[:1], [5]))
case("probe.linear_probe_accuracy", "steps 0", "steps", lambda: probe.linear_probe_accuracy(_X, _Y, _X, _Y, steps=0))
case("probe.linear_probe_accuracy", "lr NaN", "lr", lambda: probe.linear_probe_accuracy(_X, _Y, _X, _Y, lr=NAN))
case("probe.linear_probe_accuracy", "weight_decay -1", "weight_decay",
     lambda: probe.linear_probe_accuracy(_X, _Y, _X, _Y, weight_decay=-1.0))
case("probe.linear_probe_accuracy", "NaN X_train", "X_train",
     lambda: probe.linear_probe_accuracy(_X * NAN, _Y, _X, _Y))
case("probe.linear_probe", "ridge NaN (used to return 0.45)", "ridge",
     lambda: probe.linear_probe(_X, _Y[:, None], _X, _Y[:, None], 2, ridge=NAN))
case("probe.linear_probe", "ridge -1", "ridge", lambda: probe.linear_probe(_X, _Y[:, None], _X, _Y[:, None], 2, ridge=-1.0))
case("probe.linear_probe", "n_classes 0", "n_classes", lambda: probe.linear_probe(_X, _Y[:, None], _X, _Y[:, None], 0))
case("probe.linear_probe", "1-D train_labels", "train_labels", lambda: probe.linear_probe(_X, _Y, _X, _Y[:, None], 2))
case("probe.linear_probe", "label beyond n_classes", "test_labels",
     lambda: probe.linear_probe(_X, _Y[:, None], _X, _Y[:, None] + 2, 2))
case("probe.linear_probe", "no training rows", "train_states",
     lambda: probe.linear_probe(_X[:0], _Y[:0, None], _X, _Y[:, None], 2))

# capacity
case("capacity.token_sequences", "n_seq 0", "n_seq", lambda: capacity.token_sequences(0, 3, 4))
case("capacity.token_sequences", "vocab_size 2.5", "vocab_size", lambda: capacity.token_sequences(2, 3, 2.5))
case("capacity.token_sequences", "negative seed", "seed", lambda: capacity.token_sequences(2, 3, 4, seed=-1))
case("capacity.final_states", "unknown model", "model", lambda: capacity.final_states("GRU", XS, 4))
case("capacity.final_states", "2-D xs", "xs", lambda: capacity.final_states("RNN", np.zeros((3, 4)), 4))
case("capacity.final_states", "d_hidden 0", "d_hidden", lambda: capacity.final_states("RNN", XS, 0))
case("capacity.final_states", "NaN xs", "xs", lambda: capacity.final_states("Word2Vec", XS * NAN, 4))
case("capacity.attention_read", "2-D xs", "xs", lambda: capacity.attention_read(np.zeros((3, 4))))
case("capacity.attention_read", "sharpness NaN", "sharpness", lambda: capacity.attention_read(XS, sharpness=NAN))
case("capacity.state_probe", "unknown model", "models", lambda: capacity.state_probe(models=("GRU",)))
case("capacity.state_probe", "size 0", "sizes", lambda: capacity.state_probe(sizes=(0,)))
case("capacity.state_probe", "T 0", "T", lambda: capacity.state_probe(T=0))
case("capacity.state_probe", "vocab_size 1", "vocab_size", lambda: capacity.state_probe(vocab_size=1))
case("capacity.state_probe", "n_test 0", "n_test", lambda: capacity.state_probe(n_test=0))
case("capacity.positions_recovered", "vocab_size 1 (used to divide by zero)", "vocab_size",
     lambda: capacity.positions_recovered([1.0], vocab_size=1))
case("capacity.positions_recovered", "NaN accuracy", "accuracy", lambda: capacity.positions_recovered([NAN], vocab_size=4))
case("capacity.positions_recovered", "accuracy above 1", "accuracy", lambda: capacity.positions_recovered([1.5], vocab_size=4))
case("capacity.positions_recovered", "no accuracies", "accuracy", lambda: capacity.positions_recovered([], vocab_size=4))
case("capacity.next_token_leak", "T 1 (no next token)", "T", lambda: capacity.next_token_leak(T=1))
case("capacity.next_token_leak", "odd d", "d", lambda: capacity.next_token_leak(d=3))
case("capacity.next_token_leak", "n_seq 0", "n_seq", lambda: capacity.next_token_leak(n_seq=0))
case("capacity.next_token_leak", "vocab_size 1", "vocab_size", lambda: capacity.next_token_leak(vocab_size=1))

# comparison
case("comparison.comparison_table", "n 0", "n", lambda: comparison.comparison_table(n=0))
case("comparison.comparison_table", "distance beyond T", "distance", lambda: comparison.comparison_table(T=5, distance=5))
case("comparison.comparison_table", "vocab_size 1", "vocab_size", lambda: comparison.comparison_table(vocab_size=1))
case("comparison.comparison_table", "repeat 0", "repeat", lambda: comparison.comparison_table(repeat=0))
case("comparison.comparison_table", "d 2.5", "d", lambda: comparison.comparison_table(d=2.5))

# projection
case("projection.PCA", "components for another width", "components",
     lambda: projection.PCA(np.zeros(3), np.zeros((1, 2)), np.ones(1)))
case("projection.PCA.transform", "Y of another width", "Y", lambda: projection.pca(_X, 1).transform(np.zeros((2, 3))))
case("projection.PCA.transform", "NaN Y", "Y", lambda: projection.pca(_X, 1).transform([[NAN, 0.0]]))
case("projection.pca", "one row", "X", lambda: projection.pca(np.zeros((1, 3))))
case("projection.pca", "k 0", "k", lambda: projection.pca(_X, k=0))
case("projection.pca", "k 1.5", "k", lambda: projection.pca(_X, k=1.5))
case("projection.pca", "NaN X", "X", lambda: projection.pca(_X * NAN))

# plotting
case("plotting.use_book_style", "unknown format", "figure_format", lambda: plotting.use_book_style("bmp"))

# explore
def _line(v):
    fig, ax = plt.subplots()
    ax.plot([0, 1], [0, v])
    return fig


case("explore.explorable", "one value", "values", lambda: explore.explorable(_line, [1], name="a", label="a", alt=str))
case("explore.explorable", "default not a value", "default",
     lambda: explore.explorable(_line, [1, 2], name="a", label="a", alt=str, default=3))
case("explore.explorable", "id with spaces", "name", lambda: explore.explorable(_line, [1, 2], name="a b", label="a", alt=str))
case("explore.explorable", "draw returns None", "draw",
     lambda: explore.explorable(lambda v: None, [1, 2], name="a", label="a", alt=str))
case("explore.explorable", "unknown control", "control",
     lambda: explore.explorable(_line, [1, 2], name="a", label="a", alt=str, control="knob"))
case("explore.svg_text", "not a figure", "fig", lambda: explore.svg_text("figure"))
case("explore.data_uri", "not SVG", "svg", lambda: explore.data_uri("<html></html>"))
case("explore.compact_svg", "not SVG", "svg", lambda: explore.compact_svg("<html></html>"))

# senses
case("senses.Sentence", "unknown cue", "cue", lambda: senses.Sentence(("the", "bank"), None, "middle"))
case("senses.Sentence", "unknown sense", "sense", lambda: senses.Sentence(("the", "bank"), "forest", "before"))
case("senses.Sentence", "no 'bank'", "words", lambda: senses.Sentence(("the", "shore"), None, "none"))
case("senses.make_corpus", "held_out 0", "held_out", lambda: senses.make_corpus(held_out=0))
case("senses.make_corpus", "held_out 2.5", "held_out", lambda: senses.make_corpus(held_out=2.5))
case("senses.make_corpus", "negative seed", "seed", lambda: senses.make_corpus(seed=-1))
case("senses.vocabulary", "strings instead of Sentences", "sentences", lambda: senses.vocabulary(["the bank"]))
case("senses.encode", "a string of words", "words", lambda: senses.encode("the bank", ("<s>", "</s>", "the", "bank")))
case("senses.encode", "unknown word", "words", lambda: senses.encode(("the", "shore"), ("<s>", "</s>", "the")), KeyError)
case("senses.encode", "vocab without <s>", "vocab", lambda: senses.encode(("the",), ("the",)))

# corpus
case("corpus.package_data_path", "no such file", "name", lambda: corpus.package_data_path("nope.txt"), KeyError)
case("corpus.package_data_path", "no such distribution", "distribution",
     lambda: corpus.package_data_path("questions-words.txt", distribution="no-such-wheel"), KeyError)
case("corpus.strip_wiki_markup", "bytes", "text", lambda: corpus.strip_wiki_markup(b"[[a]]"))
case("corpus.tokenize", "None", "text", lambda: corpus.tokenize(None))
case("corpus.tokenize", "a token list", "text", lambda: corpus.tokenize(["the", "bank"]))
case("corpus.wikipedia_sentences", "min_words 0", "min_words", lambda: corpus.wikipedia_sentences(0))
case("corpus.wikipedia_sentences", "max_words 2.5", "max_words", lambda: corpus.wikipedia_sentences(3, 2.5))
case("corpus.wikipedia_sentences", "min_words above max_words", "min_words",
     lambda: corpus.wikipedia_sentences(9, 8))

# contextuality
U3 = np.array([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]])
case("contextuality.cosine_contributions", "V of another shape", "V",
     lambda: contextuality.cosine_contributions(U3, U3[:2]))
case("contextuality.cosine_contributions", "a zero row in U", "U",
     lambda: contextuality.cosine_contributions(np.zeros((3, 2)), U3))
case("contextuality.cosine_contributions", "NaN in V", "V",
     lambda: contextuality.cosine_contributions(U3, np.full((3, 2), NAN)))
case("contextuality.cosine_contributions", "1-D U", "U", lambda: contextuality.cosine_contributions(U3[0], U3[0]))
case("contextuality.top_share", "k beyond d", "k", lambda: contextuality.top_share(np.ones(2), k=3))
case("contextuality.top_share", "k 0", "k", lambda: contextuality.top_share(np.ones(2), k=0))
case("contextuality.top_share", "a total of 0", "contributions",
     lambda: contextuality.top_share(np.array([0.5, -0.5, 0.0])))
case("contextuality.top_share", "empty", "contributions", lambda: contextuality.top_share(np.zeros(0)))
case("contextuality.adjust_similarity", "method unknown", "method",
     lambda: contextuality.adjust_similarity(0.5, 0.1, "divide"))
case("contextuality.adjust_similarity", "baseline 1 when rescaling", "baseline",
     lambda: contextuality.adjust_similarity(0.5, 1.0, "rescale"))
case("contextuality.adjust_similarity", "a cosine of 2", "similarity",
     lambda: contextuality.adjust_similarity(2.0, 0.1, "subtract"))
case("contextuality.adjust_similarity", "NaN baseline", "baseline",
     lambda: contextuality.adjust_similarity(0.5, NAN, "subtract"))
case("contextuality.adjust_similarity", "shapes that do not broadcast", "baseline",
     lambda: contextuality.adjust_similarity(np.zeros(3), np.zeros(2), "subtract"))
case("contextuality.correct_vectors", "method unknown", "method",
     lambda: contextuality.correct_vectors(U3, U3, "whiten"))
case("contextuality.correct_vectors", "one reference vector", "reference",
     lambda: contextuality.correct_vectors(U3, U3[:1], "centre"))
case("contextuality.correct_vectors", "reference of another width", "reference",
     lambda: contextuality.correct_vectors(U3, np.ones((3, 3)), "centre"))
case("contextuality.correct_vectors", "constant reference", "reference",
     lambda: contextuality.correct_vectors(U3, np.ones((3, 2)), "standardise"))
case("contextuality.correct_vectors", "3-D reference, X of another L", "X",
     lambda: contextuality.correct_vectors(np.ones((2, 3, 2)), np.ones((3, 4, 2)), "centre"))
case("contextuality.correct_vectors", "rtol 1", "rtol", lambda: contextuality.correct_vectors(U3, U3, "centre", rtol=1.0))
case("contextuality.correct_vectors", "inf in X", "X",
     lambda: contextuality.correct_vectors(np.full((1, 2), INF), U3, "centre"))
case("contextuality.bootstrap_mean_interval", "one row", "values",
     lambda: contextuality.bootstrap_mean_interval(np.ones((1, 3))))
case("contextuality.bootstrap_mean_interval", "level 1", "level",
     lambda: contextuality.bootstrap_mean_interval(np.ones(4), level=1.0))
case("contextuality.bootstrap_mean_interval", "n_resamples 10", "n_resamples",
     lambda: contextuality.bootstrap_mean_interval(np.ones(4), n_resamples=10))
case("contextuality.bootstrap_mean_interval", "seed a string", "seed",
     lambda: contextuality.bootstrap_mean_interval(np.ones(4), seed="zero"))
case("contextuality.bootstrap_mean_interval", "NaN values", "values",
     lambda: contextuality.bootstrap_mean_interval(np.array([1.0, NAN])))

# pretrained (the model is loaded once, lazily, by the cases that need it)
CFG = dict(vocab=30, d_model=8, n_layers=1, n_heads=2, d_ff=16, max_positions=6, n_types=2, eps=1e-12)
BERT_JSON = {"vocab_size": 30, "hidden_size": 8, "num_hidden_layers": 1, "num_attention_heads": 2,
             "intermediate_size": 16, "max_position_embeddings": 6, "type_vocab_size": 2,
             "layer_norm_eps": 1e-12, "hidden_act": "gelu"}
X8 = np.random.default_rng(4).normal(size=(1, 3, 8)).astype(np.float32)
W8, Z8, MASK3 = np.eye(8, dtype=np.float32), np.zeros(8, np.float32), np.ones((1, 3), bool)


def _mha(**change):
    args = dict(X=X8, W_q=W8, b_q=Z8, W_k=W8, b_k=Z8, W_v=W8, b_v=Z8, W_o=W8, b_o=Z8, key_mask=MASK3,
                n_heads=2)
    return pretrained.masked_multi_head_attention(**{**args, **change})


def _enc():  # a valid encoding (float32 squares of tiny activations underflow to 0, harmlessly)
    with np.errstate(under="ignore"):
        return pretrained.load_minilm().encode(["the river bank", "a bank"])


def _zip_path(tmp_name: str, files: dict) -> str:
    import tempfile
    import zipfile
    path = f"{tempfile.mkdtemp()}/{tmp_name}"
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in files.items():
            zf.writestr(name, data)
    return path


case("pretrained.BertConfig", "d_model 2.5", "d_model", lambda: pretrained.BertConfig(**{**CFG, "d_model": 2.5}))
case("pretrained.BertConfig", "n_heads not dividing d_model", "n_heads",
     lambda: pretrained.BertConfig(**{**CFG, "n_heads": 3}))
case("pretrained.BertConfig", "eps NaN", "eps", lambda: pretrained.BertConfig(**{**CFG, "eps": NAN}))
case("pretrained.BertConfig", "n_layers 0", "n_layers", lambda: pretrained.BertConfig(**{**CFG, "n_layers": 0}))
case("pretrained.BertConfig.flops_per_token", "T 0", "T", lambda: pretrained.BertConfig(**CFG).flops_per_token(0))
case("pretrained.BertConfig.flops_per_token", "T 2.5", "T", lambda: pretrained.BertConfig(**CFG).flops_per_token(2.5))
case("pretrained.BertConfig.flops_per_token", "T beyond max_positions", "T",
     lambda: pretrained.BertConfig(**CFG).flops_per_token(7))
case("pretrained.BertConfig.from_json", "a JSON string", "config",
     lambda: pretrained.BertConfig.from_json('{"vocab_size": 30}'))
case("pretrained.BertConfig.from_json", "no hidden_size", "hidden_size",
     lambda: pretrained.BertConfig.from_json({k: v for k, v in BERT_JSON.items() if k != "hidden_size"}), KeyError)
case("pretrained.BertConfig.from_json", "hidden_act relu", "config",
     lambda: pretrained.BertConfig.from_json({**BERT_JSON, "hidden_act": "relu"}))
case("pretrained.BertConfig.from_json", "layer_norm_eps NaN", "eps",
     lambda: pretrained.BertConfig.from_json({**BERT_JSON, "layer_norm_eps": NAN}))
case("pretrained.read_model_files", "path a number", "path", lambda: pretrained.read_model_files(3))
case("pretrained.read_model_files", "no such file", "path", lambda: pretrained.read_model_files("/nonexistent/model.zip"))
case("pretrained.read_model_files", "a zip without the weights", "path",
     lambda: pretrained.read_model_files(_zip_path("model.zip", {"config.json": b"{}"})))
case("pretrained.read_model_files", "altered tokenizer.json", "path",
     lambda: pretrained.read_model_files(_zip_path("model.zip", {
         **pretrained.read_model_files(), "tokenizer.json": b"{}"})))
case("pretrained.layer_norm", "g of another width", "g", lambda: pretrained.layer_norm(X8, np.ones(7), Z8, 1e-12))
case("pretrained.layer_norm", "NaN x", "x", lambda: pretrained.layer_norm([[NAN, 1.0]], np.ones(2), np.zeros(2), 1e-12))
case("pretrained.layer_norm", "eps 0", "eps", lambda: pretrained.layer_norm(X8, np.ones(8), Z8, 0.0))
case("pretrained.layer_norm", "empty x", "x", lambda: pretrained.layer_norm(np.zeros((2, 0)), np.ones(0), np.zeros(0), 1e-12))
case("pretrained.gelu", "NaN", "x", lambda: pretrained.gelu([0.0, NAN]))
case("pretrained.gelu", "object dtype", "x", lambda: pretrained.gelu(np.array([1, "a"], dtype=object)))
case("pretrained.dense", "W of another input width", "W", lambda: pretrained.dense(X8, np.ones((7, 4)), np.zeros(4)))
case("pretrained.dense", "b of the wrong length", "b", lambda: pretrained.dense(X8, np.ones((8, 4)), np.zeros(3)))
case("pretrained.dense", "inf x", "x", lambda: pretrained.dense([[INF, 0.0]], np.ones((2, 2)), np.zeros(2)))
case("pretrained.dense", "1-D W", "W", lambda: pretrained.dense(X8, np.ones(8), np.zeros(1)))
case("pretrained.masked_multi_head_attention", "NaN X", "X", lambda: _mha(X=np.full((1, 3, 8), NAN, np.float32)))
case("pretrained.masked_multi_head_attention", "W_k of another width", "W_k", lambda: _mha(W_k=np.eye(7)))
case("pretrained.masked_multi_head_attention", "b_o of the wrong length", "b_o", lambda: _mha(b_o=np.zeros(7)))
case("pretrained.masked_multi_head_attention", "a row of padding only", "key_mask",
     lambda: _mha(key_mask=np.zeros((1, 3), bool)))
case("pretrained.masked_multi_head_attention", "int key_mask", "key_mask", lambda: _mha(key_mask=np.ones((1, 3), int)))
case("pretrained.masked_multi_head_attention", "n_heads 3 of d_model 8", "n_heads", lambda: _mha(n_heads=3))
case("pretrained.masked_multi_head_attention", "2-D X", "X", lambda: _mha(X=X8[0]))
case("pretrained.masked_multi_head_attention", "zero batch", "X", lambda: _mha(X=X8[:0], key_mask=MASK3[:0]))
case("pretrained.MiniLM", "files a list", "files", lambda: pretrained.MiniLM([b"{}"]))
case("pretrained.MiniLM", "no tokenizer.json", "files",
     lambda: pretrained.MiniLM({"config.json": b"{}", "model.safetensors": b""}), KeyError)
case("pretrained.MiniLM", "str instead of bytes", "files",
     lambda: pretrained.MiniLM({"config.json": "{}", "model.safetensors": b"", "tokenizer.json": b""}))
case("pretrained.MiniLM.tokenize", "empty sentence", "sentences", lambda: pretrained.load_minilm().tokenize(""))
case("pretrained.MiniLM.tokenize", "a number in the batch", "sentences[1]",
     lambda: pretrained.load_minilm().tokenize(["a bank", 3]))
case("pretrained.MiniLM.tokenize", "bytes", "sentences", lambda: pretrained.load_minilm().tokenize(b"a bank"))
case("pretrained.MiniLM.tokenize", "truncate a string", "truncate",
     lambda: pretrained.load_minilm().tokenize("a bank", truncate="yes"))
case("pretrained.MiniLM.encode", "no sentences", "sentences", lambda: pretrained.load_minilm().encode([]))
case("pretrained.MiniLM.encode", "an empty member", "sentences[1]", lambda: pretrained.load_minilm().encode(["a", " "]))
case("pretrained.MiniLM.encode", "longer than 512 positions", "sentences",
     lambda: pretrained.load_minilm().encode("bank " * 600))
case("pretrained.MiniLM.encode", "only a control character", "sentences",
     lambda: pretrained.load_minilm().encode("\x00"))
case("pretrained.MiniLM.encode", "batch_size 0", "batch_size", lambda: pretrained.load_minilm().encode("a", batch_size=0))
case("pretrained.MiniLM.encode", "attentions None", "attentions",
     lambda: pretrained.load_minilm().encode("a", attentions=None))
case("pretrained.MiniLM.forward", "negative id", "ids",
     lambda: pretrained.load_minilm().forward(np.array([[101, -1]]), np.ones((1, 2), bool)))
case("pretrained.MiniLM.forward", "float ids", "ids",
     lambda: pretrained.load_minilm().forward(np.array([[101.0, 102.0]]), np.ones((1, 2), bool)))
case("pretrained.MiniLM.forward", "1-D ids", "ids",
     lambda: pretrained.load_minilm().forward(np.array([101, 102]), np.ones(2, bool)))
case("pretrained.MiniLM.forward", "id beyond the vocabulary", "ids",
     lambda: pretrained.load_minilm().forward(np.array([[101, 30522]]), np.ones((1, 2), bool)))
case("pretrained.MiniLM.forward", "513 positions", "ids",
     lambda: pretrained.load_minilm().forward(np.full((1, 513), 101), np.ones((1, 513), bool)))
case("pretrained.MiniLM.forward", "mask of another shape", "mask",
     lambda: pretrained.load_minilm().forward(np.array([[101, 102]]), np.ones((1, 3), bool)))
case("pretrained.MiniLM.forward", "a row of padding only", "mask",
     lambda: pretrained.load_minilm().forward(np.array([[101, 102]]), np.zeros((1, 2), bool)))
case("pretrained.Encoding.states", "b beyond the batch", "b", lambda: _enc().states(2))
case("pretrained.Encoding.states", "b 0.5", "b", lambda: _enc().states(0.5))
case("pretrained.Encoding.token_index", "inside a word", "char_start", lambda: _enc().token_index(0, 1), KeyError)
case("pretrained.Encoding.token_index", "beyond the sentence", "char_start", lambda: _enc().token_index(1, 40))
case("pretrained.Encoding.token_index", "negative b", "b", lambda: _enc().token_index(-1, 0))

# vectors
case("vectors.one_hot", "float indices", "indices", lambda: vectors.one_hot([0.0, 1.0], 3))
case("vectors.one_hot", "negative index", "indices", lambda: vectors.one_hot([0, -1], 3))
case("vectors.one_hot", "index beyond vocab_size", "indices", lambda: vectors.one_hot([3], 3))
case("vectors.one_hot", "vocab_size 0", "vocab_size", lambda: vectors.one_hot([], 0))
case("vectors.one_hot", "2-D indices", "indices", lambda: vectors.one_hot([[0]], 3))
case("vectors.cosine_similarity", "zero vector", "u", lambda: vectors.cosine_similarity([0.0, 0.0], [1.0, 1.0]))
case("vectors.cosine_similarity", "lengths differ", "v", lambda: vectors.cosine_similarity([1.0, 0.0], [1.0, 1.0, 0.0]))
case("vectors.cosine_similarity", "NaN", "u", lambda: vectors.cosine_similarity([NAN, 0.0], [1.0, 1.0]))
case("vectors.WordVectors", "one row short", "vectors", lambda: vectors.WordVectors(["a", "b"], np.zeros((1, 2))))
case("vectors.WordVectors", "no words", "words", lambda: vectors.WordVectors([], np.zeros((0, 2))))
case("vectors.WordVectors", "a word that is not a str", "words", lambda: vectors.WordVectors(["a", 3], np.ones((2, 2))))
case("vectors.WordVectors", "one str for the words", "words", lambda: vectors.WordVectors("ab", np.ones((2, 2))))
case("vectors.nearest", "restrict_vocab leaves only the query", "restrict_vocab",
     lambda: vectors.nearest(EMB, "cat", restrict_vocab=1))
case("vectors.WordVectors", "NaN vector", "vectors", lambda: vectors.WordVectors(["a"], np.array([[NAN, 1.0]])))
case("vectors.WordVectors", "1-D vectors", "vectors", lambda: vectors.WordVectors(["a"], np.ones(2)))
case("vectors.WordVectors.index", "unknown word", "word", lambda: EMB.index("cow"), KeyError)
case("vectors.WordVectors.index", "not a str", "word", lambda: EMB.index(3))
case("vectors.nearest", "k 0", "k", lambda: vectors.nearest(EMB, "cat", k=0))
case("vectors.nearest", "k larger than the vocabulary", "k", lambda: vectors.nearest(EMB, "cat", k=10))
case("vectors.nearest", "k 2.5", "k", lambda: vectors.nearest(EMB, "cat", k=2.5))
case("vectors.nearest", "restrict_vocab 0", "restrict_vocab", lambda: vectors.nearest(EMB, "cat", restrict_vocab=0))
case("vectors.nearest", "unknown word", "word_or_vector", lambda: vectors.nearest(EMB, "cow"), KeyError)
case("vectors.nearest", "vector of another width", "word_or_vector", lambda: vectors.nearest(EMB, np.ones(3)))
case("vectors.nearest", "zero vector", "word_or_vector", lambda: vectors.nearest(EMB, np.zeros(2)))
case("vectors.analogy_target", "unknown c", "c", lambda: vectors.analogy_target(EMB, "cat", "kitten", "cow"), KeyError)
case("vectors.analogy_target", "a number for b", "b", lambda: vectors.analogy_target(EMB, "cat", 3, "car"))
case("vectors.analogy", "k 0", "k", lambda: vectors.analogy(EMB, "cat", "kitten", "car", k=0))
case("vectors.analogy", "k larger than the candidates", "k", lambda: vectors.analogy(EMB, "cat", "kitten", "car", k=2))
case("vectors.analogy", "unknown a", "a", lambda: vectors.analogy(EMB, "cow", "kitten", "car"), KeyError)
case("vectors.analogy", "restrict_vocab 2.5", "restrict_vocab",
     lambda: vectors.analogy(EMB, "cat", "kitten", "car", restrict_vocab=2.5))
case("vectors.analogy_rank", "d outside restrict_vocab", "d",
     lambda: vectors.analogy_rank(EMB, "cat", "kitten", "car", "Paris", restrict_vocab=3), KeyError)
case("vectors.analogy_rank", "unknown d", "d", lambda: vectors.analogy_rank(EMB, "cat", "kitten", "car", "cow"), KeyError)
case("vectors.AnalogyScore", "correct above answered", "correct", lambda: vectors.AnalogyScore(3, 2, 0))
case("vectors.AnalogyScore", "negative skipped", "skipped", lambda: vectors.AnalogyScore(0, 0, -1))
case("vectors.AnalogyScore", "accuracy of no answered question (used to be NaN)", "answered",
     lambda: vectors.AnalogyScore(0, 0, 3).accuracy)
case("vectors.analogy_accuracy", "a 3-tuple", "questions", lambda: vectors.analogy_accuracy(EMB, [("cat", "kitten", "car")]))
case("vectors.analogy_accuracy", "a number in a question", "questions",
     lambda: vectors.analogy_accuracy(EMB, [("cat", "kitten", "car", 3)]))
case("vectors.analogy_accuracy", "batch_size 0", "batch_size",
     lambda: vectors.analogy_accuracy(EMB, [("cat", "kitten", "car", "Paris")], batch_size=0))
case("vectors.analogy_accuracy", "questions a string", "questions", lambda: vectors.analogy_accuracy(EMB, "cat kitten car paris"))

# word2vec
case("word2vec.Vocabulary", "counts of another length", "counts", lambda: word2vec.Vocabulary(("a", "b"), np.array([2])))
case("word2vec.Vocabulary", "a repeated word", "words", lambda: word2vec.Vocabulary(("a", "a"), np.array([2, 1])))
case("word2vec.Vocabulary", "count 0", "counts", lambda: word2vec.Vocabulary(("a",), np.array([0])))
case("word2vec.Vocabulary.index", "unknown word", "word", lambda: VOCAB.index("z"), KeyError)
case("word2vec.Vocabulary.index", "a list (used to be a TypeError)", "word", lambda: VOCAB.index(["a"]))
case("word2vec.Vocabulary.encode", "a string (used to be read letter by letter)", "tokens", lambda: VOCAB.encode("a b"))
case("word2vec.Vocabulary.encode", "a number among the tokens", "tokens", lambda: VOCAB.encode(["a", 3]))
case("word2vec.build_vocabulary", "min_count 0", "min_count", lambda: word2vec.build_vocabulary([["a"]], min_count=0))
case("word2vec.build_vocabulary", "min_count 2.5", "min_count", lambda: word2vec.build_vocabulary([["a"]], min_count=2.5))
case("word2vec.build_vocabulary", "empty corpus", "documents", lambda: word2vec.build_vocabulary([]))
case("word2vec.build_vocabulary", "a str for documents", "documents", lambda: word2vec.build_vocabulary("the cat"))
case("word2vec.keep_probabilities", "count 0", "counts", lambda: word2vec.keep_probabilities([3, 0]))
case("word2vec.keep_probabilities", "threshold NaN", "threshold", lambda: word2vec.keep_probabilities([3, 1], threshold=NAN))
case("word2vec.keep_probabilities", "no counts", "counts", lambda: word2vec.keep_probabilities([]))
case("word2vec.negative_table", "negative count", "counts", lambda: word2vec.negative_table([3, -1]))
case("word2vec.negative_table", "power NaN", "power", lambda: word2vec.negative_table([3, 1], power=NAN))
case("word2vec.negative_table", "size 0", "size", lambda: word2vec.negative_table([3, 1], size=0))
case("word2vec.negative_table", "size 2.5", "size", lambda: word2vec.negative_table([3, 1], size=2.5))
case("word2vec.skipgram_pairs", "window 0", "window", lambda: word2vec.skipgram_pairs([np.arange(3)], 0, np.random.default_rng(0)))
case("word2vec.skipgram_pairs", "float ids", "documents",
     lambda: word2vec.skipgram_pairs([np.array([0.5, 1.0])], 1, np.random.default_rng(0)))
case("word2vec.skipgram_pairs", "negative id", "documents",
     lambda: word2vec.skipgram_pairs([np.array([0, -1])], 1, np.random.default_rng(0)))
case("word2vec.skipgram_pairs", "rng a string", "rng", lambda: word2vec.skipgram_pairs([np.arange(3)], 1, "rng"))
_W = np.zeros((4, 3))
case("word2vec.sgns_loss_and_grads", "negative id", "centers", lambda: word2vec.sgns_loss_and_grads(_W, _W, [-1], [1], [[2]]))
case("word2vec.sgns_loss_and_grads", "float ids", "contexts", lambda: word2vec.sgns_loss_and_grads(_W, _W, [0], [1.0], [[2]]))
case("word2vec.sgns_loss_and_grads", "W_out of another shape", "W_out",
     lambda: word2vec.sgns_loss_and_grads(_W, np.zeros((4, 2)), [0], [1], [[2]]))
case("word2vec.sgns_loss_and_grads", "empty batch", "centers",
     lambda: word2vec.sgns_loss_and_grads(_W, _W, np.zeros(0, int), np.zeros(0, int), np.zeros((0, 1), int)))
case("word2vec.sgns_loss_and_grads", "NaN W_in", "W_in", lambda: word2vec.sgns_loss_and_grads(_W * NAN, _W, [0], [1], [[2]]))
case("word2vec.sgns_loss_and_grads", "negatives (B,)", "negatives", lambda: word2vec.sgns_loss_and_grads(_W, _W, [0], [1], [2]))
case("word2vec.SGNSConfig", "dim 0", "dim", lambda: word2vec.SGNSConfig(dim=0))
case("word2vec.SGNSConfig", "lr NaN", "lr", lambda: word2vec.SGNSConfig(lr=NAN))
case("word2vec.SGNSConfig", "subsample 0", "subsample", lambda: word2vec.SGNSConfig(subsample=0.0))
case("word2vec.SGNSConfig", "min_count 0", "min_count", lambda: word2vec.SGNSConfig(min_count=0))
case("word2vec.SGNSConfig", "window 2.5", "window", lambda: word2vec.SGNSConfig(window=2.5))
case("word2vec.SGNSConfig", "negative seed", "seed", lambda: word2vec.SGNSConfig(seed=-1))
case("word2vec.train_sgns", "empty corpus", "documents", lambda: word2vec.train_sgns([]))
case("word2vec.train_sgns", "documents of one word each (used to return an untrained result)", "documents",
     lambda: word2vec.train_sgns([["a"], ["b"], ["a"]], word2vec.SGNSConfig(min_count=1)))
case("word2vec.train_sgns", "one two-word document, one word of it below min_count", "documents",
     lambda: word2vec.train_sgns([["a", "b"], ["a"]], word2vec.SGNSConfig(min_count=2)))
case("word2vec.train_sgns", "config a dict", "config", lambda: word2vec.train_sgns([["a", "b"]], {"dim": 4}))


# blocks
_BLK = blocks.init_blocks(1, 4, 0)
case("blocks.layer_norm", "NaN", "X", lambda: blocks.layer_norm([[0.0, NAN]]))
case("blocks.layer_norm", "no features", "X", lambda: blocks.layer_norm(np.zeros((2, 0))))
case("blocks.layer_norm", "eps 0 on a constant row (used to be 0 / 0)", "eps", lambda: blocks.layer_norm([[2.0, 2.0]], eps=0.0))
case("blocks.layer_norm", "eps NaN", "eps", lambda: blocks.layer_norm([[1.0, 2.0]], eps=NAN))
case("blocks.layer_norm", "eps negative (used to give NaN on a constant row)", "eps",
     lambda: blocks.layer_norm([[2.0, 2.0]], eps=-1e-5))
case("blocks.layer_norm", "object dtype", "X", lambda: blocks.layer_norm(np.array([[1, "a"]], dtype=object)))
case("blocks.init_mlp", "d_model 0", "d_model", lambda: blocks.init_mlp(0, 0))
case("blocks.init_mlp", "expansion 2.5", "expansion", lambda: blocks.init_mlp(4, 0, expansion=2.5))
case("blocks.init_mlp", "rng a string", "rng", lambda: blocks.init_mlp(4, "rng"))
case("blocks.mlp", "W_1 of another width", "W_1", lambda: blocks.mlp(np.ones((2, 3)), np.eye(4), np.eye(4)))
case("blocks.mlp", "W_2 of another shape", "W_2", lambda: blocks.mlp(np.ones((2, 3)), np.eye(3), np.eye(2)))
case("blocks.mlp", "inf X", "X", lambda: blocks.mlp([[INF, 0.0, 0.0]], np.eye(3), np.eye(3)))
case("blocks.init_blocks", "n_blocks 0", "n_blocks", lambda: blocks.init_blocks(0, 4, 0))
case("blocks.init_blocks", "d_model 2.5", "d_model", lambda: blocks.init_blocks(1, 2.5, 0))
case("blocks.init_blocks", "negative seed", "rng", lambda: blocks.init_blocks(1, 4, -1))
case("blocks.block_stack_states", "unknown norm", "norm", lambda: blocks.block_stack_states(np.ones((3, 4)), _BLK, norm="mid"))
case("blocks.block_stack_states", "residual=False with a norm", "residual",
     lambda: blocks.block_stack_states(np.ones((3, 4)), _BLK, residual=False, norm="pre"))
case("blocks.block_stack_states", "a block of 4 arrays", "blocks",
     lambda: blocks.block_stack_states(np.ones((3, 4)), [_BLK[0][:4]]))
case("blocks.block_stack_states", "1-D X", "X", lambda: blocks.block_stack_states(np.ones(4), _BLK))
case("blocks.block_stack_states", "NaN X", "X", lambda: blocks.block_stack_states(np.full((3, 4), NAN), _BLK))

# serving
_SHAPE = serving.MODEL_SHAPES["OPT-13B"]
_SHAPE_ARGS = dict(name="m", n_layers=2, d_model=8, n_heads=2, n_kv_heads=2, d_head=4, d_ff=16, vocab=10,
                   gated=False, tied=True, published_params=1e3, max_context=16, source="x")
case("serving.ModelShape", "d_model 0", "d_model", lambda: serving.ModelShape(**{**_SHAPE_ARGS, "d_model": 0}))
case("serving.ModelShape", "n_kv_heads not dividing n_heads", "n_kv_heads",
     lambda: serving.ModelShape(**{**_SHAPE_ARGS, "n_kv_heads": 3}))
case("serving.ModelShape", "n_heads * d_head != d_model", "d_head", lambda: serving.ModelShape(**{**_SHAPE_ARGS, "d_head": 3}))
case("serving.ModelShape", "n_layers 2.5", "n_layers", lambda: serving.ModelShape(**{**_SHAPE_ARGS, "n_layers": 2.5}))
case("serving.ModelShape", "published_params NaN", "published_params",
     lambda: serving.ModelShape(**{**_SHAPE_ARGS, "published_params": NAN}))
case("serving.kv_cache_bytes", "t 0", "t", lambda: serving.kv_cache_bytes(_SHAPE, 0))
case("serving.kv_cache_bytes", "shape a name", "shape", lambda: serving.kv_cache_bytes("OPT-13B"))
case("serving.weight_count", "shape a dict", "shape", lambda: serving.weight_count({"d_model": 8}))
case("serving.weights_read", "shape None", "shape", lambda: serving.weights_read(None))
case("serving.decode_step_cost", "batch 0", "batch", lambda: serving.decode_step_cost(_SHAPE, 4, batch=0))
case("serving.decode_step_cost", "t 2.5", "t", lambda: serving.decode_step_cost(_SHAPE, 2.5))
case("serving.prefill_cost", "n 0", "n", lambda: serving.prefill_cost(_SHAPE, 0))
case("serving.prefill_cost", "shape a name", "shape", lambda: serving.prefill_cost("OPT-13B", 4))
_COST = {"weight_flops": 4.0, "attention_flops": 0.0, "weight_bytes": 2.0, "cache_bytes": 0.0}
case("serving.arithmetic_intensity", "a missing entry", "cost",
     lambda: serving.arithmetic_intensity({"weight_flops": 4.0}), KeyError)
case("serving.arithmetic_intensity", "no bytes moved", "cost",
     lambda: serving.arithmetic_intensity({**_COST, "weight_bytes": 0.0}))
case("serving.arithmetic_intensity", "NaN FLOPs (used to return NaN)", "weight_flops",
     lambda: serving.arithmetic_intensity({**_COST, "weight_flops": NAN}))
case("serving.arithmetic_intensity", "a list", "cost", lambda: serving.arithmetic_intensity([4.0, 0.0, 2.0, 0.0]))
_DEVICE = serving.DEVICES["H100"]
case("serving.Device", "bandwidth 0", "bandwidth", lambda: serving.Device("d", 1e12, 0.0, 1e9, "x"))
case("serving.Device", "peak_flops NaN", "peak_flops", lambda: serving.Device("d", NAN, 1e9, 1e9, "x"))
case("serving.Device", "rate empty", "rate", lambda: serving.Device("d", 1e12, 1e9, 1e9, "x", rate=""))
case("serving.ridge_point", "device a name", "device", lambda: serving.ridge_point("H100"))
case("serving.roofline_time", "device a name", "device", lambda: serving.roofline_time(_COST, "H100"))
case("serving.roofline_time", "a missing entry", "cost", lambda: serving.roofline_time({"weight_flops": 1.0}, _DEVICE),
     KeyError)
case("serving.intensity_limit", "t 0", "t", lambda: serving.intensity_limit(_SHAPE, 0))
case("serving.intensity_limit", "shape a name", "shape", lambda: serving.intensity_limit("OPT-13B", 4))
case("serving.max_batch", "device None", "device", lambda: serving.max_batch(_SHAPE, None, 4))
case("serving.max_batch", "t -1", "t", lambda: serving.max_batch(_SHAPE, _DEVICE, -1))

# gradient_paths: the depth experiment
case("gradient_paths.token_uniformity", "T 1", "X", lambda: gradient_paths.token_uniformity(np.ones((1, 3))))
case("gradient_paths.token_uniformity", "1-D", "X", lambda: gradient_paths.token_uniformity(np.ones(3)))
case("gradient_paths.token_uniformity", "NaN (used to return NaN)", "X",
     lambda: gradient_paths.token_uniformity([[1.0, NAN], [0.0, 1.0]]))
case("gradient_paths.token_uniformity", "all zeros (used to return NaN)", "X",
     lambda: gradient_paths.token_uniformity(np.zeros((3, 2))))
case("gradient_paths.depth_arms", "T 1", "T", lambda: gradient_paths.depth_arms(max_depth=1, T=1, d=2, seeds=(0,)))
case("gradient_paths.depth_arms", "max_depth 0", "max_depth", lambda: gradient_paths.depth_arms(max_depth=0))
case("gradient_paths.depth_arms", "no seeds", "seeds", lambda: gradient_paths.depth_arms(max_depth=1, seeds=()))
case("gradient_paths.depth_arms", "negative seed", "seeds", lambda: gradient_paths.depth_arms(max_depth=1, seeds=(-1,)))
case("gradient_paths.depth_arms", "unknown arm", "arms",
     lambda: gradient_paths.depth_arms(max_depth=1, T=2, d=2, seeds=(0,), arms=("no such arm",)))

# capacity: the count baselines
case("capacity.count_probe", "vocab_size 1", "vocab_size", lambda: capacity.count_probe(T=3, vocab_size=1))
case("capacity.count_probe", "T 0", "T", lambda: capacity.count_probe(T=0))
case("capacity.count_probe", "n_test 0", "n_test", lambda: capacity.count_probe(T=3, n_test=0))
case("capacity.count_probe", "negative seed", "seed", lambda: capacity.count_probe(T=3, vocab_size=2, n_train=10, n_test=10, seed=-1))
case("capacity.count_r2", "first beyond T", "first", lambda: capacity.count_r2("RNN", 4, first=5, T=4))
case("capacity.count_r2", "first 0", "first", lambda: capacity.count_r2("RNN", 4, first=0, T=4))
case("capacity.count_r2", "unknown model", "model",
     lambda: capacity.count_r2("GRU", 4, first=2, T=4, vocab_size=2, n_train=10, n_test=10))
case("capacity.count_r2", "ridge NaN (used to return NaN)", "ridge",
     lambda: capacity.count_r2("RNN", 4, first=2, T=4, vocab_size=2, n_train=10, n_test=10, ridge=NAN))
case("capacity.count_r2", "d_hidden 2.5", "d_hidden", lambda: capacity.count_r2("RNN", 2.5, first=2, T=4))

# timing: the chapters' other measurements
case("timing.recurrence_costs", "no lengths", "lengths", lambda: timing.recurrence_costs([]))
case("timing.recurrence_costs", "batch 0", "batch", lambda: timing.recurrence_costs([2], d=2, batch=0))
case("timing.recurrence_costs", "repeat 2.5", "repeat", lambda: timing.recurrence_costs([2], d=2, repeat=2.5))
case("timing.recurrence_costs", "negative seed", "seed", lambda: timing.recurrence_costs([2], d=2, seed=-1))
case("timing.attention_split_times", "length 0", "lengths", lambda: timing.attention_split_times([0], d=2))
case("timing.attention_split_times", "d 0", "d", lambda: timing.attention_split_times([2], d=0))
case("timing.attention_split_times", "repeat 0", "repeat", lambda: timing.attention_split_times([2], d=2, repeat=0))
case("timing.attention_split_times", "negative seed", "seed", lambda: timing.attention_split_times([2], d=2, seed=-1))
case("timing.toy_decoder", "d_model 0", "d_model", lambda: timing.toy_decoder(0, 1, 4, 0))
case("timing.toy_decoder", "vocab_size 2.5", "vocab_size", lambda: timing.toy_decoder(4, 1, 2.5, 0))
case("timing.toy_decoder", "rng a string", "rng", lambda: timing.toy_decoder(4, 1, 4, "seed"))
case("timing.prefill_decode_times", "length 1", "lengths", lambda: timing.prefill_decode_times([1], d_model=4))
case("timing.prefill_decode_times", "n_layers 0", "n_layers", lambda: timing.prefill_decode_times([2], n_layers=0))
case("timing.prefill_decode_times", "vocab_size 2.5", "vocab_size", lambda: timing.prefill_decode_times([2], vocab_size=2.5))
case("timing.prefill_decode_times", "negative seed", "seed",
     lambda: timing.prefill_decode_times([2], d_model=4, n_layers=1, vocab_size=5, seed=-1))

# vectors: the analogy rules
case("vectors.analogy_accuracy_by", "unknown method", "method",
     lambda: vectors.analogy_accuracy_by(EMB, [("cat", "kitten", "car", "Paris")], method="3CosMax"))
case("vectors.analogy_accuracy_by", "a 3-tuple", "questions",
     lambda: vectors.analogy_accuracy_by(EMB, [("cat", "kitten", "car")]))
case("vectors.analogy_accuracy_by", "a number in a question", "questions",
     lambda: vectors.analogy_accuracy_by(EMB, [("cat", "kitten", "car", 3)]))
case("vectors.analogy_accuracy_by", "questions a string", "questions",
     lambda: vectors.analogy_accuracy_by(EMB, "cat kitten car paris"))
case("vectors.analogy_accuracy_by", "batch_size 0", "batch_size",
     lambda: vectors.analogy_accuracy_by(EMB, [("cat", "kitten", "car", "Paris")], batch_size=0))
case("vectors.analogy_accuracy_by", "restrict_vocab 0", "restrict_vocab",
     lambda: vectors.analogy_accuracy_by(EMB, [("cat", "kitten", "car", "Paris")], restrict_vocab=0))
case("vectors.analogy_accuracy_by", "emb a dict", "emb", lambda: vectors.analogy_accuracy_by({"cat": [1.0]}, []))
case("vectors.analogy_hits", "unknown method", "method",
     lambda: vectors.analogy_hits(EMB, [("cat", "kitten", "car", "Paris")], method="3CosMax"))
case("vectors.analogy_hits", "a 3-tuple", "questions", lambda: vectors.analogy_hits(EMB, [("cat", "kitten", "car")]))
case("vectors.analogy_hits", "questions a string", "questions", lambda: vectors.analogy_hits(EMB, "cat kitten car paris"))
case("vectors.analogy_hits", "restrict_vocab 0", "restrict_vocab",
     lambda: vectors.analogy_hits(EMB, [("cat", "kitten", "car", "Paris")], restrict_vocab=0))
case("vectors.analogy_hits", "emb a dict", "emb", lambda: vectors.analogy_hits({"cat": [1.0]}, []))

# pmi: SGNS and shifted PMI
_PC = dict(centres=np.array([0, 1]), contexts=np.array([1, 0]), counts=np.array([2.0, 2.0]),
           centre_totals=np.array([2.0, 2.0]), draws=1)
case("pmi.PairCounts", "counts of another length", "counts", lambda: pmi.PairCounts(**{**_PC, "counts": np.ones(3)}))
case("pmi.PairCounts", "draws 0", "draws", lambda: pmi.PairCounts(**{**_PC, "draws": 0}))
case("pmi.PairCounts", "a negative centre id", "centres", lambda: pmi.PairCounts(**{**_PC, "centres": np.array([-1, 0])}))
case("pmi.PairCounts.at_least", "threshold 0", "threshold", lambda: pmi.PairCounts(**_PC).at_least(0))
case("pmi.pair_counts", "keep above 1", "keep", lambda: pmi.pair_counts([np.array([0, 1])], [0.5, 2.0], 1, 1, 0))
case("pmi.pair_counts", "window 0", "window", lambda: pmi.pair_counts([np.array([0, 1])], [1.0, 1.0], 0, 1, 0))
case("pmi.pair_counts", "epochs 0", "epochs", lambda: pmi.pair_counts([np.array([0, 1])], [1.0, 1.0], 1, 0, 0))
case("pmi.pair_counts", "draws 0", "draws", lambda: pmi.pair_counts([np.array([0, 1])], [1.0, 1.0], 1, 1, 0, draws=0))
case("pmi.pair_counts", "rng a str", "rng", lambda: pmi.pair_counts([np.array([0, 1])], [1.0, 1.0], 1, 1, "zero"))
case("pmi.sgns_optimum", "a zero count", "counts", lambda: pmi.sgns_optimum([1.0, 0.0], [1.0, 1.0], [0.5, 0.5], 1))
case("pmi.sgns_optimum", "totals of another length", "centre_totals",
     lambda: pmi.sgns_optimum([1.0], [1.0, 1.0], [0.5], 1))
case("pmi.sgns_optimum", "negatives 0", "negatives", lambda: pmi.sgns_optimum([1.0], [1.0], [0.5], 0))
case("pmi.pair_scores", "a centre beyond V", "centres",
     lambda: pmi.pair_scores(np.ones((3, 2)), np.ones((3, 2)), [0, 3], [0, 1]))
case("pmi.pair_scores", "W_out of another shape", "W_out",
     lambda: pmi.pair_scores(np.ones((3, 2)), np.ones((3, 3)), [0, 1], [0, 1]))
case("pmi.shuffled_scores", "rng a str", "rng",
     lambda: pmi.shuffled_scores(np.ones((3, 2)), np.ones((3, 2)), [0, 1], [0, 1], "zero"))
case("pmi.without_words", "centres of another length", "centres", lambda: pmi.without_words([1.0, 2.0], [0, 1, 1], [0, 1]))
case("pmi.without_words", "tol 0", "tol", lambda: pmi.without_words([1.0, 2.0], [0, 1], [0, 1], tol=0))
case("pmi.without_words", "max_sweeps 0", "max_sweeps", lambda: pmi.without_words([1.0, 2.0], [0, 1], [0, 1], max_sweeps=0))
case("pmi.without_log_counts", "log_count too short", "log_count",
     lambda: pmi.without_log_counts([1.0, 2.0], [0, 3], [0, 1], [0.0, 1.0]))
case("pmi.fixed_effect_dof", "contexts of another length", "contexts", lambda: pmi.fixed_effect_dof([0, 1], [0]))
case("pmi.partial_correlation", "remove not a function", "remove",
     lambda: pmi.partial_correlation([1.0, 2.0], [2.0, 1.0], [0, 1], [0, 1], "words"))

# offsets: relations as directions
case("offsets.mean_offset_cosine", "one row", "offsets", lambda: offsets.mean_offset_cosine(np.ones((1, 3))))
case("offsets.mean_offset_cosine", "a zero row", "offsets", lambda: offsets.mean_offset_cosine(np.zeros((2, 3))))
case("offsets.mispaired_offset_cosines", "two pairs", "vecs", lambda: offsets.mispaired_offset_cosines(np.ones((2, 2, 3))))
case("offsets.mispaired_offset_cosines", "pairs of another count", "pairs",
     lambda: offsets.mispaired_offset_cosines(np.ones((3, 2, 3)), [("a", "b")]))
case("offsets.offset_gain", "NaN in vecs", "vecs", lambda: offsets.offset_gain(np.full((3, 2, 3), NAN)))
case("offsets.pair_vectors", "an unknown word", "Paris2", lambda: offsets.pair_vectors(EMB, [("cat", "Paris2")]), KeyError)
case("offsets.pair_vectors", "a pair of three words", "pairs", lambda: offsets.pair_vectors(EMB, [("cat", "car", "kitten")]))
case("offsets.relation_pairs", "emb a list", "emb", lambda: offsets.relation_pairs([1], []))
case("offsets.relation_pairs", "a 3-tuple", "questions", lambda: offsets.relation_pairs(EMB, [("cat", "kitten", "car")]))

# charlm
_CLM = charlm.init_charlm(len(charlm.ALPHABET), 4, 0)
_CIDS = np.array([[1, 2], [3, 4], [5, 6]])  # (T + 1, batch)
case("charlm.normalize_text", "bytes", "text", lambda: charlm.normalize_text(b"abc"))
case("charlm.normalize_text", "None", "text", lambda: charlm.normalize_text(None))
case("charlm.encode", "a character outside the alphabet", "text", lambda: charlm.encode("Abc"), KeyError)
case("charlm.encode", "a list of characters", "text", lambda: charlm.encode(["a", "b"]))
case("charlm.decode", "negative id", "ids", lambda: charlm.decode([0, -1]))
case("charlm.decode", "id beyond the alphabet", "ids", lambda: charlm.decode([len(charlm.ALPHABET)]))
case("charlm.decode", "float ids", "ids", lambda: charlm.decode([1.0]))
case("charlm.wikipedia_split", "held_out_fraction 1", "held_out_fraction", lambda: charlm.wikipedia_split(1.0))
case("charlm.wikipedia_split", "held_out_fraction NaN", "held_out_fraction", lambda: charlm.wikipedia_split(NAN))
case("charlm.init_charlm", "vocab_size 1", "vocab_size", lambda: charlm.init_charlm(1, 4, 0))
case("charlm.init_charlm", "d_hidden 2.5", "d_hidden", lambda: charlm.init_charlm(5, 2.5, 0))
case("charlm.init_charlm", "spectral_radius NaN", "spectral_radius", lambda: charlm.init_charlm(5, 4, 0, spectral_radius=NAN))
case("charlm.init_charlm", "rng a string", "rng", lambda: charlm.init_charlm(5, 4, "rng"))
case("charlm.charlm_loss_and_grads", "T 0", "ids", lambda: charlm.charlm_loss_and_grads(_CLM, _CIDS[:1]))
case("charlm.charlm_loss_and_grads", "float ids", "ids", lambda: charlm.charlm_loss_and_grads(_CLM, _CIDS.astype(float)))
case("charlm.charlm_loss_and_grads", "1-D ids", "ids", lambda: charlm.charlm_loss_and_grads(_CLM, _CIDS[:, 0]))
case("charlm.charlm_loss_and_grads", "h0 of another shape", "h0",
     lambda: charlm.charlm_loss_and_grads(_CLM, _CIDS, np.zeros((3, 4))))
case("charlm.charlm_loss_and_grads", "NaN W_out (used to give a NaN loss)", "W_out",
     lambda: charlm.charlm_loss_and_grads({**_CLM, "W_out": _CLM["W_out"] * NAN}, _CIDS))
case("charlm.charlm_loss_and_grads", "params without b_out", "b_out",
     lambda: charlm.charlm_loss_and_grads({k: v for k, v in _CLM.items() if k != "b_out"}, _CIDS), KeyError)
case("charlm.charlm_loss_and_grads", "params a list", "params", lambda: charlm.charlm_loss_and_grads(list(_CLM.values()), _CIDS))
case("charlm.bits_per_char", "fewer than 2 * batch ids", "ids", lambda: charlm.bits_per_char(_CLM, np.arange(10)))
case("charlm.bits_per_char", "batch 0", "batch", lambda: charlm.bits_per_char(_CLM, np.arange(40), batch=0))
case("charlm.bits_per_char", "chunk 2.5", "chunk", lambda: charlm.bits_per_char(_CLM, np.arange(40), chunk=2.5))
case("charlm.bits_per_char", "inf b_out", "b_out",
     lambda: charlm.bits_per_char({**_CLM, "b_out": _CLM["b_out"] + INF}, np.arange(40)))
case("charlm.ngram_bits_per_char", "order 0", "order", lambda: charlm.ngram_bits_per_char([0, 1], [0, 1], 2, order=0))
case("charlm.ngram_bits_per_char", "alpha 0", "alpha", lambda: charlm.ngram_bits_per_char([0, 1], [0, 1], 2, order=1, alpha=0.0))
case("charlm.interpolated_ngram_bits_per_char", "order 0", "order",
     lambda: charlm.interpolated_ngram_bits_per_char([0, 1], [0, 1], 2, order=0))
case("charlm.interpolated_ngram_bits_per_char", "id out of range", "test_ids",
     lambda: charlm.interpolated_ngram_bits_per_char([0, 1], [0, 2], 2, order=1))
case("charlm.interpolated_ngram_bits_per_char", "test shorter than order", "test_ids",
     lambda: charlm.interpolated_ngram_bits_per_char([0, 1, 0], [0], 2, order=2))
case("charlm.ngram_bits_per_char", "order so large the table cannot be held (used to exhaust memory)", "order",
     lambda: charlm.ngram_bits_per_char(np.arange(40) % 43, np.arange(40) % 43, 43, order=12))
case("charlm.ngram_bits_per_char", "test_ids shorter than order", "test_ids",
     lambda: charlm.ngram_bits_per_char([0, 1, 0], [0], 2, order=2))
case("charlm.ngram_bits_per_char", "id beyond vocab_size", "train_ids",
     lambda: charlm.ngram_bits_per_char([0, 5], [0, 1], 2, order=1))
case("charlm.CharLMConfig", "d_hidden 0", "d_hidden", lambda: charlm.CharLMConfig(d_hidden=0))
case("charlm.CharLMConfig", "lr NaN", "lr", lambda: charlm.CharLMConfig(lr=NAN))
case("charlm.CharLMConfig", "clip 0", "clip", lambda: charlm.CharLMConfig(clip=0.0))
case("charlm.CharLMConfig", "T 2.5", "T", lambda: charlm.CharLMConfig(T=2.5))
case("charlm.CharLMConfig", "negative seed", "seed", lambda: charlm.CharLMConfig(seed=-1))
_SMALL = charlm.CharLMConfig(d_hidden=2, T=2, batch=2, steps=1)
case("charlm.train_charlm", "config a dict", "config", lambda: charlm.train_charlm(np.arange(40), np.arange(40), {"T": 2}))
case("charlm.train_charlm", "train_ids too short for one chunk per stream", "train_ids",
     lambda: charlm.train_charlm(np.arange(5), np.arange(40), _SMALL))
case("charlm.train_charlm", "held_out_ids too short to score", "held_out_ids",
     lambda: charlm.train_charlm(np.arange(40), np.arange(5), _SMALL))
case("charlm.train_charlm", "negative id", "train_ids", lambda: charlm.train_charlm(np.arange(40) - 1, np.arange(40), _SMALL))
case("charlm.train_charlm", "patience 0", "patience",
     lambda: charlm.train_charlm(np.arange(40), np.arange(40), _SMALL, patience=0))
case("charlm.train_charlm", "patience 2.5", "patience",
     lambda: charlm.train_charlm(np.arange(40), np.arange(40), _SMALL, patience=2.5))
case("charlm.train_charlm", "keep_best a string", "keep_best",
     lambda: charlm.train_charlm(np.arange(40), np.arange(40), _SMALL, keep_best="yes"))
case("charlm.sample", "empty prefix", "prefix", lambda: charlm.sample(_CLM, "", 3, 1.0, 0))
case("charlm.sample", "temperature 0", "temperature", lambda: charlm.sample(_CLM, "a", 3, 0.0, 0))
case("charlm.sample", "n 0", "n", lambda: charlm.sample(_CLM, "a", 0, 1.0, 0))
case("charlm.sample", "rng a string", "rng", lambda: charlm.sample(_CLM, "a", 3, 1.0, "rng"))
case("charlm.sample", "a prefix character outside the alphabet", "prefix", lambda: charlm.sample(_CLM, "A", 3, 1.0, 0), KeyError)

# diagrams
_FIG, _AX = plt.subplots()
plt.close(_FIG)
case("diagrams.draw_unrolled", "unknown shape", "shape", lambda: diagrams.draw_unrolled(_AX, "one_to_many"))
case("diagrams.draw_unrolled", "T 1", "T", lambda: diagrams.draw_unrolled(_AX, "many_to_one", T=1))
case("diagrams.draw_unrolled", "T 2.5", "T", lambda: diagrams.draw_unrolled(_AX, "seq2seq", T=2.5))
case("diagrams.draw_unrolled", "ax None", "ax", lambda: diagrams.draw_unrolled(None, "many_to_one"))
case("diagrams.draw_folded_and_unrolled", "T 1", "T", lambda: diagrams.draw_folded_and_unrolled(_AX, T=1))
case("diagrams.draw_folded_and_unrolled", "ax a Figure", "ax", lambda: diagrams.draw_folded_and_unrolled(_FIG))
case("diagrams.window_pairs", "tokens a string", "tokens", lambda: diagrams.window_pairs("bank", 0, 2))
case("diagrams.window_pairs", "centre past the end", "centre", lambda: diagrams.window_pairs(["a", "b"], 2, 1))
case("diagrams.window_pairs", "window 0", "window", lambda: diagrams.window_pairs(["a", "b"], 0, 0))
case("diagrams.draw_skipgram_window", "ax None", "ax", lambda: diagrams.draw_skipgram_window(None, ["a", "b"], 0, 1))
case("diagrams.draw_skipgram_window", "fontsize nan", "fontsize",
     lambda: diagrams.draw_skipgram_window(_AX, ["a", "b"], 0, 1, fontsize=NAN))
case("diagrams.draw_skipgram_window", "centre 1.5", "centre", lambda: diagrams.draw_skipgram_window(_AX, ["a", "b"], 1.5, 1))
case("diagrams.draw_pmi_factorisation", "ax None", "ax", lambda: diagrams.draw_pmi_factorisation(None))
case("diagrams.draw_pmi_factorisation", "fontsize nan", "fontsize",
     lambda: diagrams.draw_pmi_factorisation(_AX, fontsize=NAN))


# issue 14: the GRU, packed seeds, the delay arms, number agreement, the cell drawings
_GW, _GB = gru.init_gru(3, 2, np.random.default_rng(0))
_GX = np.zeros((4, 3))
case("gru.init_gru", "d_hidden 0", "d_hidden", lambda: gru.init_gru(3, 0, np.random.default_rng(0)))
case("gru.init_gru", "update_bias NaN", "update_bias", lambda: gru.init_gru(3, 2, np.random.default_rng(0), update_bias=NAN))
case("gru.gru_step", "x_t of the wrong width", "x_t", lambda: gru.gru_step(np.zeros(4), np.zeros(2), _GW, _GB))
case("gru.gru_step", "NaN W", "W", lambda: gru.gru_step(np.zeros(3), np.zeros(2), _GW * NAN, _GB))
case("gru.gru_forward", "empty sequence", "xs", lambda: gru.gru_forward(np.zeros((0, 3)), np.zeros(2), _GW, _GB))
case("gru.gru_forward", "h0 of the wrong size", "h0", lambda: gru.gru_forward(_GX, np.zeros(3), _GW, _GB))
case("gru.gru_backward", "dhs of the wrong shape", "dhs",
     lambda: gru.gru_backward(_GX, np.zeros(2), _GW, _GB, np.zeros((3, 2))))
case("gru.gru_backward", "inf b", "b", lambda: gru.gru_backward(_GX, np.zeros(2), _GW, _GB + INF, np.zeros((4, 2))))
case("numeric.sigmoid_unchecked", "a list, not an array", "z", lambda: numeric.sigmoid_unchecked([0.0, 1.0]))
case("numeric.sigmoid_unchecked", "an integer array", "z", lambda: numeric.sigmoid_unchecked(np.arange(3)))
case("train.gru_cell", "update_bias NaN", "update_bias", lambda: train.gru_cell(NAN))
_ARM = pack.Arm("LSTM", "lstm", 2, 3.0)
_TASK = delay.DelayTask()
_PACK = pack.init_pack(_ARM, _TASK.d_in, _TASK.n_symbols, (0, 1))
_DX, _DY = _TASK.sample(np.random.default_rng(0), 3, 2)
case("pack.Arm", "unknown kind", "kind", lambda: pack.Arm("x", "lstmx"))
case("pack.Arm", "d_hidden 0", "d_hidden", lambda: pack.Arm("x", "rnn", 0))
case("pack.Arm", "option NaN", "option", lambda: pack.Arm("x", "gru", 4, NAN))
case("pack.Arm.n_params", "d_in 0", "d_in", lambda: _ARM.n_params(0, 4))
case("pack.init_pack", "no seeds", "seeds", lambda: pack.init_pack(_ARM, 9, 4, ()))
case("pack.init_pack", "n_classes 0", "n_classes", lambda: pack.init_pack(_ARM, 9, 0, (0,)))
case("pack.unpack", "k beyond the pack", "k", lambda: pack.unpack(_PACK, 2))
case("pack.unpack", "k 1.5", "k", lambda: pack.unpack(_PACK, 1.5))
case("pack.pack_logits", "unknown kind", "kind", lambda: pack.pack_logits("cnn", _PACK, _DX))
case("pack.pack_logits", "xs of the wrong width", "xs", lambda: pack.pack_logits("lstm", _PACK, _DX[..., :4]))
case("pack.pack_logits", "NaN xs", "xs", lambda: pack.pack_logits("lstm", _PACK, _DX * NAN))
case("pack.pack_loss_and_grads", "label out of range", "labels",
     lambda: pack.pack_loss_and_grads("lstm", _PACK, _DX, np.array([0, 1, 7])))
case("pack.pack_loss_and_grads", "params without W_out", "W_out",
     lambda: pack.pack_loss_and_grads("lstm", {k: v for k, v in _PACK.items() if k != "W_out"}, _DX, _DY),
     KeyError)
case("pack.train_arms", "no arms", "arms",
     lambda: pack.train_arms([], lambda rng, n: _TASK.sample(rng, n, 2), 9, 4, (0,)))
case("pack.train_arms", "arm_steps of an unknown arm", "arm_steps",
     lambda: pack.train_arms([_ARM], lambda rng, n: _TASK.sample(rng, n, 2), 9, 4, (0,), train.TrainConfig(steps=4),
                                arm_steps={"GRU": 2}))
case("pack.train_arms", "arm_steps above config.steps", "arm_steps",
     lambda: pack.train_arms([_ARM], lambda rng, n: _TASK.sample(rng, n, 2), 9, 4, (0,), train.TrainConfig(steps=4),
                                arm_steps={_ARM.name: 5}))
case("pack.train_arms", "arm_steps a list", "arm_steps",
     lambda: pack.train_arms([_ARM], lambda rng, n: _TASK.sample(rng, n, 2), 9, 4, (0,), arm_steps=[2]))
case("pack.train_arms", "keep_params not a checkpoint", "keep_params",
     lambda: pack.train_arms([_ARM], lambda rng, n: _TASK.sample(rng, n, 2), 9, 4, (0,), train.TrainConfig(steps=4),
                                test=_TASK.sample(np.random.default_rng(0), 5, 2), checkpoints=(2,), keep_params=(3,)))
case("pack.train_arms", "no seeds", "seeds",
     lambda: pack.train_arms([_ARM], lambda rng, n: _TASK.sample(rng, n, 2), 9, 4, ()))
case("pack.train_arms", "checkpoints without a test set", "checkpoints",
     lambda: pack.train_arms([_ARM], lambda rng, n: _TASK.sample(rng, n, 2), 9, 4, (0,),
                                train.TrainConfig(steps=2), checkpoints=(1,)))
case("pack.train_arms", "solve xs of the wrong width", "solve",
     lambda: pack.train_arms([_ARM], lambda rng, n: _TASK.sample(rng, n, 2), 9, 4, (0,),
                                solve=(_DX[..., :4], _DY)))
case("pack.train_arms", "solve xs 2-D", "solve",
     lambda: pack.train_arms([_ARM], lambda rng, n: _TASK.sample(rng, n, 2), 9, 4, (0,), solve=(_DX[0], _DY)))
case("pack.train_arms", "solve labels out of range", "solve",
     lambda: pack.train_arms([_ARM], lambda rng, n: _TASK.sample(rng, n, 2), 9, 4, (0,),
                                solve=(_DX, np.array([0, 1, 4]))))
case("pack.train_arms", "solve labels negative", "solve",
     lambda: pack.train_arms([_ARM], lambda rng, n: _TASK.sample(rng, n, 2), 9, 4, (0,),
                                solve=(_DX, np.array([0, -1, 2]))))
case("pack.train_arms", "solve labels of the wrong length", "solve",
     lambda: pack.train_arms([_ARM], lambda rng, n: _TASK.sample(rng, n, 2), 9, 4, (0,), solve=(_DX, _DY[:2])))
case("pack.train_arms", "solve labels floats", "solve",
     lambda: pack.train_arms([_ARM], lambda rng, n: _TASK.sample(rng, n, 2), 9, 4, (0,),
                                solve=(_DX, _DY.astype(float))))
case("pack.train_arms", "solve NaN xs", "solve",
     lambda: pack.train_arms([_ARM], lambda rng, n: _TASK.sample(rng, n, 2), 9, 4, (0,), solve=(_DX * NAN, _DY)))
case("pack.train_arms", "solve a bare array", "solve",
     lambda: pack.train_arms([_ARM], lambda rng, n: _TASK.sample(rng, n, 2), 9, 4, (0,), solve=_DX))
case("pack.train_arms", "solve a list holding a triple", "solve",
     lambda: pack.train_arms([_ARM], lambda rng, n: _TASK.sample(rng, n, 2), 9, 4, (0,),
                                solve=[(_DX, _DY), (_DX, _DY, _DY)]))
case("pack.train_arms", "check_every 0", "check_every",
     lambda: pack.train_arms([_ARM], lambda rng, n: _TASK.sample(rng, n, 2), 9, 4, (0,), check_every=0))
case("pack.train_arms", "solved_at 0", "solved_at",
     lambda: pack.train_arms([_ARM], lambda rng, n: _TASK.sample(rng, n, 2), 9, 4, (0,), solved_at=0.0))
case("pack.train_arms", "solved_at 1.5", "solved_at",
     lambda: pack.train_arms([_ARM], lambda rng, n: _TASK.sample(rng, n, 2), 9, 4, (0,), solved_at=1.5))
case("pack.train_arms", "solved_at NaN", "solved_at",
     lambda: pack.train_arms([_ARM], lambda rng, n: _TASK.sample(rng, n, 2), 9, 4, (0,), solved_at=NAN))
case("pack.median_steps_to_solve", "solved of another shape", "solved",
     lambda: pack.median_steps_to_solve([[25, 50]], [True, False]))
case("pack.median_steps_to_solve", "solved not bool", "solved", lambda: pack.median_steps_to_solve([25, 50], [1, 0]))
case("pack.median_steps_to_solve", "NaN steps", "steps_to_solve",
     lambda: pack.median_steps_to_solve([25, NAN], [True, False]))
case("pack.median_steps_to_solve", "axis beyond the array", "axis",
     lambda: pack.median_steps_to_solve([25, 50], [True, False], axis=1))
_RUNS = pack.train_arms([_ARM], lambda rng, n: _TASK.sample(rng, n, 2), _TASK.d_in, _TASK.n_symbols, (0,),
                           train.TrainConfig(steps=1))
case("pack.pack_accuracy", "labels of the wrong length", "labels",
     lambda: pack.pack_accuracy(_RUNS["LSTM"], _DX, np.array([0, 1])))
case("delay.arms_experiment", "no budgets", "budgets", lambda: delay.arms_experiment([2], budgets=()))
case("delay.arms_experiment", "a budget above config.steps", "budgets",
     lambda: delay.arms_experiment([2], budgets=(500,), config=train.TrainConfig(steps=10)))
case("delay.arms_experiment", "negative delay", "delays", lambda: delay.arms_experiment([-1]))
case("delay.arms_experiment", "cap 0", "cap", lambda: delay.arms_experiment([2], stop_when_solved=True, cap=0))
case("delay.arms_experiment", "a budget above the cap", "budgets",
     lambda: delay.arms_experiment([2], budgets=(300,), stop_when_solved=True, cap=200))
case("delay.arms_experiment", "check_every 0", "check_every",
     lambda: delay.arms_experiment([2], stop_when_solved=True, check_every=0))
case("delay.arms_experiment", "solved_at 1.5", "solved_at", lambda: delay.arms_experiment([2], solved_at=1.5))
case("delay.arms_experiment", "n_solve 0", "n_solve", lambda: delay.arms_experiment([2], stop_when_solved=True, n_solve=0))
case("delay.arms_experiment", "stop_when_solved a string", "stop_when_solved",
     lambda: delay.arms_experiment([2], stop_when_solved="yes"))
_AR = delay.ArmsResult((_ARM,), np.array([2]), (1,), (0,), np.zeros((1, 1, 1, 1)), {}, {"LSTM": 1}, 0.25)
case("delay.ArmsResult.combine", "no parts", "parts", lambda: delay.ArmsResult.combine([]))
case("delay.ArmsResult.combine", "parts of different seeds", "parts",
     lambda: delay.ArmsResult.combine([_AR, dataclasses.replace(_AR, seeds=(1,))]))
case("delay.ArmsResult.index", "unknown arm", "name", lambda: _AR.index("GRU"), KeyError)
case("delay.ArmsResult.up_to", "a budget not run", "budget", lambda: _AR.up_to(2))
case("delay.ArmsResult.up_to", "weights not kept", "budget", lambda: dataclasses.replace(_AR, runs={2: {
    "LSTM": pack.PackRun(_ARM, (0,), {}, np.zeros((1, 1)), np.ones(1), {1: np.ones(1)})}}).up_to(1))
case("delay.ArmsResult.up_to", "an arm not trained to it", "budget",
     lambda: dataclasses.replace(_AR, accuracy=np.full((1, 1, 1, 1), np.nan)).up_to(1))
case("delay.ArmsResult.budget_table", "a delay not run", "delay", lambda: _AR.budget_table(3))
case("delay.arms_experiment", "arm_steps not a budget", "arm_steps",
     lambda: delay.arms_experiment([2], budgets=(100, 200), arm_steps={"RNN": 150}))
case("delay.arms_experiment", "keep_params not a budget", "keep_params",
     lambda: delay.arms_experiment([2], budgets=(100, 200), keep_params=(150,)))
case("agreement.AgreementTask", "n_nouns 0", "n_nouns", lambda: agreement.AgreementTask(n_nouns=0))
case("agreement.AgreementTask", "p_noun 1.5", "p_noun", lambda: agreement.AgreementTask(p_noun=1.5))
case("agreement.AgreementTask", "max_prefix -1", "max_prefix", lambda: agreement.AgreementTask(max_prefix=-1))
case("agreement.AgreementTask.sample", "prefix above max_prefix", "prefix",
     lambda: agreement.AgreementTask(max_prefix=2).sample(np.random.default_rng(0), 2, 3, prefix=3))
case("agreement.AgreementTask.sample", "rng a string", "rng", lambda: agreement.AgreementTask().sample("rng", 2, 3))
case("statistics.wilson_interval", "k above n", "k", lambda: statistics.wilson_interval(11, 10))
case("statistics.wilson_interval", "n 0", "n", lambda: statistics.wilson_interval(0, 0))
case("statistics.wilson_interval", "z 0", "z", lambda: statistics.wilson_interval(1, 2, z=0.0))
case("statistics.fisher_exact", "k1 above n1", "k1", lambda: statistics.fisher_exact(5, 4, 1, 4))
case("statistics.fisher_exact", "n2 0", "n2", lambda: statistics.fisher_exact(1, 4, 0, 0))
case("statistics.fisher_exact", "k2 negative", "k2", lambda: statistics.fisher_exact(1, 4, -1, 4))
case("statistics.geometric_mean", "a negative norm", "rows", lambda: statistics.geometric_mean([[1.0, -2.0]]))
case("statistics.geometric_mean", "NaN rows", "rows", lambda: statistics.geometric_mean([[NAN]]))
case("statistics.geometric_mean", "nothing to average", "rows", lambda: statistics.geometric_mean(np.zeros((0, 3))))
case("statistics.geometric_mean", "axis beyond rows", "axis", lambda: statistics.geometric_mean([1.0, 2.0], axis=1))
case("agreement.AgreementTask.sample", "more attractors than distance", "attractors",
     lambda: agreement.AgreementTask().sample(np.random.default_rng(0), 2, 3, attractors=4))
case("agreement.AgreementTask.sample", "n 0", "n", lambda: agreement.AgreementTask().sample(np.random.default_rng(0), 0, 3))
case("agreement.agreement_experiment", "train_distances reversed", "train_distances",
     lambda: agreement.agreement_experiment([_ARM], [2], train_distances=(5, 1)))
case("agreement.agreement_experiment", "negative distance", "distances",
     lambda: agreement.agreement_experiment([_ARM], [-2]))
case("agreement.agreement_experiment", "cap 0", "cap",
     lambda: agreement.agreement_experiment([_ARM], [2], stop_when_solved=True, cap=0))
case("agreement.agreement_experiment", "check_every 0", "check_every",
     lambda: agreement.agreement_experiment([_ARM], [2], stop_when_solved=True, check_every=0))
case("agreement.agreement_experiment", "solved_at 0", "solved_at",
     lambda: agreement.agreement_experiment([_ARM], [2], stop_when_solved=True, solved_at=0.0))
case("agreement.agreement_experiment", "n_solve 0", "n_solve",
     lambda: agreement.agreement_experiment([_ARM], [2], stop_when_solved=True, n_solve=0))
case("agreement.agreement_experiment", "stop_when_solved 1", "stop_when_solved",
     lambda: agreement.agreement_experiment([_ARM], [2], stop_when_solved=1))
case("agreement.solve_set", "task a DelayTask", "task", lambda: agreement.solve_set(_TASK))
case("agreement.solve_set", "train_distances reversed", "train_distances",
     lambda: agreement.solve_set(agreement.AgreementTask(), (5, 1)))
case("agreement.solve_set", "n_per_distance 0", "n_per_distance",
     lambda: agreement.solve_set(agreement.AgreementTask(), (1, 3), 0))
case("agreement.solve_set", "negative seed", "seed", lambda: agreement.solve_set(agreement.AgreementTask(), (1, 3), seed=-1))
case("agreement.solve_set", "attractors empty", "attractors",
     lambda: agreement.solve_set(agreement.AgreementTask(), (1, 3), attractors=()))
case("agreement.solve_set", "attractors negative", "attractors",
     lambda: agreement.solve_set(agreement.AgreementTask(), (1, 3), attractors=(0, -1)))
case("agreement.agreement_experiment", "solve_attractors 1.5", "solve_attractors",
     lambda: agreement.agreement_experiment([_ARM], [2], stop_when_solved=True, solve_attractors=(1.5,)))
case("agreement.AgreementTask.sample", "before above prefix", "before",
     lambda: agreement.AgreementTask().sample(np.random.default_rng(0), 2, 3, attractors=1, prefix=2, before=3))
case("agreement.AgreementTask.sample", "before negative", "before",
     lambda: agreement.AgreementTask().sample(np.random.default_rng(0), 2, 3, attractors=1, before=-1))
case("agreement.AgreementTask.sample", "before without attractors", "attractors",
     lambda: agreement.AgreementTask().sample(np.random.default_rng(0), 2, 3, before=1))
case("agreement.AgreementTask.sample", "prefix_nouns unknown", "prefix_nouns",
     lambda: agreement.AgreementTask().sample(np.random.default_rng(0), 2, 3, attractors=1, prefix_nouns="plural"))
case("agreement.AgreementTask.sample", "prefix_nouns without attractors", "prefix_nouns",
     lambda: agreement.AgreementTask().sample(np.random.default_rng(0), 2, 3, prefix_nouns="either"))
case("agreement.agreement_experiment", "n_test 0", "n_test", lambda: agreement.agreement_experiment([_ARM], [2], n_test=0))


@functools.lru_cache(maxsize=1)
def _agreement_result():
    """A result with trained models (one update), for its test method."""
    return agreement.agreement_experiment([_ARM], [2], attractors=(0,), seeds=(0,), config=train.TrainConfig(steps=1),
                                          n_test=4, task=agreement.AgreementTask(max_prefix=2), train_distances=(1, 2))


case("agreement.AgreementResult.test", "a result without trained models", "runs",
     lambda: dataclasses.replace(_agreement_result(), runs=None).test())
case("agreement.AgreementResult.test", "negative distance", "distances", lambda: _agreement_result().test([-1]))
case("agreement.AgreementResult.test", "attractors 1.5", "attractors", lambda: _agreement_result().test(attractors=[1.5]))
case("agreement.AgreementResult.test", "prefix above max_prefix", "prefix", lambda: _agreement_result().test(prefix=3))
case("agreement.AgreementResult.test", "prefix an empty list", "prefix", lambda: _agreement_result().test(prefix=[]))
case("agreement.AgreementResult.test", "prefix a string", "prefix", lambda: _agreement_result().test(prefix="all"))
case("agreement.AgreementResult.test", "before above a prefix among them", "before",
     lambda: _agreement_result().test(prefix=[0, 2], before=1))
case("agreement.AgreementResult.test", "prefix_nouns unknown", "prefix_nouns",
     lambda: _agreement_result().test(prefix_nouns="mixed"))
case("agreement.AgreementResult.test", "n_test 0", "n_test", lambda: _agreement_result().test(n_test=0))
case("agreement.AgreementResult.test", "n_test below the prefix lengths", "n_test",
     lambda: _agreement_result().test(prefix=[0, 1, 2], n_test=2))
case("agreement.AgreementResult.test", "negative seed", "seed", lambda: _agreement_result().test(seed=-1))
case("senses.make_distant_corpus", "held_out 0", "held_out", lambda: senses.make_distant_corpus(held_out=0))
case("senses.make_distant_corpus", "per_pair 0", "per_pair", lambda: senses.make_distant_corpus(per_pair=0))
case("cell_diagram.draw_lstm_cell", "ax None", "ax", lambda: cell_diagram.draw_lstm_cell(None))
case("cell_diagram.draw_gru_cell", "ax a Figure", "ax", lambda: cell_diagram.draw_gru_cell(_FIG))
_AW, _AB = np.zeros((8, 3)), np.zeros(8)
case("ablation.lstm_forward_ablated", "unknown gate", "clamp",
     lambda: ablation.lstm_forward_ablated(np.zeros((3, 1)), np.zeros(2), np.zeros(2), _AW, _AB,
                                           clamp={"reset": (True, 0.0)}))
case("ablation.lstm_forward_ablated", "forget clamped to 2", "clamp",
     lambda: ablation.lstm_forward_ablated(np.zeros((3, 1)), np.zeros(2), np.zeros(2), _AW, _AB,
                                           clamp={"forget": (True, 2.0)}))
case("ablation.lstm_forward_ablated", "where not boolean", "h_read",
     lambda: ablation.lstm_forward_ablated(np.zeros((3, 1)), np.zeros(2), np.zeros(2), _AW, _AB,
                                           h_read=(np.ones(3), 0.0)))
case("ablation.lstm_forward_ablated", "where of the wrong shape", "h_read",
     lambda: ablation.lstm_forward_ablated(np.zeros((3, 1)), np.zeros(2), np.zeros(2), _AW, _AB,
                                           h_read=(np.ones((4, 1), bool), 0.0)))
case("ablation.lstm_forward_ablated", "NaN value", "clamp",
     lambda: ablation.lstm_forward_ablated(np.zeros((3, 1)), np.zeros(2), np.zeros(2), _AW, _AB,
                                           clamp={"input": (True, float("nan"))}))
case("ablation.lstm_forward_ablated", "empty sequence", "xs",
     lambda: ablation.lstm_forward_ablated(np.zeros((0, 1)), np.zeros(2), np.zeros(2), _AW, _AB))

# --- the tests ---------------------------------------------------------------------------------


def test_every_public_callable_has_a_bad_input_case():
    found = public_callables()
    covered = {target for target, *_ in CASES}
    missing = sorted(set(found) - covered - set(NO_INPUT))
    assert not missing, f"public callables without a bad-input case in tests/test_bad_input.py: {missing}"
    stale = sorted((covered | set(NO_INPUT)) - set(found))
    assert not stale, f"cases for callables that no longer exist: {stale}"
    for name in NO_INPUT:  # an exemption must be a record, a mixin, an exception class or take no argument but self
        obj = found[name]
        if inspect.isclass(obj) and issubclass(obj, BaseException):
            assert "exception" in NO_INPUT[name], name
        elif inspect.isclass(obj) and "mixin" in NO_INPUT[name]:
            assert "__init__" not in vars(obj), f"{name} has an __init__: it needs bad-input cases"
        elif inspect.isclass(obj):
            assert dataclasses.is_dataclass(obj) and "record" in NO_INPUT[name], name
        elif NO_INPUT[name] == "takes no arguments":
            params = [p for p in inspect.signature(obj).parameters.values() if p.name != "self"]
            assert not params, f"{name} takes {params}: it needs bad-input cases"


def test_every_validating_callable_documents_its_errors():
    """A callable with bad-input cases says what it raises (a "Raises" section, or a sentence)."""
    found = public_callables()
    undocumented = sorted(name for name in {t for t, *_ in CASES}
                          if "raise" not in (inspect.getdoc(found[name]) or "").lower())
    assert not undocumented, f"no Raises section: {undocumented}"


def names(arg: str, message: str) -> bool:
    """Whether ``message`` names ``arg`` as a whole word: ``b`` is not named by ``b_out`` or
    ``by``, nor ``xs`` by ``dxs``. This is ``\\b`` + the name + ``\\b``, written as lookarounds
    (no word character either side) so that a name ending in ``]``, ``params['b_out']``, works too."""
    return re.search(r"(?<!\w)" + re.escape(arg) + r"(?!\w)", message) is not None


def test_names_matches_whole_words_only():
    assert names("b", "b must have shape (8,)") and names("b", "layers[0]: W_q or b, got 3")
    assert not names("b", "b_out must have shape (3,)") and not names("b", "a bad argument")
    assert not names("xs", "dxs must be finite") and names("xs", "xs must be finite")
    assert names("W_h", "W_h must be square") and not names("W_h", "W_hx must be square")
    assert names("params['b_out']", "params['b_out'] must have shape (5,)")


@contextlib.contextmanager
def time_limit(seconds: int):
    def expire(signum, frame):
        raise TimeoutError(f"no answer within {seconds} s: a hang")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@pytest.mark.parametrize("target,label,arg,thunk,exc", CASES, ids=[f"{t}: {lab}" for t, lab, *_ in CASES])
def test_bad_input_gets_a_clear_error(target, label, arg, thunk, exc):
    with time_limit(TIME_LIMIT), np.errstate(all="raise"):
        try:
            result = thunk()
        except (ValueError, KeyError) as err:
            assert isinstance(err, exc), f"{target} ({label}) raised {type(err).__name__}, expected {exc.__name__}: {err}"
            message = str(err)
            assert names(arg, message), f"{target} ({label}): the message does not name {arg!r}: {message}"
            return
    pytest.fail(f"{target} ({label}) returned {result!r} instead of raising {exc.__name__} naming {arg!r}")


def test_the_walk_sees_a_new_function(monkeypatch):
    """The introspection would catch a public function added without a case."""
    def brand_new(x):
        return x

    brand_new.__module__ = "seqmodels.common.vectors"
    monkeypatch.setattr(vectors, "brand_new", brand_new, raising=False)
    assert "vectors.brand_new" in public_callables()
    assert "vectors.brand_new" not in {t for t, *_ in CASES}


# --- what is not bad input: lists where arrays belong, int arrays, T = 1, extreme finite values ----


def test_lists_and_int_arrays_are_accepted_where_unambiguous():
    xs = [[1, 0, 0], [0, 1, 0]]  # (T, d_in) as nested lists of ints
    np.testing.assert_allclose(rnn.rnn_forward(xs, [0.0] * 4, W_h.tolist(), W_x.tolist(), b_rnn.tolist()),
                               rnn.rnn_forward(np.array(xs, float), np.zeros(4), W_h, W_x, b_rnn), rtol=0, atol=0)
    out, A = attention.self_attention([[1, 0, 0, 0], [0, 1, 0, 0]], *ATT)
    assert out.shape == (2, 4) and np.allclose(A.sum(axis=1), 1)
    assert vectors.one_hot([2, 0], 3).tolist() == [[0, 0, 1], [1, 0, 0]]
    assert numeric.softmax([0, 0]).tolist() == [0.5, 0.5]
    assert train.accuracy(train.RNN, RNN_PARAMS, XS, [0, 1]) in (0.0, 0.5, 1.0)


def test_one_step_sequences_are_valid():
    """T = 1 is a sequence: the recurrent layers and attention answer it (the biLM, which needs a
    token on each side, and the probes of a *next* token are the cases above that refuse it)."""
    hs = rnn.rnn_forward(np.ones((1, 3)), np.zeros(4), W_h, W_x, b_rnn)
    np.testing.assert_allclose(hs[0], np.tanh(W_x @ np.ones(3)), rtol=1e-12)
    hs, cs = lstm.lstm_forward(np.ones((1, 3)), np.zeros(4), np.zeros(4), W_lstm, b_lstm)
    assert hs.shape == cs.shape == (1, 4)
    out, A = attention.self_attention(np.ones((1, 4)), *ATT, causal=True)
    assert A.tolist() == [[1.0]]


def test_extreme_finite_values_get_correct_answers():
    """Finite inputs whose squares overflow or underflow: answers, not NaN or zeros."""
    assert vectors.cosine_similarity([1e200, 0.0], [1e200, 1e200]) == pytest.approx(2 ** -0.5, rel=1e-12)
    assert vectors.cosine_similarity([1e-200, 1e-200], [1e-200, 0.0]) == pytest.approx(2 ** -0.5, rel=1e-12)
    clipped, norm = optim.clip_grad_norm({"a": np.array([3e300]), "b": np.array([4e300])}, 1.0)
    assert norm == pytest.approx(5e300, rel=1e-12)
    np.testing.assert_allclose([clipped["a"][0], clipped["b"][0]], [0.6, 0.8], rtol=1e-12)


def test_markup_never_closed_keeps_the_rest_of_the_text():
    """An unclosed template, table or file link is text, as MediaWiki shows it (the rest of the
    text used to vanish); closed spans inside it are still removed."""
    assert corpus.strip_wiki_markup("a {{b {{c}} d") == "a {{b  d"
    assert corpus.strip_wiki_markup("a {| b |} c {| d") == "a  c {| d"
    assert corpus.strip_wiki_markup("x [[File:a.png|a [[Category:b]] y") == "x [[File:a.png|a  y"
    assert corpus.strip_wiki_markup("a }} b {{c}} d") == "a  b  d"  # a stray closing marker is dropped
    assert corpus.tokenize(corpus.strip_wiki_markup("the {{cite book |title=bank and")) == [
        "the", "cite", "book", "title", "bank", "and"]


def test_words_are_found_as_stored_then_lower_cased():
    emb = vectors.WordVectors(["Cat", "dog"], np.eye(2))
    assert emb.index("Cat") == 0 and "Cat" in emb  # used to be looked up as "cat" and never found
    assert emb.index("Dog") == 1 and emb.index("CAT") == 0
    assert "cow" not in emb
