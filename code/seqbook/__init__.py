"""Sphinx extensions of the book *From Word2Vec to contextual embeddings* (not the models: those
are ``seqmodels``).

- ``seqbook.twolayers``: the book in two layers, a chapter (the teaching path) and its evidence
  page under ``book/evidence/``: the ``{chapter-opening}`` directive with a reading time computed
  from the page's prose words, the ``{evidence}`` role that links a result to the section of an
  evidence page that sweeps it, the ``{reading-time}`` role, and the dependency of a page on the
  pages whose glued values it pastes (``{glue:text}`doc.md::key```).

Each module is an extension in its own right (``extensions = ["seqbook.twolayers"]``); importing
one changes nothing on disk or in the environment.
"""
