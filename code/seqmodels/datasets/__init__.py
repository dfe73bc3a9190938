"""Data loaders: Wikipedia text and analogy questions, the GloVe vectors, the generated corpus of
two senses. (The package's own data files are in ``seqmodels/data/``, read with
``importlib.resources.files("seqmodels") / "data"``.)"""
